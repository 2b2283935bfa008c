/* gasneti_launch_spawn.c: the shared launcher's spawn functions (gasneti_launch.h):
 *   L  (local) fork/exec on this host (default);
 *   S  (ssh) `$GASNET_SSH_CMD $GASNET_SSH_OPTIONS host command`, once per host of
 *      GASNET_SSH_SERVERS, in a tree: the command starts the host's agent, which forks the
 *      host's ranks (rank r on host r mod hosts) and sshs to its own children
 *      (gasneti_launch_agent.c); the key on the agent's stdin, in its ranks' environment;
 *   C  (custom) `/bin/sh -c "$GASNET_CSPAWN_CMD"` per rank, with %R (rank), %N (job size), %M (the
 *      launcher's host:port), %H (the rank's host from GASNET_SSH_SERVERS, or localhost),
 *      %P (program), %A (arguments, quoted for sh), %C (the whole command a rank must run,
 *      quoted for sh) and %% replaced.
 * The key goes to L ranks in their environment, to S and C ranks on stdin; never on a
 * command line. Layer: other (launchers). */
#include "gasneti_launch.h"
#include "gasneti_fdio.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

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

/* "cd DIR && exec env GASNET_<C>_MASTER=... GASNET_<C>_<idvar>=id GASNET_<C>_KEY_STDIN=1 PROG ARGS"
 * (idvar RANK for a rank, AGENT for a host's agent) */
char *gasneti_launch_rank_command(gasneti_launch_t *L, const char *idvar, int id) {
    char *out = NULL, buf[128], cwd[PATH_MAX];
    size_t len = 0, cap = 0;
    append(&out, &len, &cap, "cd ");
    sh_quote(&out, &len, &cap, getcwd(cwd, sizeof(cwd)) ? cwd : "/");
    append(&out, &len, &cap, " && exec env ");
    append(&out, &len, &cap, gasneti_launch_envname(L, "MASTER="));
    append(&out, &len, &cap, L->master);
    snprintf(buf, sizeof(buf), " %s%s=%d %sKEY_STDIN=1", L->envpfx, idvar, id, L->envpfx);
    append(&out, &len, &cap, buf);
    for (int i = 0; i < L->argc; i++) {
        append(&out, &len, &cap, " ");
        sh_quote(&out, &len, &cap, L->argv[i]);
    }
    return out;
}

static char *cspawn_command(gasneti_launch_t *L, const char *tmpl, int r, const char *host) {
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
            case 'N': snprintf(buf, sizeof(buf), "%d", L->nranks); append(&out, &len, &cap, buf); break;
            case 'M': append(&out, &len, &cap, L->master); break;
            case 'H': append(&out, &len, &cap, host); break;
            case 'P': sh_quote(&out, &len, &cap, L->argv[0]); break;
            case 'A':
                for (int i = 1; i < L->argc; i++) {
                    if (i > 1) append(&out, &len, &cap, " ");
                    sh_quote(&out, &len, &cap, L->argv[i]);
                }
                break;
            case 'C': {
                char *c = gasneti_launch_rank_command(L, "RANK", r);
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

/* ssh's argument vector for rank r's command cmd on host (freed by the caller; the
 * words of GASNET_SSH_CMD and GASNET_SSH_OPTIONS are not) */
static char **ssh_argv(const char *host, char *cmd) {
    char **opts, **sshcmd;
    int nopts = gasneti_launch_split_list(getenv("GASNET_SSH_OPTIONS"), &opts);
    const char *ssh = getenv("GASNET_SSH_CMD");
    int nssh = gasneti_launch_split_list(ssh && *ssh ? ssh : "ssh", &sshcmd);
    char **sshv = calloc((size_t)(nssh + nopts + 8), sizeof(char *));
    if (!sshv) abort();
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
    return sshv;
}

/* In the child of rank r: becomes the rank (L) or its ssh or shell (reading the key on
 * stdin from keyfd); never returns. */
static void exec_rank(gasneti_launch_t *L, char spawn, int r, int keyfd, char **sshv, const char *cmd) {
    char buf[64];
    signal(SIGINT, SIG_DFL), signal(SIGTERM, SIG_DFL), signal(SIGHUP, SIG_DFL), signal(SIGPIPE, SIG_DFL);
    if (spawn == 'L') {
        snprintf(buf, sizeof(buf), "%d", r);
        setenv(gasneti_launch_envname(L, "RANK"), buf, 1);
        setenv(gasneti_launch_envname(L, "MASTER"), L->master, 1);
        snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)L->key);
        setenv(gasneti_launch_envname(L, "KEY"), buf, 1);
        execv(L->argv[0], L->argv);
        fprintf(stderr, "%s: cannot run %s: %s\n", L->me, L->argv[0], strerror(errno));
        _exit(127);
    }
    dup2(keyfd, 0);
    close(keyfd);
    if (spawn == 'S') {
        execvp(sshv[0], sshv);
        fprintf(stderr, "%s: cannot run %s: %s\n", L->me, sshv[0], strerror(errno));
    } else {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        fprintf(stderr, "%s: cannot run /bin/sh: %s\n", L->me, strerror(errno));
    }
    _exit(127);
}

/* A child running rank r (L: the program itself; C: cmd by /bin/sh) or, for S, ssh to
 * host running cmd; the key on its stdin but for L. Its pid, or -1 (message printed). */
pid_t gasneti_launch_spawn_child(gasneti_launch_t *L, char spawn, const char *host, const char *cmd, int r) {
    int keypipe[2] = {-1, -1};
    if (spawn != 'L' && pipe(keypipe)) {
        gasneti_launch_say(L, "pipe: %s", strerror(errno));
        return -1;
    }
    char **sshv = spawn == 'S' ? ssh_argv(host, (char *)cmd) : NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        gasneti_launch_say(L, "fork of rank %d failed: %s", r, strerror(errno));
        if (keypipe[0] >= 0) close(keypipe[0]), close(keypipe[1]);
        free(sshv);
        return -1;
    }
    if (pid == 0) {
        if (keypipe[1] >= 0) close(keypipe[1]);
        exec_rank(L, spawn, r, keypipe[0], sshv, cmd);
    }
    if (spawn != 'L') {
        char line[32];
        int n = snprintf(line, sizeof(line), "%016llx\n", (unsigned long long)L->key);
        close(keypipe[0]);
        struct iovec kv = {line, (size_t)n};
        (void)gasneti_fd_writev_all(keypipe[1], &kv, 1, 0); /* fails if the child is gone already: the reaper says so */
        close(keypipe[1]);
    }
    free(sshv);
    return pid;
}

/* Start rank r (of this node's table). Returns 0 or -1 (message printed). */
static int spawn_rank(gasneti_launch_t *L, int r) {
    char spawn = L->spawn;
    const char *host = L->nservers ? L->servers[r % L->nservers] : "localhost";
    snprintf(L->ranks[r].host, sizeof(L->ranks[r].host), "%s", spawn == 'L' ? "localhost" : host);
    if (L->tree) snprintf(L->ranks[r].host, sizeof(L->ranks[r].host), "%s", L->servers[L->node - 1]);
    char *cmd = NULL;
    if (spawn == 'S') {
        cmd = gasneti_launch_rank_command(L, "RANK", r);
    } else if (spawn == 'C') {
        cmd = cspawn_command(L, getenv("GASNET_CSPAWN_CMD"), r, host);
        if (L->verbose) gasneti_launch_say(L, "rank %d: /bin/sh -c %s", r, cmd);
    }
    pid_t pid = gasneti_launch_spawn_child(L, spawn, host, cmd, gasneti_launch_rank_no(L, r));
    free(cmd);
    if (pid < 0) return -1;
    L->ranks[r].pid = pid;
    return 0;
}

/* "L", "S", "C" (either case) or the spawner's name: its letter, 0 if unknown */
static char spawn_letter(const char *s) {
    static const char *const names[][2] = {{"L", "local"}, {"S", "ssh"}, {"C", "custom"}};
    for (int i = 0; i < 3; i++)
        if (!strcasecmp(s, names[i][0]) || !strcasecmp(s, names[i][1])) return names[i][0][0];
    return 0;
}

/* The spawner asked for and what it needs from the environment: its letter (L, S, C), or
 * 0 after saying why it cannot be used. Fills the host list (GASNET_SSH_SERVERS). */
char gasneti_launch_spawner(gasneti_launch_t *L, const char *spawnfn) {
    char spawn = spawn_letter(spawnfn);
    if (!spawn) {
        gasneti_launch_say(L, "spawn function '%s' unknown: use local or L (this host), ssh or S (GASNET_SSH_SERVERS), "
                              "custom or C (GASNET_CSPAWN_CMD)", spawnfn);
        return 0;
    }
    if (L->nranks < 1) {
        gasneti_launch_say(L, "the number of processes must be at least 1 (got %d)", L->nranks);
        return 0;
    }
    L->nservers = gasneti_launch_split_list(getenv("GASNET_SSH_SERVERS"), &L->servers);
    if (spawn == 'S' && !L->nservers) {
        gasneti_launch_say(L, "the ssh spawner (S) needs the hosts in GASNET_SSH_SERVERS");
        return 0;
    }
    if (spawn == 'C' && !(getenv("GASNET_CSPAWN_CMD") && *getenv("GASNET_CSPAWN_CMD"))) {
        gasneti_launch_say(L, "the custom spawner (C) needs the command in GASNET_CSPAWN_CMD");
        return 0;
    }
    L->spawn = spawn;
    return spawn;
}

/* The ranks and the serve loop's tables; then every rank started (a failed start aborts
 * the job, whose serving then ends the ranks already started). 0, or -1 if out of memory. */
int gasneti_launch_start_ranks(gasneti_launch_t *L) {
    int n = L->nranks, nk = L->tree ? gasneti_tree_nchildren(&L->shape, L->node) : 0;
    L->ranks = calloc((size_t)n + 1, sizeof(*L->ranks));
    L->kids = calloc((size_t)nk + 1, sizeof(*L->kids));
    L->pend = calloc((size_t)(n + nk) + 16, sizeof(*L->pend));
    L->pfd = calloc((size_t)(2 * (n + nk) + 18), sizeof(*L->pfd));
    if (!L->ranks || !L->kids || !L->pend || !L->pfd) {
        gasneti_launch_say(L, "out of memory");
        return -1;
    }
    for (int r = 0; r < n; r++) L->ranks[r].fd = L->ranks[r].pid = -1;
    L->nkids = nk;
    if (nk && gasneti_launch_start_kids(L)) gasneti_launch_abort(L, 1, NULL);
    for (int r = 0; r < n && L->job_code < 0; r++)
        if (spawn_rank(L, r)) gasneti_launch_abort(L, 1, NULL);
    return 0;
}
