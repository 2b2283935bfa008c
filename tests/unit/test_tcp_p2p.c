/* tests/unit/test_tcp_p2p.c: the out-of-band messages over TCP of the pmi spawner's
 * plugin (other/gasneti_tcp_p2p.c) without PMIx: NRANKS forked processes publish their
 * cards in a shared mapping (what PMIx does for the plugin), and the parent plays a
 * stranger.
 *   order: every rank sends every rank (itself too) ROUNDS messages at once, 0 bytes to
 *     64 KiB (a few MB in flight both ways: the receiver threads must keep the senders
 *     going); each arrives once, in order per sender, exact.
 *   strangers (the parent, before and after the messages): a HELLO with a wrong key, one
 *     naming a rank out of range, a few bytes then EOF, a HELLO that stops half-way and
 *     is held open during the whole run, and, after the messages, a right HELLO claiming
 *     a rank that is already connected followed by a message: each is refused (counted),
 *     none delivers anything, none holds up the real connections.
 *   a destination that has closed: sends to it are dropped without an error (or SIGPIPE).
 *   close: the receiver thread is joined and every descriptor it opened is closed.
 * Exits 0 and prints "test_tcp_p2p: PASS" when every check holds.
 * Layer: tests (unit; links the plugin's source, not a conduit library). */
#include "gasneti_tcp_p2p.h"

#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NRANKS 3
#define ROUNDS 40

typedef struct {
    gasneti_tcp_p2p_card_t card[NRANKS];
    int ready, done, phase, closed;
} shared_t;
static shared_t *sh;
static int me;

#define FAIL(...)                                                                                                      \
    do {                                                                                                               \
        fprintf(stderr, "test_tcp_p2p: rank %d: FAILED at line %d: ", me, __LINE__);                                   \
        fprintf(stderr, __VA_ARGS__);                                                                                  \
        fputc('\n', stderr);                                                                                           \
        _exit(1);                                                                                                      \
    } while (0)
#define CHECK(c, ...)                                                                                                  \
    do {                                                                                                               \
        if (!(c)) FAIL(__VA_ARGS__);                                                                                   \
    } while (0)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static int load(int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
/* wait until *p reaches v (20 s at most) */
static void await(int *p, int v, const char *what) {
    double t0 = now();
    while (load(p) < v) {
        CHECK(now() - t0 < 20, "waiting for %s: %d of %d", what, load(p), v);
        usleep(1000);
    }
}

static size_t msize(int s, int d, int k) {
    if (k == 0) return 0;
    if (k == 1) return 65536;
    return ((size_t)s * 977 + (size_t)d * 131 + (size_t)k * 4099) % 20000;
}
static uint8_t mbyte(int s, int d, int k, size_t i) { return (uint8_t)(s * 31 + d * 7 + k * 13 + (int)(i % 251)); }

/* ---- a rank ---- */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int next_k[NRANKS], got;

static void deliver(int src, const void *msg, size_t len) {
    CHECK(src >= 0 && src < NRANKS, "a message from rank %d", src);
    pthread_mutex_lock(&lock);
    int k = next_k[src]++;
    CHECK(k < ROUNDS, "more than %d messages from rank %d", ROUNDS, src);
    CHECK(len == msize(src, me, k), "message %d from rank %d: %zu bytes, expected %zu", k, src, len, msize(src, me, k));
    for (size_t i = 0; i < len; i++)
        CHECK(((const uint8_t *)msg)[i] == mbyte(src, me, k, i), "message %d from rank %d: byte %zu", k, src, i);
    __atomic_store_n(&got, got + 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

static int lookup(int r, gasneti_tcp_p2p_card_t *card) {
    *card = sh->card[r];
    return 0;
}

static void fail(const char *why) { FAIL("the receiver failed: %s", why); }

static int count_dir(const char *path) {
    DIR *d = opendir(path);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

static void await_refused(unsigned long want) {
    double t0 = now();
    while (gasneti_tcp_p2p_refused() < want) {
        CHECK(now() - t0 < 20, "%lu connections refused, expected %lu", gasneti_tcp_p2p_refused(), want);
        usleep(1000);
    }
    CHECK(gasneti_tcp_p2p_refused() == want, "%lu connections refused, expected %lu", gasneti_tcp_p2p_refused(), want);
}

static void rank_main(void) {
    int fds0 = count_dir("/proc/self/fd");
    char err[256] = "";
    gasneti_tcp_p2p_ops_t ops = {me, NRANKS, lookup, deliver, fail, err, sizeof(err)};
    gasneti_tcp_p2p_card_t card;
    CHECK(!gasneti_tcp_p2p_open(&ops, &card), "open: %s", err);
    CHECK(count_dir("/proc/self/task") == 2, "%d threads after open", count_dir("/proc/self/task"));
    sh->card[me] = card;
    __atomic_fetch_add(&sh->ready, 1, __ATOMIC_RELEASE);
    await(&sh->phase, 1, "the strangers' first connections");
    await_refused(3); /* wrong key, rank out of range, EOF before a HELLO */

    uint8_t *buf = malloc(65536);
    for (int k = 0; k < ROUNDS; k++)
        for (int d = 0; d < NRANKS; d++) {
            size_t n = msize(me, d, k);
            for (size_t i = 0; i < n; i++)
                buf[i] = mbyte(me, d, k, i);
            CHECK(!gasneti_tcp_p2p_send(d, buf, n), "send %d to rank %d: %s", k, d, err);
        }
    free(buf);
    await(&got, NRANKS * ROUNDS, "this rank's messages");
    __atomic_fetch_add(&sh->done, 1, __ATOMIC_RELEASE);
    await(&sh->phase, 2, "the strangers' last connections");
    await_refused(5); /* and: a second connection from rank me+1, the half HELLO closed */
    usleep(100000);
    CHECK(load(&got) == NRANKS * ROUNDS, "%d messages arrived, expected %d", load(&got), NRANKS * ROUNDS);

    /* rank 1 leaves first; rank 0's sends to it are dropped */
    if (me == 1) gasneti_tcp_p2p_close();
    __atomic_fetch_add(&sh->closed, 1, __ATOMIC_RELEASE);
    await(&sh->closed, NRANKS, "the others' close");
    if (me == 0)
        for (int i = 0; i < 20; i++) {
            CHECK(!gasneti_tcp_p2p_send(1, "x", 1), "a send to a rank that has closed: %s", err);
            usleep(1000);
        }
    if (me != 1) gasneti_tcp_p2p_close();
    CHECK(count_dir("/proc/self/task") == 1, "%d threads after close", count_dir("/proc/self/task"));
    CHECK(count_dir("/proc/self/fd") == fds0, "%d descriptors after close, %d before open", count_dir("/proc/self/fd"),
          fds0);
    _exit(0);
}

/* ---- the stranger ---- */
static int dial(int r) {
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = sh->card[r].port;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a)), "connect to rank %d: %s", r, strerror(errno));
    return fd;
}
static void say(int fd, const void *p, size_t n) { CHECK(write(fd, p, n) == (ssize_t)n, "write: %s", strerror(errno)); }
static void hello(int fd, uint64_t key, uint32_t rank) {
    struct {
        uint64_t key;
        uint32_t rank, pad;
    } h = {key, rank, 0};
    say(fd, &h, sizeof(h));
}

int main(void) {
    sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(sh != MAP_FAILED, "mmap");
    memset(sh, 0, sizeof(*sh));
    pid_t pid[NRANKS];
    for (int r = 0; r < NRANKS; r++) {
        pid[r] = fork();
        CHECK(pid[r] >= 0, "fork");
        if (!pid[r]) {
            me = r;
            rank_main();
        }
    }
    me = -1;
    await(&sh->ready, NRANKS, "the ranks' cards");
    int half[NRANKS];
    for (int r = 0; r < NRANKS; r++) {
        int fd = dial(r);
        hello(fd, sh->card[r].key ^ 1, 0);
        close(fd);
        fd = dial(r);
        hello(fd, sh->card[r].key, NRANKS);
        close(fd);
        fd = dial(r);
        say(fd, "junk", 4);
        close(fd);
        half[r] = dial(r);
        say(half[r], &sh->card[r].key, 5);
    }
    __atomic_store_n(&sh->phase, 1, __ATOMIC_RELEASE);
    await(&sh->done, NRANKS, "the ranks' messages");
    for (int r = 0; r < NRANKS; r++) {
        int fd = dial(r);
        hello(fd, sh->card[r].key, (uint32_t)(r + 1) % NRANKS);
        uint8_t frame[5] = {1, 0, 0, 0, 'y'}; /* may find the connection refused already */
        ssize_t w = send(fd, frame, sizeof(frame), MSG_NOSIGNAL);
        (void)w;
        close(fd);
        close(half[r]);
    }
    __atomic_store_n(&sh->phase, 2, __ATOMIC_RELEASE);
    int bad = 0;
    for (int r = 0; r < NRANKS; r++) {
        int st = 0;
        waitpid(pid[r], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st)) {
            fprintf(stderr, "test_tcp_p2p: rank %d ended with status 0x%x\n", r, st);
            bad = 1;
        }
    }
    if (bad) return 1;
    printf("test_tcp_p2p: PASS (%d ranks, %d messages per pair in order, 5 strangers refused per rank)\n", NRANKS,
           ROUNDS);
    return 0;
}
