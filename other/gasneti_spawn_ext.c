/* gasneti_spawn_ext.c: a rank's side of a job started by an external launcher (the mpi
 * spawner: mpirun; the pmi spawner: srun, prterun or Open MPI's mpirun, which serve
 * PMIx). The bootstrap collectives, the out-of-band messages and the exit go through a
 * plugin (gasnet-spawn-mpi.so or gasnet-spawn-pmi.so, interface in gasneti_spawn_plugin.h)
 * loaded here with dlopen, so the conduit library needs neither MPI nor PMIx at link
 * time. Messages arrive by polling the plugin (mpi) or from the plugin's own thread into
 * the core's queue (pmi).
 * Layer: other (spawners), built as part of a conduit library that defines
 * GASNETI_SPAWN_PLUGIN_DIRS (where the plugins are: the install directory, then the build
 * tree; GASNET_SPAWN_PLUGIN_DIR, when set, is tried first).
 *
 * Exit: a normal exit starts the plugin's exit collective (all_exiting tests it) and,
 * once every rank has joined it, leaves the job (fini); an abort (gasnet_exit on one
 * rank whose peers do not follow, a fatal error, a signal) is the plugin's abort, after
 * which the launcher ends every rank and the job with the code. */
#include "conduit_contract.h"
#include "gasneti_spawn.h"
#include "gasneti_spawn_plugin.h"
#if defined(GASNETI_SPAWN_MPIRUN_PATHS) || defined(GASNETI_SPAWN_PLUGIN_DIRS)
#include "other/gasneti_instpaths.h" /* GASNETI_INST_*, of which those -D paths are made */
#endif

#include <dlfcn.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#ifndef GASNETI_SPAWN_PLUGIN_DIRS
#  error "a conduit using the external spawners defines GASNETI_SPAWN_PLUGIN_DIRS"
#endif
#define WHO GASNETC_NAME "-conduit"

static const gasneti_spawn_plugin_t *plug;
static pthread_mutex_t plock = PTHREAD_MUTEX_INITIALIZER; /* one plugin call at a time */
static char perr[512], ext_jobid[64], ext_name[16];
static int exit_begun, exit_done;

GASNETI_NORETURN static void plugin_failed(const char *what) {
    gasneti_fatalerror(WHO ": the %s spawner's bootstrap %s failed: %s", ext_name, what, perr);
}

static void ext_barrier(void) {
    pthread_mutex_lock(&plock);
    int rc = plug->barrier();
    pthread_mutex_unlock(&plock);
    if (rc) plugin_failed("barrier");
}

static void ext_exchange(const void *src, size_t len, void *dst) {
    pthread_mutex_lock(&plock);
    int rc = plug->allgather(src, len, dst);
    pthread_mutex_unlock(&plock);
    if (rc) plugin_failed("exchange");
}

static void ext_broadcast(void *buf, size_t len, gex_Rank_t root) {
    pthread_mutex_lock(&plock);
    int rc = plug->bcast(buf, len, (int)root);
    pthread_mutex_unlock(&plock);
    if (rc) plugin_failed("broadcast");
}

static void *ext_exchange_v(const void *src, size_t len, size_t *lens) {
    return gasneti_boot_exchange_v_padded(ext_exchange, src, len, lens);
}

static void ext_p2p_send(gex_Rank_t dest, const void *buf, size_t len) {
    pthread_mutex_lock(&plock);
    int rc = plug->p2p_send((int)dest, buf, len);
    pthread_mutex_unlock(&plock);
    if (rc) plugin_failed("out-of-band send");
}

/* a message the plugin's thread has read (p2p_listen) */
static void ext_deliver(int src, const void *msg, size_t len) { gasneti_boot_msgq_put((gex_Rank_t)src, msg, len); }

/* A poll that finds the plugin busy (a collective in progress on another thread) says
 * nothing has arrived rather than wait for it: gasnetc_poll must not block. */
static void *ext_p2p_recv(gex_Rank_t *src, size_t *len, int block) {
    for (;;) {
        void *m = NULL;
        int s = 0, rc = 0;
        if (block) pthread_mutex_lock(&plock);
        if (block || !pthread_mutex_trylock(&plock)) {
            rc = plug->p2p_poll(&m, &s, len);
            pthread_mutex_unlock(&plock);
        }
        if (rc) plugin_failed("out-of-band receive");
        if (m) *src = (gex_Rank_t)s;
        if (m || !block) return m;
        sched_yield();
    }
}

static void ext_exit_notify(int code, int collective) {
    if (!collective) {
        char why[64];
        snprintf(why, sizeof(why), "GASNet rank %u left with code %d", (unsigned)gasneti_mynode, code);
        gasneti_segments_fini(); /* the launcher kills the others: unlink our names first */
        plug->abort(code ? code : 1, why); /* does not return */
    }
    pthread_mutex_lock(&plock);
    int rc = exit_begun ? 0 : plug->exit_begin();
    exit_begun = 1;
    pthread_mutex_unlock(&plock);
    if (rc) { /* the others cannot be told: end the job instead */
        gasneti_warning(WHO ": %s", perr);
        plug->abort(code ? code : 1, perr);
    }
}

static int ext_all_exiting(void) {
    pthread_mutex_lock(&plock);
    if (exit_begun && !exit_done) exit_done = plug->exit_test();
    int d = exit_done;
    pthread_mutex_unlock(&plock);
    return d;
}

/* the launcher ends the other ranks itself (SIGTERM) after an abort: no SIGQUIT path */
static int ext_abort_code(void) { return 1; }

static void ext_fini(void) {
    pthread_mutex_lock(&plock);
    if (exit_done) plug->fini();
    pthread_mutex_unlock(&plock);
}

static gasneti_bootstrap_t ext_boot = {NULL,           ext_barrier,    ext_exchange, ext_broadcast, ext_exit_notify,
                                       ext_all_exiting, ext_abort_code, ext_jobid,    ext_fini,      NULL,
                                       ext_exchange_v,  NULL,           NULL};

/* the plugin of spawner `which`, from the first directory that has one of this version (a
 * stale one elsewhere is passed over; if none fits, the last reason is the error) */
static const gasneti_spawn_plugin_t *load_plugin(const char *which) {
    char dirs[4096], tried[4096] = "", path[4200];
    const char *env = getenv("GASNET_SPAWN_PLUGIN_DIR");
    snprintf(dirs, sizeof(dirs), "%s%s%s", env && *env ? env : "", env && *env ? ":" : "", GASNETI_SPAWN_PLUGIN_DIRS);
    char *save = NULL, *last_err = NULL;
    for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, sizeof(path), "%s/gasnet-spawn-%s.so", d, which);
        snprintf(tried + strlen(tried), sizeof(tried) - strlen(tried), "%s%.1000s", *tried ? ", " : "", path);
        if (access(path, R_OK)) continue;
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            free(last_err);
            last_err = strdup(dlerror());
            continue;
        }
        const gasneti_spawn_plugin_t *p = dlsym(h, GASNETI_SPAWN_PLUGIN_SYMBOL);
        if (p && p->version == GASNETI_SPAWN_PLUGIN_VERSION) {
            free(last_err);
            return p;
        }
        /* a stale copy (an older install before the build tree, say): try the next directory */
        char why[4400];
        snprintf(why, sizeof(why), "%s is not a bootstrap plugin of this version (%s)", path,
                 p ? "another version" : "no " GASNETI_SPAWN_PLUGIN_SYMBOL);
        dlclose(h);
        if (gasnett_verboseenv()) fprintf(stderr, "%s: passed over %s\n", WHO, why);
        free(last_err);
        last_err = strdup(why);
    }
    if (last_err) gasneti_launch_error(WHO ": the %s spawner's plugin does not load: %s", which, last_err);
    gasneti_launch_error(WHO ": the %s spawner's plugin is not found (tried %s): configure builds it when it finds "
                         "%s; GASNET_SPAWN_PLUGIN_DIR names its directory if the library was moved",
                         which, tried, !strcmp(which, "mpi") ? "MPI" : "PMIx");
}

gasneti_bootstrap_t *gasneti_spawn_ext_init(const char *which, int *argc, char ***argv) {
    snprintf(ext_name, sizeof(ext_name), "%s", which);
    plug = load_plugin(ext_name);
    int rank = -1, size = 0;
    if (plug->init(argc, argv, &rank, &size, ext_jobid, sizeof(ext_jobid), perr, sizeof(perr)))
        gasneti_launch_error(WHO ": the %s spawner cannot join the job: %s", ext_name, perr);
    if (rank < 0 || size < 1 || rank >= size)
        gasneti_launch_error(WHO ": the %s spawner gave rank %d of %d", ext_name, rank, size);
    gasneti_mynode = (gex_Rank_t)rank;
    gasneti_nodes = (gex_Rank_t)size;
    ext_boot.name = plug->name;
    if (plug->p2p_send && plug->p2p_listen) { /* arrivals on the plugin's thread, into the core's queue */
        if (plug->p2p_listen(ext_deliver))
            gasneti_launch_error(WHO ": the %s spawner's out-of-band messages cannot start: %s", ext_name, perr);
        ext_boot.p2p_send = ext_p2p_send;
        ext_boot.p2p_recv = gasneti_boot_msgq_take;
    } else if (plug->p2p_send && plug->p2p_poll) { /* else the contract's NULL: gasneti_boot_send says so */
        ext_boot.p2p_send = ext_p2p_send;
        ext_boot.p2p_recv = ext_p2p_recv;
    }
    if (rank == 0 && gasnett_verboseenv())
        fprintf(stderr, WHO ": job %s of %d ranks, started by the %s spawner\n", ext_jobid, size, ext_name);
    return &ext_boot;
}
