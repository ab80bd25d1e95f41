#!/usr/bin/env python3
"""pprof_set_build_id.py IN.pb OUT.pb PATH_SUFFIX BUILD_ID: gives the
mappings whose file name ends with PATH_SUFFIX the build id BUILD_ID (what
a gperftools profile lacks), through protoc's text form of
tests/oracle/profile.proto. IN must not be gzipped."""
import os, re, subprocess, sys

src, dst, suffix, bid = sys.argv[1:5]
proto_dir = os.path.dirname(os.path.abspath(__file__))
txt = subprocess.run(["protoc", "--decode=perftools.profiles.Profile", "-I", proto_dir, "profile.proto"],
                     stdin=open(src, "rb"), capture_output=True, check=True).stdout.decode()
strings = re.findall(r'^string_table: "(.*)"$', txt, re.M)
new = len(strings)
hits = 0

def fix(m):
    global hits
    block = m.group(0)
    fn = re.search(r"filename: (\d+)", block)
    if fn and strings[int(fn.group(1))].endswith(suffix):
        hits += 1
        block = re.sub(r"\n\s*build_id: \d+", "", block)
        return block.replace("mapping {", "mapping {\n  build_id: %d" % new, 1)
    return block

txt = re.sub(r"mapping \{[^}]*\}", fix, txt)
txt += 'string_table: "%s"\n' % bid
if not hits:
    sys.exit("no mapping ends with " + suffix)
out = subprocess.run(["protoc", "--encode=perftools.profiles.Profile", "-I", proto_dir, "profile.proto"],
                     input=txt.encode(), capture_output=True, check=True).stdout
open(dst, "wb").write(out)
