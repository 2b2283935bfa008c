#!/bin/bash
# tests/api/test_ibvnoport.sh: on a host without an active RDMA port, an ibv job that
# needs the network fails at once with a clear message, and does not hang.
#   test_ibvnoport.sh GASNETRUN_IBV PROG      (PROG: test_am built for ibv)
# Checks, with 2 ranks and PSHM off (GASNET_SUPERNODE_MAXSIZE=1, so the ranks need the
# network): a non-zero status within 30 s; stderr says "ibv-conduit: no active port" and
# names this host; no process of the job is left. And with PSHM on (both ranks
# neighbors, no network needed) the same program passes on the same host.
# A host that has an active port is a skip (77). Prints one line per check; exits 0 when
# all pass. Layer: tests (driver).
set -u
[ $# -eq 2 ] || { echo "usage: test_ibvnoport.sh GASNETRUN_IBV PROG" >&2; exit 2; }
LAUNCHER=$1 PROG=$2
if grep -qsi active /sys/class/infiniband/*/ports/*/state; then
    echo "test_ibvnoport.sh: SKIP: this host has an active RDMA port ($(ls /sys/class/infiniband | tr '\n' ' '))"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-ibvnoport.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
fails=0
bad() { echo "test_ibvnoport.sh: FAIL: $*"; fails=$((fails + 1)); }

t0=$(date +%s)
setsid env GASNET_SUPERNODE_MAXSIZE=1 timeout -k 5 60 "$LAUNCHER" -n 2 "$PROG" > "$tmp/out" 2> "$tmp/err" < /dev/null &
pid=$!
wait "$pid"
st=$?
secs=$(($(date +%s) - t0))
sleep 0.5
left=$(ps -e -o pid=,pgid= | awk -v g="$pid" '$2 == g { print $1 }')
if [ "$st" -eq 0 ]; then bad "the job without a device ended with status 0"
elif [ "$st" -eq 124 ] || [ "$secs" -gt 30 ]; then bad "the job without a device took $secs s (status $st): a hang"
elif ! grep -q "ibv-conduit: no active port" "$tmp/err"; then bad "stderr does not say 'ibv-conduit: no active port':"; cat "$tmp/err"
elif ! grep -q "host $(hostname)\|host $(uname -n)" "$tmp/err"; then bad "stderr does not name the host:"; cat "$tmp/err"
elif [ -n "$left" ]; then bad "processes left: $left"; kill -KILL $left 2>/dev/null
else echo "test_ibvnoport.sh: PASS: no device, PSHM off: status $st after $secs s: $(grep -m1 'no active port' "$tmp/err")"
fi

timeout -k 5 60 "$LAUNCHER" -n 2 "$PROG" > "$tmp/out2" 2> "$tmp/err2" < /dev/null
st=$?
if [ "$st" -ne 0 ] || ! grep -q PASS "$tmp/out2" "$tmp/err2"; then bad "PSHM on (no network needed): status $st"; cat "$tmp/out2" "$tmp/err2"
else echo "test_ibvnoport.sh: PASS: no device, both ranks neighbors (PSHM): the job passes"
fi
exit $((fails > 0))
