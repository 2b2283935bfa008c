/* gasneti_pshm_lanes.c: the fast path of same-host Active Messages: lanes between
 * each ordered pair of processes of a neighborhood (when it has at most
 * GASNET_PSHM_LANES_MAX processes).
 * Layer: core.
 *
 * Process s has two lanes to process d, in the shared control region, written only by
 * s's requests to d: a solo lane of one 256-byte slot, and a ring of `depth` slots. A
 * request goes into the solo slot when that is free (the reply to the previous one was
 * read), else into the ring's next slot. So a request/reply ping-pong keeps reusing one
 * cache line, which moves between two cores faster than a line that has not moved for
 * a while; a burst spills into the ring. AMs are unordered, so the two lanes need not
 * be read in any common order.
 *
 * The state word of a slot holds the sequence number 4p+1 (request), 4p+2 (reply) or
 * 4p+3 (done) of lane position p, modulo 2^32, in its high half, and the message's
 * meta bytes (category, is_req, nargs, handler) in its low half; arguments, length and
 * payload are written first, and one release store of the word publishes the message
 * (a Short with no arguments is that one store). A value left from an earlier lap
 * never matches the expected number. d runs the handler on the slot in place. A reply
 * from it (Short, Long, or Medium of up to GASNETI_LANE_INLINE bytes) goes into the
 * same slot, over the request: at once when the request's payload is not in the slot
 * (Short and Long requests: the handler got its arguments by value), else when the
 * handler returns (held aside until then); without a reply the slot is marked done.
 * So a round trip moves one cache line there and back, as a flag bounced between two
 * processes does, with no shared counter, lock or atomic read-modify-write. s reads the
 * slots it sent back in order, runs the reply handlers and frees the slots. Medium
 * requests larger than GASNETI_LANE_INLINE, and replies that cannot go in the slot,
 * take the multi-producer queues of gasneti_pshm.c. Replies never need room (the slot
 * is theirs), so a request handler never waits to reply through a lane. */
#include "conduit_contract.h"
#include "gasneti_deliver.h"

#include <string.h>

typedef struct {
    uint64_t word; /* (4p+st mod 2^32) << 32 | meta: see the top of this file */
    uint32_t nbytes;
    uint32_t unused;
    uint64_t dest; /* Long: destination address (the receiver's own address space) */
    gex_AM_Arg_t args[16];
    uint8_t data[GASNETI_LANE_INLINE];
} lslot_t;
_Static_assert(sizeof(lslot_t) == 256, "lane slot must stay 256 bytes");
_Static_assert(GASNETI_MAX_ARGS == 16, "a lane slot holds 16 arguments");

enum { ST_REQ = 1, ST_REP = 2, ST_DONE = 3 };
#define SEQ(p, st) ((uint32_t)(4 * (p) + (st)))
#define WORD(seq, meta) ((uint64_t)(seq) << 32 | (meta))
#define WORD_SEQ(w) ((uint32_t)((w) >> 32))

/* The reply to a request being handled (token->lane while its handler runs). */
enum { R_NONE, R_HELD, R_SENT };
struct gasneti_lane_reply_s {
    lslot_t *slot; /* the request's slot */
    uint32_t seq;  /* the reply's sequence number */
    int hold;      /* the request's payload is in the slot: hold the reply until the handler returns */
    int state;     /* R_* */
    lslot_t held;  /* a held reply (its word: only the meta) */
};

/* One lane at one end, in this process's private memory (cache-line aligned so that
 * threads working on different lanes do not share lines). */
typedef struct {
    /* what polling looks at: the state word of slot `tail`, and the sequence number
     * that means work there (receiving end: == want; sending end: want or want+1) */
    _Alignas(64) const uint64_t *watch;
    uint32_t want;
    uint32_t mask;   /* slots - 1: 0 for the solo lane */
    lslot_t *slots;
    uint64_t head;   /* sending end: next position to claim */
    uint64_t tail;   /* sending end: oldest position not yet back; receiving end: next to read */
    gex_Rank_t peer; /* jobrank at the other end */
    int lock;        /* PAR: one thread works on this end at a time */
} lane_t;

int gasneti_lanes_on;
static lane_t *tx, *rx, *tx_end; /* [2 * nbrhd_size]: to / from neighbor i, 2i solo and 2i+1 ring */

static size_t slots_per_pair(uint64_t lane_depth) { return 1 + lane_depth; }

size_t gasneti_lanes_bytes(gex_Rank_t nbrhd_size, uint64_t lane_depth) {
    int64_t max = gasneti_getenv_int("GASNET_PSHM_LANES_MAX", 16);
    if (max < 0 || max > 256) gasneti_launch_error("GASNET_PSHM_LANES_MAX=%lld: must be between 0 and 256", (long long)max);
    if (nbrhd_size > (gex_Rank_t)max) return 0;
    return (size_t)nbrhd_size * nbrhd_size * slots_per_pair(lane_depth) * sizeof(lslot_t);
}

/* Polling (other threads too) now looks at position p of lane l for state st. Torn
 * reads of the pair only cost a wasted or a missed look: reap and drain check again. */
static inline void set_watch(lane_t *l, uint64_t p, unsigned st) {
    __atomic_store_n(&l->watch, &l->slots[p & l->mask].word, __ATOMIC_RELAXED);
    __atomic_store_n(&l->want, SEQ(p, st), __ATOMIC_RELAXED);
}

static void lane_init(lane_t *l, lslot_t *slots, uint32_t mask, gex_Rank_t peer, unsigned st) {
    l->slots = slots;
    l->mask = mask;
    l->peer = peer;
    set_watch(l, 0, st);
}

/* base: zero-filled shared memory of gasneti_lanes_bytes() bytes, the same in every
 * process of the neighborhood; the lanes s->d start at slot (s*n+d)*(1+depth): the
 * solo slot, then the ring. */
void gasneti_lanes_init(uint8_t *base, uint64_t lane_depth) {
    gex_Rank_t n = gasneti_nbrhd_size, me = gasneti_nbrhd_myidx;
    size_t per = slots_per_pair(lane_depth);
    tx = aligned_alloc(64, 2 * n * sizeof(lane_t));
    rx = aligned_alloc(64, 2 * n * sizeof(lane_t));
    if (!tx || !rx) gasneti_fatalerror("out of memory for the PSHM lanes");
    memset(tx, 0, 2 * n * sizeof(lane_t));
    memset(rx, 0, 2 * n * sizeof(lane_t));
    tx_end = tx + 2 * n;
    lslot_t *all = (lslot_t *)base;
    for (gex_Rank_t i = 0; i < n; i++) {
        lslot_t *to = all + ((size_t)me * n + i) * per, *from = all + ((size_t)i * n + me) * per;
        gex_Rank_t peer = gasneti_nbrhd_ranks[i];
        lane_init(&tx[2 * i], to, 0, peer, ST_REP);
        lane_init(&tx[2 * i + 1], to + 1, (uint32_t)lane_depth - 1, peer, ST_REP);
        lane_init(&rx[2 * i], from, 0, peer, ST_REQ);
        lane_init(&rx[2 * i + 1], from + 1, (uint32_t)lane_depth - 1, peer, ST_REQ);
    }
    gasneti_lanes_on = 1;
}

#if GASNETI_LOCKS
#  define LANE_TRYLOCK(l) (!__atomic_exchange_n(&(l)->lock, 1, __ATOMIC_ACQUIRE))
#  define LANE_UNLOCK(l) __atomic_store_n(&(l)->lock, 0, __ATOMIC_RELEASE)
#else
#  define LANE_TRYLOCK(l) 1
#  define LANE_UNLOCK(l) ((void)0)
#endif

/* Run the handler of the message in slot s, whose state word was w. */
GASNETI_ALWAYS_INLINE void deliver_slot(const lslot_t *s, uint64_t w, gex_Rank_t src, struct gasneti_lane_reply_s *r) {
    unsigned cat = GASNETI_META_CAT(w);
    void *buf = NULL;
    size_t nbytes = 0;
    if (cat != GASNETI_AM_SHORT) {
        nbytes = s->nbytes;
        buf = cat == GASNETI_AM_MEDIUM ? (void *)s->data : (void *)(uintptr_t)s->dest;
    }
    gasneti_deliver(src, cat, GASNETI_META_IS_REQ(w), GASNETI_META_NARGS(w), GASNETI_META_HANDLER(w), s->args, buf,
                    nbytes, r, GASNETI_META_DST_EP(w), GASNETI_META_SRC_EP(w));
}

/* Arguments, length and payload of m into slot d (a Long payload goes straight to the
 * destination in the target's segment); returns the meta half of the state word. Only
 * the words m uses are written: the receiver may be reading this line while it waits,
 * and every store its read slips between costs another transfer of the line. */
static inline uint32_t write_body(lslot_t *d, const gasneti_am_msg_t *m) {
    uint32_t meta = GASNETI_META_OF(m);
    for (unsigned i = 0; i < m->nargs; i++) d->args[i] = m->args[i]; /* 0..16: cheaper than a memcpy call */
    if (m->category == GASNETI_AM_MEDIUM) {
        d->nbytes = (uint32_t)m->nbytes;
        /* (a negotiated payload is written in the slot already) */
        if (m->nbytes && m->src != d->data) memcpy(d->data, m->src, m->nbytes);
    } else if (m->category == GASNETI_AM_LONG) {
        gasneti_pshm_copy_long(m);
        d->nbytes = (uint32_t)m->nbytes;
        d->dest = (uint64_t)(uintptr_t)m->dest_addr;
    }
    return meta;
}

static inline void publish(lslot_t *s, uint32_t seq, uint32_t meta) {
    __atomic_store_n(&s->word, WORD(seq, meta), __ATOMIC_RELEASE);
}

/* A held reply r into slot d, and publish it. */
static inline void send_held(lslot_t *d, const lslot_t *r, uint32_t seq) {
    uint32_t meta = (uint32_t)r->word;
    for (unsigned i = 0; i < GASNETI_META_NARGS(meta); i++) d->args[i] = r->args[i];
    if (GASNETI_META_CAT(meta) == GASNETI_AM_MEDIUM) {
        d->nbytes = r->nbytes;
        if (r->nbytes) memcpy(d->data, r->data, r->nbytes);
    } else if (GASNETI_META_CAT(meta) == GASNETI_AM_LONG) {
        d->nbytes = r->nbytes;
        d->dest = r->dest;
    }
    publish(d, seq, meta);
}

/* Slots of lane l that came back (replies and done marks), in order. */
static int reap(lane_t *l) {
    if (!LANE_TRYLOCK(l)) return 0;
    int n = 0;
    for (;;) { /* ends at the first slot not back yet, or not sent yet (earlier value) */
        uint64_t p = l->tail;
        lslot_t *s = &l->slots[p & l->mask];
        uint64_t w = __atomic_load_n(&s->word, __ATOMIC_ACQUIRE);
        uint32_t d = WORD_SEQ(w) - SEQ(p, ST_REP);
        if (d == 0) {
            deliver_slot(s, w, l->peer, NULL);
            n++;
        } else if (d != ST_DONE - ST_REP) {
            break;
        }
        __atomic_store_n(&l->tail, p + 1, __ATOMIC_RELEASE); /* the slot is free for senders */
    }
    set_watch(l, l->tail, ST_REP);
    LANE_UNLOCK(l);
    return n;
}

/* Requests waiting in lane l (from l->peer): run their handlers, and hand each slot
 * back with the reply written into it, or marked done. */
GASNETI_NOINLINE static int drain(lane_t *l) {
    if (!LANE_TRYLOCK(l)) return 0;
    int n = 0;
    struct gasneti_lane_reply_s r;
    for (; n < 64; n++) {
        uint64_t p = l->tail;
        lslot_t *s = &l->slots[p & l->mask];
        uint64_t w = __atomic_load_n(&s->word, __ATOMIC_ACQUIRE);
        if (WORD_SEQ(w) != SEQ(p, ST_REQ)) break;
        l->tail = p + 1;
        r.slot = s;
        r.seq = SEQ(p, ST_REP);
        r.hold = GASNETI_META_CAT(w) == GASNETI_AM_MEDIUM;
        r.state = R_NONE;
        deliver_slot(s, w, l->peer, &r);
        /* after R_SENT the slot is the sender's again: not touched here */
        if (r.state == R_HELD)
            send_held(s, &r.held, r.seq);
        else if (r.state == R_NONE)
            publish(s, SEQ(p, ST_DONE), 0);
    }
    set_watch(l, l->tail, ST_REQ);
    LANE_UNLOCK(l);
    return n;
}

int gasneti_lanes_poll(int replies_only) {
    int n = 0;
    for (lane_t *t = tx, *r = rx; t != tx_end; t++, r++) {
        /* the slot at `tail` holds an earlier value until we wrote its request */
        if (WORD_SEQ(__atomic_load_n(__atomic_load_n(&t->watch, __ATOMIC_RELAXED), __ATOMIC_RELAXED)) -
                __atomic_load_n(&t->want, __ATOMIC_RELAXED) <= ST_DONE - ST_REP)
            n += reap(t);
        if (!replies_only &&
            WORD_SEQ(__atomic_load_n(__atomic_load_n(&r->watch, __ATOMIC_RELAXED), __ATOMIC_RELAXED)) ==
                __atomic_load_n(&r->want, __ATOMIC_RELAXED))
            n += drain(r);
    }
    return n;
}

/* Claims the next position of lane l into *pp if it has room; returns whether it did. */
static inline int claim(lane_t *l, uint64_t *pp) {
#if GASNETI_LOCKS
    uint64_t p = __atomic_load_n(&l->head, __ATOMIC_RELAXED);
    do {
        if (p - __atomic_load_n(&l->tail, __ATOMIC_ACQUIRE) > l->mask) return 0;
    } while (!__atomic_compare_exchange_n(&l->head, &p, p + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
#else
    uint64_t p = l->head;
    if (p - l->tail > l->mask) return 0;
    l->head = p + 1;
#endif
    *pp = p;
    return 1;
}

/* Could a request to neighbor idx claim a slot now? A snapshot, as claim() would see it
 * after taking back what returned (as wait_room does before giving up). */
static int has_room(const lane_t *pair) {
    for (int i = 0; i < 2; i++)
        if (__atomic_load_n(&pair[i].head, __ATOMIC_RELAXED) - __atomic_load_n(&pair[i].tail, __ATOMIC_ACQUIRE) <=
            pair[i].mask)
            return 1;
    return 0;
}
int gasneti_lanes_have_room(int32_t idx) {
    lane_t *pair = &tx[2 * idx];
    if (has_room(pair)) return 1;
    reap(&pair[0]);
    reap(&pair[1]);
    return has_room(pair);
}

/* Both lanes to a neighbor are full: take back what returned, and poll (only replies
 * when called from a handler) if that freed no slot. Returns GASNETI_AM_WOULD_BLOCK
 * for IMMEDIATE, else 0 to try again. */
GASNETI_COLD static int wait_room(lane_t *pair, const gasneti_am_msg_t *m) {
#define TAIL(l) __atomic_load_n(&(l).tail, __ATOMIC_RELAXED)
    uint64_t t0 = TAIL(pair[0]), t1 = TAIL(pair[1]);
    reap(&pair[0]);
    reap(&pair[1]);
    if (TAIL(pair[0]) != t0 || TAIL(pair[1]) != t1) return 0; /* slots came back (replies or done marks) */
#undef TAIL
    if (m->flags & GEX_FLAG_IMMEDIATE) return GASNETI_AM_WOULD_BLOCK;
    gasneti_wait_for_room_to(m->jobrank, m->is_req);
    return 0;
}

/* A slot of a lane to neighbor idx: its address, with its position in *pp, or NULL for
 * IMMEDIATE with no room. */
static inline lslot_t *claim_slot(const gasneti_am_msg_t *m, int32_t idx, uint64_t *pp) {
    lane_t *pair = &tx[2 * idx], *l;
    for (;;) {
        if (claim(l = &pair[0], pp) || claim(l = &pair[1], pp)) break;
        if (wait_room(pair, m)) return NULL;
    }
    return &l->slots[*pp & l->mask];
}

int gasneti_lanes_request(const gasneti_am_msg_t *m, int32_t idx) {
    uint64_t p;
    lslot_t *s = claim_slot(m, idx, &p);
    if (!s) return GASNETI_AM_WOULD_BLOCK;
    publish(s, SEQ(p, ST_REQ), write_body(s, m));
    return GASNET_OK;
}

/* Negotiated payload (gasneti_am_prepare.c): claim a slot for request m (a Medium of at
 * most GASNETI_LANE_INLINE bytes, not written yet) and hand out its payload area; NULL
 * for IMMEDIATE with no room. gasneti_lanes_commit publishes it, before any other
 * communication (the receiver and our own reaping wait at an unpublished slot). */
void *gasneti_lanes_claim(const gasneti_am_msg_t *m, int32_t idx, gasneti_pshm_claim_t *c) {
    uint64_t p;
    lslot_t *s = claim_slot(m, idx, &p);
    if (!s) return NULL;
    c->where = GASNETI_CLAIM_LANE;
    c->pos = p;
    c->slot = s;
    return s->data;
}

void gasneti_lanes_commit(const gasneti_pshm_claim_t *c, const gasneti_am_msg_t *m) {
    lslot_t *s = (lslot_t *)c->slot;
    publish(s, SEQ(c->pos, ST_REQ), write_body(s, m));
}

/* A reply from the handler of a request that came through a lane: straight into the
 * request's slot, or held in r until the handler returns when the request's payload
 * is in the slot (then drain() writes it). */
void gasneti_lanes_reply(struct gasneti_lane_reply_s *r, const gasneti_am_msg_t *m) {
    if (r->hold) {
        r->held.word = write_body(&r->held, m);
        r->state = R_HELD;
    } else {
        publish(r->slot, r->seq, write_body(r->slot, m));
        r->state = R_SENT;
    }
}

/* The state dump (gasneti_watchdog.c): requests this process sent to neighbor idx that
 * have not come back; *unanswered gets how many of them its handlers have not yet run
 * (still marked as requests). A racy snapshot. */
int gasneti_lanes_diag(int32_t idx, unsigned *unanswered) {
    int out = 0;
    *unanswered = 0;
    if (!gasneti_lanes_on) return 0;
    for (int i = 0; i < 2; i++) {
        const lane_t *l = &tx[2 * idx + i];
        uint64_t h = __atomic_load_n(&l->head, __ATOMIC_RELAXED), t = __atomic_load_n(&l->tail, __ATOMIC_RELAXED);
        for (uint64_t p = t; p < h && p - t <= l->mask; p++) {
            out++;
            uint64_t w = __atomic_load_n(&l->slots[p & l->mask].word, __ATOMIC_RELAXED);
            if (WORD_SEQ(w) == SEQ(p, ST_REQ)) (*unanswered)++;
        }
    }
    return out;
}
