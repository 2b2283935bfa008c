#!/bin/bash
# tests/api/test_ibvlab.sh: ibv-conduit on a real verbs stack: soft-RoCE (rxe0) in the
# qemu guest that tests/harness/verbs-lab.sh boots (this host has no RDMA device). One
# boot runs a whole set of jobs.
# Usage: test_ibvlab.sh SET GASNET_RUN LABSH LABDIR API
#   SET: short (the default tier's, under a minute of jobs: seq, 2 processes, PSHM off:
#   AMs of every kind, big Mediums read over lazily made connections, RMA into created
#   segments, the memory-lock limit) or full (the
#   suite over the network with 2 processes, seq; 4 processes and par for the parts that
#   differ; atomics by the HCA and by AMs; mixed neighborhoods (2 + 2); PSHM on; lazy
#   connection; RMA by AMs; exits and kill -9);
#   LABSH: tests/harness/verbs-lab.sh; LABDIR: where it prepares the guest (kept between
#   runs); API: the directory of the test programs (both modes built for full).
# Host side: prepares the lab (exit 77, a skip naming why, when it cannot be made here),
# runs this script in the guest (--guest), and says how long the guest took to start and
# the whole run. In the guest, every job runs through GASNET_RUN (gasnetrun_ibv) and must
# pass; some also check what GASNET_VERBOSEENV reports (the device, native RMA, big
# Mediums read, Longs written, which atomic domains the HCA served).
# Prints one line per job and "N passed, N failed"; exits 0 when all pass, 1 otherwise.
# Layer: tests (driver).
set -u
if [ "${1:-}" != --guest ]; then
    [ $# -eq 5 ] || { echo "usage: test_ibvlab.sh short|full GASNET_RUN LABSH LABDIR API" >&2; exit 2; }
    SET=$1 RUN=$2 LABSH=$3 LABDIR=$4 API=$5
    case "$SET" in short | full) ;; *) echo "test_ibvlab.sh: SET is short or full, not $SET" >&2; exit 2 ;; esac
    bash "$LABSH" prepare "$LABDIR" > "$LABDIR.prepare.log" 2>&1
    st=$?
    if [ "$st" -ne 0 ]; then
        echo "test_ibvlab.sh: SKIP (st $st) or failure preparing the verbs lab: $(tail -n 1 "$LABDIR.prepare.log")"
        exit "$st"
    fi
    self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0") # the guest sees this host's files at the same paths
    t0=${EPOCHREALTIME/./}
    VERBS_LAB_TIMEOUT=$([ "$SET" = full ] && echo 5400 || echo 900) \
        bash "$LABSH" run "$LABDIR" /bin/bash "$self" --guest "$SET" "$RUN" "$API"
    st=$?
    us=$((${EPOCHREALTIME/./} - t0))
    echo "test_ibvlab.sh: the $SET set took $((us / 1000000)).$((us / 100000 % 10)) s with the guest's start and shut-down (status $st)"
    exit "$st"
fi

SET=$2 RUN=$3 API=$4
SAPI=$(cd "$(dirname "$0")" && pwd)
echo "test_ibvlab.sh: the guest is up (uptime $(cut -d' ' -f1 /proc/uptime) s, rxe0 ready): the $SET set"
passed=0 failed=0
T=400 # seconds per job: the guest's CPU is emulated (about 10x slower)

# verdict LABEL STATUS OUTPUT [WHY]: one line; the output's tail on failure
verdict() {
    local label=$1 st=$2 out=$3 why=${4:-}
    [ -z "$why" ] && [ "$st" -ne 0 ] && why="status $st"
    if [ -z "$why" ]; then
        passed=$((passed + 1))
        echo "test_ibvlab.sh: PASS $label ($secs s)"
    else
        failed=$((failed + 1))
        echo "test_ibvlab.sh: FAIL $label ($secs s): $why"
        echo "$out" | grep -v "^ENV parameter" | tail -n 25
    fi
}

# job LABEL MODE N PROG [VAR=VALUE...] [-- ARGS]: PROG built for ibv and MODE must pass;
# with GASNET_VERBOSEENV=1 its report is in $out for the caller's checks (want)
out=""
job() {
    local label=$1 m=$2 n=$3 prog=$4
    shift 4
    local envs=() args=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
    [ "${1:-}" = -- ] && shift && args=("$@")
    local start=$(date +%s)
    out=$(env GASNET_VERBOSEENV=1 "${envs[@]}" "$RUN" -c ibv -n "$n" -t $T "$API/$prog-ibv-$m" "${args[@]}" 2>&1)
    local st=$?
    secs=$(($(date +%s) - start))
    local why=""
    if [ "$st" -eq 0 ] && ! echo "$out" | grep -q "PASS"; then why="no PASS line"; fi
    jst=$st jwhy=$why jlabel="$label [$m, $n ranks]"
}
done_job() { verdict "$jlabel" "$jst" "$out" "$jwhy"; }
# want REGEX TEXT: the job's report must have a line matching REGEX (else its failure names TEXT)
want() { [ -n "$jwhy" ] || [ "$jst" -ne 0 ] || echo "$out" | grep -Eq "$1" || jwhy="$2"; }
# drive LABEL [VAR=VALUE...] SCRIPT ARGS...: a driver of tests/api (its own checks)
drive() {
    local label=$1
    shift
    local envs=()
    while [[ "$1" == *=* ]]; do envs+=("$1"); shift; done
    local script=$1
    shift
    local start=$(date +%s)
    out=$(env "${envs[@]}" bash "$SAPI/$script" "$@" 2>&1)
    local st=$?
    secs=$(($(date +%s) - start))
    verdict "$label" "$st" "$out"
}

nopshm() { # MODE N PROG [extra VAR=VALUE...]: over the network only, checked
    local m=$1 n=$2 p=$3
    shift 3
    job "$p-nopshm" "$m" "$n" "$p" GASNET_SUPERNODE_MAXSIZE=1 "$@"
    want "^ibv-conduit: device rxe0 port 1 .*RoCE" "the report does not name rxe0 (RoCE)"
    case "$p" in
        test_rma | test_segrma | test_rmaval)
            want "native RMA: [1-9][0-9]* put\\(s\\) by RDMA WRITE.*[1-9][0-9]* get\\(s\\) by RDMA READ" "no native RMA reported" ;;
        test_medium) want "big Mediums: ([1-9][0-9]* sent|[0-9]+ sent, [1-9][0-9]* read)" "no big Medium sent or read" ;;
        test_am) want "[1-9][0-9]* Long\\(s\\) by RDMA WRITE" "no Long by RDMA WRITE" ;;
    esac
    done_job
}

if [ "$SET" = short ]; then
    # about a minute of jobs: every path of the conduit once, 2 ranks (4 ranks on the
    # guest's 2 emulated CPUs take minutes)
    for p in test_amcount test_segrma; do nopshm seq 2 $p; done
    job test_medium-lazy seq 2 test_medium GASNET_SUPERNODE_MAXSIZE=1 GASNET_IBV_CONNECT_LAZY=0
    want "lazy \\(on first contact\\)" "the report does not say the connections were lazy"
    want "big Mediums: ([1-9][0-9]* sent|[0-9]+ sent, [1-9][0-9]* read)" "no big Medium sent or read"
    done_job
else
    all="test_am test_prepare test_immediate test_threads test_medium test_rma test_events test_rmaval test_segflags test_barrier test_legacy test_amcount test_coll test_multiep test_segrma test_vis test_coll1"
    for p in $all; do nopshm seq 2 $p; done
    for p in test_am test_coll test_multiep test_barrier test_amcount; do nopshm seq 4 $p; done
    for p in test_threads test_am test_medium test_rma test_amcount test_coll; do nopshm par 2 $p; done
    for p in test_threads test_coll; do nopshm par 4 $p; done
    for m in seq par; do
        drive "test_ratomic-nopshm [$m, 2 ranks]" GASNET_SUPERNODE_MAXSIZE=1 \
            test_ratomic.sh "$RUN" ibv 2 "$API/test_ratomic-ibv-$m" some
    done
    drive "test_ratomic-nopshm [seq, 4 ranks]" GASNET_SUPERNODE_MAXSIZE=1 test_ratomic.sh "$RUN" ibv 4 "$API/test_ratomic-ibv-seq" some
    drive "test_ratomic-nopshm-amamo [seq, 2 ranks]" GASNET_SUPERNODE_MAXSIZE=1 GASNET_IBV_ATOMICS=0 \
        test_ratomic.sh "$RUN" ibv 2 "$API/test_ratomic-ibv-seq" cpu
    for p in test_am test_medium test_coll test_ratomic test_events; do # two neighborhoods of 2
        job "$p-mixed" seq 4 $p GASNET_SUPERNODE_MAXSIZE=2
        done_job
    done
    for p in test_am test_rma; do # PSHM on: every rank a neighbor, no network
        job "$p" seq 2 $p
        done_job
    done
    for p in test_barrier test_coll test_amcount; do
        job "$p-lazy" seq 4 $p GASNET_SUPERNODE_MAXSIZE=1 GASNET_IBV_CONNECT_LAZY=0
        want "lazy \\(on first contact\\)" "the report does not say the connections were lazy"
        done_job
    done
    for p in test_segrma test_rmaval test_amcount; do
        job "$p-amrma" seq 2 $p GASNET_SUPERNODE_MAXSIZE=1 GASNET_IBV_RMA=0
        done_job
    done
    # (not exit7 and straggler: their limits, 5 s and 1.5 s from gasnet_exit to the
    # job's end, are a native machine's; the guest took 5.7 s and 2.0 s)
    for e in kill return0 sigterm; do
        drive "test_exit-$e-nopshm [seq, 2 ranks]" GASNET_SUPERNODE_MAXSIZE=1 test_exit.sh "$RUN" ibv 2 "$API/test_exit-ibv-seq" $e
    done
    drive "test_exit-kill-nopshm [seq, 4 ranks]" GASNET_SUPERNODE_MAXSIZE=1 test_exit.sh "$RUN" ibv 4 "$API/test_exit-ibv-seq" kill
    drive "test_exit-kill-nopshm [par, 2 ranks]" GASNET_SUPERNODE_MAXSIZE=1 test_exit.sh "$RUN" ibv 2 "$API/test_exit-ibv-par" kill
fi
# the locked-memory limit too small (no CAP_IPC_LOCK, ulimit -l 64): a message that says
# what to raise, at once
start=$(date +%s)
out=$(GASNET_SUPERNODE_MAXSIZE=1 setpriv --inh-caps=-ipc_lock --ambient-caps=-ipc_lock --bounding-set=-ipc_lock \
    /bin/bash -c 'ulimit -l 64 && exec "$@"' sh "$RUN" -c ibv -n 2 -t 60 "$API/test_am-ibv-seq" 2>&1)
st=$?
secs=$(($(date +%s) - start))
why=""
if [ "$st" -eq 0 ]; then why="the job passed with ulimit -l 64"
elif [ "$st" -eq 124 ]; then why="it hung"
elif ! echo "$out" | grep -q "too small (ulimit -l: 64 KiB)\\. Raise it"; then why="no message saying what to raise"
fi
st=0
verdict "ulimit -l 64: $(echo "$out" | grep -m1 -o 'ibv_reg_mr of [^:]*: the memory this process may lock is too small (ulimit -l: 64 KiB)')" "$st" "$out" "$why"

echo "$passed passed, $failed failed"
exit $((failed > 0))
