/* gasneti_launch_agent.c: the ssh spawner's tree (gasneti_launch.h, gasneti_launch_tree.h):
 * a host's agent (one process per host, started by its parent's ssh with the key on
 * stdin; it starts its own children by ssh and forks its host's ranks, the key in their
 * environment), and the links between a node and its parent and children: agents' HELLO,
 * the collectives' UP and DOWN, exits and aborts passed up to the launcher and its
 * answers passed down. Layer: other (launchers). */
#include "gasneti_launch.h"
#include "gasneti_fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the collectives' messages (gasneti_tree_io_t) ---- */
static void tree_send(void *ctx, int to_node, int type, const void *data, size_t len) {
    gasneti_launch_t *L = ctx;
    if (type == GASNETI_TREE_UP) {
        gasneti_launch_send_fd(&L->parent_fd, CTRL_TREE_UP, data, (uint32_t)len);
        return;
    }
    int k = to_node - gasneti_tree_child(&L->shape, L->node, 0);
    gasneti_launch_send_fd(&L->kids[k].fd, CTRL_TREE_DOWN, data, (uint32_t)len);
}

static void tree_deliver(void *ctx, int i, const void *data, size_t len) {
    gasneti_launch_send(ctx, i, CTRL_EXCH, data, (uint32_t)len);
}

static void tree_init(gasneti_launch_t *L) {
    gasneti_tree_coll_init(&L->coll, &L->shape, L->node, (gasneti_tree_io_t){L, tree_send, tree_deliver});
}

/* ---- a node's children ---- */
int gasneti_launch_start_kids(gasneti_launch_t *L) {
    for (int k = 0; k < L->nkids; k++) {
        int node = gasneti_tree_child(&L->shape, L->node, k);
        gasneti_launch_rank_t *kid = &L->kids[k];
        kid->fd = kid->pid = -1;
        snprintf(kid->host, sizeof(kid->host), "%s", L->servers[node - 1]);
        char *cmd = gasneti_launch_rank_command(L, "AGENT", node);
        if (L->verbose) gasneti_launch_say(L, "agent of host %s: %s", kid->host, cmd);
        kid->pid = gasneti_launch_spawn_child(L, 'S', kid->host, cmd, node);
        free(cmd);
        if (kid->pid < 0) return -1;
    }
    return 0;
}

int gasneti_launch_accept_kid(gasneti_launch_t *L, int fd, int node) {
    int k = L->nkids ? node - gasneti_tree_child(&L->shape, L->node, 0) : -1;
    if (k < 0 || k >= L->nkids || L->kids[k].joined) return -1;
    L->kids[k].fd = fd;
    L->kids[k].joined = 1;
    L->nkids_joined++;
    uint8_t init[12 + sizeof(L->jobid)];
    uint32_t v[3] = {(uint32_t)L->jobsize, (uint32_t)L->shape.nhosts, (uint32_t)L->shape.degree};
    memcpy(init, v, 12);
    memcpy(init + 12, L->jobid, sizeof(L->jobid));
    gasneti_launch_send_fd(&L->kids[k].fd, CTRL_AGENT_INIT, init, sizeof(init));
    uint8_t *env;
    uint32_t envlen;
    gasneti_launch_env_blob(&env, &envlen);
    gasneti_launch_send_fd(&L->kids[k].fd, CTRL_ENV, env, envlen);
    free(env);
    if (L->job_code >= 0) {
        int32_t c = L->job_code;
        gasneti_launch_send_fd(&L->kids[k].fd, CTRL_ABORT, &c, sizeof(c));
    }
    return 0;
}

static void kid_lost(gasneti_launch_t *L, int k, const char *what) {
    gasneti_launch_rank_t *kid = &L->kids[k];
    if (kid->fd >= 0) close(kid->fd);
    kid->fd = -1;
    if (kid->exiting || L->kill_at) return;
    char why[200];
    snprintf(why, sizeof(why), "the agent of host %s: %s", kid->host, what);
    gasneti_launch_abort(L, 1, why);
}

void gasneti_launch_serve_kid(gasneti_launch_t *L, int k) {
    ctrl_hdr_t h;
    uint8_t *data;
    if (gasneti_launch_read_msg(L->kids[k].fd, &h, &data)) {
        kid_lost(L, k, "control connection lost");
        return;
    }
    int32_t code = h.len >= 4 ? *(int32_t *)data : 1;
    uint32_t started = h.len >= 8 ? ((uint32_t *)data)[1] : 0;
    switch (h.type) {
        case CTRL_TREE_UP:
            if (gasneti_tree_on_msg(&L->coll, GASNETI_TREE_UP, data, h.len)) kid_lost(L, k, "protocol error (UP)");
            break;
        case CTRL_EXITING:
            if (L->node) gasneti_launch_send_fd(&L->parent_fd, CTRL_EXITING, data, h.len);
            else gasneti_launch_job_exiting(L, code, started);
            break;
        case CTRL_ABORT: gasneti_launch_abort(L, code, NULL); break;
        case CTRL_DONE:
            L->kids[k].exiting = 1;
            if (code && !L->first_nonzero) L->first_nonzero = code;
            break;
        default: kid_lost(L, k, "protocol error (unknown message)");
    }
    free(data);
}

void gasneti_launch_kid_ended(gasneti_launch_t *L, int k, int st) {
    gasneti_launch_rank_t *kid = &L->kids[k];
    kid->pid = -1;
    while (kid->fd >= 0) { /* its last words (DONE) first */
        struct pollfd p = {kid->fd, POLLIN, 0};
        if (poll(&p, 1, 0) <= 0) break;
        gasneti_launch_serve_kid(L, k);
    }
    if (kid->exiting || L->kill_at) return;
    char why[200];
    if (WIFSIGNALED(st))
        snprintf(why, sizeof(why), "the agent of host %s was killed by signal %d", kid->host, WTERMSIG(st));
    else
        snprintf(why, sizeof(why), "the agent of host %s (its ssh) exited with status %d %s", kid->host,
                 WEXITSTATUS(st), kid->joined ? "before its ranks ended" : "before joining the job");
    gasneti_launch_abort(L, WIFEXITED(st) && WEXITSTATUS(st) ? WEXITSTATUS(st) : 1, why);
}

/* ---- an agent's parent ---- */
void gasneti_launch_serve_parent(gasneti_launch_t *L) {
    ctrl_hdr_t h;
    uint8_t *data;
    if (gasneti_launch_read_msg(L->parent_fd, &h, &data)) {
        close(L->parent_fd);
        L->parent_fd = -1;
        char why[160];
        snprintf(why, sizeof(why), "the agent of host %s lost the connection to its parent (%s)",
                 L->servers[L->node - 1], gasneti_tree_parent(&L->shape, L->node) ? "an agent" : "the launcher");
        if (!L->kill_at) gasneti_launch_abort(L, 1, why);
        return;
    }
    int32_t code = h.len >= 4 ? *(int32_t *)data : 1;
    switch (h.type) {
        case CTRL_TREE_DOWN:
            if (gasneti_tree_on_msg(&L->coll, GASNETI_TREE_DOWN, data, h.len))
                gasneti_launch_abort(L, 1, "protocol error (DOWN) from the launcher");
            break;
        case CTRL_PEER_EXITING: gasneti_launch_tell_all(L, CTRL_PEER_EXITING, data, h.len, 0); break;
        case CTRL_ALL_EXITING: gasneti_launch_tell_all(L, CTRL_ALL_EXITING, NULL, 0, 1); break;
        case CTRL_DUMP: gasneti_launch_tell_all(L, CTRL_DUMP, NULL, 0, 0); break;
        case CTRL_ABORT: gasneti_launch_abort(L, code, NULL); break;
        default: gasneti_launch_abort(L, 1, "protocol error (unknown message) from the launcher");
    }
    free(data);
}

/* The launcher's environment, taken by an agent (and so by the ranks it forks): every
 * variable but GASNET_<C>_* (ours to set) and those describing the host or shell. */
void gasneti_launch_apply_env(const char *envpfx, const uint8_t *blob, uint32_t len) {
    static const char *const keep[] = {"HOSTNAME", "PWD", "OLDPWD", "SHLVL", "_", "SSH_CLIENT", "SSH_CONNECTION",
                                       "SSH_TTY", "SSH_AUTH_SOCK"};
    for (uint32_t off = 0; off < len;) {
        const char *e = (const char *)blob + off, *eq;
        size_t l = strnlen(e, len - off), nl;
        off += (uint32_t)l + 1;
        char name[256];
        if (!(eq = memchr(e, '=', l)) || eq == e || (nl = (size_t)(eq - e)) >= sizeof(name)) continue;
        memcpy(name, e, nl);
        name[nl] = 0;
        int skip = !strncmp(name, envpfx, strlen(envpfx));
        for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++) skip |= !strcmp(name, keep[i]);
        char *val = skip ? NULL : strndup(eq + 1, l - nl - 1);
        if (val) setenv(name, val, 1), free(val);
    }
}

/* connect to host:port; the socket or -1 */
static int connect_to(const char *master) {
    char host[256];
    const char *colon = strrchr(master, ':');
    if (!colon || colon == master || (size_t)(colon - master) >= sizeof(host)) return -1;
    memcpy(host, master, (size_t)(colon - master));
    host[colon - master] = 0;
    struct addrinfo hints, *ai, *a;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    if (getaddrinfo(host, colon + 1, &hints, &ai)) return -1;
    int fd = -1, one = 1;
    for (a = ai; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen)) close(fd), fd = -1;
    }
    freeaddrinfo(ai);
    if (fd >= 0) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return fd;
}

/* Join the parent: HELLO, then AGENT_INIT (job size, tree, job id) and ENV. 0 or -1. */
static int join_parent(gasneti_launch_t *L, const char *master, int *nhosts, int *degree) {
    if ((L->parent_fd = connect_to(master)) < 0) {
        gasneti_launch_say(L, "agent %d: cannot connect to its parent at %s: %s", L->node, master, strerror(errno));
        return -1;
    }
    ctrl_hello_t hello = {L->key, (uint32_t)L->node, 0};
    gasneti_launch_send_fd(&L->parent_fd, CTRL_AGENT_HELLO, &hello, sizeof(hello));
    ctrl_hdr_t h;
    uint8_t *data = NULL, *env = NULL;
    if (L->parent_fd < 0 || gasneti_launch_read_msg(L->parent_fd, &h, &data) || h.type != CTRL_AGENT_INIT ||
        h.len < 12 + sizeof(L->jobid) || gasneti_launch_read_msg(L->parent_fd, &h, &env) || h.type != CTRL_ENV) {
        gasneti_launch_say(L, "agent %d: its parent at %s refused it or went away", L->node, master);
        free(data), free(env);
        return -1;
    }
    uint32_t v[3];
    memcpy(v, data, 12);
    memcpy(L->jobid, data + 12, sizeof(L->jobid) - 1);
    L->jobsize = (int)v[0], *nhosts = (int)v[1], *degree = (int)v[2];
    gasneti_launch_apply_env(L->envpfx, env, h.len);
    free(data), free(env);
    return 0;
}

/* The agent's port, for its children and its ranks, on the interface that reaches its
 * parent (the address its ranks use to reach the rest of the job, as under the star). */
static int open_agent_port(gasneti_launch_t *L) {
    struct sockaddr_in a, me;
    socklen_t al = sizeof(a), ml = sizeof(me);
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 128) ||
        getsockname(lfd, (struct sockaddr *)&a, &al) || getsockname(L->parent_fd, (struct sockaddr *)&me, &ml)) {
        gasneti_launch_say(L, "agent %d: cannot open a control port: %s", L->node, strerror(errno));
        return -1;
    }
    L->lfd = lfd;
    snprintf(L->master, sizeof(L->master), "%s:%d", inet_ntoa(me.sin_addr), (int)ntohs(a.sin_port));
    return 0;
}

int gasneti_spawn_agent(const char *launcher, const char *conduit, int node, const char *master, uint64_t key,
                        int argc, char **argv, int verbose) {
    gasneti_launch_t job, *L = &job;
    memset(L, 0, sizeof(*L));
    L->me = launcher, L->verbose = verbose, L->argc = argc, L->argv = argv;
    L->job_code = -1, L->lfd = -1, L->parent_fd = -1;
    L->tree = 1, L->node = node, L->key = key, L->spawn = 'L';
    snprintf(L->envpfx, sizeof(L->envpfx), "GASNET_%s_", conduit);
    int nhosts, degree;
    if (join_parent(L, master, &nhosts, &degree)) return 1;
    L->nservers = gasneti_launch_split_list(getenv("GASNET_SSH_SERVERS"), &L->servers);
    if (gasneti_tree_shape(&L->shape, L->jobsize, L->nservers, degree) || L->shape.nhosts != nhosts || node < 1 ||
        node > nhosts) {
        gasneti_launch_say(L, "agent %d: the job's hosts (GASNET_SSH_SERVERS) differ from its launcher's", node);
        return 1;
    }
    L->nranks = gasneti_tree_nlocal(&L->shape, node - 1);
    tree_init(L);
    if (open_agent_port(L)) return 1;
    gasneti_launch_catch_signals();
    if (gasneti_launch_start_ranks(L)) return 1;
    const char *st = getenv(gasneti_launch_envname(L, "SPAWN_TIMEOUT"));
    gasneti_launch_serve(L, gasneti_launch_now(), st && *st ? atof(st) : 60.0);
    int status = gasneti_launch_finish(L);
    gasneti_tree_coll_fini(&L->coll);
    return status;
}

/* The launcher's side of a tree job: its place (node 0, no ranks of its own). 0, or -1
 * after saying why (a bad GASNET_SSH_OUT_DEGREE). */
int gasneti_launch_tree_root(gasneti_launch_t *L) {
    const char *d = getenv("GASNET_SSH_OUT_DEGREE");
    char *end = NULL;
    long degree = d && *d ? strtol(d, &end, 10) : 0;
    if (d && *d && (*end || degree < 1 || degree > 100000)) {
        gasneti_launch_say(L, "GASNET_SSH_OUT_DEGREE=%s: expected a number of at least 1", d);
        return -1;
    }
    L->tree = 1, L->node = 0, L->parent_fd = -1;
    gasneti_tree_shape(&L->shape, L->jobsize, L->nservers, (int)degree);
    L->nranks = 0;
    tree_init(L);
    return 0;
}
