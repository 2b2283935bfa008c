# mpi-conduit/conduit.m4: configure checks of mpi-conduit (BUILD layer, included by
# configure.ac). mpi needs an MPI C compiler wrapper (MPI_CC, else mpicc on the PATH)
# whose test program links and runs under the MPI launcher (MPIRUN, else mpirun) with one
# process, POSIX shared memory (same-host peers) and pthreads. Substitutes MPI_CC,
# MPI_CPPFLAGS and MPI_LIBS (what the wrapper adds: the libraries are compiled with $CC and
# these flags, clients link with MPI_CC) and MPIRUN (the default of gasnetrun_mpi).
AC_ARG_VAR([MPI_CC], [MPI C compiler wrapper for mpi-conduit (default: mpicc)])
AC_ARG_VAR([MPIRUN], [MPI launcher used by gasnetrun_mpi and the configure check (default: mpirun)])
GASNET_CONDUIT([mpi], [build mpi-conduit: Active Messages over MPI, launched by gasnetrun_mpi (default: yes if MPI works)], [
  AS_IF([test -z "$MPI_CC"], [AC_PATH_PROG([MPI_CC], [mpicc])])
  AS_IF([test -z "$MPIRUN"], [AC_PATH_PROG([MPIRUN], [mpirun])])
  AS_IF([test -z "$MPI_CC"],
    [gasnet_conduit_ok=no; gasnet_conduit_why="no MPI C compiler (mpicc not found; set MPI_CC)"],
  [test -z "$MPIRUN"],
    [gasnet_conduit_ok=no; gasnet_conduit_why="no MPI launcher (mpirun not found; set MPIRUN)"])
  AS_IF([test "$gasnet_conduit_ok" = yes], [
    AC_MSG_CHECKING([the compile and link flags of $MPI_CC])
    # Open MPI: --showme:compile/--showme:link; MPICH: -compile-info/-link-info (whole
    # command lines: the compiler, the first word, is dropped)
    AS_IF([MPI_CPPFLAGS=`$MPI_CC --showme:compile 2>/dev/null` && MPI_LIBS=`$MPI_CC --showme:link 2>/dev/null`], [:],
      [MPI_CPPFLAGS=`$MPI_CC -compile-info 2>/dev/null | cut -d' ' -f2-`
       MPI_LIBS=`$MPI_CC -link-info 2>/dev/null | cut -d' ' -f2-`])
    AS_IF([test -z "$MPI_LIBS"],
      [AC_MSG_RESULT([unknown])
       gasnet_conduit_ok=no; gasnet_conduit_why="$MPI_CC tells neither --showme:link nor -link-info"],
      [AC_MSG_RESULT([$MPI_CPPFLAGS / $MPI_LIBS])])
  ])
  AS_IF([test "$gasnet_conduit_ok" = yes], [
    AC_MSG_CHECKING([whether an MPI program built by $MPI_CC runs under $MPIRUN])
    cat > conftest_mpi.c <<'_GASNET_EOF'
#include <mpi.h>
int main(int argc, char **argv) {
    int provided = 0, n = 0;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) return 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Finalize();
    return n == 1 ? 0 : 2;
}
_GASNET_EOF
    gasnet_mpirun_opts=
    AS_IF([test "`id -u`" = 0], [gasnet_mpirun_opts="--allow-run-as-root"])
    AS_IF([$MPI_CC -o conftest_mpi conftest_mpi.c > conftest_mpi.log 2>&1], [
      AS_IF([OMPI_MCA_rmaps_base_oversubscribe=1 $MPIRUN $gasnet_mpirun_opts -n 1 ./conftest_mpi >> conftest_mpi.log 2>&1 < /dev/null],
        [AC_MSG_RESULT([yes])],
        [AC_MSG_RESULT([no])
         gasnet_conduit_ok=no; gasnet_conduit_why="a test MPI program does not run under $MPIRUN -n 1 (see config.log)"])],
      [AC_MSG_RESULT([no])
       gasnet_conduit_ok=no; gasnet_conduit_why="$MPI_CC cannot build a test MPI program (see config.log)"])
    cat conftest_mpi.log >&AS_MESSAGE_LOG_FD
    rm -f conftest_mpi conftest_mpi.c conftest_mpi.log
  ])
  AS_IF([test "$gasnet_conduit_ok" = yes], [
    AC_CHECK_LIB([rt], [shm_open], [:],
      [gasnet_conduit_ok=no; gasnet_conduit_why="shm_open not found in -lrt"])
    AC_CHECK_LIB([pthread], [pthread_create], [:],
      [gasnet_conduit_ok=no; gasnet_conduit_why="pthread_create not found in -lpthread"])
  ])
])
AC_SUBST([MPI_CPPFLAGS])
AC_SUBST([MPI_LIBS])
