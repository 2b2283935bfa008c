#!/bin/bash
# tests/api/test_gasnetrun_smp.sh: the smp launcher gasnetrun_smp (other/gasneti_run.c built
# with GASNETI_RUN_SMP) from the outside.
#   test_gasnetrun_smp.sh GASNETRUN_SMP TEST_LAUNCH TEST_EXIT [FOREIGN]
# (TEST_LAUNCH, TEST_EXIT: tests/api/test_launch and test_exit built for smp; FOREIGN, if
# given and built: a program built for another conduit, which must be refused.)
# Checks: -n 2 and -np 4 run that many ranks, each given the arguments unchanged (after
# `--` too); -E VAR and the environment reach every rank; -v says what it runs; -t runs
# nothing and says what it would; -c 2, -k, -N 1 and -spawner=local are accepted; the job's
# status is the program's (return 3, gasnet_exit(7)); SIGTERM to the launcher's pid ends
# every rank with status 143; mistakes (-n 0, -n abc, no -n, an unknown option, -N 2,
# -spawner=ssh, no program, no such program, a foreign conduit's program) give one line
# naming gasnetrun_smp and a non-zero status, and start nothing. No process is left.
# Layer: tests (driver).
set -u
[ $# -ge 3 ] || { echo "usage: test_gasnetrun_smp.sh GASNETRUN_SMP TEST_LAUNCH TEST_EXIT [FOREIGN]" >&2; exit 2; }
RUNSMP=$1 LAUNCH=$2 EXITP=$3 FOREIGN=${4:-}
NAME=test_gasnetrun_smp
for f in "$RUNSMP" "$LAUNCH" "$EXITP"; do
    [ -x "$f" ] || { echo "FAIL $NAME: not executable: $f"; exit 1; }
done
for v in $(compgen -e); do
    case "$v" in GASNET_PSHM_DIR | GASNET_BACKTRACE) ;; GASNET_*|TEST_*) unset "$v" ;; esac
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-runsmp.XXXXXX") || exit 2
# private copies, so that any process left behind is recognisable by its path
cp "$LAUNCH" "$tmp/launch" && cp "$EXITP" "$tmp/exit" || exit 2
jobpid=""
survivors() { pgrep -f -- "$tmp/" | grep -vx "$$"; }
cleanup() {
    [ -n "$jobpid" ] && kill -KILL "$jobpid" 2>/dev/null
    local left
    left=$(survivors)
    [ -n "$left" ] && kill -KILL $left 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
out="$tmp/out" err="$tmp/err"
failed=0
. "$(dirname "$0")/../harness/launchlib.sh" # bad, ok, hexof
ARGS=("two words" "" "-np" "--")

# run NAME EXPECTED_STATUS LAUNCHER-ARGS...: the job in the foreground, with a timeout
run() {
    local name=$1 want=$2 st
    shift 2
    timeout -s KILL 60 "$RUNSMP" "$@" >"$out" 2>"$err"
    st=$?
    [ "$st" = "$want" ] || { bad "$name: status $st, expected $want"; return 1; }
    return 0
}
export TEST_FWD="passed, with spaces"
# ranks N NAME: every rank 0..N-1 got ARGS and TEST_FWD, and finished; no rank N
ranks() {
    local n=$1 name=$2 r i
    for ((r = 0; r < n; r++)); do
        for ((i = 0; i < ${#ARGS[@]}; i++)); do
            grep -qx "rank $r: arg$((i + 1)) $(hexof "${ARGS[$i]}")" "$out" ||
                { bad "$name: rank $r: argument $((i + 1)) ('${ARGS[$i]}') changed"; return 1; }
        done
        grep -qx "rank $r: TEST_FWD $(hexof "$TEST_FWD")" "$out" || { bad "$name: rank $r: TEST_FWD not passed"; return 1; }
        grep -qx "rank $r: done" "$out" || { bad "$name: rank $r did not finish"; return 1; }
    done
    ! grep -q "^rank $n:" "$out" || { bad "$name: more than $n ranks ran"; return 1; }
    return 0
}

run "-n 2" 0 -n 2 -E TEST_FWD "$tmp/launch" "${ARGS[@]}" && ranks 2 "-n 2" && ok "-n 2 -E TEST_FWD: 2 ranks, arguments and variable passed"
run "-np 4" 0 -np 4 -c 2 -k -N 1 -spawner=local -v -- "$tmp/launch" "${ARGS[@]}" && ranks 4 "-np 4" &&
    grep -q "^gasnetrun_smp: running GASNET_PSHM_NODES=4 $tmp/launch" "$err" &&
    ok "-np 4 -c 2 -k -N 1 -spawner=local -v --: 4 ranks, -v says what runs" || { [ $failed = 1 ] || bad "-v: no line saying what runs"; }
# a bare name is found in PATH
PATH="$tmp:$PATH" run "PATH" 0 -n 2 launch "${ARGS[@]}" && ranks 2 "PATH" && ok "a program found in PATH"
run "-t" 0 -t -np 3 "$tmp/launch" a && grep -qx "gasnetrun_smp: would run GASNET_PSHM_NODES=3 $tmp/launch a" "$out" &&
    ! grep -q "^rank" "$out" && ok "-t: says what it would run, runs nothing" || { [ $failed = 1 ] || bad "-t: wrong output"; }

# the job's status
run "return3" 3 -n 2 "$tmp/exit" return3 && ok "a job whose ranks return 3: status 3"
run "exit7" 7 -n 4 "$tmp/exit" exit7 && ok "gasnet_exit(7) on one of 4 ranks: status 7"
run "return0" 0 -n 4 "$tmp/exit" return0 && [ "$(grep -c returning "$out")" = 4 ] && ok "return 0 on 4 ranks: status 0" ||
    { [ $failed = 1 ] || bad "return0: not every rank returned"; }

# SIGTERM to the launcher's pid (the job's monitor: the launcher became it)
mkdir "$tmp/pids"
"$RUNSMP" -n 2 "$tmp/exit" signal "$tmp/pids" >"$out" 2>"$err" &
jobpid=$!
for ((i = 0; i < 300; i++)); do [ -e "$tmp/pids/rank0.pid" ] && [ -e "$tmp/pids/rank1.pid" ] && break; sleep 0.1; done
if [ ! -e "$tmp/pids/rank1.pid" ]; then
    bad "signal: the ranks did not start"
else
    rankpids="$(cat "$tmp/pids/rank0.pid") $(cat "$tmp/pids/rank1.pid")"
    kill -TERM "$jobpid"
    ( sleep 15; kill -KILL "$jobpid" 2>/dev/null ) &
    guard=$!
    wait "$jobpid"
    st=$?
    kill "$guard" 2>/dev/null; wait "$guard" 2>/dev/null
    jobpid=""
    sleep 0.5
    left=""
    for p in $rankpids; do kill -0 "$p" 2>/dev/null && left="$left $p"; done
    if [ "$st" != 143 ]; then bad "SIGTERM to gasnetrun_smp: status $st, expected 143"
    elif [ -n "$left" ]; then bad "SIGTERM to gasnetrun_smp: ranks$left still running"
    else ok "SIGTERM to gasnetrun_smp: status 143, every rank gone"; fi
fi

# mistakes: one line naming the launcher, non-zero status, nothing started
mistake() { # mistake NAME STATUS WORDS-IN-MESSAGE LAUNCHER-ARGS...
    local name=$1 want=$2 msg=$3
    shift 3
    run "$name" "$want" "$@" || return
    if [ "$(wc -l <"$err")" != 1 ] || ! grep -q "^gasnetrun_smp: .*$msg" "$err"; then bad "$name: not one line saying '$msg'"
    elif grep -q "^rank" "$out"; then bad "$name: a rank ran"
    else ok "$name: $(cat "$err")"; fi
}
mistake "-n 0" 2 "expected a number" -n 0 "$tmp/launch"
mistake "-n abc" 2 "expected a number" -n abc "$tmp/launch"
mistake "no -n" 2 "number of processes" "$tmp/launch"
mistake "unknown option" 2 "unknown option -x" -n 2 -x "$tmp/launch"
mistake "-N 2" 2 "only -N 1" -n 2 -N 2 "$tmp/launch"
mistake "-spawner=ssh" 2 "only local" -n 2 -spawner=ssh "$tmp/launch"
mistake "no program" 2 "program to run is missing" -n 2
mistake "no such program" 127 "no such program" -n 2 "$tmp/nonesuch"
mistake "not executable" 127 "not executable" -n 2 "$out"
if [ -n "$FOREIGN" ] && [ -x "$FOREIGN" ]; then
    mistake "foreign conduit" 2 "built for the UDP conduit" -n 2 "$FOREIGN"
fi
run "-h" 0 -h && grep -q "^usage: gasnetrun_smp -np N" "$out" && ok "-h: usage on stdout, status 0" ||
    { [ $failed = 1 ] || bad "-h: no usage"; }

left=$(survivors)
[ -z "$left" ] || bad "processes left behind: $left"
if [ $failed = 0 ]; then echo "PASS $NAME"; exit 0; fi
exit 1
