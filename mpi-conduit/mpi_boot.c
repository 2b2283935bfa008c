/* mpi_boot.c: an mpi rank's job start (gasnetc_bootstrap_init), the bootstrap
 * collectives and the exit hooks, all over MPI. Layer: mpi-conduit.
 *
 * MPI interoperability: if the client called MPI_Init or MPI_Init_thread before
 * gex_Client_Init, MPI is the client's: we use it and never finalize it (when the client
 * finalizes, an attribute of MPI_COMM_SELF quiesces our traffic first). Otherwise we
 * initialize MPI with the thread level GASNET_MPI_THREAD names (default: SINGLE for SEQ,
 * SERIALIZED for PAR and PARSYNC: every MPI call of the conduit holds one lock) and
 * finalize it when the job ends normally.
 * The bootstrap runs on its own duplicate of MPI_COMM_WORLD with non-blocking
 * collectives, tested with the lock dropped in between, so other threads keep polling.
 * Exit: a normal exit enters an MPI_Ibarrier on a third duplicate (all_exiting tests
 * it); an abort (gasnet_exit on one rank whose peers do not follow, a fatal error, a
 * signal) is MPI_Abort with the code, which makes mpirun end every rank and the job with
 * that code. A rank that dies makes mpirun end the job.
 * Out-of-band messages (p2p_send/p2p_recv) go on a fourth duplicate
 * (other/gasneti_mpi_p2p.c), under the lock like every MPI call. */
#include "conduit_contract.h"
#include "mpi_internal.h"
#include "other/gasneti_mpi_p2p.h"

#include <sched.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

gasneti_netlock_t gasnetc_mpi_lock = GASNETI_NETLOCK_INIT;
MPI_Comm gasnetc_am_comm[GASNETC_NCOMMS] = {MPI_COMM_NULL, MPI_COMM_NULL};
static MPI_Comm boot_comm = MPI_COMM_NULL, exit_comm = MPI_COMM_NULL, p2p_comm = MPI_COMM_NULL;
static int we_initialized;             /* we called MPI_Init_thread: we finalize */
static int client_finalized;           /* the client's MPI_Finalize has begun */
static MPI_Request exit_req = MPI_REQUEST_NULL;
static int exit_entered, exit_done, quiesced;
static char jobid[64];

/* Wait for a request, dropping the lock between tests so other threads can poll. */
static void wait_unlocked(MPI_Request *req) {
    for (;;) {
        int done = 0;
        MPI_LOCK();
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        MPI_UNLOCK();
        if (done) return;
        sched_yield();
    }
}

static void mpi_barrier(void) {
    MPI_Request r;
    MPI_LOCK();
    MPI_Ibarrier(boot_comm, &r);
    MPI_UNLOCK();
    wait_unlocked(&r);
}

static void mpi_exchange(const void *src, size_t len, void *dst) {
    MPI_Request r;
    if (len > INT32_MAX) gasneti_fatalerror("mpi-conduit: bootstrap exchange of %zu bytes per rank", len);
    MPI_LOCK();
    MPI_Iallgather(len ? src : dst, (int)len, MPI_BYTE, dst, (int)len, MPI_BYTE, boot_comm, &r);
    MPI_UNLOCK();
    wait_unlocked(&r);
}

static void mpi_broadcast(void *buf, size_t len, gex_Rank_t root) {
    MPI_Request r;
    if (len > INT32_MAX) gasneti_fatalerror("mpi-conduit: bootstrap broadcast of %zu bytes", len);
    MPI_LOCK();
    MPI_Ibcast(buf, (int)len, MPI_BYTE, (int)root, boot_comm, &r);
    MPI_UNLOCK();
    wait_unlocked(&r);
}

static void *mpi_exchange_v(const void *src, size_t len, size_t *lens) {
    return gasneti_boot_exchange_v_padded(mpi_exchange, src, len, lens);
}

static void mpi_p2p_send(gex_Rank_t dest, const void *buf, size_t len) {
    MPI_LOCK();
    int rc = gasneti_mpi_p2p_send(p2p_comm, (int)dest, buf, len); /* MPI's errors: fatal (the handler) */
    MPI_UNLOCK();
    if (rc != MPI_SUCCESS) gasneti_fatalerror("mpi-conduit: an out-of-band message of %zu bytes: out of memory", len);
}

static void *mpi_p2p_recv(gex_Rank_t *src, size_t *len, int block) {
    for (;;) {
        void *m;
        int s = 0;
        MPI_LOCK();
        int rc = gasneti_mpi_p2p_poll(p2p_comm, &m, &s, len);
        MPI_UNLOCK();
        if (rc != MPI_SUCCESS) gasneti_fatalerror("mpi-conduit: receiving an out-of-band message: out of memory");
        if (m) *src = (gex_Rank_t)s;
        if (m || !block) return m;
        sched_yield();
    }
}

static int mpi_is_finalized(void) {
    int f = 0;
    MPI_Finalized(&f);
    return f || client_finalized;
}

static void mpi_exit_notify(int code, int collective) {
    if (collective) {
        if (exit_entered || mpi_is_finalized()) return;
        MPI_LOCK();
        MPI_Ibarrier(exit_comm, &exit_req);
        exit_entered = 1;
        MPI_UNLOCK();
        return;
    }
    /* the rest of the job must end: mpirun kills every rank; the job's status is `code`,
     * 0 included (gasnet_exit(0) while a straggler is blocked: Open MPI's mpirun then ends
     * 0 although it ended the straggler by a signal; it used to be made 1 here).
     * No lock: this may run in a signal handler that interrupted a holder of it. */
    if (mpi_is_finalized()) return;
    fflush(NULL);
    MPI_Abort(MPI_COMM_WORLD, code);
    _exit(code);
}

static int mpi_all_exiting(void) {
    if (exit_done || mpi_is_finalized()) return 1;
    if (!exit_entered) return 0;
    int done = 0;
    MPI_LOCK();
    if (!exit_done) {
        MPI_Test(&exit_req, &done, MPI_STATUS_IGNORE);
        if (done) exit_done = 1;
    }
    done = exit_done;
    MPI_UNLOCK();
    return done;
}

/* mpirun ends the other ranks with SIGTERM after an MPI_Abort; no SIGQUIT path here */
static int mpi_abort_code(void) { return 1; }

static gasneti_bootstrap_t mpi_boot = {"mpi",           mpi_barrier,    mpi_exchange, mpi_broadcast, mpi_exit_notify,
                                       mpi_all_exiting, mpi_abort_code, jobid,        NULL,          NULL,
                                       mpi_exchange_v,  mpi_p2p_send,   mpi_p2p_recv};

/* The client's MPI_Finalize deletes MPI_COMM_SELF's attributes first: our receives are
 * cancelled and our sends finished while MPI still works. */
static int self_delete(MPI_Comm comm, int key, void *val, void *extra) {
    (void)comm, (void)key, (void)val, (void)extra;
    client_finalized = 1;
    if (!quiesced) {
        quiesced = 1;
        gasnetc_am_quiesce();
    }
    return MPI_SUCCESS;
}

static int thread_level(void) {
#if GASNETI_LOCKS
    const char *dflt = "SERIALIZED";
#else
    const char *dflt = "SINGLE";
#endif
    const char *v = gasneti_getenv_dflt("GASNET_MPI_THREAD", dflt);
    if (!v || !*v) v = dflt;
    static const struct {
        const char *name;
        int level;
    } levels[] = {{"SINGLE", MPI_THREAD_SINGLE},
                  {"FUNNELED", MPI_THREAD_FUNNELED},
                  {"SERIALIZED", MPI_THREAD_SERIALIZED},
                  {"MULTIPLE", MPI_THREAD_MULTIPLE}};
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
        if (!strcasecmp(v, levels[i].name) ||
            (!strncasecmp(v, "MPI_THREAD_", 11) && !strcasecmp(v + 11, levels[i].name)))
            return levels[i].level;
    gasneti_launch_error("GASNET_MPI_THREAD=%s: expected SINGLE, FUNNELED, SERIALIZED or MULTIPLE", v);
}

gasneti_bootstrap_t *gasnetc_bootstrap_init(int *argc, char ***argv) {
    int inited = 0, provided = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        int want = thread_level();
        if (MPI_Init_thread(argc, argv, want, &provided) != MPI_SUCCESS)
            gasneti_launch_error("mpi-conduit: MPI_Init_thread failed");
        we_initialized = 1;
        if (provided < want)
            gasneti_warning("mpi-conduit: asked MPI for thread level %d (GASNET_MPI_THREAD), got only %d", want,
                            provided);
    } else {
        MPI_Query_thread(&provided);
#if GASNETI_LOCKS
        if (provided < MPI_THREAD_SERIALIZED)
            gasneti_warning("mpi-conduit: the client initialized MPI with thread level %d; a PAR library needs "
                            "MPI_THREAD_SERIALIZED at least",
                            provided);
#endif
    }
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &boot_comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &exit_comm);
    MPI_Comm_dup(MPI_COMM_WORLD, &p2p_comm);
    MPI_Comm_set_errhandler(p2p_comm, MPI_ERRORS_ARE_FATAL);
    /* errors on our communicators are fatal with MPI's message, as on MPI_COMM_WORLD */
    for (int c = 0; c < GASNETC_NCOMMS; c++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &gasnetc_am_comm[c]);
        MPI_Comm_set_errhandler(gasnetc_am_comm[c], MPI_ERRORS_ARE_FATAL);
    }
    int key;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
    gasneti_mynode = (gex_Rank_t)rank;
    gasneti_nodes = (gex_Rank_t)size;
    /* the job id: rank 0's pid and time, the same on every rank */
    if (rank == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(jobid, sizeof(jobid), "%d-mpi%lx", (int)getpid(), (unsigned long)(ts.tv_nsec ^ ts.tv_sec));
    }
    MPI_Bcast(jobid, sizeof(jobid), MPI_CHAR, 0, boot_comm);
    return &mpi_boot;
}

/* Leaving (every exit path reaches this once, except MPI_Abort): after a collective exit
 * and when MPI is ours, quiesce and finalize it. */
void gasnetc_mpi_finalize(void) {
    if (mpi_is_finalized()) return;
    if (!quiesced) {
        quiesced = 1;
        gasnetc_am_quiesce();
    }
    if (we_initialized && exit_done) MPI_Finalize();
}
