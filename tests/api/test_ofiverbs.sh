#!/bin/bash
# tests/api/test_ofiverbs.sh: ofi-conduit on a provider that requires local registration
# (FI_MR_LOCAL), verbs;ofi_rxm over soft-RoCE (rxe0), in the qemu guest that
# tests/harness/verbs-lab.sh boots (none of the providers on the host needs it).
# Usage: test_ofiverbs.sh GASNET_RUN LABSH LABDIR API MODE
#   LABSH: tests/harness/verbs-lab.sh; LABDIR: where it prepares the guest (kept between
#   runs); API: the directory of the test programs; MODE: seq, par or parsync.
# Host side: prepares the lab (exit 77, a skip naming why, when it cannot be made here),
# then runs this script in the guest (--guest). There, with 2 processes, PSHM off and
# FI_PROVIDER=verbs;ofi_rxm (GASNET_OFI_MR_LOCAL unset), each of test_am, test_rma,
# test_ratomic, test_vis, test_coll and test_multiep must pass, and with
# GASNET_VERBOSEENV=1:
#   - the provider line names verbs;ofi_rxm and says local buffers are registered
#     (FI_MR_LOCAL): the provider asked for it;
#   - rank 0 holds no registration for one transfer at exit;
#   - test_rma's puts from read-only memory (which verbs cannot register for local
#     write) went through copies: "N of them through a copy" with N >= 9.
# Prints one line per program; exits 0 when all pass, 1 otherwise. Layer: tests (driver).
set -u
if [ "${1:-}" != --guest ]; then
    [ $# -eq 5 ] || { echo "usage: test_ofiverbs.sh GASNET_RUN LABSH LABDIR API MODE" >&2; exit 2; }
    RUN=$1 LABSH=$2 LABDIR=$3 API=$4 MODE=$5
    bash "$LABSH" prepare "$LABDIR" > "$LABDIR.prepare.log" 2>&1
    st=$?
    if [ "$st" -ne 0 ]; then
        echo "test_ofiverbs.sh: SKIP (st $st) or failure preparing the verbs lab: $(tail -n 1 "$LABDIR.prepare.log")"
        exit "$st"
    fi
    # the guest sees this host's files at the same paths
    self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
    unset GASNET_OFI_MR_LOCAL FI_PROVIDER
    VERBS_LAB_TIMEOUT=1500 bash "$LABSH" run "$LABDIR" /bin/bash "$self" --guest "$RUN" "$API" "$MODE"
    exit $?
fi

RUN=$2 API=$3 MODE=$4
fails=0
for t in test_am test_rma test_ratomic test_vis test_coll test_multiep; do
    start=$(date +%s)
    out=$(env FI_PROVIDER="verbs;ofi_rxm" GASNET_SUPERNODE_MAXSIZE=1 GASNET_VERBOSEENV=1 \
        "$RUN" -c ofi -n 2 -t 400 "$API/$t-ofi-$MODE" 2>&1)
    st=$?
    secs=$(($(date +%s) - start))
    why=""
    prov=$(echo "$out" | grep -m1 "^ofi-conduit: provider ")
    regs=$(echo "$out" | grep -m1 "^ofi-conduit: rank 0 registered ")
    if [ "$st" -ne 0 ]; then
        why="the job ended with status $st"
    elif ! echo "$out" | grep -q "PASS"; then
        why="no PASS line"
    elif [[ "$prov" != "ofi-conduit: provider verbs;ofi_rxm "* ]]; then
        why="the provider is not verbs;ofi_rxm: $prov"
    elif [[ "$prov" != *"local buffers registered (FI_MR_LOCAL)"* ]]; then
        why="the provider line does not say local buffers are registered"
    elif [[ ! "$regs" =~ ,\ ([0-9]+)\ of\ them\ through\ a\ copy,\ 0\ still\ held ]]; then
        why="rank 0's registrations at exit: ${regs:-(no line)}"
    elif [ "$t" = test_rma ] && [ "${BASH_REMATCH[1]}" -lt 9 ]; then
        why="test_rma's read-only puts did not go through copies: $regs"
    fi
    if [ -n "$why" ]; then
        echo "test_ofiverbs.sh: FAIL $t ($secs s): $why"
        echo "$out" | grep -v "^ENV parameter" | tail -n 30
        fails=$((fails + 1))
    else
        echo "test_ofiverbs.sh: PASS $t on verbs;ofi_rxm, local registration required ($secs s)"
    fi
done
exit $((fails > 0))
