#!/bin/bash
# tests/api/test_launcher.sh: the shared launcher (amudprun for udp, gasnetrun_ofi for ofi,
# gasnetrun_ucx for ucx:
# other/gasneti_run.c) and self-spawn, from the outside, with tests/api/test_launch (which
# prints what each process was given).
#   test_launcher.sh LAUNCHER PROG FAKE_SSH [CONDUIT]     (CONDUIT: udp (default), ofi or ucx)
# Checks: arguments with spaces, quotes, empty ones and shell characters reach every rank
# unchanged, with -spawn L, S (ssh, here tests/harness/fake-ssh, which starts the command
# in a clean environment) and C (GASNET_CSPAWN_CMD with %R %N %H %C), and when the program
# starts itself (`PROG N args`); the launcher's environment reaches ranks started by S and
# C; -spawn on the command line wins over GASNET_SPAWNFN; gasnet_exit(5) is the job's
# status; -t starts nothing and says what it would, -c and -k are accepted; mistakes (no
# such program, by path or bare name, a file not executable, -np 0 or abc, -c x, an
# unknown spawn function, S without GASNET_SSH_SERVERS) give one clear line and
# a non-zero status; a control connection
# without the job key is refused and counted while the job goes on; datagrams from
# strangers (short, random, large) at the ranks' UDP ports are dropped and counted while
# the job completes; SIGTERM and SIGINT to the launcher end every process within 10 s
# with status 128+signal. udp only: the foreign datagrams. ofi and ucx only: -spawner=ssh
# and GASNET_<C>_SPAWNER=local, GASNET_SSH_SERVERS alone choosing ssh (their mpi and pmi
# spawners: test_ofispawn.sh). udp only: -spawn mpi refused with a message naming it.
# Nothing is left running.
# Layer: tests (driver).
set -u
[ $# -eq 3 ] || [ $# -eq 4 ] || { echo "usage: test_launcher.sh LAUNCHER PROG FAKE_SSH [udp|ofi|ucx]" >&2; exit 2; }
AMUDPRUN=$1 PROG=$2 FAKE_SSH=$3 CONDUIT=${4:-udp}
NAME=test_${CONDUIT}launch
for f in "$AMUDPRUN" "$PROG" "$FAKE_SSH"; do
    [ -x "$f" ] || { echo "FAIL $NAME: not executable: $f"; exit 1; }
done
# the environment of the checks is set here, not inherited
for v in $(compgen -e); do
    case "$v" in GASNET_PSHM_DIR | GASNET_BACKTRACE) ;; GASNET_*|TEST_*) unset "$v" ;; esac
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-launcher.XXXXXX") || exit 2
bgpid=""
cleanup() {
    [ -n "$bgpid" ] && kill -KILL "$bgpid" 2>/dev/null
    local p
    for p in $(pgrep -f -- "$PROG"); do [ "$p" != $$ ] && kill -KILL "$p" 2>/dev/null; done
    rm -rf "$tmp"
}
trap cleanup EXIT
out="$tmp/out" err="$tmp/err"
failed=0
. "$(dirname "$0")/../harness/launchlib.sh" # bad, ok, hexof

ARGS=("two words" "" "it's" 'say "hi"' '$HOME `id`' 'back\slash' '*' $'tab\there' "--" "-np")
FWD='forwarded "value" with $dollar and spaces'

# check_ranks N NAME [TEST_FWD2 expectation per rank: a printf format taking the rank]:
# every rank 0..N-1 printed ARGS, TEST_FWD=FWD and "done"
check_ranks() {
    local n=$1 name=$2 fwd2fmt=${3:-} r i
    for ((r = 0; r < n; r++)); do
        grep -qx "rank $r: argc $((${#ARGS[@]} + 1))" "$out" || { bad "$name: rank $r: wrong argument count"; return 1; }
        for ((i = 0; i < ${#ARGS[@]}; i++)); do
            grep -qx "rank $r: arg$((i + 1)) $(hexof "${ARGS[$i]}")" "$out" ||
                { bad "$name: rank $r: argument $((i + 1)) ('${ARGS[$i]}') changed"; return 1; }
        done
        grep -qx "rank $r: TEST_FWD $(hexof "$FWD")" "$out" || { bad "$name: rank $r: TEST_FWD not forwarded"; return 1; }
        if [ -n "$fwd2fmt" ]; then
            # shellcheck disable=SC2059  # the format is the caller's
            grep -qx "rank $r: TEST_FWD2 $(hexof "$(printf "$fwd2fmt" "$r")")" "$out" ||
                { bad "$name: rank $r: TEST_FWD2 is not $(printf "$fwd2fmt" "$r")"; return 1; }
        fi
        grep -qx "rank $r: done" "$out" || { bad "$name: rank $r did not finish"; return 1; }
    done
    return 0
}

# run: a job in the foreground with a 60 s limit
run() { timeout -k 5 60 "$@" > "$out" 2> "$err" < /dev/null; }

# ---- arguments and environment, each spawn function ----
TEST_FWD=$FWD run "$AMUDPRUN" -np 3 "$PROG" "${ARGS[@]}"
st=$?
if [ $st -ne 0 ]; then bad "spawn L: status $st"; elif check_ranks 3 "spawn L"; then ok "spawn L: arguments and environment"; fi

TEST_FWD=$FWD run "$PROG" 3 "${ARGS[@]}"
st=$?
if [ $st -ne 0 ]; then bad "self-spawn: status $st"; elif check_ranks 3 "self-spawn"; then ok "self-spawn (prog 3 args): arguments and environment"; fi

log="$tmp/ssh.log"
TEST_FWD=$FWD FAKE_SSH_LOG=$log GASNET_SSH_CMD=$FAKE_SSH GASNET_SSH_SERVERS="hostA,hostB" GASNET_MASTERIP=127.0.0.1 \
    run "$AMUDPRUN" -np 3 -spawn S "$PROG" "${ARGS[@]}"
st=$?
if [ $st -ne 0 ]; then bad "spawn S: status $st"
elif check_ranks 3 "spawn S"; then
    # one ssh per host (its agent forks the host's ranks: rank r on host r mod 2)
    if [ "$(sort "$log" | tr '\n' ' ')" != "hostA hostB " ]; then
        bad "spawn S: ssh was asked for hosts '$(tr '\n' ' ' < "$log")', expected hostA hostB (once each)"
    else ok "spawn S (one ssh per host of GASNET_SSH_SERVERS, ranks round robin): arguments and environment"; fi
fi

TEST_FWD=$FWD GASNET_CSPAWN_CMD='env -i PATH=/usr/bin:/bin TEST_FWD2=%R/%N/%H/%% /bin/sh -c %C' \
    GASNET_SPAWNFN=C GASNET_MASTERIP=127.0.0.1 run "$AMUDPRUN" -np 2 "$PROG" "${ARGS[@]}"
st=$?
if [ $st -ne 0 ]; then bad "spawn C: status $st"
elif check_ranks 2 "spawn C" "%d/2/localhost/%%"; then ok "spawn C (GASNET_CSPAWN_CMD with %R %N %H %% %C): arguments and environment"; fi

GASNET_SPAWNFN=C TEST_FWD=$FWD run "$AMUDPRUN" -spawn L -np 2 "$PROG" "${ARGS[@]}"
st=$?
if [ $st -ne 0 ]; then bad "-spawn L over GASNET_SPAWNFN=C: status $st"; elif check_ranks 2 "-spawn L"; then ok "-spawn L wins over GASNET_SPAWNFN=C"; fi

TEST_EXIT_CODE=5 run "$AMUDPRUN" -np 3 "$PROG"
st=$?
[ $st -eq 5 ] && ok "gasnet_exit(5) on one rank: job status 5" || bad "gasnet_exit(5) on one rank: job status $st"

# ---- mistakes: one line, non-zero ----
mistake() { # name expected-text cmd...
    local name=$1 text=$2; shift 2
    run "$@"
    local st=$? lines
    lines=$(grep -c . "$err")
    if [ $st -eq 0 ] || [ $st -ge 124 ] && [ $st -ne 127 ]; then bad "$name: status $st"
    elif [ "$lines" -ne 1 ]; then bad "$name: $lines lines on stderr, expected one"
    elif ! grep -q -- "$text" "$err"; then bad "$name: the message does not say '$text'"
    else ok "$name: status $st: $(cat "$err")"; fi
}
mistake "no such program" "no such program" "$AMUDPRUN" -np 2 "$tmp/no-such-program"
mistake "no such program, bare name" "no such program" "$AMUDPRUN" -np 2 no-such-program-here
: > "$tmp/plain"
mistake "not executable" "not executable" "$AMUDPRUN" -np 2 "$tmp/plain"
mistake "-np 0" "-np 0" "$AMUDPRUN" -np 0 "$PROG"
mistake "-c x" "-c x" "$AMUDPRUN" -np 2 -c x "$PROG"
# the released launchers' options: -t starts nothing, -c and -k are accepted
run "$AMUDPRUN" -t -np 3 -c 2 -k -E TEST_FWD "$PROG" a
st=$?
if [ $st -ne 0 ] || ! grep -q "would start 3 processes of .*test_launch" "$out" || grep -q "^rank" "$out"; then
    bad "-t -np 3 -c 2 -k -E TEST_FWD: status $st: $(cat "$out" "$err")"
else ok "-t: $(cat "$out")"; fi
mistake "-np abc" "-np abc" "$AMUDPRUN" -np abc "$PROG"
mistake "-spawn X" "spawn function 'X'" "$AMUDPRUN" -np 2 -spawn X "$PROG"
mistake "spawn S without servers" "GASNET_SSH_SERVERS" "$AMUDPRUN" -np 2 -spawn S "$PROG"
[ "$CONDUIT" = udp ] && mistake "-spawn mpi" "mpi spawner is not available with this conduit" "$AMUDPRUN" -np 2 -spawn mpi "$PROG"
if [ "$CONDUIT" = ofi ] || [ "$CONDUIT" = ucx ]; then
    SPVAR=GASNET_$(echo "$CONDUIT" | tr a-z A-Z)_SPAWNER
    TEST_FWD=$FWD FAKE_SSH_LOG=$log GASNET_SSH_CMD=$FAKE_SSH GASNET_SSH_SERVERS="hostC hostD" GASNET_MASTERIP=127.0.0.1 \
        run "$AMUDPRUN" -n 2 -spawner=ssh "$PROG" "${ARGS[@]}"
    st=$?
    if [ $st -ne 0 ]; then bad "-spawner=ssh: status $st"; elif check_ranks 2 "-spawner=ssh"; then ok "-spawner=ssh: arguments and environment"; fi
    rm -f "$log"
    TEST_FWD=$FWD FAKE_SSH_LOG=$log GASNET_SSH_CMD=$FAKE_SSH GASNET_SSH_SERVERS="hostE" GASNET_MASTERIP=127.0.0.1 \
        run "$AMUDPRUN" -n 2 "$PROG" "${ARGS[@]}"
    st=$?
    if [ $st -ne 0 ]; then bad "GASNET_SSH_SERVERS alone: status $st"
    elif [ "$(sort -u "$log" 2>/dev/null)" != hostE ]; then bad "GASNET_SSH_SERVERS alone did not start ranks by ssh on hostE"
    elif check_ranks 2 "ssh by default"; then ok "GASNET_SSH_SERVERS alone selects the ssh spawner"; fi
    (export "$SPVAR=local"; TEST_FWD=$FWD GASNET_SSH_SERVERS="hostF" run "$AMUDPRUN" -n 2 "$PROG" "${ARGS[@]}")
    st=$?
    if [ $st -ne 0 ]; then bad "$SPVAR=local: status $st"; elif check_ranks 2 "$SPVAR=local"; then ok "$SPVAR=local wins over a host list"; fi
fi

# ---- a running job: foreign control connections and datagrams ----
# start_job ENV... : the job in the background (its own process group), output in out/err
start_job() {
    : > "$out"; : > "$err" # not the last job's: the background job may open them only later
    setsid env "$@" "$AMUDPRUN" -v -np 2 "$PROG" > "$out" 2> "$err" < /dev/null &
    bgpid=$!
    local i
    for i in $(seq 200); do # up: every rank has printed its arguments
        [ "$(grep -c ': argc' "$out")" -ge 2 ] && return 0
        sleep 0.05
    done
    return 1
}
wait_job() { # seconds: the job's status, or 124 if it is still running then
    local i
    for ((i = 0; i < $1 * 20; i++)); do
        kill -0 "$bgpid" 2>/dev/null || { wait "$bgpid"; local st=$?; bgpid=""; return $st; }
        sleep 0.05
    done
    return 124
}

if ! start_job TEST_HOLD_SECS=3; then bad "held job did not start"
else
    port=$(sed -n 's/.*control port [0-9.]*:\([0-9]*\).*/\1/p' "$err" | head -1)
    if [ -z "$port" ]; then bad "amudprun -v did not print its control port"
    else
        head -c 64 /dev/urandom > "/dev/tcp/127.0.0.1/$port" 2>/dev/null # a stranger's bytes
        printf 'GASNET' > "/dev/tcp/127.0.0.1/$port" 2>/dev/null          # a short one, then closed
        wait_job 30
        st=$?
        if [ $st -ne 0 ]; then bad "foreign control connections: job status $st"
        elif ! grep -q 'refused a control connection' "$err"; then bad "foreign control connections: not reported as refused"
        else ok "foreign control connections refused and counted; job completed: $(grep -m1 'refused' "$err")"; fi
    fi
fi

[ "$CONDUIT" = udp ] && {
# the local UDP ports of a process, from /proc (no ss/netstat needed)
udp_ports() {
    local pid=$1 inodes
    inodes=$(for f in /proc/"$pid"/fd/*; do readlink "$f"; done 2>/dev/null | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p')
    [ -n "$inodes" ] || return 0
    for proc_net in /proc/net/udp /proc/net/udp6; do
        [ -r "$proc_net" ] && awk -v ino=" $(echo $inodes) " 'NR > 1 && index(ino, " " $10 " ") {
            split($2, a, ":"); print a[2] }' "$proc_net"
    done | while read -r hex; do echo $((16#$hex)); done
}
if ! start_job TEST_HOLD_SECS=3 GASNET_SUPERNODE_MAXSIZE=1 GASNET_VERBOSEENV=1; then bad "held job (no PSHM) did not start"
else
    # each rank's socket (a loaded machine may still be opening them when the ranks print)
    for i in $(seq 60); do
        ports=""
        for child in $(pgrep -P "$bgpid"); do ports="$ports $(udp_ports "$child")"; done
        [ "$(echo $ports | wc -w)" -ge 2 ] && break
        sleep 0.05
    done
    if [ -z "${ports// /}" ]; then bad "could not find the ranks' UDP ports"
    else
        for p in $ports; do
            for i in $(seq 20); do
                printf 'x' > "/dev/udp/127.0.0.1/$p"
                head -c 40 /dev/urandom > "/dev/udp/127.0.0.1/$p"
                head -c 1400 /dev/urandom > "/dev/udp/127.0.0.1/$p"
            done 2>/dev/null
        done
        wait_job 30
        st=$?
        counts=$(grep -c 'udp-conduit rank [0-9]*: .*dropped: [0-9]* without the job key, [0-9]* bad header' "$err")
        nonzero=$(grep 'udp-conduit rank' "$err" | grep -Evc 'dropped: 0 without the job key, 0 bad header, 0 bad lengths')
        if [ $st -ne 0 ]; then bad "foreign datagrams: job status $st"
        elif [ "$counts" -ne 2 ]; then bad "foreign datagrams: expected the drop counts of 2 ranks, got $counts"
        elif [ "$nonzero" -ne 2 ]; then bad "foreign datagrams: a rank counted no dropped datagram"
        else ok "foreign datagrams to ports$ports dropped and counted; job completed"; fi
    fi
fi
}

# ---- signals to the launcher ----
for sig in TERM INT; do
    if ! start_job TEST_HOLD_SECS=60; then bad "SIG$sig: job did not start"; continue; fi
    children=$(pgrep -P "$bgpid" | tr '\n' ' ')
    kill -"$sig" "$bgpid"
    wait_job 10
    st=$?
    want=$((128 + $(kill -l "$sig")))
    left=""
    for c in $children; do kill -0 "$c" 2>/dev/null && left="$left $c"; done
    if [ $st -eq 124 ]; then bad "SIG$sig to the launcher: still running after 10 s"
    elif [ -n "$left" ]; then bad "SIG$sig to the launcher: ranks still alive:$left"
    elif [ $st -ne $want ]; then bad "SIG$sig to the launcher: status $st, expected $want"
    else ok "SIG$sig to the launcher: every process ended, status $st"; fi
    [ -n "$bgpid" ] && { kill -KILL -- "-$bgpid" 2>/dev/null; wait "$bgpid" 2>/dev/null; bgpid=""; }
done

if [ $failed -ne 0 ]; then exit 1; fi
echo "PASS $NAME"
