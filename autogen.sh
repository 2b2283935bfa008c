#!/bin/sh
# autogen.sh: makes configure and the Makefile.in files from configure.ac, Makefile.am,
# acinclude.m4 and the conduits' conduit.m4/conduit.am (BUILD layer). Run it once after a
# checkout, then ./configure && make. Needs autoconf >= 2.69 and automake >= 1.15
# (Debian: apt-get install autoconf automake).
set -e
cd "$(dirname "$0")"
for tool in autoreconf autoconf automake aclocal; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "autogen.sh: '$tool' not found; install autoconf and automake (Debian: apt-get install autoconf automake)" >&2
    exit 1
  fi
done
autoreconf --install --force "$@"
echo "autogen.sh: done; now run ./configure --prefix=DIR && make && make install"
