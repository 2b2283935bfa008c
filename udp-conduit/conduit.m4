# udp-conduit/conduit.m4: configure checks of udp-conduit (BUILD layer, included by
# configure.ac). udp needs BSD sockets, POSIX shared memory (same-host peers) and
# pthreads, all in the C library on Linux, so it is built unless --disable-udp is given
# or one of these checks fails.
GASNET_CONDUIT([udp], [build udp-conduit: Active Messages over UDP/IP, launched by amudprun (default: yes)], [
  AC_CHECK_HEADERS([sys/socket.h netinet/in.h netdb.h], [:],
    [gasnet_conduit_ok=no; gasnet_conduit_why="<$ac_header> not found"])
  AC_CHECK_FUNC([getaddrinfo], [:],
    [gasnet_conduit_ok=no; gasnet_conduit_why="getaddrinfo not found"])
  AC_CHECK_LIB([rt], [shm_open], [:],
    [gasnet_conduit_ok=no; gasnet_conduit_why="shm_open not found in -lrt"])
  AC_CHECK_LIB([pthread], [pthread_create], [:],
    [gasnet_conduit_ok=no; gasnet_conduit_why="pthread_create not found in -lpthread"])
])
AC_CONFIG_FILES([other/amudp/Makefile:other/amudp-forward.mk.in])
