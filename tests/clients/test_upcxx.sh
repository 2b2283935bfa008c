#!/bin/bash
# tests/clients/test_upcxx.sh: a real client, unchanged, on this source tree: UPC++ 2020.10.0
# (a tarball; by default ../shared/clients/upcxx-2020.10.0.tar.gz beside the source tree,
# or $UPCXX_TARBALL).  Layer: tests (driver; full tier).
#   test_upcxx.sh SRCDIR [NETWORKS...]        (default networks: smp udp)
# Unpacks UPC++ into a temporary directory and, as its INSTALL.md says:
#   configure --with-gasnet=SRCDIR --prefix=<tmp>/inst   (nothing else: UPC++ configures and
#        builds GASNet from this tree itself, with our configure's defaults)
#   make all; make check NETWORKS=<each network> (every test UPC++ compiles must print its
#   SUCCESS line); make install
# then builds a program with the *installed* `upcxx` wrapper for smp, udp and mpi (those
# enabled) and runs it with the installed `upcxx-run -n 2`, checking what each rank prints.
# Skips (77), saying why, when the tarball, bash, python or a C++ compiler is missing.
# Prints the time of each step.  The temporary directory is removed (UPCXX_TEST_KEEP=1 keeps
# it, to look at a failure).
set -u
[ $# -ge 1 ] || { echo "usage: test_upcxx.sh SRCDIR [NETWORKS...]" >&2; exit 2; }
SRCDIR=$(cd "$1" && pwd) || exit 2
shift
networks=${*:-smp udp}
tarball=${UPCXX_TARBALL:-$SRCDIR/../shared/clients/upcxx-2020.10.0.tar.gz}
MAKE=${MAKE:-make}
if [ ! -r "$tarball" ]; then
    echo "skip: no UPC++ tarball at $tarball (set UPCXX_TARBALL)"
    exit 77
fi
for tool in python3 g++ bash; do
    command -v $tool > /dev/null || { echo "skip: $tool not found, UPC++ needs it"; exit 77; }
done
if [ ! -x "$SRCDIR/configure" ]; then
    echo "FAIL test_upcxx: $SRCDIR has no configure: run ./autogen.sh first"
    exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-upcxx.XXXXXX") || exit 2
[ "${UPCXX_TEST_KEEP:-}" = 1 ] || trap 'rm -rf "$tmp"' EXIT
failed=0
bad() { echo "FAIL test_upcxx: $*"; failed=1; }
okmsg() { echo "ok   $*"; }
# step NAME LOG COMMAND...: runs COMMAND (output to LOG), prints its time; the tail of LOG on failure
step() {
    local name=$1 log=$2 t0 st
    shift 2
    t0=$(date +%s)
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$@" > "$log" 2>&1
    st=$?
    if [ $st -eq 0 ]; then
        okmsg "$name ($(( $(date +%s) - t0 )) s)"
    else
        bad "$name: status $st after $(( $(date +%s) - t0 )) s; the end of $log:"
        tail -n 25 "$log" | sed 's/^/    /'
    fi
    return $st
}

mkdir -p "$tmp/src" "$tmp/bld"
(cd "$tmp/src" && tar xzf "$tarball") || { bad "cannot unpack $tarball"; exit 1; }
upcxx_src=$(echo "$tmp"/src/upcxx-*)
inst=$tmp/inst
cd "$tmp/bld" || exit 2

step "UPC++ configure --with-gasnet=$SRCDIR" "$tmp/configure.log" \
    bash "$upcxx_src/configure" --with-gasnet="$SRCDIR" --prefix="$inst" || exit 1
step "make all" "$tmp/all.log" $MAKE all || exit 1
for net in $networks; do
    log=$tmp/check-$net.log
    if step "make check NETWORKS=$net" "$log" $MAKE check NETWORKS=$net; then
        # UPC++'s own summary: every test it ran passed (none failed, none skipped)
        ran=$(grep -c '^Running test-' "$log")
        if [ "$ran" -gt 0 ] && grep -q "^PASSED running $ran tests\$" "$log" && ! grep -q '^FAILED' "$log"; then
            okmsg "  $net: $(grep '^PASSED running' "$log")"
        else
            bad "$net: $ran tests ran; UPC++ says: $(grep -e '^PASSED running' -e '^FAILED' -e 'failed' "$log" | tr '\n' ' ')"
        fi
    fi
done
step "make install" "$tmp/install.log" $MAKE install || exit 1

# a program built with the installed wrapper, run with the installed launcher
cat > "$tmp/hello.cpp" <<'EOF'
#include <upcxx/upcxx.hpp>
#include <iostream>
int main() {
    upcxx::init();
    int me = upcxx::rank_me(), n = upcxx::rank_n();
    // every rank adds its rank+1 at rank 0 by RPC, then all check the sum
    upcxx::global_ptr<long> sum = nullptr;
    if (me == 0) sum = upcxx::new_<long>(0);
    sum = upcxx::broadcast(sum, 0).wait();
    upcxx::rpc(0, [](upcxx::global_ptr<long> p, int v) { *p.local() += v; }, sum, me + 1).wait();
    upcxx::barrier();
    long got = upcxx::rget(sum).wait();
    bool ok = (got == (long)n * (n + 1) / 2);
    std::cout << "rank " << me << " of " << n << (ok ? " sum ok" : " sum WRONG") << std::endl;
    upcxx::barrier();
    upcxx::finalize();
    return ok ? 0 : 1;
}
EOF
enabled=$(sed -n 's/^GASNET_CONDUITS_ENABLED = //p' "$tmp"/bld/bld/gasnet.opt/Makefile 2>/dev/null | head -1)
[ -n "$enabled" ] || bad "cannot tell the enabled conduits from $tmp/bld/bld/gasnet.opt/Makefile"
hellos=0
for net in smp udp mpi; do
    [[ " $enabled " == *" $net "* ]] || { echo "skip hello on $net: not enabled in this configuration"; continue; }
    if step "installed upcxx -network=$net" "$tmp/hello-$net.log" \
            env UPCXX_NETWORK=$net "$inst/bin/upcxx" -O -o "$tmp/hello-$net" "$tmp/hello.cpp"; then
        out=$tmp/run-$net.log
        if step "upcxx-run -n 2 hello ($net)" "$out" env GASNET_SPAWNFN=L timeout 120 "$inst/bin/upcxx-run" -n 2 "$tmp/hello-$net"; then
            if [ "$(grep -c 'of 2 sum ok' "$out")" -eq 2 ]; then okmsg "  $net: both ranks print 'sum ok'"; hellos=$((hellos + 1))
            else bad "$net: expected two 'of 2 sum ok' lines:"; sed 's/^/    /' "$out"; fi
        fi
    fi
done
[ $hellos -gt 0 ] || bad "no program built with the installed upcxx ran"
[ $failed -eq 0 ] && echo "PASS test_upcxx" || echo "FAIL test_upcxx"
exit $failed
