#!/bin/bash
# tests/api/test_segrma.sh: native RMA into created, bound and published segments on
# ofi-conduit and ucx-conduit (the conduit: PROG's name, test_segrma-<conduit>-<mode>).
# Runs PROG (test_segrma, which checks every byte) with GASNET_VERBOSEENV=1 and compares
# what rank 0 says it sent to endpoints 1 and 2 of processes outside its neighbourhood
# ("test_segrma: rank 0 expects P puts and G gets to endpoint E by the network") with what
# the conduit reports it did ("<c>-conduit: rank 0 native RMA to endpoint E: P put(s) by
# fi_write|ucp_put_nbx, G get(s) by ...": they must be equal and above 0.
#   rma    PSHM off (GASNET_SUPERNODE_MAXSIZE=1): every peer by the network's RMA.
#          With N >= 4 also GASNET_SUPERNODE_MAXSIZE=2: neighbours by load/store (not
#          counted), the others by the network.
#          Then the same with GASNET_<C>_RMA_BOUND=0 (only the primordial segment gets a
#          key): test_segrma still passes (by AMs) and the comparison must FAIL: the
#          check notices when created segments are not reached natively.
#   flush  PROG flush 1000 (1000 NBI puts into endpoint 1 of rank 1, one gex_NBI_Wait):
#          rank 0 must report 1000 puts by the network and exactly one flush ("flushed
#          puts' remote completion 1 time(s)"). ofi: with GASNET_OFI_RMA_FLUSH=1 (one
#          fi_read), and without it no flush at all; the provider (FI_PROVIDER) must order
#          a read after a write (tcp;ofi_rxm does not say so: docs/ofi-conduit.md). ucx:
#          always (one endpoint flush); with GASNET_UCX_RMA=0 (puts by AMs) no flush.
#   exit   (ofi: GASNET_OFI_RMA_FLUSH=1) PROG exit: rank 0 leaves a put to rank 1 unsynced
#          and calls gasnet_exit(7) while rank 1 never polls; the exit's flush must give
#          up at GASNET_EXITTIMEOUT=2 s: status 7 within 15 s, and rank 0 reports the one
#          flush (the mode was on). The network must need the target's polling for the
#          flush (manual progress: udp;ofi_rxd; ucx over tcp), else it completes anyway.
#   amo    PSHM off: PROG amo (fetch-and-adds through a 64-bit atomic domain into endpoints
#          1 and 2 of every process): the domain must take network atomics and rank 0's
#          count of atomics by the conduit equal what test_segrma expects (issue 45: not
#          only the primordial segment's by the network).
# Usage: test_segrma.sh GASNET_RUN N PROG rma|flush|exit|amo
# The provider or transports come from the caller's environment (FI_PROVIDER, UCX_TLS).
# Prints one line; exits 0 on success, 1 on failure (with the job's output). Layer: tests
# (driver).
set -u
[ $# -eq 4 ] || { echo "usage: test_segrma.sh GASNET_RUN N PROG rma|flush|exit" >&2; exit 2; }
RUN=$1 N=$2 PROG=$3 MODE=$4
C=${PROG##*/test_segrma-}
C=${C%%-*}
case "$C" in
    # (ofi: datagrams off, GASNET_OFI_DGRAM=0: with them the first small puts and gets to a
    # peer without a connection go by AMs on purpose, docs/ofi-conduit.md, and the counts
    # compared here are of the native path)
    ofi) CU=OFI FLUSH_ON=GASNET_OFI_RMA_FLUSH=1 FLUSH_OFF=GASNET_OFI_RMA_FLUSH=0 HOW="by fi_write" FLUSHED="by 1 fi_read(s)"
         export GASNET_OFI_DGRAM=0 ;;
    ucx) CU=UCX FLUSH_ON=GASNET_UCX_RMA=1 FLUSH_OFF=GASNET_UCX_RMA=0 HOW="by ucp_put_nbx" FLUSHED="by 1 endpoint flush(es)" ;;
    *) echo "test_segrma.sh: a program of ofi or ucx, not '$PROG'" >&2; exit 2 ;;
esac
summary="" out=""
fail() { echo "test_segrma.sh: FAIL ($label): $*"; echo "$out"; exit 1; }
# job LABEL [VAR=VALUE...] -- [ARGS...]: runs PROG, requires its PASS
job() {
    label=$1
    shift
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    out=$(env GASNET_VERBOSEENV=1 "${envs[@]}" "$RUN" -c "$C" -n "$N" -t 300 "$PROG" "$@" 2>&1)
    local st=$?
    [ "$st" -eq 0 ] || fail "the job ended with status $st"
    echo "$out" | grep -q "^test_segrma: PASS" || fail "no PASS line"
}
# native_ok: every endpoint's expected puts and gets equal the conduit's, all > 0 (else
# the reason in $why)
native_ok() {
    local e line P G p g
    why="" counts=""
    for e in 1 2; do
        line=$(echo "$out" | grep -m1 "^test_segrma: rank 0 expects .* to endpoint $e by")
        [[ "$line" =~ expects\ ([0-9]+)\ puts\ and\ ([0-9]+)\ gets ]] || { why="no expectation for endpoint $e"; return 1; }
        P=${BASH_REMATCH[1]} G=${BASH_REMATCH[2]}
        line=$(echo "$out" | grep -m1 "^$C-conduit: rank 0 native RMA to endpoint $e:")
        p=0 g=0
        [[ "$line" =~ ([0-9]+)\ put.*\ ([0-9]+)\ get ]] && p=${BASH_REMATCH[1]} g=${BASH_REMATCH[2]}
        (( P > 0 && G > 0 )) || { why="rank 0 expects no native RMA to endpoint $e (no peer off its host?)"; return 1; }
        (( p == P && g == G )) || { why="endpoint $e: expected $P puts and $G gets by the network, the conduit made $p and $g"; return 1; }
        counts="$counts${counts:+, }ep$e $p+$g"
    done
}
case "$MODE" in
rma)
    job nopshm GASNET_SUPERNODE_MAXSIZE=1 --
    native_ok || fail "$why"
    summary="PSHM off: $counts"
    if [ "$N" -ge 4 ]; then
        job mixed GASNET_SUPERNODE_MAXSIZE=2 --
        native_ok || fail "$why"
        summary="$summary; neighbourhoods of 2: $counts"
    fi
    job bound0 GASNET_SUPERNODE_MAXSIZE=1 GASNET_${CU}_RMA_BOUND=0 --
    native_ok && fail "native RMA to created segments was turned off, yet the check passed ($counts)"
    summary="$summary; GASNET_${CU}_RMA_BOUND=0 noticed ($why)"
    ;;
flush)
    job flush GASNET_SUPERNODE_MAXSIZE=1 $FLUSH_ON -- flush 1000
    line=$(echo "$out" | grep -m1 "^$C-conduit: rank 0 native RMA to endpoint 1:")
    [[ "$line" == *": 1000 put(s) $HOW"* ]] || fail "expected 1000 puts $HOW to endpoint 1: '$line'"
    line=$(echo "$out" | grep -m1 "^$C-conduit: rank 0 flushed ")
    [[ "$line" == *"remote completion 1 time(s), $FLUSHED"* ]] ||
        fail "expected one flush ($FLUSHED) for 1000 NBI puts and one sync: '$line'"
    job noflush GASNET_SUPERNODE_MAXSIZE=1 $FLUSH_OFF -- flush 1000
    echo "$out" | grep -q "^$C-conduit: rank 0 flushed puts' remote completion [1-9]" && fail "a flush with $FLUSH_OFF"
    summary="1000 NBI puts + 1 sync: 1 flush; none with $FLUSH_OFF"
    ;;
exit)
    label=exit
    t0=$(date +%s%N)
    out=$(env GASNET_VERBOSEENV=1 GASNET_SUPERNODE_MAXSIZE=1 $FLUSH_ON GASNET_EXITTIMEOUT=2 \
          "$RUN" -c "$C" -n "$N" -t 60 "$PROG" exit 2>&1)
    st=$? ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    echo "$out" | grep -q "^test_segrma: rank 0 exits with a put unsynced" || fail "rank 0 did not reach its exit"
    [ "$st" -eq 7 ] || fail "status $st after $ms ms, expected 7"
    (( ms < 15000 )) || fail "the job took $ms ms to end (the exit's flush not bounded by GASNET_EXITTIMEOUT?)"
    echo "$out" | grep -q "^$C-conduit: rank 0 flushed puts' remote completion 1 time(s)" ||
        fail "rank 0 reported no flush at its exit ($FLUSH_ON not in effect?)"
    summary="an exit with a put unsynced, its target not polling: status 7 in $ms ms"
    ;;
amo)
    job amo GASNET_SUPERNODE_MAXSIZE=1 -- amo
    echo "$out" | grep -q "^gex_AD_Create: .*network atomics" || fail "the domain did not take network atomics"
    line=$(echo "$out" | grep -m1 "^test_segrma: rank 0 expects .* atomics by the network")
    [[ "$line" =~ expects\ ([0-9]+)\ atomics ]] || fail "no expectation of atomics"
    A=${BASH_REMATCH[1]}
    line=$(echo "$out" | grep -m1 "^$C-conduit: rank 0 made [0-9]* atomic operation")
    a=0
    [[ "$line" =~ made\ ([0-9]+)\ atomic ]] && a=${BASH_REMATCH[1]}
    (( A > 0 && a == A )) || fail "expected $A atomics by the network into created segments, the conduit made $a"
    summary="$a fetch-and-adds into created segments, all by the network"
    ;;
*) echo "test_segrma.sh: the mode must be rma, flush, exit or amo" >&2; exit 2 ;;
esac
echo "test_segrma.sh: PASS ($C, ${FI_PROVIDER:-${UCX_TLS:-default provider or transports}}, $N processes: $summary)"
