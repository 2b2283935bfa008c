/* gasneti_launch_ctrl.c: the launcher's side of the control protocol (gasneti_spawn.h):
 * the job's key and id, the control port, new connections and their HELLO, and reading a
 * rank's messages (each handed to its service: gasneti_launch_coll.c, gasneti_launch_job.c).
 * Layer: other (launchers). */
#include "gasneti_launch.h"
#include "gasneti_fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

extern char **environ;

/* The job's random key (ranks prove they belong with it) and its id (derived from the
 * launcher's pid and the key: unique, usable in shared-memory names). 0 or -1. */
int gasneti_launch_make_key(gasneti_launch_t *L) {
    if (getrandom(&L->key, sizeof(L->key), 0) != sizeof(L->key)) {
        gasneti_launch_say(L, "getrandom: %s", strerror(errno));
        return -1;
    }
    uint32_t rnd;
    memcpy(&rnd, (uint8_t *)&L->key + 4, 4);
    snprintf(L->jobid, sizeof(L->jobid), "%ld-%08x", (long)getpid(), rnd ^ 0x5bd1e995u);
    return 0;
}

/* The control port the ranks connect back to: on loopback for L, on every interface
 * otherwise; L->master gets the host:port the ranks are told (GASNET_MASTERIP, else this
 * host's name). 0, or -1 after saying why. */
int gasneti_launch_open_port(gasneti_launch_t *L) {
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(L->spawn == 'L' ? INADDR_LOOPBACK : INADDR_ANY);
    socklen_t al = sizeof(a);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 128) ||
        getsockname(lfd, (struct sockaddr *)&a, &al)) {
        gasneti_launch_say(L, "cannot open a control port: %s", strerror(errno));
        if (lfd >= 0) close(lfd);
        return -1;
    }
    fcntl(lfd, F_SETFD, FD_CLOEXEC);
    L->lfd = lfd;
    char hostname[256] = "localhost";
    const char *mip = getenv("GASNET_MASTERIP");
    if (L->spawn == 'L') {
        snprintf(L->master, sizeof(L->master), "127.0.0.1:%d", (int)ntohs(a.sin_port));
        return 0;
    }
    if (mip && *mip)
        snprintf(hostname, sizeof(hostname), "%s", mip);
    else
        gethostname(hostname, sizeof(hostname) - 1);
    snprintf(L->master, sizeof(L->master), "%s:%d", hostname, (int)ntohs(a.sin_port));
    return 0;
}

void gasneti_launch_send_fd(int *fd, uint32_t type, const void *data, uint32_t len) {
    if (*fd < 0) return;
    ctrl_hdr_t h = {type, len};
    struct iovec iov[2] = {{&h, sizeof(h)}, {(void *)data, len}};
    if (gasneti_fd_writev_all(*fd, iov, 2, 0)) {
        close(*fd);
        *fd = -1; /* its loss is noticed by the reaper or the abort in progress */
    }
}

void gasneti_launch_send(gasneti_launch_t *L, int r, uint32_t type, const void *data, uint32_t len) {
    gasneti_launch_send_fd(&L->ranks[r].fd, type, data, len);
}

int gasneti_launch_read_msg(int fd, ctrl_hdr_t *h, uint8_t **data) {
    *data = NULL;
    if (gasneti_fd_read_all(fd, h, sizeof(*h))) return -1; /* peers send whole messages */
    if (!h->len) return 0;
    if (h->len > (1u << 30) || !(*data = malloc(h->len))) return -1;
    if (gasneti_fd_read_all(fd, *data, h->len)) {
        free(*data);
        *data = NULL;
        return -1;
    }
    return 0;
}

void gasneti_launch_env_blob(uint8_t **blob, uint32_t *len) {
    size_t n = 0;
    for (char **e = environ; *e; e++) n += strlen(*e) + 1;
    *blob = malloc(n ? n : 1);
    if (!*blob) abort();
    n = 0;
    for (char **e = environ; *e; e++) {
        size_t l = strlen(*e) + 1;
        memcpy(*blob + n, *e, l);
        n += l;
    }
    *len = (uint32_t)n;
}

static void accept_hello(gasneti_launch_t *L, gasneti_launch_pending_t *p) {
    ctrl_hdr_t *h = (ctrl_hdr_t *)p->buf;
    ctrl_hello_t *hello = (ctrl_hello_t *)(p->buf + sizeof(*h));
    int r = (int)hello->rank;
    if (h->type == CTRL_AGENT_HELLO && h->len == sizeof(*hello) && hello->key == L->key &&
        !gasneti_launch_accept_kid(L, p->fd, r))
        return;
    if (L->tree && L->node && r >= 0) { /* an agent's ranks: h, h + hosts, ... */
        r = r % L->shape.nhosts == L->node - 1 ? r / L->shape.nhosts : -1;
    }
    if (h->type != CTRL_HELLO || h->len != sizeof(*hello) || hello->key != L->key || r < 0 || r >= L->nranks ||
        L->ranks[r].fd >= 0 || L->ranks[r].exiting) {
        L->refused++;
        if (L->verbose)
            gasneti_launch_say(L, "refused a control connection: wrong key or rank (%lu refused so far)", L->refused);
        close(p->fd);
        return;
    }
    L->ranks[r].fd = p->fd;
    L->ranks[r].joined = 1;
    L->nconnected++;
    uint8_t init[4 + sizeof(L->jobid)];
    uint32_t n = (uint32_t)L->jobsize;
    memcpy(init, &n, 4);
    memcpy(init + 4, L->jobid, sizeof(L->jobid));
    gasneti_launch_send(L, r, CTRL_INIT, init, sizeof(init));
    uint8_t *env = NULL;
    uint32_t envlen = 0;
    if (L->spawn != 'L') gasneti_launch_env_blob(&env, &envlen);
    gasneti_launch_send(L, r, CTRL_ENV, env, envlen);
    free(env);
    if (L->job_code >= 0) { /* already ending */
        int32_t c = L->job_code;
        gasneti_launch_send(L, r, CTRL_ABORT, &c, sizeof(c));
    }
}

/* A new connection on the control port joins the pending ones (at most nranks + 16). */
void gasneti_launch_accept(gasneti_launch_t *L, double t) {
    int fd = accept(L->lfd, NULL, NULL);
    if (fd < 0) return;
    fcntl(fd, F_SETFD, FD_CLOEXEC);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (L->npend < L->nranks + L->nkids + 16) {
        L->pend[L->npend++] = (gasneti_launch_pending_t){fd, 0, {0}, t};
    } else {
        L->refused++;
        close(fd);
    }
}

/* Connections that have not said who they are (pfd[1 + i] for pend[i]): read their HELLO
 * as it comes; a complete one is accepted or refused (accept_hello), one that closes or
 * says nothing for 10 s is refused. From the last, so that removing one by moving the
 * last into its place leaves the ones still to look at alone. */
void gasneti_launch_serve_pending(gasneti_launch_t *L, int npolled, double t) {
    for (int i = npolled - 1; i >= 0; i--) {
        gasneti_launch_pending_t *p = &L->pend[i];
        short ev = L->pfd[1 + i].revents;
        if (ev & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t got = read(p->fd, p->buf + p->got, sizeof(p->buf) - p->got);
            if (got <= 0) {
                L->refused++;
                if (L->verbose)
                    gasneti_launch_say(L, "a control connection closed before saying who it is (%lu refused)",
                                       L->refused);
                close(p->fd);
            } else if ((p->got += (size_t)got) == sizeof(p->buf)) {
                accept_hello(L, p);
            } else {
                continue;
            }
        } else if (t - p->since > 10.0) { /* says nothing: not one of ours */
            L->refused++;
            close(p->fd);
        } else {
            continue;
        }
        *p = L->pend[--L->npend];
    }
}

/* One message of rank r, handed to its service. */
void gasneti_launch_serve_rank(gasneti_launch_t *L, int r) {
    ctrl_hdr_t h;
    uint8_t *data;
    if (gasneti_launch_read_msg(L->ranks[r].fd, &h, &data)) {
        gasneti_launch_connection_lost(L, r);
        return;
    }
    int32_t code = h.len >= 4 && data ? *(int32_t *)data : 1;
    switch (h.type) {
        case CTRL_EXCH:
            gasneti_launch_on_exch(L, r, data, h.len);
            return; /* data taken */
        case CTRL_EXITING: gasneti_launch_on_exiting(L, r, code, data, h.len); break;
        case CTRL_ABORT:
            L->ranks[r].exiting = 1; /* its leaving is expected now */
            L->ranks[r].aborted = 1; /* not told back: it leaves by itself, within the grace */
            gasneti_launch_abort(L, code, NULL);
            break;
        default: gasneti_launch_rank_lost(L, r, "protocol error (unknown message)"); break;
    }
    free(data);
}

/* A process that has exited may have left messages (its EXITING or ABORT) in its control
 * connection that the poll loop has not read yet: read them before judging its exit. */
void gasneti_launch_drain_rank(gasneti_launch_t *L, int r) {
    while (L->ranks[r].fd >= 0) {
        struct pollfd p = {L->ranks[r].fd, POLLIN, 0};
        if (poll(&p, 1, 0) <= 0) return;
        char c;
        if (recv(L->ranks[r].fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) <= 0) { /* end of stream */
            close(L->ranks[r].fd);
            L->ranks[r].fd = -1;
            return;
        }
        gasneti_launch_serve_rank(L, r);
    }
}
