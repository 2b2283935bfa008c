#!/bin/bash
# tests/api/test_gasnet_trace.sh: gasnet_trace's report of a real trace.
#   test_gasnet_trace.sh GASNET_TRACE TRACESUM_PROG TRACESUM_SRC
# (TRACESUM_PROG: tests/unit/test_tracesum, built against the smp library with tracing;
# TRACESUM_SRC: its source, whose "T:<name>" marks give the source lines.) Runs it on 2
# ranks with GASNET_TRACEFILE=dir/t.% and checks the report of both files: exact calls,
# totals, averages, least and largest bytes per source line; per-peer lines with -peer and
# per-thread lines with -thread; the library's memset puts only with -internal; each -sort
# key's order; -report, -filter WAIT/WAITNOTIFY, -filter LOCAL/GLOBAL (with a hand-made
# trace of remote puts), -full, -o, -h; a clear error and non-zero status for a missing
# file, a statistics file, a file of garbage, a record without its fields, a bad option.
# Layer: tests (driver).
set -u
[ $# -eq 3 ] || { echo "usage: test_gasnet_trace.sh GASNET_TRACE TRACESUM_PROG TRACESUM_SRC" >&2; exit 2; }
GT=$1 PROG=$2 SRC=$3
NAME=test_gasnet_trace
for f in "$GT" "$PROG"; do [ -x "$f" ] || { echo "FAIL $NAME: not executable: $f"; exit 1; }; done
for v in $(compgen -e); do
    case "$v" in GASNET_PSHM_DIR | GASNET_BACKTRACE) ;; GASNET_*) unset "$v" ;; esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-gtrace.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
out="$tmp/out" err="$tmp/err"
failed=0
last=0 # a check's own FAIL line was printed (so its summary one is not)
bad() { echo "FAIL $NAME: $*"; echo "--- stdout:"; cat "$out"; echo "--- stderr:"; cat "$err"; failed=1 last=1; }
ok() { echo "ok   $*"; }
L() { grep -n "T:$1 \*/" "$SRC" | cut -d: -f1; } # the line of a mark
F=test_tracesum.c

GASNET_PSHM_NODES=2 GASNET_TRACEFILE="$tmp/t.%" timeout -s KILL 60 "$PROG" >"$out" 2>"$err" ||
    { bad "the traced job failed"; exit 1; }
[ -s "$tmp/t.0" ] && [ -s "$tmp/t.1" ] || { bad "no trace files"; exit 1; }

gt() { last=0; "$GT" "$@" >"$out" 2>"$err"; }
# sect NAME: the lines of one section of $out (without its title and header)
sect() { awk -v s="$1 report" 'index($0, s) == 1 {on = 1; next} on && /^source / {next} /^$/ {on = 0} on' "$out"; }
# expect SECTION "FIELDS..." WHAT: a line of SECTION equal (words) to FIELDS
expect() {
    sect "$1" | awk '{$1 = $1; print}' | grep -qxF -- "$2" || { bad "$3: no line '$2' in the $1 report"; return 1; }
}

gt "$tmp/t.0" "$tmp/t.1"
if [ $? -ne 0 ]; then bad "default report: status not 0"
else
    expect PUT "$F:$(L putvar) NB 4 2020 505.0 10 1000" "putvar" &&
    expect PUT "$F:$(L putloop) BLOCKING 6 600 100.0 100 100" "putloop" &&
    expect PUT "$F:$(L putself) NBI 2 500 250.0 250 250" "putself" &&
    expect GET "$F:$(L get) BLOCKING 4 256 64.0 64 64" "get" &&
    expect GET "$F:$(L getnbi) NBI 2 32 16.0 16 16" "getnbi" &&
    expect MEMORY "test_util.h:89 ATTACH 2 131072 65536.0 65536 65536" "attach" &&
    [ "$(sect PUT | wc -l)" = 3 ] && ! grep -q gasnete_legacy "$out" &&
    sect BARRIER | grep -Eq "^$F:$(L wait) +WAIT +2 " && sect BARRIER | grep -Eq "^$F:$(L notify) +WAITNOTIFY +2 " &&
    sect BARRIER | grep -Eq "^$F:$(L bblock) +WAIT +2 " && sect BARRIER | grep -Eq "^$F:$(L bblock) +WAITNOTIFY +2 " &&
    sect BARRIER | awk '!($6 <= $5 && $5 <= $7 && $7 <= $4) {exit 1}' &&
    head -1 "$out" | grep -q "^gasnet_trace: 2 files, [0-9]* records, ranks 0-1 (of a job of 2)$" &&
    ok "default: exact calls and bytes per line, barrier waits and notifies, no internal puts" ||
    { [ $last = 1 ] || bad "default report: wrong lines (internal puts shown, or barrier figures)"; }
fi
# a line per peer: from rank 0 to 1 and from rank 1 to 0 (putself: each to itself)
gt -peer "$tmp/t.0" "$tmp/t.1" &&
    expect PUT "$F:$(L putloop) BLOCKING 0 3 300 100.0 100 100" "-peer putloop 0" &&
    expect PUT "$F:$(L putloop) BLOCKING 1 3 300 100.0 100 100" "-peer putloop 1" &&
    expect PUT "$F:$(L putself) NBI 0 1 250 250.0 250 250" "-peer putself 0" &&
    expect GET "$F:$(L getnbi) NBI 1 1 16 16.0 16 16" "-peer getnbi 1" &&
    [ "$(sect PUT | wc -l)" = 6 ] && ok "-peer: a line per source line and peer" ||
    { [ $last = 1 ] || bad "-peer: not 6 put lines"; }
gt -thread -report PUT "$tmp/t.0" "$tmp/t.1" &&
    expect PUT "$F:$(L putvar) NB 0.0 2 1010 505.0 10 1000" "-thread rank 0" &&
    expect PUT "$F:$(L putvar) NB 1.0 2 1010 505.0 10 1000" "-thread rank 1" && ok "-thread: a line per rank.thread"
gt -internal "$tmp/t.0" "$tmp/t.1" &&
    sect PUT | grep -Eq "^gasnete_legacy\.c:[0-9]+ +NBI? +2 +80 +40\.0 +40 +40$" && [ "$(sect PUT | wc -l)" = 4 ] &&
    ok "-internal: gasnet_memset's puts (the library's own) shown" || { [ $last = 1 ] || bad "-internal: no memset line"; }
gt -internal -nointernal -full "$tmp/t.0" "$tmp/t.1" &&
    ! grep -q gasnete_legacy "$out" && sect PUT | grep -q "/tests/api/$F:$(L putloop) " &&
    ok "-nointernal after -internal; -full shows the path" || { [ $last = 1 ] || bad "-nointernal/-full"; }

# every sort key: the order of the three put lines
for pair in "TOTAL putvar putloop putself" "AVG putvar putself putloop" "MIN putself putloop putvar" \
            "MAX putvar putself putloop" "CALLS putloop putvar putself" "TYPE putloop putvar putself" \
            "SRC putself putloop putvar"; do
    set -- $pair
    want="$F:$(L $2) $F:$(L $3) $F:$(L $4)"
    gt -sort "$(tr A-Z a-z <<< "$1")" -report put "$tmp/t.1" "$tmp/t.0"
    got=$(sect PUT | awk '{print $1}' | paste -sd' ')
    [ "$got" = "$want" ] && grep -q "sorted by $1" "$out" && ok "-sort $1: $2 $3 $4" || bad "-sort $1: order '$got', expected '$want'"
done

gt -report GET,memory "$tmp/t.0" "$tmp/t.1" && ! grep -q "^PUT report\|^BARRIER report" "$out" &&
    grep -q "^GET report" "$out" && grep -q "^MEMORY report" "$out" && ok "-report GET,memory: those sections only" ||
    { [ $last = 1 ] || bad "-report GET,memory"; }
gt -filter WAIT -report BARRIER "$tmp/t.0" "$tmp/t.1" && ! sect BARRIER | grep -q " WAIT " &&
    sect BARRIER | grep -q " WAITNOTIFY " && ok "-filter WAIT: only WAITNOTIFY lines" || { [ $last = 1 ] || bad "-filter WAIT"; }
gt -filter WAITNOTIFY -report BARRIER "$tmp/t.0" "$tmp/t.1" && ! sect BARRIER | grep -q " WAITNOTIFY " &&
    sect BARRIER | grep -q " WAIT " && ok "-filter WAITNOTIFY: only WAIT lines" || { [ $last = 1 ] || bad "-filter WAITNOTIFY"; }
gt -filter LOCAL "$tmp/t.0" && [ "$(sect PUT)" = "(none)" ] && ok "-filter LOCAL: on smp every put is local" ||
    { [ $last = 1 ] || bad "-filter LOCAL"; }
# remote peers (another host's ranks, or PSHM off): a hand-made trace
cat > "$tmp/remote.2" <<'REC'
2 0.000000 INFO start rank=2 ranks=4 config=X
2 0.100000 PUT_NB peer=0 bytes=300 local=0 thread=0 src=/a/b c.c:7
2 0.200000 PUT_NB peer=3 bytes=100 local=1 thread=0 src=/a/b c.c:7
2 0.300000 GET_NBI peer=1 bytes=5 local=0 thread=1 internal=1 src=lib.c:9
REC
gt -filter LOCAL "$tmp/remote.2" && expect PUT "b c.c:7 NB 1 300 300.0 300 300" "-filter LOCAL" &&
    gt -filter GLOBAL "$tmp/remote.2" && expect PUT "b c.c:7 NB 1 100 100.0 100 100" "-filter GLOBAL" &&
    gt -filter local,global -internal "$tmp/remote.2" && [ "$(sect GET)" = "(none)" ] &&
    gt -internal "$tmp/remote.2" && expect GET "lib.c:9 NBI 1 5 5.0 5 5" "-internal remote" &&
    ok "-filter LOCAL/GLOBAL on remote and local puts (a path with a space)" || { [ $last = 1 ] || bad "-filter LOCAL/GLOBAL"; }

gt "$tmp/t.0" "$tmp/t.1" && cp "$out" "$tmp/stdout" && gt -o "$tmp/report" "$tmp/t.0" "$tmp/t.1" && [ ! -s "$out" ] &&
    cmp -s "$tmp/stdout" "$tmp/report" &&
    ok "-o FILE: the report there, nothing on stdout" || { [ $last = 1 ] || bad "-o"; }
gt -h && grep -q "^usage: gasnet_trace \[options\] trace-file(s)" "$out" && grep -q -- "-filter LIST" "$out" &&
    ok "-h: the usage" || { [ $last = 1 ] || bad "-h"; }

# mistakes: one line on stderr naming gasnet_trace, a non-zero status
mistake() { # mistake NAME STATUS TEXT ARGS...
    local name=$1 want=$2 text=$3 st
    shift 3
    gt "$@"; st=$?
    if [ $st != "$want" ]; then bad "$name: status $st, expected $want"
    elif [ "$(wc -l <"$err")" != 1 ] || ! grep -q "^gasnet_trace: .*$text" "$err"; then bad "$name: not one line saying '$text'"
    else ok "$name: $(cat "$err")"; fi
}
printf '0 STATS rank=0 ranks=2 seconds=1 config=X\n0 STAT PUT_NB count=1 bytes=1 least=1 most=1\n' > "$tmp/stats.0"
printf 'hello world\n' > "$tmp/garbage"
printf '0 0.1 PUT_NB peer=1 bytes=8\n' > "$tmp/old"
: > "$tmp/empty"
mistake "missing file" 1 "nonesuch: No such file" "$tmp/nonesuch"
mistake "statistics file" 1 "this is a statistics file" "$tmp/stats.0"
mistake "garbage" 1 "garbage:1: not a trace record" "$tmp/garbage"
mistake "record without fields" 1 "old:1: a PUT_NB record without the fields" "$tmp/old"
mistake "empty file" 1 "no trace records" "$tmp/empty"
mistake "no file" 2 "no trace file given" -peer
mistake "bad -sort" 2 "-sort SIZE" -sort SIZE "$tmp/t.0"
mistake "bad -report" 2 "'ATOMIC' is not one of" -report PUT,ATOMIC "$tmp/t.0"
mistake "bad -filter" 2 "'NEAR' is not one of" -filter NEAR "$tmp/t.0"
mistake "unknown option" 2 "unknown option -bogus" -bogus "$tmp/t.0"
mistake "-o without a file" 2 "-o needs a value" -o

if [ $failed = 0 ]; then echo "PASS $NAME"; exit 0; fi
exit 1
