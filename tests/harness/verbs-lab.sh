#!/bin/bash
# tests/harness/verbs-lab.sh: a real verbs stack without RDMA hardware, for testing
# ofi-conduit on a provider that requires local registration (FI_MR_LOCAL): Debian's own
# kernel, whose rdma_rxe module is soft-RoCE, booted under qemu in software emulation (no
# KVM needed), from a small initramfs (static busybox and the kernel modules) that brings
# up rxe0 on a dummy interface and then runs a script chrooted into this host's root,
# shared read-only over 9p: the build tree, libfabric and rdma-core are the host's own.
#
#   verbs-lab.sh prepare DIR        once: install what is missing (apt, as root), fetch
#                                   and unpack the kernel package, build DIR/initramfs
#   verbs-lab.sh run DIR CMD [ARG]  boot, run CMD ARG... in the host's root (cwd /run, a
#                                   tmpfs; TMPDIR=/run); exit status: CMD's, 1 if the
#                                   guest never reported one
#   verbs-lab.sh run2 DIR CMD [ARG] two guests linked by a virtual Ethernet cable, each
#                                   with rxe0 on it; both run CMD (see run2 below)
#
# Exit status 77 from either: the lab cannot be made on this machine (no apt archive, no
# kernel package, not root), which callers report as a skip naming the reason. Timings
# inside are those of an emulated CPU (about 10x slower): correctness only.
set -euo pipefail

die77() { echo "verbs-lab: $*" >&2; exit 77; }

prepare() {
    local dir=$1
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    # made again when this script changes (the stamp), the kernel package kept for that
    local stamp
    stamp=$(cksum < "$0")
    [ -s "$dir/initramfs.cpio" ] && [ "$(cat "$dir/stamp" 2>/dev/null)" = "$stamp" ] && return 0
    local pkgs="qemu-system-x86 busybox-static kmod cpio iproute2 ibverbs-providers"
    local missing=""
    for p in $pkgs; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
    if [ -n "$missing" ]; then
        [ "$(id -u)" = 0 ] || die77 "packages missing ($missing) and not root to install them"
        export DEBIAN_FRONTEND=noninteractive
        { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } >/dev/null 2>&1 ||
            die77 "apt-get could not install$missing"
    fi
    # the kernel: the one linux-image-amd64 names, downloaded and unpacked, not installed
    local kpkg
    kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')
    if [ -z "$kpkg" ] && [ "$(id -u)" = 0 ]; then # no package lists yet
        apt-get update -qq >/dev/null 2>&1 || true
        kpkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-/{print $2; exit}')
    fi
    [ -n "$kpkg" ] || die77 "apt knows no linux-image-amd64 (no Debian archive?)"
    rm -rf "$dir/kpkg" "$dir/root"
    mkdir -p "$dir/kpkg" "$dir/root"
    ls "$dir/${kpkg}"_*.deb >/dev/null 2>&1 || (cd "$dir" && apt-get download "$kpkg" >/dev/null 2>&1) ||
        die77 "apt-get download $kpkg failed"
    dpkg -x "$dir/${kpkg}"_*.deb "$dir/kpkg"
    local kver
    kver=$(ls "$dir/kpkg/lib/modules" | head -1)
    depmod -b "$dir/kpkg" "$kver"
    cp "$dir/kpkg/boot/vmlinuz-$kver" "$dir/vmlinuz.new"
    # the modules to load, in dependency order (builtins are not listed)
    local r=$dir/root order
    order=$(modprobe -d "$dir/kpkg" -S "$kver" -a --show-depends \
        crc32_generic rdma_rxe rdma_ucm dummy virtio_pci virtio_net 9pnet_virtio 9p | awk '$1 == "insmod" {print $2}')
    mkdir -p "$r"/{bin,proc,sys,dev,host,mods}
    cp /bin/busybox "$r/bin/busybox"
    local i=0 m
    : > "$r/mods/order"
    for m in $order; do
        case " $(cat "$r/mods/order") " in *" $(basename "$m") "*) continue ;; esac
        cp "$m" "$r/mods/"
        echo "$(basename "$m")" >> "$r/mods/order"
        i=$((i + 1))
    done
    cat > "$r/init" <<'EOF'
#!/bin/busybox sh
# PID 1: load soft-RoCE, mount the host's root, run the command in it, report, power off
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t devtmpfs devtmpfs /dev
for m in $(cat /mods/order); do insmod /mods/$m 2>/dev/null; done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,ro hostroot /host || { echo "LAB-RC=1 (no 9p)"; poweroff -f; }
mount -t proc proc /host/proc; mount -t sysfs sysfs /host/sys; mount -t devtmpfs devtmpfs /host/dev
mkdir -p /host/dev/shm; mount -t tmpfs tmpfs /host/run; mount -t tmpfs tmpfs /host/dev/shm
arg() { sed -n "s/.* $1=\\([^ ]*\\).*/\\1/p" /proc/cmdline; }
labdir=$(arg labdir) labhost=$(arg labhost) labscript=$(arg labscript)
[ -z "$labhost" ] || hostname "$labhost"
chroot /host /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/run TMPDIR=/run /bin/sh "${labscript:-$labdir/guest.sh}"
echo "LAB-RC=$?"
poweroff -f
EOF
    chmod +x "$r/init"
    (cd "$r" && find . | cpio -o -H newc --quiet) > "$dir/initramfs.cpio.new"
    rm -rf "$dir/kpkg" "$r"
    mv "$dir/vmlinuz.new" "$dir/vmlinuz"
    mv "$dir/initramfs.cpio.new" "$dir/initramfs.cpio"
    echo "$stamp" > "$dir/stamp"
    echo "verbs-lab: prepared in $dir (kernel $kver, $i modules)"
}

# lab_ready DIR: DIR's absolute path in the caller's $dir; a skip (77) when the lab is not
# prepared there or there is no qemu
lab_ready() {
    dir=$(cd "$1" && pwd)
    [ -s "$dir/initramfs.cpio" ] || die77 "not prepared in $dir (verbs-lab.sh prepare $dir)"
    command -v qemu-system-x86_64 >/dev/null || die77 "no qemu-system-x86_64"
}

# guest_script DEV ADDR CMD ARG...: the script a guest runs (host root is read-only there,
# so it is written on this side first), on stdout: rxe0 on DEV with ADDR/24, then CMD with
# its arguments and the caller's GASNET_*, FI_* and LAB_* environment
guest_script() {
    local dev=$1 me=$2
    shift 2
    echo "ip link set lo up && ip link set $dev up && ip addr add $me/24 dev $dev &&"
    echo "    rdma link add rxe0 type rxe netdev $dev || { echo \"verbs-lab: no rxe0 on $dev\"; exit 1; }"
    echo 'cd /run'
    env | grep -E '^(GASNET|FI_|LAB_)[A-Za-z0-9_]*=' | sed "s/'/'\\\\''/g; s/^\([^=]*\)=\(.*\)$/export \1='\2'/" || true
    printf 'exec'
    printf " '%s'" "${@//\'/\'\\\'\'}"
    echo
}

# lab_qemu ARG...: one guest (2 vCPUs: two busy-polling processes on one take
# milliseconds per message) with the host's root over 9p, within VERBS_LAB_TIMEOUT;
# ARG: its network and its -append line
lab_qemu() {
    timeout "${VERBS_LAB_TIMEOUT:-900}" qemu-system-x86_64 -accel tcg,thread=multi -cpu max -smp 2 -m 1024 \
        -M q35 -nodefaults -no-user-config -nographic -serial stdio -no-reboot \
        -kernel "$dir/vmlinuz" -initrd "$dir/initramfs.cpio" \
        -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap "$@"
}

run() {
    local dir
    lab_ready "$1"
    shift
    guest_script dummy0 192.0.2.1 "$@" > "$dir/guest.sh"
    local log=$dir/console.log
    lab_qemu -nic none -append "console=ttyS0 panic=-1 loglevel=3 quiet labdir=$dir" < /dev/null > "$log" 2>&1 || true
    console_text "$log"
    local rc
    rc=$(guest_rc "$log")
    [ -n "$rc" ] || { echo "verbs-lab: the guest reported no exit status (console in $log)" >&2; return 1; }
    return "$rc"
}

# the guest's output, without the firmware's screen controls and banner, the kernel's
# messages and the exit status line
console_text() {
    tr -d '\r' < "$1" | sed 's/\x1bc//g; s/\x1b\[[0-9;?]*[a-zA-Z]//g; s/^Booting from ROM\.*//' | sed -n '/LAB-RC=/q; /^\[ *[0-9.]*\]/d; p' |
        grep -v '^SeaBIOS\|^$' || true
}
guest_rc() { tr -d '\r' < "$1" | sed -n 's/^LAB-RC=\([0-9]*\).*/\1/p' | tail -1; }

# Two guests, ibvlab-a (192.0.2.1) and ibvlab-b (192.0.2.2), each with rxe0 on its eth0,
# the two eth0 linked by qemu (a unix socket on this host, see VERBS_LAB_LINK); both
# run CMD ARG... in the host's root, with LAB_ROLE (a or b), LAB_ADDR (its address) and
# LAB_HOSTS ("ibvlab-a=192.0.2.1 ibvlab-b=192.0.2.2") set. The run ends when guest a's
# CMD does: guest b then has VERBS_LAB_B_GRACE seconds (default 30) to end on its own
# before it is killed. Both consoles are printed (b's lines prefixed), a's first; the exit
# status is a's CMD's. Both qemu and the run's files (in DIR/run2.*) are gone however
# the run ends.
run2() {
    local dir
    lab_ready "$1"
    shift
    tmp2=$(mktemp -d "$dir/run2.XXXXXX")
    trap 'run2_cleanup' EXIT
    trap 'run2_cleanup; exit 130' INT TERM HUP
    local sockdir=$tmp2
    [ ${#tmp2} -le 90 ] || { sockdir2=$(mktemp -d /tmp/verbs-lab2.XXXXXX); sockdir=$sockdir2; }
    export LAB_HOSTS="ibvlab-a=192.0.2.1 ibvlab-b=192.0.2.2"
    local g ip mac other net t
    for g in a b; do
        [ $g = a ] && ip=192.0.2.1 mac=52:54:00:1b:00:01 other=b || ip=192.0.2.2 mac=52:54:00:1b:00:02 other=a
        LAB_ROLE=$g LAB_ADDR=$ip guest_script eth0 $ip "$@" > "$tmp2/guest-$g.sh"
        # the cable: a stream (lossless; a listens, b connects once a's socket is there),
        # or with VERBS_LAB_LINK=dgram datagrams, which qemu drops when the other side
        # lags (rxe then retransmits)
        if [ "${VERBS_LAB_LINK:-stream}" = dgram ]; then
            net=dgram,id=n0,local.type=unix,local.path=$sockdir/$g.sock,remote.type=unix,remote.path=$sockdir/$other.sock
        else
            net=stream,id=n0,server=$([ $g = a ] && echo on || echo off),addr.type=unix,addr.path=$sockdir/link.sock
            t=0
            while [ $g = b ] && [ ! -S "$sockdir/link.sock" ] && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
        fi
        lab_qemu -netdev "$net" -device virtio-net-pci,netdev=n0,mac=$mac,romfile= -pidfile "$tmp2/qemu-$g.pid" \
            -append "console=ttyS0 panic=-1 loglevel=3 quiet labdir=$dir labhost=ibvlab-$g labscript=$tmp2/guest-$g.sh" \
            < /dev/null > "$tmp2/console-$g.log" 2>&1 &
        eval "qpid_$g=\$!"
    done
    wait "$qpid_a" || true
    local t=0
    while kill -0 "$qpid_b" 2>/dev/null && [ $t -lt "${VERBS_LAB_B_GRACE:-30}" ]; do sleep 1; t=$((t + 1)); done
    kill -0 "$qpid_b" 2>/dev/null && echo "verbs-lab: guest b did not end within ${VERBS_LAB_B_GRACE:-30} s of guest a: killed" >&2
    run2_stop
    console_text "$tmp2/console-a.log"
    console_text "$tmp2/console-b.log" | sed 's/^/[ibvlab-b] /'
    local rc rcb
    rc=$(guest_rc "$tmp2/console-a.log")
    rcb=$(guest_rc "$tmp2/console-b.log")
    echo "verbs-lab: guest b's status: ${rcb:-none reported}"
    [ -n "$rc" ] || { echo "verbs-lab: guest a reported no exit status" >&2; tail -n 30 "$tmp2/console-a.log" >&2; return 1; }
    return "$rc"
}
# kill what is left of both guests (qemu by its pid file, then the timeout around it)
run2_stop() {
    local g p
    for g in a b; do
        p=$(cat "$tmp2/qemu-$g.pid" 2>/dev/null || true)
        [ -z "$p" ] || kill "$p" 2>/dev/null || true
        p=$(eval echo "\${qpid_$g:-}")
        [ -z "$p" ] || kill "$p" 2>/dev/null || true
    done
    for g in a b; do
        p=$(eval echo "\${qpid_$g:-}")
        [ -z "$p" ] || wait "$p" 2>/dev/null || true
    done
    return 0
}
run2_cleanup() {
    [ -n "${tmp2:-}" ] || return 0
    run2_stop
    rm -rf "$tmp2" ${sockdir2:+"$sockdir2"}
    tmp2=""
}

case "${1:-}" in
prepare) prepare "$2" ;;
run) run "${@:2}" ;;
run2) run2 "${@:2}" ;;
*)
    echo "usage: $0 prepare DIR | run DIR CMD [ARG...] | run2 DIR CMD [ARG...]" >&2
    exit 2
    ;;
esac
