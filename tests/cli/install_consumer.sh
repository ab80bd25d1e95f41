#!/usr/bin/env bash
# The library as other programs use it (docs/api.md): this build, installed
# into a temporary prefix with cmake --install, has its files in their
# GNUInstallDirs places; examples/consumer.c, compiled against the installed
# tree alone through pkg-config, once linked to the shared library and once
# statically (pkg-config --static), reads files of tests/data and prints the
# functions and flat values `profkit top -n 5` prints for them, and reports
# a bad file with the message profkit gives.
. "$(dirname "$0")/lib.sh"
: "${PROFKIT_BUILD:?PROFKIT_BUILD must name the build directory}"
for tool in pkg-config readelf python3 cmake; do
  command -v "$tool" > /dev/null || { fail "$tool is missing (scripts/deps.sh --test)"; finish; }
done
CC=${PROFKIT_CC:-cc}
# A sanitizer build's library needs its runtime in the program too.
read -r -a SAN <<< "${PROFKIT_SANITIZE_FLAGS:-}"
version=$(sed -n 's/^#define PROFKIT_VERSION_STRING "\(.*\)"$/\1/p' "$PROFKIT_SRC/include/profkit.h")
major=${version%%.*}

P="$TMP/prefix"
if ! cmake --install "$PROFKIT_BUILD" --prefix "$P" > "$TMP/install.log" 2>&1; then
  fail "cmake --install failed:"; cat "$TMP/install.log"; finish
fi
lib="${PROFKIT_LIBDIR:-lib}"
L="$P/$lib"
for f in bin/profkit include/profkit.h "$lib/libprofkit.a" "$lib/libprofkit.so" "$lib/libprofkit.so.$major" \
         "$lib/libprofkit.so.$version" "$lib/pkgconfig/profkit.pc" share/man/man1/profkit.1; do
  if [ -e "$P/$f" ]; then pass; else fail "not installed: $f"; fi
done
expect_eq "libprofkit.so -> the soname" "libprofkit.so.$major" "$(readlink "$L/libprofkit.so")"
expect_eq "the soname -> the file" "libprofkit.so.$version" "$(readlink "$L/libprofkit.so.$major")"
expect_eq "soname" "libprofkit.so.$major" \
  "$(readelf -d "$L/libprofkit.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')"
if cmp -s "$PROFKIT_SRC/include/profkit.h" "$P/include/profkit.h"; then pass; else fail "installed profkit.h differs"; fi
expect_eq "the installed command runs" "profkit $version" "$("$P/bin/profkit" --version | head -1)"
if readelf -d "$P/bin/profkit" | grep -q 'NEEDED.*libprofkit'; then
  fail "the command needs libprofkit.so: it links the library statically"
else
  pass
fi

# profkit.pc: found in the installed tree alone, pointing there.
export PKG_CONFIG_PATH="$L/pkgconfig"
expect_eq "pkg-config --modversion" "$version" "$(pkg-config --modversion profkit)"
expect_eq "pkg-config libdir" "$(realpath "$L")" "$(realpath "$(pkg-config --variable=libdir profkit)")"
read -r cflags _ <<< "$(pkg-config --cflags profkit)" # then the Requires.private packages' own
expect_eq "pkg-config --cflags: the installed headers first" "$(realpath "$P/include")" "$(realpath "${cflags#-I}")"
# Requires.private: the packages every build needs, then those of the parts
# this build has, as --version lists them.
want="zlib libzstd libisal yajl libelf libdw"
for part in store:sqlite3 clickhouse:libcurl server:libmicrohttpd disasm:capstone debuginfod:libdebuginfod; do
  if "$PROFKIT" --version | grep -Eq "^  ${part%%:*} +yes "; then want="$want ${part#*:}"; fi
done
expect_eq "Requires.private" "$want" "$(sed -n 's/^Requires.private: //p' "$L/pkgconfig/profkit.pc")"

# The consumer, shared: it needs libprofkit.so.MAJOR, found through its rpath.
src="$PROFKIT_SRC/examples/consumer.c"
# shellcheck disable=SC2046
if "$CC" "${SAN[@]}" -std=c99 -Wall -Wextra -pedantic -Werror -o "$TMP/consumer_shared" "$src" \
     $(pkg-config --cflags --libs profkit) -Wl,-rpath,"$L" 2> "$TMP/cc.err"; then
  pass
else
  fail "the consumer does not build against the shared library:"; cat "$TMP/cc.err"; finish
fi
expect_eq "the shared consumer needs libprofkit.so.$major" "libprofkit.so.$major" \
  "$(readelf -d "$TMP/consumer_shared" | sed -n 's/.*(NEEDED).*\[\(libprofkit[^]]*\)\]/\1/p')"
expect_eq "and finds it in the prefix" "$(realpath "$L/libprofkit.so.$major")" \
  "$(realpath "$(ldd "$TMP/consumer_shared" | sed -n 's/.*libprofkit[^ ]* => \([^ ]*\) .*/\1/p')")"

# The consumer, static: pkg-config --static names what libprofkit.a needs;
# -lprofkit must take the archive, not the shared library beside it.
# (the command docs/api.md gives)
libs=$(pkg-config --static --libs profkit | sed 's/-lprofkit/-Wl,-Bstatic -lprofkit -Wl,-Bdynamic/')
# shellcheck disable=SC2086
if "$CC" "${SAN[@]}" -std=c99 -Wall -Wextra -pedantic -Werror -o "$TMP/consumer_static" "$src" \
     $(pkg-config --cflags profkit) $libs 2> "$TMP/cc.err"; then
  pass
else
  fail "the consumer does not link statically with pkg-config --static:"; cat "$TMP/cc.err"; finish
fi
if readelf -d "$TMP/consumer_static" | grep -q 'NEEDED.*libprofkit'; then
  fail "the static consumer needs libprofkit.so"
else
  pass
fi

# Both print what profkit top -n 5 prints: the value type, then each
# function's name and flat value, in order.
for f in v8_cpuprofile/ok_node.cpuprofile bsprof/ok_lines.bsprof speedscope/ok_sampled.speedscope.json; do
  "$PROFKIT" top -n 5 --json -q "$PROFKIT_SRC/tests/data/$f" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("%s (%s): the %d hottest functions by flat value" % (d["value"]["type"], d["value"]["unit"], len(d["rows"])))
for r in d["rows"]:
    print("%14d  %s" % (r["flat"], r["name"]))' > "$TMP/top.out"
  case "$f" in v8_*) expect_eq "$f: top lists five functions" 6 "$(wc -l < "$TMP/top.out")" ;; esac
  for kind in shared static; do
    if "$TMP/consumer_$kind" "$PROFKIT_SRC/tests/data/$f" > "$TMP/consumer.out" 2> "$TMP/consumer.err"; then
      expect_files_eq "$kind consumer on $f against profkit top -n 5" "$TMP/top.out" "$TMP/consumer.out"
      expect_eq "$kind consumer on $f: nothing on stderr" "" "$(cat "$TMP/consumer.err")"
    else
      fail "$kind consumer on $f failed: $(cat "$TMP/consumer.err")"
    fi
  done
done

# A bad file: profkit_error_string gives the message profkit prints.
d="$PROFKIT_SRC/tests/data/bsprof"
for kind in shared static; do
  (cd "$d" && "$TMP/consumer_$kind" bad_undefined_string.bsprof) > /dev/null 2> "$TMP/consumer.err"
  expect_eq "$kind consumer on a bad file: exit 1" 1 $?
  expect_eq "$kind consumer on a bad file: the message" "$(sed 's/^profkit: error: /consumer: /' "$d/bad_undefined_string.bsprof.expect")" \
    "$(cat "$TMP/consumer.err")"
done
finish
