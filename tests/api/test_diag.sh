#!/bin/bash
# tests/api/test_diag.sh: diagnostics.
#   test_diag.sh GASNET_RUN TRACE_PROG PLAIN_PROG BADARG_PROG
# TRACE_PROG is tests/unit/test_trace (a library with tracing and statistics compiled in),
# PLAIN_PROG a program against the normal library (test_am: it must create no file), BADARG_PROG tests/api/test_badarg (its "handler" mode ends in a fatal
# error). Checks, on smp with 2 ranks:
#   - GASNET_TRACEFILE=dir/trace.% gives one file per rank holding the start and end
#     records and each operation test_trace.c does, with peer, size and source line (and
#     barrier waits and the segment's attach), and the client's
#     GASNETT_TRACE_PRINTF line; GASNET_STATSFILE gives exact counts and byte totals (AM
#     Short requests: at least the client's 3, the library's barriers send some too);
#     GASNETT_STATS_DUMP(1) writes a block then counts from zero (the exit block holds
#     only the put made after it);
#   - GASNET_TRACEMASK=P keeps only puts (and nothing else); a bad mask letter is a
#     one-line launch error;
#   - a library built without tracing creates no trace file;
#   - GASNET_VERBOSEENV=1 lists each variable once with (set)/(default);
#   - GASNET_BACKTRACE=1 prints a backtrace after a fatal error that names main, by gdb
#     when it is installed, and says which method printed it; ADDR2LINE names the
#     library's static frames and main's source line; EXECINFO is glibc's; with neither
#     program in PATH each failure is reported;
#   - GASNET_FREEZE_ON_ERROR=1 stops the failing process and says how to attach.
# Layer: tests (driver).
set -u
[ $# -eq 4 ] || { echo "usage: test_diag.sh GASNET_RUN TRACE_PROG PLAIN_PROG BADARG_PROG" >&2; exit 2; }
RUN=$1 TPROG=$2 PPROG=$3 BPROG=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-diag.XXXXXX") || exit 2
bg=""
trap '[ -n "$bg" ] && kill -KILL -- -"$bg" 2>/dev/null; rm -rf "$tmp"' EXIT
out="$tmp/out" err="$tmp/err"
failed=0
bad() { echo "FAIL test_diag: $*"; echo "--- stdout:"; cat "$out"; echo "--- stderr:"; cat "$err"; failed=1; }
ok() { echo "ok   $*"; }
run2() { "$RUN" -c smp -n 2 -t 60 "$@" > "$out" 2> "$err"; }

# ---- trace and statistics ----
GASNET_TRACEFILE="$tmp/trace.%" GASNET_STATSFILE="$tmp/stats.%" run2 "$TPROG"
st=$?
if [ $st -ne 0 ]; then bad "traced job: status $st"
else
    for r in 0 1; do
        peer=$((1 - r))
        t="$tmp/trace.$r" s="$tmp/stats.$r"
        [ -s "$t" ] && [ -s "$s" ] || { bad "rank $r: no trace or stats file"; continue; }
        miss=""
        for pat in "^$r [0-9.]* INFO start rank=$r ranks=2 " \
                   "^$r [0-9.]* AMREQUEST_SHORT peer=$peer bytes=0 handler=200\$" \
                   "^$r [0-9.]* AMREPLY_SHORT peer=$peer bytes=0 handler=201\$" \
                   "^$r [0-9.]* AMREQUEST_MEDIUM peer=$peer bytes=100 handler=202\$" \
                   "^$r [0-9.]* AMREQUEST_LONG peer=$peer bytes=200 handler=202\$" \
                   "^$r [0-9.]* AMHANDLER_REQUEST peer=$peer bytes=100 handler=202\$" \
                   "^$r [0-9.]* PUT_BLOCKING peer=$peer bytes=4096 local=1 thread=0 src=.*test_trace\.c:51\$" \
                   "^$r [0-9.]* PUT_NB peer=$peer bytes=4096 local=1 thread=0 src=.*test_trace\.c:53\$" \
                   "^$r [0-9.]* PUT_NBI peer=$peer bytes=4096 local=1 thread=0 src=.*test_trace\.c:54\$" \
                   "^$r [0-9.]* GET_BLOCKING peer=$peer bytes=512 local=1 thread=0 src=.*test_trace\.c:56\$" \
                   "^$r [0-9.]* GET_NB peer=$peer bytes=512 local=1 thread=0 src=.*test_trace\.c:57\$" \
                   "^$r [0-9.]* ATOMIC peer=$peer bytes=8\$" \
                   "^$r [0-9.]* BARRIER_NOTIFY peer=$r bytes=0 thread=0 src=.*test_util\.h:[0-9]+\$" \
                   "^$r [0-9.]* BARRIER_WAIT ns=[0-9]+ span_ns=[0-9]+ thread=0 nsrc=.*test_util\.h:[0-9]+ src=.*test_util\.h:[0-9]+\$" \
                   "^$r [0-9.]* SEGMENT_ATTACH peer=$r bytes=1048576 thread=0 src=.*test_util\.h:[0-9]+\$" "^$r [0-9.]* WAIT_SYNC ns=[0-9]*\$" \
                   "^$r [0-9.]* USER client message 42\$" "^$r [0-9.]* INFO end\$"; do
            grep -Eq -- "$pat" "$t" || miss="$miss [$pat]"
        done
        [ -z "$miss" ] || { bad "rank $r: trace lacks$miss"; continue; }
        miss=""
        for pat in "^$r STATS rank=$r ranks=2 " \
                   "^$r STAT AMREQUEST_SHORT count=([3-9]|[1-9][0-9]+) bytes=0 " \
                   "^$r STAT AMREQUEST_MEDIUM count=2 bytes=200 least=100 most=100\$" \
                   "^$r STAT AMREQUEST_LONG count=1 bytes=200 least=200 most=200\$" \
                   "^$r STAT AMREPLY_SHORT count=3 " \
                   "^$r STAT PUT_BLOCKING count=2 bytes=8192 least=4096 most=4096\$" \
                   "^$r STAT PUT_NB count=1 bytes=4096 " "^$r STAT PUT_NBI count=1 bytes=4096 " \
                   "^$r STAT GET_BLOCKING count=1 bytes=512 " "^$r STAT GET_NB count=2 bytes=1024 " \
                   "^$r STAT ATOMIC count=1 bytes=8 " "^$r STAT WAIT_SYNC count=[0-9]+ seconds=" \
                   "^$r [0-9.]* USER client stat 7\$"; do
            grep -Eq -- "$pat" "$s" || miss="$miss [$pat]"
        done
        [ -z "$miss" ] || { bad "rank $r: stats lack$miss"; echo "--- stats.$r:"; cat "$s"; continue; }
        # GASNETT_STATS_DUMP(1): a first block of everything, then the one put made after it
        last=$(awk '/ STATS rank=/ { n++; b = "" } { b = b $0 "\n" } END { printf "%s", b }' "$s")
        if [ "$(grep -c " STATS rank=$r " "$s")" -ne 2 ]; then
            bad "rank $r: expected 2 STATS blocks (GASNETT_STATS_DUMP and exit)"; cat "$s"; continue
        elif ! grep -Eq "^$r STAT PUT_BLOCKING count=1 bytes=4096 least=4096 most=4096\$" <<< "$last" ||
             grep -Eq " STAT (PUT_NB|PUT_NBI|GET_NB|AMREQUEST_MEDIUM|ATOMIC) " <<< "$last"; then
            bad "rank $r: the block after GASNETT_STATS_DUMP(1) is not counted from zero:"; echo "$last"; continue
        fi
        ok "rank $r: trace ($(wc -l < "$t") records) and stats ($(grep -c ' STAT ' "$s") kinds) hold every operation"
    done
fi
rm -f "$tmp"/trace.* "$tmp"/stats.*

GASNET_TRACEFILE="$tmp/trace.%" GASNET_TRACEMASK=P run2 "$TPROG"
st=$?
if [ $st -ne 0 ]; then bad "GASNET_TRACEMASK=P: status $st"
elif ! grep -q ' PUT_BLOCKING ' "$tmp/trace.0"; then bad "GASNET_TRACEMASK=P: no puts traced"
elif grep -v ' PUT_' "$tmp/trace.0" | grep -q .; then bad "GASNET_TRACEMASK=P: other records: $(grep -v ' PUT_' "$tmp/trace.0" | head -3)"
else ok "GASNET_TRACEMASK=P: only puts ($(wc -l < "$tmp/trace.0") records)"; fi
rm -f "$tmp"/trace.*

GASNET_TRACEFILE="$tmp/trace.%" GASNET_TRACEMASK=PQ run2 "$TPROG"
st=$?
if [ $st -eq 0 ] || [ "$(grep -c . "$err")" -ne 1 ] || ! grep -q 'GASNET_TRACEMASK=PQ' "$err"; then
    bad "GASNET_TRACEMASK=PQ: status $st, expected a one-line error naming the variable"
else ok "GASNET_TRACEMASK=PQ: $(cat "$err")"; fi
rm -f "$tmp"/trace.*

GASNET_TRACEFILE="$tmp/trace.%" GASNET_STATSFILE="$tmp/stats.%" run2 "$PPROG"
st=$?
if [ $st -ne 0 ]; then bad "untraced library: status $st"
elif ls "$tmp"/trace.* "$tmp"/stats.* > /dev/null 2>&1; then bad "a library built without tracing wrote a trace"
else ok "a library built without tracing or statistics writes nothing"; fi

# ---- GASNET_VERBOSEENV ----
GASNET_VERBOSEENV=1 GASNET_PSHM_LANES_MAX=4 run2 "$PPROG"
st=$?
dups=$(grep '^ENV parameter:' "$err" | awk '{print $3}' | sort | uniq -d)
if [ $st -ne 0 ]; then bad "GASNET_VERBOSEENV=1: status $st"
elif ! grep -Eq '^ENV parameter: GASNET_PSHM_LANES_MAX +=  *4 +\(set\)$' "$err"; then bad "GASNET_VERBOSEENV: no (set) line for GASNET_PSHM_LANES_MAX"
elif ! grep -Eq '^ENV parameter: GASNET_PSHM_NETWORK_DEPTH +=  *32 +\(default\)$' "$err"; then bad "GASNET_VERBOSEENV: no (default) line for GASNET_PSHM_NETWORK_DEPTH"
elif [ -n "$dups" ]; then bad "GASNET_VERBOSEENV: listed more than once: $dups"
else ok "GASNET_VERBOSEENV=1: $(grep -c '^ENV parameter:' "$err") variables, each once, (set) and (default) marked"; fi

# ---- backtraces and freezing on a fatal error ----
# the default: gdb where it is installed and may attach, else addr2line; either names main
GASNET_BACKTRACE=1 run2 "$BPROG" handler
st=$?
how=$(sed -n 's/^\*\*\* backtrace of rank [0-9]* (pid [0-9]*), by \([a-z0-9]*\).*/\1/p' "$err" | head -1)
if [ $st -eq 0 ] || ! grep -q 'FATAL ERROR' "$err"; then bad "fatal error: status $st"
elif [ -z "$how" ]; then bad "GASNET_BACKTRACE=1: no line saying which method printed the backtrace"
elif command -v gdb > /dev/null && [ "$how" != gdb ]; then bad "GASNET_BACKTRACE=1: gdb is installed but $how printed the backtrace"
elif ! grep -Eq '(^#[0-9]+ .*| in )main( \(| at )' "$err"; then bad "GASNET_BACKTRACE=1 (by $how): no frame names main"
else ok "GASNET_BACKTRACE=1: a backtrace by $how naming main"; fi
GASNET_BACKTRACE=1 GASNET_BACKTRACE_TYPE=ADDR2LINE run2 "$BPROG" handler
st=$?
if [ $st -eq 0 ] || ! grep -q '^\*\*\* backtrace of rank [0-9]* (pid [0-9]*), by addr2line' "$err"; then
    bad "GASNET_BACKTRACE_TYPE=ADDR2LINE: no 'by addr2line' backtrace (status $st)"
elif ! grep -Eq '^    inlined in main at .*test_badarg\.c:[0-9]+|^#[0-9]+ +main at .*test_badarg\.c:[0-9]+' "$err"; then
    bad "GASNET_BACKTRACE_TYPE=ADDR2LINE: no frame names main with its source line"
elif ! grep -q '^#[0-9]* *gasneti_fatalerror at .*gasneti_env\.c' "$err"; then
    bad "GASNET_BACKTRACE_TYPE=ADDR2LINE: the library's static frames are not named"
else ok "GASNET_BACKTRACE_TYPE=ADDR2LINE: $(grep -c '^#[0-9]' "$err") named frames, main's source line among them"; fi
GASNET_BACKTRACE=1 GASNET_BACKTRACE_TYPE=EXECINFO run2 "$BPROG" handler
st=$?
if [ $st -eq 0 ] || ! grep -q 'by glibc backtrace_symbols' "$err" || [ "$(grep -c '\[0x[0-9a-f]*\]' "$err")" -lt 3 ]; then
    bad "GASNET_BACKTRACE_TYPE=EXECINFO: no glibc backtrace (status $st)"
else ok "GASNET_BACKTRACE_TYPE=EXECINFO: $(grep -c '\[0x[0-9a-f]*\]' "$err") frames by glibc"; fi
GASNET_BACKTRACE=1 GASNET_BACKTRACE_TYPE=GDB,ADDR2LINE run2 /usr/bin/env PATH=/nonexistent "$BPROG" handler
st=$?
if [ $st -eq 0 ] || ! grep -q 'by gdb: it could not be run' "$err" || ! grep -q 'by addr2line: it could not be run' "$err"; then
    bad "GASNET_BACKTRACE_TYPE=GDB,ADDR2LINE without either program: the fall-through is not reported"
else ok "GASNET_BACKTRACE_TYPE=GDB,ADDR2LINE with neither in PATH: each failure reported"; fi

setsid env GASNET_FREEZE_ON_ERROR=1 GASNET_PSHM_NODES=2 "$BPROG" handler > "$out" 2> "$err" < /dev/null &
bg=$!
disown "$bg" # no job-status line when it is killed below
frozen=""
for _ in $(seq 100); do
    frozen=$(sed -n 's/.*process \([0-9]*\) on .* frozen for a debugger: gdb -p \([0-9]*\).*/\1/p' "$err" | head -1)
    [ -n "$frozen" ] && break
    sleep 0.1
done
if [ -z "$frozen" ]; then bad "GASNET_FREEZE_ON_ERROR=1: no 'frozen for a debugger' message"
else
    sleep 0.5
    if ! kill -0 "$frozen" 2>/dev/null; then bad "GASNET_FREEZE_ON_ERROR=1: process $frozen did not stay"
    else ok "GASNET_FREEZE_ON_ERROR=1: $(grep -m1 frozen "$err" | sed 's/^\*\*\* //')"; fi
fi
kill -KILL -- -"$bg" 2>/dev/null
for _ in $(seq 50); do kill -0 "$bg" 2>/dev/null || break; sleep 0.1; done
bg=""

[ $failed -eq 0 ] || exit 1
echo "PASS test_diag"
