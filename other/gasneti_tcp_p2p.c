/* gasneti_tcp_p2p.c: out-of-band messages over TCP (gasneti_tcp_p2p.h), compiled into
 * the pmi spawner's plugin. Layer: other (spawners).
 *
 * Sending: one blocking connection per destination, made on the first message; the
 * caller serializes the sends (the library's lock on the plugin). Receiving: one thread
 * polls the listening socket, the connections and a pipe that tells it to stop; each
 * connection is a small state machine (HELLO, then length, body, length, body...) fed by
 * non-blocking reads, so a stray connection that stalls holds up no one. */
#ifndef _GNU_SOURCE
#  define _GNU_SOURCE 1 /* accept4, pipe2 */
#endif
#include "gasneti_tcp_p2p.h"
#include "gasneti_fdio.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define FRAME_MAX (16u << 20) /* far above the core's message maximum: only corrupt streams */
#define HELLO_SECS 10         /* an unidentified connection is closed after this */

typedef struct {
    uint64_t key;
    uint32_t rank, pad;
} hello_t;

typedef struct {
    int fd, src;      /* src: -1 until its HELLO */
    uint32_t need;    /* bytes of the current part (HELLO, length or body) */
    uint32_t got;     /* ... read so far */
    int in_body;      /* the current part is a message's body */
    uint8_t head[16]; /* a HELLO or a length */
    uint8_t *body;
    time_t since; /* accepted at (for HELLO_SECS) */
} conn_t;

static gasneti_tcp_p2p_ops_t ops;
static uint64_t my_key;
static int lfd = -1, wake[2] = {-1, -1}, *out_fd;
static uint32_t my_ip, *local_ips; /* this host's addresses (network order) */
static int nlocal;
static pthread_t thr;
static int thr_started;
static unsigned long refused;
static uint8_t *connected; /* [size]: a sender's connection has been accepted */

static int fail_errno(const char *what) {
    snprintf(ops.err, ops.errlen, "out-of-band messages: %s: %s", what, strerror(errno));
    return -1;
}

/* this host's IPv4 addresses, and the one to publish: the host name's if it is not
 * loopback, else the first interface's that is up and not loopback, else 127.0.0.1 */
static int find_addresses(void) {
    struct ifaddrs *ifs = NULL, *i;
    if (getifaddrs(&ifs)) return fail_errno("getifaddrs");
    int n = 0;
    for (i = ifs; i; i = i->ifa_next)
        n++;
    local_ips = calloc((size_t)n + 1, sizeof(uint32_t));
    if (!local_ips) {
        freeifaddrs(ifs);
        return fail_errno("calloc");
    }
    uint32_t first = 0;
    for (i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
        uint32_t a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr;
        local_ips[nlocal++] = a;
        if (!first && (i->ifa_flags & IFF_UP) && !(i->ifa_flags & IFF_LOOPBACK)) first = a;
    }
    freeifaddrs(ifs);
    char host[256] = "";
    struct addrinfo hints, *ai = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    if (!gethostname(host, sizeof(host) - 1) && !getaddrinfo(host, NULL, &hints, &ai)) {
        for (struct addrinfo *p = ai; p && !my_ip; p = p->ai_next) {
            uint32_t a = ((struct sockaddr_in *)p->ai_addr)->sin_addr.s_addr;
            if ((ntohl(a) >> 24) != 127) my_ip = a;
        }
        freeaddrinfo(ai);
    }
    if (!my_ip) my_ip = first ? first : htonl(INADDR_LOOPBACK);
    return 0;
}

static int is_local(uint32_t ip) {
    if ((ntohl(ip) >> 24) == 127) return 1;
    for (int i = 0; i < nlocal; i++)
        if (local_ips[i] == ip) return 1;
    return 0;
}

/* ---- the receiver thread ---- */
static conn_t *conns;
static int nconns, capconns;

static void drop_conn(int i, int refuse) {
    close(conns[i].fd);
    free(conns[i].body);
    if (refuse) __atomic_fetch_add(&refused, 1, __ATOMIC_RELAXED);
    conns[i] = conns[--nconns];
}

static void failf(const char *fmt, int a, unsigned b) {
    char why[256];
    snprintf(why, sizeof(why), fmt, a, b);
    ops.fail(why);
}

/* a part of connection c is complete: act on it. 0, or -1 to close it (refused) */
static int part_done(conn_t *c) {
    c->got = 0;
    if (c->src < 0) { /* the HELLO */
        hello_t h;
        memcpy(&h, c->head, sizeof(h));
        if (h.key != my_key || h.rank >= (uint32_t)ops.size || connected[h.rank]) return -1;
        connected[h.rank] = 1;
        c->src = (int)h.rank;
        c->need = 4;
        return 0;
    }
    if (c->in_body) {
        ops.deliver(c->src, c->body, c->need);
        free(c->body);
        c->body = NULL;
        c->in_body = 0;
        c->need = 4;
        return 0;
    }
    uint32_t len;
    memcpy(&len, c->head, 4);
    if (len > FRAME_MAX) {
        failf("out-of-band messages: rank %d's connection sent a length of %u bytes", c->src, len);
        return -1;
    }
    if (!len) {
        ops.deliver(c->src, c->head, 0);
        return 0;
    }
    c->body = malloc(len);
    if (!c->body) {
        failf("out-of-band messages: no memory for rank %d's message of %u bytes", c->src, len);
        return -1;
    }
    c->in_body = 1;
    c->need = len;
    return 0;
}

/* read what connection i has; 0, or -1 if it was closed */
static int read_conn(int i) {
    conn_t *c = &conns[i];
    uint8_t *dst = (c->in_body ? c->body : c->head) + c->got;
    ssize_t n = read(c->fd, dst, c->need - c->got);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return 0;
    if (n <= 0) { /* closed or reset: a sender that has left, or a stray one */
        if (c->src >= 0) connected[c->src] = 0;
        drop_conn(i, c->src < 0);
        return -1;
    }
    c->got += (uint32_t)n;
    if (c->got == c->need && part_done(c)) {
        drop_conn(i, 1);
        return -1;
    }
    return 0;
}

static void accept_conn(void) {
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    if (nconns == capconns) {
        int cap = capconns ? 2 * capconns : 16;
        conn_t *p = realloc(conns, sizeof(*p) * (size_t)cap);
        if (!p) ops.fail("out-of-band messages: no memory for a connection");
        conns = p;
        capconns = cap;
    }
    conn_t *c = &conns[nconns++];
    memset(c, 0, sizeof(*c));
    c->fd = fd;
    c->src = -1;
    c->need = sizeof(hello_t);
    c->since = time(NULL);
}

static void *receiver(void *arg) {
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL); /* signals are for the client's threads */
    struct pollfd *pfd = NULL;
    int cap = 0;
    for (;;) {
        if (cap < nconns + 2) {
            cap = 2 * (nconns + 2);
            struct pollfd *p = realloc(pfd, sizeof(*p) * (size_t)cap);
            if (!p) ops.fail("out-of-band messages: no memory for the poll set");
            pfd = p;
        }
        pfd[0] = (struct pollfd){wake[0], POLLIN, 0};
        pfd[1] = (struct pollfd){lfd, POLLIN, 0};
        int n = nconns;
        for (int i = 0; i < n; i++)
            pfd[2 + i] = (struct pollfd){conns[i].fd, POLLIN, 0};
        if (poll(pfd, (nfds_t)n + 2, 1000) < 0 && errno != EINTR) ops.fail("out-of-band messages: poll failed");
        if (pfd[0].revents) break;
        /* backwards: drop_conn moves the last connection into the slot it frees */
        time_t now = time(NULL);
        for (int i = n - 1; i >= 0; i--) {
            if (pfd[2 + i].revents && read_conn(i)) continue;
            if (conns[i].src < 0 && now - conns[i].since > HELLO_SECS) drop_conn(i, 1);
        }
        if (pfd[1].revents) accept_conn();
    }
    free(pfd);
    return NULL;
}

/* ---- the caller's side ---- */
int gasneti_tcp_p2p_open(const gasneti_tcp_p2p_ops_t *o, gasneti_tcp_p2p_card_t *card) {
    ops = *o;
    out_fd = malloc(sizeof(int) * (size_t)ops.size);
    connected = calloc((size_t)ops.size, 1);
    if (!out_fd || !connected) return fail_errno("malloc");
    for (int r = 0; r < ops.size; r++)
        out_fd[r] = -1;
    if (getrandom(&my_key, sizeof(my_key), 0) != sizeof(my_key)) return fail_errno("getrandom");
    if (find_addresses()) return -1;
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t al = sizeof(a);
    lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 128) ||
        getsockname(lfd, (struct sockaddr *)&a, &al))
        return fail_errno("a listening socket");
    if (pipe2(wake, O_CLOEXEC)) return fail_errno("pipe");
    int rc = pthread_create(&thr, NULL, receiver, NULL);
    if (rc) {
        errno = rc;
        return fail_errno("the receiver thread");
    }
    thr_started = 1;
    memset(card, 0, sizeof(*card));
    card->key = my_key;
    card->ip = my_ip;
    card->port = a.sin_port;
    return 0;
}

/* the connection to dest, made and introduced by a HELLO: its socket, or -1 */
static int connect_to(int dest) {
    gasneti_tcp_p2p_card_t card;
    if (ops.lookup(dest, &card)) return -1;
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = is_local(card.ip) ? htonl(INADDR_LOOPBACK) : card.ip;
    a.sin_port = card.port;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    hello_t h = {card.key, (uint32_t)ops.rank, 0};
    struct iovec iov = {&h, sizeof(h)};
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) ||
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) || gasneti_fd_writev_all(fd, &iov, 1, 1)) {
        char what[96];
        snprintf(what, sizeof(what), "connecting to rank %d at %s:%d", dest, inet_ntoa(a.sin_addr),
                 (int)ntohs(card.port));
        fail_errno(what);
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}

int gasneti_tcp_p2p_send(int dest, const void *buf, size_t len) {
    if (dest == ops.rank) {
        ops.deliver(dest, buf, len);
        return 0;
    }
    int rc = 0;
    if (out_fd[dest] == -1) out_fd[dest] = connect_to(dest);
    if (out_fd[dest] == -1) {
        rc = -1;
    } else if (out_fd[dest] >= 0) {
        uint32_t n = (uint32_t)len;
        struct iovec iov[2] = {{&n, 4}, {(void *)buf, len}};
        if (gasneti_fd_writev_all(out_fd[dest], iov, 2, 1)) {
            if (errno == EPIPE || errno == ECONNRESET) { /* dest has gone: drop, as the launcher does */
                close(out_fd[dest]);
                out_fd[dest] = -2;
            } else {
                char what[64];
                snprintf(what, sizeof(what), "sending to rank %d", dest);
                rc = fail_errno(what);
            }
        }
    }
    return rc;
}

void gasneti_tcp_p2p_close(void) {
    if (thr_started) {
        ssize_t w = write(wake[1], "x", 1);
        (void)w;
        pthread_join(thr, NULL);
        thr_started = 0;
    }
    while (nconns)
        drop_conn(nconns - 1, 0);
    free(conns);
    conns = NULL;
    capconns = 0;
    for (int r = 0; out_fd && r < ops.size; r++)
        if (out_fd[r] >= 0) close(out_fd[r]);
    int *fds[] = {&lfd, &wake[0], &wake[1]};
    for (int i = 0; i < 3; i++)
        if (*fds[i] >= 0) close(*fds[i]), *fds[i] = -1;
    free(out_fd);
    free(connected);
    free(local_ips);
    out_fd = NULL;
    connected = NULL;
    local_ips = NULL;
    nlocal = 0;
}

unsigned long gasneti_tcp_p2p_refused(void) { return __atomic_load_n(&refused, __ATOMIC_RELAXED); }
