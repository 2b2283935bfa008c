/* gasneti_spawn_mpi.c: the bootstrap plugin of the mpi spawner (gasnet-spawn-mpi.so):
 * a job started by mpirun joins through MPI_Init and runs its bootstrap collectives on a
 * duplicate of MPI_COMM_WORLD. Layer: other (spawners); built as a shared object with
 * the MPI wrapper's flags, loaded by gasneti_spawn_ext.c (interface:
 * gasneti_spawn_plugin.h).
 *
 * If the client initialized MPI before gex_Client_Init, MPI is the client's: used, never
 * finalized. Otherwise MPI is initialized at MPI_THREAD_SERIALIZED (the library calls the
 * plugin from one thread at a time) and finalized after a normal exit. The exit
 * collective is an MPI_Ibarrier on a second duplicate; an abort is MPI_Abort, after which
 * mpirun ends every rank and the job with the code. Out-of-band messages go on a third
 * duplicate (gasneti_mpi_p2p.c). */
#include "gasneti_spawn_plugin.h"
#include "gasneti_mpi_p2p.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static MPI_Comm boot_comm = MPI_COMM_NULL, exit_comm = MPI_COMM_NULL, p2p_comm = MPI_COMM_NULL;
static MPI_Request exit_req = MPI_REQUEST_NULL;
static int we_initialized, exit_done;
static char *errbuf;
static size_t errlen;

static int check(int rc, const char *what) {
    if (rc == MPI_SUCCESS) return 0;
    char s[MPI_MAX_ERROR_STRING];
    int l = 0;
    MPI_Error_string(rc, s, &l);
    snprintf(errbuf, errlen, "%s: %s", what, s);
    return -1;
}

static int mpi_init(int *argc, char ***argv, int *rank, int *size, char *jobid, size_t jobidlen, char *err,
                    size_t elen) {
    errbuf = err;
    errlen = elen;
    int inited = 0, provided = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        if (check(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided), "MPI_Init_thread")) return -1;
        we_initialized = 1;
    }
    /* errors come back as codes, reported with the call that failed */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (check(MPI_Comm_dup(MPI_COMM_WORLD, &boot_comm), "MPI_Comm_dup") ||
        check(MPI_Comm_dup(MPI_COMM_WORLD, &exit_comm), "MPI_Comm_dup") ||
        check(MPI_Comm_dup(MPI_COMM_WORLD, &p2p_comm), "MPI_Comm_dup"))
        return -1;
    MPI_Comm_set_errhandler(p2p_comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(boot_comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(exit_comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(boot_comm, rank);
    MPI_Comm_size(boot_comm, size);
    /* the job id: rank 0's pid and clock, the same on every rank */
    char id[64] = "";
    if (*rank == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(id, sizeof(id), "%ld-mpi%lx", (long)getpid(), (unsigned long)(ts.tv_nsec ^ ts.tv_sec));
    }
    if (check(MPI_Bcast(id, sizeof(id), MPI_CHAR, 0, boot_comm), "MPI_Bcast (the job id)")) return -1;
    snprintf(jobid, jobidlen, "%s", id);
    return 0;
}

static int mpi_barrier(void) { return check(MPI_Barrier(boot_comm), "MPI_Barrier"); }

static int mpi_allgather(const void *src, size_t len, void *dst) {
    if (len > INT32_MAX) {
        snprintf(errbuf, errlen, "a bootstrap exchange of %zu bytes per rank is too large for MPI", len);
        return -1;
    }
    return check(MPI_Allgather(src, (int)len, MPI_BYTE, dst, (int)len, MPI_BYTE, boot_comm), "MPI_Allgather");
}

static int mpi_bcast(void *buf, size_t len, int root) {
    if (len > INT32_MAX) {
        snprintf(errbuf, errlen, "a bootstrap broadcast of %zu bytes is too large for MPI", len);
        return -1;
    }
    return check(MPI_Bcast(buf, (int)len, MPI_BYTE, root, boot_comm), "MPI_Bcast");
}

static int mpi_exit_begin(void) { return check(MPI_Ibarrier(exit_comm, &exit_req), "MPI_Ibarrier (exit)"); }

static int mpi_exit_test(void) {
    if (!exit_done && exit_req != MPI_REQUEST_NULL) {
        int done = 0;
        if (MPI_Test(&exit_req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && done) exit_done = 1;
    }
    return exit_done;
}

static void mpi_abort(int code, const char *why) {
    (void)why; /* the library has printed it */
    MPI_Abort(MPI_COMM_WORLD, code);
    _exit(code);
}

static int mpi_p2p_send(int dest, const void *buf, size_t len) {
    return check(gasneti_mpi_p2p_send(p2p_comm, dest, buf, len), "MPI_Isend (out-of-band message)");
}

static int mpi_p2p_poll(void **msg, int *src, size_t *len) {
    return check(gasneti_mpi_p2p_poll(p2p_comm, msg, src, len), "MPI_Iprobe/MPI_Recv (out-of-band message)");
}

static void mpi_fini(void) {
    int fin = 0;
    MPI_Finalized(&fin);
    if (we_initialized && exit_done && !fin) MPI_Finalize();
}

const gasneti_spawn_plugin_t gasneti_spawn_plugin = {
    GASNETI_SPAWN_PLUGIN_VERSION, "mpi",          mpi_init,      mpi_barrier, mpi_allgather, mpi_bcast,
    mpi_exit_begin,               mpi_exit_test, mpi_abort, mpi_fini,    mpi_p2p_send,  mpi_p2p_poll,
    NULL};
