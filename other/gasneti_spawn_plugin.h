/* gasneti_spawn_plugin.h: the interface between a conduit library and a bootstrap plugin,
 * for jobs started by an external launcher (the mpi and pmi spawners: mpirun, srun,
 * prterun). Layer: other (spawners), internal.
 *
 * A plugin is a shared object (gasnet-spawn-mpi.so built with the MPI wrapper's flags,
 * gasnet-spawn-pmi.so linked with PMIx) that the conduit library loads with dlopen only
 * when a job is started that way (gasneti_spawn_ext.c). So the conduit libraries, and the
 * programs linked with them, need neither MPI nor PMIx unless a job asks for them.
 * A plugin exports one symbol, gasneti_spawn_plugin, of the type below. Every call but
 * exit_test blocks; the caller serializes them. Each returns 0, or -1 with a message in
 * the err buffer that init was given. */
#ifndef GASNETI_SPAWN_PLUGIN_H
#define GASNETI_SPAWN_PLUGIN_H

#include <stddef.h>

#define GASNETI_SPAWN_PLUGIN_VERSION 3
#define GASNETI_SPAWN_PLUGIN_SYMBOL "gasneti_spawn_plugin"

typedef struct {
    int version; /* GASNETI_SPAWN_PLUGIN_VERSION */
    const char *name;
    /* Join the job: this process's rank and the job size, and a job id (NUL-terminated,
     * the same on every rank, usable in file names). err (errlen bytes) is kept for the
     * messages of later calls. */
    int (*init)(int *argc, char ***argv, int *rank, int *size, char *jobid, size_t jobidlen, char *err,
                size_t errlen);
    int (*barrier)(void);
    /* rank r's len bytes at src land at dst + r*len on every rank */
    int (*allgather)(const void *src, size_t len, void *dst);
    /* root's len bytes at buf land in buf on every rank */
    int (*bcast)(void *buf, size_t len, int root);
    /* This rank leaves normally: start a collective that completes once every rank has
     * called exit_begin. exit_test: 1 once it has. */
    int (*exit_begin)(void);
    int (*exit_test)(void);
    /* End the whole job with `code` (the launcher's exit status); does not return. */
    void (*abort)(int code, const char *why);
    /* After exit_test said 1: leave the job (MPI_Finalize, PMIx_Finalize). */
    void (*fini)(void);
    /* Out-of-band messages (the bootstrap's p2p_send/p2p_recv). p2p_send: len bytes to
     * rank dest, copied, without waiting for dest; order per (sender, receiver) kept.
     * Arrivals come one of two ways: p2p_poll (mpi), which never blocks: *msg a malloc'd
     * message that has arrived, its sender and length, or NULL if none has; or p2p_listen
     * (pmi), called once right after init, before any collective: the plugin's own thread
     * then calls deliver (which copies) for each message, in order per sender. The slot
     * of the way not taken is NULL. */
    int (*p2p_send)(int dest, const void *buf, size_t len);
    int (*p2p_poll)(void **msg, int *src, size_t *len);
    int (*p2p_listen)(void (*deliver)(int src, const void *msg, size_t len));
} gasneti_spawn_plugin_t;

#endif
