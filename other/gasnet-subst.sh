#!/bin/sh
# other/gasnet-subst.sh TEMPLATE OUTPUT (BUILD layer; run by make rules in Makefile.am).
# Copies TEMPLATE to OUTPUT, replacing every @NAME@ by the value of the environment
# variable GS_NAME. An @NAME@ with no GS_NAME set is an error, so a template and the
# rule that fills it cannot drift apart silently. Values are inserted verbatim.
if [ $# -ne 2 ]; then
  echo "usage: $0 TEMPLATE OUTPUT" >&2
  exit 2
fi
tmp="$2.tmp$$"
if awk '
{
  line = $0; out = ""
  while (match(line, /@[A-Z_]+@/)) {
    name = substr(line, RSTART + 1, RLENGTH - 2)
    if (!(("GS_" name) in ENVIRON)) {
      printf "%s:%d: no value given for @%s@\n", FILENAME, FNR, name > "/dev/stderr"
      failed = 1
      exit 1
    }
    out = out substr(line, 1, RSTART - 1) ENVIRON["GS_" name]
    line = substr(line, RSTART + RLENGTH)
  }
  print out line
}
END { if (failed) exit 1 }' "$1" > "$tmp"; then
  mv -f "$tmp" "$2"
else
  rm -f "$tmp"
  exit 1
fi
