#!/bin/bash
# tests/perf/ibvlab-bench.sh: ibv-conduit's figures beside raw verbs figures, both on
# soft-RoCE (rxe0) in the verbs lab guest (tests/harness/verbs-lab.sh), in one boot.
#   ibvlab-bench.sh BUILDDIR [LABDIR]      (LABDIR: default BUILDDIR/verbs-lab)
# Raw verbs: perftest's ib_send_lat, ib_write_lat, ib_read_lat (2-byte latencies, one way)
# and ib_write_bw (1 MiB), and ibv_rc_pingpong (8 bytes, round trip), when installed
# (Debian: perftest, ibverbs-utils); each server and client in the guest, over its
# loopback. ibv-conduit: tests/perf/bench_ibv_seq (bench_ofi.c's figures: AM round trip,
# 8-byte put and get, 1 MiB put bandwidth, Longs, fetch-and-add) through gasnetrun_ibv -n 2,
# no PSHM. Under qemu's emulation (about 10x slower than the host's CPU) the figures say
# how the two compare, not what hardware does. Not part of make bench or the tests.
# Layer: tests (perf).
set -u
if [ "${1:-}" != --guest ]; then
    [ $# -ge 1 ] || { echo "usage: ibvlab-bench.sh BUILDDIR [LABDIR]" >&2; exit 2; }
    B=$(cd "$1" && pwd) || exit 2
    LAB=${2:-$B/verbs-lab}
    here=$(cd "$(dirname "$0")" && pwd)
    [ -x "$B/tests/perf/bench_ibv_seq" ] || { echo "build it first: make -C $B tests/perf/bench_ibv_seq ibv-conduit/gasnetrun_ibv" >&2; exit 2; }
    bash "$here/../harness/verbs-lab.sh" prepare "$LAB" || exit $?
    exec bash "$here/../harness/verbs-lab.sh" run "$LAB" /bin/bash "$here/$(basename "$0")" --guest "$B"
fi
B=$2
gid=$(for f in /sys/class/infiniband/rxe0/ports/1/gids/*; do
    i=${f##*/}
    case "$(cat "$f")" in 0000:0000:0000:0000:0000:ffff:*) t=$(cat /sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$i 2>/dev/null)
        [ "$t" = "RoCE v2" ] && { echo "$i"; break; } ;; esac
done)
echo "# guest uptime at start $(cut -d' ' -f1 /proc/uptime) s; rxe0 GID index ${gid:-?}"
pair() { # the server in the background, the client after it: the client's output
    "$@" > /run/srv.out 2>&1 &
    local s=$!
    sleep 1
    "$@" 127.0.0.1 2>&1
    wait $s
}
if command -v ib_send_lat >/dev/null; then
    for t in ib_send_lat ib_write_lat ib_read_lat; do
        echo "## $t -d rxe0 -x $gid -s 8 -n 2000"
        pair $t -d rxe0 -x "$gid" -s 8 -n 2000 | grep -A1 "t_min\|#bytes" | tail -n 2
    done
    echo "## ib_write_bw -d rxe0 -x $gid -s 1048576 -n 200"
    pair ib_write_bw -d rxe0 -x "$gid" -s 1048576 -n 200 | grep -A1 "#bytes" | tail -n 2
else
    echo "# perftest not installed (Debian: perftest)"
fi
if command -v ibv_rc_pingpong >/dev/null; then
    echo "## ibv_rc_pingpong -d rxe0 -g $gid -s 8 -n 5000"
    pair ibv_rc_pingpong -d rxe0 -g "$gid" -s 8 -n 5000 | grep "iters\|usec"
fi
echo "## bench_ibv_seq (gasnetrun_ibv -n 2, GASNET_SUPERNODE_MAXSIZE=1)"
GASNET_SUPERNODE_MAXSIZE=1 "$B/ibv-conduit/gasnetrun_ibv" -n 2 "$B/tests/perf/bench_ibv_seq" 2>&1
