# ofi-conduit/conduit.m4: configure checks of ofi-conduit (BUILD layer, included by
# configure.ac). ofi needs libfabric, found with pkg-config (package libfabric: Debian's
# libfabric-dev), whose <rdma/fabric.h> compiles and whose fi_getinfo links, POSIX shared
# memory (same-host peers) and pthreads. Substitutes OFI_CPPFLAGS and OFI_LIBS.
# As in the released library, ofi is probed only when asked (--enable-ofi), except on an
# HPE Cray EX host (GASNET_CRAY_EX, acinclude.m4), where it is built if libfabric is found.
GASNET_CONDUIT([ofi], [build ofi-conduit: Active Messages over libfabric, launched by gasnetrun_ofi (default: no, except on an HPE Cray EX host: yes there if libfabric is found)], [
  AS_IF([test -z "$PKG_CONFIG"], [AC_PATH_PROG([PKG_CONFIG], [pkg-config])])
  AC_MSG_CHECKING([for libfabric with pkg-config])
  AS_IF([test -z "$PKG_CONFIG"],
    [AC_MSG_RESULT([no])
     gasnet_conduit_ok=no; gasnet_conduit_why="pkg-config not found (needed to find libfabric)"],
  [! $PKG_CONFIG --exists libfabric 2>/dev/null],
    [AC_MSG_RESULT([no])
     gasnet_conduit_ok=no; gasnet_conduit_why="libfabric not found by pkg-config (Debian: apt-get install libfabric-dev; or set PKG_CONFIG_PATH)"],
    [OFI_CPPFLAGS=`$PKG_CONFIG --cflags libfabric`
     OFI_LIBS=`$PKG_CONFIG --libs libfabric`
     gasnet_ofi_version=`$PKG_CONFIG --modversion libfabric`
     AC_MSG_RESULT([version $gasnet_ofi_version: $OFI_CPPFLAGS $OFI_LIBS])])
  AS_IF([test "$gasnet_conduit_ok" = yes], [
    gasnet_ofi_save_CPPFLAGS=$CPPFLAGS gasnet_ofi_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $OFI_CPPFLAGS" LIBS="$OFI_LIBS $LIBS"
    AC_MSG_CHECKING([whether a libfabric program compiles and links])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <rdma/fabric.h>
#include <rdma/fi_endpoint.h>]], [[struct fi_info *i = fi_allocinfo();
      return fi_getinfo(FI_VERSION(1, 5), 0, 0, 0, i, &i) + (int)fi_version();]])],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       gasnet_conduit_ok=no; gasnet_conduit_why="<rdma/fabric.h> does not compile or fi_getinfo does not link with $OFI_LIBS (see config.log)"])
    CPPFLAGS=$gasnet_ofi_save_CPPFLAGS LIBS=$gasnet_ofi_save_LIBS
  ])
  AS_IF([test "$gasnet_conduit_ok" = yes], [
    AC_CHECK_LIB([rt], [shm_open], [:],
      [gasnet_conduit_ok=no; gasnet_conduit_why="shm_open not found in -lrt"])
    AC_CHECK_LIB([pthread], [pthread_create], [:],
      [gasnet_conduit_ok=no; gasnet_conduit_why="pthread_create not found in -lpthread"])
  ])
  AS_IF([test "$gasnet_conduit_ok" = yes],
    [AC_MSG_NOTICE([ofi-conduit: libfabric $gasnet_ofi_version found])])
], [
  GASNET_CRAY_EX
  AS_IF([test "$gasnet_cv_cray_ex" != yes],
    [enable_ofi=off
     gasnet_conduit_why="not probed by default (not an HPE Cray EX host): configure with --enable-ofi to build it"])
])
GASNET_HWLOC
AC_SUBST([OFI_CPPFLAGS])
AC_SUBST([OFI_LIBS])
