#!/bin/bash
# test_shmspace.sh: shared memory that is short of space. Mounts a 4 MiB tmpfs as
# GASNET_PSHM_DIR (needs root; skipped with 77 otherwise) and checks that
#  - the AM queues' need is checked up front: one-line error naming the variables to change;
#  - with fewer queue slots the job runs, the reported maximum segment fits the space,
#    and a segment of that size carries data (file-backed mapping);
#  - a larger request is refused with the limit and its cause;
#  - nothing is left in the directory.
#   test_shmspace.sh RUN PROG   (RUN: the harness's gasnet-run)
# Layer: tests (api).
set -u
RUN=$1 PROG=$2
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root to mount a small tmpfs"; exit 77; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-shmspace.XXXXXX") || exit 1
mount -t tmpfs -o size=4m tmpfs "$dir" 2>/dev/null || { rmdir "$dir"; echo "SKIP: cannot mount tmpfs"; exit 77; }
out=$(mktemp) err=$(mktemp)
cleanup() { umount "$dir" 2>/dev/null; rmdir "$dir" 2>/dev/null; rm -f "$out" "$err"; }
trap cleanup EXIT
fail() { echo "FAIL test_shmspace: $*"; echo "--- stdout:"; cat "$out"; echo "--- stderr:"; cat "$err"; exit 1; }
export GASNET_PSHM_DIR="$dir"

# 1. default queue depth: 2 x 4 MiB of queues do not fit in 4 MiB
GASNET_PSHM_NETWORK_DEPTH=32 "$RUN" -c smp -n 2 -t 30 "$PROG" 0 >"$out" 2>"$err"
st=$?
[ "$st" -ne 0 ] || fail "the job ran although its AM queues cannot fit"
[ "$st" -ne 124 ] || fail "the job hung instead of refusing"
grep -q "GASNET_PSHM_NETWORK_DEPTH" "$err" && grep -q "$dir" "$err" || fail "the error does not say what to change"
[ "$(grep -c . "$err")" -eq 1 ] || fail "expected a one-line error"
echo "ok   queues too big: refused with: $(cat "$err")"

# 2. fewer slots: runs, and the maximum segment is usable
GASNET_PSHM_NETWORK_DEPTH=4 "$RUN" -c smp -n 2 -t 60 "$PROG" 0 >"$out" 2>"$err" || fail "job with 4 queue slots failed"
max=$(sed -n 's/^MAXLOCAL=//p' "$out")
[ -n "$max" ] && [ "$max" -gt 0 ] && [ "$max" -le 2097152 ] || fail "maximum segment $max does not fit 4 MiB for 2 processes"
[ "$(grep -c ' ok$' "$out")" -eq 2 ] || fail "not every rank checked its segment"
echo "ok   segments of the maximum size ($max bytes) in a file-backed directory carry data"

# 3. more than the maximum: refused, naming the limit and why
GASNET_PSHM_NETWORK_DEPTH=4 "$RUN" -c smp -n 2 -t 30 "$PROG" $((max * 2)) >"$out" 2>"$err"
[ $? -ne 0 ] || fail "an oversize segment was accepted"
grep -q "exceeds gasnet_getMaxLocalSegmentSize() = $max, limited by free space in $dir" "$err" ||
    fail "the refusal does not name the limit and its cause"
echo "ok   oversize segment refused: $(head -1 "$err")"

# 4. nothing left behind
[ -z "$(ls -A "$dir")" ] || fail "files left in $dir: $(ls -A "$dir")"
echo "ok   nothing left in $dir"
