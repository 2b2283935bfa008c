/* smp_spawn.c: smp-conduit's job start and bootstrap. The process the user runs
 * becomes a monitor that forks GASNET_PSHM_NODES ranks and waits: it reaps them, ends
 * the job when one dies or aborts, removes any shared memory a crash left behind, and
 * exits with the job's status. Bootstrap collectives go through a small anonymous
 * shared mapping made before the fork; so do out-of-band messages (p2p_send), through a
 * ring per receiving rank in the same mapping (its pages are touched only when used).
 * Layer: smp-conduit. */
#include "conduit_contract.h"
#include "gasneti_dumpsig.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SMP_MAX_NODES 1024
#define EXCH_BYTES 4096 /* per rank, per round of an exchange */

enum { ST_RUNNING = 0, ST_EXITING = 1, ST_ABORTING = 2 };
typedef struct {
    char jobid[48];
    int nranks;
    int job_code;      /* -1 until some rank aborts the job */
    int barrier_count;
    int barrier_gen;
    int state[SMP_MAX_NODES];
    int code[SMP_MAX_NODES];
    uint32_t barriers[SMP_MAX_NODES]; /* gasneti_barriers_started of an exiting rank */
} region_t;

/* A rank's ring of arrived out-of-band messages: records of {uint32 sender, uint32
 * length, the bytes, padded to 8}, written by any rank under the lock, read by its owner.
 * The room for two of the largest: a sender waits (reading its own ring meanwhile, so two
 * ranks sending to each other cannot both wait) while the receiver has not read it. */
#define RING_BYTES (2 * GASNETI_BOOT_MSG_MAX + 64)
typedef struct {
    int lock;
    uint64_t head, tail; /* bytes read, bytes written (ever) */
    uint8_t buf[RING_BYTES];
} ring_t;

static region_t *reg;
static uint8_t *exch; /* [nranks][EXCH_BYTES] */
static ring_t *rings; /* [nranks] */

static void backoff(unsigned *spins) {
    if (++*spins < 200) __builtin_ia32_pause();
    else if (*spins < 2000) sched_yield();
    else gasneti_sleep_ns(50000);
}

static void smp_barrier(void) {
    int gen = __atomic_load_n(&reg->barrier_gen, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&reg->barrier_count, 1, __ATOMIC_ACQ_REL) == reg->nranks) {
        __atomic_store_n(&reg->barrier_count, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&reg->barrier_gen, gen + 1, __ATOMIC_RELEASE);
        return;
    }
    unsigned spins = 0;
    while (__atomic_load_n(&reg->barrier_gen, __ATOMIC_ACQUIRE) == gen) backoff(&spins);
}

/* In rounds of up to EXCH_BYTES per rank; a zero-length exchange is still a barrier. */
static void smp_exchange(const void *src, size_t len, void *dst) {
    if (len == 0) smp_barrier();
    for (size_t off = 0; off < len; off += EXCH_BYTES) {
        size_t c = len - off < EXCH_BYTES ? len - off : EXCH_BYTES;
        memcpy(exch + (size_t)gasneti_mynode * EXCH_BYTES, (const uint8_t *)src + off, c);
        smp_barrier();
        for (int r = 0; r < reg->nranks; r++)
            memcpy((uint8_t *)dst + (size_t)r * len + off, exch + (size_t)r * EXCH_BYTES, c);
        smp_barrier();
    }
}

static void smp_broadcast(void *buf, size_t len, gex_Rank_t root) {
    size_t chunk = (size_t)EXCH_BYTES * reg->nranks;
    for (size_t off = 0; off < len; off += chunk) {
        size_t c = len - off < chunk ? len - off : chunk;
        if (gasneti_mynode == root) memcpy(exch, (uint8_t *)buf + off, c);
        smp_barrier();
        if (gasneti_mynode != root) memcpy((uint8_t *)buf + off, exch, c);
        smp_barrier();
    }
}

static void *smp_exchange_v(const void *src, size_t len, size_t *lens) {
    return gasneti_boot_exchange_v_padded(smp_exchange, src, len, lens);
}

static void ring_lock(ring_t *g) {
    unsigned spins = 0;
    while (__atomic_exchange_n(&g->lock, 1, __ATOMIC_ACQUIRE)) backoff(&spins);
}
static void ring_unlock(ring_t *g) { __atomic_store_n(&g->lock, 0, __ATOMIC_RELEASE); }

/* n bytes between buf and the ring at byte position pos (wrapping) */
static void ring_copy(ring_t *g, uint64_t pos, void *buf, size_t n, int in) {
    size_t at = (size_t)(pos % RING_BYTES), first = n < RING_BYTES - at ? n : RING_BYTES - at;
    uint8_t *p = buf;
    if (in) memcpy(g->buf + at, p, first), memcpy(g->buf, p + first, n - first);
    else memcpy(p, g->buf + at, first), memcpy(p + first, g->buf, n - first);
}

/* move what has arrived in this rank's ring to the queue p2p_recv takes from */
static void ring_drain(void) {
    ring_t *g = &rings[gasneti_mynode];
    if (__atomic_load_n(&g->head, __ATOMIC_ACQUIRE) == __atomic_load_n(&g->tail, __ATOMIC_ACQUIRE)) return;
    static uint8_t *tmp; /* a message that wraps, put together (under the ring's lock) */
    ring_lock(g);
    while (g->head != g->tail) {
        uint32_t hdr[2]; /* records start at multiples of 8: a header never wraps */
        ring_copy(g, g->head, hdr, sizeof(hdr), 0);
        size_t at = (size_t)((g->head + sizeof(hdr)) % RING_BYTES);
        const uint8_t *body = g->buf + at;
        if (hdr[1] > RING_BYTES - at) {
            if (!tmp && !(tmp = malloc(GASNETI_BOOT_MSG_MAX))) gasneti_fatalerror("smp-conduit: out of memory");
            ring_copy(g, g->head + sizeof(hdr), tmp, hdr[1], 0);
            body = tmp;
        }
        gasneti_boot_msgq_put(hdr[0], body, hdr[1]);
        __atomic_store_n(&g->head, g->head + sizeof(hdr) + ((hdr[1] + 7u) & ~7u), __ATOMIC_RELEASE);
    }
    ring_unlock(g);
}

static void smp_p2p_send(gex_Rank_t dest, const void *buf, size_t len) {
    ring_t *g = &rings[dest];
    uint32_t hdr[2] = {gasneti_mynode, (uint32_t)len};
    uint64_t need = sizeof(hdr) + ((len + 7) & ~(size_t)7);
    unsigned spins = 0;
    for (;;) {
        ring_lock(g);
        if (RING_BYTES - (g->tail - g->head) >= need) break;
        ring_unlock(g);
        ring_drain();
        backoff(&spins);
    }
    ring_copy(g, g->tail, hdr, sizeof(hdr), 1);
    ring_copy(g, g->tail + sizeof(hdr), (void *)buf, len, 1);
    __atomic_store_n(&g->tail, g->tail + need, __ATOMIC_RELEASE);
    ring_unlock(g);
}

static void *smp_p2p_recv(gex_Rank_t *src, size_t *len, int block) {
    unsigned spins = 0;
    for (;;) {
        ring_drain();
        void *m = gasneti_boot_msgq_take(src, len, 0);
        if (m || !block) return m;
        backoff(&spins);
    }
}

static void smp_exit_notify(int code, int collective) {
    if (collective) {
        reg->code[gasneti_mynode] = code;
        reg->barriers[gasneti_mynode] = __atomic_load_n(&gasneti_barriers_started, __ATOMIC_ACQUIRE);
        __atomic_store_n(&reg->state[gasneti_mynode], ST_EXITING, __ATOMIC_RELEASE);
    } else {
        int unset = -1;
        __atomic_compare_exchange_n(&reg->job_code, &unset, code, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
        __atomic_store_n(&reg->state[gasneti_mynode], ST_ABORTING, __ATOMIC_RELEASE);
    }
}

static int smp_all_exiting(void) {
    for (int r = 0; r < reg->nranks; r++)
        if (__atomic_load_n(&reg->state[r], __ATOMIC_ACQUIRE) == ST_RUNNING) return 0;
    return 1;
}

static int smp_abort_code(void) {
    int c = __atomic_load_n(&reg->job_code, __ATOMIC_ACQUIRE);
    return c < 0 ? 1 : c;
}

static int smp_peer_exiting(uint32_t *barriers) {
    int code = -1;
    for (int r = 0; r < reg->nranks; r++)
        if (__atomic_load_n(&reg->state[r], __ATOMIC_ACQUIRE) == ST_EXITING && (code < 0 || reg->barriers[r] < *barriers)) {
            code = reg->code[r];
            *barriers = reg->barriers[r];
        }
    return code;
}

static gasneti_bootstrap_t smp_boot = {"smp-fork",      smp_barrier,    smp_exchange,   smp_broadcast,
                                       smp_exit_notify, smp_all_exiting, smp_abort_code, NULL,
                                       NULL,            smp_peer_exiting, smp_exchange_v, smp_p2p_send,
                                       smp_p2p_recv};

/* ---------------------------------------------------------------------------------
 * The monitor
 * --------------------------------------------------------------------------------- */
static volatile sig_atomic_t monitor_sig;
static void monitor_sighandler(int sig) { monitor_sig = sig; }
/* GASNET_DUMP_SIGNAL (default SIGUSR1) to the job's first process: forwarded to every rank */
static volatile sig_atomic_t monitor_dump;
static void monitor_dumphandler(int sig) { (void)sig; monitor_dump = 1; }

static double mono_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void set_job_code(int code) {
    int unset = -1;
    __atomic_compare_exchange_n(&reg->job_code, &unset, code, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static void signal_all(pid_t *pids, int n, int sig) {
    for (int r = 0; r < n; r++)
        if (pids[r] > 0) kill(pids[r], sig);
}

GASNETI_NORETURN static void monitor(pid_t *pids, int n) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = monitor_sighandler;
    sigemptyset(&sa.sa_mask);
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (int i = 0; i < 4; i++) sigaction(sigs[i], &sa, NULL);
    const int dump_sig = gasneti_dump_signal_parse(getenv("GASNET_DUMP_SIGNAL"));
    sa.sa_handler = monitor_dumphandler;
    if (dump_sig > 0) sigaction(dump_sig, &sa, NULL);

    int alive = n, first_nonzero = 0;
    double kill_at = 0; /* once tearing down: SIGKILL the survivors at this time */
    while (alive > 0) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid > 0) {
            int r = 0;
            while (r < n && pids[r] != pid) r++;
            if (r == n) continue;
            pids[r] = -1;
            alive--;
            int state = __atomic_load_n(&reg->state[r], __ATOMIC_ACQUIRE);
            int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            if (WIFEXITED(st) && state == ST_EXITING) {
                if (code && !first_nonzero) first_nonzero = code;
            } else if (!kill_at) {
                /* an abort, a signal, or an exit that bypassed the library: end the job,
                 * saying why in one line as the network launchers do (an abort has said it) */
                char host[256] = "localhost";
                gethostname(host, sizeof(host) - 1);
                if (state != ST_ABORTING && !WIFEXITED(st))
                    fprintf(stderr, "*** GASNet job: rank %d on host %s was killed by signal %d (%s); ending the job\n",
                            r, host, WTERMSIG(st), strsignal(WTERMSIG(st)));
                else if (state != ST_ABORTING)
                    fprintf(stderr, "*** GASNet job: rank %d on host %s exited with status %d without gasnet_exit; "
                            "ending the job\n", r, host, code);
                set_job_code(code ? code : 1);
                signal_all(pids, n, SIGQUIT);
                kill_at = mono_now() + 2.0;
            }
            continue;
        }
        if (pid < 0 && errno == ECHILD) break;
        if (monitor_dump) {
            monitor_dump = 0;
            if (!kill_at) signal_all(pids, n, dump_sig);
        }
        if (monitor_sig && !kill_at) {
            set_job_code(128 + monitor_sig);
            signal_all(pids, n, SIGTERM);
            kill_at = mono_now() + 2.0;
        }
        if (kill_at && mono_now() > kill_at) signal_all(pids, n, SIGKILL);
        gasneti_sleep_ns(2000000);
    }
    gasneti_shm_cleanup_job(reg->jobid);
    int jc = __atomic_load_n(&reg->job_code, __ATOMIC_ACQUIRE);
    fflush(NULL);
    _exit(jc >= 0 ? jc : first_nonzero);
}

gasneti_bootstrap_t *gasnetc_bootstrap_init(int *argc, char ***argv) {
    (void)argc, (void)argv;
    const char *v = gasneti_getenv_dflt("GASNET_PSHM_NODES", "1");
    long n = 1;
    if (v && *v) {
        char *end;
        n = strtol(v, &end, 10);
        if (*end || end == v || n < 1 || n > SMP_MAX_NODES)
            gasneti_launch_error("GASNET_PSHM_NODES=%s: must be an integer from 1 to %d", v, SMP_MAX_NODES);
    }
    size_t rings_at = (sizeof(region_t) + (size_t)n * EXCH_BYTES + 63) & ~(size_t)63;
    size_t bytes = rings_at + (size_t)n * sizeof(ring_t);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) gasneti_launch_error("cannot map %zu bytes of shared memory: %s", bytes, strerror(errno));
    reg = p;
    exch = (uint8_t *)p + sizeof(region_t);
    rings = (ring_t *)((uint8_t *)p + rings_at);
    reg->nranks = (int)n;
    reg->job_code = -1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    snprintf(reg->jobid, sizeof(reg->jobid), "%ld-%lx", (long)getpid(), (unsigned long)(ts.tv_nsec ^ ts.tv_sec));
    smp_boot.jobid = reg->jobid;

    pid_t monitor_pid = getpid();
    pid_t *pids = calloc((size_t)n, sizeof(pid_t));
    /* the monitor needs the shared-memory directory at the end (cleanup): read it now, so
     * that GASNET_VERBOSEENV lists it once, before the ranks exist, not again after */
    (void)gasneti_shm_dir_name();
    fflush(NULL);
    for (long r = 0; r < n; r++) {
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "GASNet: fork of rank %ld failed: %s\n", r, strerror(errno));
            set_job_code(1);
            signal_all(pids, (int)r, SIGKILL);
            monitor(pids, (int)r);
        }
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != monitor_pid) _exit(1);
            free(pids);
            gasneti_mynode = (gex_Rank_t)r;
            gasneti_nodes = (gex_Rank_t)n;
            return &smp_boot;
        }
        pids[r] = pid;
    }
    monitor(pids, (int)n);
}
