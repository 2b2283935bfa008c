/* gasneti_frag.c: Mediums and Longs bigger than one message of the conduit's network, and
 * the pool of Medium-sized buffers. Layer: core. Written once for every conduit whose
 * natural message (GASNETC_NET_MEDIUM, GASNETC_NET_LONG in <net>_conduit.h) is smaller than
 * what the library offers clients (GASNETC_MAX_MEDIUM, at least 64 KiB everywhere, and
 * GASNETC_MAX_LONG).
 *
 * Sender: the AM is cut into pieces of the largest size the conduit takes in one
 * gasnetc_am_send (GASNETI_MEDIUM_PIECE / GASNETI_LONG_PIECE: the NET size, or what the
 * conduit's run-time hook says), each sent as an AM of the same category, handler and
 * arguments, with a fragment header (message id, offset, total) the conduit carries
 * opaquely. A Long piece goes straight to its place in the destination (dest_addr + offset).
 * Target: pieces may arrive in any order, interleaved with pieces of other messages of the
 * same sender (PAR threads send concurrently) and of other senders, on any thread. Each
 * sender has its own reassembly state per direction (request / reply), made on its first
 * piece, with its own lock held only to find or claim the slot of a message (no lock in
 * SEQ builds); a slot holds a buffer taken from the pool (Medium) or the start of the
 * destination (Long, whose pieces are already in place and only counted). Pieces are
 * copied outside the lock and counted atomically; the piece that completes the message
 * frees the slot, runs the handler once, with the whole payload, exactly as for an unsplit
 * AM (it may reply, and the reply may be split in turn: no lock is held), then returns the
 * buffer to the pool. A piece that does not fit its message (past the total, a total
 * beyond the maximum, a disagreement with earlier pieces) is a fatal error naming the peer.
 *
 * The pool (gasneti_bigmed_get / _put): buffers of GASNETC_MAX_MEDIUM bytes, made on
 * demand, kept for reuse in POOL_KEEP lock-free places (freed beyond that). Reassembly
 * uses it; so does a conduit that receives a big Medium's payload apart from its message
 * (GASNETC_MEDIUM_PIECE_AT_RUN_TIME, conduit_contract.h).
 * Cost: one copy of a split Medium at the target (the conduit's receive buffer to the
 * pool buffer); per piece an uncontended lock and an atomic add. Unsplit AMs pay one
 * predictable branch on each side. */
#include "conduit_contract.h"
#include "gasneti_deliver.h"

#include <string.h>
#if GASNETI_LOCKS
#  include <pthread.h>
#endif

#if GASNETC_FRAGMENTS

/* ---- the pool ---- */
#define POOL_KEEP 64
static void *pool[POOL_KEEP];

void *gasneti_bigmed_get(void) {
    for (int i = 0; i < POOL_KEEP; i++) /* kept buffers gather at the low places */
        if (__atomic_load_n(&pool[i], __ATOMIC_RELAXED)) {
            void *b = __atomic_exchange_n(&pool[i], NULL, __ATOMIC_ACQUIRE);
            if (b) return b;
        }
    void *b;
    if (posix_memalign(&b, 64, GASNETC_MAX_MEDIUM))
        gasneti_fatalerror("out of memory for a %u-byte Medium buffer", (unsigned)GASNETC_MAX_MEDIUM);
    return b;
}

void gasneti_bigmed_put(void *b) {
    for (int i = 0; i < POOL_KEEP; i++) {
        void *none = NULL;
        if (!__atomic_load_n(&pool[i], __ATOMIC_RELAXED) &&
            __atomic_compare_exchange_n(&pool[i], &none, b, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
            return;
    }
    free(b);
}

/* ---- sender ---- */
static uint32_t next_msgid;

int gasneti_frag_send(const gasneti_am_msg_t *m, gex_Event_t *lc_opt) {
    size_t piece = m->category == GASNETI_AM_LONG ? GASNETI_LONG_PIECE(m) : GASNETI_MEDIUM_PIECE(m);
    gasneti_frag_t fh = {__atomic_fetch_add(&next_msgid, 1, __ATOMIC_RELAXED), 0, (uint32_t)m->nbytes};
    gasneti_am_msg_t f = *m;
    f.frag = &fh;
    for (size_t off = 0; off < m->nbytes; off += piece) {
        fh.offset = (uint32_t)off;
        f.src = (const uint8_t *)m->src + off;
        f.nbytes = m->nbytes - off < piece ? m->nbytes - off : piece;
        if (m->category == GASNETI_AM_LONG) f.dest_addr = (uint8_t *)m->dest_addr + off;
        /* the source may be reused when each piece returns (lc NULL) */
        int rc = gasnetc_am_send(&f, NULL);
        if (rc) return rc; /* IMMEDIATE, and only on the first piece: nothing went out */
        f.flags &= ~(gex_Flags_t)GEX_FLAG_IMMEDIATE; /* once started, the rest must follow */
    }
    gasneti_lc_done_at_once(lc_opt);
    return GASNET_OK;
}

/* ---- target: per sender and direction, the messages partly arrived ---- */
#define SLOTS 4 /* messages of one sender in flight at once before another block is made */
typedef struct {
    uint32_t msgid, total;
    uint32_t got; /* bytes arrived (atomic) */
    uint8_t used, category;
    uint8_t *buf; /* Medium: a pool buffer; Long: the start of the destination */
} partial_t;
typedef struct block_s {
    partial_t p[SLOTS];
    struct block_s *next; /* never freed: the most a sender had in flight */
} block_t;
typedef struct {
#if GASNETI_LOCKS
    pthread_mutex_t lock;
#endif
    block_t first;
} source_t;
static source_t **sources; /* [2 * rank + is_req], each made on the sender's first piece */

#if GASNETI_LOCKS
#  define SLOCK(s) pthread_mutex_lock(&(s)->lock)
#  define SUNLOCK(s) pthread_mutex_unlock(&(s)->lock)
#else
#  define SLOCK(s) ((void)0)
#  define SUNLOCK(s) ((void)0)
#endif

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (!p) gasneti_fatalerror("out of memory reassembling split AMs");
    return p;
}

static source_t *source_of(gex_Rank_t src, int is_req) {
    source_t **all = __atomic_load_n(&sources, __ATOMIC_ACQUIRE);
    if (GASNETI_UNLIKELY(!all)) {
        source_t **none = NULL, **mine = xcalloc(2 * (size_t)gasneti_nodes, sizeof(*mine));
        if (__atomic_compare_exchange_n(&sources, &none, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) all = mine;
        else free(mine), all = none;
    }
    source_t **at = &all[2 * (size_t)src + (is_req ? 1 : 0)], *s = __atomic_load_n(at, __ATOMIC_ACQUIRE);
    if (GASNETI_UNLIKELY(!s)) {
        source_t *none = NULL, *mine = xcalloc(1, sizeof(*mine));
#if GASNETI_LOCKS
        pthread_mutex_init(&mine->lock, NULL);
#endif
        if (__atomic_compare_exchange_n(at, &none, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) s = mine;
        else free(mine), s = none;
    }
    return s;
}

GASNETI_COLD GASNETI_NORETURN static void bad_piece(const gasneti_am_recv_t *m, const char *why) {
    /* the conduit checked its message; this is a sender that does not follow the
     * protocol (or a corrupted one) */
    gasneti_fatalerror("a piece of a split %s %s from rank %u does not fit (message %u: offset %u, %zu bytes, "
                       "total %u): %s",
                       m->category == GASNETI_AM_LONG ? "Long" : m->category == GASNETI_AM_MEDIUM ? "Medium" : "Short",
                       m->is_req ? "request" : "reply", (unsigned)m->srcrank, m->frag->msgid, m->frag->offset,
                       m->nbytes, m->frag->total, why);
}

/* lock held: the slot of this piece's message, claimed if it is the first piece here */
static partial_t *find_or_claim(source_t *s, const gasneti_am_recv_t *m) {
    const gasneti_frag_t *f = m->frag;
    partial_t *free_slot = NULL;
    block_t *b = &s->first;
    for (;; b = b->next) {
        for (int i = 0; i < SLOTS; i++) {
            partial_t *p = &b->p[i];
            if (p->used && p->msgid == f->msgid) return p;
            if (!p->used && !free_slot) free_slot = p;
        }
        if (!b->next) break;
    }
    if (!free_slot) free_slot = &(b->next = xcalloc(1, sizeof(block_t)))->p[0];
    partial_t *p = free_slot;
    p->used = 1;
    p->msgid = f->msgid;
    p->total = f->total;
    p->category = m->category;
    __atomic_store_n(&p->got, 0, __ATOMIC_RELAXED);
    p->buf = m->category == GASNETI_AM_MEDIUM ? gasneti_bigmed_get() : (uint8_t *)m->payload - f->offset;
    return p;
}

void gasneti_frag_recv(const gasneti_am_recv_t *m) {
    const gasneti_frag_t *f = m->frag;
    size_t limit = m->category == GASNETI_AM_LONG ? gasneti_am_max_long : GASNETC_MAX_MEDIUM;
    if (m->category == GASNETI_AM_SHORT) bad_piece(m, "a Short is never split");
    if (f->total > limit) bad_piece(m, "the total is beyond the largest payload");
    if (f->offset > f->total || m->nbytes > f->total - f->offset || m->nbytes == 0)
        bad_piece(m, "the piece lies outside the message");
    gasneti_assert(m->srcrank < gasneti_nodes);
    source_t *s = source_of(m->srcrank, m->is_req);
    SLOCK(s);
    partial_t *p = find_or_claim(s, m);
    uint8_t *buf = p->buf;
    int mismatch = p->total != f->total || p->category != m->category ||
                   (m->category == GASNETI_AM_LONG && buf != (uint8_t *)m->payload - f->offset);
    SUNLOCK(s);
    if (mismatch) bad_piece(m, "it does not match the earlier pieces of the message");
    /* the slot stays ours until the last byte is counted, so the copy needs no lock */
    if (m->category == GASNETI_AM_MEDIUM) memcpy(buf + f->offset, m->payload, m->nbytes);
    uint32_t got = __atomic_add_fetch(&p->got, (uint32_t)m->nbytes, __ATOMIC_ACQ_REL);
    if (got < f->total) return;
    if (got > f->total) bad_piece(m, "more bytes arrived than the message has");
    SLOCK(s);
    p->used = 0; /* the slot may serve the next message now */
    SUNLOCK(s);
    gasneti_deliver(m->srcrank, m->category, m->is_req, m->nargs, m->handler, m->args, buf, f->total, NULL,
                    m->dst_ep, m->src_ep);
    if (m->category == GASNETI_AM_MEDIUM) gasneti_bigmed_put(buf);
}

#else /* no conduit in this library splits AMs */

int gasneti_frag_send(const gasneti_am_msg_t *m, gex_Event_t *lc_opt) {
    return gasneti_am_send_network(m, lc_opt);
}
void gasneti_frag_recv(const gasneti_am_recv_t *m) {
    gasneti_fatalerror("an AM piece from rank %u, but %s-conduit never splits AMs", (unsigned)m->srcrank,
                       GASNETC_NAME);
}

#endif
