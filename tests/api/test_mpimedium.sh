#!/bin/bash
# tests/api/test_mpimedium.sh: Mediums above 8 KiB on mpi-conduit travel as one AM whose
# payload is an MPI message of its own, received into a buffer of the core's pool (the
# big-Medium hook, GASNETC_MEDIUM_PIECE_AT_RUN_TIME). Runs PROG (test_medium, which checks
# every payload at, below and above 8 KiB and 64 KiB, as requests and as replies sent from
# handlers) with PSHM off and GASNET_VERBOSEENV=1, and checks, besides its PASS, what rank 0
# reports ("mpi-conduit: rank 0 sent S Medium(s) with the payload in a message of its own
# (above 8192 bytes), I inside the AM's message; received R of its own"):
#   default                        S > 0, I > 0 and R > 0 (the hook's path is taken)
#   GASNET_MPI_MEDIUM_SEPARATE=0   S = 0 and R = 0 (the core splits big Mediums into 8 KiB
#                                  pieces instead, gasneti_frag.c: PASS checks them)
# Usage: test_mpimedium.sh GASNET_RUN N PROG
# Prints one line; exits 0 on success, 1 on failure (with the job's output).
# Layer: tests (driver).
set -u
[ $# -eq 3 ] || { echo "usage: test_mpimedium.sh GASNET_RUN N PROG" >&2; exit 2; }
RUN=$1 N=$2 PROG=$3
summary=""
# run LABEL CHECK [VAR=VALUE...]: CHECK is an arithmetic test of S, I and R
run() {
    local label=$1 check=$2 out line
    shift 2
    fail() { echo "test_mpimedium.sh: FAIL ($label): $*"; echo "$out"; exit 1; }
    out=$(env GASNET_SUPERNODE_MAXSIZE=1 GASNET_VERBOSEENV=1 "$@" "$RUN" -c mpi -n "$N" -t 300 "$PROG" 2>&1) ||
        fail "the job ended with status $?"
    [[ "$out" == *PASS* ]] || fail "no PASS line"
    line=$(grep -m1 "^mpi-conduit: rank 0 sent " <<<"$out")
    [[ "$line" =~ sent\ ([0-9]+)\ Medium.*,\ ([0-9]+)\ inside.*received\ ([0-9]+) ]] ||
        fail "no report of the Mediums sent (GASNET_VERBOSEENV)"
    local S=${BASH_REMATCH[1]} I=${BASH_REMATCH[2]} R=${BASH_REMATCH[3]}
    (( $check )) || fail "rank 0 sent $S Mediums apart, $I inside, received $R apart: expected $check"
    summary="$summary${summary:+;} $label: $S sent apart, $I inside, $R received apart"
}
run default "S > 0 && I > 0 && R > 0"
run separate0 "S == 0 && I > 0 && R == 0" GASNET_MPI_MEDIUM_SEPARATE=0
echo "test_mpimedium.sh: PASS ($N processes:$summary)"
