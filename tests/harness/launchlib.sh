# tests/harness/launchlib.sh: what the launcher tests' drivers share (test_launcher.sh,
# test_gasnetrun_smp.sh, test_ofispawn.sh, test_mpilaunch.sh), sourced by each.
# Layer: tests (harness).  The caller sets NAME (the case's name), out and err (the files
# holding the last job's stdout and stderr) and failed=0 before calling:
#   bad MESSAGE...   one FAIL line, then the last job's output; failed=1
#   ok MESSAGE...    one "ok" line
#   hexof STRING     the string in hex as test_launch prints an argument ("x" first, so
#                    that an empty one is a word too)
bad() {
    echo "FAIL $NAME: $*"
    echo "--- stdout:"; cat "$out"; echo "--- stderr:"; cat "$err"
    failed=1
}
ok() { echo "ok   $*"; }
hexof() { printf 'x'; printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'; }
