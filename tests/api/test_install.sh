#!/bin/bash
# tests/api/test_install.sh: build clients against an installed tree, the two ways users do.
#   test_install.sh BUILDDIR SRCDIR [PREFIX]
# With PREFIX (an existing installation): uses it as it is.  Without: installs BUILDDIR
# with `make install DESTDIR=<tmp>` and uses <tmp><prefix>; the fragment is then used with
# GASNET_PREFIX=<tmp><prefix> on the make command line and the .pc file with
# `pkg-config --define-prefix`, their relocation knobs.  Checks:
#   - a client (hello + one AM + one put) built with `include .../smp-par.mak`, then
#     $(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) -c x.c and
#     $(GASNET_LD) $(GASNET_LDFLAGS) -o x x.o $(GASNET_LIBS), runs with 2 processes;
#   - the same built with `pkg-config --cflags --libs gasnet-smp-par`;
#   - bin/gasnetrun_smp runs that client too, bin/gasnet_trace -h prints its usage;
#   - gasnet_fwd.h and gasnet_portable_platform.h are installed and compile alone (C, C++);
#   - include/gasnet_config.h has exactly one #define each of GASNET_RELEASE_VERSION_MAJOR,
#     _MINOR and _PATCH (the major a year);
#   - the library and the client carry the ident string "$GASNetConduitName: SMP $";
#   - a PAR object linked with -lgasnet-smp-seq fails with an undefined symbol naming PAR;
#   - with udp-conduit built: its libraries, fragments, .pc files and bin/amudprun and
#     bin/gasnetrun_udp are installed, and the client built with udp-par.mak and with
#     pkg-config gasnet-udp-par runs with 2 processes over UDP through each launcher;
#   - with ofi-conduit built: the same for its files and bin/gasnetrun_ofi (the clients
#     built with ofi-par.mak and pkg-config gasnet-ofi-par run with 2 processes over
#     libfabric, PSHM off), and bin/gasnetrun_ofi refuses a program built for smp;
#   - with ucx-conduit built: the same for its files and bin/gasnetrun_ucx (clients built
#     with ucx-par.mak and pkg-config gasnet-ucx-par, 2 processes over UCX, PSHM off);
#   - with ibv-conduit built: the same for its files and bin/gasnetrun_ibv (the clients
#     run with 2 processes as neighbors: this host has no RDMA device);
#   - with mpi-conduit built: the same for its files and bin/gasnetrun_mpi, GASNET_LD of
#     mpi-par.mak is the MPI wrapper, and the clients (mpi-par.mak, and pkg-config
#     gasnet-mpi-par linked by its GASNET_LD) run with 2 processes over MPI;
#   - tools-only clients (gasnet_tools.h, no conduit) built with gasnet_tools-{seq,par}.mak and
#     pkg-config gasnet_tools-{seq,par} run and see the right threading; a GASNETT_LITE_MODE
#     C++ client builds with -Werror and links no GASNet library.
# The temporary directory is removed.  Layer: tests (driver).
set -u
[ $# -ge 2 ] || { echo "usage: test_install.sh BUILDDIR SRCDIR [PREFIX]" >&2; exit 2; }
BUILDDIR=$(cd "$1" && pwd) || exit 2
SRCDIR=$(cd "$2" && pwd) || exit 2
PREFIX=${3:-}
RUN="$SRCDIR/tests/harness/gasnet-run"
MAKE=${MAKE:-make}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-install.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0
bad() { echo "FAIL test_install: $*"; failed=1; }
okmsg() { echo "ok   $*"; }

if [ -z "$PREFIX" ]; then
    # MAKEFLAGS of an enclosing `make check` would point at its jobserver
    if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE -C "$BUILDDIR" install DESTDIR="$tmp/stage" > "$tmp/install.log" 2>&1; then
        echo "FAIL test_install: make install DESTDIR=$tmp/stage failed:"
        tail -n 40 "$tmp/install.log"
        exit 1
    fi
    cfg_prefix=$(sed -n 's/^prefix = //p' "$BUILDDIR/Makefile" | head -1)
    ROOT="$tmp/stage$cfg_prefix"
    MAKE_RELOC="GASNET_PREFIX=$ROOT"
    PC_RELOC="--define-prefix"
    okmsg "installed with DESTDIR into $ROOT"
else
    ROOT=$(cd "$PREFIX" && pwd) || exit 2
    MAKE_RELOC=""
    PC_RELOC=""
fi
[ -d "$ROOT/include" ] && [ -d "$ROOT/lib" ] || { echo "FAIL test_install: no include/ and lib/ under $ROOT"; exit 1; }

# ---- the installed files clients look for ----
for f in include/gasnetex.h include/gasnet.h include/gasnet_tools.h include/gasnet_config.h \
         include/gasnet_fwd.h include/gasnet_portable_platform.h \
         include/smp-conduit/gasnet_core.h include/smp-conduit/smp-seq.mak include/smp-conduit/smp-par.mak \
         include/smp-conduit/smp-parsync.mak lib/libgasnet-smp-seq.a lib/libgasnet-smp-par.a \
         lib/libgasnet-smp-parsync.a lib/pkgconfig/gasnet-smp-seq.pc lib/pkgconfig/gasnet-smp-par.pc \
         lib/pkgconfig/gasnet-smp-parsync.pc include/gasnet_tools-seq.mak include/gasnet_tools-par.mak \
         lib/libgasnet_tools-seq.a lib/libgasnet_tools-par.a lib/pkgconfig/gasnet_tools-seq.pc \
         lib/pkgconfig/gasnet_tools-par.pc; do
    [ -f "$ROOT/$f" ] || bad "missing $f"
done
[ -d "$ROOT/share/doc/GASNet" ] || bad "missing share/doc/GASNet/"
# the programs the released install has for every build: the smp launcher, the trace report
for f in gasnetrun_smp gasnet_trace; do [ -x "$ROOT/bin/$f" ] || bad "missing bin/$f"; done
"$ROOT/bin/gasnet_trace" -h > "$tmp/trace-h.out" 2>&1 && grep -q -- '-report' "$tmp/trace-h.out" ||
    bad "bin/gasnet_trace -h does not print its usage: $(head -3 "$tmp/trace-h.out")"
# (the spec-version file newer UPC++ reads in a source tree is installed with the docs)
[ -f "$ROOT/share/doc/GASNet/GASNet-EX.txt" ] || bad "missing share/doc/GASNet/GASNet-EX.txt"

# ---- gasnet_fwd.h and gasnet_portable_platform.h alone: no threading mode, no
# gasnet_config.h needed, C and C++ ----
printf '#include <gasnet_fwd.h>\n#include <gasnet_portable_platform.h>\nstatic gex_Event_t ev = GEX_EVENT_INVALID;\nint fwd_ok(void) { return ev == GEX_EVENT_INVALID && GEX_FLAG_IMMEDIATE && PLATFORM_COMPILER_FAMILYID >= 0; }\n' > "$tmp/fwd.c"
if ${CC:-cc} -Wall -Werror -c -I"$ROOT/include" "$tmp/fwd.c" -o "$tmp/fwd.o" > "$tmp/fwd.log" 2>&1; then
    okmsg "gasnet_fwd.h and gasnet_portable_platform.h compile alone (C)"
else
    bad "gasnet_fwd.h alone does not compile as C:"; cat "$tmp/fwd.log"
fi
cp "$tmp/fwd.c" "$tmp/fwd.cc"
if ${CXX:-c++} -Wall -Werror -c -I"$ROOT/include" "$tmp/fwd.cc" -o "$tmp/fwdxx.o" > "$tmp/fwd.log" 2>&1; then
    okmsg "gasnet_fwd.h and gasnet_portable_platform.h compile alone (C++)"
else
    bad "gasnet_fwd.h alone does not compile as C++:"; cat "$tmp/fwd.log"
fi

# ---- gasnet_config.h: one #define each for the release version ----
for part in MAJOR MINOR PATCH; do
    n=$(grep -Ec "^[[:space:]]*#[[:space:]]*define[[:space:]]+GASNET_RELEASE_VERSION_$part([[:space:]]|\$)" "$ROOT/include/gasnet_config.h")
    [ "$n" -eq 1 ] || bad "include/gasnet_config.h has $n #define lines for GASNET_RELEASE_VERSION_$part"
done
major=$(sed -n 's/^[[:space:]]*#[[:space:]]*define[[:space:]]\{1,\}GASNET_RELEASE_VERSION_MAJOR[[:space:]]\{1,\}\([0-9]*\).*/\1/p' "$ROOT/include/gasnet_config.h")
[ -n "$major" ] && [ "$major" -ge 2000 ] && [ "$major" -le 2100 ] || bad "GASNET_RELEASE_VERSION_MAJOR '$major' is not a year"

# ---- the fragments contain only variable assignments ----
for m in seq par parsync; do
    frag="$ROOT/include/smp-conduit/smp-$m.mak"
    [ -f "$frag" ] || continue
    nonassign=$(grep -Ev '^[[:space:]]*(#.*)?$' "$frag" | grep -Ev '^[A-Za-z_][A-Za-z0-9_]*[[:space:]]*[:?+]?=' || true)
    [ -z "$nonassign" ] || bad "smp-$m.mak has lines that are not assignments: $nonassign"
    for v in GASNET_PREFIX GASNET_CC GASNET_OPT_CFLAGS GASNET_MISC_CFLAGS GASNET_MISC_CPPFLAGS GASNET_DEVWARN_CFLAGS \
             GASNET_CXX GASNET_DEFINES GASNET_INCLUDES GASNET_LIBDIRS GASNET_CFLAGS GASNET_CPPFLAGS GASNET_CXXFLAGS \
             GASNET_CXXCPPFLAGS GASNET_LD GASNET_LDFLAGS GASNET_LIBS GASNET_LD_REQUIRES_CXX GASNET_LD_REQUIRES_MPI; do
        grep -Eq "^${v}[[:space:]]*[:?]?=" "$frag" || bad "smp-$m.mak does not set $v"
    done
done

# ---- a client ----
mkdir -p "$tmp/mak" "$tmp/pc" "$tmp/mismatch"
cat > "$tmp/x.c" <<'EOF'
#include <gasnetex.h>
#include <gasnet.h>
#include <stdio.h>
#include <stdint.h>
static volatile int got;
static void hello_handler(gex_Token_t t, gex_AM_Arg_t a) { (void)t; got = a; }
int main(int argc, char **argv) {
    gex_Client_t client; gex_EP_t ep; gex_TM_t tm; gex_Segment_t seg;
    if (gex_Client_Init(&client, &ep, &tm, "INSTALL_TEST", &argc, &argv, GEX_FLAG_USES_GASNET1)) return 1;
    gex_AM_Entry_t tab[1] = { { 0, (gex_AM_Fn_t)hello_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "hello" } };
    if (gex_EP_RegisterHandlers(ep, tab, 1)) return 2;
    if (gex_Segment_Attach(&seg, tm, 1 << 16)) return 3;
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    gex_Rank_t right = (me + 1) % n, left = (me + n - 1) % n;
    void *rbase = NULL;
    if (gex_Segment_QueryBound(tm, right, &rbase, NULL, NULL)) return 4;
    gex_AM_RequestShort1(tm, right, tab[0].gex_index, 0, 1000 + (int)me);
    GASNET_BLOCKUNTIL(got != 0);
    uint64_t v = 5000 + me;
    gex_RMA_PutBlocking(tm, right, rbase, &v, sizeof v, 0);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    uint64_t mine = *(uint64_t *)gex_Segment_QueryAddr(seg);
    printf("rank %u of %u: hello, AM %s, put %s\n", (unsigned)me, (unsigned)n,
           got == 1000 + (int)left ? "ok" : "WRONG", mine == 5000 + left ? "ok" : "WRONG");
    fflush(stdout);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    gasnet_exit(0);
    return 0;
}
EOF
cat > "$tmp/mak/Makefile" <<EOF
include $ROOT/include/smp-conduit/smp-par.mak
x: x.o
	\$(GASNET_LD) \$(GASNET_LDFLAGS) -o x x.o \$(GASNET_LIBS)
x.o: ../x.c
	\$(GASNET_CC) \$(GASNET_CPPFLAGS) \$(GASNET_CFLAGS) -c ../x.c -o x.o
EOF

check_run() { # dir how
    local d=$1 how=$2
    "$RUN" -c smp -n 2 -t 60 "$d/x" > "$d/run.out" 2>&1
    local st=$?
    if [ "$st" -ne 0 ]; then bad "$how: the client exited with status $st:"; cat "$d/run.out"; return; fi
    for r in 0 1; do
        grep -qx "rank $r of 2: hello, AM ok, put ok" "$d/run.out" || { bad "$how: rank $r's line is missing or wrong:"; cat "$d/run.out"; return; }
    done
    strings -a "$d/x" | grep -qF '$GASNetConduitName: SMP $' || bad "$how: the client has no \$GASNetConduitName: SMP \$ ident string"
    okmsg "$how: built, ran with 2 processes"
}

if (cd "$tmp/mak" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE $MAKE_RELOC > build.log 2>&1); then
    check_run "$tmp/mak" "smp-par.mak"
    # the same client through the installed smp launcher (what upcxx-run and upcrun call)
    if [ -x "$ROOT/bin/gasnetrun_smp" ]; then
        timeout -k 5 60 "$ROOT/bin/gasnetrun_smp" -n 2 "$tmp/mak/x" > "$tmp/mak/runsmp.out" 2>&1
        st=$?
        if [ "$st" -ne 0 ] || [ "$(grep -c ': hello, AM ok, put ok$' "$tmp/mak/runsmp.out")" -ne 2 ]; then
            bad "bin/gasnetrun_smp -n 2 (status $st):"; cat "$tmp/mak/runsmp.out"
        else
            okmsg "smp-par.mak: ran with 2 processes through bin/gasnetrun_smp"
        fi
    else
        bad "missing bin/gasnetrun_smp"
    fi
else
    bad "building with smp-par.mak failed:"; cat "$tmp/mak/build.log"
fi

export PKG_CONFIG_PATH="$ROOT/lib/pkgconfig"
if pc=$(pkg-config $PC_RELOC --cflags --libs gasnet-smp-par 2>"$tmp/pc/pc.err"); then
    cc=$(pkg-config $PC_RELOC --variable=GASNET_CC gasnet-smp-par)
    [ -n "$cc" ] || cc=cc
    if (cd "$tmp/pc" && $cc -o x ../x.c $pc > build.log 2>&1); then
        check_run "$tmp/pc" "pkg-config gasnet-smp-par"
    else
        bad "building with pkg-config failed ($cc -o x x.c $pc):"; cat "$tmp/pc/build.log"
    fi
else
    bad "pkg-config --cflags --libs gasnet-smp-par failed:"; cat "$tmp/pc/pc.err"
fi

# ---- tools-only clients: gasnet_tools.h with libgasnet_tools-{seq,par}.a, no conduit ----
cat > "$tmp/t.c" <<'EOF'
#include <gasnet_tools.h>
#include <stdio.h>
#include <string.h>
static gasnett_atomic64_t total = gasnett_atomic64_init(0);
static void *work(void *arg) {
    (void)arg;
    for (int i = 0; i < 1000; i++) gasnett_atomic64_add(&total, 3, GASNETT_ATOMIC_NONE);
    return NULL;
}
int main(void) {
    pthread_t th[4];
    for (int t = 0; t < 4; t++) pthread_create(&th[t], NULL, work, NULL);
    for (int t = 0; t < 4; t++) pthread_join(th[t], NULL);
    gasnett_setenv("T_SIZE", "2K");
    int ok = gasnett_atomic64_read(&total, 0) == 12000 &&
             gasnett_getenv_int_withdefault("T_SIZE", 0, 1) == 2048 &&
             gasnett_checksum("a", 1) == UINT64_C(0xaf63dc4c8601ec8c) && gasnett_ticks_now() > 0;
#ifdef GASNETT_THREAD_SAFE
    printf("tools %s threadsafe\n", ok ? "ok" : "WRONG");
#else
    printf("tools %s threadsingle\n", ok ? "ok" : "WRONG");
#endif
    return !ok;
}
EOF
tools_check() { # dir how want-mode
    local d=$1 how=$2 want=$3
    "$d/t" > "$d/run.out" 2>&1 || { bad "$how: the tools client failed:"; cat "$d/run.out"; return; }
    grep -qx "tools ok $want" "$d/run.out" || { bad "$how: expected 'tools ok $want':"; cat "$d/run.out"; return; }
    if nm "$d/t" | grep -q ' gasneti_Client_Init'; then bad "$how: the tools client contains the conduit library"; return; fi
    okmsg "$how: built, ran ($want)"
}
for m in seq par; do
    want=threadsingle; [ "$m" = par ] && want=threadsafe
    mkdir -p "$tmp/tmak-$m" "$tmp/tpc-$m"
    cat > "$tmp/tmak-$m/Makefile" <<EOF
include $ROOT/include/gasnet_tools-$m.mak
t: t.o
	\$(GASNET_TOOLS_LD) \$(GASNET_TOOLS_LDFLAGS) -o t t.o \$(GASNET_TOOLS_LIBS)
t.o: ../t.c
	\$(GASNET_TOOLS_CC) \$(GASNET_TOOLS_CPPFLAGS) \$(GASNET_TOOLS_CFLAGS) -c ../t.c -o t.o
EOF
    if (cd "$tmp/tmak-$m" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE $MAKE_RELOC > build.log 2>&1); then
        tools_check "$tmp/tmak-$m" "gasnet_tools-$m.mak" "$want"
    else
        bad "building with gasnet_tools-$m.mak failed:"; cat "$tmp/tmak-$m/build.log"
    fi
    if pc=$(PKG_CONFIG_PATH="$ROOT/lib/pkgconfig" pkg-config $PC_RELOC --cflags --libs gasnet_tools-$m 2>"$tmp/tpc-$m/pc.err"); then
        cc=$(PKG_CONFIG_PATH="$ROOT/lib/pkgconfig" pkg-config $PC_RELOC --variable=GASNET_TOOLS_CC gasnet_tools-$m)
        if (cd "$tmp/tpc-$m" && ${cc:-cc} -o t ../t.c $pc > build.log 2>&1); then
            tools_check "$tmp/tpc-$m" "pkg-config gasnet_tools-$m" "$want"
        else
            bad "building with pkg-config gasnet_tools-$m failed:"; cat "$tmp/tpc-$m/build.log"
        fi
    else
        bad "pkg-config --cflags --libs gasnet_tools-$m failed:"; cat "$tmp/tpc-$m/pc.err"
    fi
done
# GASNETT_LITE_MODE: the header-only part, as C++ with -Werror, and no GASNet library
cat > "$tmp/lite.cc" <<'EOF'
#define GASNETT_LITE_MODE
#include <gasnet_tools.h>
static gasnett_mutex_t m = GASNETT_MUTEX_INITIALIZER;
int main() {
    gasnett_atomic_t a = gasnett_atomic_init(1);
    gasnett_mutex_lock(&m);
    gasnett_atomic_add(&a, 2, GASNETT_ATOMIC_REL);
    gasnett_mutex_unlock(&m);
    gasnett_tick_t t0 = gasnett_ticks_now();
    return !(gasnett_atomic_read(&a, GASNETT_ATOMIC_ACQ) == 3 && gasnett_ticks_now() >= t0);
}
EOF
if ${CXX:-c++} -std=c++11 -Wall -Wextra -Werror -I"$ROOT/include" -o "$tmp/lite" "$tmp/lite.cc" -lpthread > "$tmp/lite.log" 2>&1 &&
   "$tmp/lite"; then
    okmsg "GASNETT_LITE_MODE C++ client: built with -Werror and no library, ran"
else
    bad "GASNETT_LITE_MODE C++ client failed:"; cat "$tmp/lite.log"
fi

# ---- the ident string in the libraries ----
for m in seq par parsync; do
    strings -a "$ROOT/lib/libgasnet-smp-$m.a" | grep -qF '$GASNetConduitName: SMP $' ||
        bad "lib/libgasnet-smp-$m.a has no \$GASNetConduitName: SMP \$ ident string"
done

# ---- a PAR object cannot link with the SEQ library ----
cat > "$tmp/mismatch/Makefile" <<EOF
include $ROOT/include/smp-conduit/smp-par.mak
PAR_CC := \$(GASNET_CC) \$(GASNET_CPPFLAGS) \$(GASNET_CFLAGS)
include $ROOT/include/smp-conduit/smp-seq.mak
x: ../x.c
	\$(PAR_CC) -c ../x.c -o x.o
	\$(GASNET_LD) \$(GASNET_LDFLAGS) -o x x.o \$(GASNET_LIBS)
EOF
if (cd "$tmp/mismatch" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE $MAKE_RELOC > build.log 2>&1); then
    bad "a GASNET_PAR object linked with -lgasnet-smp-seq without error"
elif ! grep -q -- '-lgasnet-smp-seq' "$tmp/mismatch/build.log" || ! grep -q -- '-DGASNET_PAR' "$tmp/mismatch/build.log"; then
    bad "the mode-mismatch build did not compile with -DGASNET_PAR and link -lgasnet-smp-seq:"; cat "$tmp/mismatch/build.log"
elif grep -Eq "undefined reference to .*PAR" "$tmp/mismatch/build.log"; then
    okmsg "PAR object + SEQ library: $(grep -Eo "undefined reference to [^ ]*PAR[^ ]*" "$tmp/mismatch/build.log" | head -1)"
else
    bad "the PAR/SEQ link failed, but not with an undefined symbol naming PAR:"; cat "$tmp/mismatch/build.log"
fi

# check_net DIR HOW LAUNCHER CONDUIT NETWORK [NP]: the client DIR/x (built as HOW) runs with
# 2 processes (NP: the launcher's flag for the count, -n; amudprun's -np), PSHM off, through
# bin/LAUNCHER, and carries the ident string of CONDUIT
check_net() {
    local d=$1 how=$2 launcher=$3 conduit=$4 net=$5 np=${6:--n}
    GASNET_SUPERNODE_MAXSIZE=${GASNET_SUPERNODE_MAXSIZE:-1} timeout -k 5 60 "$ROOT/bin/$launcher" "$np" 2 "$d/x" > "$d/run.out" 2>&1
    local st=$?
    if [ "$st" -ne 0 ]; then bad "$how: the client run by bin/$launcher exited with status $st:"; cat "$d/run.out"; return; fi
    for r in 0 1; do
        grep -qx "rank $r of 2: hello, AM ok, put ok" "$d/run.out" || { bad "$how: rank $r's line is missing or wrong:"; cat "$d/run.out"; return; }
    done
    strings -a "$d/x" | grep -qF "\$GASNetConduitName: $conduit \$" || bad "$how: the client has no \$GASNetConduitName: $conduit \$ ident string"
    okmsg "$how: built, ran with 2 processes over $net through bin/$launcher"
}

# check_conduit c C NETWORK [LD_VAR [MAK_LAUNCHER PC_LAUNCHER [NP]]]: a built network
# conduit's installed files (headers, fragments, libraries, .pc files of the three modes,
# its launchers), and the client built with c-par.mak and with pkg-config gasnet-c-par
# (linked by the .pc's LD_VAR, GASNET_CC by default) in $tmp/c-mak and $tmp/c-pc, each
# run through the installed launcher (gasnetrun_c by default) by check_net
check_conduit() {
    local c=$1 C=$2 net=$3 ldvar=${4:-GASNET_CC} lmak=${5:-gasnetrun_$1} lpc=${6:-gasnetrun_$1} np=${7:--n} f pc cc m
    for m in seq par parsync; do
        for f in include/$c-conduit/$c-$m.mak lib/libgasnet-$c-$m.a lib/pkgconfig/gasnet-$c-$m.pc; do
            [ -f "$ROOT/$f" ] || bad "missing $f"
        done
    done
    [ -f "$ROOT/include/$c-conduit/gasnet_core.h" ] || bad "missing include/$c-conduit/gasnet_core.h"
    for f in $lmak $lpc; do [ -x "$ROOT/bin/$f" ] || bad "missing bin/$f"; done
    mkdir -p "$tmp/$c-mak" "$tmp/$c-pc"
    sed "s|smp-conduit/smp-par.mak|$c-conduit/$c-par.mak|" "$tmp/mak/Makefile" > "$tmp/$c-mak/Makefile"
    if (cd "$tmp/$c-mak" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE $MAKE_RELOC > build.log 2>&1); then
        check_net "$tmp/$c-mak" "$c-par.mak" "$lmak" "$C" "$net" "$np"
    else
        bad "building with $c-par.mak failed:"; cat "$tmp/$c-mak/build.log"
    fi
    if pc=$(pkg-config $PC_RELOC --cflags --libs gasnet-$c-par 2>"$tmp/$c-pc/pc.err"); then
        cc=$(pkg-config $PC_RELOC --variable=$ldvar gasnet-$c-par)
        [ -n "$cc" ] || cc=cc
        if (cd "$tmp/$c-pc" && $cc -o x ../x.c $pc > build.log 2>&1); then
            check_net "$tmp/$c-pc" "pkg-config gasnet-$c-par (linked by $cc)" "$lpc" "$C" "$net" "$np"
        else
            bad "building with pkg-config gasnet-$c-par failed:"; cat "$tmp/$c-pc/build.log"
        fi
    else
        bad "pkg-config --cflags --libs gasnet-$c-par failed:"; cat "$tmp/$c-pc/pc.err"
    fi
}

# ---- udp-conduit, when it was built: the launcher under both names (amudprun runs the
# fragment's client, gasnetrun_udp pkg-config's) ----
if [ -f "$BUILDDIR/udp-conduit/libgasnet-udp-par.a" ]; then
    check_conduit udp UDP UDP GASNET_CC amudprun gasnetrun_udp -np
fi

# ---- mpi-conduit, when it was built: the fragment's GASNET_LD (the MPI wrapper), which
# links pkg-config's client; every AM over MPI ----
if [ -f "$BUILDDIR/mpi-conduit/libgasnet-mpi-par.a" ]; then
    ld=$(sed -n 's/^GASNET_LD = //p' "$ROOT/include/mpi-conduit/mpi-par.mak")
    case "$ld" in *mpi*) okmsg "mpi-par.mak: GASNET_LD = $ld" ;; *) bad "mpi-par.mak: GASNET_LD = '$ld', not the MPI wrapper" ;; esac
    grep -q '^GASNET_LD_REQUIRES_MPI = 1' "$ROOT/include/mpi-conduit/mpi-par.mak" || bad "mpi-par.mak: GASNET_LD_REQUIRES_MPI is not 1"
    check_conduit mpi MPI MPI GASNET_LD
fi

# ---- ofi-conduit, when it was built; and its launcher refuses a program built for
# another conduit, with one line naming both ----
if [ -f "$BUILDDIR/ofi-conduit/libgasnet-ofi-par.a" ]; then
    check_conduit ofi OFI libfabric
    if [ -x "$tmp/mak/x" ]; then
        timeout -k 5 30 "$ROOT/bin/gasnetrun_ofi" -n 2 "$tmp/mak/x" > "$tmp/ofi-mak/wrong.out" 2>&1
        st=$?
        if [ "$st" -eq 0 ] || ! grep -q "built for the SMP conduit" "$tmp/ofi-mak/wrong.out"; then
            bad "bin/gasnetrun_ofi ran an smp program (status $st):"; cat "$tmp/ofi-mak/wrong.out"
        else
            okmsg "bin/gasnetrun_ofi refuses an smp program: $(head -n 1 "$tmp/ofi-mak/wrong.out")"
        fi
    fi
fi

# ---- ucx-conduit, when it was built ----
if [ -f "$BUILDDIR/ucx-conduit/libgasnet-ucx-par.a" ]; then
    check_conduit ucx UCX UCX
fi

# ---- ibv-conduit, when it was built: both ranks neighbors (this host has no RDMA device:
# the network path is test_ibvlab.sh's, in a guest) ----
if [ -f "$BUILDDIR/ibv-conduit/libgasnet-ibv-par.a" ]; then
    GASNET_SUPERNODE_MAXSIZE=0 check_conduit ibv IBV "shared memory (PSHM)"
fi

if [ "$failed" -ne 0 ]; then exit 1; fi
echo "PASS test_install ($ROOT)"
exit 0
