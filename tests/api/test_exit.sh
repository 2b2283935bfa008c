#!/bin/bash
# tests/api/test_exit.sh: drives tests/api/test_exit in one mode and checks how the job ends.
#   test_exit.sh GASNET_RUN CONDUIT N PROG MODE
# MODE: exit7 | kill | return0 | return3 | stagger | sigterm | sigint
#   exit7    status 7; every process gone within 5 s of the gasnet_exit(7) call
#   kill     non-zero status; every process gone within 10 s of the SIGKILL
#   return0  status 0, every rank's line printed    (return3: status 3)
#   stagger  status 0, every rank's line printed although rank 0 returned 1 s earlier
#   sigterm  SIGTERM to rank N-1: non-zero status, every process gone within 10 s
#   sigint   SIGINT to rank 0: the same
# Prints one line; exits 0 on success, 1 on failure (with the job's output).
# Layer: tests (driver).
set -u
[ $# -eq 5 ] || { echo "usage: test_exit.sh GASNET_RUN CONDUIT N PROG MODE" >&2; exit 2; }
RUN=$1 CONDUIT=$2 N=$3 PROG=$4 MODE=$5

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-exit.XXXXXX") || exit 2
jobpid=""
cleanup() {
    [ -n "$jobpid" ] && kill -KILL "$jobpid" 2>/dev/null
    local left
    left=$(survivors)
    [ -n "$left" ] && kill -KILL $left 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
marker="gasnet_test_exit_marker_$$_${RANDOM}"
out="$tmp/out" err="$tmp/err"

now_ns() { date +%s%N; }
# live processes whose command line carries this run's marker
survivors() {
    # the variable must reach awk (not ps), and an empty marker would match every process
    [ -n "$marker" ] || { echo "test_exit.sh: empty marker" >&2; exit 1; }
    ps -e -o pid=,stat=,args= | M="$marker" awk 'ENVIRON["M"] != "" && index($0, ENVIRON["M"]) && $2 !~ /^Z/ { print $1 }'
}
fail() {
    echo "FAIL test_exit $MODE [N=$N]: $*"
    echo "--- stdout:"; cat "$out" 2>/dev/null
    echo "--- stderr:"; cat "$err" 2>/dev/null
    left=$(survivors)
    [ -n "$left" ] && { echo "--- survivors:"; ps -o pid=,args= -p "$(echo $left | tr ' ' ',')"; kill -KILL $left 2>/dev/null; }
    exit 1
}
# all processes gone, at the latest limit_s seconds after t0_ns
check_gone() {
    local t0=$1 limit=$2
    local deadline=$(( t0 + limit * 1000000000 ))
    local left
    left=$(survivors)
    while [ -n "$left" ] && [ "$(now_ns)" -lt "$deadline" ]; do sleep 0.1; left=$(survivors); done
    [ -z "$left" ] || fail "processes still alive $limit s after the event: $left"
}
elapsed_since() { echo $(( ($(now_ns) - $1) / 1000000 )); } # ms

# With a survivor grace of 5 s in gasnet-run, a job that leaves processes behind fails
# with status 125 and a message; the checks below are stricter about time.
export GASNET_RUN_GRACE=10

case "$MODE" in
exit7|kill)
    "$RUN" -c "$CONDUIT" -n "$N" -t 60 "$PROG" "$MODE" "$marker" > "$out" 2> "$err"
    st=$?
    t_end=$(now_ns)
    key=EXIT_AT; limit=5
    [ "$MODE" = kill ] && { key=KILL_AT; limit=10; }
    t_ev=$(awk -v k="$key" '$1 == k { print $2; exit }' "$out")
    [ -n "$t_ev" ] || fail "no $key line: the job did not get that far (status $st)"
    grep -q "still alive ${GASNET_RUN_GRACE} s after it ended" "$err" && fail "processes outlived the job"
    if [ "$MODE" = exit7 ]; then
        [ "$st" -eq 7 ] || fail "job status $st, expected 7"
    else
        [ "$st" -ne 0 ] || fail "job status 0 after a rank was killed"
    fi
    ms=$(( (t_end - t_ev) / 1000000 ))
    [ "$ms" -le $((limit * 1000)) ] || fail "the job ended $ms ms after $key, limit $limit s"
    check_gone "$t_ev" "$limit"
    echo "PASS test_exit $MODE [N=$N]: status $st, ended ${ms} ms after ${key%_AT}"
    ;;
return0|return3|stagger)
    "$RUN" -c "$CONDUIT" -n "$N" -t 60 "$PROG" "$MODE" "$marker" > "$out" 2> "$err"
    st=$?
    want=0; [ "$MODE" = return3 ] && want=3
    [ "$st" -eq "$want" ] || fail "job status $st, expected $want"
    word=returning; [ "$MODE" = stagger ] && word="done"
    for ((r = 0; r < N; r++)); do
        grep -qx "rank $r $word" "$out" || fail "rank $r's line \"rank $r $word\" is missing"
    done
    [ -z "$(survivors)" ] || fail "processes outlived the job"
    echo "PASS test_exit $MODE [N=$N]: status $st, all $N lines"
    ;;
sigterm|sigint)
    sig=TERM victim=$((N - 1))
    [ "$MODE" = sigint ] && { sig=INT; victim=0; }
    "$RUN" -c "$CONDUIT" -n "$N" -t 60 "$PROG" signal "$tmp" "$marker" > "$out" 2> "$err" &
    jobpid=$!
    t0=$(now_ns)
    while [ ! -s "$tmp/rank$victim.pid" ]; do
        kill -0 "$jobpid" 2>/dev/null || { wait "$jobpid"; jobpid=""; fail "the job ended before rank $victim was ready"; }
        [ $(( ($(now_ns) - t0) / 1000000000 )) -lt 30 ] || fail "rank $victim never wrote its pid file"
        sleep 0.05
    done
    for ((r = 0; r < N; r++)); do # every rank is up before the signal
        while [ ! -s "$tmp/rank$r.pid" ]; do
            [ $(( ($(now_ns) - t0) / 1000000000 )) -lt 30 ] || fail "rank $r never wrote its pid file"
            sleep 0.05
        done
    done
    pid=$(cat "$tmp/rank$victim.pid")
    t_sig=$(now_ns)
    kill -s "$sig" "$pid" || fail "could not signal rank $victim (pid $pid)"
    wait "$jobpid"
    st=$?
    jobpid=""
    ms=$(elapsed_since "$t_sig")
    grep -q "still alive ${GASNET_RUN_GRACE} s after it ended" "$err" && fail "processes outlived the job"
    [ "$st" -ne 0 ] || fail "job status 0 after SIG$sig"
    [ "$st" -ne 124 ] || fail "the job did not end (killed by the harness timeout)"
    [ "$ms" -le 10000 ] || fail "the job ended $ms ms after SIG$sig, limit 10 s"
    check_gone "$t_sig" 10
    echo "PASS test_exit $MODE [N=$N]: status $st, ended ${ms} ms after SIG$sig to rank $victim"
    ;;
*)
    echo "test_exit.sh: unknown mode $MODE" >&2; exit 2 ;;
esac
exit 0
