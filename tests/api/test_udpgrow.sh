#!/bin/bash
# tests/api/test_udpgrow.sh: udp-conduit's send windows are made as traffic needs them and
# grow under load (issue 43, udp_am.c: a channel takes a window of 4 slots from a free list
# when it sends with nothing in flight, and a window doubles, up to 64, when more are in
# flight). Runs PROG (test_stress: every rank floods every other with AMs of every
# category while putting and getting; every payload checked) with PSHM off and
# GASNET_VERBOSEENV=1, and checks, besides its PASS, rank 0's exit line "udp-conduit rank
# 0: ... W send windows made (at most U in use at once; grown G times)": some window grew
# (G > 0), and no more were made than two per peer (W <= 2 (N - 1)).
# Usage: test_udpgrow.sh GASNET_RUN N PROG. Prints one line; exits 0 on success, 1 on
# failure (with the job's output). Layer: tests (driver).
set -u
[ $# -eq 3 ] || { echo "usage: test_udpgrow.sh GASNET_RUN N PROG" >&2; exit 2; }
RUN=$1 N=$2 PROG=$3
out=$(env GASNET_SUPERNODE_MAXSIZE=1 GASNET_VERBOSEENV=1 "$RUN" -c udp -n "$N" -t 300 "$PROG" 2>&1)
rc=$?
line=$(echo "$out" | grep '^udp-conduit rank 0: .* send windows made' | tail -n 1)
read -r W U G < <(echo "$line" | sed -n 's/.* \([0-9]*\) send windows made (at most \([0-9]*\) in use at once; grown \([0-9]*\) times).*/\1 \2 \3/p')
if [ $rc -ne 0 ] || [[ "$out" != *PASS* ]] || [ -z "${G:-}" ] || [ "$G" -le 0 ] || [ "$W" -gt $((2 * (N - 1))) ]; then
    echo "test_udpgrow.sh: FAIL: the job failed (status $rc) or said no PASS, or rank 0's send windows never grew" \
         "(G > 0) or were more than two per peer (W <= $((2 * (N - 1)))): ${line:-no report}"
    echo "$out"
    exit 1
fi
echo "test_udpgrow.sh: PASS ($N processes: rank 0 made $W send windows, at most $U in use at once, grown $G times)"
