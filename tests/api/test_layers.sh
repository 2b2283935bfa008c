#!/bin/bash
# tests/api/test_layers.sh: dependence runs one way (docs/layers.md). No code of
# gasnet_core/ (comments aside) names a gasnete_ symbol or includes an extended-layer
# header: for each file, `gcc -fpreprocessed -dD -E -P -x c FILE` (the code without its
# comments, macros unexpanded) must not contain `gasnete_` or `gasnet_extended/`.
# (test_core_am links the core without gasnet_extended/, which catches what a macro hides.)
#   test_layers.sh SRCDIR
# Layer: tests (driver script). Exit 0 on success, 1 naming each offending file and line.
set -u
srcdir=${1:?usage: test_layers.sh SRCDIR}
cc=${CC:-gcc}
files=("$srcdir"/gasnet_core/*)
[ -e "${files[0]}" ] || { echo "test_layers: no files in $srcdir/gasnet_core"; exit 1; }
bad=0 n=0
for f in "${files[@]}"; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    if ! code=$("$cc" -fpreprocessed -dD -E -P -x c "$f" 2>&1); then
        echo "test_layers: FAILED: $cc could not read ${f#$srcdir/}: $code"
        bad=1
        continue
    fi
    hits=$(grep -n 'gasnete_\|gasnet_extended/' <<<"$code")
    if [ -n "$hits" ]; then
        echo "test_layers: FAILED: ${f#$srcdir/} names the extended layer (lines of its code without comments):"
        sed 's/^/    /' <<<"$hits"
        bad=1
    fi
done
[ $bad = 0 ] && echo "test_layers: PASS: none of the $n files of gasnet_core/ names gasnete_ or gasnet_extended/"
exit $bad
