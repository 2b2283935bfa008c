/* gasneti_pshm_lanes.c: the fast path of same-host Active Messages: one lane per
 * ordered pair of processes of a neighborhood (when it has at most
 * GASNET_PSHM_LANES_MAX processes).
 * Layer: core.
 *
 * Lane s->d is a ring of `depth` 256-byte slots in the shared control region, written
 * only by s's requests to d. A request is written into s's next slot and published by
 * a release store of the slot's state word. d runs the handler on the slot in place;
 * a reply from that handler (Short, Long, or Medium of up to GASNETI_LANE_INLINE
 * bytes) is held aside, then written into the same slot, over the request, when the
 * handler returns; without a reply the slot is marked done. So a request/reply round trip
 * moves one cache line to the target and back, as a flag bounced between two processes
 * does, with no shared counter, lock or atomic read-modify-write. s reads the slots it
 * sent back in order: runs the reply handler, and frees the slot. The state word of the
 * slot used for lane position p is 4p+1 (request), 4p+2 (reply) or 4p+3 (done), so a
 * value left from an earlier lap never matches. Medium requests larger than GASNETI_LANE_INLINE,
 * and replies that cannot go in the slot, take the multi-producer queues of
 * gasneti_pshm.c. Replies never need room (the slot is theirs), so a request handler
 * never waits to reply through a lane. */
#include "conduit_contract.h"
#include "gasneti_deliver.h"

#include <string.h>

typedef struct {
    uint64_t state; /* 4p+1, 4p+2, 4p+3 for lane position p */
    gasneti_lane_msg_t msg;
} lslot_t;
_Static_assert(sizeof(lslot_t) == 256, "lane slot must stay 256 bytes");
_Static_assert(GASNETI_MAX_ARGS == 16, "gasneti_lane_msg_t holds 16 arguments");

enum { ST_REQ = 1, ST_REP = 2, ST_DONE = 3 };

/* One end of a lane, in this process's private memory (cache-line aligned so that
 * threads working on different lanes do not share lines). */
typedef struct {
    /* what polling looks at: the state word of slot `tail`, and the value that means
     * work (receiving end: == want; sending end: want or want+1) */
    _Alignas(64) const uint64_t *watch;
    uint64_t want;
    lslot_t *slots;
    uint64_t head;   /* sending end: next position to claim */
    uint64_t tail;   /* sending end: oldest position not yet back; receiving end: next to read */
    gex_Rank_t peer; /* jobrank at the other end */
    int lock;        /* PAR: one thread works on this end at a time */
} lane_t;

int gasneti_lanes_on;
static gex_Rank_t nlanes;
static uint64_t depth, mask;
static lane_t *tx, *rx; /* [nbrhd_size]: my lanes to, and from, each neighbor */

size_t gasneti_lanes_bytes(gex_Rank_t nbrhd_size, uint64_t lane_depth) {
    int64_t max = gasneti_getenv_int("GASNET_PSHM_LANES_MAX", 16);
    if (max < 0 || max > 256) gasneti_launch_error("GASNET_PSHM_LANES_MAX=%lld: must be between 0 and 256", (long long)max);
    if (nbrhd_size > (gex_Rank_t)max) return 0;
    return (size_t)nbrhd_size * nbrhd_size * lane_depth * sizeof(lslot_t);
}

/* Polling (other threads too) now looks at position p of lane l for state st. Torn
 * reads of the pair only cost a wasted or a missed look: reap and drain check again. */
static inline void set_watch(lane_t *l, uint64_t p, unsigned st) {
    __atomic_store_n(&l->watch, &l->slots[p & mask].state, __ATOMIC_RELAXED);
    __atomic_store_n(&l->want, 4 * p + st, __ATOMIC_RELAXED);
}

/* base: zero-filled shared memory of gasneti_lanes_bytes() bytes, the same in every
 * process of the neighborhood; lane s->d starts at slot (s*n+d)*depth. */
void gasneti_lanes_init(uint8_t *base, uint64_t lane_depth) {
    nlanes = gasneti_nbrhd_size;
    depth = lane_depth;
    mask = depth - 1;
    tx = aligned_alloc(64, nlanes * sizeof(lane_t));
    rx = aligned_alloc(64, nlanes * sizeof(lane_t));
    if (!tx || !rx) gasneti_fatalerror("out of memory for the PSHM lanes");
    memset(tx, 0, nlanes * sizeof(lane_t));
    memset(rx, 0, nlanes * sizeof(lane_t));
    lslot_t *all = (lslot_t *)base;
    gex_Rank_t me = gasneti_nbrhd_myidx;
    for (gex_Rank_t i = 0; i < nlanes; i++) {
        tx[i].slots = all + ((size_t)me * nlanes + i) * depth;
        rx[i].slots = all + ((size_t)i * nlanes + me) * depth;
        tx[i].peer = rx[i].peer = gasneti_nbrhd_ranks[i];
        set_watch(&tx[i], 0, ST_REP);
        set_watch(&rx[i], 0, ST_REQ);
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

static inline void recv_from_slot(gasneti_am_recv_t *m, lslot_t *s, gex_Rank_t src) {
    gasneti_recv_from_meta(m, src, s->msg.meta, s->msg.args, s->msg.nbytes);
    m->payload = m->category == GASNETI_AM_MEDIUM ? (void *)s->msg.data : (void *)(uintptr_t)s->msg.dest;
}

/* Header, arguments and Medium payload of m into d (a slot, or a reply being held);
 * a Long payload goes straight to the destination in the target's segment. */
static inline void write_msg(gasneti_lane_msg_t *d, const gasneti_am_msg_t *m) {
    struct { uint32_t meta, nbytes; } h; /* one 8-byte store */
    memcpy(&h.meta, &m->category, sizeof(h.meta)); /* category, is_req, nargs, handler */
    h.nbytes = (uint32_t)m->nbytes;
    memcpy(&d->meta, &h, sizeof(h));
    for (unsigned i = 0; i < m->nargs; i++) d->args[i] = m->args[i]; /* 0..16: cheaper than a memcpy call */
    if (m->category == GASNETI_AM_MEDIUM) {
        if (m->nbytes) memcpy(d->data, m->src, m->nbytes);
    } else if (m->category == GASNETI_AM_LONG) {
        gasneti_pshm_copy_long(m);
        d->dest = (uint64_t)(uintptr_t)m->dest_addr;
    }
}

/* A held reply into its slot: only the words it uses, back to back, so the line moves
 * here once (the requester is reading this line while it waits: every store to it
 * that its read slips between costs another transfer). */
static inline void copy_reply(gasneti_lane_msg_t *d, const gasneti_lane_msg_t *r) {
    uint8_t meta[4];
    memcpy(meta, &r->meta, sizeof(meta));
    memcpy(&d->meta, &r->meta, 2 * sizeof(uint32_t)); /* meta and nbytes: one store */
    if (meta[0] == GASNETI_AM_LONG) d->dest = r->dest;
    for (unsigned i = 0; i < meta[2]; i++) d->args[i] = r->args[i];
    if (meta[0] == GASNETI_AM_MEDIUM && r->nbytes) memcpy(d->data, r->data, r->nbytes);
}

/* Slots of lane l that came back (replies and done marks), in order. */
static int reap(lane_t *l) {
    if (!LANE_TRYLOCK(l)) return 0;
    int n = 0;
    for (;;) { /* ends at the first slot not back yet, or not sent yet (earlier lap's value) */
        uint64_t p = l->tail;
        lslot_t *s = &l->slots[p & mask];
        uint64_t st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
        if (st == 4 * p + ST_REP) {
            gasneti_am_recv_t m;
            recv_from_slot(&m, s, l->peer);
            gasneti_am_deliver(&m);
            n++;
        } else if (st != 4 * p + ST_DONE) {
            break;
        }
        __atomic_store_n(&l->tail, p + 1, __ATOMIC_RELEASE); /* the slot is free for senders */
    }
    set_watch(l, l->tail, ST_REP);
    LANE_UNLOCK(l);
    return n;
}

/* Requests waiting in lane l (from l->peer): run their handlers, then hand each slot
 * back with the reply written into it, or marked done. */
GASNETI_NOINLINE static int drain(lane_t *l) {
    if (!LANE_TRYLOCK(l)) return 0;
    int n = 0;
    struct gasneti_lane_reply_s r;
    for (; n < 64; n++) {
        uint64_t p = l->tail;
        lslot_t *s = &l->slots[p & mask];
        if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != 4 * p + ST_REQ) break;
        l->tail = p + 1;
        gasneti_am_recv_t m;
        recv_from_slot(&m, s, l->peer);
        r.replied = 0;
        m.lane = &r;
        gasneti_am_deliver(&m);
        if (r.replied) {
            copy_reply(&s->msg, &r.msg);
            __atomic_store_n(&s->state, 4 * p + ST_REP, __ATOMIC_RELEASE);
        } else {
            __atomic_store_n(&s->state, 4 * p + ST_DONE, __ATOMIC_RELEASE);
        }
    }
    set_watch(l, l->tail, ST_REQ);
    LANE_UNLOCK(l);
    return n;
}

int gasneti_lanes_poll(int replies_only) {
    int n = 0;
    lane_t *t = tx, *r = rx, *end = tx + nlanes;
    for (; t != end; t++, r++) {
        /* a slot at `tail` holds a value for an earlier lap until we wrote its request */
        if (__atomic_load_n(__atomic_load_n(&t->watch, __ATOMIC_RELAXED), __ATOMIC_RELAXED) -
                __atomic_load_n(&t->want, __ATOMIC_RELAXED) <= 1)
            n += reap(t);
        if (!replies_only && __atomic_load_n(__atomic_load_n(&r->watch, __ATOMIC_RELAXED), __ATOMIC_RELAXED) ==
                                 __atomic_load_n(&r->want, __ATOMIC_RELAXED))
            n += drain(r);
    }
    return n;
}

/* The lane is full: take back what returned, then poll until there is room (only
 * replies when called from a handler). Returns 0 when there is room, or
 * GASNETI_AM_WOULD_BLOCK for IMMEDIATE. */
GASNETI_COLD static int wait_room(lane_t *l, const gasneti_am_msg_t *m) {
    for (;;) {
        reap(l);
        if (__atomic_load_n(&l->head, __ATOMIC_RELAXED) - __atomic_load_n(&l->tail, __ATOMIC_ACQUIRE) < depth)
            return 0;
        if (m->flags & GEX_FLAG_IMMEDIATE) return GASNETI_AM_WOULD_BLOCK;
        if (!gasneti_cur_token)
            gasneti_AMPoll();
        else
            gasneti_poll_replies();
    }
}

int gasneti_lanes_request(const gasneti_am_msg_t *m, int32_t idx) {
    lane_t *l = &tx[idx];
    uint64_t p;
#if GASNETI_LOCKS
    p = __atomic_load_n(&l->head, __ATOMIC_RELAXED);
    for (;;) {
        if (GASNETI_UNLIKELY(p - __atomic_load_n(&l->tail, __ATOMIC_ACQUIRE) >= depth)) {
            if (wait_room(l, m)) return GASNETI_AM_WOULD_BLOCK;
            p = __atomic_load_n(&l->head, __ATOMIC_RELAXED);
            continue;
        }
        if (__atomic_compare_exchange_n(&l->head, &p, p + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) break;
    }
#else
    p = l->head;
    if (GASNETI_UNLIKELY(p - l->tail >= depth) && wait_room(l, m)) return GASNETI_AM_WOULD_BLOCK;
    l->head = p + 1;
#endif
    lslot_t *s = &l->slots[p & mask];
    write_msg(&s->msg, m);
    __atomic_store_n(&s->state, 4 * p + ST_REQ, __ATOMIC_RELEASE);
    return GASNET_OK;
}

/* A reply from the handler of a request that came through a lane: held in r until the
 * handler returns (the request's payload stays in the slot for the handler), then
 * written into the request's slot by drain(). */
void gasneti_lanes_reply(struct gasneti_lane_reply_s *r, const gasneti_am_msg_t *m) {
    write_msg(&r->msg, m);
    r->replied = 1;
}
