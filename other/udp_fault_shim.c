/* udp_fault_shim.c: a preloadable library that makes datagram sockets unreliable, to
 * test udp-conduit's reliability (LD_PRELOAD=.../libgasnet_udpfault.so amudprun ...).
 * Layer: other (test tooling; never linked into the library).
 *
 * It wraps sendto() and recv() of SOCK_DGRAM sockets (stream sockets, such as the
 * launcher's control connections, pass through untouched) and, at rates given by the
 * environment, as fractions from 0 to 1:
 *   GASNET_FAULT_DROP      a datagram is not sent (the send still reports success); the
 *                          same fraction of received datagrams is thrown away too
 *   GASNET_FAULT_DUP       a datagram is sent twice
 *   GASNET_FAULT_REORDER   a datagram is held back and sent after the next one
 *   GASNET_FAULT_DELAY     a datagram is held back GASNET_FAULT_DELAY_US (default 2000)
 *                          microseconds, and sent by a later call once that has passed
 *   GASNET_FAULT_SEED      seed of the pseudo-random choices (default: from the pid)
 *   GASNET_FAULT_VERBOSE=1 print what was done so far, per process, at exit and after
 *                          1024, 2048, 4096, ... datagrams (GASNet ranks leave by _exit)
 * Held datagrams still held when the process ends are lost, like drops. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef ssize_t (*sendto_fn)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
typedef ssize_t (*recv_fn)(int, void *, size_t, int);

static sendto_fn real_sendto;
static recv_fn real_recv;
static double p_drop, p_dup, p_reorder, p_delay;
static long delay_us = 2000;
static int verbose;
static uint64_t rng;
static unsigned long n_sent, n_dropped, n_dup, n_reordered, n_delayed, n_rdropped;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define HELD_MAX 64
typedef struct {
    int fd, flags;
    struct sockaddr_storage to;
    socklen_t tolen;
    size_t len;
    uint64_t due_ns; /* 0: after the next send on fd */
    void *buf;
} held_t;
static held_t held[HELD_MAX];
static int nheld;

static double envd(const char *name) {
    const char *v = getenv(name);
    return v && *v ? atof(v) : 0.0;
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double chance(void) { /* xorshift64*, in [0, 1) */
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (double)((rng * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void report(void) {
    if (verbose)
        fprintf(stderr,
                "udp_fault_shim[%d]: %lu datagrams sent: %lu dropped, %lu duplicated, %lu reordered, %lu delayed; "
                "%lu received ones dropped\n",
                (int)getpid(), n_sent, n_dropped, n_dup, n_reordered, n_delayed, n_rdropped);
}

__attribute__((constructor)) static void shim_init(void) {
    real_sendto = (sendto_fn)dlsym(RTLD_NEXT, "sendto");
    real_recv = (recv_fn)dlsym(RTLD_NEXT, "recv");
    p_drop = envd("GASNET_FAULT_DROP");
    p_dup = envd("GASNET_FAULT_DUP");
    p_reorder = envd("GASNET_FAULT_REORDER");
    p_delay = envd("GASNET_FAULT_DELAY");
    if (getenv("GASNET_FAULT_DELAY_US")) delay_us = atol(getenv("GASNET_FAULT_DELAY_US"));
    verbose = envd("GASNET_FAULT_VERBOSE") > 0;
    const char *seed = getenv("GASNET_FAULT_SEED");
    rng = (seed && *seed ? strtoull(seed, NULL, 0) : 0x9e3779b97f4a7c15ull) ^ ((uint64_t)getpid() << 17) ^ 1;
    atexit(report);
}

static int is_dgram(int fd) {
    int type = 0;
    socklen_t l = sizeof(type);
    return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &l) == 0 && type == SOCK_DGRAM;
}

static void hold(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to, socklen_t tolen,
                 uint64_t due) {
    if (nheld == HELD_MAX || !(held[nheld].buf = malloc(len))) { /* no room: it is lost */
        n_dropped++;
        return;
    }
    held_t *h = &held[nheld++];
    memcpy(h->buf, buf, len);
    h->fd = fd, h->flags = flags, h->len = len, h->due_ns = due, h->tolen = tolen;
    memcpy(&h->to, to, tolen);
}

/* send the held datagrams that are due (after_send_on: those waiting for a send on it) */
static void release(int after_send_on) {
    uint64_t now = nheld ? now_ns() : 0;
    int keep = 0;
    for (int i = 0; i < nheld; i++) {
        held_t *h = &held[i];
        if ((h->due_ns == 0 && h->fd == after_send_on) || (h->due_ns && h->due_ns <= now)) {
            real_sendto(h->fd, h->buf, h->len, h->flags, (struct sockaddr *)&h->to, h->tolen);
            free(h->buf);
        } else {
            held[keep++] = *h;
        }
    }
    nheld = keep;
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *to, socklen_t tolen) {
    if (!to || !is_dgram(fd)) return real_sendto(fd, buf, len, flags, to, tolen);
    pthread_mutex_lock(&lock);
    n_sent++;
    if (verbose && n_sent >= 1024 && !(n_sent & (n_sent - 1))) report();
    ssize_t rc = (ssize_t)len;
    double c = chance();
    if (c < p_drop) {
        n_dropped++;
    } else if ((c -= p_drop) < p_reorder) {
        n_reordered++;
        hold(fd, buf, len, flags, to, tolen, 0);
    } else if ((c -= p_reorder) < p_delay) {
        n_delayed++;
        hold(fd, buf, len, flags, to, tolen, now_ns() + (uint64_t)delay_us * 1000u);
    } else {
        rc = real_sendto(fd, buf, len, flags, to, tolen);
        if (rc >= 0 && chance() < p_dup) {
            n_dup++;
            real_sendto(fd, buf, len, flags, to, tolen);
        }
        release(fd);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

ssize_t recv(int fd, void *buf, size_t len, int flags) {
    for (;;) {
        ssize_t rc = real_recv(fd, buf, len, flags);
        if (rc < 0 || !is_dgram(fd)) return rc;
        pthread_mutex_lock(&lock);
        int drop = chance() < p_drop;
        n_rdropped += (unsigned long)drop;
        if (nheld) release(-1);
        pthread_mutex_unlock(&lock);
        if (!drop) return rc;
    }
}
