#!/bin/bash
# tests/api/test_released_names.sh: every public name the released GASNet-EX documents
# exists here.  Layer: tests (driver; full tier).
#   test_released_names.sh BUILDDIR SRCDIR [SPECDIR]
# SPECDIR (default: SRCDIR/../shared/spec/released-2025.8, or $GASNET_RELEASED_SPEC) holds
# the released reference: GASNet-EX.txt, README-tools.txt, implementation_defined.md,
# gasnet1_differences.md.  Every gex_, GEX_, gasnet_, GASNET_, gasnett_ and GASNETT_ name
# they mention must appear in what a client sees after including every public header
# (gasnetex.h, gasnet.h, gasnet_tools.h, gasnet_vis.h, gasnet_coll.h, gasnet_ratomic.h,
# gasnet_mk.h, gasnet_portable_platform.h) with the build tree's smp-seq.mak flags
# (preprocessed with -dD: macros, functions, types, enumerators), unless
# tests/api/released_names_absent lists it with the reason.  A listed name that this
# library defines after all is reported too (the list must stay true), except those the
# list marks "conditional"; one it marks "env" must be read by the library's sources.  Skips (77) when the released reference is not there.
set -u
[ $# -ge 2 ] || { echo "usage: test_released_names.sh BUILDDIR SRCDIR [SPECDIR]" >&2; exit 2; }
BUILDDIR=$(cd "$1" && pwd) || exit 2
SRCDIR=$(cd "$2" && pwd) || exit 2
SPECDIR=${3:-${GASNET_RELEASED_SPEC:-$SRCDIR/../shared/spec/released-2025.8}}
MAKE=${MAKE:-make}
docs=(GASNet-EX.txt README-tools.txt implementation_defined.md gasnet1_differences.md)
for d in "${docs[@]}"; do
    [ -r "$SPECDIR/$d" ] || { echo "skip: no released reference at $SPECDIR/$d (set GASNET_RELEASED_SPEC)"; exit 77; }
done
frag=$BUILDDIR/smp-conduit/smp-seq.mak
[ -r "$frag" ] || { echo "skip: no smp-conduit in this build ($frag)"; exit 77; }
absent=$SRCDIR/tests/api/released_names_absent
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gasnet-test-names.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0
bad() { echo "FAIL test_released_names: $*"; failed=1; }

# the client's flags, from the build tree's fragment
printf 'include %s\nprint:\n\t@echo "$(GASNET_CPPFLAGS)"; echo "$(GASNET_CC)"\n' "$frag" > "$tmp/vars.mk"
out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $MAKE -s -f "$tmp/vars.mk" print) || { bad "cannot read $frag"; exit 1; }
{ read -r cppflags; read -r cc; } <<< "$out"
printf '#include <%s>\n' gasnetex.h gasnet.h gasnet_tools.h gasnet_vis.h gasnet_coll.h gasnet_ratomic.h \
    gasnet_mk.h gasnet_portable_platform.h > "$tmp/all.c"
# shellcheck disable=SC2086  (the flags are words)
if ! $cc $cppflags -E -dD "$tmp/all.c" > "$tmp/all.i" 2> "$tmp/cpp.log"; then
    bad "the public headers do not preprocess:"; head -20 "$tmp/cpp.log"; exit 1
fi
grep -ohE '\b[A-Za-z_][A-Za-z0-9_]*' "$tmp/all.i" | sort -u > "$tmp/have"

# the released names: whole words only (a name the text cuts off at '_' or writes with a
# placeholder, GEX_FLAG_TM_* or gex_VIS_{Vector,...}, is not a name)
for d in "${docs[@]}"; do
    grep -oE '\b(gex|GEX|gasnet|GASNET|gasnett|GASNETT)_[A-Za-z0-9_]*[*{[<]?' "$SPECDIR/$d" | grep -vE '[_*{[<]$'
done | sort -u > "$tmp/released"
sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$absent" | awk 'NF { print $1 }' | sort -u > "$tmp/listed"
grep -E '^[A-Za-z_][A-Za-z0-9_]*[[:space:]]+conditional\b' "$absent" | awk '{ print $1 }' | sort -u > "$tmp/conditional"

comm -23 "$tmp/released" "$tmp/have" > "$tmp/missing"
comm -23 "$tmp/missing" "$tmp/listed" > "$tmp/unexplained"
if [ -s "$tmp/unexplained" ]; then
    bad "$(wc -l < "$tmp/unexplained") released name(s) missing here and not in released_names_absent:"
    sed 's/^/    /' "$tmp/unexplained"
fi
# listed as absent but defined here after all (the list would be stale)
comm -12 "$tmp/listed" "$tmp/have" | comm -23 - "$tmp/conditional" > "$tmp/stale"
if [ -s "$tmp/stale" ]; then
    bad "released_names_absent lists name(s) that this library defines:"
    sed 's/^/    /' "$tmp/stale"
fi
# a listed name the released text never mentions is a typo in the list
comm -13 "$tmp/released" "$tmp/listed" > "$tmp/unknown"
if [ -s "$tmp/unknown" ]; then
    bad "released_names_absent lists name(s) the released reference does not mention:"
    sed 's/^/    /' "$tmp/unknown"
fi
# an environment variable must be read by the library (its name in quotes in a source file)
for v in $(sed 's/#.*//' "$absent" | awk '$2 == "env" { print $1 }'); do
    grep -rqF --include='*.c' "\"$v\"" "$SRCDIR/gasnet_core" "$SRCDIR/gasnet_extended" "$SRCDIR/other" ||
        bad "$v is listed as an environment variable the library reads, but no source reads \"$v\""
done
n=$(wc -l < "$tmp/released")
[ "$n" -gt 400 ] || bad "only $n names read from $SPECDIR: the extraction is broken"
if [ $failed -eq 0 ]; then
    echo "ok   $n released names: $((n - $(wc -l < "$tmp/missing"))) defined here, $(wc -l < "$tmp/missing") absent as listed (tests/api/released_names_absent)"
    echo "PASS test_released_names"
fi
exit $failed
