# smp-conduit/conduit.m4: configure checks of smp-conduit (BUILD layer, included by
# configure.ac). smp needs only POSIX shared memory, fork and pthreads, so it is built
# unless --disable-smp is given or one of these checks fails.
GASNET_CONDUIT([smp], [build smp-conduit: processes on one host over shared memory (default: yes)], [
  AC_CHECK_HEADER([sys/mman.h], [:],
    [gasnet_conduit_ok=no; gasnet_conduit_why="<sys/mman.h> not found"])
  AC_CHECK_LIB([rt], [shm_open], [:],
    [gasnet_conduit_ok=no; gasnet_conduit_why="shm_open not found in -lrt"])
  AC_CHECK_LIB([pthread], [pthread_create], [:],
    [gasnet_conduit_ok=no; gasnet_conduit_why="pthread_create not found in -lpthread"])
])
