# tests/harness/netns.sh: two "hosts" on this machine for the network-namespace tests
# (test_udpnetns.sh, test_ofinetns.sh), sourced. Layer: tests (harness).
#   netns_two_hosts NAME TAG
# Checks what is needed (root, ip(8), unshare(1); else prints "SKIP NAME: why" and exits
# 77), makes namespaces TAG-0 and TAG-1 joined by a veth pair whose two ends have the
# same device name (so a library that picks an interface by name picks the same one on
# both), addresses ip0 and ip1 on the /24 network net, loopback up, and waits until the
# link has a carrier on both ends (a job started before that cannot connect). Sets ns0,
# ns1, dev, net, ip0, ip1; netns_cleanup removes both namespaces (call it on EXIT).
netns_cleanup() {
    [ -n "${ns0:-}" ] && ip netns del "$ns0" 2>/dev/null
    [ -n "${ns1:-}" ] && ip netns del "$ns1" 2>/dev/null
    return 0
}
netns_two_hosts() {
    local name=$1 tag=$2 i
    PATH=$PATH:/usr/sbin:/sbin
    [ "$(id -u)" = 0 ] || { echo "SKIP $name: network namespaces need root"; exit 77; }
    command -v ip > /dev/null || { echo "SKIP $name: ip(8) not found (Debian package iproute2)"; exit 77; }
    command -v unshare > /dev/null || { echo "SKIP $name: unshare(1) not found (Debian package util-linux)"; exit 77; }
    ns0="$tag-0" ns1="$tag-1" dev="$tag-v"
    net="10.$((($$ >> 8) % 200 + 20)).$(($$ % 250)).0"
    ip0="${net%.0}.1" ip1="${net%.0}.2"
    ip netns add "$ns0" 2> /dev/null || { ns0=""; echo "SKIP $name: cannot create a network namespace"; exit 77; }
    ip netns add "$ns1" || { ns1=""; echo "SKIP $name: cannot create a second network namespace"; exit 77; }
    ip link add "$dev" netns "$ns0" type veth peer name "$tag-w" netns "$ns1" ||
        { echo "SKIP $name: cannot create a veth pair between namespaces"; exit 77; }
    ip -n "$ns1" link set "$tag-w" name "$dev" &&
        ip -n "$ns0" addr add "$ip0/24" dev "$dev" && ip -n "$ns1" addr add "$ip1/24" dev "$dev" &&
        ip -n "$ns0" link set "$dev" up && ip -n "$ns1" link set "$dev" up &&
        ip -n "$ns0" link set lo up && ip -n "$ns1" link set lo up ||
        { echo "FAIL $name: cannot configure the veth pair"; exit 1; }
    for i in $(seq 50); do
        ip -n "$ns0" link show "$dev" | grep -q "state UP" && ip -n "$ns1" link show "$dev" | grep -q "state UP" &&
            return 0
        sleep 0.1
    done
    echo "FAIL $name: the veth pair has no carrier after 5 s"
    exit 1
}
