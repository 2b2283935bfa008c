/* gasneti_spawn_rank.c: a rank's side of the job start (gasnetc_bootstrap_init) and the
 * bootstrap over the control connection to the shared launcher (gasneti_spawn_launch.c;
 * the messages are in gasneti_spawn.h), for the conduits that use it (udp, ofi: compiled
 * into each, with its GASNETC_NAME, GASNETC_NAME_UPPER and GASNETC_LAUNCHER).
 * Layer: other (spawners), built as part of a conduit library.
 *
 * A process started by a launcher (GASNET_<C>_MASTER set) connects back, says HELLO with
 * the job key, learns the job size and id, takes the launcher's environment (ranks not
 * started by fork), and starts a control thread that is the only reader of the
 * connection: it hands collective results to the waiting thread, notes ALL_EXITING, and
 * on ABORT (or the launcher's loss) makes the process leave through the core's SIGQUIT
 * path with the job's code (or _exits 2 s later if that did not end it). Out-of-band
 * messages go directly to the destination rank over TCP (gasneti_tcp_p2p.c; the cards
 * exchanged once at start-up), never through the launcher.
 * A process started by mpirun or a PMIx launcher with the mpi or pmi spawner asked for
 * joins through gasneti_spawn_ext.c instead.
 * A process started directly as `prog N args...` becomes the launcher of N ranks of
 * itself instead (gasneti_spawn_default() chooses how) and never returns. */
#include "conduit_contract.h"
#include "gasneti_spawn.h"
#include "gasneti_launch.h"
#include "gasneti_fdio.h"
#include "gasneti_tcp_p2p.h"
#if defined(GASNETI_SPAWN_MPIRUN_PATHS) || defined(GASNETI_SPAWN_PLUGIN_DIRS)
#include "other/gasneti_instpaths.h" /* GASNETI_INST_*, of which those -D paths are made */
#endif

#if !defined(GASNETC_LAUNCHER) || !defined(GASNETC_SPAWN_HOSTLIST_SSH)
#  error "a conduit using the shared spawner defines GASNETC_LAUNCHER (its launcher's name) and GASNETC_SPAWN_HOSTLIST_SSH"
#endif
#define ENVPFX "GASNET_" GASNETC_NAME_UPPER "_"
#define WHO GASNETC_NAME "-conduit"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

uint64_t gasneti_spawn_key;
struct sockaddr_storage gasneti_spawn_ctrl_addr;
socklen_t gasneti_spawn_ctrl_addrlen;

static int ctrl = -1;
static char jobid[64];
static pthread_mutex_t wlock = PTHREAD_MUTEX_INITIALIZER; /* writers of ctrl */
static pthread_mutex_t mlock = PTHREAD_MUTEX_INITIALIZER; /* the mailbox below */
static pthread_cond_t mcond = PTHREAD_COND_INITIALIZER;
static uint8_t *result;   /* the last collective's result, until taken */
static uint32_t result_len;
static int have_result, all_exiting_flag, abort_code_val = -1;
static uint64_t peer_exit = UINT64_MAX; /* PEER_EXITING: barriers << 32 | code; all ones: none yet */

/* one message: a prefix of plen bytes (a destination, a length), then len bytes */
static int send_ctrl2(uint32_t type, const void *pre, uint32_t plen, const void *data, uint32_t len) {
    ctrl_hdr_t h = {type, plen + len};
    struct iovec iov[3] = {{&h, sizeof(h)}, {(void *)pre, plen}, {(void *)data, len}};
    pthread_mutex_lock(&wlock);
    int rc = gasneti_fd_writev_all(ctrl, iov, 3, 0);
    pthread_mutex_unlock(&wlock);
    return rc;
}

static int send_ctrl(uint32_t type, const void *data, uint32_t len) { return send_ctrl2(type, NULL, 0, data, len); }

/* ---- the control thread ---- */
GASNETI_NORETURN static void leave_job(int code) {
    __atomic_store_n(&abort_code_val, code, __ATOMIC_RELEASE);
    kill(getpid(), SIGQUIT); /* the core's quit_handler: flush, _exit(abort_code()) */
    sleep(2);
    _exit(code);
}

static void *control_thread(void *arg) {
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals are for the client's threads */
    for (;;) {
        ctrl_hdr_t h;
        uint8_t *data;
        if (gasneti_launch_read_msg(ctrl, &h, &data)) {
            if (__atomic_load_n(&gasneti_exiting, __ATOMIC_ACQUIRE)) { /* we are leaving anyway */
                sleep(2);
                _exit(1);
            }
            fprintf(stderr, "*** " WHO " rank %u: lost the connection to the launcher; leaving\n",
                    (unsigned)gasneti_mynode);
            leave_job(1);
        }
        switch (h.type) {
            case CTRL_EXCH:
                pthread_mutex_lock(&mlock);
                result = data;
                result_len = h.len;
                have_result = 1;
                pthread_cond_broadcast(&mcond);
                pthread_mutex_unlock(&mlock);
                data = NULL;
                break;
            case CTRL_ALL_EXITING: __atomic_store_n(&all_exiting_flag, 1, __ATOMIC_RELEASE); break;
            case CTRL_PEER_EXITING:
                if (h.len >= 8) {
                    uint32_t cb[2];
                    memcpy(cb, data, sizeof(cb));
                    __atomic_store_n(&peer_exit, (uint64_t)cb[1] << 32 | cb[0], __ATOMIC_RELEASE);
                }
                break;
            case CTRL_ABORT: leave_job(h.len >= 4 ? *(int32_t *)data : 1);
            case CTRL_DUMP: gasneti_dump_pending = 1; break; /* the next poll prints it */
            default: break;
        }
        free(data);
    }
    return NULL;
}

/* ---- the bootstrap ---- */
/* One collective round: contribute plen + len bytes, get every rank's contribution in rank order. */
static uint8_t *round_trip2(const void *pre, uint32_t plen, const void *src, uint32_t len, uint32_t *outlen) {
    if (send_ctrl2(CTRL_EXCH, pre, plen, src, len)) leave_job(1);
    pthread_mutex_lock(&mlock);
    while (!have_result) pthread_cond_wait(&mcond, &mlock);
    uint8_t *r = result;
    *outlen = result_len;
    have_result = 0;
    result = NULL;
    pthread_mutex_unlock(&mlock);
    return r;
}

static uint8_t *round_trip(const void *src, uint32_t len, uint32_t *outlen) {
    return round_trip2(NULL, 0, src, len, outlen);
}

static void spawn_barrier(void) {
    uint32_t n;
    free(round_trip(NULL, 0, &n));
}

static void spawn_exchange(const void *src, size_t len, void *dst) {
    uint32_t n;
    uint8_t *all = round_trip(src, (uint32_t)len, &n);
    if (n != len * gasneti_nodes)
        gasneti_fatalerror(WHO ": bootstrap exchange of %zu bytes per rank returned %u bytes", len, n);
    if (n) memcpy(dst, all, n);
    free(all);
}

static void spawn_broadcast(void *buf, size_t len, gex_Rank_t root) {
    uint32_t n; /* only the root contributes: the result is its bytes */
    uint8_t *all = round_trip(gasneti_mynode == root ? buf : NULL, gasneti_mynode == root ? (uint32_t)len : 0, &n);
    if (n != len) gasneti_fatalerror(WHO ": bootstrap broadcast of %zu bytes returned %u bytes", len, n);
    if (gasneti_mynode != root && n) memcpy(buf, all, n);
    free(all);
}

/* each rank contributes its length (uint32) and its bytes; the launcher concatenates */
static void *spawn_exchange_v(const void *src, size_t len, size_t *lens) {
    if (len > (1u << 30)) gasneti_fatalerror(WHO ": bootstrap exchange_v of %zu bytes (at most 1 GiB)", len);
    uint32_t l32 = (uint32_t)len, n;
    uint8_t *all = round_trip2(&l32, sizeof(l32), src, l32, &n);
    uint32_t off = 0, out = 0;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) { /* compact in place: drop the lengths */
        if (n - off < 4) gasneti_fatalerror(WHO ": bootstrap exchange_v: a short result (%u bytes)", n);
        memcpy(&l32, all + off, 4);
        if (n - off - 4 < l32) gasneti_fatalerror(WHO ": bootstrap exchange_v: a short result (%u bytes)", n);
        memmove(all + out, all + off + 4, l32);
        lens[r] = l32;
        off += 4 + l32;
        out += l32;
    }
    return all;
}

/* ---- out-of-band messages: directly rank to rank (gasneti_tcp_p2p.c), never through
 * the launcher. Each rank's card (address, port, key) is in every rank's table after one
 * exchange at start-up; the address is that of the control connection's interface (the
 * one that reaches the launcher, as udp's datagram socket uses). ---- */
static gasneti_tcp_p2p_card_t *cards; /* every rank's, 16 bytes per rank */
static char p2p_err[256];

static int card_of(int r, gasneti_tcp_p2p_card_t *card) {
    *card = cards[r];
    return 0;
}

static void p2p_deliver(int src, const void *msg, size_t len) { gasneti_boot_msgq_put((gex_Rank_t)src, msg, len); }

GASNETI_NORETURN static void p2p_failed(const char *why) {
    fprintf(stderr, "*** " WHO " rank %u: %s; leaving\n", (unsigned)gasneti_mynode, why);
    leave_job(1);
}

static void p2p_open(void) {
    static gasneti_tcp_p2p_ops_t ops; /* kept by gasneti_tcp_p2p_open */
    ops = (gasneti_tcp_p2p_ops_t){(int)gasneti_mynode, (int)gasneti_nodes, card_of, p2p_deliver, p2p_failed,
                                  p2p_err, sizeof(p2p_err)};
    gasneti_tcp_p2p_card_t mine;
    if (gasneti_tcp_p2p_open(&ops, &mine)) gasneti_launch_error(WHO ": out-of-band messages: %s", p2p_err);
    if (gasneti_spawn_ctrl_addr.ss_family == AF_INET)
        mine.ip = ((struct sockaddr_in *)&gasneti_spawn_ctrl_addr)->sin_addr.s_addr;
    cards = malloc(sizeof(*cards) * gasneti_nodes);
    if (!cards) gasneti_launch_error(WHO ": out of memory for %u out-of-band cards", (unsigned)gasneti_nodes);
    spawn_exchange(&mine, sizeof(mine), cards);
}

static void spawn_p2p_send(gex_Rank_t dest, const void *buf, size_t len) {
    if (gasneti_tcp_p2p_send((int)dest, buf, len)) p2p_failed(p2p_err);
}

static void spawn_exit_notify(int code, int collective) {
    int32_t c[2] = {code, (int32_t)__atomic_load_n(&gasneti_barriers_started, __ATOMIC_ACQUIRE)};
    send_ctrl(collective ? CTRL_EXITING : CTRL_ABORT, c, collective ? sizeof(c) : sizeof(c[0]));
}

static int spawn_all_exiting(void) { return __atomic_load_n(&all_exiting_flag, __ATOMIC_ACQUIRE); }

static int spawn_abort_code(void) {
    int c = __atomic_load_n(&abort_code_val, __ATOMIC_ACQUIRE);
    return c < 0 ? 1 : c;
}

static int spawn_peer_exiting(uint32_t *barriers) {
    uint64_t v = __atomic_load_n(&peer_exit, __ATOMIC_ACQUIRE);
    if (v == UINT64_MAX) return -1;
    *barriers = (uint32_t)(v >> 32);
    return (int)(int32_t)(uint32_t)v;
}

static gasneti_bootstrap_t spawn_boot = {GASNETC_NAME "-control", spawn_barrier,      spawn_exchange,
                                         spawn_broadcast,         spawn_exit_notify,  spawn_all_exiting,
                                         spawn_abort_code,        jobid,              NULL,
                                         spawn_peer_exiting,      spawn_exchange_v,   spawn_p2p_send,
                                         gasneti_boot_msgq_take};

/* ---- start-up ---- */
static void self_spawn(int *argc, char ***argv) {
    const char *n = *argc > 1 ? (*argv)[1] : NULL;
    char *end = NULL;
    long nranks = n ? strtol(n, &end, 10) : 0;
    if (!n || *end || end == n || nranks < 1 || nranks > 1000000)
        gasneti_launch_error(WHO ": run this program as `%s N args...` (N: the number of processes), or with "
                             "`" GASNETC_LAUNCHER " -np N %s args...`",
                             *argc > 0 ? (*argv)[0] : "prog", *argc > 0 ? (*argv)[0] : "prog");
    char exe[4096];
    ssize_t l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (l <= 0) gasneti_launch_error(WHO ": cannot find this program (/proc/self/exe): %s", strerror(errno));
    exe[l] = 0;
    /* the ranks run this program with the arguments after N */
    int cargc = *argc - 1;
    char **cargv = calloc((size_t)cargc + 1, sizeof(char *));
    cargv[0] = exe;
    for (int i = 2; i < *argc; i++) cargv[i - 1] = (*argv)[i];
    const char *spawn = gasneti_spawn_default(GASNETC_NAME_UPPER, GASNETC_SPAWN_HOSTLIST_SSH);
    int rc = gasneti_spawn_launch(GASNETC_LAUNCHER, GASNETC_NAME_UPPER, (int)nranks, spawn, cargc, cargv,
                                  gasneti_getenv_yesno("GASNET_VERBOSEENV", 0));
    fflush(NULL);
    _exit(rc);
}

static void connect_master(const char *master) {
    char host[256];
    const char *colon = strrchr(master, ':');
    if (!colon || colon == master || (size_t)(colon - master) >= sizeof(host))
        gasneti_launch_error(ENVPFX "MASTER=%s: expected host:port", master);
    memcpy(host, master, (size_t)(colon - master));
    host[colon - master] = 0;
    struct addrinfo hints, *ai, *a;
    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, colon + 1, &hints, &ai);
    if (rc) gasneti_launch_error(WHO ": the launcher's address %s: %s", master, gai_strerror(rc));
    for (a = ai; a; a = a->ai_next) {
        ctrl = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (ctrl >= 0 && !connect(ctrl, a->ai_addr, a->ai_addrlen)) break;
        if (ctrl >= 0) close(ctrl);
        ctrl = -1;
    }
    int err = errno;
    freeaddrinfo(ai);
    if (ctrl < 0) gasneti_launch_error(WHO ": cannot connect to the launcher at %s: %s", master, strerror(err));
    int one = 1;
    setsockopt(ctrl, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    gasneti_spawn_ctrl_addrlen = sizeof(gasneti_spawn_ctrl_addr);
    getsockname(ctrl, (struct sockaddr *)&gasneti_spawn_ctrl_addr, &gasneti_spawn_ctrl_addrlen);
}

static uint64_t read_key(void) {
    const char *k = getenv(ENVPFX "KEY");
    char line[64];
    if (k && *k) {
        snprintf(line, sizeof(line), "%s", k);
        unsetenv(ENVPFX "KEY"); /* not for the client's own children */
    } else if (getenv(ENVPFX "KEY_STDIN")) {
        size_t n = 0; /* byte by byte: nothing after the line is taken from stdin */
        while (n < sizeof(line) - 1 && read(0, &line[n], 1) == 1 && line[n] != '\n') n++;
        line[n] = 0;
        unsetenv(ENVPFX "KEY_STDIN");
    } else {
        gasneti_launch_error(WHO ": started by a launcher (" ENVPFX "MASTER is set) but given no job key");
    }
    char *end;
    uint64_t key = strtoull(line, &end, 16);
    if (end == line || *end) gasneti_launch_error(WHO ": the job key from the launcher is malformed");
    return key;
}

/* A process started by the ssh spawner's tree as a host's agent (GASNET_<C>_AGENT=node):
 * it runs that host's part of the job (gasneti_launch_agent.c) and leaves with its status. */
GASNETI_NORETURN static void run_agent(const char *agent, const char *master, int *argc, char ***argv) {
    char *end = NULL, m[300], exe[4096];
    long node = strtol(agent, &end, 10);
    if (*end || node < 1) gasneti_launch_error(ENVPFX "AGENT=%s is not a node of the tree", agent);
    uint64_t key = read_key();
    snprintf(m, sizeof(m), "%s", master);
    unsetenv(ENVPFX "MASTER");
    unsetenv(ENVPFX "AGENT");
    ssize_t l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (l <= 0) gasneti_launch_error(WHO ": cannot find this program (/proc/self/exe): %s", strerror(errno));
    exe[l] = 0;
    int cargc = argc && argv ? *argc : 1;
    char **cargv = calloc((size_t)cargc + 1, sizeof(char *));
    cargv[0] = exe;
    for (int i = 1; i < cargc; i++) cargv[i] = (*argv)[i];
    int rc = gasneti_spawn_agent(GASNETC_LAUNCHER, GASNETC_NAME_UPPER, (int)node, m, key, cargc, cargv,
                                 gasneti_getenv_yesno("GASNET_VERBOSEENV", 0));
    fflush(NULL);
    _exit(rc);
}

gasneti_bootstrap_t *gasnetc_bootstrap_init(int *argc, char ***argv) {
    const char *master = getenv(ENVPFX "MASTER");
#ifdef GASNETI_SPAWN_PLUGIN_DIRS
    if (!master || !*master) { /* started by mpirun or a PMIx launcher (the mpi, pmi spawners) */
        const char *ext = gasneti_spawn_external(gasneti_spawn_default(GASNETC_NAME_UPPER, GASNETC_SPAWN_HOSTLIST_SSH));
        if (ext) return gasneti_spawn_ext_init(ext, argc, argv);
    }
#endif
    if (!master || !*master) {
        if (!argc || !argv) gasneti_launch_error(WHO ": start this program with " GASNETC_LAUNCHER " -np N prog args...");
        self_spawn(argc, argv);
    }
    const char *agent = getenv(ENVPFX "AGENT");
    if (agent && *agent) run_agent(agent, master, argc, argv);
    const char *rs = getenv(ENVPFX "RANK");
    char *end = NULL;
    long rank = rs ? strtol(rs, &end, 10) : -1;
    if (!rs || *end || rank < 0) gasneti_launch_error(WHO ": " ENVPFX "RANK=%s is not a rank", rs ? rs : "");
    gasneti_spawn_key = read_key();
    char m[300];
    snprintf(m, sizeof(m), "%s", master);
    unsetenv(ENVPFX "MASTER"); /* a GASNet program the client starts is not a rank of this job */
    unsetenv(ENVPFX "RANK");
    connect_master(m);
    ctrl_hello_t hello = {gasneti_spawn_key, (uint32_t)rank, 0};
    if (send_ctrl(CTRL_HELLO, &hello, sizeof(hello)))
        gasneti_launch_error(WHO ": the launcher at %s closed the connection", m);
    ctrl_hdr_t h;
    uint8_t *data;
    if (gasneti_launch_read_msg(ctrl, &h, &data) || h.type != CTRL_INIT || h.len < 4 + sizeof(jobid))
        gasneti_launch_error(WHO ": the launcher at %s refused rank %ld (a stale launcher, or a wrong key)", m,
                             rank);
    uint32_t n;
    memcpy(&n, data, 4);
    memcpy(jobid, data + 4, sizeof(jobid) - 1);
    free(data);
    if (gasneti_launch_read_msg(ctrl, &h, &data) || h.type != CTRL_ENV) gasneti_launch_error(WHO ": the launcher at %s went away", m);
    gasneti_launch_apply_env(ENVPFX, data, h.len); /* as an agent does */
    free(data);
    if ((uint32_t)rank >= n) gasneti_launch_error(WHO ": rank %ld of a job of %u", rank, n);
    gasneti_mynode = (gex_Rank_t)rank;
    gasneti_nodes = (gex_Rank_t)n;
    pthread_t t;
    if (pthread_create(&t, NULL, control_thread, NULL))
        gasneti_launch_error(WHO ": cannot start the control thread: %s", strerror(errno));
    pthread_detach(t);
    p2p_open();
    return &spawn_boot;
}
