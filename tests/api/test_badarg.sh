#!/bin/bash
# tests/api/test_badarg.sh: bad arguments and bad launches.
#   test_badarg.sh debug  GASNET_RUN CONDUIT PROG GASNET_CONFIG_H
#       (needs a library configured --enable-debug, else exits 77 = skip)
#       each misuse of tests/api/test_badarg must end the job non-zero with a message on
#       stderr naming the call and the bad value.
#   test_badarg.sh always GASNET_RUN CONDUIT PROG GASNET_CONFIG_H
#       (every build) GASNET_PSHM_NODES=0 and GASNET_MAX_SEGSIZE=100000GB must fail with a
#       one-line error and a non-zero status, leaving nothing in /dev/shm; an AM to a
#       handler index nobody registered (to a neighbor, and over the network with PSHM
#       off) ends the job non-zero with a message naming the index (the GASNet-1 spec
#       makes this fatal in every build); so do a rank one past the team's last given to
#       an AM, a Prepare, a put, a get, a value put, a VIS call, an atomic and GASNet-1's
#       gasnet_put (the message must say "rank 2 is out of range (team size 2)"; with
#       GASNET_BACKTRACE=1 the backtrace by addr2line names main), an
#       oversize Medium, a Commit beyond its Prepare, a least_payload above the maximum,
#       more than 16 handler arguments and a Cancel of another kind than its Prepare.
# Layer: tests (driver).
set -u
[ $# -eq 5 ] || { echo "usage: test_badarg.sh debug|always GASNET_RUN CONDUIT PROG GASNET_CONFIG_H" >&2; exit 2; }
GROUP=$1 RUN=$2 CONDUIT=$3 PROG=$4 CONFIG_H=$5

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-badarg.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
out="$tmp/out" err="$tmp/err"
failed=0

show() { echo "--- stdout:"; cat "$out"; echo "--- stderr:"; cat "$err"; }
bad() { echo "FAIL test_badarg $GROUP $*"; show; failed=1; }

# hex digits of a pointer, lowercase, without 0x and leading zeros
hexdigits() { echo "$1" | tr 'A-F' 'a-f' | sed -e 's/^0x//' -e 's/^0*//'; }
# does stderr show value $1? (the numbered call name, gex_AM_RequestShort5 say, does not count)
mentions_value() {
    local v=$1 call=${2:-}
    [ -z "$v" ] && return 0
    local text
    if [ -n "$call" ]; then text=$(sed "s/$call[0-9]*//g" "$err"); else text=$(cat "$err"); fi
    case "$v" in
        0x*|0X*) grep -qi -- "$(hexdigits "$v")" <<< "$text" ;;
        *) grep -Eq -- "(^|[^0-9])$v([^0-9]|\$)" <<< "$text" ;;
    esac
}

# gasnet_shm_list, gasnet_shm_leaks
. "$(dirname "$RUN")/shm.sh"

run_job() { # N ARGS... (extra environment comes from the caller)
    local n=$1; shift
    "$RUN" -c "$CONDUIT" -n "$n" -t 60 "$PROG" "$@" > "$out" 2> "$err"
}

[ -r "$CONFIG_H" ] || { echo "test_badarg.sh: cannot read $CONFIG_H" >&2; exit 2; }

# one misuse mode of the program: MODE:CALL; the job must end non-zero (not hang) with a
# message naming CALL and the value the program printed as BADVALUE=
check_misuse() {
    local mode=${1%%:*} call=${1#*:} st value
    run_job 2 "$mode"
    st=$?
    value=$(sed -n 's/^BADVALUE=//p' "$out" | head -1)
    if ! grep -q '^BADVALUE=' "$out"; then bad "$mode: the program did not reach the misuse (status $st)"; return 1; fi
    if [ "$st" -eq 0 ]; then bad "$mode: not detected (status 0)"; return 1; fi
    if [ "$st" -eq 124 ] || [ "$st" -eq 125 ]; then bad "$mode: the job hung or left processes (status $st)"; return 1; fi
    grep -q -- "$call" "$err" || { bad "$mode: stderr does not name $call"; return 1; }
    mentions_value "$value" "$call" || { bad "$mode: stderr does not show the bad value $value"; return 1; }
    echo "ok   $mode: status $st, message names $call${value:+ and $value}"
}

case "$GROUP" in
debug)
    if ! grep -Eq '^[[:space:]]*#[[:space:]]*define[[:space:]]+GASNET_DEBUG[[:space:]]+1' "$CONFIG_H"; then
        echo "SKIP test_badarg debug: library not configured with --enable-debug ($CONFIG_H)"
        exit 77
    fi
    run_job 2 ok
    st=$?
    [ "$st" -eq 0 ] || bad "ok: correct use failed with status $st"
    for spec in rank:gex_AM_RequestShort segment:gex_RMA_PutBlocking handler:gex_AM_RequestShort \
                nargs:gex_AM_RequestShort category:gex_AM_RequestMedium medium-size:gex_AM_RequestMedium \
                reply2:gex_AM_ReplyShort in-handler:gex_RMA_PutBlocking in-handler-get:gex_RMA_GetBlocking \
                segflags-excl:gex_RMA_PutBlocking segflags-offset:gex_RMA_PutBlocking \
                val-size:gex_RMA_PutBlockingVal region-nested:gex_NBI_BeginAccessRegion \
                region-end:gex_NBI_EndAccessRegion region-nbi:gex_NBI_Wait leaf-all:gex_Event_QueryLeaf \
                event-in-handler:gex_Event_Wait prepare-nested:gex_AM_PrepareRequestMedium \
                prepare-between:gex_RMA_PutBlocking srcdesc-noop:gex_AM_SrcDescAddr reply-hsl:gex_AM_ReplyShort \
                vis-length:gex_VIS_VectorPutBlocking vis-segment:gex_VIS_StridedPutBlocking \
                ad-op:gex_AD_OpNB coll1-flags:gasnet_coll_broadcast coll1-segment:gasnet_coll_gather_all \
                peer-never-self:GEX_FLAG_PEER_NEVER_SELF query-in-handler:gex_EP_QueryBoundSegmentNB; do
        check_misuse "$spec"
    done
    ;;
always)
    before="$tmp/shm.before"
    gasnet_shm_list > "$before"
    run_job 2 ok
    st=$?
    [ "$st" -eq 0 ] || bad "ok: a correct 2-rank job failed with status $st"

    check_launch_error() { # name variable one_line(1|0) status
        local name=$1 var=$2 exact=$3 st=$4
        local lines
        lines=$(grep -c . "$err")
        if [ "$st" -eq 0 ]; then bad "$name: accepted (status 0)"; return; fi
        if [ "$st" -eq 124 ] || [ "$st" -eq 125 ]; then bad "$name: the job hung or left processes (status $st)"; return; fi
        if [ "$lines" -eq 0 ]; then bad "$name: no error message"; return; fi
        if [ "$exact" = 1 ] && [ "$lines" -ne 1 ]; then bad "$name: $lines lines on stderr, expected a one-line error"; return; fi
        grep -q -- "$var" "$err" || { bad "$name: the message does not name $var"; return; }
        echo "ok   $name: status $st: $(head -1 "$err")"
    }
    # a job of 0 processes: smp's job size is GASNET_PSHM_NODES, udp's the launcher's -np
    case "$CONDUIT" in
        udp) zero_var=-np ;;
        mpi) zero_var=-n ;;
        ofi | ucx | ibv) zero_var=-np ;;
        *) zero_var=GASNET_PSHM_NODES ;;
    esac
    # mpi: mpirun ends the ranks that did not report the error with SIGTERM, and each says
    # so in a line of its own (a rank cannot tell mpirun's SIGTERM from a user's)
    many_one_line=1
    [ "$CONDUIT" = mpi ] && many_one_line=0
    run_job 0 ok
    check_launch_error "job size 0" "$zero_var" 1 $?
    GASNET_PSHM_LANES_MAX=-1 run_job 2 ok
    check_launch_error "GASNET_PSHM_LANES_MAX=-1, 2 ranks" GASNET_PSHM_LANES_MAX $many_one_line $?
    GASNET_MAX_SEGSIZE=100000GB run_job 1 bigseg
    check_launch_error "GASNET_MAX_SEGSIZE=100000GB, 1 rank" GASNET_MAX_SEGSIZE 1 $?
    GASNET_MAX_SEGSIZE=100000GB run_job 2 bigseg
    check_launch_error "GASNET_MAX_SEGSIZE=100000GB, 2 ranks" GASNET_MAX_SEGSIZE 0 $?
    # an AM to a handler nobody registered, to a neighbor and (network conduits) over the
    # network: fatal either way (udp used to drop it over the network, and the job ended 0)
    for how in pshm nopshm; do
        [ "$how" = nopshm ] && [ "$CONDUIT" = smp ] && continue
        # (ibv over the network needs an active RDMA port: tests/api/test_ibvlab.sh's guest)
        [ "$how" = nopshm ] && [ "$CONDUIT" = ibv ] && ! grep -qsi active /sys/class/infiniband/*/ports/*/state && continue
        if [ "$how" = nopshm ]; then GASNET_SUPERNODE_MAXSIZE=1 run_job 2 handler; else run_job 2 handler; fi
        st=$?
        if [ "$st" -eq 0 ] || [ "$st" -eq 124 ] || [ "$st" -eq 125 ]; then
            bad "handler ($how): an AM to unregistered handler 201 gave status $st"
        elif ! mentions_value 201; then
            bad "handler ($how): the message does not name handler index 201"
        else
            echo "ok   handler ($how): status $st: $(grep -m1 201 "$err")"
        fi
    done
    # ranks are checked in every build: rank == team size (2) used to reach rank 0
    for spec in rank-am:gex_AM_RequestMedium rank-prepare:gex_AM_PrepareRequestMedium \
                rank-put:gex_RMA_PutNBI rank-get:gex_RMA_GetNB rank-val:gex_RMA_PutBlockingVal \
                rank-vis:gex_VIS_VectorPutBlocking rank-ad:gex_AD_Op rank-legacy:gex_RMA_PutBlocking; do
        check_misuse "$spec" && { grep -q "rank 2 is out of range (team size 2)" "$err" ||
            bad "${spec%%:*}: stderr does not say 'rank 2 is out of range (team size 2)'"; }
    done
    # a named backtrace on every conduit (the default method, gdb, is test_diag's)
    GASNET_BACKTRACE=1 GASNET_BACKTRACE_TYPE=ADDR2LINE run_job 2 rank-am
    st=$?
    if [ "$st" -eq 0 ] || ! grep -q '^\*\*\* backtrace of rank 0 (pid [0-9]*), by addr2line' "$err"; then
        bad "GASNET_BACKTRACE=1: no backtrace by addr2line after the fatal error (status $st)"
    elif ! grep -Eq '^#[0-9]+ +main at |^    inlined in main at ' "$err"; then
        bad "GASNET_BACKTRACE=1: no frame names main"
    else
        echo "ok   GASNET_BACKTRACE=1 (ADDR2LINE): status $st, $(grep -c '^#[0-9]' "$err") named frames, main among them"
    fi
    # a client name: any non-empty one (the tests' own is lower-case), not NULL or ""
    for spec in client-null:gex_Client_Init client-empty:gex_Client_Init; do check_misuse "$spec"; done
    # lengths (and the kind of a Cancel) are checked in every build
    for spec in medium-size:gex_AM_RequestMedium commit-size:gex_AM_CommitRequestMedium \
                prepare-least:gex_AM_PrepareRequestMedium nargs-300:gex_AM_RequestShort \
                cancel-kind:gex_AM_CancelRequestLong; do
        check_misuse "$spec"
    done
    # so is the root image of a GASNet-1 collective
    check_misuse coll1-image:gasnet_coll_scatter
    leaks=$(gasnet_shm_leaks "$before") || bad "shared-memory objects left behind:$leaks"
    ;;
*)
    echo "test_badarg.sh: unknown group $GROUP" >&2; exit 2 ;;
esac

if [ "$failed" -ne 0 ]; then exit 1; fi
echo "PASS test_badarg $GROUP"
exit 0
