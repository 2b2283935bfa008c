/* gasneti_launch_ext.c: which spawner a launch uses when none is named, and the launches
 * the shared launcher hands to an external launcher: the mpi and pmi spawners, whose job
 * is gasnetrun_mpi's (mpirun, or PMIRUN_CMD for pmi); the ranks join through a plugin
 * (gasneti_spawn_ext.c). Layer: other (launchers). */
#include "gasneti_launch.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#if defined(GASNETI_SPAWN_MPIRUN_PATHS) || defined(GASNETI_SPAWN_PLUGIN_DIRS)
#include "other/gasneti_instpaths.h" /* GASNETI_INST_*, of which those -D paths are made */
#endif

const char *gasneti_spawn_default(const char *conduit, int hostlist_means_ssh) {
    char name[64];
    snprintf(name, sizeof(name), "GASNET_%s_SPAWNER", conduit);
    const char *names[3] = {name, "GASNET_SPAWNER", "GASNET_SPAWNFN"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(names[i]);
        if (v && *v) return v;
    }
    const char *servers = getenv("GASNET_SSH_SERVERS");
    return hostlist_means_ssh && servers && *servers ? "ssh" : "L";
}

const char *gasneti_spawn_external(const char *spawner) {
    static const char *const mpi_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_NAMESPACE", "PMI_SIZE", "PMI_RANK",
                                           "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"};
    if (!spawner) return NULL;
    if (!strcasecmp(spawner, "pmi")) return getenv("PMIX_NAMESPACE") ? "pmi" : NULL;
    if (strcasecmp(spawner, "mpi")) return NULL;
    for (size_t i = 0; i < sizeof(mpi_vars) / sizeof(mpi_vars[0]); i++)
        if (getenv(mpi_vars[i])) return "mpi";
    return NULL;
}

#ifdef GASNETI_SPAWN_MPIRUN_PATHS
/* gasnetrun_mpi: beside this program, then where the build installs it and in the build
 * tree (GASNETI_SPAWN_MPIRUN_PATHS; the build tree first for a program of the build tree:
 * GASNETI_SPAWN_BUILD_TREE_MPIRUN). Its path in paths (of size pathslen), or NULL. */
static const char *find_mpirun(char *paths, size_t pathslen) {
    char self[PATH_MAX], *save = NULL;
    ssize_t l = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[l > 0 ? l : 0] = 0;
    char *slash = strrchr(self, '/');
    if (slash) *slash = 0;
    /* a program of the build tree uses the build tree's gasnetrun_mpi before an installed
     * one, which may be an older build's */
    const char *tree = GASNETI_SPAWN_BUILD_TREE_MPIRUN, *t = strrchr(tree, '/');
    size_t tl = t ? (size_t)(t - tree) : 0; /* .../mpi-conduit */
    t = tl ? memrchr(tree, '/', tl) : NULL;
    tl = t ? (size_t)(t - tree) : 0; /* the build tree itself */
    int in_tree = tl && !strncmp(self, tree, tl) && (self[tl] == '/' || !self[tl]);
    snprintf(paths, pathslen, "%s/gasnetrun_mpi:%s%s%s", self, in_tree ? tree : "", in_tree ? ":" : "",
             GASNETI_SPAWN_MPIRUN_PATHS);
    for (char *p = strtok_r(paths, ":", &save); p; p = strtok_r(NULL, ":", &save))
        if (!access(p, X_OK)) return p;
    return NULL;
}
#endif

/* The ranks learn the spawner from GASNET_<C>_SPAWNER and join through its plugin.
 * Returns only on failure. */
int gasneti_launch_external(gasneti_launch_t *L, const char *which) {
#ifdef GASNETI_SPAWN_MPIRUN_PATHS
    char paths[8192], nstr[16];
    const char *runner = find_mpirun(paths, sizeof(paths));
    if (!runner) {
        gasneti_launch_say(L, "the %s spawner starts jobs with gasnetrun_mpi, which is not where it was installed (%s)",
                           which, GASNETI_SPAWN_MPIRUN_PATHS);
        return 1;
    }
    const char *lower = strcasecmp(which, "mpi") ? "pmi" : "mpi";
    setenv(gasneti_launch_envname(L, "SPAWNER"), lower, 1);
    const char *pmirun = getenv("PMIRUN_CMD");
    if (*lower == 'p' && pmirun && *pmirun) setenv("MPIRUN_CMD", pmirun, 1);
    snprintf(nstr, sizeof(nstr), "%d", L->nranks);
    char **av = calloc((size_t)L->argc + 6, sizeof(char *));
    if (!av) return 1;
    int k = 0;
    av[k++] = (char *)runner;
    if (L->verbose) av[k++] = "-v";
    av[k++] = "-n";
    av[k++] = nstr;
    av[k++] = "--";
    for (int i = 0; i < L->argc; i++) av[k++] = L->argv[i];
    if (L->verbose) gasneti_launch_say(L, "%s spawner: %s -n %d %s ...", lower, runner, L->nranks, L->argv[0]);
    fflush(NULL);
    execv(runner, av);
    gasneti_launch_say(L, "cannot run %s: %s", runner, strerror(errno));
    free(av);
    return 1;
#else
    gasneti_launch_say(L, "the %s spawner is not available with this conduit: use local (this host), ssh or custom",
                       which);
    return 1;
#endif
}
