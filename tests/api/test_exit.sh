#!/bin/bash
# tests/api/test_exit.sh: drives tests/api/test_exit in one mode and checks how the job ends.
#   test_exit.sh GASNET_RUN CONDUIT N PROG MODE
# MODE: exit7 | kill | killx2 | straggler | return0 | return3 | stagger | sigterm | sigint
#   exit7    status 7; every process gone within 5 s of the gasnet_exit(7) call
#   kill     SIGKILL of rank N-1: status 137, stderr is one line naming rank N-1, its host
#            and signal 9; every process gone within 10 s of the SIGKILL
#   killx2   the same, two jobs at once, three times over (repeated, and under load)
#   straggler  every rank but N-1 calls gasnet_exit(0) while N-1 waits in a barrier:
#            status 0, nothing on stderr, the job ended within 1.5 s (rank N-1 joins the
#            exit: it waits in a barrier the others never started), on mpi within 8 s
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

# straggler: the rank stuck in the barrier joins the others' exit at once where the
# bootstrap tells it of a peer's exit (1.5 s allows for load; the exit timeout is 2 s);
# mpi's cannot, and mpirun's teardown follows
straggler_ms=1500
[ "$CONDUIT" = mpi ] && straggler_ms=8000
# one job of mode exit7, kill or straggler, output in $1.out and $1.err; prints the time
# from the event to the job's end (ms) or "FAIL: why"
timed_job() {
    local o=$1.out e=$1.err mode=$2 st t_end t_ev key=EXIT_AT limit=5000 want=0 ms victim=$((N - 1))
    "$RUN" -c "$CONDUIT" -n "$N" -t 60 "$PROG" "$mode" "$marker" > "$o" 2> "$e"
    st=$?
    t_end=$(now_ns)
    case "$mode" in exit7) want=7 ;; kill) key=KILL_AT limit=10000 want=137 ;; straggler) limit=$straggler_ms ;; esac
    t_ev=$(awk -v k="$key" '$1 == k { print $2; exit }' "$o")
    [ -n "$t_ev" ] || { echo "FAIL: no $key line: the job did not get that far (status $st)"; return; }
    grep -q "still alive ${GASNET_RUN_GRACE} s after it ended" "$e" && { echo "FAIL: processes outlived the job"; return; }
    [ "$st" -eq "$want" ] || { echo "FAIL: job status $st, expected $want"; return; }
    if [ "$mode" = kill ]; then
        # the status rule: one line, naming the rank, its host and why
        [ "$(grep -c . "$e")" -eq 1 ] || { echo "FAIL: $(grep -c . "$e") lines on stderr, expected one"; return; }
        grep -Eq "rank $victim on host [^ ]+ was killed by signal 9 " "$e" ||
            { echo "FAIL: stderr does not say 'rank $victim on host H was killed by signal 9'"; return; }
    elif [ "$mode" = straggler ] && [ -s "$e" ]; then
        echo "FAIL: a clean exit wrote to stderr"; return
    fi
    ms=$(( (t_end - t_ev) / 1000000 ))
    [ "$ms" -le "$limit" ] || { echo "FAIL: the job ended $ms ms after $key, limit $limit ms"; return; }
    echo "$ms"
}

case "$MODE" in
exit7|kill|straggler)
    res=$(timed_job "$tmp/job" "$MODE")
    cp "$tmp/job.out" "$out"; cp "$tmp/job.err" "$err"
    case "$res" in FAIL:*) fail "${res#FAIL: }" ;; esac
    key=EXIT_AT limit=5
    [ "$MODE" = kill ] && key=KILL_AT limit=10
    [ "$MODE" = straggler ] && limit=$(( (straggler_ms + 999) / 1000 ))
    check_gone "$(awk -v k="$key" '$1 == k { print $2; exit }' "$out")" "$limit"
    echo "PASS test_exit $MODE [N=$N]: ended ${res} ms after ${key%_AT}$([ "$MODE" = kill ] && echo ": $(cat "$err")")"
    ;;
killx2)
    times=""
    for round in 1 2 3; do
        timed_job "$tmp/a" kill > "$tmp/a.res" &
        timed_job "$tmp/b" kill > "$tmp/b.res"
        wait
        for j in a b; do
            res=$(cat "$tmp/$j.res")
            cp "$tmp/$j.out" "$out"; cp "$tmp/$j.err" "$err"
            case "$res" in FAIL:*) fail "round $round, job $j: ${res#FAIL: }" ;; esac
            times="$times $res"
        done
    done
    check_gone "$(now_ns)" 10
    echo "PASS test_exit killx2 [N=$N]: 6 jobs (two at once), each status 137 with one line; ended after (ms):$times"
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
