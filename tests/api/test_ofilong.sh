#!/bin/bash
# tests/api/test_ofilong.sh: Long payloads by fi_write on ofi-conduit. Runs PROG (test_am,
# which checks every payload) with PSHM off and GASNET_VERBOSEENV=1, and checks, besides
# its PASS, how many Longs rank 0 reports having sent each way ("ofi-conduit: rank 0 sent
# W Long(s) with the payload by fi_write, M inside messages"):
#   default                      W > 0 and M > 0 (big Longs written, small ones inside)
#   GASNET_OFI_LONG_RDMA_MIN=1   W > 0 and M < W (all but empty ones written)
#   GASNET_OFI_LONG_RDMA_MIN=0   W = 0 (none written)
#   GASNET_OFI_RMA=0             W = 0 (no RDMA at all)
#   GASNET_OFI_MR_LOCAL=1        W > 0 and M > 0, the provider line says local buffers
#                                are registered, and rank 0 registered some buffers out of
#                                the segment for one transfer each (test_am's Long sources:
#                                each written Long registers its source) and holds none of
#                                them at exit
#   GASNET_OFI_TAGGED=0          W > 0 and M > 0, with requests and replies on two
#                                endpoints (the path of providers without FI_TAGGED)
# Every run also checks the provider line for the channels, "one endpoint (replies
# tagged)" or with GASNET_OFI_TAGGED=0 "two endpoints (GASNET_OFI_TAGGED=0)", and for
# "manual (polled) progress" (every provider here has FI_TAGGED and grants manual
# progress; sockets defaults to automatic, at 7 ms per AM round trip).
# Usage: test_ofilong.sh GASNET_RUN N PROG
# The provider (FI_PROVIDER) comes from the caller's environment. Prints one line; exits
# 0 on success, 1 on failure (with the job's output). Layer: tests (driver).
set -u
[ $# -eq 3 ] || { echo "usage: test_ofilong.sh GASNET_RUN N PROG" >&2; exit 2; }
RUN=$1 N=$2 PROG=$3
summary=""
# run LABEL CHECK [VAR=VALUE...]: CHECK is an arithmetic test of W and M
run() {
    local label=$1 check=$2
    shift 2
    local out st line W M extra="" chans="one endpoint (replies tagged)"
    [[ " $* " == *" GASNET_OFI_TAGGED=0 "* ]] && chans="two endpoints (GASNET_OFI_TAGGED=0)"
    out=$(env GASNET_SUPERNODE_MAXSIZE=1 GASNET_VERBOSEENV=1 "$@" "$RUN" -c ofi -n "$N" -t 300 "$PROG" 2>&1)
    st=$?
    fail() { echo "test_ofilong.sh: FAIL ($label): $*"; echo "$out"; exit 1; }
    [ "$st" -eq 0 ] || fail "the job ended with status $st"
    echo "$out" | grep -q "PASS" || fail "no PASS line"
    line=$(echo "$out" | grep -m1 "^ofi-conduit: provider ")
    [[ "$line" == *", $chans,"* ]] || fail "the provider line does not say: $chans"
    [[ "$line" == *", manual (polled) progress"* ]] || fail "the provider line does not say: manual (polled) progress"
    line=$(echo "$out" | grep -m1 "^ofi-conduit: rank 0 sent ")
    [[ "$line" =~ sent\ ([0-9]+)\ Long.*,\ ([0-9]+)\ inside ]] || fail "no report of the Longs sent (GASNET_VERBOSEENV)"
    W=${BASH_REMATCH[1]} M=${BASH_REMATCH[2]}
    (( $check )) || fail "rank 0 sent $W Longs by fi_write and $M inside messages: expected $check"
    if [[ " $* " == *" GASNET_OFI_MR_LOCAL=1 "* ]]; then
        echo "$out" | grep -q "^ofi-conduit: provider .*local buffers registered (FI_MR_LOCAL)" ||
            fail "GASNET_OFI_MR_LOCAL=1, but the provider line does not say local buffers are registered"
        line=$(echo "$out" | grep -m1 "^ofi-conduit: rank 0 registered ")
        [[ "$line" =~ registered\ ([0-9]+)\ local.*,\ ([0-9]+)\ still\ held ]] ||
            fail "no report of the registrations for one transfer (GASNET_VERBOSEENV)"
        (( BASH_REMATCH[1] > 0 && BASH_REMATCH[2] == 0 )) ||
            fail "rank 0 registered ${BASH_REMATCH[1]} buffers for one transfer and still holds" \
                 "${BASH_REMATCH[2]}: expected some, none held"
        extra=" (${BASH_REMATCH[1]} registered for one transfer, all released)"
    fi
    summary="$summary${summary:+;} $label: $W written, $M inside$extra"
}
run default "W > 0 && M > 0"
run min1 "W > 0 && M < W" GASNET_OFI_LONG_RDMA_MIN=1
run min0 "W == 0 && M > 0" GASNET_OFI_LONG_RDMA_MIN=0
run rma0 "W == 0 && M > 0" GASNET_OFI_RMA=0
run mrlocal "W > 0 && M > 0" GASNET_OFI_MR_LOCAL=1
run twoep "W > 0 && M > 0" GASNET_OFI_TAGGED=0
echo "test_ofilong.sh: PASS (${FI_PROVIDER:-default provider}, $N processes:$summary)"
