#!/bin/bash
# tests/api/test_mpilaunch.sh: the mpi-conduit launcher (gasnetrun_mpi) from the outside,
# with tests/api/test_launch (which prints what each process was given).
#   test_mpilaunch.sh GASNETRUN_MPI PROG
# Checks: arguments with spaces, quotes, empty ones and shell characters, and variables
# with spaces, reach every rank unchanged, with the default template and with an
# MPIRUN_CMD that puts a fixed argument before %A (and %% for a percent sign);
# gasnet_exit(5) on one rank is the job's status; the released options (-N nodes, -E
# variables, -t the command only, -c and -k accepted) work; mistakes (-n 0, -n abc, -N 0,
# -c x, a program that
# is not there, by absolute, relative or bare name, or is not executable) give one line
# and a non-zero status within a second, no program the usage; a bare name found in the
# current directory runs; SIGTERM to gasnetrun_mpi ends the job with 143 and one line.
# Nothing is left running.
# Layer: tests (driver).
set -u
[ $# -eq 2 ] || { echo "usage: test_mpilaunch.sh GASNETRUN_MPI PROG" >&2; exit 2; }
RUNMPI=$1 PROG=$2
for f in "$RUNMPI" "$PROG"; do
    [ -x "$f" ] || { echo "FAIL test_mpilaunch: not executable: $f"; exit 1; }
done
RUNMPI=$(realpath "$RUNMPI") PROG=$(realpath "$PROG") # some checks run in another directory
for v in $(compgen -e); do
    case "$v" in GASNET_PSHM_DIR | GASNET_BACKTRACE) ;; GASNET_*|TEST_*|MPIRUN_CMD) unset "$v" ;; esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-mpilaunch.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
out="$tmp/out" err="$tmp/err"
failed=0
. "$(dirname "$0")/../harness/launchlib.sh" # hexof; its bad is replaced here:
bad() { echo "FAIL test_mpilaunch: $*"; failed=1; }
mpirun_path=$(sed -n 's/^template="${MPIRUN_CMD:-\(.*\) -np %N %P %A}"$/\1/p' "$RUNMPI")

# check_ranks N NAME ARGS...: each rank printed these arguments, TEST_FWD and "done"
check_ranks() {
    local n=$1 name=$2; shift 2
    local r i a
    for ((r = 0; r < n; r++)); do
        grep -qx "rank $r: argc $(($# + 1))" "$out" || { bad "$name: rank $r: wrong argc"; cat "$out" "$err"; return 1; }
        i=1
        for a in "$@"; do
            grep -qx "rank $r: arg$i $(hexof "$a")" "$out" || { bad "$name: rank $r: argument $i changed"; cat "$out"; return 1; }
            i=$((i + 1))
        done
        grep -qx "rank $r: TEST_FWD $(hexof "$FWD")" "$out" || { bad "$name: rank $r: TEST_FWD not forwarded"; return 1; }
        grep -qx "rank $r: done" "$out" || { bad "$name: rank $r did not finish"; return 1; }
    done
    echo "ok   $name"
}

ARGS=("two words" "" "it's" '$HOME "q" *' "-n" "x%Ny%A")
FWD='a b  "c" $d'
TEST_FWD="$FWD" timeout -k 5 60 "$RUNMPI" -n 3 "$PROG" "${ARGS[@]}" > "$out" 2> "$err"
st=$?
[ $st -eq 0 ] || { bad "default template: status $st"; cat "$err"; }
check_ranks 3 "default template: arguments and environment reach 3 ranks" "${ARGS[@]}"

if [ -n "$mpirun_path" ]; then
    TEST_FWD="$FWD" MPIRUN_CMD="$mpirun_path -n %N %P fixed%%1 %A" timeout -k 5 60 "$RUNMPI" -n 2 "$PROG" "${ARGS[@]}" \
        > "$out" 2> "$err"
    st=$?
    [ $st -eq 0 ] || { bad "MPIRUN_CMD: status $st"; cat "$err"; }
    check_ranks 2 "MPIRUN_CMD='$mpirun_path -n %N %P fixed%%1 %A'" "fixed%1" "${ARGS[@]}"
fi

TEST_EXIT_CODE=5 timeout -k 5 60 "$RUNMPI" -n 2 "$PROG" > "$out" 2> "$err"
st=$?
if [ $st -eq 5 ]; then echo "ok   gasnet_exit(5) on one rank: job status 5"; else bad "gasnet_exit(5): status $st"; cat "$err"; fi

mistake() { # name expected-text cmd...: one line saying the text, non-zero, within a second
    local name=$1 text=$2; shift 2
    local t0=$EPOCHREALTIME
    timeout -k 5 30 "$@" > "$out" 2> "$err"
    local st=$? lines ms
    ms=$(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
    lines=$(grep -c . "$err")
    if [ $st -eq 0 ]; then bad "$name: accepted"
    elif [ "$lines" -ne 1 ]; then bad "$name: $lines lines on stderr, expected one:"; cat "$err"
    elif ! grep -q -- "$text" "$err"; then bad "$name: the message does not say '$text':"; cat "$err"
    elif [ "$ms" -gt 1000 ]; then bad "$name: took $ms ms (more than a second)"
    else echo "ok   $name: status $st in $ms ms: $(cat "$err")"; fi
}
mistake "-n 0" "-n 0" "$RUNMPI" -n 0 "$PROG"
mistake "-N 0" "-N 0" "$RUNMPI" -n 2 -N 0 "$PROG"
mistake "-c x" "-c x" "$RUNMPI" -n 2 -c x "$PROG"

# the released launchers' options (upcxx-run always passes -E)
TEST_FWD="$FWD" TEST_UNSET_VAR= timeout -k 5 30 "$RUNMPI" -t -n 3 -N 2 -E TEST_FWD,TEST_NOT_SET "$PROG" a > "$out" 2> "$err"
st=$?
ompi=0
"${mpirun_path:-mpirun}" --version 2>/dev/null | grep -q "Open MPI" && ompi=1
if [ $st -ne 0 ] || [ -s "$out" ]; then bad "-t: status $st, or the program ran:"; cat "$out" "$err"
elif ! grep -q "test_launch.* a$" "$err"; then bad "-t: the command printed does not run the program:"; cat "$err"
elif [ $ompi = 0 ]; then echo "ok   -t: the command only (not Open MPI: -E and -N are its own launcher's business)"
elif ! grep -q -- "-x TEST_FWD " "$err" || grep -q -- "-x TEST_NOT_SET" "$err"; then
    bad "-E TEST_FWD,TEST_NOT_SET: not '-x TEST_FWD' alone in the command:"; cat "$err"
elif ! grep -q -- "--map-by ppr:2:node" "$err"; then bad "-N 2 with 3 processes: no '--map-by ppr:2:node':"; cat "$err"
else echo "ok   -t -N 2 -E TEST_FWD,TEST_NOT_SET: the command only: $(cat "$err")"; fi
TEST_FWD="$FWD" timeout -k 5 60 "$RUNMPI" -n 2 -N 1 -c 1 -k -E TEST_FWD "$PROG" "${ARGS[@]}" > "$out" 2> "$err"
st=$?
if [ $st -eq 0 ] && check_ranks 2 "-n 2 -N 1 -c 1 -k -E TEST_FWD" "${ARGS[@]}"; then :; else bad "-N 1 -c 1 -k -E: status $st"; cat "$err"; fi
mistake "-n abc" "-n abc" "$RUNMPI" -n abc "$PROG"
# a missing program: Open MPI's quiet option used to hide mpirun's message (status 132/134)
mistake "no such program" "$tmp/no-such-program: no such program" "$RUNMPI" -n 2 "$tmp/no-such-program"
mistake "no such program, bare name" "no-such-program-here: no such program" "$RUNMPI" -n 2 no-such-program-here
(cd "$tmp" && mistake "no such program, relative" "./nothere: no such program" "$RUNMPI" -n 2 ./nothere
 exit $failed) || failed=1
: > "$tmp/plain"
mistake "not executable" "$tmp/plain: not executable" "$RUNMPI" -n 2 "$tmp/plain"
# a bare name in the current directory runs, as mpirun would run it
cp "$PROG" "$tmp/bare-prog"
(cd "$tmp" && TEST_FWD="$FWD" timeout -k 5 60 "$RUNMPI" -n 2 bare-prog > "$out" 2> "$err")
st=$?
if [ $st -eq 0 ] && check_ranks 2 "a bare name in the current directory"; then :; else bad "bare name: status $st"; cat "$err"; fi
timeout -k 5 30 "$RUNMPI" -n 2 > "$out" 2> "$err"
st=$?
if [ $st -ne 0 ] && grep -q "^usage: gasnetrun_mpi" "$err"; then echo "ok   no program: status $st, the usage"
else bad "no program: status $st:"; cat "$err"; fi

# SIGTERM to gasnetrun_mpi alone (a batch system's): mpirun ends the ranks; status 143 and
# one line, as the other launchers; nothing left running
marker="gasnet_test_mpilaunch_$$_$RANDOM"
TEST_HOLD_SECS=30 "$RUNMPI" -n 2 "$PROG" "$marker" > "$out" 2> "$err" &
job=$!
for _ in $(seq 100); do [ "$(grep -c '^rank [0-9]: argc' "$out")" -ge 2 ] && break; sleep 0.1; done
t0=$EPOCHREALTIME
kill -TERM "$job"
wait "$job"
st=$?
ms=$(( (${EPOCHREALTIME/./} - ${t0/./}) / 1000 ))
sleep 0.5
left=$(pgrep -f "$marker")
if [ -n "$left" ]; then bad "SIGTERM to gasnetrun_mpi: processes left: $left"; kill -KILL $left
elif [ $st -ne 143 ]; then bad "SIGTERM to gasnetrun_mpi: status $st, expected 143"; cat "$err"
elif [ "$(grep -c . "$err")" -ne 1 ] || ! grep -q "^gasnetrun_mpi: got signal 15 (Terminated)" "$err"; then
    bad "SIGTERM to gasnetrun_mpi: stderr is not the one line 'gasnetrun_mpi: got signal 15 (Terminated)...':"; cat "$err"
else echo "ok   SIGTERM to gasnetrun_mpi: status 143 in $ms ms, one line, nothing left"; fi

[ $failed -eq 0 ] || exit 1
echo "PASS test_mpilaunch"
