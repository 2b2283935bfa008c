#!/bin/bash
# tests/api/test_netns.sh: jobs of a network conduit across "hosts" -- two network
# namespaces joined by a veth pair, each with its own host name (tests/harness/netns.sh).
#   test_netns.sh udp AMUDPRUN      PROG_DIR MODE
#   test_netns.sh ofi GASNETRUN_OFI PROG_DIR MODE NETNS_SSH
#   test_netns.sh ucx GASNETRUN_UCX PROG_DIR MODE NETNS_SSH
# Runs test_am and test_rma (PROG_DIR/test_{am,rma}-CONDUIT-MODE) with 2 ranks (one per
# host) and with 4 ranks (two per host: same-host pairs over PSHM, the rest over the
# network between the namespaces). How the ranks are started and what shows that the
# traffic crossed the veth is the conduit's:
# - udp: amudprun with GASNET_SPAWNFN=C, each rank entering its namespace and a UTS
#   namespace of its own; every rank's counts line (GASNET_VERBOSEENV) shows datagrams sent;
# - ofi, ucx: the launcher's ssh spawner through NETNS_SSH (GASNET_SSH_CMD: runs a command
#   "on" a host by entering its namespace, with a clean environment as ssh gives); ssh must
#   have been asked for both hosts, and rank 0 must report (GASNET_VERBOSEENV) ofi's
#   provider fabric on the veth's network / ucx's endpoint by tcp over the veth device.
# Needs root, ip(8) and unshare(1); where namespaces cannot be made it says why and exits
# 77 (skipped). Removes its namespaces however it ends.
# Layer: tests (driver).
set -u
usage="usage: test_netns.sh {udp LAUNCHER PROG_DIR MODE | ofi|ucx LAUNCHER PROG_DIR MODE NETNS_SSH}"
[ $# -ge 4 ] || { echo "$usage" >&2; exit 2; }
CONDUIT=$1 RUN=$2 DIR=$3 MODE=$4 NSSH=${5:-}
case "$CONDUIT" in
    udp) [ $# -eq 4 ] ;;
    ofi|ucx) [ $# -eq 5 ] ;;
    *) false ;;
esac || { echo "$usage" >&2; exit 2; }
name=test_${CONDUIT}netns
for v in $(compgen -e); do
    case "$v" in GASNET_PSHM_DIR | GASNET_BACKTRACE) ;; GASNET_*|TEST_*|UCX_*) unset "$v" ;; esac
done
tag="g$CONDUIT$$"   # the veth is "$tag-v": at most 15 characters
. "$(dirname "$0")/../harness/netns.sh"
trap 'netns_cleanup; [ -n "${tmp:-}" ] && rm -rf "$tmp"' EXIT
netns_two_hosts "$name" "$tag"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-$name.XXXXXX") || exit 2

# launch EXE N: runs the job from the first namespace, output in $tmp/out and $tmp/err
launch() {
    if [ "$CONDUIT" = udp ]; then
        # rank R runs in namespace R%2 under the host name <tag>-host<R%2> (the command is
        # run by /bin/sh, which does the arithmetic)
        local cspawn="ip netns exec $tag-\$((%R % 2)) unshare --uts /bin/sh -c 'hostname $tag-host\$1 && exec /bin/sh -c \"\$0\"' %C \$((%R % 2))"
        GASNET_SPAWNFN=C GASNET_CSPAWN_CMD=$cspawn GASNET_MASTERIP=$ip0 GASNET_VERBOSEENV=1 \
            timeout -k 5 180 ip netns exec "$ns0" "$RUN" -np "$2" "$1"
    else
        rm -f "$tmp/ssh.log"
        NETNS_SSH_LOG="$tmp/ssh.log" GASNET_SSH_CMD=$NSSH GASNET_SSH_SERVERS="$ns0 $ns1" GASNET_MASTERIP=$ip0 \
            GASNET_VERBOSEENV=1 timeout -k 5 180 ip netns exec "$ns0" "$RUN" -n "$2" -spawner=ssh "$1"
    fi > "$tmp/out" 2> "$tmp/err" < /dev/null
}

# crossed N: says (and fails) when the output does not show the traffic on the veth
crossed() {
    case "$CONDUIT" in
    udp)
        local sent
        sent=$(grep -c 'udp-conduit rank [0-9]*: [1-9][0-9]* datagrams sent' "$tmp/err")
        [ "$sent" -eq "$1" ] || { echo "$sent of $1 ranks sent datagrams"; return 1; } ;;
    ofi|ucx)
        local hosts
        hosts=$(sort -u "$tmp/ssh.log" 2>/dev/null | tr '\n' ' ')
        [ "$hosts" = "$ns0 $ns1 " ] || { echo "ssh was asked for '$hosts', expected both hosts"; return 1; }
        if [ "$CONDUIT" = ofi ]; then
            grep -q "ofi-conduit: provider .*fabric $net/24" "$tmp/err" ||
                { echo "the provider's fabric is not the veth's network $net/24"; return 1; }
        else
            grep -q "ucx-conduit: .*endpoint to rank [0-9]*: .*tcp/$dev" "$tmp/err" ||
                { echo "the endpoint to the other host does not use tcp over $dev"; return 1; }
        fi ;;
    esac
}

failed=0
for prog in test_am test_rma; do
    for n in 2 4; do
        exe="$DIR/$prog-$CONDUIT-$MODE"
        [ -x "$exe" ] || { echo "FAIL $name: not built: $exe"; exit 1; }
        launch "$exe" "$n"
        st=$?
        if [ $st -ne 0 ]; then
            echo "FAIL $name: $prog, $n ranks on 2 hosts: status $st"
        elif ! grep -q "PASS" "$tmp/out"; then
            echo "FAIL $name: $prog, $n ranks on 2 hosts: no PASS line"
        elif ! why=$(crossed "$n"); then
            echo "FAIL $name: $prog, $n ranks on 2 hosts: $why"
        else
            echo "ok   $prog, $n ranks on 2 hosts ($ip0, $ip1): $(grep -m1 PASS "$tmp/out")"
            continue
        fi
        failed=1
        echo "--- stdout:"; cat "$tmp/out"; echo "--- stderr:"; cat "$tmp/err"
    done
done
[ $failed -eq 0 ] || exit 1
echo "PASS $name"
