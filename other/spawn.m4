# other/spawn.m4: configure checks of the external spawners' plugins (BUILD layer,
# included by configure.ac after the conduits). The conduits that start their own jobs on
# the shared launcher with external spawners (ofi, ucx: other/gasneti_spawn_ext.c) load a
# plugin when a job asks for one, so their clients link neither MPI nor PMIx. The plugins
# are built once for all of them, when one of them is enabled:
#   mpi: built with the MPI wrapper's flags when mpi-conduit is (its checks found MPI);
#        jobs start through gasnetrun_mpi.
#   pmi: built when pkg-config finds PMIx (package pmix: Debian's libpmix-dev) and a PMIx
#        program links. Substitutes PMIX_CPPFLAGS and PMIX_LIBS.
gasnet_spawn_mpi=no gasnet_spawn_pmi=no gasnet_spawn_users=
for gasnet_c in ofi ucx; do
  AS_CASE([" $GASNET_CONDUITS_ENABLED "], [*" $gasnet_c "*], [gasnet_spawn_users="$gasnet_spawn_users $gasnet_c"])
done
gasnet_spawn_users=`echo $gasnet_spawn_users | sed 's/ /, /g'`
AS_IF([test -n "$gasnet_spawn_users"], [
  AS_CASE([" $GASNET_CONDUITS_ENABLED "], [*" mpi "*], [gasnet_spawn_mpi=yes])
  AS_IF([test -z "$PKG_CONFIG"], [AC_PATH_PROG([PKG_CONFIG], [pkg-config])])
  AC_MSG_CHECKING([for PMIx with pkg-config (the pmi spawner)])
  AS_IF([test -n "$PKG_CONFIG" && $PKG_CONFIG --exists pmix 2>/dev/null],
    [PMIX_CPPFLAGS=`$PKG_CONFIG --cflags pmix`
     PMIX_LIBS=`$PKG_CONFIG --libs pmix`
     gasnet_pmix_version=`$PKG_CONFIG --modversion pmix`
     AC_MSG_RESULT([version $gasnet_pmix_version])
     gasnet_spawn_save_CPPFLAGS=$CPPFLAGS gasnet_spawn_save_LIBS=$LIBS
     CPPFLAGS="$CPPFLAGS $PMIX_CPPFLAGS" LIBS="$PMIX_LIBS $LIBS"
     AC_MSG_CHECKING([whether a PMIx program compiles and links])
     AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <pmix.h>]], [[pmix_proc_t p; return PMIx_Init(&p, 0, 0);]])],
       [AC_MSG_RESULT([yes]); gasnet_spawn_pmi=yes],
       [AC_MSG_RESULT([no (see config.log)])])
     CPPFLAGS=$gasnet_spawn_save_CPPFLAGS LIBS=$gasnet_spawn_save_LIBS],
    [AC_MSG_RESULT([no (Debian: apt-get install libpmix-dev)])])
  gasnet_spawners="local ssh custom"
  AS_IF([test $gasnet_spawn_mpi = yes], [gasnet_spawners="$gasnet_spawners mpi"],
        [gasnet_spawners="$gasnet_spawners (mpi: no MPI)"])
  AS_IF([test $gasnet_spawn_pmi = yes], [gasnet_spawners="$gasnet_spawners pmi (PMIx $gasnet_pmix_version)"],
        [gasnet_spawners="$gasnet_spawners (pmi: no PMIx)"])
  GASNET_SUMMARY_ADD([], [spawners of $gasnet_spawn_users: $gasnet_spawners])
])
AM_CONDITIONAL([GASNET_SPAWN_MPI_PLUGIN], [test $gasnet_spawn_mpi = yes])
AM_CONDITIONAL([GASNET_SPAWN_PMI_PLUGIN], [test $gasnet_spawn_pmi = yes])
AC_SUBST([PMIX_CPPFLAGS])
AC_SUBST([PMIX_LIBS])
