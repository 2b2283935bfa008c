# ibv-conduit/conduit.m4: configure checks of ibv-conduit (BUILD layer, included by
# configure.ac). ibv needs libibverbs (rdma-core; Debian's libibverbs-dev), found by
# pkg-config (package libibverbs) or else by <infiniband/verbs.h> and -libverbs, whose
# ibv_get_device_list, RC queue pairs and GID table query link; POSIX shared memory and
# pthreads. hwloc (GASNET_HWLOC, acinclude.m4) is optional. No RDMA device is needed to
# build: a job that needs the network and finds no active port says so when it starts.
# Substitutes IBV_CPPFLAGS and IBV_LIBS.
GASNET_CONDUIT([ibv], [build ibv-conduit: Active Messages and RDMA over InfiniBand verbs (RoCE too), launched by gasnetrun_ibv (default: yes if libibverbs is found)], [
  AS_IF([test -z "$PKG_CONFIG"], [AC_PATH_PROG([PKG_CONFIG], [pkg-config])])
  AC_MSG_CHECKING([for libibverbs with pkg-config])
  AS_IF([test -n "$PKG_CONFIG" && $PKG_CONFIG --exists libibverbs 2>/dev/null],
    [IBV_CPPFLAGS=`$PKG_CONFIG --cflags libibverbs`
     IBV_LIBS=`$PKG_CONFIG --libs libibverbs`
     gasnet_ibv_version=`$PKG_CONFIG --modversion libibverbs`
     AC_MSG_RESULT([version $gasnet_ibv_version: $IBV_CPPFLAGS $IBV_LIBS])],
    [AC_MSG_RESULT([no; trying <infiniband/verbs.h> and -libverbs])
     IBV_CPPFLAGS= IBV_LIBS=-libverbs])
  gasnet_ibv_save_CPPFLAGS=$CPPFLAGS gasnet_ibv_save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $IBV_CPPFLAGS" LIBS="$IBV_LIBS $LIBS"
  AC_MSG_CHECKING([whether a libibverbs program compiles and links])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <infiniband/verbs.h>]],
    [[int n; struct ibv_device **l = ibv_get_device_list(&n);
      struct ibv_gid_entry e[1]; struct ibv_qp_init_attr a; a.qp_type = IBV_QPT_RC;
      (void)a; ibv_free_device_list(l);
      return (int)ibv_query_gid_table(0, e, 1, 0) + IBV_WR_ATOMIC_CMP_AND_SWP;]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     gasnet_conduit_ok=no
     gasnet_conduit_why="libibverbs not found, or too old (<infiniband/verbs.h> with ibv_query_gid_table and -libverbs; Debian: apt-get install libibverbs-dev; see config.log)"])
  CPPFLAGS=$gasnet_ibv_save_CPPFLAGS LIBS=$gasnet_ibv_save_LIBS
  AS_IF([test "$gasnet_conduit_ok" = yes], [
    AC_CHECK_LIB([rt], [shm_open], [:],
      [gasnet_conduit_ok=no; gasnet_conduit_why="shm_open not found in -lrt"])
    AC_CHECK_LIB([pthread], [pthread_create], [:],
      [gasnet_conduit_ok=no; gasnet_conduit_why="pthread_create not found in -lpthread"])
  ])
])
AC_SUBST([IBV_CPPFLAGS])
AC_SUBST([IBV_LIBS])
GASNET_HWLOC
