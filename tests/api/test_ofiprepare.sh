#!/bin/bash
# tests/api/test_ofiprepare.sh: negotiated-payload Mediums in ofi-conduit's own send slots
# (GASNETC_AM_PREPARE: gasnetc_am_prepare hands a Prepare with the library's buffer a
# place in a send slot, and the Commit sends the message built around it, no copy).
# Runs PROG (test_prepare, which checks every payload, Commits of fewer bytes than
# prepared and Cancels) with PSHM off and GASNET_VERBOSEENV=1, and checks, besides its
# PASS, that rank 0 reports P > 0 Mediums sent that way ("ofi-conduit: rank 0 sent P
# Medium(s) built around a payload prepared in a send slot"), in three runs:
#   default                  the provider's own choices
#   GASNET_OFI_MR_LOCAL=1    the slots registered (the path of FI_MR_LOCAL providers)
#   GASNET_OFI_TAGGED=0      requests and replies on two endpoints
# Usage: test_ofiprepare.sh GASNET_RUN N PROG
# The provider (FI_PROVIDER) comes from the caller's environment. Prints one line; exits
# 0 on success, 1 on failure (with the job's output). Layer: tests (driver).
set -u
[ $# -eq 3 ] || { echo "usage: test_ofiprepare.sh GASNET_RUN N PROG" >&2; exit 2; }
RUN=$1 N=$2 PROG=$3
summary=""
# run LABEL [VAR=VALUE...]: one job; its status, PASS and P > 0 checked
run() {
    local label=$1 out P=""
    shift
    out=$(env GASNET_SUPERNODE_MAXSIZE=1 GASNET_VERBOSEENV=1 "$@" "$RUN" -c ofi -n "$N" -t 300 "$PROG" 2>&1) &&
        [[ "$out" == *PASS* ]] &&
        P=$(echo "$out" | sed -n 's/^ofi-conduit: rank 0 sent \([0-9]*\) Medium(s) built around a payload prepared in a send slot$/\1/p') &&
        [ "${P:-0}" -gt 0 ] ||
        { echo "test_ofiprepare.sh: FAIL ($label): the job failed or said no PASS, or rank 0 reported no Medium" \
               "sent from a send slot its Prepare handed out (P=${P:-no report})"; echo "$out"; exit 1; }
    summary="$summary${summary:+;} $label: $P"
}
run default
run mrlocal GASNET_OFI_MR_LOCAL=1
run twoep GASNET_OFI_TAGGED=0
echo "test_ofiprepare.sh: PASS (${FI_PROVIDER:-default provider}, $N processes, Mediums from prepared slots:$summary)"
