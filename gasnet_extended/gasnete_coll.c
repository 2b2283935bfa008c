/* gasnete_coll.c: collectives over any team (gasnet_coll.h): gex_Coll_BroadcastNB,
 * ReduceToOneNB, ReduceToAllNB (small ones on the primordial team through shared memory when
 * every rank is on this host), gex_Coll_BarrierNB on teams other than the primordial one
 * (whose barrier is gasnete_barrier.c's), the all-gather that team creation uses
 * (gasnete_team.c), and the data movement of the GASNet-1 collectives (gasnete_coll1.c):
 * scatter, gather and exchange too, each optionally between barriers (a chain of operations).
 * Layer: extended. Built on AM Mediums, so it works on every conduit; where every member
 * is on this host, large broadcasts and small primordial-team reductions use the PSHM
 * collectives areas instead.
 *
 * Every operation is one or two phases over a binomial tree of the team's ranks:
 *   - up (reductions, all-gather, barrier): rooted at team rank 0; rank r's subtree is the
 *     contiguous ranks [r, r + lowbit(r)); a rank combines its own input with each child's
 *     subtree result in increasing rank order (left operand first, so a non-commutative
 *     user operation sees src[0] (+) src[1] (+) ... (+) src[N-1]) and sends the result to
 *     r - lowbit(r);
 *   - down (broadcast, the second half of ReduceToAll, all-gather and barrier): rooted at
 *     the data's root, relative ranks; a rank forwards to its children, largest subtree
 *     first. ReduceToOne to a root other than 0 ends with rank 0 sending to the root.
 * Messages: AM Mediums of at most gasneti_am_max_medium bytes (pieces) carrying (team id, the
 * operation's sequence number on the team, tag, sender's team rank, offset, total). The
 * handler only files the bytes in an inbox keyed by those four (the operation may not
 * have started here yet, or the team may not exist here yet). Operations advance in
 * gasnete_coll_progress, from every poll, in any order, one thread at a time; sends
 * happen outside the inbox lock. Every member starts the collectives of a team in the
 * same order (the spec's rule), so (team, sequence) names one operation everywhere. */
#include "gasnete_internal.h"

#include <gasnet_coll.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_UP = 1, TAG_DOWN = 2, TAG_SHM = 3 };
enum { K_BCAST, K_REDUCE_ONE, K_REDUCE_ALL, K_BARRIER, K_GATHER_ALL, K_GATHER, K_SCATTER, K_EXCHANGE };

/* ---- the inbox ---- */
typedef struct inmsg_s {
    struct inmsg_s *next;
    uint32_t team, seq, tag;
    gex_Rank_t src;
    gex_EP_Index_t ep; /* the receiving endpoint: a team may hold several of this process */
    size_t total, got;
    int seen; /* a piece arrived (a 0-byte message is one piece) */
    uint8_t *buf;
    uint8_t *have;  /* messages of several pieces: [piece] arrived */
    size_t contig;  /* pieces [0, contig) have all arrived */
} inmsg_t;

#define PIECE gasneti_am_max_medium /* bytes per message piece, the same on every rank */
static inline size_t npieces(size_t total) { return total ? (total + PIECE - 1) / PIECE : 1; }

#define INBOX_BUCKETS 256
static inmsg_t *inbox[INBOX_BUCKETS];
static gex_HSL_t inbox_lock = GEX_HSL_INITIALIZER;

static inmsg_t **inbox_slot(uint32_t team, uint32_t seq, uint32_t tag, gex_Rank_t src, gex_EP_Index_t ep) {
    inmsg_t **pp = &inbox[(team * 2654435761u + seq * 40503u + tag * 97u + src + ep * 7919u) % INBOX_BUCKETS];
    while (*pp && ((*pp)->team != team || (*pp)->seq != seq || (*pp)->tag != tag || (*pp)->src != src ||
                   (*pp)->ep != ep))
        pp = &(*pp)->next;
    return pp;
}

void gasnete_coll_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t team, gex_AM_Arg_t seq,
                          gex_AM_Arg_t tag, gex_AM_Arg_t src, gex_AM_Arg_t off, gex_AM_Arg_t total) {
    gex_EP_Index_t ep = t->ep->_index;
    size_t o = (uint32_t)off, tot = (uint32_t)total;
    if (o + n > tot || o % PIECE || (n != PIECE && o + n != tot))
        gasneti_fatalerror("collectives: a piece of %zu bytes at %zu does not fit its %zu-byte message", n, o, tot);
    gex_HSL_Lock(&inbox_lock);
    inmsg_t **pp = inbox_slot((uint32_t)team, (uint32_t)seq, (uint32_t)tag, (gex_Rank_t)src, ep), *m = *pp;
    if (!m) {
        m = calloc(1, sizeof(*m));
        if (m && tot) m->buf = malloc(tot);
        if (m && npieces(tot) > 1) m->have = calloc(npieces(tot), 1);
        if (!m || (tot && !m->buf) || (npieces(tot) > 1 && !m->have))
            gasneti_fatalerror("collectives: out of memory for a %zu-byte message", tot);
        m->team = (uint32_t)team, m->seq = (uint32_t)seq, m->tag = (uint32_t)tag, m->src = (gex_Rank_t)src, m->ep = ep;
        m->total = tot;
        *pp = m;
    }
    if (n) memcpy(m->buf + o, buf, n);
    m->got += n;
    m->seen = 1;
    if (m->have) {
        m->have[o / PIECE] = 1;
        while (m->contig < npieces(tot) && m->have[m->contig]) m->contig++;
    }
    gex_HSL_Unlock(&inbox_lock);
}

/* the whole message, taken out of the inbox; NULL while pieces are missing */
static inmsg_t *inbox_take(gex_TM_t tm, uint32_t seq, uint32_t tag, gex_Rank_t src) {
    gex_HSL_Lock(&inbox_lock);
    inmsg_t **pp = inbox_slot(tm->_id, seq, tag, src, tm->_ep->_index), *m = *pp;
    if (m && m->seen && m->got == m->total) *pp = m->next;
    else m = NULL;
    gex_HSL_Unlock(&inbox_lock);
    return m;
}

/* A message of several pieces from src, left in the inbox: NULL until its first piece
 * arrives; *contig is how many leading pieces have all arrived. */
static inmsg_t *inbox_peek(gex_TM_t tm, uint32_t seq, uint32_t tag, gex_Rank_t src, size_t *contig) {
    gex_HSL_Lock(&inbox_lock);
    inmsg_t *m = *inbox_slot(tm->_id, seq, tag, src, tm->_ep->_index);
    if (m) *contig = m->contig;
    gex_HSL_Unlock(&inbox_lock);
    return m;
}

static void inbox_remove(inmsg_t *m) {
    gex_HSL_Lock(&inbox_lock);
    inmsg_t **pp = inbox_slot(m->team, m->seq, m->tag, m->src, m->ep);
    *pp = m->next;
    gex_HSL_Unlock(&inbox_lock);
}

static void inmsg_free(inmsg_t *m) {
    free(m->buf);
    free(m->have);
    free(m);
}

/* sends piece k of the n-byte message `data` to team rank `to` */
static void coll_send_piece(gex_TM_t tm, uint32_t seq, uint32_t tag, gex_Rank_t to, const void *data, size_t n,
                            size_t k) {
    size_t off = k * PIECE, len = n - off < PIECE ? n - off : PIECE;
    gex_AM_RequestMedium6(tm, to, GASNETI_HIDX_COLL, (uint8_t *)data + off, len, GEX_EVENT_NOW, 0,
                          (gex_AM_Arg_t)tm->_id, (gex_AM_Arg_t)seq, (gex_AM_Arg_t)tag, (gex_AM_Arg_t)tm->_rank,
                          (gex_AM_Arg_t)off, (gex_AM_Arg_t)n);
}

/* sends n bytes (in PIECE-sized pieces; one piece when n is 0) to team rank `to` */
static void coll_send(gex_TM_t tm, uint32_t seq, uint32_t tag, gex_Rank_t to, const void *data, size_t n) {
    for (size_t k = 0; k < npieces(n); k++) coll_send_piece(tm, seq, tag, to, data, n, k);
}

/* ---- binomial trees ---- */
static inline gex_Rank_t lowbit(gex_Rank_t r, gex_Rank_t n) {
    if (!r) { /* the root: a power of two covering everyone */
        gex_Rank_t p = 1;
        while (p < n) p <<= 1;
        return p;
    }
    return r & (~r + 1);
}

/* ---- operations ---- */
typedef struct collop_s {
    struct collop_s *next;
    struct collop_s *then; /* a chain: started once this one completes, in its place */
    int kind, phase; /* phase: 0 up, 1 down, 2 complete */
    gex_TM_t tm;
    uint32_t seq;
    gex_Rank_t root;    /* of the down phase (or of ReduceToOne) */
    gex_Rank_t child_k; /* up: next child offset to wait for (1, 2, 4, ...) */
    uint8_t *acc;       /* up: this subtree's result; down: the data to forward */
    size_t acc_len;
    void *dst;
    const void *src;
    size_t nbytes; /* the operation's data length (per rank for all-gather) */
    gex_DT_t dt;
    size_t dt_sz, dt_cnt;
    gex_OP_t op;
    gex_Coll_ReduceFn_t fn;
    void *cdata;
    gex_Event_t ev; /* NULL in a chain but for its last operation */
    /* the shared-memory broadcast */
    int shm;
    uint32_t gen;        /* the root's staging generation; 0 until known */
    size_t chunk;        /* the next piece to stage (root) or copy out (member); exchange: the next round */
    size_t own;          /* root: the next piece of its own destination to copy */
    size_t fwd;          /* tree, several pieces: the next piece to forward; exchange: 1 once sent */
    uint8_t *area;       /* the root's collectives area */
    /* the same-host small reduction */
    int shmred;
    uint32_t rseq;       /* its number among this process's same-host reductions */
    int arrived;
} collop_t;

static collop_t *new_ops, **new_tail = &new_ops; /* started, not yet seen by progress (inbox_lock) */
static collop_t *active;                         /* progress's own list */
static int coll_busy;
static int coll_live; /* started, not complete: progress has nothing to do at 0 */

/* y[i] = x[i] (+) y[i] for built-in operations */
#define COLL_ARITH(T)                                                                           \
    do {                                                                                        \
        const T *x = (const T *)left;                                                           \
        T *y = (T *)right;                                                                      \
        switch (op) {                                                                           \
        case GEX_OP_ADD: for (size_t i = 0; i < cnt; i++) y[i] = x[i] + y[i]; return;            \
        case GEX_OP_MULT: for (size_t i = 0; i < cnt; i++) y[i] = x[i] * y[i]; return;           \
        case GEX_OP_MIN: for (size_t i = 0; i < cnt; i++) y[i] = x[i] < y[i] ? x[i] : y[i]; return; \
        case GEX_OP_MAX: for (size_t i = 0; i < cnt; i++) y[i] = x[i] > y[i] ? x[i] : y[i]; return; \
        default: break;                                                                         \
        }                                                                                       \
    } while (0)
#define COLL_BITS(T)                                                                            \
    do {                                                                                        \
        const T *x = (const T *)left;                                                           \
        T *y = (T *)right;                                                                      \
        switch (op) {                                                                           \
        case GEX_OP_AND: for (size_t i = 0; i < cnt; i++) y[i] = x[i] & y[i]; return;            \
        case GEX_OP_OR: for (size_t i = 0; i < cnt; i++) y[i] = x[i] | y[i]; return;             \
        case GEX_OP_XOR: for (size_t i = 0; i < cnt; i++) y[i] = x[i] ^ y[i]; return;            \
        default: break;                                                                         \
        }                                                                                       \
    } while (0)

static void combine(const collop_t *o, const void *left, void *right) {
    size_t cnt = o->dt_cnt;
    gex_OP_t op = o->op;
    if (op == GEX_OP_USER || op == GEX_OP_USER_NC) {
        o->fn(left, right, cnt, o->cdata);
        return;
    }
    switch (o->dt) {
    case GEX_DT_I32: COLL_ARITH(int32_t); COLL_BITS(int32_t); break;
    case GEX_DT_U32: COLL_ARITH(uint32_t); COLL_BITS(uint32_t); break;
    case GEX_DT_I64: COLL_ARITH(int64_t); COLL_BITS(int64_t); break;
    case GEX_DT_U64: COLL_ARITH(uint64_t); COLL_BITS(uint64_t); break;
    case GEX_DT_FLT: COLL_ARITH(float); break;
    case GEX_DT_DBL: COLL_ARITH(double); break;
    default: break;
    }
    gasneti_fatalerror("collectives: operation 0x%x on type 0x%x reached the combiner", (unsigned)op, (unsigned)o->dt);
}

static void finish(collop_t *o) {
    o->phase = 2;
    free(o->acc);
    o->acc = NULL;
    if (o->ev) gasneti_counter_done(&o->ev->pending);
}

/* ---- the shared-memory broadcast ---- */
#define SHM_MIN 4096
#define SHM_CHUNK ((size_t)64 << 10)
#define SHM_HDR ((size_t)4096) /* the slot headers, then the slots */
#define SHM_SLOTS_MAX 16
typedef struct {
    uint64_t stamp; /* (generation << 32 | piece) + 1 of the piece in the slot; release-stored by the root */
    char pad1[56];
    uint64_t acks; /* members that copied a piece out of the slot, ever; release-added */
    char pad2[56];
} shm_slot_t;
_Static_assert(SHM_SLOTS_MAX * sizeof(shm_slot_t) <= GASNETE_SHM_REDUCE_OFF &&
                   GASNETE_SHM_REDUCE_OFF + GASNETE_SHMX_BYTES(GASNETE_SHM_REDUCE_CAP) <= GASNETE_SHM_BARRIER_OFF &&
                   GASNETE_SHM_BARRIER_OFF + GASNETE_SHMX_BYTES(8) <= SHM_HDR,
               "collectives area layout (the barrier's exchange carries 8 bytes)");

/* the root side's state, touched by progress only (one thread at a time) */
static uint32_t shm_gen;                 /* generations handed out by this process */
static uint64_t shm_expect[SHM_SLOTS_MAX]; /* acks each slot must reach before its next fill */
static int shm_staging;                  /* a broadcast is staging from this process's area */

static inline shm_slot_t *shm_slot(uint8_t *area, size_t s) { return (shm_slot_t *)area + s; }
static inline uint8_t *shm_data(uint8_t *area, size_t s) { return area + SHM_HDR + s * SHM_CHUNK; }
static inline size_t shm_slots(void) { /* the same in every neighbor */
    size_t k = (gasneti_pshm_coll_bytes - SHM_HDR) / SHM_CHUNK;
    return k < SHM_SLOTS_MAX ? k : SHM_SLOTS_MAX;
}
static inline size_t shm_piece_len(const collop_t *o, size_t piece) {
    size_t off = piece * SHM_CHUNK;
    return o->nbytes - off < SHM_CHUNK ? o->nbytes - off : SHM_CHUNK;
}
static inline uint64_t shm_stamp(uint32_t gen, size_t piece) { return ((uint64_t)gen << 32 | piece) + 1; }

/* Found once per team (membership never changes; a race only repeats the same answer). */
int gasnete_coll_team_on_host(gex_TM_t tm) {
    int v = __atomic_load_n(&tm->_coll_on_host, __ATOMIC_RELAXED);
    if (!v) {
        v = 1;
        for (gex_Rank_t r = 0; r < tm->_size && v == 1; r++)
            if (!gasneti_pshm_coll_area(gasneti_tm_jobrank(tm, r))) v = 2;
        __atomic_store_n(&tm->_coll_on_host, v, __ATOMIC_RELAXED);
    }
    return v == 1;
}

/* ---- the same-host small reduction ----
 * ReduceToAll and ReduceToOne of at most GASNETE_SHM_REDUCE_CAP bytes on the primordial team
 * when every rank is on this host: an exchange of the inputs (gasnete_internal.h), taken
 * one at a time in start order (rdone). Once it is complete every rank (ReduceToOne: the
 * root only; the others still wait for completion) combines the inputs of ranks 0, 1, ...,
 * N-1 in that order, the tree's order, so every rank gets the same bits. */
static uint32_t rstarted, rdone; /* same-host reductions started, completed (in order) by this process */

static int shmred_step(collop_t *o) {
    if (o->rseq != rdone) return 0; /* an earlier one is still in progress */
    const size_t off = GASNETE_SHM_REDUCE_OFF, cap = GASNETE_SHM_REDUCE_CAP;
    if (!o->arrived) {
        gasnete_shmx_arrive(off, cap, o->rseq, o->acc, o->acc_len);
        o->arrived = 1;
    }
    if (!gasnete_shmx_done(off, o->rseq)) return 0;
    if (o->kind == K_REDUCE_ALL || o->tm->_rank == o->root) {
        _Alignas(16) uint8_t other[GASNETE_SHM_REDUCE_CAP]; /* combine() reads it as the element type */
        uint8_t *acc = o->acc, *next = other; /* acc: ranks [0, r); combine() writes its right operand */
        memcpy(acc, gasnete_shmx_data(off, cap, o->rseq, 0), o->acc_len);
        for (gex_Rank_t r = 1; r < o->tm->_size; r++) {
            memcpy(next, gasnete_shmx_data(off, cap, o->rseq, r), o->acc_len);
            combine(o, acc, next); /* next = acc (+) data of rank r */
            uint8_t *t = acc;
            acc = next, next = t;
        }
        memcpy(o->dst, acc, o->acc_len);
    }
    if (rdone == 0 && gasneti_mynode == 0 && gasnett_verboseenv()) /* checked by tests/api/test_collpath.sh */
        fprintf(stderr, "gasnet: small reductions on the primordial team: shared memory\n");
    rdone++;
    finish(o);
    return 1;
}

/* The root: stages the pieces while slots are free. Returns 0 while waiting. */
static int shm_root(collop_t *o) {
    gex_TM_t tm = o->tm;
    if (!o->gen) {
        if (shm_staging) return 0; /* another broadcast from here is still staging */
        shm_staging = 1;
        if (!++shm_gen) ++shm_gen;
        o->gen = shm_gen;
        o->area = gasneti_pshm_coll_area(gasneti_mynode);
        for (gex_Rank_t r = 0; r < tm->_size; r++)
            if (r != o->root) coll_send(tm, o->seq, TAG_SHM, r, &o->gen, sizeof(o->gen));
    }
    size_t pieces = (o->nbytes + SHM_CHUNK - 1) / SHM_CHUNK, slots = shm_slots();
    const uint8_t *src = o->src;
    uint8_t *dst = o->dst && o->dst != o->src ? o->dst : NULL;
    for (;;) {
        size_t s = o->chunk % slots;
        shm_slot_t *h = shm_slot(o->area, s);
        if (o->chunk < pieces && __atomic_load_n(&h->acks, __ATOMIC_ACQUIRE) >= shm_expect[s]) {
            memcpy(shm_data(o->area, s), src + o->chunk * SHM_CHUNK, shm_piece_len(o, o->chunk));
            shm_expect[s] += tm->_size - 1;
            __atomic_store_n(&h->stamp, shm_stamp(o->gen, o->chunk), __ATOMIC_RELEASE);
            o->chunk++;
        } else if (dst && o->own < o->chunk) { /* our own copy, of what is staged */
            memcpy(dst + o->own * SHM_CHUNK, src + o->own * SHM_CHUNK, shm_piece_len(o, o->own));
            o->own++;
        } else if (o->chunk < pieces) {
            return 0; /* the next slot is still being read */
        } else {
            break;
        }
    }
    shm_staging = 0;
    finish(o);
    return 1;
}

/* A member: copies out the pieces as they are stamped. Returns 0 while waiting. */
static int shm_member(collop_t *o) {
    gex_TM_t tm = o->tm;
    if (!o->gen) {
        inmsg_t *m = inbox_take(tm, o->seq, TAG_SHM, o->root);
        if (!m) return 0;
        if (m->total != sizeof(o->gen))
            gasneti_fatalerror("collectives: a shared-memory broadcast start of %zu bytes (expected %zu)", m->total,
                               sizeof(o->gen));
        memcpy(&o->gen, m->buf, sizeof(o->gen));
        inmsg_free(m);
        o->area = gasneti_pshm_coll_area(gasneti_tm_jobrank(tm, o->root));
    }
    size_t pieces = (o->nbytes + SHM_CHUNK - 1) / SHM_CHUNK, slots = shm_slots();
    for (; o->chunk < pieces; o->chunk++) {
        size_t s = o->chunk % slots;
        shm_slot_t *h = shm_slot(o->area, s);
        if (__atomic_load_n(&h->stamp, __ATOMIC_ACQUIRE) != shm_stamp(o->gen, o->chunk)) return 0;
        if (gasneti_pshm_oversubscribed && o->chunk % slots == 0) {
            /* More processes than CPUs: wait until the root has staged the whole window
             * (as many pieces as there are slots) and copy it in one go, rather than
             * trailing the root piece by piece: each wait costs a context switch. */
            size_t last = o->chunk + slots - 1 < pieces ? o->chunk + slots - 1 : pieces - 1;
            if (__atomic_load_n(&shm_slot(o->area, last % slots)->stamp, __ATOMIC_ACQUIRE) != shm_stamp(o->gen, last))
                return 0;
        }
        memcpy((uint8_t *)o->dst + o->chunk * SHM_CHUNK, shm_data(o->area, s), shm_piece_len(o, o->chunk));
        __atomic_add_fetch(&h->acks, 1, __ATOMIC_RELEASE);
    }
    finish(o);
    return 1;
}

/* The down phase of a broadcast of several pieces, at a rank other than the root: each
 * piece goes on to the children as soon as it and all before it have arrived, rather
 * than once the whole message has (the pieces of one message cross each link in
 * order, so a deep tree costs one message time plus a piece time per level). */
static int step_down_pipelined(collop_t *o, gex_Rank_t rel, gex_Rank_t parent) {
    gex_TM_t tm = o->tm;
    gex_Rank_t n = tm->_size;
    size_t contig = 0, total = npieces(o->nbytes);
    inmsg_t *m = inbox_peek(tm, o->seq, TAG_DOWN, parent, &contig);
    if (!m) return 0;
    if (m->total != o->nbytes)
        gasneti_fatalerror("gex_Coll_BroadcastNB: %zu bytes arrived for a broadcast of %zu (nbytes must be the same on "
                           "every rank)", m->total, o->nbytes);
    for (; o->fwd < contig; o->fwd++)
        for (gex_Rank_t k = lowbit(rel, n) >> 1; k; k >>= 1) /* largest subtree first */
            if (rel + k < n) coll_send_piece(tm, o->seq, TAG_DOWN, (rel + k + o->root) % n, m->buf, m->total, o->fwd);
    if (o->fwd < total) return 0;
    inbox_remove(m);
    if (o->dst) memcpy(o->dst, m->buf, m->total);
    inmsg_free(m);
    finish(o);
    return 1;
}

/* The down phase from o->root of o->acc (acc_len bytes), or of what arrives from the
 * parent; the result goes to dst (when there is one). Returns 0 while waiting. */
static int step_down(collop_t *o) {
    if (o->shm) return o->tm->_rank == o->root ? shm_root(o) : shm_member(o);
    gex_TM_t tm = o->tm;
    gex_Rank_t n = tm->_size, rel = (tm->_rank + n - o->root) % n;
    inmsg_t *m = NULL;
    const uint8_t *data;
    size_t len;
    if (rel) {
        gex_Rank_t parent = (rel - lowbit(rel, n) + o->root) % n;
        if (o->kind == K_BCAST && npieces(o->nbytes) > 1) return step_down_pipelined(o, rel, parent);
        if (!(m = inbox_take(tm, o->seq, TAG_DOWN, parent))) return 0;
        data = m->buf, len = m->total;
        size_t want = o->kind == K_GATHER_ALL ? (size_t)n * o->nbytes : o->kind == K_BCAST ? o->nbytes : o->acc_len;
        if (len != want)
            gasneti_fatalerror("collectives: %zu bytes arrived from rank %u where %zu were expected (the sizes must be "
                               "the same on every rank)", len, (unsigned)parent, want);
    } else {
        data = o->acc ? o->acc : (const uint8_t *)o->src;
        len = o->acc ? o->acc_len : o->nbytes;
    }
    for (gex_Rank_t k = lowbit(rel, n) >> 1; k; k >>= 1) /* largest subtree first */
        if (rel + k < n) coll_send(tm, o->seq, TAG_DOWN, (rel + k + o->root) % n, data, len);
    if (o->dst && len && o->dst != (void *)data) memcpy(o->dst, data, len);
    if (m) inmsg_free(m);
    finish(o);
    return 1;
}

/* The up phase toward rank 0. Returns 0 while waiting for a child. */
static int step_up(collop_t *o) {
    gex_TM_t tm = o->tm;
    gex_Rank_t n = tm->_size, r = tm->_rank, lb = lowbit(r, n);
    if (o->src) { /* a gather's own block, read once the operation runs (after a barrier before it) */
        if (o->nbytes) memcpy(o->acc, o->src, o->nbytes);
        o->src = NULL;
    }
    for (; o->child_k < lb && r + o->child_k < n; o->child_k <<= 1) {
        gex_Rank_t c = r + o->child_k;
        inmsg_t *m = inbox_take(tm, o->seq, TAG_UP, c);
        if (!m) return 0;
        if (o->kind == K_GATHER_ALL || o->kind == K_GATHER) {
            gex_Rank_t lc = lowbit(c, n), span = c + lc < n ? lc : n - c;
            if (m->total != (size_t)span * o->nbytes)
                gasneti_fatalerror("collectives: %zu bytes arrived from rank %u for a gather of %zu bytes per rank "
                                   "(nbytes must be the same on every rank)", m->total, (unsigned)c, o->nbytes);
            memcpy(o->acc + (size_t)(c - r) * o->nbytes, m->buf, m->total);
        } else if (o->kind != K_BARRIER) { /* reduction: acc (ranks [r, c)) (+) child (ranks [c, ...)) */
            combine(o, o->acc, m->buf);
            free(o->acc);
            o->acc = m->buf;
            m->buf = NULL;
        }
        inmsg_free(m);
    }
    if (r) { /* the subtree is complete: up to the parent */
        coll_send(tm, o->seq, TAG_UP, r - lb, o->acc, o->acc_len);
        free(o->acc);
        o->acc = NULL;
        if ((o->kind == K_REDUCE_ONE || o->kind == K_GATHER) && r != o->root) {
            finish(o);
            return 1;
        }
        o->phase = 1;
        return 1;
    }
    /* rank 0 holds the result */
    if (o->kind == K_REDUCE_ONE || o->kind == K_GATHER) {
        if (o->root == 0) memcpy(o->dst, o->acc, o->acc_len);
        else coll_send(tm, o->seq, TAG_DOWN, o->root, o->acc, o->acc_len);
        finish(o);
        return 1;
    }
    o->phase = 1;
    return 1;
}

/* ReduceToOne or gather at a root other than 0: the result comes straight from rank 0 */
static int step_root_receive(collop_t *o) {
    inmsg_t *m = inbox_take(o->tm, o->seq, TAG_DOWN, 0);
    if (!m) return 0;
    size_t want = o->kind == K_GATHER ? (size_t)o->tm->_size * o->nbytes : o->acc_len;
    if (m->total != want)
        gasneti_fatalerror("collectives: %zu bytes arrived at the root for a result of %zu", m->total, want);
    memcpy(o->dst, m->buf, m->total);
    inmsg_free(m);
    finish(o);
    return 1;
}

/* Scatter: the root holds the n blocks in relative rank order (block i for relative rank
 * i); a rank receives the blocks of its subtree [rel, rel + span) from its parent, keeps
 * the first and hands each child the blocks of the child's subtree. */
static int step_scatter(collop_t *o) {
    gex_TM_t tm = o->tm;
    gex_Rank_t n = tm->_size, rel = (tm->_rank + n - o->root) % n, lb = lowbit(rel, n);
    gex_Rank_t span = rel + lb < n ? lb : n - rel;
    inmsg_t *m = NULL;
    if (!rel) { /* the root: its blocks in relative rank order, read once the operation runs */
        size_t len = (size_t)n * o->nbytes;
        if (!(o->acc = malloc(len ? len : 1))) gasneti_fatalerror("collectives: out of memory for %zu bytes", len);
        for (gex_Rank_t i = 0; i < n && o->nbytes; i++)
            memcpy(o->acc + (size_t)i * o->nbytes, (const uint8_t *)o->src + (size_t)((i + o->root) % n) * o->nbytes,
                   o->nbytes);
    }
    const uint8_t *data = o->acc;
    if (rel) {
        if (!(m = inbox_take(tm, o->seq, TAG_DOWN, (rel - lb + o->root) % n))) return 0;
        if (m->total != (size_t)span * o->nbytes)
            gasneti_fatalerror("collectives: %zu bytes arrived for a scatter of %u blocks of %zu (nbytes must be the "
                               "same on every rank)", m->total, (unsigned)span, o->nbytes);
        data = m->buf;
    }
    for (gex_Rank_t k = lb >> 1; k; k >>= 1) /* largest subtree first; the child's is [rel + k, rel + 2k) */
        if (rel + k < n) {
            gex_Rank_t end = 2 * k < n - rel ? 2 * k : n - rel;
            coll_send(tm, o->seq, TAG_DOWN, (rel + k + o->root) % n, data + (size_t)k * o->nbytes,
                      (size_t)(end - k) * o->nbytes);
        }
    if (o->nbytes) memcpy(o->dst, data, o->nbytes);
    if (m) inmsg_free(m);
    finish(o);
    return 1;
}

/* Exchange: a rank sends block j of its source to rank j (j = r + 1, r + 2, ...: each rank
 * receives from a different one in each round), all before it writes any of its
 * destination, then files block j of the destination as it arrives from rank j. */
static int step_exchange(collop_t *o) {
    gex_TM_t tm = o->tm;
    gex_Rank_t n = tm->_size, r = tm->_rank;
    size_t nb = o->nbytes;
    if (!o->fwd) {
        for (gex_Rank_t k = 1; k < n; k++)
            coll_send(tm, o->seq, TAG_DOWN, (r + k) % n, (const uint8_t *)o->src + (size_t)((r + k) % n) * nb, nb);
        if (nb) memmove((uint8_t *)o->dst + (size_t)r * nb, (const uint8_t *)o->src + (size_t)r * nb, nb);
        o->fwd = 1;
        o->chunk = 1;
    }
    for (; o->chunk < n; o->chunk++) {
        gex_Rank_t from = (gex_Rank_t)((r + n - o->chunk) % n);
        inmsg_t *m = inbox_take(tm, o->seq, TAG_DOWN, from);
        if (!m) return 0;
        if (m->total != nb)
            gasneti_fatalerror("collectives: %zu bytes arrived from rank %u for an exchange of %zu bytes per rank "
                               "(nbytes must be the same on every rank)", m->total, (unsigned)from, nb);
        if (nb) memcpy((uint8_t *)o->dst + (size_t)from * nb, m->buf, nb);
        inmsg_free(m);
    }
    finish(o);
    return 1;
}

static int step(collop_t *o) {
    if (o->shmred) return shmred_step(o);
    if (o->phase == 0) return step_up(o);
    if (o->kind == K_REDUCE_ONE || o->kind == K_GATHER) return step_root_receive(o);
    if (o->kind == K_SCATTER) return step_scatter(o);
    if (o->kind == K_EXCHANGE) return step_exchange(o);
    return step_down(o);
}

void gasnete_coll_progress(void) {
    if (!__atomic_load_n(&coll_live, __ATOMIC_ACQUIRE)) return; /* the barrier's polls: no lock */
    if (__atomic_exchange_n(&coll_busy, 1, __ATOMIC_ACQUIRE)) return;
    gex_HSL_Lock(&inbox_lock);
    if (new_ops) { /* append the newly started, keeping start order */
        collop_t **tail = &active;
        while (*tail) tail = &(*tail)->next;
        *tail = new_ops;
        new_ops = NULL;
        new_tail = &new_ops;
    }
    gex_HSL_Unlock(&inbox_lock);
    for (collop_t **pp = &active; *pp;) {
        collop_t *o = *pp;
        while (o->phase < 2 && step(o)) {
        }
        if (o->phase == 2 && o->then) { /* a chain: the next operation takes its place */
            *pp = o->then;
            o->then->next = o->next;
            free(o);
        } else if (o->phase == 2) {
            *pp = o->next;
            free(o);
            __atomic_sub_fetch(&coll_live, 1, __ATOMIC_RELEASE);
            __atomic_sub_fetch(&gasneti_progress_needed, 1, __ATOMIC_RELAXED);
        } else {
            pp = &o->next;
        }
    }
    __atomic_store_n(&coll_busy, 0, __ATOMIC_RELEASE);
}

/* numbers o in the team's order (every rank starts the team's operations in the same order) */
static void number(collop_t *o) {
    o->seq = __atomic_fetch_add(&o->tm->_coll_seq, 1, __ATOMIC_RELAXED);
    o->child_k = 1;
}

/* Starts o, then (a chain) each o->then in turn; the last one completes ev (a new event
 * when NULL, else one more operation on ev). The operations are numbered by the caller. */
static gex_Event_t start_chain(collop_t *o, gex_Event_t ev) {
    collop_t *last = o;
    while (last->then) last = last->then;
    if (ev) gasneti_counter_add(&ev->pending);
    else ev = gasneti_event_new(1);
    last->ev = ev;
    __atomic_add_fetch(&gasneti_progress_needed, 1, __ATOMIC_RELAXED);
    gex_HSL_Lock(&inbox_lock);
    *new_tail = o;
    new_tail = &o->next;
    gex_HSL_Unlock(&inbox_lock);
    __atomic_add_fetch(&coll_live, 1, __ATOMIC_RELEASE);
    gasnete_coll_progress();
    return ev;
}

/* a new operation on tm, numbered in the team's order; o's fields are set by the caller */
static gex_Event_t start(collop_t *o) {
    number(o);
    return start_chain(o, NULL);
}

static collop_t *new_op(gex_TM_t tm, int kind, const char *call) {
    GASNETI_CHECK_INIT(call);
    GASNETI_CHECK_NOT_IN_HANDLER(call);
    if (!tm || tm->_size == 0) gasneti_fatalerror("%s: invalid team", call);
    if (tm->_flags & GASNETI_TM_PAIR) gasneti_fatalerror("%s: a gex_TM_Pair() team cannot be used for collectives", call);
    collop_t *o = calloc(1, sizeof(*o));
    if (!o) gasneti_fatalerror("%s: out of memory", call);
    o->tm = tm;
    o->kind = kind;
    return o;
}

static uint8_t *xdup(const void *p, size_t n, const char *call) {
    uint8_t *b = malloc(n ? n : 1);
    if (!b) gasneti_fatalerror("%s: out of memory for %zu bytes", call, n);
    if (n) memcpy(b, p, n);
    return b;
}

gex_Event_t gasnete_coll_barrier(gex_TM_t tm) {
    collop_t *o = new_op(tm, K_BARRIER, "gex_Coll_BarrierNB");
    return start(o);
}

/* gather (to root) and all-gather: the up phase starts from this rank's own block */
static collop_t *gather_op(gex_TM_t tm, int kind, gex_Rank_t root, void *dst, const void *src, size_t nbytes,
                           const char *call) {
    collop_t *o = new_op(tm, kind, call);
    gex_Rank_t n = tm->_size, r = tm->_rank, lb = lowbit(r, n);
    gex_Rank_t span = r + lb < n ? lb : n - r;
    o->root = root;
    o->nbytes = nbytes;
    o->acc_len = (size_t)span * nbytes;
    o->acc = malloc(o->acc_len ? o->acc_len : 1);
    if (!o->acc) gasneti_fatalerror("collectives: out of memory for a %zu-byte gather", o->acc_len);
    o->src = src; /* copied to acc when the up phase starts */
    o->dst = dst;
    return o;
}

gex_Event_t gasnete_coll_gather_all(gex_TM_t tm, void *dst, const void *src, size_t nbytes) {
    return start(gather_op(tm, K_GATHER_ALL, 0, dst, src, nbytes, "gasnete_coll_gather_all"));
}

/* a rooted collective's root, checked in every build */
static void check_root(gex_TM_t tm, gex_Rank_t root, const char *call) {
    if (GASNETI_UNLIKELY(root >= tm->_size))
        gasneti_fatalerror("%s: root %u is not a rank of the team (size %u)", call, (unsigned)root, (unsigned)tm->_size);
}

static collop_t *bcast_op(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src, size_t nbytes,
                          const char *call) {
    collop_t *o = new_op(tm, K_BCAST, call);
    check_root(tm, root, call);
    if (nbytes > UINT32_MAX) gasneti_fatalerror("%s: nbytes=%zu is above 4 GiB - 1", call, nbytes);
    o->phase = 1;
    o->root = root;
    o->dst = dst;
    o->src = src;
    o->nbytes = nbytes;
    o->shm = nbytes >= SHM_MIN && gasnete_coll_team_on_host(tm);
    return o;
}

gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src, size_t nbytes,
                                 gex_Flags_t flags) {
    if (flags) gasneti_fatalerror("gex_Coll_BroadcastNB: flags must be 0 (got 0x%x)", (unsigned)flags);
    return start(bcast_op(tm, root, dst, src, nbytes, "gex_Coll_BroadcastNB"));
}

/* the data movement of one GASNet-1 collective (gasnete_internal.h) */
static collop_t *move_op(gex_TM_t tm, int what, gex_Rank_t root, void *dst, const void *src, size_t nbytes,
                         const char *call) {
    gex_Rank_t n = tm->_size;
    check_root(tm, root, call);
    if (what != GASNETE_COLL_BROADCAST && nbytes > UINT32_MAX / n)
        gasneti_fatalerror("%s: %u blocks of %zu bytes is above 4 GiB - 1", call, (unsigned)n, nbytes);
    switch (what) {
    case GASNETE_COLL_BROADCAST: return bcast_op(tm, root, dst, src, nbytes, call);
    case GASNETE_COLL_GATHER: return gather_op(tm, K_GATHER, root, dst, src, nbytes, call);
    case GASNETE_COLL_GATHER_ALL: return gather_op(tm, K_GATHER_ALL, 0, dst, src, nbytes, call);
    case GASNETE_COLL_SCATTER: {
        collop_t *o = new_op(tm, K_SCATTER, call);
        o->phase = 1, o->root = root, o->dst = dst, o->src = src, o->nbytes = nbytes;
        return o;
    }
    case GASNETE_COLL_EXCHANGE: {
        collop_t *o = new_op(tm, K_EXCHANGE, call);
        o->phase = 1, o->dst = dst, o->src = src, o->nbytes = nbytes;
        return o;
    }
    default: gasneti_fatalerror("%s: unknown collective %d", call, what);
    }
}

gex_Event_t gasnete_coll_move(gex_TM_t tm, int what, gex_Rank_t root, void *dst, const void *src, size_t nbytes,
                              int sync, gex_Event_t ev, const char *call) {
    collop_t *in = NULL, *data, *out = NULL;
    if (sync & GASNETE_COLL_BARRIER_BEFORE) {
        in = new_op(tm, K_BARRIER, call);
        number(in);
    }
    data = move_op(tm, what, root, dst, src, nbytes, call);
    number(data);
    if (sync & GASNETE_COLL_BARRIER_AFTER) {
        out = new_op(tm, K_BARRIER, call);
        number(out);
        data->then = out;
    }
    if (in) in->then = data;
    return start_chain(in ? in : data, ev);
}

static collop_t *reduce_op(gex_TM_t tm, int kind, gex_Rank_t root, void *dst, const void *src, gex_DT_t dt,
                           size_t dt_sz, size_t dt_cnt, gex_OP_t op, gex_Coll_ReduceFn_t fn, void *cdata,
                           gex_Flags_t flags, const char *call) {
    collop_t *o = new_op(tm, kind, call);
    check_root(tm, root, call);
    if (flags) gasneti_fatalerror("%s: flags must be 0 (got 0x%x)", call, (unsigned)flags);
    int user = op == GEX_OP_USER || op == GEX_OP_USER_NC;
    int is_int = gasnete_dt_size(dt) && dt != GEX_DT_FLT && dt != GEX_DT_DBL;
    if (dt == GEX_DT_USER) {
        if (!dt_sz) gasneti_fatalerror("%s: GEX_DT_USER needs a non-zero dt_sz", call);
        if (!user) gasneti_fatalerror("%s: GEX_DT_USER needs GEX_OP_USER or GEX_OP_USER_NC (got op 0x%x)", call, (unsigned)op);
    } else if (!gasnete_dt_size(dt)) {
        gasneti_fatalerror("%s: data type 0x%x is not a GEX_DT_* constant", call, (unsigned)dt);
    } else if (dt_sz != gasnete_dt_size(dt)) {
        gasneti_fatalerror("%s: dt_sz=%zu, but %s is %zu bytes", call, dt_sz, gasnete_dt_name(dt), gasnete_dt_size(dt));
    }
    if (!user && op != GEX_OP_ADD && op != GEX_OP_MULT && op != GEX_OP_MIN && op != GEX_OP_MAX &&
        !(is_int && (op == GEX_OP_AND || op == GEX_OP_OR || op == GEX_OP_XOR)))
        gasneti_fatalerror("%s: operation 0x%x is not a reduction on %s", call, (unsigned)op, gasnete_dt_name(dt));
    if (user && !fn) gasneti_fatalerror("%s: GEX_OP_USER/GEX_OP_USER_NC with a NULL user_op", call);
    if (!dt_cnt) gasneti_fatalerror("%s: dt_cnt must be non-zero", call);
    if (dt_cnt > UINT32_MAX / dt_sz) gasneti_fatalerror("%s: %zu elements of %zu bytes is above 4 GiB - 1", call, dt_cnt, dt_sz);
    o->root = kind == K_REDUCE_ONE ? root : 0;
    o->dst = dst;
    o->dt = dt, o->dt_sz = dt_sz, o->dt_cnt = dt_cnt, o->op = op, o->fn = fn, o->cdata = cdata;
    o->acc_len = dt_sz * dt_cnt;
    o->acc = xdup(src, o->acc_len, call);
    if (tm == gasneti_tm0 && tm->_size > 1 && o->acc_len <= GASNETE_SHM_REDUCE_CAP && gasnete_coll_team_on_host(tm)) {
        o->shmred = 1; /* numbered here, in start order (the same on every rank) */
        o->rseq = __atomic_fetch_add(&rstarted, 1, __ATOMIC_RELAXED);
    }
    return o;
}

gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src, gex_DT_t dt,
                                   size_t dt_sz, size_t dt_cnt, gex_OP_t op, gex_Coll_ReduceFn_t user_op,
                                   void *user_cdata, gex_Flags_t flags) {
    return start(reduce_op(tm, K_REDUCE_ONE, root, dst, src, dt, dt_sz, dt_cnt, op, user_op, user_cdata, flags,
                           "gex_Coll_ReduceToOneNB"));
}

gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt, size_t dt_sz,
                                   size_t dt_cnt, gex_OP_t op, gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                   gex_Flags_t flags) {
    return start(reduce_op(tm, K_REDUCE_ALL, 0, dst, src, dt, dt_sz, dt_cnt, op, user_op, user_cdata, flags,
                           "gex_Coll_ReduceToAllNB"));
}

/* The state dump's words on the collective whose event is ev (gasnete_diag.c): 0 if none. */
int gasnete_coll_describe(gex_Event_t ev, char *buf, size_t len) {
    static const char *const kinds[] = {"broadcast", "reduce-to-one", "reduce-to-all", "barrier",
                                        "all-gather", "gather", "scatter", "exchange"};
    if (__atomic_exchange_n(&coll_busy, 1, __ATOMIC_ACQUIRE)) return 0;
    int found = 0;
    for (const collop_t *o = active; o && !found; o = o->next) {
        const collop_t *last = o;
        while (last->then) last = last->then;
        if (last->ev != ev) continue;
        found = 1;
        snprintf(buf, len, "collective %u (a %s) of team %u (%u ranks, team rank %u): %s phase%s", (unsigned)o->seq,
                 kinds[o->kind], (unsigned)o->tm->_id, (unsigned)o->tm->_size, (unsigned)o->tm->_rank,
                 o->phase == 0 ? "up" : "down", o->shm || o->shmred ? ", in shared memory" : "");
    }
    __atomic_store_n(&coll_busy, 0, __ATOMIC_RELEASE);
    return found;
}
