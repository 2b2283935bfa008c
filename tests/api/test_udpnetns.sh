#!/bin/bash
# tests/api/test_udpnetns.sh: udp-conduit jobs across "hosts" -- network namespaces joined
# by a veth pair, each process with its own host name (a UTS namespace) -- started by
# amudprun with GASNET_SPAWNFN=C through `ip netns exec`.
#   test_udpnetns.sh AMUDPRUN PROG_DIR MODE
# Runs test_am and test_rma (PROG_DIR/test_{am,rma}-udp-MODE) with 2 ranks (one per host)
# and with 4 ranks (two per host: same-host pairs over PSHM, the rest over UDP between the
# namespaces). Needs root, ip(8) and unshare(1); where namespaces cannot be made it says
# why and exits 77 (skipped). Removes its namespaces however it ends (the two hosts come
# from tests/harness/netns.sh).
# Layer: tests (driver).
set -u
[ $# -eq 3 ] || { echo "usage: test_udpnetns.sh AMUDPRUN PROG_DIR MODE" >&2; exit 2; }
AMUDPRUN=$1 DIR=$2 MODE=$3
tag="gn$$"
. "$(dirname "$0")/../harness/netns.sh"
trap 'netns_cleanup; [ -n "${tmp:-}" ] && rm -rf "$tmp"' EXIT
netns_two_hosts test_udpnetns "$tag"

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
