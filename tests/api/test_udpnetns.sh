#!/bin/bash
# tests/api/test_udpnetns.sh: udp-conduit jobs across "hosts" -- network namespaces joined
# by a veth pair, each process with its own host name (a UTS namespace) -- started by
# amudprun with GASNET_SPAWNFN=C through `ip netns exec`.
#   test_udpnetns.sh AMUDPRUN PROG_DIR MODE
# Runs test_am and test_rma (PROG_DIR/test_{am,rma}-udp-MODE) with 2 ranks (one per host)
# and with 4 ranks (two per host: same-host pairs over PSHM, the rest over UDP between the
# namespaces). Needs root, ip(8) and unshare(1); where namespaces cannot be made it says
# why and exits 77 (skipped). Removes its namespaces however it ends.
# Layer: tests (driver).
set -u
[ $# -eq 3 ] || { echo "usage: test_udpnetns.sh AMUDPRUN PROG_DIR MODE" >&2; exit 2; }
AMUDPRUN=$1 DIR=$2 MODE=$3
PATH=$PATH:/usr/sbin:/sbin
skip() { echo "SKIP test_udpnetns: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "network namespaces need root"
command -v ip > /dev/null || skip "ip(8) not found (Debian package iproute2)"
command -v unshare > /dev/null || skip "unshare(1) not found (Debian package util-linux)"

tag="gn$$"
ns0="$tag-0" ns1="$tag-1"
net="10.$((($$ >> 8) % 200 + 20)).$(($$ % 250)).0"
ip0="${net%.0}.1" ip1="${net%.0}.2"
cleanup() {
    ip netns del "$ns0" 2>/dev/null
    ip netns del "$ns1" 2>/dev/null
    rm -f "${tmp:-/nonexistent}"/out "${tmp:-/nonexistent}"/err
    [ -n "${tmp:-}" ] && rmdir "$tmp" 2>/dev/null
}
trap cleanup EXIT
ip netns add "$ns0" 2> /dev/null || skip "cannot create a network namespace (ip netns add failed)"
ip netns add "$ns1" || skip "cannot create a second network namespace"
ip link add "$tag-a" netns "$ns0" type veth peer name "$tag-b" netns "$ns1" ||
    skip "cannot create a veth pair between namespaces"
ip -n "$ns0" addr add "$ip0/24" dev "$tag-a" && ip -n "$ns1" addr add "$ip1/24" dev "$tag-b" &&
    ip -n "$ns0" link set "$tag-a" up && ip -n "$ns1" link set "$tag-b" up &&
    ip -n "$ns0" link set lo up && ip -n "$ns1" link set lo up || { echo "FAIL test_udpnetns: cannot configure the veth pair"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-udpnetns.XXXXXX") || exit 2
failed=0
# rank R runs in namespace R%2 under the host name <tag>-host<R%2> (the command is run by
# /bin/sh, which does the arithmetic); the launcher runs in the first namespace
cspawn="ip netns exec $tag-\$((%R % 2)) unshare --uts /bin/sh -c 'hostname $tag-host\$1 && exec /bin/sh -c \"\$0\"' %C \$((%R % 2))"
for prog in test_am test_rma; do
    for n in 2 4; do
        exe="$DIR/$prog-udp-$MODE"
        [ -x "$exe" ] || { echo "FAIL test_udpnetns: not built: $exe"; exit 1; }
        GASNET_SPAWNFN=C GASNET_CSPAWN_CMD=$cspawn GASNET_MASTERIP=$ip0 GASNET_VERBOSEENV=1 \
            timeout -k 5 180 ip netns exec "$ns0" "$AMUDPRUN" -np "$n" "$exe" > "$tmp/out" 2> "$tmp/err" < /dev/null
        st=$?
        # every rank's UDP counts line shows datagrams sent: the traffic crossed the veth
        sent=$(grep -c 'udp-conduit rank [0-9]*: [1-9][0-9]* datagrams sent' "$tmp/err")
        if [ $st -ne 0 ]; then
            echo "FAIL test_udpnetns: $prog, $n ranks on 2 hosts: status $st"
        elif ! grep -q "PASS" "$tmp/out"; then
            echo "FAIL test_udpnetns: $prog, $n ranks on 2 hosts: no PASS line"
        elif [ "$sent" -ne "$n" ]; then
            echo "FAIL test_udpnetns: $prog, $n ranks on 2 hosts: $sent of $n ranks sent datagrams"
        else
            echo "ok   $prog, $n ranks on 2 hosts ($ip0, $ip1): $(grep -m1 PASS "$tmp/out")"
            continue
        fi
        failed=1
        echo "--- stdout:"; cat "$tmp/out"; echo "--- stderr:"; cat "$tmp/err"
    done
done
[ $failed -eq 0 ] || exit 1
echo "PASS test_udpnetns"
