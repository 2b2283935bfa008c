# ucx-conduit/conduit.m4: configure checks of ucx-conduit (BUILD layer, included by
# configure.ac). ucx needs UCX, found with pkg-config (package ucx: Debian's libucx-dev,
# UCX 1.13 or later: ucp_am_send_nbx, ucp_worker_set_am_recv_handler), whose <ucp/api/ucp.h>
# compiles and whose ucp_am_send_nbx links, POSIX shared memory (same-host peers) and
# pthreads. Substitutes UCX_CPPFLAGS and UCX_LIBS.
GASNET_CONDUIT([ucx], [build ucx-conduit: Active Messages, RMA and atomics over UCX (UCP), launched by gasnetrun_ucx (default: yes if UCX is found)], [
  AS_IF([test -z "$PKG_CONFIG"], [AC_PATH_PROG([PKG_CONFIG], [pkg-config])])
  AC_MSG_CHECKING([for UCX with pkg-config])
  AS_IF([test -z "$PKG_CONFIG"],
    [AC_MSG_RESULT([no])
     gasnet_conduit_ok=no; gasnet_conduit_why="pkg-config not found (needed to find UCX)"],
  [! $PKG_CONFIG --exists ucx 2>/dev/null],
    [AC_MSG_RESULT([no])
     gasnet_conduit_ok=no; gasnet_conduit_why="UCX not found by pkg-config (Debian: apt-get install libucx-dev; or set PKG_CONFIG_PATH)"],
    [UCX_CPPFLAGS=`$PKG_CONFIG --cflags ucx`
     UCX_LIBS=`$PKG_CONFIG --libs ucx`
     gasnet_ucx_version=`$PKG_CONFIG --modversion ucx`
     AC_MSG_RESULT([version $gasnet_ucx_version: $UCX_CPPFLAGS $UCX_LIBS])])
  AS_IF([test "$gasnet_conduit_ok" = yes], [
    gasnet_ucx_save_CPPFLAGS=$CPPFLAGS gasnet_ucx_save_LIBS=$LIBS
    CPPFLAGS="$CPPFLAGS $UCX_CPPFLAGS" LIBS="$UCX_LIBS $LIBS"
    AC_MSG_CHECKING([whether a UCP program with ucp_am_send_nbx compiles and links])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <ucp/api/ucp.h>]], [[
#if UCP_API_VERSION < UCP_VERSION(1, 13)
#  error "UCX older than 1.13"
#endif
      ucp_request_param_t p; p.op_attr_mask = 0;
      ucp_am_handler_param_t h; h.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID; h.id = 0;
      (void)ucp_worker_set_am_recv_handler((ucp_worker_h)0, &h);
      return ucp_am_send_nbx((ucp_ep_h)0, 0, 0, 0, 0, 0, &p) != 0;]])],
      [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       gasnet_conduit_ok=no; gasnet_conduit_why="<ucp/api/ucp.h> (UCX 1.13 or later) does not compile or ucp_am_send_nbx does not link with $UCX_LIBS (see config.log)"])
    CPPFLAGS=$gasnet_ucx_save_CPPFLAGS LIBS=$gasnet_ucx_save_LIBS
  ])
  AS_IF([test "$gasnet_conduit_ok" = yes], [
    AC_CHECK_LIB([rt], [shm_open], [:],
      [gasnet_conduit_ok=no; gasnet_conduit_why="shm_open not found in -lrt"])
    AC_CHECK_LIB([pthread], [pthread_create], [:],
      [gasnet_conduit_ok=no; gasnet_conduit_why="pthread_create not found in -lpthread"])
  ])
  AS_IF([test "$gasnet_conduit_ok" = yes],
    [AC_MSG_NOTICE([ucx-conduit: UCX $gasnet_ucx_version found])])
])
AC_SUBST([UCX_CPPFLAGS])
AC_SUBST([UCX_LIBS])
