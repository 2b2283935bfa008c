#!/bin/bash
# tests/api/test_newclient.sh: the start of a newer client (UPC++ 2021.9 and later), played
# on a copy of this source tree.  Layer: tests (driver; full tier).
#   test_newclient.sh BUILDDIR SRCDIR
# Copies the source tree (without build or install directories inside it) and checks the
# layout such a client reads before it configures anything:
#   - docs/GASNet-EX.txt: the first line naming EX_SPEC_VERSION_MAJOR, and the first naming
#     EX_SPEC_VERSION_MINOR, carry a number (the client's rule), equal to gasnetex.h's
#     GEX_SPEC_VERSION_MAJOR/MINOR;
#   - other/gasnet_portable_platform.h (and no second copy at the top);
#   - gasnet_config.h.in at the top.
# Then compiles tests/api/test_newclient_probe.cc as the client's header probe does (C++,
# -std=c++11 and -std=c++17, -Wall -Wextra -Werror, with -I<copy>/other first), both with
# the build tree's fragment (<c>-conduit/<c>-seq.mak) and with the installed one (make
# install DESTDIR=<tmp>), links and runs it: it must print "newclient probe: PASS", every
# optional name as this library claims, and a platform line whose CPU and OS match uname
# and whose compiler family matches the compiler (g++: GNU; clang++: CLANG, when there).
# Also: a client including only gasnetex.h gets PRIuSZ/PRIdSZ/PRIxSZ, MIN and MAX, in C and
# C++, with -Wall -Wextra -Werror.  The temporary directory is removed.
set -u
[ $# -eq 2 ] || { echo "usage: test_newclient.sh BUILDDIR SRCDIR" >&2; exit 2; }
BUILDDIR=$(cd "$1" && pwd) || exit 2
SRCDIR=$(cd "$2" && pwd) || exit 2
MAKE=${MAKE:-make}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-newclient.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0
bad() { echo "FAIL test_newclient: $*"; failed=1; }
okmsg() { echo "ok   $*"; }
mkvar() { sed -n "s/^$1 = //p" "$BUILDDIR/Makefile" | head -1; }

# ---- a copy of the source tree: every top-level entry but build and install directories ----
copy=$tmp/gasnet-src
mkdir -p "$copy"
entries=()
for e in "$SRCDIR"/* "$SRCDIR"/.[!.]*; do
    [ -e "$e" ] || continue
    n=${e##*/}
    [ "$e" -ef "$BUILDDIR" ] && continue
    if [ -d "$e" ] && { [ -e "$e/config.status" ] || [ -e "$e/include/gasnetex.h" ] || [ "$n" = .git ] ||
                        [ "$n" = autom4te.cache ]; }; then
        continue
    fi
    entries+=("$n")
done
if tar -C "$SRCDIR" -cf - "${entries[@]}" | tar -C "$copy" -xf -; then
    okmsg "copied the source tree (${#entries[@]} top-level entries, $(du -sk "$copy" | cut -f1) KB)"
else
    bad "could not copy $SRCDIR"; exit 1
fi

# ---- the layout ----
# the first number after a space on the first line of FILE naming PATTERN
first_number() {
    local line
    line=$(grep "$2" "$1" | head -1 | tr '\t' ' ')
    [[ $line =~ ( ([0-9]+)) ]] && echo "${BASH_REMATCH[2]}"
}
dmaj= dmin=
if [ -r "$copy/docs/GASNet-EX.txt" ]; then
    dmaj=$(first_number "$copy/docs/GASNet-EX.txt" EX_SPEC_VERSION_MAJOR)
    dmin=$(first_number "$copy/docs/GASNet-EX.txt" EX_SPEC_VERSION_MINOR)
    if [ -n "$dmaj" ] && [ -n "$dmin" ]; then okmsg "docs/GASNet-EX.txt: spec version $dmaj.$dmin"
    else bad "docs/GASNet-EX.txt has no EX_SPEC_VERSION_MAJOR/MINOR lines with a number"; fi
else
    bad "docs/GASNet-EX.txt is missing (newer UPC++'s configure reads the spec version there)"
fi
[ -f "$copy/other/gasnet_portable_platform.h" ] && okmsg "other/gasnet_portable_platform.h is there" ||
    bad "other/gasnet_portable_platform.h is missing (newer UPC++ compiles with -I<src>/other)"
[ -e "$copy/gasnet_portable_platform.h" ] && bad "a second gasnet_portable_platform.h at the top of the tree"
[ -f "$copy/gasnet_config.h.in" ] && okmsg "gasnet_config.h.in is at the top" || bad "gasnet_config.h.in is missing"

# ---- the header probe, against a fragment's flags ----
conduits=" $(mkvar GASNET_CONDUITS_ENABLED) "
conduit=smp
[[ $conduits == *" smp "* ]] || conduit=$(echo $conduits | cut -d' ' -f1)
[ -n "$conduit" ] || { bad "no conduit enabled in $BUILDDIR"; exit 1; }
case $(uname -m) in
    x86_64|amd64) want_arch=X86_64 ;; i?86) want_arch=X86 ;; aarch64|arm64) want_arch=AARCH64 ;;
    arm*) want_arch=ARM ;; ppc*|powerpc*) want_arch=POWERPC ;; riscv*) want_arch=RISCV ;; *) want_arch=UNKNOWN ;;
esac
case $(uname -s) in Linux) want_os=LINUX ;; Darwin) want_os=DARWIN ;; FreeBSD) want_os=FREEBSD ;; *) want_os=UNKNOWN ;; esac

# frag_vars FRAGMENT [MAKE ARGS]: sets cppflags, cxxflags, ldflags, libs from the fragment
frag_vars() {
    local frag=$1 out
    shift
    printf 'include %s\nprint:\n\t@echo "$(GASNET_CXXCPPFLAGS)"; echo "$(GASNET_CXXFLAGS)"; echo "$(GASNET_LDFLAGS)"; echo "$(GASNET_LIBS)"\n' \
        "$frag" > "$tmp/vars.mk"
    out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE -s -f "$tmp/vars.mk" print "$@") || return 1
    { read -r cppflags; read -r cxxflags; read -r ldflags; read -r libs; } <<< "$out"
}

# probe WHERE CXX STD: compile, link, run, check the output
probe() {
    local where=$1 cxx=$2 std=$3 name out family
    name="$where $(basename "$cxx") $std"
    out=$tmp/probe-$where-$(basename "$cxx")$std
    # shellcheck disable=SC2086  (the flags are words)
    if ! "$cxx" $std -Wall -Wextra -Werror -I"$copy/other" $cppflags $cxxflags -o "$out" \
            "$SRCDIR/tests/api/test_newclient_probe.cc" $ldflags $libs > "$out.log" 2>&1; then
        bad "$name: the probe does not build:"; sed 's/^/    /' "$out.log" | head -20; return
    fi
    if ! "$out" > "$out.run" 2>&1; then
        bad "$name: the probe failed:"; sed 's/^/    /' "$out.run"; return
    fi
    case $(basename "$cxx") in *clang*) family=CLANG ;; *g++*|c++) family=GNU ;; *) family= ;; esac
    grep -q '^newclient probe: PASS$' "$out.run" || { bad "$name: no PASS line"; return; }
    local plat
    plat=$(sed -n 's/^platform //p' "$out.run")
    [ "${plat%% *}" = "$want_arch" ] || bad "$name: PLATFORM_ARCH is '${plat%% *}', uname -m says $want_arch"
    [ "$(echo "$plat" | cut -d' ' -f2)" = "$want_os" ] || bad "$name: PLATFORM_OS is '$(echo "$plat" | cut -d' ' -f2)', uname -s says $want_os"
    [ -z "$family" ] || [ "${plat##* }" = "$family" ] || bad "$name: PLATFORM_COMPILER is '${plat##* }' for $cxx"
    grep -q "^spec $dmaj.$dmin\$" "$out.run" || bad "$name: gasnetex.h's spec version ($(sed -n 's/^spec //p' "$out.run")) is not docs/GASNet-EX.txt's ($dmaj.$dmin)"
    local np=absent
    case $conduit in smp|ofi) np=present ;; esac
    for want in "GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM $np" "GASNET_HAVE_MK_CLASS_CUDA_UVA absent" \
                "GASNET_HAVE_MK_CLASS_HIP absent" "GASNET_HAVE_MK_CLASS_ZE absent" "GASNET_HAVE_MK_CLASS_MULTIPLE absent" \
                "gasnett_assume present"; do
        grep -qx "optional $want" "$out.run" || bad "$name: expected 'optional $want', got: $(grep "optional ${want% *}" "$out.run")"
    done
    okmsg "$name: probe built (-Werror), ran: platform $plat, $(grep -c '^optional' "$out.run") optional names as claimed"
}

cxx=$(mkvar CXX)
compilers=("$cxx")
if command -v clang++ > /dev/null 2>&1 && [[ $cxx != *clang* ]]; then compilers+=(clang++); fi

if frag_vars "$BUILDDIR/$conduit-conduit/$conduit-seq.mak"; then
    for c in "${compilers[@]}"; do
        for std in -std=c++11 -std=c++17; do probe buildtree "$c" "$std"; done
    done
else
    bad "cannot read $BUILDDIR/$conduit-conduit/$conduit-seq.mak"
fi

if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE -C "$BUILDDIR" install DESTDIR="$tmp/stage" > "$tmp/install.log" 2>&1; then
    root=$tmp/stage$(mkvar prefix)
    [ -f "$root/include/gasnet_portable_platform.h" ] && okmsg "installed include/gasnet_portable_platform.h" ||
        bad "include/gasnet_portable_platform.h is not installed"
    if frag_vars "$root/include/$conduit-conduit/$conduit-seq.mak" GASNET_PREFIX="$root"; then
        probe installed "$cxx" -std=c++11
    else
        bad "cannot read the installed $conduit-seq.mak"
    fi
    # only gasnetex.h: PRIuSZ, MIN, MAX for C and C++ clients
    printf '%s\n' '#include <gasnetex.h>' '#include <stdio.h>' '#include <string.h>' \
        'int main(void) {' '    char b[64];' '    size_t n = 42;' \
        '    snprintf(b, sizeof b, "%" PRIuSZ " %" PRIdSZ " %" PRIxSZ, n, -(ssize_t)n, n);' \
        '    return strcmp(b, "42 -42 2a") != 0 || MIN(n, (size_t)7) != 7 || MAX(1, 2) != 2;' '}' > "$tmp/onlyex.c"
    cp "$tmp/onlyex.c" "$tmp/onlyex.cc"
    cc=$(mkvar CC)
    for src in onlyex.c onlyex.cc; do
        comp=$cc; [ "$src" = onlyex.cc ] && comp=$cxx
        # shellcheck disable=SC2086
        if $comp -Wall -Wextra -Werror $cppflags -o "$tmp/${src%.*}" "$tmp/$src" $ldflags $libs > "$tmp/$src.log" 2>&1 &&
           "$tmp/${src%.*}"; then
            okmsg "$src (only gasnetex.h, installed, -Wall -Wextra -Werror): PRIuSZ/PRIdSZ/PRIxSZ, MIN, MAX"
        else
            bad "$src (only gasnetex.h): PRIuSZ/MIN/MAX client failed:"; sed 's/^/    /' "$tmp/$src.log" | head -20
        fi
    done
else
    bad "make install DESTDIR=$tmp/stage failed: $(tail -5 "$tmp/install.log")"
fi

[ $failed -eq 0 ] && echo "PASS test_newclient" || echo "FAIL test_newclient"
exit $failed
