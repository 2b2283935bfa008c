#!/bin/bash
# tests/api/test_ofispawn.sh: the external spawners of ofi-conduit and ucx-conduit (the
# conduit: PROG's name, test_launch-<conduit>-<mode>) (mpi: mpirun and a
# bootstrap over MPI; pmi: a PMIx launcher, here Open MPI's mpirun, and a bootstrap over
# PMIx) from the outside, with tests/api/test_launch (which prints what each process was
# given).
#   test_ofispawn.sh GASNETRUN_OFI|GASNETRUN_UCX PROG mpi|pmi
# Checks, for the spawner given: arguments with spaces, quotes, empty ones and shell
# characters, and a variable with spaces, reach every rank unchanged when the job is
# started by `gasnetrun_<c> -spawner=X`, by GASNET_<C>_SPAWNER=X, by mpirun directly
# (GASNET_<C>_SPAWNER=X in the environment) and by the program itself (`PROG N args`);
# the ranks joined through the spawner's plugin (GASNET_VERBOSEENV's line); pmi:
# PMIRUN_CMD's template is used (a fixed argument before %A); gasnet_exit(5) on one rank
# is the job's status; the program run directly with the spawner asked for but no
# launcher and no N gives one clear line; a plugin of another version (built here, found
# first through GASNET_SPAWN_PLUGIN_DIR) is passed over, named, and the job runs. Nothing is left running.
# Layer: tests (driver).
set -u
[ $# -eq 3 ] || { echo "usage: test_ofispawn.sh GASNETRUN_OFI|GASNETRUN_UCX PROG mpi|pmi" >&2; exit 2; }
RUN=$1 PROG=$2 SP=$3
C=${PROG##*/test_launch-}
C=${C%%-*}
SPVAR=GASNET_$(echo "$C" | tr a-z A-Z)_SPAWNER
NAME="test_${C}spawn-$SP"
for f in "$RUN" "$PROG"; do
    [ -x "$f" ] || { echo "FAIL $NAME: not executable: $f"; exit 1; }
done
for v in $(compgen -e); do
    case "$v" in GASNET_PSHM_DIR | GASNET_BACKTRACE) ;; GASNET_*|TEST_*|MPIRUN_CMD|PMIRUN_CMD) unset "$v" ;; esac
done
plugin=$(dirname "$RUN")/../other/gasnet-spawn-$SP.so
[ -e "$plugin" ] || [ -e "$(dirname "$RUN")/../lib/GASNet/gasnet-spawn-$SP.so" ] ||
    { echo "SKIP $NAME: the $SP spawner is not in this build (configure found no $([ "$SP" = mpi ] && echo MPI || echo PMIx); see its summary)"; exit 77; }
# gasnetrun_mpi (beside the launcher, or in the build tree) names the mpirun it uses
RUNMPI=$(dirname "$RUN")/gasnetrun_mpi
[ -x "$RUNMPI" ] || RUNMPI=$(dirname "$RUN")/../mpi-conduit/gasnetrun_mpi
[ -x "$RUNMPI" ] || { echo "FAIL $NAME: gasnetrun_mpi not found beside $RUN"; exit 1; }
MPIRUN=$(sed -n 's/^template="${MPIRUN_CMD:-\(.*\) -np %N %P %A}"$/\1/p' "$RUNMPI")
[ -n "$MPIRUN" ] || { echo "FAIL $NAME: no mpirun named in $RUNMPI"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-ofispawn.XXXXXX") || exit 2
cleanup() {
    local p
    for p in $(pgrep -f -- "$PROG"); do [ "$p" != $$ ] && kill -KILL "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
out="$tmp/out" err="$tmp/err"
failed=0
. "$(dirname "$0")/../harness/launchlib.sh" # bad, ok, hexof
run() { timeout -k 5 90 "$@" > "$out" 2> "$err" < /dev/null; }

ARGS=("two words" "" "it's" '$HOME "q" *' "-n" "x%Ny%A")
FWD='a b  "c" $d'

# check N NAME [FIRST]: status 0 (in $st), each rank printed (FIRST then) ARGS, TEST_FWD
# and "done", and rank 0 said it joined through the spawner
check() {
    local n=$1 name=$2 first=${3:-} r i a
    local args=("${ARGS[@]}")
    [ -n "$first" ] && args=("$first" "${ARGS[@]}")
    [ "$st" -eq 0 ] || { bad "$name: status $st"; return 1; }
    for ((r = 0; r < n; r++)); do
        grep -qx "rank $r: argc $((${#args[@]} + 1))" "$out" || { bad "$name: rank $r: wrong argc"; return 1; }
        i=1
        for a in "${args[@]}"; do
            grep -qx "rank $r: arg$i $(hexof "$a")" "$out" || { bad "$name: rank $r: argument $i changed"; return 1; }
            i=$((i + 1))
        done
        grep -qx "rank $r: TEST_FWD $(hexof "$FWD")" "$out" || { bad "$name: rank $r: TEST_FWD not forwarded"; return 1; }
        grep -qx "rank $r: done" "$out" || { bad "$name: rank $r did not finish"; return 1; }
    done
    grep -q "$C-conduit: job .* of $n ranks, started by the $SP spawner" "$err" ||
        { bad "$name: rank 0 did not report joining through the $SP spawner"; return 1; }
    echo "ok   $name"
}

export GASNET_VERBOSEENV=1 OMPI_MCA_rmaps_base_oversubscribe=1
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

TEST_FWD="$FWD" run "$RUN" -n 3 -spawner="$SP" "$PROG" "${ARGS[@]}"
st=$?
check 3 "-spawner=$SP: arguments and environment reach 3 ranks"

(export "$SPVAR=$SP"; TEST_FWD="$FWD" run "$RUN" -n 2 "$PROG" "${ARGS[@]}")
st=$?
check 2 "$SPVAR=$SP"

(export "$SPVAR=$SP"; TEST_FWD="$FWD" run "$MPIRUN" -x TEST_FWD -x "$SPVAR" -x GASNET_VERBOSEENV \
    -n 2 "$PROG" "${ARGS[@]}")
st=$?
check 2 "started by $MPIRUN directly, $SPVAR=$SP"

(export "$SPVAR=$SP"; TEST_FWD="$FWD" run "$PROG" 2 "${ARGS[@]}")
st=$?
check 2 "the program starting itself (PROG 2 args), $SPVAR=$SP"

if [ "$SP" = pmi ]; then
    TEST_FWD="$FWD" PMIRUN_CMD="$MPIRUN -x TEST_FWD -x $SPVAR -x GASNET_VERBOSEENV -n %N %P fixed %A" \
        run "$RUN" -n 2 -spawner=pmi "$PROG" "${ARGS[@]}"
    st=$?
    check 2 "PMIRUN_CMD with a fixed argument before %A" fixed
fi

TEST_EXIT_CODE=5 run "$RUN" -n 2 -spawner="$SP" "$PROG"
st=$?
if [ $st -eq 5 ]; then echo "ok   gasnet_exit(5) on one rank: job status 5"; else bad "gasnet_exit(5): status $st"; fi

(export "$SPVAR=$SP"; run "$PROG")
st=$?
lines=$(grep -c . "$err")
if [ $st -ne 0 ] && [ "$lines" -eq 1 ] && grep -q "run this program as" "$err"; then
    echo "ok   no launcher and no N: status $st: $(cat "$err")"
else bad "no launcher and no N: status $st, $lines lines"; fi

# a plugin of another version first in GASNET_SPAWN_PLUGIN_DIR (a stale install before the
# build tree, say): passed over by name, the job runs with the next directory's
if command -v cc > /dev/null; then
    printf 'const struct { int version; } gasneti_spawn_plugin = {999};\n' > "$tmp/p.c"
    if cc -shared -fPIC -o "$tmp/gasnet-spawn-$SP.so" "$tmp/p.c" 2> /dev/null; then
        TEST_FWD="$FWD" GASNET_SPAWN_PLUGIN_DIR=$tmp run "$RUN" -n 2 -spawner="$SP" "$PROG" "${ARGS[@]}"
        st=$?
        if check 2 "a plugin of another version first: the job runs"; then
            if grep -q "passed over $tmp/gasnet-spawn-$SP.so is not a bootstrap plugin of this version" "$err"; then
                echo "ok   a plugin of another version: named: $(grep -m1 'passed over' "$err")"
            else bad "a plugin of another version: not named under GASNET_VERBOSEENV"; fi
        fi
    else bad "cc cannot build a stand-in plugin"; fi
fi

[ $failed -eq 0 ] || exit 1
echo "PASS $NAME"
