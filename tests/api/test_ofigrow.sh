#!/bin/bash
# tests/api/test_ofigrow.sh: ofi-conduit's receive buffers start few and grow under load
# (issue 43, ofi_am.c: a channel gains a buffer each time a completion leaves it none
# posted). Runs PROG (test_stress: every rank floods every other with AMs of every
# category, Mediums up to the largest, while putting and getting; every payload checked)
# with PSHM off and GASNET_VERBOSEENV=1, and checks, besides its PASS, rank 0's report
# "ofi-conduit: rank 0 receive buffers: requests R of B bytes (started with S, at most M),
# replies ...; send slots with a buffer: K of T": the request buffers grew (S < R <= M)
# and some send slot got a buffer (K > 0). Usage: test_ofigrow.sh GASNET_RUN N PROG
# The provider (FI_PROVIDER) comes from the caller's environment. Prints one line; exits
# 0 on success, 1 on failure (with the job's output). Layer: tests (driver).
set -u
[ $# -eq 3 ] || { echo "usage: test_ofigrow.sh GASNET_RUN N PROG" >&2; exit 2; }
RUN=$1 N=$2 PROG=$3
out=$(env GASNET_SUPERNODE_MAXSIZE=1 GASNET_VERBOSEENV=1 "$RUN" -c ofi -n "$N" -t 300 "$PROG" 2>&1)
rc=$?
line=$(echo "$out" | grep '^ofi-conduit: rank 0 receive buffers: ' | tail -n 1)
# R S M K
read -r R S M K < <(echo "$line" | sed -n 's/.*requests \([0-9]*\) of [0-9]* bytes (started with \([0-9]*\), at most \([0-9]*\)).*send slots with a buffer: \([0-9]*\) of.*/\1 \2 \3 \4/p')
# on ofi_rxd (and only there) every one-message buffer is posted at start-up: R = S = M is the
# check; elsewhere they must have grown, S < R <= M
grew() {
    if [[ "${FI_PROVIDER:-}" == *ofi_rxd* ]]; then [ "$S" -eq "$M" ] && [ "$R" -eq "$M" ]; else [ "$S" -lt "$R" ] && [ "$R" -le "$M" ]; fi
}
if [ $rc -ne 0 ] || [[ "$out" != *PASS* ]] || [ -z "${R:-}" ] || ! grew || [ "$K" -le 0 ]; then
    echo "test_ofigrow.sh: FAIL: the job failed (status $rc) or said no PASS, or rank 0's request buffers did not" \
         "grow (S < R <= M; on ofi_rxd: all posted at start, R = S = M) or no send slot got a buffer (K > 0):" \
         "${line:-no report}"
    echo "$out"
    exit 1
fi
echo "test_ofigrow.sh: PASS (${FI_PROVIDER:-default provider}, $N processes: request buffers $S -> $R of at most $M;" \
     "send slots with a buffer: $K)"
