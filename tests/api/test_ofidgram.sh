#!/bin/bash
# tests/api/test_ofidgram.sh: ofi-conduit's datagrams for small AMs to peers without a
# connection (ofi_dgram.c; issue 43). Runs PROG (test_stress: every rank floods every
# other with AMs of every category, while putting and getting; every payload checked,
# each exactly once) with PSHM off and GASNET_VERBOSEENV=1 in one MODE, and checks, besides
# its PASS, rank 0's report "ofi-conduit: rank 0 datagrams: D AM(s) sent over datagrams to
# P peer(s) (R resent), ...; X dropped on purpose, Y refused for now; S peer(s) switched
# to the RDM endpoint after W datagrams; ...":
#   never   GASNET_OFI_DGRAM_SWITCH=never: D > 0, P = N - 1, S = 0
#   drop    never, and GASNET_OFI_DGRAM_TEST_DROP=29 (one datagram sent in 29 dropped, at pseudo-random places):
#           X > 0 and R > 0 (the losses happened and were made good)
#   switch  the default (switch after 64): 0 < D <= 64 x (N - 1) (no peer got more than 64)
#   off     GASNET_OFI_DGRAM=0: rank 0 says "datagrams off (GASNET_OFI_DGRAM=0)", no report
# A provider without per-peer connections (FI_PROVIDER other than tcp's) is a FAIL here:
# datagrams are never used there. Usage: test_ofidgram.sh GASNET_RUN N PROG MODE
# Prints one line; exits 0 on success, 1 on failure (with the job's output). Layer: tests (driver).
set -u
[ $# -eq 4 ] || { echo "usage: test_ofidgram.sh GASNET_RUN N PROG never|drop|switch|off" >&2; exit 2; }
RUN=$1 N=$2 PROG=$3 MODE=$4
case $MODE in
never) env=(GASNET_OFI_DGRAM_SWITCH=never) ;;
drop) env=(GASNET_OFI_DGRAM_SWITCH=never GASNET_OFI_DGRAM_TEST_DROP=29) ;;
switch) env=() ;;
off) env=(GASNET_OFI_DGRAM=0) ;;
*) echo "test_ofidgram.sh: unknown mode $MODE" >&2; exit 2 ;;
esac
out=$(env GASNET_SUPERNODE_MAXSIZE=1 GASNET_VERBOSEENV=1 "${env[@]}" "$RUN" -c ofi -n "$N" -t 300 "$PROG" 2>&1)
rc=$?
line=$(echo "$out" | grep '^ofi-conduit: rank 0 datagrams: ' | tail -n 1)
read -r D P R X S < <(echo "$line" | sed -n 's/.*datagrams: \([0-9]*\) AM(s) sent over datagrams to \([0-9]*\) peer(s) (\([0-9]*\) resent).*; \([0-9]*\) dropped on purpose.*; \([0-9]*\) peer(s) switched.*/\1 \2 \3 \4 \5/p')
ok=1
case $MODE in
never) [ -n "${D:-}" ] && [ "$D" -gt 0 ] && [ "$P" -eq $((N - 1)) ] && [ "$S" -eq 0 ] || ok=0 ;;
drop) [ -n "${D:-}" ] && [ "$X" -gt 0 ] && [ "$R" -gt 0 ] || ok=0 ;;
switch) [ -n "${D:-}" ] && [ "$D" -gt 0 ] && [ "$D" -le $((64 * (N - 1))) ] || ok=0 ;;
off) [ -z "$line" ] && [[ "$out" == *"ofi-conduit: datagrams off (GASNET_OFI_DGRAM=0)"* ]] || ok=0 ;;
esac
if [ $rc -ne 0 ] || [[ "$out" != *PASS* ]] || [ $ok -eq 0 ]; then
    echo "test_ofidgram.sh: FAIL ($MODE, $N processes): the job failed (status $rc) or said no PASS, or rank 0's" \
         "datagram report does not show what $MODE must: ${line:-no report}"
    echo "$out"
    exit 1
fi
echo "test_ofidgram.sh: PASS ($MODE, $N processes: ${line:+$(echo "$line" | sed 's/^ofi-conduit: rank 0 datagrams: //')}${line:-datagrams off})"
