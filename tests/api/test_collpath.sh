#!/bin/bash
# tests/api/test_collpath.sh: runs tests/api/test_coll with GASNET_VERBOSEENV=1 and checks,
# besides its PASS (every result checked against a reference), which path the primordial
# team's barrier and small reductions took, as rank 0 reports them: the barrier "shared
# memory" or "AM dissemination"; small reductions "shared memory" (reported at the first
# one) or the tree (no report).
#   test_collpath.sh GASNET_RUN CONDUIT N PROG shm|am shm|tree
# The job's environment (GASNET_BARRIER, GASNET_SUPERNODE_MAXSIZE, ...) comes from the
# caller. Prints one line; exits 0 on success, 1 on failure (with the job's output).
# Layer: tests (driver).
set -u
[ $# -eq 6 ] || { echo "usage: test_collpath.sh GASNET_RUN CONDUIT N PROG shm|am shm|tree" >&2; exit 2; }
RUN=$1 CONDUIT=$2 N=$3 PROG=$4 BAR=$5 RED=$6
out=$(GASNET_VERBOSEENV=1 "$RUN" -c "$CONDUIT" -n "$N" -t 300 "$PROG" 2>&1)
st=$?
fail() { echo "test_collpath.sh: FAIL: $*"; echo "$out"; exit 1; }
[ "$st" -eq 0 ] || fail "the job ended with status $st"
echo "$out" | grep -q "^test_coll: PASS" || fail "no PASS line"
line=$(echo "$out" | grep "^gasnet: the primordial team's barrier: ")
[ "$(echo "$line" | grep -c .)" -eq 1 ] || fail "expected one report of the barrier's path, got: '$line'"
case "$BAR" in
    shm) [[ "$line" == *"shared memory"* ]] || fail "the barrier was not the shared-memory one: $line" ;;
    am) [[ "$line" == *"AM dissemination"* ]] || fail "the barrier was not by AMs: $line" ;;
    *) echo "test_collpath.sh: the barrier's path must be shm or am" >&2; exit 2 ;;
esac
nred=$(echo "$out" | grep -c "^gasnet: small reductions on the primordial team: shared memory")
case "$RED" in
    shm) [ "$nred" -eq 1 ] || fail "small reductions did not go through shared memory ($nred reports)" ;;
    tree) [ "$nred" -eq 0 ] || fail "small reductions went through shared memory, expected the tree" ;;
    *) echo "test_collpath.sh: the reductions' path must be shm or tree" >&2; exit 2 ;;
esac
echo "test_collpath.sh: PASS (barrier: $BAR, small reductions: $RED)"
