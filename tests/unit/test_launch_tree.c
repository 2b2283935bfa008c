/* test_launch_tree.c: the scalable job start's tree and bootstrap collectives
 * (other/gasneti_launch_tree.c) driven over an in-process transport, at sizes this
 * machine cannot run for real (default 10,000 virtual ranks on 200 virtual hosts, and
 * smaller and odd shapes). Each collective (barrier, exchange, exchange_v with empty
 * contributions, broadcast) is checked on every rank; the rounds (message hops on the
 * critical path) and the most messages, bytes and connections any one node handles are
 * reported and checked against the design's bounds (gasneti_launch_tree.h). Also checks
 * the start itself: no node starts more than out-degree sshs or holds more than
 * out-degree + 1 + its ranks' connections. Usage: test_launch_tree [NRANKS NHOSTS DEGREE].
 * Layer: tests (unit); plain libc. */
#include "gasneti_launch_tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR 8 /* bytes a real transport adds per message (ctrl_hdr_t) */

static int failures;
#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (!(cond)) {                                                                    \
            failures++;                                                                   \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                          \
            fprintf(stderr, __VA_ARGS__);                                                 \
            fputc('\n', stderr);                                                          \
        }                                                                                 \
    } while (0)

/* ---- the in-process transport: endpoints 0..H are the tree's nodes, H+1+r rank r ---- */
typedef struct {
    long msgs, bytes;  /* handled: in + out */
    int *peers, npeers, cappeers; /* distinct endpoints talked to: its connections */
} stat_t;

typedef struct msg_s {
    int from, to, type;
    size_t len;
    uint8_t *data;
} msg_t;

typedef struct {
    gasneti_tree_shape_t shape;
    int nep;
    stat_t *st;
    gasneti_tree_coll_t *coll; /* per tree node */
    msg_t *next; int nnext, capnext;   /* sent this round, delivered the next */
    int round;
    /* the collective under test */
    const uint8_t *expect; size_t expect_len;
    int *got_round; /* per rank: the round its result came, 0 if none yet */
    int wrong;
} sim_t;

static sim_t S;

static void note_peer(stat_t *s, int peer) {
    for (int i = 0; i < s->npeers; i++)
        if (s->peers[i] == peer) return;
    if (s->npeers == s->cappeers) {
        s->cappeers = s->cappeers ? 2 * s->cappeers : 8;
        s->peers = realloc(s->peers, sizeof(int) * (size_t)s->cappeers);
        if (!s->peers) abort();
    }
    s->peers[s->npeers++] = peer;
}

static void count(int from, int to, size_t len) {
    S.st[from].msgs++, S.st[to].msgs++;
    S.st[from].bytes += (long)(len + HDR), S.st[to].bytes += (long)(len + HDR);
    note_peer(&S.st[from], to), note_peer(&S.st[to], from);
}

static void post(int from, int to, int type, const void *data, size_t len) {
    count(from, to, len);
    if (S.nnext == S.capnext) {
        S.capnext = S.capnext ? 2 * S.capnext : 1024;
        S.next = realloc(S.next, sizeof(msg_t) * (size_t)S.capnext);
        if (!S.next) abort();
    }
    msg_t *m = &S.next[S.nnext++];
    *m = (msg_t){from, to, type, len, malloc(len ? len : 1)};
    if (!m->data) abort();
    if (len) memcpy(m->data, data, len);
}

static void tree_send(void *ctx, int to_node, int type, const void *data, size_t len) {
    post((int)(intptr_t)ctx, to_node, type, data, len);
}

/* the last hop (agent to rank) is checked on arrival rather than queued: the result is
 * N times the size of one rank's part, for each of N ranks */
static void tree_deliver(void *ctx, int i, const void *data, size_t len) {
    int node = (int)(intptr_t)ctx, r = gasneti_tree_local_rank(&S.shape, node - 1, i);
    count(node, S.shape.nhosts + 1 + r, len);
    if (S.got_round[r]) S.wrong++; /* twice */
    S.got_round[r] = S.round + 1;
    if (len != S.expect_len || (len && memcmp(data, S.expect, len))) S.wrong++;
}

enum { RANK_CONTRIB = 10 };

/* Deliver what was sent in the last round until nothing moves; the rounds taken. */
static int run_rounds(void) {
    int rounds = 0;
    while (S.nnext) {
        msg_t *cur = S.next;
        int ncur = S.nnext;
        S.next = NULL, S.nnext = S.capnext = 0;
        S.round++, rounds++;
        for (int k = 0; k < ncur; k++) {
            msg_t *m = &cur[k];
            int rc;
            if (m->type == RANK_CONTRIB) { /* a rank's contribution reaches its agent */
                int r = m->from - S.shape.nhosts - 1;
                rc = gasneti_tree_contribute(&S.coll[m->to], r / S.shape.nhosts, m->data, m->len);
            } else {
                rc = gasneti_tree_on_msg(&S.coll[m->to], m->type, m->data, m->len);
            }
            CHECK(!rc, "node %d refused a message of type %d (%zu bytes) from %d", m->to, m->type, m->len, m->from);
            free(m->data);
        }
        free(cur);
    }
    return rounds;
}

static void reset_stats(void) {
    for (int e = 0; e < S.nep; e++) S.st[e].msgs = S.st[e].bytes = 0;
}

typedef struct {
    long msgs, bytes;
    int conns;
} most_t;

/* the most any endpoint of [lo, hi) handled */
static most_t most(int lo, int hi) {
    most_t m = {0, 0, 0};
    for (int e = lo; e < hi; e++) {
        if (S.st[e].msgs > m.msgs) m.msgs = S.st[e].msgs;
        if (S.st[e].bytes > m.bytes) m.bytes = S.st[e].bytes;
        if (S.st[e].npeers > m.conns) m.conns = S.st[e].npeers;
    }
    return m;
}

/* One collective: rank r gives contrib(r) (len(r) bytes); every rank must get them all in
 * rank order. Returns the rounds; prints and checks the figures. */
typedef size_t (*len_fn_t)(int r, int n);
static int collective(const char *name, len_fn_t lenf) {
    const gasneti_tree_shape_t *s = &S.shape;
    int n = s->nranks, H = s->nhosts;
    size_t total = 0;
    for (int r = 0; r < n; r++) total += lenf(r, n);
    uint8_t *expect = malloc(total ? total : 1), *p = expect;
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < lenf(r, n); i++) *p++ = (uint8_t)(r * 131 + i * 7 + 1);
    S.expect = expect, S.expect_len = total, S.wrong = 0;
    memset(S.got_round, 0, sizeof(int) * (size_t)n);
    reset_stats();
    size_t off = 0;
    for (int r = 0; r < n; r++) { /* round 0: every rank sends its part to its agent */
        size_t l = lenf(r, n);
        post(H + 1 + r, 1 + gasneti_tree_host_of(s, r), RANK_CONTRIB, expect + off, l);
        off += l;
    }
    int rounds = run_rounds() + 1; /* + the delivery hop, checked on arrival */
    int missing = 0;
    for (int r = 0; r < n; r++) missing += !S.got_round[r];
    CHECK(!missing, "%s: %d of %d ranks got no result", name, missing, n);
    CHECK(!S.wrong, "%s: %d results wrong or duplicated", name, S.wrong);
    most_t root = most(0, 1), agents = most(1, H + 1), ranks = most(H + 1, S.nep);
    printf("  %-10s %7zu B result  rounds %2d | launcher: %5ld msgs %10ld B %4d conns | agent max: %5ld msgs %10ld B "
           "%4d conns | rank max: %ld msgs %ld B\n",
           name, total, rounds, root.msgs, root.bytes, root.conns, agents.msgs, agents.bytes, agents.conns, ranks.msgs,
           ranks.bytes);
    int depth = gasneti_tree_depth(s), maxlocal = gasneti_tree_nlocal(s, 0);
    CHECK(rounds == 2 * depth + 2, "%s: %d rounds, the design says 2 * depth + 2 = %d", name, rounds, 2 * depth + 2);
    /* messages: one per child and local rank each way, one up, one down */
    CHECK(root.msgs <= 2L * s->degree, "%s: the launcher handled %ld messages (out-degree %d)", name, root.msgs,
          s->degree);
    CHECK(agents.msgs <= 2L * (s->degree + 1 + maxlocal), "%s: an agent handled %ld messages", name, agents.msgs);
    /* bytes: the result goes to each child and local rank; the records gathered to the
     * root pass through (in and out) the agents above them */
    long fan = s->degree + 1 + maxlocal;
    long records = (long)total + 8L * n; /* every record, at the root */
    CHECK(root.bytes <= records + (long)s->degree * ((long)total + HDR) + 2L * s->degree * HDR,
          "%s: the launcher moved %ld bytes", name, root.bytes);
    CHECK(agents.bytes <= 2 * records + fan * ((long)total + 2 * HDR), "%s: an agent moved %ld bytes", name, agents.bytes);
    free(expect);
    return rounds;
}

static size_t len_barrier(int r, int n) { (void)r, (void)n; return 0; }
static size_t len_exchange(int r, int n) { (void)r, (void)n; return 8; }
static size_t len_exchange_v(int r, int n) { (void)n; return (size_t)(r % 7) * 3; } /* some empty */
static size_t len_bcast(int r, int n) { return r == n / 3 ? 1000 : 0; }          /* from rank n/3 */

static void run_shape(int nranks, int nhosts, int degree) {
    memset(&S, 0, sizeof(S));
    CHECK(!gasneti_tree_shape(&S.shape, nranks, nhosts, degree), "shape %d %d %d refused", nranks, nhosts, degree);
    const gasneti_tree_shape_t *s = &S.shape;
    int H = s->nhosts, depth = gasneti_tree_depth(s);
    printf("%d ranks on %d hosts, out-degree %d: tree depth %d\n", nranks, H, s->degree, depth);
    /* the tree: every host reached once, from its parent; depth logarithmic */
    int *seen = calloc((size_t)H + 1, sizeof(int)), most_ssh = 0, most_conns = 0;
    for (int node = 0; node <= H; node++) {
        int nch = gasneti_tree_nchildren(s, node);
        if (nch > most_ssh) most_ssh = nch;
        for (int i = 0; i < nch; i++) {
            int c = gasneti_tree_child(s, node, i);
            CHECK(c >= 1 && c <= H && gasneti_tree_parent(s, c) == node, "node %d: child %d is not its", node, c);
            if (c >= 1 && c <= H) seen[c]++;
        }
        int conns = (node != 0) + nch + gasneti_tree_nlocal_of_node(s, node);
        if (conns > most_conns) most_conns = conns;
    }
    for (int h = 1; h <= H; h++) CHECK(seen[h] == 1, "host %d reached %d times", h - 1, seen[h]);
    free(seen);
    int local_sum = 0, maxlocal = gasneti_tree_nlocal(s, 0);
    for (int h = 0; h < H; h++) local_sum += gasneti_tree_nlocal(s, h);
    CHECK(local_sum == nranks, "hosts hold %d ranks, not %d", local_sum, nranks);
    int bound = 1; /* the depth a complete tree of this degree needs */
    for (long reach = s->degree; reach < H; reach = reach * s->degree + s->degree) bound++;
    CHECK(depth == bound, "depth %d, a complete tree needs %d", depth, bound);
    CHECK(most_ssh <= s->degree, "a node starts %d sshs (out-degree %d)", most_ssh, s->degree);
    CHECK(most_conns <= s->degree + 1 + maxlocal, "a node holds %d connections", most_conns);
    printf("  start: %d ssh hops + 1 fork; a node starts at most %d sshs and holds at most %d connections "
           "(out-degree %d + parent + %d local ranks)\n", depth, most_ssh, most_conns, s->degree, maxlocal);

    S.nep = H + 1 + nranks;
    S.st = calloc((size_t)S.nep, sizeof(stat_t));
    S.coll = calloc((size_t)H + 1, sizeof(gasneti_tree_coll_t));
    S.got_round = calloc((size_t)nranks, sizeof(int));
    for (int node = 0; node <= H; node++)
        gasneti_tree_coll_init(&S.coll[node], s, node, (gasneti_tree_io_t){(void *)(intptr_t)node, tree_send, tree_deliver});
    collective("barrier", len_barrier);
    collective("exchange", len_exchange);
    collective("exchange_v", len_exchange_v);
    collective("broadcast", len_bcast);
    collective("barrier", len_barrier); /* the engine is ready again after each */
    int conns = most(0, H + 1).conns;
    CHECK(conns <= s->degree + 1 + maxlocal, "a node talked to %d peers over the collectives", conns);
    CHECK(most(0, 1).conns <= s->degree, "the launcher talked to %d peers", most(0, 1).conns);
    /* a malformed UP (a rank out of range) is refused, not trusted */
    uint32_t bad[2] = {(uint32_t)nranks, 0};
    CHECK(gasneti_tree_on_msg(&S.coll[0], GASNETI_TREE_UP, bad, sizeof(bad)) < 0, "a record of rank %d taken", nranks);
    CHECK(gasneti_tree_on_msg(&S.coll[0], GASNETI_TREE_DOWN, NULL, 0) < 0, "a DOWN to the root taken");
    for (int node = 0; node <= H; node++) gasneti_tree_coll_fini(&S.coll[node]);
    for (int e = 0; e < S.nep; e++) free(S.st[e].peers);
    free(S.st), free(S.coll), free(S.got_round), free(S.next);
}

int main(int argc, char **argv) {
    if (argc == 4) {
        run_shape(atoi(argv[1]), atoi(argv[2]), atoi(argv[3]));
    } else {
        run_shape(10000, 200, 0); /* the default out-degree */
        run_shape(10000, 200, 8);
        run_shape(10000, 200, 2);
        run_shape(64, 16, 4);
        run_shape(32, 8, 2);
        run_shape(7, 3, 1); /* a chain */
        run_shape(3, 10, 0);  /* more hosts than ranks */
        run_shape(1, 1, 0);
        gasneti_tree_shape_t s;
        CHECK(gasneti_tree_shape(&s, 0, 1, 0) < 0 && gasneti_tree_shape(&s, 4, 0, 0) < 0, "bad shapes taken");
    }
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
