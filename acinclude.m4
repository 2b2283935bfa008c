# acinclude.m4: configure macros shared by every conduit (BUILD layer).
# aclocal copies this file into aclocal.m4. The conduit macros below are the only way a
# conduit enters configure: <c>-conduit/conduit.m4 calls GASNET_CONDUIT, a conduit that is
# not written yet is named by GASNET_CONDUIT_UNAVAILABLE in configure.ac.

# GASNET_CONDUIT(NAME, HELP, CHECKS, [DEFAULT])
# --------------------------------------------------------------------------------------
# Declares --enable-NAME/--disable-NAME. Without either option the conduit is built when
# CHECKS find what it needs; with --enable-NAME a failed check stops configure.
# DEFAULT, when given, is shell code run only when neither option was given: it may set
# enable_NAME=off and gasnet_conduit_why="<reason, saying which option turns it on>", and
# then CHECKS are not run at all (a conduit the released library probes only when asked).
# CHECKS run with gasnet_conduit_ok=yes and, to skip the conduit, set
# gasnet_conduit_ok=no and gasnet_conduit_why="<reason shown in the summary>".
# Defines the automake conditional HAVE_<NAME>_CONDUIT, generates the forwarding
# NAME-conduit/Makefile from other/conduit-forward.mk.in, and records the conduit in
# GASNET_CONDUITS_ENABLED (make: "smp udp"), GASNETI_CONDUITS (C: "SMP UDP") and the
# summary.
AC_DEFUN([GASNET_CONDUIT], [
gasnet_conduit_ok=no
gasnet_conduit_why=
AC_ARG_ENABLE([$1], [AS_HELP_STRING([--enable-$1], [$2])],
  [AS_CASE([$enableval], [yes|no], [],
     [AC_MSG_ERROR([bad value '$enableval' for --enable-$1 (use yes or no)])])],
  [enable_$1=auto
   $4])
AS_CASE([$enable_$1],
  [no], [gasnet_conduit_why="disabled by --disable-$1"],
  [off], [],
  [
    gasnet_conduit_ok=yes
    $3
  ])
AC_MSG_CHECKING([whether to build $1-conduit])
AS_IF([test "$gasnet_conduit_ok" = yes], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no: $gasnet_conduit_why])])
AS_IF([test "$enable_$1" = yes && test "$gasnet_conduit_ok" != yes],
      [AC_MSG_ERROR([--enable-$1 was given, but $1-conduit cannot be built: $gasnet_conduit_why])])
AS_IF([test "$gasnet_conduit_ok" = yes],
      [GASNET_CONDUITS_ENABLED="$GASNET_CONDUITS_ENABLED $1"
       GASNETI_CONDUITS="$GASNETI_CONDUITS m4_toupper([$1])"
       GASNET_SUMMARY_ADD([$1], [enabled])],
      [GASNET_SUMMARY_ADD([$1], [skipped: $gasnet_conduit_why])])
AM_CONDITIONAL([HAVE_]m4_toupper([$1])[_CONDUIT], [test "$gasnet_conduit_ok" = yes])
AC_CONFIG_FILES([$1-conduit/Makefile:other/conduit-forward.mk.in])
])

# GASNET_CONDUIT_UNAVAILABLE(NAME)
# --------------------------------------------------------------------------------------
# A conduit not written yet: --enable-NAME stops configure with a message saying so,
# --disable-NAME is accepted, and the summary lists it as skipped with that reason.
# Writing the conduit replaces this line of configure.ac by m4_include of its conduit.m4.
AC_DEFUN([GASNET_CONDUIT_UNAVAILABLE], [
AC_ARG_ENABLE([$1], [AS_HELP_STRING([--enable-$1], [$1-conduit (not available in this release)])],
  [], [enable_$1=no])
AS_IF([test "x$enable_$1" != xno],
      [AC_MSG_ERROR([$1-conduit is not available in this release])])
GASNET_SUMMARY_ADD([$1], [skipped: $1-conduit is not available in this release])
AM_CONDITIONAL([HAVE_]m4_toupper([$1])[_CONDUIT], [false])
])

# GASNET_CRAY_EX: is this an HPE Cray EX host? (yes or no in gasnet_cv_cray_ex, cached:
# configure gasnet_cv_cray_ex=yes|no overrides the test). The released library probes
# ofi-conduit by default only there. A Cray EX host has both
#   - the HPE Cray Programming Environment: the directory /opt/cray/pe, and
#   - a sign of the Slingshot NIC: an entry in /sys/class/cxi (the cxi driver's devices),
#     or a libfabric whose provider list (fi_info -l) names cxi.
AC_DEFUN_ONCE([GASNET_CRAY_EX], [
AC_CACHE_CHECK([whether this is an HPE Cray EX host (/opt/cray/pe and Slingshot cxi)],
  [gasnet_cv_cray_ex], [
  gasnet_cv_cray_ex=no
  AS_IF([test -d /opt/cray/pe], [
    AS_IF([test -n "`ls /sys/class/cxi 2>/dev/null`"], [gasnet_cv_cray_ex=yes],
          [(fi_info -l) 2>/dev/null | grep '^cxi' >/dev/null], [gasnet_cv_cray_ex=yes])
  ])
])
])

# GASNET_SUMMARY_ADD(NAME, TEXT): one line of the conduit table printed at the end.
AC_DEFUN([GASNET_SUMMARY_ADD], [
gasnet_summary_conduits="$gasnet_summary_conduits
    m4_format([%-6s], [$1]) $2"
])

# GASNET_C_STRING(VAR, VALUE): VAR = VALUE escaped for use inside a C string literal.
AC_DEFUN([GASNET_C_STRING], [
$1=$(AS_ECHO(["$2"]) | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' | tr '\n' ' ' | sed -e 's/^ *//' -e 's/ *$//')
])

# GASNET_COMPILER_FAMILY(VAR, LANG): the family of compiler $VAR for LANG (C or C++), from
# its predefined macros, in VAR_FAMILY (Intel, PGI, Clang, GNU, or unknown) and
# VAR_SUBFAMILY (NVIDIA for NVIDIA's HPC compilers, which are PGI's; Apple for Apple's
# clang; none otherwise); both substituted. The first family whose macro is defined wins
# (clang and Intel's compilers define __GNUC__ too).
AC_DEFUN([GASNET_COMPILER_FAMILY], [
AC_LANG_PUSH([$2])
AC_MSG_CHECKING([the family of the $2 compiler $$1])
$1_FAMILY=unknown
$1_SUBFAMILY=none
for gasnet_fam in Intel:__INTEL_COMPILER:none Intel:__INTEL_LLVM_COMPILER:none \
                  PGI:__NVCOMPILER:NVIDIA PGI:__PGI:none Clang:__apple_build_version__:Apple \
                  Clang:__clang__:none GNU:__GNUC__:none; do
  gasnet_fam_macro=`echo $gasnet_fam | cut -d: -f2`
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#ifndef $gasnet_fam_macro
#error not this family
#endif]], [])],
    [$1_FAMILY=`echo $gasnet_fam | cut -d: -f1`
     $1_SUBFAMILY=`echo $gasnet_fam | cut -d: -f3`
     break])
done
AC_MSG_RESULT([$$1_FAMILY (subfamily $$1_SUBFAMILY)])
AC_LANG_POP([$2])
AC_SUBST([$1_FAMILY])
AC_SUBST([$1_SUBFAMILY])
])

# GASNET_HWLOC: hwloc for the choice of the network device nearest a process's CPUs
# (gasnet_core/gasneti_nic.c, used by ibv and ofi). Optional: found by pkg-config (package
# hwloc: Debian's libhwloc-dev) unless --without-hwloc; without it, conduits use the
# first device and say so under GASNET_VERBOSEENV. Expanded once, by the first conduit
# that calls it. Substitutes HWLOC_CPPFLAGS and HWLOC_LIBS (with -DGASNETI_HAVE_HWLOC=1).
AC_DEFUN_ONCE([GASNET_HWLOC], [
AC_ARG_WITH([hwloc], [AS_HELP_STRING([--without-hwloc],
  [do not use hwloc to choose the network device nearest each process (default: use it if found)])],
  [], [with_hwloc=auto])
HWLOC_CPPFLAGS= HWLOC_LIBS= gasnet_hwloc=no
AS_IF([test "x$with_hwloc" != xno], [
  AS_IF([test -z "$PKG_CONFIG"], [AC_PATH_PROG([PKG_CONFIG], [pkg-config])])
  AC_MSG_CHECKING([for hwloc with pkg-config])
  AS_IF([test -n "$PKG_CONFIG" && $PKG_CONFIG --exists hwloc 2>/dev/null],
    [gasnet_hwloc_cppflags=`$PKG_CONFIG --cflags hwloc` gasnet_hwloc_libs=`$PKG_CONFIG --libs hwloc`
     gasnet_hwloc_version=`$PKG_CONFIG --modversion hwloc`
     AC_MSG_RESULT([version $gasnet_hwloc_version])
     gasnet_hwloc_save_CPPFLAGS=$CPPFLAGS gasnet_hwloc_save_LIBS=$LIBS
     CPPFLAGS="$CPPFLAGS $gasnet_hwloc_cppflags" LIBS="$gasnet_hwloc_libs $LIBS"
     AC_MSG_CHECKING([whether an hwloc program compiles and links])
     AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <hwloc.h>]],
       [[hwloc_topology_t t; hwloc_topology_init(&t);
         hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
         return hwloc_get_next_osdev(t, 0) != 0;]])],
       [AC_MSG_RESULT([yes]); gasnet_hwloc=yes
        HWLOC_CPPFLAGS="$gasnet_hwloc_cppflags -DGASNETI_HAVE_HWLOC=1" HWLOC_LIBS=$gasnet_hwloc_libs],
       [AC_MSG_RESULT([no (see config.log)])])
     CPPFLAGS=$gasnet_hwloc_save_CPPFLAGS LIBS=$gasnet_hwloc_save_LIBS],
    [AC_MSG_RESULT([no (Debian: apt-get install libhwloc-dev)])])
  AS_IF([test "x$with_hwloc" = xyes && test $gasnet_hwloc = no],
    [AC_MSG_ERROR([--with-hwloc was given, but hwloc was not found or does not link])])
])
AS_IF([test $gasnet_hwloc = yes], [GASNET_SUMMARY_ADD([], [hwloc: yes (the NIC nearest each process)])],
  [GASNET_SUMMARY_ADD([], [hwloc: no (the first NIC; --with-hwloc, libhwloc-dev)])])
AC_SUBST([HWLOC_CPPFLAGS])
AC_SUBST([HWLOC_LIBS])
])
