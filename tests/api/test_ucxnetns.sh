#!/bin/bash
# tests/api/test_ucxnetns.sh: ucx-conduit jobs across "hosts" -- two network namespaces
# joined by a veth pair, each with its own host name -- started by gasnetrun_ucx's ssh
# spawner through tests/harness/netns-ssh (GASNET_SSH_CMD: runs a command "on" a host by
# entering its namespace, with a clean environment as ssh gives).
#   test_ucxnetns.sh GASNETRUN_UCX PROG_DIR MODE NETNS_SSH
# Runs test_am and test_rma (PROG_DIR/test_{am,rma}-ucx-MODE) with 2 ranks (one per host)
# and with 4 ranks (two per host: same-host pairs over PSHM, the rest through UCX between
# the namespaces), with UCX's own choice of transports; checks that ssh was asked for both
# hosts and that the endpoint rank 0 reports (GASNET_VERBOSEENV) goes over the veth device
# by tcp. Needs root, ip(8) and unshare(1); where namespaces cannot be made it says why
# and exits 77 (skipped). Removes its namespaces however it ends (tests/harness/netns.sh).
# Layer: tests (driver).
set -u
[ $# -eq 4 ] || { echo "usage: test_ucxnetns.sh GASNETRUN_UCX PROG_DIR MODE NETNS_SSH" >&2; exit 2; }
RUN=$1 DIR=$2 MODE=$3 NSSH=$4
for v in $(compgen -e); do
    case "$v" in GASNET_PSHM_DIR | GASNET_BACKTRACE) ;; GASNET_*|TEST_*|UCX_*) unset "$v" ;; esac
done
. "$(dirname "$0")/../harness/netns.sh"
trap 'netns_cleanup; [ -n "${tmp:-}" ] && rm -rf "$tmp"' EXIT
netns_two_hosts test_ucxnetns "gu$$"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-ucxnetns.XXXXXX") || exit 2
failed=0
for prog in test_am test_rma; do
    for n in 2 4; do
        exe="$DIR/$prog-ucx-$MODE"
        [ -x "$exe" ] || { echo "FAIL test_ucxnetns: not built: $exe"; exit 1; }
        rm -f "$tmp/ssh.log"
        NETNS_SSH_LOG="$tmp/ssh.log" GASNET_SSH_CMD=$NSSH GASNET_SSH_SERVERS="$ns0 $ns1" GASNET_MASTERIP=$ip0 \
            GASNET_VERBOSEENV=1 timeout -k 5 180 ip netns exec "$ns0" "$RUN" -n "$n" -spawner=ssh "$exe" \
            > "$tmp/out" 2> "$tmp/err" < /dev/null
        st=$?
        hosts=$(sort -u "$tmp/ssh.log" 2>/dev/null | tr '\n' ' ')
        if [ $st -ne 0 ]; then
            echo "FAIL test_ucxnetns: $prog, $n ranks on 2 hosts: status $st"
        elif ! grep -q "PASS" "$tmp/out"; then
            echo "FAIL test_ucxnetns: $prog, $n ranks on 2 hosts: no PASS line"
        elif [ "$hosts" != "$ns0 $ns1 " ]; then
            echo "FAIL test_ucxnetns: $prog, $n ranks: ssh was asked for '$hosts', expected both hosts"
        elif ! grep -q "ucx-conduit: .*endpoint to rank [0-9]*: .*tcp/$dev" "$tmp/err"; then
            echo "FAIL test_ucxnetns: $prog, $n ranks: the endpoint to the other host does not use tcp over $dev"
        else
            echo "ok   $prog, $n ranks on 2 hosts ($ip0, $ip1) by ssh: $(grep -m1 PASS "$tmp/out")"
            continue
        fi
        failed=1
        echo "--- stdout:"; cat "$tmp/out"; echo "--- stderr:"; cat "$tmp/err"
    done
done
[ $failed -eq 0 ] || exit 1
echo "PASS test_ucxnetns"
