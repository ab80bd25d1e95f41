#!/usr/bin/env bash
# The symbol cache (docs/symbols.md, "The symbol cache"): a program built
# now with -g (tests/oracle/inl_main.c and its library), profiled with
# libprofiler, read with the cache in $XDG_CACHE_HOME:
#   - the first run writes a cache file per binary with DWARF, by build id;
#     a second run prints the same `top`, `--by line` and `info`, and does
#     read the cache (a cache file whose name was changed shows that name);
#   - a changed binary (its time), PROFKIT_SYMBOL_CACHE=0 and a cache file
#     that does not check out (cut short at every few bytes, a flipped
#     byte, another version, counts past the file, an offset past the
#     strings, a directory, a FIFO, an empty file) each give the output of a run
#     without cache, with no message, and a bad file is written again;
#   - runs at the same time, and a cache directory that cannot be made,
#     change nothing in the output;
#   - pruning: entries unused for 30 days, then the least recently used past
#     the limit, and stale temporary files go; a read marks an entry used.
. "$(dirname "$0")/lib.sh"
ORACLE="$PROFKIT_SRC/tests/oracle"
LIBPROFILER=$(ls /usr/lib/*/libprofiler.so.0 2>/dev/null | head -1)
[ -n "$LIBPROFILER" ] || { fail "libprofiler missing: scripts/deps.sh --test"; finish; }

D="$TMP/src"
mkdir -p "$D"
cp "$ORACLE/inl_main.c" "$ORACLE/inl_lib.c" "$D/"
cd "$D" || exit 1
cc -g -O2 -fPIC -shared -o libinl.so inl_lib.c &&
  cc -g -O2 -fPIE -pie -o prog inl_main.c -L. -linl -Wl,-rpath,"$D" -Wl,--no-as-needed -lprofiler ||
  { fail "cannot build inl_main.c against libprofiler (libgoogle-perftools-dev)"; finish; }
prof="$TMP/p.prof"
CPUPROFILE="$prof" CPUPROFILE_FREQUENCY=1000 ./prog 1500 > /dev/null 2>&1
[ -s "$prof" ] || { fail "no profile written"; finish; }
bid=$(readelf -n prog | awk '/Build ID/ { print $3 }')
[ -n "$bid" ] || { fail "the test program has no build id"; finish; }

export XDG_CACHE_HOME="$TMP/cache"
C="$XDG_CACHE_HOME/profkit/symbols"
run() { # run NAME [ENV...]: top, top --by line and info of the profile into $TMP/NAME.*
  local name=$1
  shift
  env "$@" "$PROFKIT" top -n 0 --value samples "$prof" > "$TMP/$name.top" 2> "$TMP/$name.err" || fail "$name: top failed"
  env "$@" "$PROFKIT" top -n 0 --value samples --by line "$prof" > "$TMP/$name.lines" 2>> "$TMP/$name.err" || fail "$name: top --by line failed"
  env "$@" "$PROFKIT" info "$prof" > "$TMP/$name.info" 2>> "$TMP/$name.err" || fail "$name: info failed"
  [ -s "$TMP/$name.err" ] && fail "$name: messages: $(head -3 "$TMP/$name.err")"
}
same_as_fresh() { # same_as_fresh NAME
  cmp -s "$TMP/$1.top" "$TMP/fresh.top" && cmp -s "$TMP/$1.lines" "$TMP/fresh.lines" &&
    cmp -s "$TMP/$1.info" "$TMP/fresh.info" && pass || {
    fail "$1: output differs from a run without the cache"
    diff "$TMP/fresh.top" "$TMP/$1.top" | head -5
  }
}

run fresh PROFKIT_SYMBOL_CACHE=0
[ ! -e "$C" ] && pass || fail "PROFKIT_SYMBOL_CACHE=0 wrote a cache"
grep -q ' hot' "$TMP/fresh.top" && grep -q 'DWARF' "$TMP/fresh.info" && pass ||
  fail "the program's functions are not named from DWARF: $(head -5 "$TMP/fresh.top")"
run first
same_as_fresh first
[ -s "$C/$bid" ] && pass || fail "no cache file $C/$bid after a run: $(ls -la "$C" 2>&1)"
lbid=$(readelf -n libinl.so | awk '/Build ID/ { print $3 }')
[ -s "$C/$lbid" ] && pass || fail "no cache file for libinl.so ($lbid)"
run second
same_as_fresh second

# The cache file's layout is sym_cache.c's; this rewrites one with a
# change and a right checksum, or breaks it.
cat > "$TMP/edit.py" << 'EOF'
import struct, sys
path, what = sys.argv[1], sys.argv[2]
d = bytearray(open(path, 'rb').read())
def fnv(b):
    h = 0xcbf29ce484222325
    for x in b:
        h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
    return h
def reseal():
    d[-8:] = struct.pack('<Q', fnv(d[:-8]))
L, N, F, S, Cn, Dn = struct.unpack_from('<IIIIII', d, 16)
at = 56 + ((L + Cn + Dn + 7) & ~7)
strs = at + 16 * N + 16 * F
if what == 'rename':            # every "hot" string becomes "HOT"
    s = bytes(d[strs:strs + S]).replace(b'hot\0', b'HOT\0')
    d[strs:strs + S] = s
    reseal()
elif what == 'flip':
    d[strs + S // 2] ^= 0x20
elif what == 'version':
    d[8] = 99
    reseal()
elif what == 'counts':          # more addresses than the file holds
    struct.pack_into('<I', d, 20, N + 1000)
    reseal()
elif what == 'offset':          # a name past the strings
    struct.pack_into('<I', d, at + 16 * N, S + 5)
    reseal()
elif what == 'chain':           # a chain past the frames
    struct.pack_into('<I', d, at + 12, F + 1)
    reseal()
elif what == 'order':           # addresses not increasing
    if N > 1:
        d[at:at + 16], d[at + 16:at + 32] = d[at + 16:at + 32], d[at:at + 16]
    reseal()
open(path, 'wb').write(d)
EOF
cp "$C/$bid" "$TMP/good.cache"
python3 "$TMP/edit.py" "$C/$bid" rename
run renamed
grep -q ' HOT' "$TMP/renamed.top" && ! grep -q ' hot$' "$TMP/renamed.top" && pass ||
  fail "a second run did not take its names from the cache: $(grep -i ' hot' "$TMP/renamed.top")"
run off PROFKIT_SYMBOL_CACHE=off
same_as_fresh off
# A binary changed since (its time) does not use what was cached for it.
cp "$C/$bid" "$TMP/renamed.cache"
touch -d '+1 second' prog
run touched
same_as_fresh touched
cmp -s "$C/$bid" "$TMP/renamed.cache" && fail "the cache of a changed binary was not written again" || pass

# Files that do not check out: the lookups go to the binary, the file is
# written again, and the next run uses it.
bad_case() { # bad_case NAME: $C/$bid is broken; checks the run and the rewrite
  run "bad_$1"
  same_as_fresh "bad_$1"
  run "again_$1"
  same_as_fresh "again_$1"
}
for what in flip version counts offset chain order; do
  run base_$what > /dev/null
  python3 "$TMP/edit.py" "$C/$bid" $what
  bad_case "$what"
done
size=$(stat -c %s "$C/$bid")
for cut in 0 7 8 55 56 64 $((size / 3)) $((size / 2)) $((size - 9)) $((size - 8)) $((size - 1)); do
  cp "$TMP/good.cache" "$C/$bid.tmp"
  truncate -s "$cut" "$C/$bid.tmp"
  mv "$C/$bid.tmp" "$C/$bid"
  bad_case "cut$cut"
done
rm -f "$C/$bid"
mkdir "$C/$bid"
run dir
same_as_fresh dir
rmdir "$C/$bid"
mkfifo "$C/$bid"
run fifo
same_as_fresh fifo
rm -f "$C/$bid"
: > "$C/$bid"
bad_case empty

# Runs at the same time, from an empty cache.
rm -rf "$XDG_CACHE_HOME"
for i in 1 2 3 4; do
  "$PROFKIT" top -n 0 --value samples "$prof" > "$TMP/par$i.top" 2> "$TMP/par$i.err" &
done
wait
for i in 1 2 3 4; do
  cmp -s "$TMP/par$i.top" "$TMP/fresh.top" && [ ! -s "$TMP/par$i.err" ] && pass || fail "parallel run $i differs"
done
ls "$C" | grep -q '\.' && fail "temporary files left: $(ls "$C")" || pass
run after_parallel
same_as_fresh after_parallel
made=$(ls "$C")   # the entries a run writes from an empty cache

# Pruning: an entry unused for 30 days goes, then the least recently used
# past PROFKIT_SYMBOL_CACHE_MAX_MB, and a temporary file a killed run left
# an hour ago; names the cache does not write and the newest stay.
rm -rf "$XDG_CACHE_HOME"; mkdir -p "$C"
head -c 1024 /dev/zero > "$C/aa11"; touch -d '40 days ago' "$C/aa11"
head -c 1024 /dev/zero > "$C/bb22"
head -c 3145728 /dev/zero > "$C/ee55"; touch -d '1 day ago' "$C/ee55"
head -c 3145728 /dev/zero > "$C/ff66"; touch -d '2 hours ago' "$C/ff66"
: > "$C/cc33.abcdef"; touch -d '2 hours ago' "$C/cc33.abcdef"
: > "$C/dd44.abcdef"
: > "$C/README"; touch -d '40 days ago' "$C/README"
run pruned PROFKIT_SYMBOL_CACHE_MAX_MB=4
same_as_fresh pruned
left=$(cd "$C" && ls | sort | tr '\n' ' ')
want=$(printf '%s\n' README bb22 dd44.abcdef ff66 $made | sort | tr '\n' ' ')
[ "$left" = "$want" ] && pass || fail "after pruning: $left, expected $want"
# A read marks an entry used (its time), at most once a day.
touch -d '3 days ago' "$C/$bid"
run used
same_as_fresh used
[ "$(stat -c %Y "$C/$bid")" -gt "$(( $(date +%s) - 3600 ))" ] && pass || fail "a read did not mark $bid used"
touch -d '3 hours ago' "$C/$bid"; before=$(stat -c %Y "$C/$bid")
run used_again
[ "$(stat -c %Y "$C/$bid")" = "$before" ] && pass || fail "a read marked an entry used twice in a day"

# A cache directory that cannot be made.
: > "$TMP/afile"
run nodir XDG_CACHE_HOME="$TMP/afile"
same_as_fresh nodir
finish
