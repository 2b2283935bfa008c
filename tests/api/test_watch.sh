#!/bin/bash
# tests/api/test_watch.sh: the state dump and the watchdog (issue 46), driving
# tests/api/test_watch (a job that stalls on purpose) and checking what the ranks print.
#   test_watch.sh GASNET_RUN CONDUIT N PROG SCENARIO
# SCENARIO:
#   barrier    SIGUSR1 to rank 0 while it waits in a barrier rank N-1 has not entered: one
#              block, rank 0's, naming gex_Coll_BarrierBlocking, the barrier and how many
#              ranks are missing (or, AM dissemination, the rank it waits to hear from);
#              the job then finishes (status 0)
#   launcher   SIGUSR1 to the launcher, in the same stall: every rank prints its block
#              (rank N-1 when it next enters the library), status 0; at most LINES lines
#              per rank (the 64-rank smp case: peers with nothing outstanding are counted)
#   am         rank 0 sends AM requests to rank 1, which stops polling: rank 0's block names
#              the AM send it is blocked in, rank 1, and what is outstanding with it
#   nbi        rank 0 waits in gex_NBI_Wait for a get from rank 1, which stops polling (RMA
#              by AMs): the block names gex_NBI_Wait and the outstanding get
#   watchdog   GASNET_WATCHDOG=1 GASNET_WATCHDOG_ABORT=1 and rank N-1 never enters the
#              barrier: status 122, the one-line reason naming a rank and the barrier, and
#              that rank's block, within 30 s
#   watchdog-report  GASNET_WATCHDOG=1 (no abort), rank N-1 comes 3.5 s late: each waiting
#              rank prints exactly one block (once per stall), status 0
# The signal is GASNET_DUMP_SIGNAL=USR2 in the launcher scenario on smp (the configured
# signal, through the smp monitor), SIGUSR1 elsewhere. Prints one line; exits 0 on
# success, 1 on failure (with the job's output). Layer: tests (driver).
set -u
[ $# -eq 5 ] || { echo "usage: test_watch.sh GASNET_RUN CONDUIT N PROG SCENARIO" >&2; exit 2; }
RUN=$1 CONDUIT=$2 N=$3 PROG=$4 SCEN=$5
LINES=12

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-watch.XXXXXX") || exit 2
runpid=""
cleanup() {
    [ -n "$runpid" ] && kill -TERM "$runpid" 2>/dev/null && wait "$runpid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
marker="gasnet_test_watch_marker_$$_${RANDOM}"
out="$tmp/out" err="$tmp/err"
fail() {
    echo "FAIL test_watch $SCEN [$CONDUIT N=$N]: $*"
    echo "--- stdout:"; cat "$out" 2>/dev/null
    echo "--- stderr:"; cat "$err" 2>/dev/null
    exit 1
}
# wait until cond (a shell command) holds, up to $2 s
wait_for() {
    local i
    for i in $(seq $(( $2 * 10 ))); do eval "$1" && return 0; sleep 0.1; done
    return 1
}
all_ready() { [ "$(ls "$tmp"/ready.* 2>/dev/null | wc -l)" -eq "$N" ]; }
# the launcher: gasnet-run's child carrying the marker (setsid execs it in place)
launcher_pid() {
    ps -e -o pid=,ppid=,args= | M="$marker" P="$runpid" awk '$2 == ENVIRON["P"] && index($0, ENVIRON["M"]) { print $1; exit }'
}
blocks() { grep -c '\*\*\* GASNet state of rank' "$err"; }
block_of() { grep "^\[$1@" "$err"; } # rank R's lines

mode=barrier
case "$SCEN" in am | nbi) mode=$SCEN ;; watchdog) mode=sleepy ;; esac
[ "$SCEN" = launcher ] && [ "$CONDUIT" = smp ] && export GASNET_DUMP_SIGNAL=USR2
sig=${GASNET_DUMP_SIGNAL:-USR1}
case "$SCEN" in
watchdog) export GASNET_WATCHDOG=1 GASNET_WATCHDOG_ABORT=1 ;;
watchdog-report) export GASNET_WATCHDOG=1 ;;
# RMA by AMs, so that the target must poll for the get (same host and network)
nbi) export GASNET_RMA_NBRHD_BYPASS=0 GASNET_OFI_RMA=0 GASNET_UCX_RMA=0 ;;
esac

t0=$(date +%s)
"$RUN" -c "$CONDUIT" -n "$N" -t 120 "$PROG" "$mode" "$tmp" "$marker" > "$out" 2> "$err" &
runpid=$!
job_gone() { ! kill -0 "$runpid" 2>/dev/null; }
job_ended() { wait "$runpid"; st=$?; runpid=""; fail "the job ended (status $st) $1"; }
# (30 s: well before the late rank gives up, 60 s after it got ready, so that a set-up
# that stalls is named as such, with the state of the ranks stuck in it, while they live)
wait_for 'all_ready || job_gone' 30
if ! all_ready; then
    job_gone && job_ended "before every rank was ready"
    stuck=""
    for r in $(seq 0 $((N - 1))); do
        [ -e "$tmp/ready.$r" ] && continue
        stuck="$stuck $r"
        [ -s "$tmp/pid.$r" ] && kill -"$sig" "$(cat "$tmp/pid.$r")" 2>/dev/null
    done
    sleep 3 # (their state blocks, if they poll: ranks in the set-up do)
    fail "rank(s)$stuck not ready within 30 s (stalled before the scenario: the state of each, if printed, in stderr)"
fi
sleep 1 # the waiting ranks are in their wait by now (they wrote ready.R just before it)
# (only the watchdog's abort may end the job before the driver's go)
[ "$SCEN" != watchdog ] && job_gone && job_ended "before the driver's signal or go (every rank was ready)"

case "$SCEN" in
barrier | am | nbi)
    kill -"$sig" "$(cat "$tmp/pid.0")" || fail "cannot signal rank 0"
    # (mpirun may pass a rank's stderr on only later: what the block says shows when it
    # was written, checked once the job is over)
    wait_for '[ "$(blocks)" -ge 1 ] && grep -q "end of rank 0" "$err"' 10
    ;;
launcher)
    lp=$(launcher_pid)
    [ -n "$lp" ] || fail "no launcher process found"
    kill -"$sig" "$lp" || fail "cannot signal the launcher (pid $lp)"
    # every rank but the late one prints now; the late one when it next enters the library
    wait_for '[ "$(blocks)" -ge $((N - 1)) ]' 10
    ;;
watchdog-report) sleep 2.5 ;;
esac
: > "$tmp/go"
wait "$runpid"
st=$?
runpid=""
secs=$(( $(date +%s) - t0 ))
grep -q "still alive .* after it ended" "$err" && fail "processes outlived the job"

case "$SCEN" in
watchdog)
    [ "$st" -eq 122 ] || fail "job status $st, expected 122 (the watchdog's)"
    [ "$secs" -le 30 ] || fail "the job took $secs s (the watchdog is 1 s)"
    grep -Eq '^\*\*\* GASNet watchdog: rank [0-9]+ on host [^ ]+ made no progress for [0-9.]+ s in gex_Coll_BarrierBlocking > gex_Event_Wait: barrier .*; ending the job \(status 122\)$' "$err" ||
        fail "no watchdog line naming the rank and the barrier"
    r=$(sed -n 's/^\*\*\* GASNet watchdog: rank \([0-9]*\) .*/\1/p' "$err" | head -1)
    block_of "$r" | grep -q "by the watchdog: no progress for" || fail "rank $r's block is missing"
    echo "PASS test_watch watchdog [$CONDUIT N=$N]: status 122 after $secs s: $(grep -m1 '^\*\*\* GASNet watchdog' "$err")"
    exit 0
    ;;
esac
[ "$st" -eq 0 ] || fail "job status $st, expected 0"
grep -q "test_watch: PASS" "$out" || fail "the job did not finish its checks"

case "$SCEN" in
barrier)
    [ "$(blocks)" -eq 1 ] || fail "$(blocks) blocks printed, expected rank 0's alone"
    b=$(block_of 0)
    echo "$b" | grep -Eq "blocked in gex_Coll_BarrierBlocking > gex_Event_Wait: barrier [0-9]+ of the primordial team \($N ranks, (in shared memory\): $((N - 1)) of $N ranks arrived, 1 missing|AM dissemination\): round [0-9]+ of [0-9]+, waiting to hear from rank [0-9]+)" ||
        fail "rank 0's block does not name the barrier and what it waits for"
    echo "$b" | grep -q "peers with nothing outstanding: " || fail "no count of the quiet peers"
    echo "$b" | grep -q "segment: " || fail "no segment line"
    what=$(echo "$b" | sed -n 's/.*blocked in //p')
    ;;
launcher)
    [ "$(blocks)" -eq "$N" ] || fail "$(blocks) blocks printed, expected $N (one per rank)"
    for r in $(seq 0 $((N - 1))); do
        nl=$(block_of "$r" | wc -l)
        [ "$nl" -ge 5 ] && [ "$nl" -le "$LINES" ] || fail "rank $r printed $nl lines (expected 5 to $LINES)"
        block_of "$r" | grep -q "\*\*\* end of rank $r's state" || fail "rank $r's block has no end"
    done
    for r in $(seq 0 $((N - 2))); do
        block_of "$r" | grep -q "blocked in gex_Coll_BarrierBlocking" || fail "rank $r does not say it waits in the barrier"
    done
    what="$N blocks, $(wc -l < "$err") lines"
    ;;
am)
    b=$(block_of 0)
    echo "$b" | grep -q "blocked in an AM send: room to send an AM to rank 1 " || fail "rank 0's block does not name the AM send to rank 1"
    echo "$b" | grep -Eq "peer 1 \([^)]*\): .*(not yet answered|credits: |udp window: )" || fail "rank 0's block lists nothing outstanding with rank 1"
    what=$(echo "$b" | grep "peer 1 (" | sed 's/^[^]]*\] //')
    ;;
nbi)
    b=$(block_of 0)
    echo "$b" | grep -q "blocked in gex_NBI_Wait: this thread's NBI operations (mask 0x1): gets 1 outstanding" || fail "rank 0's block does not name the NBI wait and its get"
    what=$(echo "$b" | sed -n 's/.*blocked in //p')
    ;;
watchdog-report)
    for r in $(seq 0 $((N - 2))); do
        k=$(block_of "$r" | grep -c "by the watchdog: no progress for")
        [ "$k" -eq 1 ] || fail "rank $r printed $k watchdog blocks for one stall (expected 1)"
    done
    what="$((N - 1)) blocks, one per waiting rank"
    ;;
esac
echo "PASS test_watch $SCEN [$CONDUIT N=$N]: $what"
