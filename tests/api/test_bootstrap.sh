#!/bin/bash
# tests/api/test_bootstrap.sh: drives tests/api/test_bootstrap on one conduit (the spawner:
# the caller's environment, e.g. GASNET_OFI_SPAWNER=mpi).
#   test_bootstrap.sh GASNET_RUN CONDUIT N PROG
# The normal run must pass (exit 0, its PASS line) over the bootstrap the spawner asked for
# (GASNET_<CONDUIT>_SPAWNER, else GASNET_SPAWNER, else GASNET_SPAWNFN: mpi or pmi is that
# spawner's plugin; else the conduit's own: smp-fork, mpi, <conduit>-control); `baddest`
# (rank 0 sends an out-of-band message to rank N) must end the job non-zero within the
# timeout, with a message on stderr saying that rank N is out of range.
# Prints one line per check; exits 0 on success, 1 on failure (with the job's output).
# Layer: tests (driver).
set -u
[ $# -eq 4 ] || { echo "usage: test_bootstrap.sh GASNET_RUN CONDUIT N PROG" >&2; exit 2; }
RUN=$1 CONDUIT=$2 N=$3 PROG=$4
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-bootstrap.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
out="$tmp/out" err="$tmp/err"
failed=0
U=$(echo "$CONDUIT" | tr a-z A-Z)
var=GASNET_${U}_SPAWNER
spawner=${!var:-${GASNET_SPAWNER:-${GASNET_SPAWNFN:-}}}
case "$CONDUIT:${spawner,,}" in
    smp:*) want=smp-fork ;;
    mpi:*) want=mpi ;;
    *:mpi | *:pmi) want=${spawner,,} ;;
    *) want=$CONDUIT-control ;;
esac
show() { echo "--- stdout:"; cat "$out"; echo "--- stderr:"; cat "$err"; }

"$RUN" -c "$CONDUIT" -n "$N" -t 120 "$PROG" > "$out" 2> "$err"
st=$?
if [ $st -ne 0 ] || ! grep -q "test_bootstrap: PASS" "$out"; then
    echo "FAIL test_bootstrap $CONDUIT $N: status $st"; show; failed=1
elif ! grep -q "test_bootstrap: PASS.* over $want\$" "$out"; then
    echo "FAIL test_bootstrap $CONDUIT $N: not over the $want bootstrap"; show; failed=1
else
    grep "test_bootstrap: PASS" "$out"
fi

"$RUN" -c "$CONDUIT" -n "$N" -t 60 "$PROG" baddest > "$out" 2> "$err"
st=$?
if [ $st -eq 0 ]; then
    echo "FAIL test_bootstrap baddest $CONDUIT $N: a send to rank $N did not end the job"; show; failed=1
elif ! grep -q "gasneti_boot_send: rank $N is out of range" "$err"; then
    echo "FAIL test_bootstrap baddest $CONDUIT $N: status $st but no message naming rank $N"; show; failed=1
else
    echo "test_bootstrap baddest: PASS (status $st: $(grep -m1 'out of range' "$err"))"
fi
exit $failed
