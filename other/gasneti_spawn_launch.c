/* gasneti_spawn_launch.c: the launcher shared by the network conduits that start their
 * own jobs (udp, ofi). Starts the ranks of a job, serves their control connections (the
 * bootstrap collectives, out-of-band messages relayed between ranks, exit and abort), ends
 * the job and returns its exit status. Used
 * by the launchers (amudprun, gasnetrun_ofi: gasneti_run.c) and by a program run as
 * `prog N args...`; so it uses only libc (no library internals). Layer: other (spawners).
 *
 * Spawn functions (the launcher's -spawn/-spawner, else gasneti_spawn_default()):
 *   L  (local) fork/exec on this host (default);
 *   S  (ssh) `$GASNET_SSH_CMD $GASNET_SSH_OPTIONS host command` to GASNET_SSH_SERVERS, round robin;
 *   C  (custom) `/bin/sh -c "$GASNET_CSPAWN_CMD"` per rank, with %R (rank), %N (job size), %M (the
 *      launcher's host:port), %H (the rank's host from GASNET_SSH_SERVERS, or localhost),
 *      %P (program), %A (arguments, quoted for sh), %C (the whole command a rank must run,
 *      quoted for sh) and %% replaced.
 *   mpi, pmi (where the conduit has them) the job is started by gasnetrun_mpi: mpirun, or
 *      PMIRUN_CMD for pmi; the ranks bootstrap through a plugin (gasneti_spawn_ext.c).
 * The key goes to L ranks in their environment, to S and C ranks on stdin; never on a
 * command line. S and C ranks get the launcher's environment over the control connection.
 * The job ends when every rank has ended: with the code of an abort (gasnet_exit on one
 * rank, a fatal error, a lost rank), else the first non-zero exit code, else 0. A rank lost
 * (connection closed before it said it was exiting, or a child that died) aborts the job;
 * SIGINT/SIGTERM/SIGHUP to the launcher too (code 128+signal). After an abort, survivors
 * get ABORT, then SIGTERM and SIGKILL (children of this launcher) after a grace. */
#include "gasneti_spawn.h"
#include "gasneti_fdio.h"
#include "../gasnet_core/gasneti_dumpsig.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if defined(GASNETI_SPAWN_MPIRUN_PATHS) || defined(GASNETI_SPAWN_PLUGIN_DIRS)
#include "other/gasneti_instpaths.h" /* GASNETI_INST_*, of which those -D paths are made */
#endif

extern char **environ;

#define GRACE_S 2.0

typedef struct {
    int fd;          /* control connection, -1 if none (yet, or any more) */
    pid_t pid;       /* our child for this rank (the rank itself for L), -1 once reaped */
    int joined;      /* said HELLO */
    int exiting;     /* said EXITING */
    int aborted;     /* said ABORT: it leaves on its own (after its teardown's last words) */
    int code;        /* its exit code */
    uint8_t *contrib; /* contribution to the current collective */
    uint32_t clen;
    int contributed;
    double lost_at;  /* its connection closed unannounced while its process was still ours to reap */
    char host[64];
} rank_t;

typedef struct { /* a connection that has not said HELLO yet */
    int fd;
    size_t got;
    uint8_t buf[sizeof(ctrl_hdr_t) + sizeof(ctrl_hello_t)];
    double since;
} pending_t;

static rank_t *ranks;
static int nranks, verbose, nconnected, ncontributed, nexiting, all_exit_sent;
static int job_code = -1, first_nonzero;
static uint32_t min_barriers; /* the fewest barriers started by a rank that said EXITING */
static double kill_at, term_at;
static uint64_t key;
static char jobid[64];
static unsigned long refused;
static volatile sig_atomic_t got_signal;
static const char *me = "launcher";
static char envpfx[32] = "GASNET_"; /* GASNET_<C>_ */
static char spawned_by = 'L'; /* the spawn function: L, S or C */

/* GASNET_<C>_<suffix> (one at a time: the result is overwritten by the next call) */
static const char *envname(const char *suffix) {
    static char name[96];
    snprintf(name, sizeof(name), "%s%s", envpfx, suffix);
    return name;
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", me);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void send_msg(int r, uint32_t type, const void *data, uint32_t len) {
    if (ranks[r].fd < 0) return;
    ctrl_hdr_t h = {type, len};
    struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)data, len}};
    if (gasneti_fd_writev_all(ranks[r].fd, iov, 2, 0)) {
        close(ranks[r].fd);
        ranks[r].fd = -1; /* its loss is noticed by the reaper or the abort in progress */
    }
}

/* ---- ending the job ---- */
static void abort_job(int code, const char *why) {
    if (job_code < 0) {
        job_code = code;
        if (why) say("%s; ending the job", why);
    }
    if (kill_at) return;
    int32_t c = job_code;
    for (int i = 0; i < nranks; i++)
        if (!ranks[i].aborted) send_msg(i, CTRL_ABORT, &c, sizeof(c));
    term_at = now_s() + GRACE_S;
    kill_at = term_at + GRACE_S;
}

static void signal_children(int sig) {
    for (int i = 0; i < nranks; i++)
        if (ranks[i].pid > 0) kill(ranks[i].pid, sig);
}

static void on_signal(int sig) { got_signal = sig; }
/* GASNET_DUMP_SIGNAL (default SIGUSR1) to the launcher: every rank prints its state dump */
static volatile sig_atomic_t got_dump;
static void on_dump_signal(int sig) { (void)sig; got_dump = 1; }

static void remove_job_shm(void) {
    char prefix[96];
    snprintf(prefix, sizeof(prefix), "gasnet-%s-", jobid);
    const char *dirs[2] = {"/dev/shm", getenv("GASNET_PSHM_DIR")};
    for (int i = 0; i < 2; i++) {
        if (!dirs[i] || !*dirs[i]) continue;
        DIR *d = opendir(dirs[i]);
        if (!d) continue;
        struct dirent *de;
        while ((de = readdir(d)))
            if (!strncmp(de->d_name, prefix, strlen(prefix))) {
                char path[PATH_MAX];
                snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
                unlink(path);
            }
        closedir(d);
    }
}

/* ---- commands for S and C ---- */
/* s quoted for /bin/sh: '...' with each ' as '\'' */
static void sh_quote(char **out, size_t *len, size_t *cap, const char *s) {
    size_t need = *len + 4 * strlen(s) + 3;
    if (need > *cap) {
        *cap = need * 2;
        *out = realloc(*out, *cap);
        if (!*out) abort();
    }
    char *p = *out + *len;
    *p++ = '\'';
    for (; *s; s++) {
        if (*s == '\'') {
            memcpy(p, "'\\''", 4);
            p += 4;
        } else {
            *p++ = *s;
        }
    }
    *p++ = '\'';
    *p = 0;
    *len = (size_t)(p - *out);
}

static void append(char **out, size_t *len, size_t *cap, const char *s) {
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        *cap = (*len + n + 1) * 2;
        *out = realloc(*out, *cap);
        if (!*out) abort();
    }
    memcpy(*out + *len, s, n + 1);
    *len += n;
}

/* "cd DIR && exec env GASNET_<C>_MASTER=... GASNET_<C>_RANK=r GASNET_<C>_KEY_STDIN=1 PROG ARGS" */
static char *rank_command(int r, const char *master, int argc, char **argv) {
    char *out = NULL, buf[128], cwd[PATH_MAX];
    size_t len = 0, cap = 0;
    append(&out, &len, &cap, "cd ");
    sh_quote(&out, &len, &cap, getcwd(cwd, sizeof(cwd)) ? cwd : "/");
    append(&out, &len, &cap, " && exec env ");
    append(&out, &len, &cap, envname("MASTER="));
    append(&out, &len, &cap, master);
    snprintf(buf, sizeof(buf), " %sRANK=%d %sKEY_STDIN=1", envpfx, r, envpfx);
    append(&out, &len, &cap, buf);
    for (int i = 0; i < argc; i++) {
        append(&out, &len, &cap, " ");
        sh_quote(&out, &len, &cap, argv[i]);
    }
    return out;
}

static char *cspawn_command(const char *tmpl, int r, const char *master, const char *host, int argc, char **argv) {
    char *out = NULL, buf[64];
    size_t len = 0, cap = 0;
    append(&out, &len, &cap, "");
    for (const char *p = tmpl; *p; p++) {
        if (*p != '%' || !p[1]) {
            char c[2] = {*p, 0};
            append(&out, &len, &cap, c);
            continue;
        }
        switch (*++p) {
            case 'R': snprintf(buf, sizeof(buf), "%d", r); append(&out, &len, &cap, buf); break;
            case 'N': snprintf(buf, sizeof(buf), "%d", nranks); append(&out, &len, &cap, buf); break;
            case 'M': append(&out, &len, &cap, master); break;
            case 'H': append(&out, &len, &cap, host); break;
            case 'P': sh_quote(&out, &len, &cap, argv[0]); break;
            case 'A':
                for (int i = 1; i < argc; i++) {
                    if (i > 1) append(&out, &len, &cap, " ");
                    sh_quote(&out, &len, &cap, argv[i]);
                }
                break;
            case 'C': {
                char *c = rank_command(r, master, argc, argv);
                sh_quote(&out, &len, &cap, c);
                free(c);
                break;
            }
            case '%': append(&out, &len, &cap, "%"); break;
            default: {
                char c[3] = {'%', *p, 0};
                append(&out, &len, &cap, c);
            }
        }
    }
    return out;
}

/* the words of a space- or comma-separated list */
static int split_list(const char *s, char ***words) {
    int n = 0;
    char *copy = strdup(s ? s : ""), *save = NULL;
    *words = NULL;
    for (char *w = strtok_r(copy, " ,\t\n", &save); w; w = strtok_r(NULL, " ,\t\n", &save)) {
        *words = realloc(*words, sizeof(char *) * (size_t)(n + 2));
        (*words)[n++] = w;
    }
    if (*words) (*words)[n] = NULL;
    return n;
}

/* Start rank r. Returns 0 or -1 (message printed). */
static int spawn_rank(int r, char spawn, const char *master, int argc, char **argv, char **servers, int nservers) {
    int keypipe[2] = {-1, -1};
    if (spawn != 'L' && pipe(keypipe)) {
        say("pipe: %s", strerror(errno));
        return -1;
    }
    const char *host = nservers ? servers[r % nservers] : "localhost";
    snprintf(ranks[r].host, sizeof(ranks[r].host), "%s", spawn == 'L' ? "localhost" : host);
    char *cmd = NULL;
    char **sshv = NULL;
    if (spawn == 'S') {
        char **opts;
        int nopts = split_list(getenv("GASNET_SSH_OPTIONS"), &opts);
        const char *ssh = getenv("GASNET_SSH_CMD");
        char **sshcmd;
        int nssh = split_list(ssh && *ssh ? ssh : "ssh", &sshcmd);
        cmd = rank_command(r, master, argc, argv);
        sshv = calloc((size_t)(nssh + nopts + 8), sizeof(char *));
        int k = 0;
        for (int i = 0; i < nssh; i++) sshv[k++] = sshcmd[i];
        if (!ssh || !*ssh) { /* real ssh: never prompt */
            sshv[k++] = "-o";
            sshv[k++] = "BatchMode=yes";
            sshv[k++] = "-o";
            sshv[k++] = "StrictHostKeyChecking=accept-new";
        }
        for (int i = 0; i < nopts; i++) sshv[k++] = opts[i];
        sshv[k++] = (char *)host;
        sshv[k++] = cmd;
        sshv[k] = NULL;
    } else if (spawn == 'C') {
        cmd = cspawn_command(getenv("GASNET_CSPAWN_CMD"), r, master, host, argc, argv);
        if (verbose) say("rank %d: /bin/sh -c %s", r, cmd);
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        say("fork of rank %d failed: %s", r, strerror(errno));
        return -1;
    }
    if (pid == 0) {
        char buf[64];
        signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL), signal(SIGHUP, SIG_DFL), signal(SIGPIPE, SIG_DFL);
        if (spawn == 'L') {
            snprintf(buf, sizeof(buf), "%d", r);
            setenv(envname("RANK"), buf, 1);
            setenv(envname("MASTER"), master, 1);
            snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)key);
            setenv(envname("KEY"), buf, 1);
            execv(argv[0], argv);
            fprintf(stderr, "%s: cannot run %s: %s\n", me, argv[0], strerror(errno));
            _exit(127);
        }
        dup2(keypipe[0], 0);
        close(keypipe[0]);
        close(keypipe[1]);
        if (spawn == 'S') {
            execvp(sshv[0], sshv);
            fprintf(stderr, "%s: cannot run %s: %s\n", me, sshv[0], strerror(errno));
        } else {
            execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
            fprintf(stderr, "%s: cannot run /bin/sh: %s\n", me, strerror(errno));
        }
        _exit(127);
    }
    ranks[r].pid = pid;
    if (spawn != 'L') {
        char line[32];
        int n = snprintf(line, sizeof(line), "%016llx\n", (unsigned long long)key);
        close(keypipe[0]);
        struct iovec kv = {line, (size_t)n};
        (void)gasneti_fd_writev_all(keypipe[1], &kv, 1, 0); /* fails if the child is gone already: the reaper says so */
        close(keypipe[1]);
    }
    free(cmd);
    free(sshv);
    return 0;
}

/* ---- serving the ranks ---- */
static void environment_blob(uint8_t **blob, uint32_t *len) {
    size_t n = 0;
    for (char **e = environ; *e; e++) n += strlen(*e) + 1;
    *blob = malloc(n ? n : 1);
    n = 0;
    for (char **e = environ; *e; e++) {
        size_t l = strlen(*e) + 1;
        memcpy(*blob + n, *e, l);
        n += l;
    }
    *len = (uint32_t)n;
}

static void accept_hello(pending_t *p, char spawn) {
    ctrl_hdr_t *h = (ctrl_hdr_t *)p->buf;
    ctrl_hello_t *hello = (ctrl_hello_t *)(p->buf + sizeof(*h));
    int r = (int)hello->rank;
    if (h->type != CTRL_HELLO || h->len != sizeof(*hello) || hello->key != key || r < 0 || r >= nranks ||
        ranks[r].fd >= 0 || ranks[r].exiting) {
        refused++;
        if (verbose) say("refused a control connection: wrong key or rank (%lu refused so far)", refused);
        close(p->fd);
        return;
    }
    ranks[r].fd = p->fd;
    ranks[r].joined = 1;
    nconnected++;
    uint8_t init[4 + sizeof(jobid)];
    uint32_t n = (uint32_t)nranks;
    memcpy(init, &n, 4);
    memcpy(init + 4, jobid, sizeof(jobid));
    send_msg(r, CTRL_INIT, init, sizeof(init));
    uint8_t *env = NULL;
    uint32_t envlen = 0;
    if (spawn != 'L') environment_blob(&env, &envlen);
    send_msg(r, CTRL_ENV, env, envlen);
    free(env);
    if (job_code >= 0) { /* already ending */
        int32_t c = job_code;
        send_msg(r, CTRL_ABORT, &c, sizeof(c));
    }
}

static void collective_done(void) {
    size_t total = 0;
    for (int i = 0; i < nranks; i++) total += ranks[i].clen;
    uint8_t *all = malloc(total ? total : 1);
    size_t off = 0;
    for (int i = 0; i < nranks; i++) {
        if (ranks[i].clen) memcpy(all + off, ranks[i].contrib, ranks[i].clen);
        off += ranks[i].clen;
        free(ranks[i].contrib);
        ranks[i].contrib = NULL;
        ranks[i].clen = 0;
        ranks[i].contributed = 0;
    }
    ncontributed = 0;
    for (int i = 0; i < nranks; i++) send_msg(i, CTRL_EXCH, all, (uint32_t)total);
    free(all);
}

static void rank_lost(int r, const char *what) {
    if (ranks[r].fd >= 0) close(ranks[r].fd);
    ranks[r].fd = -1;
    if (ranks[r].exiting || kill_at) return;
    char why[160];
    snprintf(why, sizeof(why), "rank %d on host %s: %s", r, ranks[r].host, what);
    abort_job(1, why);
}

#define LOST_WAIT_S 1.0
static const char conn_lost[] = "control connection lost (the process died?)";
/* A connection that closed before its rank said it was exiting. The connection usually
 * closes a moment before the process can be reaped: if the process is our child (the rank
 * itself for L, its ssh or shell otherwise), its exit status says why (a signal, say) once
 * reap() collects it; only one still running LOST_WAIT_S later is reported as lost here. */
static void connection_lost(int r) {
    if (ranks[r].fd >= 0) close(ranks[r].fd);
    ranks[r].fd = -1;
    if (ranks[r].exiting || kill_at) return;
    if (ranks[r].pid > 0) {
        if (!ranks[r].lost_at) ranks[r].lost_at = now_s();
        return;
    }
    rank_lost(r, conn_lost);
}

static void serve_rank(int r) {
    ctrl_hdr_t h;
    if (gasneti_fd_read_all(ranks[r].fd, &h, sizeof(h))) { /* ranks send whole messages */
        connection_lost(r);
        return;
    }
    uint8_t *data = h.len ? malloc(h.len) : NULL;
    if (h.len && (!data || gasneti_fd_read_all(ranks[r].fd, data, h.len))) {
        free(data);
        connection_lost(r);
        return;
    }
    int32_t code = h.len >= 4 && data ? *(int32_t *)data : 1;
    switch (h.type) {
        case CTRL_EXCH:
            if (ranks[r].contributed) {
                free(data);
                rank_lost(r, "protocol error (two contributions to one collective)");
                return;
            }
            ranks[r].contrib = data;
            ranks[r].clen = h.len;
            ranks[r].contributed = 1;
            data = NULL;
            if (++ncontributed == nranks) collective_done();
            break;
        case CTRL_EXITING:
            if (!ranks[r].exiting) {
                ranks[r].exiting = 1;
                ranks[r].code = code;
                if (code && !first_nonzero) first_nonzero = code;
                nexiting++;
                /* the others learn that the job is ending, with the fewest barriers an
                 * exiting rank started (a rank blocked in a later barrier joins the exit
                 * at once: gasneti_join_peer_exit); sent again only when that drops */
                uint32_t started = h.len >= 8 ? ((uint32_t *)data)[1] : 0;
                if (nranks > 1 && (nexiting == 1 || started < min_barriers)) {
                    min_barriers = started;
                    uint32_t cb[2] = {(uint32_t)code, started};
                    for (int i = 0; i < nranks; i++)
                        if (!ranks[i].exiting) send_msg(i, CTRL_PEER_EXITING, cb, sizeof(cb));
                }
            }
            if (nexiting == nranks && !all_exit_sent) {
                all_exit_sent = 1;
                for (int i = 0; i < nranks; i++) send_msg(i, CTRL_ALL_EXITING, NULL, 0);
            }
            break;
        case CTRL_P2P: { /* relayed with the sender in place of the destination */
            uint32_t dest = UINT32_MAX, src = (uint32_t)r;
            if (h.len >= 4) memcpy(&dest, data, 4);
            if (dest >= (uint32_t)nranks) {
                free(data);
                rank_lost(r, "protocol error (an out-of-band message to no rank)");
                return;
            }
            memcpy(data, &src, 4);
            send_msg((int)dest, CTRL_P2P, data, h.len);
            break;
        }
        case CTRL_ABORT:
            ranks[r].exiting = 1; /* its leaving is expected now */
            ranks[r].aborted = 1; /* not told back: it leaves by itself, within the grace */
            abort_job(code, NULL);
            break;
        default:
            free(data);
            rank_lost(r, "protocol error (unknown message)");
            return;
    }
    free(data);
}

/* A process that has exited may have left messages (its EXITING or ABORT) in its control
 * connection that the poll loop has not read yet: read them before judging its exit. */
static void drain_rank(int r) {
    while (ranks[r].fd >= 0) {
        struct pollfd p = {ranks[r].fd, POLLIN, 0};
        if (poll(&p, 1, 0) <= 0) return;
        char c;
        if (recv(ranks[r].fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0) { /* end of stream */
            close(ranks[r].fd);
            ranks[r].fd = -1;
            return;
        }
        serve_rank(r);
    }
}

static void reap(void) {
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
        int r = 0;
        while (r < nranks && ranks[r].pid != pid) r++;
        if (r == nranks) continue;
        ranks[r].pid = -1;
        drain_rank(r);
        int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (ranks[r].exiting && WIFEXITED(st)) {
            if (code && !first_nonzero) first_nonzero = code;
            continue;
        }
        if (kill_at) continue; /* ending anyway */
        char why[200];
        if (WIFSIGNALED(st))
            snprintf(why, sizeof(why), "rank %d on host %s was killed by signal %d (%s)", r, ranks[r].host,
                     WTERMSIG(st), strsignal(WTERMSIG(st)));
        else if (spawned_by != 'L' && code > 128 && code < 128 + 65) /* a shell's (and ssh's) 128 + S */
            snprintf(why, sizeof(why), "rank %d on host %s was killed by signal %d (%s), as its %s reports (status %d)",
                     r, ranks[r].host, code - 128, strsignal(code - 128), spawned_by == 'S' ? "ssh" : "shell", code);
        else
            snprintf(why, sizeof(why), "rank %d on host %s exited with status %d %s", r, ranks[r].host, code,
                     ranks[r].joined ? "without gasnet_exit" : "before joining the job");
        abort_job(code ? code : 1, why);
    }
}

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

/* "L", "S", "C" (either case) or the spawner's name: its letter, 0 if unknown */
static char spawn_letter(const char *s) {
    static const char *const names[][2] = {{"L", "local"}, {"S", "ssh"}, {"C", "custom"}};
    for (int i = 0; i < 3; i++)
        if (!strcasecmp(s, names[i][0]) || !strcasecmp(s, names[i][1])) return names[i][0][0];
    return 0;
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

/* The mpi and pmi spawners: the job is gasnetrun_mpi's (mpirun, or PMIRUN_CMD for pmi);
 * the ranks learn the spawner from GASNET_<C>_SPAWNER and join through its plugin.
 * gasnetrun_mpi is looked for beside this program, then where the build installs it and
 * in the build tree (GASNETI_SPAWN_MPIRUN_PATHS; the build tree first for a program of the
 * build tree: GASNETI_SPAWN_BUILD_TREE_MPIRUN). Returns only on failure. */
static int launch_external(const char *which, int n, int argc, char **argv) {
#ifdef GASNETI_SPAWN_MPIRUN_PATHS
    char self[PATH_MAX], paths[8192], *save = NULL, nstr[16];
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
    snprintf(paths, sizeof(paths), "%s/gasnetrun_mpi:%s%s%s", self, in_tree ? tree : "", in_tree ? ":" : "",
             GASNETI_SPAWN_MPIRUN_PATHS);
    const char *runner = NULL;
    for (char *p = strtok_r(paths, ":", &save); p && !runner; p = strtok_r(NULL, ":", &save))
        if (!access(p, X_OK)) runner = p;
    if (!runner) {
        say("the %s spawner starts jobs with gasnetrun_mpi, which is not where it was installed (%s)", which,
            GASNETI_SPAWN_MPIRUN_PATHS);
        return 1;
    }
    char var[64];
    snprintf(var, sizeof(var), "%sSPAWNER", envpfx);
    const char *lower = strcasecmp(which, "mpi") ? "pmi" : "mpi";
    setenv(var, lower, 1);
    const char *pmirun = getenv("PMIRUN_CMD");
    if (*lower == 'p' && pmirun && *pmirun) setenv("MPIRUN_CMD", pmirun, 1);
    snprintf(nstr, sizeof(nstr), "%d", n);
    char **av = calloc((size_t)argc + 6, sizeof(char *));
    int k = 0;
    av[k++] = (char *)runner;
    if (verbose) av[k++] = "-v";
    av[k++] = "-n";
    av[k++] = nstr;
    av[k++] = "--";
    for (int i = 0; i < argc; i++) av[k++] = argv[i];
    if (verbose) say("%s spawner: %s -n %d %s ...", lower, runner, n, argv[0]);
    fflush(NULL);
    execv(runner, av);
    say("cannot run %s: %s", runner, strerror(errno));
    return 1;
#else
    (void)n, (void)argc, (void)argv;
    say("the %s spawner is not available with this conduit: use local (this host), ssh or custom", which);
    return 1;
#endif
}

/* ---- running a job (gasneti_spawn_launch, in the order it calls these) ---- */
/* The spawner asked for and what it needs from the environment: its letter (L, S, C), or
 * 0 after saying why it cannot be used. Fills the host list (GASNET_SSH_SERVERS). */
static char check_spawner(const char *spawnfn, int n, char ***servers, int *nservers) {
    char spawn = spawn_letter(spawnfn);
    if (!spawn) {
        say("spawn function '%s' unknown: use local or L (this host), ssh or S (GASNET_SSH_SERVERS), custom or C "
            "(GASNET_CSPAWN_CMD)", spawnfn);
        return 0;
    }
    if (n < 1) {
        say("the number of processes must be at least 1 (got %d)", n);
        return 0;
    }
    *nservers = split_list(getenv("GASNET_SSH_SERVERS"), servers);
    if (spawn == 'S' && !*nservers) {
        say("the ssh spawner (S) needs the hosts in GASNET_SSH_SERVERS");
        return 0;
    }
    if (spawn == 'C' && !(getenv("GASNET_CSPAWN_CMD") && *getenv("GASNET_CSPAWN_CMD"))) {
        say("the custom spawner (C) needs the command in GASNET_CSPAWN_CMD");
        return 0;
    }
    return spawn;
}

/* The job's random key (ranks prove they belong with it) and its id (derived from the
 * launcher's pid and the key: unique, usable in shared-memory names). 0 or -1. */
static int make_job_key(void) {
    if (getrandom(&key, sizeof(key), 0) != sizeof(key)) {
        say("getrandom: %s", strerror(errno));
        return -1;
    }
    uint32_t rnd;
    memcpy(&rnd, (uint8_t *)&key + 4, 4);
    snprintf(jobid, sizeof(jobid), "%ld-%08x", (long)getpid(), rnd ^ 0x5bd1e995u);
    return 0;
}

/* The control port the ranks connect back to: on loopback for L, on every interface
 * otherwise; master gets the host:port the ranks are told (GASNET_MASTERIP, else this
 * host's name). The listening socket, or -1 after saying why. */
static int open_control_port(char spawn, char *master, size_t masterlen) {
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(spawn == 'L' ? INADDR_LOOPBACK : INADDR_ANY);
    socklen_t al = sizeof(a);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 128) ||
        getsockname(lfd, (struct sockaddr *)&a, &al)) {
        say("cannot open a control port: %s", strerror(errno));
        return -1;
    }
    fcntl(lfd, F_SETFD, FD_CLOEXEC);
    char hostname[256] = "localhost";
    const char *mip = getenv("GASNET_MASTERIP");
    if (spawn == 'L') {
        snprintf(master, masterlen, "127.0.0.1:%d", (int)ntohs(a.sin_port));
        return lfd;
    }
    if (mip && *mip)
        snprintf(hostname, sizeof(hostname), "%s", mip);
    else
        gethostname(hostname, sizeof(hostname) - 1);
    snprintf(master, masterlen, "%s:%d", hostname, (int)ntohs(a.sin_port));
    return lfd;
}

/* SIGINT, SIGTERM, SIGHUP end the job (seen by the serve loop); a rank's closed
 * connection must not kill the launcher (SIGPIPE). */
static void catch_signals(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    int ds = gasneti_dump_signal_parse(getenv("GASNET_DUMP_SIGNAL"));
    sa.sa_handler = on_dump_signal;
    if (ds > 0) sigaction(ds, &sa, NULL);
}

/* the serve loop's state: connections that have not said HELLO, and the poll set */
static pending_t *pend;
static int npend;
static struct pollfd *pfd;

/* The ranks and the serve loop's tables; then every rank started (a failed start aborts
 * the job, whose serving then ends the ranks already started). 0, or -1 if out of memory. */
static int start_ranks(char spawn, const char *master, int argc, char **argv, char **servers, int nservers) {
    ranks = calloc((size_t)nranks, sizeof(rank_t));
    pend = calloc((size_t)nranks + 16, sizeof(pending_t));
    pfd = calloc((size_t)(2 * nranks + 17), sizeof(struct pollfd));
    if (!ranks || !pend || !pfd) {
        say("out of memory");
        return -1;
    }
    for (int r = 0; r < nranks; r++) ranks[r].fd = ranks[r].pid = -1;
    spawned_by = spawn;
    for (int r = 0; r < nranks && job_code < 0; r++)
        if (spawn_rank(r, spawn, master, argc, argv, servers, nservers)) abort_job(1, NULL);
    return 0;
}

/* The job's clock, once per turn of the serve loop: a signal to the launcher aborts the
 * job; an abort's grace periods run out (SIGTERM, then SIGKILL to the survivors); ranks
 * that have not connected within spawn_timeout s of the start abort it. */
static void check_deadlines(double t, double start, double spawn_timeout) {
    if (got_dump) { /* forwarded over the control connections: reaches ranks on every host */
        got_dump = 0;
        for (int i = 0; i < nranks; i++) send_msg(i, CTRL_DUMP, NULL, 0);
    }
    if (got_signal && !kill_at) {
        char why[80];
        snprintf(why, sizeof(why), "got signal %d (%s)", (int)got_signal, strsignal(got_signal));
        abort_job(128 + got_signal, why);
        signal_children(SIGTERM);
    }
    if (term_at && t > term_at) {
        signal_children(SIGTERM);
        term_at = 0;
    }
    if (kill_at && t > kill_at) signal_children(SIGKILL);
    if (nconnected < nranks && !kill_at && t - start > spawn_timeout) {
        char why[120];
        snprintf(why, sizeof(why), "only %d of %d ranks connected within %.0f s (%sSPAWN_TIMEOUT)", nconnected,
                 nranks, spawn_timeout, envpfx);
        abort_job(1, why);
    }
}

/* Ranks whose connection closed unannounced and whose process still runs LOST_WAIT_S
 * later (connection_lost) are lost. */
static void check_lost(void) {
    for (int r = 0; r < nranks; r++)
        if (ranks[r].lost_at && ranks[r].pid > 0 && now_s() - ranks[r].lost_at > LOST_WAIT_S) {
            ranks[r].lost_at = 0;
            rank_lost(r, conn_lost);
        }
}

/* Connections that have not said who they are (pfd[1 + i] for pend[i]): read their HELLO
 * as it comes; a complete one is accepted or refused (accept_hello), one that closes or
 * says nothing for 10 s is refused. From the last, so that removing one by moving the
 * last into its place leaves the ones still to look at alone. */
static void serve_pending(int npolled, char spawn, double t) {
    for (int i = npolled - 1; i >= 0; i--) {
        short ev = pfd[1 + i].revents;
        if (ev & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t got = read(pend[i].fd, pend[i].buf + pend[i].got, sizeof(pend[i].buf) - pend[i].got);
            if (got <= 0) {
                refused++;
                if (verbose) say("a control connection closed before saying who it is (%lu refused)", refused);
                close(pend[i].fd);
            } else if ((pend[i].got += (size_t)got) == sizeof(pend[i].buf)) {
                accept_hello(&pend[i], spawn);
            } else {
                continue;
            }
        } else if (t - pend[i].since > 10.0) { /* says nothing: not one of ours */
            refused++;
            close(pend[i].fd);
        } else {
            continue;
        }
        pend[i] = pend[--npend];
    }
}

/* A new connection on the control port joins the pending ones (at most nranks + 16). */
static void accept_connection(int lfd, double t) {
    int fd = accept(lfd, NULL, NULL);
    if (fd < 0) return;
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (npend < nranks + 16) {
        pend[npend++] = (pending_t){fd, 0, {0}, t};
    } else {
        refused++;
        close(fd);
    }
}

/* Serve the job until every process started has ended: each turn checks the clock, polls
 * the control port, the pending connections and the ranks' connections (20 ms at most),
 * reaps ended processes, then serves what the poll found. */
static void serve_job(int lfd, char spawn, double start, double spawn_timeout) {
    for (;;) {
        int alive = 0;
        for (int r = 0; r < nranks; r++) alive += ranks[r].pid > 0;
        if (!alive) return;
        double t = now_s();
        check_deadlines(t, start, spawn_timeout);
        int np = 0, npolled = npend;
        pfd[np++] = (struct pollfd){lfd, POLLIN, 0};
        for (int i = 0; i < npend; i++) pfd[np++] = (struct pollfd){pend[i].fd, POLLIN, 0};
        for (int r = 0; r < nranks; r++)
            if (ranks[r].fd >= 0) pfd[np++] = (struct pollfd){ranks[r].fd, POLLIN, 0};
        int rc = poll(pfd, (nfds_t)np, 20);
        reap();
        check_lost();
        if (rc < 0) continue; /* EINTR: a signal, seen at the top */
        serve_pending(npolled, spawn, t);
        for (int k = 1 + npolled; k < np; k++) {
            if (!(pfd[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            int r = 0;
            while (r < nranks && ranks[r].fd != pfd[k].fd) r++;
            if (r < nranks) serve_rank(r);
        }
        if (pfd[0].revents & POLLIN) accept_connection(lfd, t);
    }
}

/* After the last process ended: close every connection and the port, remove the shared
 * memory the job may have left, and give the job's status: an abort's code, else the
 * first non-zero exit code, else 0. */
static int finish_job(int lfd) {
    reap();
    for (int i = 0; i < npend; i++) close(pend[i].fd);
    for (int r = 0; r < nranks; r++)
        if (ranks[r].fd >= 0) close(ranks[r].fd);
    close(lfd);
    remove_job_shm();
    if (verbose || refused) say("%lu control connection(s) refused (wrong key, rank or protocol)", refused);
    return job_code >= 0 ? job_code : first_nonzero;
}

int gasneti_spawn_launch(const char *launcher, const char *conduit, int n, const char *spawnfn, int argc,
                         char **argv, int verb) {
    verbose = verb;
    nranks = n;
    me = launcher;
    snprintf(envpfx, sizeof(envpfx), "GASNET_%s_", conduit);
    if (!spawnfn || !*spawnfn) spawnfn = "L";
    if (!strcasecmp(spawnfn, "mpi") || !strcasecmp(spawnfn, "pmi")) return launch_external(spawnfn, n, argc, argv);
    char **servers = NULL, master[300];
    int nservers = 0;
    char spawn = check_spawner(spawnfn, n, &servers, &nservers);
    if (!spawn || make_job_key()) return 1;
    int lfd = open_control_port(spawn, master, sizeof(master));
    if (lfd < 0) return 1;
    if (verbose) say("job %s: %d ranks, spawn %c, control port %s", jobid, n, spawn, master);
    catch_signals();
    if (start_ranks(spawn, master, argc, argv, servers, nservers)) return 1;
    const char *st = getenv(envname("SPAWN_TIMEOUT"));
    serve_job(lfd, spawn, now_s(), st && *st ? atof(st) : 60.0);
    return finish_job(lfd);
}
