#!/bin/bash
# tests/api/test_ratomic.sh: runs tests/api/test_ratomic with GASNET_VERBOSEENV=1 and checks,
# besides its PASS, which path every atomic domain it creates took (gex_AD_Create reports it
# on rank 0): "network" (the conduit's native atomics, e.g. ofi's fi_fetch_atomic) or "cpu"
# (CPU atomics for load/store peers, AMs for the others); "some": at least one of each
# (ibv: the HCA serves 64-bit domains of add, subtract and compare-and-swap only); or "ucx":
# the network exactly for the domains whose every operation UCX has (ucp_atomic_op_nbx: on
# 32- and 64-bit integers SET, CAS, ADD, SUB, AND, OR, XOR, INC, DEC, GET and the fetching
# forms; on FLT and DBL SET, CAS, GET and the fetching forms), at least one.
#   test_ratomic.sh GASNET_RUN CONDUIT N PROG network|cpu|some|ucx
# The job's environment (FI_PROVIDER, GASNET_OFI_ATOMICS, ...) comes from the caller.
# Prints one line; exits 0 on success, 1 on failure (with the job's output).
# Layer: tests (driver).
set -u
[ $# -eq 5 ] || { echo "usage: test_ratomic.sh GASNET_RUN CONDUIT N PROG network|cpu|some|ucx" >&2; exit 2; }
RUN=$1 CONDUIT=$2 N=$3 PROG=$4 WANT=$5
out=$(GASNET_VERBOSEENV=1 "$RUN" -c "$CONDUIT" -n "$N" -t 300 "$PROG" 2>&1)
st=$?
fail() { echo "test_ratomic.sh: FAIL: $*"; echo "$out"; exit 1; }
[ "$st" -eq 0 ] || fail "the job ended with status $st"
echo "$out" | grep -q "^test_ratomic: PASS" || fail "no PASS line"
ndom=$(echo "$out" | grep -c "^gex_AD_Create: ")
nnet=$(echo "$out" | grep "^gex_AD_Create: " | grep -c "network atomics")
[ "$ndom" -gt 0 ] || fail "no gex_AD_Create report (GASNET_VERBOSEENV)"
case "$WANT" in
    network) [ "$nnet" -eq "$ndom" ] || fail "$nnet of $ndom domains chose network atomics, expected all" ;;
    cpu) [ "$nnet" -eq 0 ] || fail "$nnet of $ndom domains chose network atomics, expected none" ;;
    ucx) [ "$nnet" -gt 0 ] || fail "no domain chose network atomics"
         # GEX_OP_* bits (gasnet_fwd.h) UCX has, by type
         wrong=$(echo "$out" | grep "^gex_AD_Create: " | while read -r _ dt _ _ ops path; do
             ops=${ops%:}
             case "$dt" in FLT|DBL) allowed=$((0x31003)) ;; *) allowed=$((0x0F8F1F8F)) ;; esac
             want=cpu; (( (ops & ~allowed) == 0 )) && want=network
             case "$path" in network*) got=network ;; *) got=cpu ;; esac
             [ "$want" = "$got" ] || echo "$dt ops $ops: $got, expected $want"
         done)
         [ -z "$wrong" ] || fail "$wrong" ;;
    some) [ "$nnet" -gt 0 ] && [ "$nnet" -lt "$ndom" ] || fail "$nnet of $ndom domains chose network atomics, expected some" ;;
    *) echo "test_ratomic.sh: WANT must be network, cpu, some or ucx" >&2; exit 2 ;;
esac
echo "test_ratomic.sh: PASS ($ndom domains, $nnet by network atomics, expected $WANT)"
