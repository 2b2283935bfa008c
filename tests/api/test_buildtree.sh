#!/bin/bash
# tests/api/test_buildtree.sh: what clients that drive a GASNet source or build tree (UPC++'s
# configure and build, upcxx-run) read from it and run in it.  Layer: tests (driver).
#   test_buildtree.sh tree BUILDDIR SRCDIR
#     - docs/GASNet-EX.txt (the file newer UPC++ reads; no other docs/GASNet-EX.*) has the
#       GEX_SPEC_VERSION lines (read as UPC++ reads them: the first line naming
#       EX_SPEC_VERSION_MAJOR/MINOR, its first number) that give the version of
#       gasnet_config.h's GASNETI_EX_SPEC_VERSION_* and of gasnetex.h's GEX_SPEC_VERSION_*;
#     - `CONFIG_FILES=out:in ./config.status` substitutes PERL (runs), CONDUITS (the enabled
#       conduits), EXESUFFIX, CC_FAMILY/CXX_FAMILY (GNU for gcc/g++, Clang for clang) and
#       CC_SUBFAMILY/CXX_SUBFAMILY (set);
#     - the launchers are where build-tree clients look: `make -C other/amudp amudprun` gives
#       other/amudp/amudprun, and <c>-conduit/contrib/ has each conduit's launcher, runnable;
#     - `make install prefix=DIR` installs files that name DIR, never configure's prefix
#       (gasnet_config.h's record of configure's arguments aside), and test_install.sh passes
#       on DIR as it is (no relocation knob); a later `make` goes back to configure's prefix.
#   test_buildtree.sh configure BUILDDIR SRCDIR
#     the released configure options (UPC++ passes them): --with-cc/--with-cxx/--with-cflags/
#     --with-cxxflags become the compilers and flags of the fragments, --disable-parsync leaves
#     only seq and par, --enable-pthreads and --disable-segment-everything are accepted;
#     --disable-pthreads with --enable-par, --enable-segment-everything and a bare --with-cc
#     stop configure with a message naming the option.
#   test_buildtree.sh defaults BUILDDIR SRCDIR
#     the released library's conduit defaults: a bare configure builds smp and udp, probes
#     ofi-conduit only when asked (CONDUITS and the summary have no ofi, and the summary
#     says --enable-ofi turns it on); --enable-ofi builds it when libfabric is found and
#     otherwise stops configure saying why; an HPE Cray EX host (gasnet_cv_cray_ex=yes)
#     probes it by default.
set -u
[ $# -eq 3 ] || { echo "usage: test_buildtree.sh tree|configure|defaults BUILDDIR SRCDIR" >&2; exit 2; }
mode=$1
BUILDDIR=$(cd "$2" && pwd) || exit 2
SRCDIR=$(cd "$3" && pwd) || exit 2
MAKE=${MAKE:-make}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-buildtree.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0
bad() { echo "FAIL test_buildtree: $*"; failed=1; }
okmsg() { echo "ok   $*"; }
# a make of the build tree, outside any enclosing make's jobserver
tmake() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE "$@"; }
mkvar() { sed -n "s/^$1 = //p" "$BUILDDIR/Makefile" | head -1; }

# the first number after a space on the first line of FILE naming PATTERN (UPC++'s rule)
first_number() {
    local line
    line=$(grep "$2" "$1" | head -1 | tr '\t' ' ')
    [[ $line =~ ( ([0-9]+)) ]] && echo "${BASH_REMATCH[2]}"
}

check_tree() {
    # ---- the specification version, three ways ----
    local doc=$SRCDIR/docs/GASNet-EX.txt others
    others=$(cd "$SRCDIR/docs" && ls GASNet-EX.* 2>/dev/null | grep -vx 'GASNet-EX.txt')
    [ -z "$others" ] || bad "docs/ has other GASNet-EX.* files beside GASNet-EX.txt (one source of truth): $others"
    if [ ! -r "$doc" ]; then
        bad "docs/GASNet-EX.txt, where newer UPC++ reads the spec version, is missing"
    else
        local dmaj dmin cmaj cmin hmaj hmin
        dmaj=$(first_number "$doc" EX_SPEC_VERSION_MAJOR)
        dmin=$(first_number "$doc" EX_SPEC_VERSION_MINOR)
        cmaj=$(first_number "$BUILDDIR/gasnet_config.h" EX_SPEC_VERSION_MAJOR)
        cmin=$(first_number "$BUILDDIR/gasnet_config.h" EX_SPEC_VERSION_MINOR)
        printf '#include <gasnetex.h>\nGEXV GEX_SPEC_VERSION_MAJOR GEX_SPEC_VERSION_MINOR\n' > "$tmp/v.c"
        read -r _ hmaj hmin < <(gcc -E -P -DGASNET_SEQ -I"$SRCDIR" -I"$SRCDIR/other" -I"$BUILDDIR" -I"$SRCDIR/gasnet_core" \
            -I"$SRCDIR/gasnet_extended" -I"$SRCDIR/smp-conduit" -I"$BUILDDIR/other/inst/smp-conduit" "$tmp/v.c" | grep '^GEXV')
        if [ -n "$dmaj" ] && [ -n "$dmin" ] && [ "$dmaj.$dmin" = "$cmaj.$cmin" ] && [ "$dmaj.$dmin" = "$hmaj.$hmin" ]; then
            okmsg "spec version $dmaj.$dmin in docs/GASNet-EX.txt, gasnet_config.h and gasnetex.h"
        else
            bad "spec versions disagree: docs/GASNet-EX.txt '$dmaj.$dmin', gasnet_config.h '$cmaj.$cmin', gasnetex.h '$hmaj.$hmin'"
        fi
    fi

    # ---- what config.status substitutes for clients ----
    printf '%s\n' 'PERL=@PERL@' 'CONDUITS=@CONDUITS@' 'EXESUFFIX=<@EXESUFFIX@>' 'CC_FAMILY=@CC_FAMILY@' \
        'CXX_FAMILY=@CXX_FAMILY@' 'CC_SUBFAMILY=@CC_SUBFAMILY@' 'CXX_SUBFAMILY=@CXX_SUBFAMILY@' > "$tmp/in.txt"
    if ! (cd "$BUILDDIR" && env CONFIG_COMMANDS= CONFIG_LINKS= CONFIG_HEADERS= \
            CONFIG_FILES="$tmp/out.txt:$tmp/in.txt" ./config.status > "$tmp/cs.log" 2>&1); then
        bad "config.status with CONFIG_FILES=out:in failed: $(tail -3 "$tmp/cs.log")"
    elif grep -q '@' "$tmp/out.txt"; then
        bad "config.status left names unsubstituted: $(grep '@' "$tmp/out.txt" | tr '\n' ' ')"
    else
        local v perl conduits ccf cxxf cc cxx want_cc want_cxx sub
        v() { sed -n "s/^$1=//p" "$tmp/out.txt"; }
        perl=$(v PERL); conduits=$(v CONDUITS); ccf=$(v CC_FAMILY); cxxf=$(v CXX_FAMILY)
        cc=$(mkvar CC); cxx=$(mkvar CXX)
        family() { if $1 --version 2>/dev/null | grep -qi clang; then echo Clang
                   elif $1 --version 2>/dev/null | grep -q 'Free Software Foundation'; then echo GNU
                   else echo other; fi; }
        want_cc=$(family "$cc"); want_cxx=$(family "$cxx")
        [ -n "$perl" ] && "$perl" -e 'exit 0' && okmsg "PERL=$perl runs" || bad "PERL='$perl' does not run"
        [ "$conduits" = "$(mkvar GASNET_CONDUITS_ENABLED)" ] && okmsg "CONDUITS='$conduits'" \
            || bad "CONDUITS='$conduits', enabled: '$(mkvar GASNET_CONDUITS_ENABLED)'"
        [ "$(v EXESUFFIX)" = "<$(mkvar EXEEXT)>" ] && okmsg "EXESUFFIX='$(mkvar EXEEXT)'" || bad "EXESUFFIX $(v EXESUFFIX)"
        if [ "$want_cc" = other ] || [ "$ccf" = "$want_cc" ]; then okmsg "CC_FAMILY=$ccf ($cc)"
        else bad "CC_FAMILY=$ccf for $cc, which is $want_cc"; fi
        if [ "$want_cxx" = other ] || [ "$cxxf" = "$want_cxx" ]; then okmsg "CXX_FAMILY=$cxxf ($cxx)"
        else bad "CXX_FAMILY=$cxxf for $cxx, which is $want_cxx"; fi
        for sub in CC_SUBFAMILY CXX_SUBFAMILY; do
            [ -n "$(v $sub)" ] && okmsg "$sub=$(v $sub)" || bad "$sub is empty"
        done
    fi

    # ---- launchers where build-tree clients look ----
    local c launcher
    for c in $(mkvar GASNET_CONDUITS_ENABLED); do
        case $c in udp) launcher=amudprun ;; smp) continue ;; *) launcher=gasnetrun_$c ;; esac
        if [ -x "$BUILDDIR/$c-conduit/contrib/$launcher" ] && "$BUILDDIR/$c-conduit/contrib/$launcher" -h > /dev/null 2>&1; then
            okmsg "$c-conduit/contrib/$launcher runs"
        else
            bad "$c-conduit/contrib/$launcher missing or -h fails"
        fi
    done
    if [[ " $(mkvar GASNET_CONDUITS_ENABLED) " == *" udp "* ]]; then
        if tmake -C "$BUILDDIR/other/amudp" amudprun > "$tmp/amudp.log" 2>&1 && "$BUILDDIR/other/amudp/amudprun" -h > /dev/null 2>&1; then
            okmsg "make -C other/amudp amudprun; other/amudp/amudprun runs"
        else
            bad "make -C other/amudp amudprun: $(tail -3 "$tmp/amudp.log")"
        fi
    fi

    # ---- make install prefix=DIR ----
    local cfg_prefix inst=$tmp/inst
    cfg_prefix=$(mkvar prefix)
    if ! tmake -C "$BUILDDIR" install prefix="$inst" > "$tmp/install.log" 2>&1; then
        bad "make install prefix=$inst failed: $(tail -5 "$tmp/install.log")"
    else
        local stale
        # (the docs are copied as written: install.md names /usr/local as the default)
        stale=$(grep -rlF "$cfg_prefix" "$inst" | grep -v '/include/gasnet_config.h$\|/share/doc/GASNet/')
        stale+=$(grep -F "$cfg_prefix" "$inst/include/gasnet_config.h" | grep -v 'GASNETI_CONFIGURE_ARGS\|GASNETI_BUILD_ID')
        if [ -n "$stale" ]; then
            bad "make install prefix=$inst left configure's prefix $cfg_prefix in: $(echo $stale)"
        else
            okmsg "make install prefix=DIR: no installed file names configure's prefix"
        fi
        if bash "$SRCDIR/tests/api/test_install.sh" "$BUILDDIR" "$SRCDIR" "$inst" > "$tmp/ti.log" 2>&1; then
            okmsg "test_install.sh passes on the prefix=DIR installation ($(grep -c '^ok' "$tmp/ti.log") checks)"
        else
            bad "test_install.sh on the prefix=DIR installation:"; grep FAIL "$tmp/ti.log"
        fi
    fi
    if tmake -C "$BUILDDIR" > "$tmp/remake.log" 2>&1 && grep -qF "prefix=$cfg_prefix " "$BUILDDIR/other/prefix.stamp"; then
        okmsg "a later make goes back to configure's prefix"
    else
        bad "make after make install prefix=: $(tail -3 "$tmp/remake.log"; cat "$BUILDDIR/other/prefix.stamp")"
    fi
}

check_configure() {
    local cfg=$tmp/cfg log=$tmp/cfg.log
    mkdir -p "$cfg"
    if ! (cd "$cfg" && "$SRCDIR/configure" --disable-udp --disable-mpi --disable-ofi --disable-ucx --enable-smp \
            --with-cc=gcc --with-cxx=g++ --with-cflags='-O1 -DTEST_BUILDTREE_C' \
            --with-cxxflags='-O1 -DTEST_BUILDTREE_CXX' --disable-parsync --enable-seq --enable-par \
            --enable-pthreads --disable-segment-everything --disable-debug > "$log" 2>&1); then
        bad "configure with the released options failed: $(tail -5 "$log")"
        return
    fi
    okmsg "configure accepts --with-cc/--with-cxx/--with-cflags/--with-cxxflags, --disable-parsync, --enable-seq/par/pthreads, --disable-segment-everything"
    grep -qi 'warning.*unrecognized' "$log" && bad "configure warned: $(grep -i unrecognized "$log")"
    local v
    v() { sed -n "s/^$1 = //p" "$cfg/Makefile" | head -1; }
    [ "$(v CC)" = gcc ] && [ "$(v CXX)" = g++ ] && okmsg "CC=gcc CXX=g++" || bad "CC='$(v CC)' CXX='$(v CXX)'"
    [ "$(v CFLAGS)" = "-O1 -DTEST_BUILDTREE_C" ] && [ "$(v CXXFLAGS)" = "-O1 -DTEST_BUILDTREE_CXX" ] \
        && okmsg "CFLAGS and CXXFLAGS from --with-cflags/--with-cxxflags" || bad "CFLAGS='$(v CFLAGS)' CXXFLAGS='$(v CXXFLAGS)'"
    [ "$(v GASNET_MODES)" = "seq par" ] && grep -q '^#define GASNETI_MODES "seq par"$' "$cfg/gasnet_config.h" \
        && okmsg "modes: seq par" || bad "GASNET_MODES='$(v GASNET_MODES)'"
    # the fragment clients use carries the flags, and parsync is neither built nor installed
    if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE -C "$cfg" -n install prefix="$tmp/none" > "$tmp/n.log" 2>&1; then
        grep -q 'libgasnet-smp-parsync' "$tmp/n.log" && bad "make install would install parsync libraries" \
            || okmsg "make install installs no parsync library"
    else
        bad "make -n install: $(tail -3 "$tmp/n.log")"
    fi
    local opt
    for opt in "--disable-pthreads --enable-par" "--enable-segment-everything" "--with-cc"; do
        mkdir -p "$tmp/bad" && rm -rf "$tmp/bad"/*
        if (cd "$tmp/bad" && "$SRCDIR/configure" --disable-udp --disable-mpi --disable-ofi --disable-ucx $opt > "$tmp/bad.log" 2>&1); then
            bad "configure $opt succeeded"
        else
            local msg
            msg=$(grep 'error:' "$tmp/bad.log" | head -1)
            case $opt in *pthreads*) want=--disable-pthreads ;; *everything) want=EVERYTHING ;; *) want=--with-cc ;; esac
            [[ $msg == *"$want"* ]] && okmsg "configure $opt: $msg" || bad "configure $opt: message '$msg' does not name $want"
        fi
    done
}

# conf NAME ARGS...: configure in $tmp/NAME (output in $tmp/NAME.log); its status
conf() {
    local dir=$tmp/$1
    shift
    mkdir -p "$dir"
    (cd "$dir" && "$SRCDIR/configure" "$@" > "$dir.log" 2>&1)
}
# conduits NAME: CONDUITS of the configured build $tmp/NAME; ofi_line NAME: its summary's ofi line
conduits() { sed -n 's/^CONDUITS = //p' "$tmp/$1/Makefile" | head -1; }
ofi_line() { sed -n '/^GASNet-EX .* configured\.$/,$p' "$tmp/$1.log" | grep -E '^ +ofi ' | head -1; }

check_defaults() {
    local have_fabric=no c line
    pkg-config --exists libfabric 2>/dev/null && have_fabric=yes
    # a bare configure, as a user (or a client such as UPC++) runs it: no option at all
    if conf bare; then
        c=$(conduits bare); line=$(ofi_line bare)
        [[ " $c " == *" smp "* && " $c " == *" udp "* ]] && okmsg "bare configure: CONDUITS = $c" \
            || bad "bare configure: CONDUITS = '$c' lacks smp or udp"
        [[ " $c " == *" ofi "* ]] && bad "bare configure enabled ofi (libfabric found: $have_fabric): CONDUITS = $c"
        grep -q '^GASNETI_CONDUITS = .*OFI' "$tmp/bare/Makefile" && bad "bare configure: GASNETI_CONDUITS names OFI"
        if [[ $line == *skipped* && $line == *--enable-ofi* ]]; then okmsg "bare configure's summary: $(echo $line)"
        else bad "bare configure's summary must say ofi is skipped and how to enable it (--enable-ofi), not '$line'"; fi
        grep -q 'checking for libfabric' "$tmp/bare.log" && bad "bare configure looked for libfabric"
    else
        bad "bare configure failed: $(tail -5 "$tmp/bare.log")"
    fi
    # asked for: built where libfabric is found, else configure stops saying why
    local few=(--disable-udp --disable-mpi --disable-ibv --disable-ucx)
    if [ $have_fabric = yes ]; then
        if conf asked "${few[@]}" --enable-ofi; then
            c=$(conduits asked)
            [ "$c" = "smp ofi" ] && [[ $(ofi_line asked) == *enabled* ]] && okmsg "--enable-ofi: CONDUITS = $c" \
                || bad "--enable-ofi: CONDUITS = '$c', summary '$(ofi_line asked)'"
        else
            bad "configure --enable-ofi failed with libfabric installed: $(tail -5 "$tmp/asked.log")"
        fi
        if conf crayex "${few[@]}" gasnet_cv_cray_ex=yes; then
            c=$(conduits crayex)
            [ "$c" = "smp ofi" ] && okmsg "HPE Cray EX host (gasnet_cv_cray_ex=yes): CONDUITS = $c" \
                || bad "HPE Cray EX host (gasnet_cv_cray_ex=yes) without options: CONDUITS = '$c', not 'smp ofi'"
        else
            bad "configure on an HPE Cray EX host failed: $(tail -5 "$tmp/crayex.log")"
        fi
    else
        echo "skip: libfabric not found by pkg-config: --enable-ofi's build not checked"
    fi
    # asked for, libfabric not found (pkg-config given an empty search path): an error naming it
    mkdir -p "$tmp/nopc"
    if PKG_CONFIG_LIBDIR=$tmp/nopc PKG_CONFIG_PATH= conf missing "${few[@]}" --enable-ofi; then
        bad "configure --enable-ofi without libfabric succeeded: CONDUITS = $(conduits missing)"
    else
        line=$(grep 'error:' "$tmp/missing.log" | head -1)
        [[ $line == *--enable-ofi* && $line == *libfabric* ]] && okmsg "--enable-ofi without libfabric: $line" \
            || bad "--enable-ofi without libfabric: the error '$line' must name --enable-ofi and libfabric"
    fi
    conf bad "${few[@]}" --enable-ofi=off && bad "configure --enable-ofi=off succeeded" \
        || okmsg "--enable-ofi=off: $(grep 'error:' "$tmp/bad.log" | head -1)"
}

case $mode in
    tree) check_tree ;;
    configure) check_configure ;;
    defaults) check_defaults ;;
    *) echo "test_buildtree.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
[ $failed -eq 0 ] && echo "PASS test_buildtree $mode" || echo "FAIL test_buildtree $mode"
exit $failed
