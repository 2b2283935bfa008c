/* ucx_am.c: Active Messages to non-neighbors over UCP Active Messages, and the poll.
 * Layer: ucx-conduit (the network half of conduit_contract.h; start-up is ucx_init.c).
 *
 * An AM is one UCP Active Message (ucp_am_send_nbx) with id AM_REQ (requests) or AM_REP
 * (replies and credit messages), each with its own handler, so a reply is never held
 * behind requests; a message of more than COPY_MAX bytes sent whole goes with AM_REQ_KEPT
 * or AM_REP_KEPT instead, whose handlers may keep UCX's buffer (below). The message has
 * the toolkit's layout (gasneti_wire.h) behind an 8-byte prefix, the sender's rank (UCX
 * does not say who sent an AM):
 *   - inside the AM's data, whole: Shorts, Mediums, and Longs below long_min bytes
 *     (GASNET_UCX_LONG_APART, default 1024; pieces of at most 64 KiB, the core splits
 *     bigger ones) whose payload the receiver copies to its destination;
 *   - apart: a Long of long_min bytes or more goes whole (gasnetc_long_piece): its message
 *     without the payload, flagged GASNETI_WIRE_ELSEWHERE, is the AM's header, and the
 *     payload its data, sent straight from the source. UCX carries that data eagerly
 *     (the receiver copies it to the destination in the callback) or by rendezvous (the
 *     receiver has UCX fetch it into the destination: ucp_am_recv_data_nbx), whichever its
 *     protocol thresholds choose; the handler runs once the payload is in place.
 * A message of at most INLINE_MAX bytes is built on the stack and offered to UCX to
 * complete at once (UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL); one UCX will not take so, or a
 * bigger one, goes from a send slot (MAXSEND per process), freed by the send's completion.
 * Either way the source may be reused when gasnetc_am_send returns, except for a Long
 * apart, whose source UCX reads until its send completes (lc, or a wait replying only).
 *
 * Receiving: UCX runs our handler (am_arrived) inside ucp_worker_progress, which only the
 * poll calls, with the lock held. It checks the message, takes the credits it returns,
 * and keeps it: a small one (AM_REQ, AM_REP: at most COPY_MAX bytes) copied into the
 * polling call's batch, on its stack (or, outside a poll or once the batch is full, or a
 * Long's header, into the record that queues it); a bigger one UCX's own buffer (the _KEPT ids
 * are registered with UCP_AM_FLAG_PERSISTENT_DATA: returned with ucp_am_data_release
 * after delivery), or a receive buffer of ours when UCX gives data
 * only for the call, or one a rendezvous is received into. A request that may not run
 * now (a nested poll) is copied to the toolkit's queue instead (gasneti_defer_if). After
 * progress the poll takes what was kept, releases the lock, runs the handlers
 * (gasneti_wire_deliver) and gives the buffers back.
 * Flow control: CREDITS request credits per peer (the toolkit's, gasneti_credit.h: a
 * request is taken when its handler sees it), returned in any message back or in a credit
 * message (on AM_REP); so what one peer's requests hold of another is bounded, and
 * GEX_FLAG_IMMEDIATE has something to refuse on. Replies need none.
 * PAR: gasnetc_ucx_lock guards every UCX call and the state here; handlers run without it. */
#include "conduit_contract.h"
#include "ucx_internal.h"

#include <string.h>

enum { AM_REQ = 0, AM_REP = 1, AM_REQ_KEPT = 2, AM_REP_KEPT = 3 }; /* UCP AM ids (requests: even) */
#define MAXSEND 256              /* messages in send slots outstanding per process */
#define INLINE_MAX 1024          /* largest message built on the stack */
#define CREDITS 64               /* requests in flight to one peer */
#define LONG_APART 1024          /* GASNET_UCX_LONG_APART's default (docs/ucx-conduit.md) */

typedef struct {
    uint32_t src; /* the sender's rank */
    uint32_t unused;
} pre_t;
#define PRE sizeof(pre_t)
#define MSG_MAX GASNETI_WIRE_MAX(PRE, GASNETC_NET_MEDIUM)
#define HDR_MAX 128 /* a message whose payload goes apart */
/* Messages up to this size are copied at arrival: UCX's persistent-data handling costs
 * more than the copy (bench_ucx, UCX_TLS=sm,self: AM Short round trip 0.50 us copied,
 * 0.55 us with UCP_AM_FLAG_PERSISTENT_DATA) */
#define COPY_MAX HDR_MAX
_Static_assert(GASNETI_WIRE_PAYLOAD_OFF(PRE, GASNETI_AM_LONG, GASNETI_WIRE_FRAG, GASNETI_MAX_ARGS) <= HDR_MAX,
               "a Long's message without its payload fits HDR_MAX");
_Static_assert(HDR_MAX <= sizeof(((gasnetc_ucx_op_t *)0)->hdr), "an op holds a header");
_Static_assert(COPY_MAX <= HDR_MAX, "a message copied at arrival fits its arrived_t");
_Static_assert(GASNETC_NET_LONG <= GASNETC_NET_MEDIUM, "a Long piece inside a message fits a receive buffer");
_Static_assert(CREDITS <= 65535, "credits owed fit the header");
static inline gex_Rank_t msg_src(const uint8_t *msg) { return ((const pre_t *)msg)->src; }

/* ---- what the poll delivers: a kept message (lock held while queued) ---- */
typedef struct arrived_s {
    struct arrived_s *next;
    const uint8_t *msg; /* from its prefix on */
    size_t len;
    void *ucx_data;    /* UCX's buffer, released after delivery */
    uint8_t *buf;      /* a receive buffer of ours, given back after delivery */
    int is_req, apart; /* apart: msg is hdr, its payload received at its destination */
    uint64_t hdr[HDR_MAX / 8];
} arrived_t;

/* What one poll's progress kept, in arrival order: a small message (at most COPY_MAX
 * bytes) copied into the entry's msg, on the poll's own stack (so a nested poll has its
 * own and never overwrites one a handler runs in: conduit_contract.h rule 2), anything
 * else as a record (a). Arrivals outside a poll (a send's or a flush's wait) or beyond
 * BATCH in one progress go to the list (head). Saves the record, the list and a second
 * pass under the lock per message (issue 45: docs/ucx-conduit.md). */
#define BATCH 16
typedef struct {
    unsigned n;
    int recs; /* some entry is a record (the delivery needs look at the a's only then) */
    struct {
        arrived_t *a; /* a record, or NULL: the message is msg[i] */
        uint32_t len;
        int is_req;
    } e[BATCH];
    _Alignas(16) uint64_t msg[BATCH][COPY_MAX / 8]; /* (a Medium's payload stays 16-byte aligned) */
} batch_t;
static batch_t *cur_batch; /* the poll's, while it progresses; else NULL (lock held) */

static gasneti_credits_t cr;
static gasneti_slots_t pool;
static arrived_t *free_arrived, *head, *tail; /* (lock held) */
static void **free_rbufs;                     /* receive buffers of MSG_MAX bytes (lock held) */
static int send_waiting; /* a send waits for UCX (send_not_now): requests arriving are kept (lock held) */
/* does a request arriving now wait for a top-level poll (conduit_contract.h rule 2)?
 * Asked at arrival, not by every poll (issue 45) */
GASNETI_ALWAYS_INLINE int keep_requests(void) { return send_waiting || gasneti_net_nested(); }
static size_t long_min;
static int imm_ok = 1; /* UCX completes sends at once when it can (FORCE_IMM_CMPL) */
/* A peer UCX refused a send to at once (FORCE_IMM_CMPL), in this process's current poll
 * epoch: gasnetc_am_would_block then says so too, until the next poll (which may have
 * drained what held it) or a send to it that UCX takes. A poll starts a new epoch when
 * one was recorded in the current one (ATT_REFUSED): otherwise no refused_at is the
 * current epoch's, and neither the poll nor a send UCX takes need touch them (issue 45). */
static unsigned poll_epoch = 1, *refused_at;
/* What a poll must look at beyond its batch, one word an empty poll reads (issue 45):
 * messages kept on the list (head), a refusal recorded in the current epoch, or the
 * conduit not up (lock held; gasnetc_ucx_am_init clears ATT_DOWN, _fini sets it). */
enum { ATT_LIST = 1, ATT_REFUSED = 2, ATT_DOWN = 4 };
static int attention = ATT_DOWN;
/* the longest message UCX has completed at once: one no longer than it that UCX refuses
 * is refused for want of room (its short protocol takes it otherwise); a longer one may
 * be beyond that protocol, and goes by a send slot (lock held) */
static size_t imm_max;
static size_t n_inline, n_slot, n_apart, n_long_inside, n_rndv, n_prepared; /* GASNET_VERBOSEENV */
/* a send slot handed out by a Prepare (gasnetc_am_prepare): its peer, and whether its
 * request's credit is taken (lock held) */
static gex_Rank_t prep_dest[MAXSEND];
static uint8_t prep_credit[MAXSEND];

/* ---------------------------------------------------------------------------------
 * Receiving (all of it inside ucp_worker_progress, lock held)
 * --------------------------------------------------------------------------------- */
static arrived_t *arrived_get(int is_req) {
    arrived_t *a = free_arrived;
    if (a)
        free_arrived = a->next;
    else if (!(a = malloc(sizeof(*a))))
        gasneti_fatalerror("ucx-conduit: out of memory for an arrived message");
    a->next = NULL;
    a->ucx_data = NULL;
    a->buf = NULL;
    a->is_req = is_req;
    a->apart = 0;
    return a;
}

static void arrived_put(arrived_t *a) {
    if (a->ucx_data) ucp_am_data_release(gasnetc_ucx_worker, a->ucx_data);
    if (a->buf) {
        *(void **)a->buf = free_rbufs;
        free_rbufs = (void **)a->buf;
    }
    a->next = free_arrived;
    free_arrived = a;
}

static uint8_t *rbuf_get(void) {
    void **b = free_rbufs;
    if (!b) return gasneti_net_malloc(MSG_MAX, "a receive buffer");
    free_rbufs = *b;
    return (uint8_t *)b;
}

/* a kept message, for the poll to deliver, unless it is a request a nested poll keeps in
 * the toolkit's queue (then copied there and released) */
static void ready(arrived_t *a) {
    if (gasneti_defer_if(a->is_req && keep_requests(), a->is_req, msg_src(a->msg), a->msg, a->len)) {
        arrived_put(a);
        return;
    }
    batch_t *b = cur_batch;
    if (b && b->n < BATCH) {
        b->recs = 1;
        b->e[b->n].a = a;
        b->e[b->n].len = (uint32_t)a->len;
        b->e[b->n++].is_req = a->is_req;
        return;
    }
    if (tail)
        tail->next = a;
    else
        head = a;
    tail = a;
    attention |= ATT_LIST;
}

/* a checked message of len bytes (at least 16: PRE and a header) and at most COPY_MAX,
 * copied in 16-byte moves, the last one overlapping: inline, where memcpy's call cost
 * some 30 instructions per message (issue 45) */
_Static_assert(PRE + sizeof(gasneti_wire_hdr_t) >= 16, "a checked message has 16 bytes");
GASNETI_ALWAYS_INLINE void copy_small(uint8_t *to, const uint8_t *from, size_t len) {
    gasneti_assert(len >= 16 && len <= COPY_MAX);
    for (size_t at = 0; at + 16 < len; at += 16)
        memcpy(to + at, from + at, 16);
    memcpy(to + len - 16, from + len - 16, 16);
}
/* a small arrival copied into the poll's batch (which has room) */
GASNETI_ALWAYS_INLINE void batch_add(batch_t *b, const uint8_t *msg, size_t len, int is_req) {
    unsigned i = b->n++;
    copy_small((uint8_t *)b->msg[i], msg, len);
    b->e[i].a = NULL;
    b->e[i].len = (uint32_t)len;
    b->e[i].is_req = is_req;
}

/* a message from a peer, len bytes: checked; the credits it returns and the one we owe.
 * Returns 1 for a credit message (nothing else in it). */
static inline int account(const uint8_t *msg, size_t len, int is_req) {
    const gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(msg, PRE);
    const char *why = len > MSG_MAX ? "longer than any message" : gasneti_wire_check(msg, PRE, len, 0);
    if (GASNETI_UNLIKELY(why != NULL)) gasneti_wire_bad(why, len >= PRE ? msg_src(msg) : GEX_RANK_INVALID);
    gasneti_credit_arrived(&cr, msg_src(msg), h->credits, is_req);
    return (h->flags & GASNETI_WIRE_CREDIT) != 0;
}

/* a rendezvous received (lock held): a whole message into a receive buffer, or a Long's
 * payload into its destination (apart, accounted when its header arrived) */
static void rndv_done(void *request, ucs_status_t st, size_t length, void *user_data) {
    arrived_t *a = user_data;
    (void)length;
    if (request) ucp_request_free(request);
    if (st != UCS_OK) {
        if (!gasnetc_ucx_ignorable(st)) gasnetc_ucx_fail("ucp_am_recv_data_nbx (completion)", st, GEX_RANK_INVALID);
        arrived_put(a);
        return;
    }
    if (!a->apart && account(a->msg, a->len, a->is_req))
        arrived_put(a);
    else
        ready(a);
}

static ucs_status_t receive_rndv(arrived_t *a, void *desc, void *into, size_t len) {
    ucp_request_param_t p;
    p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA | UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    p.cb.recv_am = rndv_done;
    p.user_data = a;
    p.memory_type = UCS_MEMORY_TYPE_HOST;
    if (gasnetc_ucx_verbose) n_rndv++;
    ucs_status_ptr_t r = ucp_am_recv_data_nbx(gasnetc_ucx_worker, desc, into, len, &p);
    if (UCS_PTR_IS_ERR(r))
        rndv_done(NULL, UCS_PTR_STATUS(r), 0, a);
    else if (r == NULL)
        rndv_done(NULL, UCS_OK, len, a);
    return UCS_INPROGRESS; /* the descriptor is UCX's again */
}

/* a Long whose payload came apart: header (its message, flagged GASNETI_WIRE_ELSEWHERE)
 * and data, eager or by rendezvous */
static ucs_status_t arrived_apart(int is_req, const uint8_t *header, size_t hlen, void *data, size_t len,
                                  const ucp_am_recv_param_t *p) {
    const gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(header, PRE);
    const gasneti_wire_long_t *x = (const gasneti_wire_long_t *)(h + 1);
    if (hlen > HDR_MAX || hlen < PRE + sizeof(*h) + sizeof(*x) || h->category != GASNETI_AM_LONG ||
        !(h->flags & GASNETI_WIRE_ELSEWHERE) || x->nbytes != len)
        gasneti_wire_bad("a payload apart from a message that is not a Long's",
                         hlen >= PRE ? msg_src(header) : GEX_RANK_INVALID);
    account(header, hlen, is_req);
    arrived_t *a = arrived_get(is_req);
    memcpy(a->hdr, header, hlen);
    a->msg = (const uint8_t *)a->hdr;
    a->len = hlen;
    a->apart = 1;
    void *dest = (void *)(uintptr_t)x->dest_addr;
    if (p->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) return receive_rndv(a, data, dest, len);
    memcpy(dest, data, len);
    ready(a);
    return UCS_OK;
}

/* every arrival but a plain Short for the poll's batch (am_arrived) */
GASNETI_NOINLINE static ucs_status_t arrived_other(int is_req, const void *header, size_t hlen, void *data, size_t len,
                                                   const ucp_am_recv_param_t *p) {
    if (hlen) return arrived_apart(is_req, header, hlen, data, len, p);
    if (p->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) { /* a whole message by rendezvous: into a buffer */
        if (len > MSG_MAX) gasneti_wire_bad("longer than any message", GEX_RANK_INVALID);
        arrived_t *a = arrived_get(is_req);
        a->buf = rbuf_get();
        a->msg = a->buf;
        a->len = len;
        return receive_rndv(a, data, a->buf, len);
    }
    const uint8_t *msg = data;
    if (account(msg, len, is_req)) return UCS_OK; /* a credit message */
    if (gasneti_defer_if(is_req && keep_requests(), is_req, msg_src(msg), msg, len)) return UCS_OK;
    batch_t *b = cur_batch;
    if (len <= COPY_MAX && GASNETI_LIKELY(b && b->n < BATCH)) {
        batch_add(b, msg, len, is_req);
        return UCS_OK;
    }
    arrived_t *a = arrived_get(is_req);
    a->len = len;
    if (len <= COPY_MAX) { /* outside a poll, or past BATCH */
        memcpy(a->hdr, msg, len);
        a->msg = (const uint8_t *)a->hdr;
        ready(a);
        return UCS_OK;
    }
    if (p->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA) { /* UCX's buffer, ours until released */
        a->msg = msg;
        a->ucx_data = data;
        ready(a);
        return UCS_INPROGRESS;
    }
    a->buf = rbuf_get();
    memcpy(a->buf, msg, len);
    a->msg = a->buf;
    ready(a);
    return UCS_OK;
}

/* UCX's AM handler for every id (arg: non-NULL for requests). A plain Short arriving in a
 * poll with room in its batch, which it may run, is checked, accounted and copied there
 * by a function without calls, which saves no registers (issue 45); every other
 * arrival goes to arrived_other. */
static ucs_status_t am_arrived(void *arg, const void *header, size_t hlen, void *data, size_t len,
                               const ucp_am_recv_param_t *p) {
    int is_req = arg != NULL;
    batch_t *b = cur_batch;
    const uint8_t *msg = data;
    if (GASNETI_UNLIKELY(hlen || (p->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) || !b || b->n >= BATCH ||
                         (is_req && keep_requests()) || !gasneti_wire_plain_short(msg, PRE, len)))
        return arrived_other(is_req, header, hlen, data, len, p);
    gasneti_credit_arrived(&cr, msg_src(msg), GASNETI_WIRE_HDR(msg, PRE)->credits, is_req);
    batch_add(b, msg, len, is_req);
    return UCS_OK;
}

/* ---------------------------------------------------------------------------------
 * Sending
 * --------------------------------------------------------------------------------- */
/* m's message at buf (flags: the toolkit's); its length */
static uint32_t build(uint8_t *buf, const gasneti_am_msg_t *m, unsigned flags) {
    pre_t p = {gasneti_mynode, 0};
    memcpy(buf, &p, sizeof(p));
    return gasneti_wire_build(buf, PRE, m, flags, 0, 1);
}
/* the same for a message of at most INLINE_MAX bytes, inline; a Short's with what the
 * compiler knows of it (no payload, no piece) folded into the toolkit's builder */
GASNETI_ALWAYS_INLINE uint32_t build_small(uint8_t *buf, const gasneti_am_msg_t *m) {
    pre_t p = {gasneti_mynode, 0};
    memcpy(buf, &p, sizeof(p));
    if (m->category != GASNETI_AM_SHORT) return gasneti_wire_build(buf, PRE, m, 0, 0, 1);
    gasneti_am_msg_t s = gasneti_wire_short(m);
    return gasneti_wire_build(buf, PRE, &s, 0, 0, 1);
}
/* m's message's length, a Short's folded as in build_small */
GASNETI_ALWAYS_INLINE uint32_t msg_len(const gasneti_am_msg_t *m) {
    if (m->category != GASNETI_AM_SHORT) return gasneti_wire_len(PRE, m, 0, 1);
    gasneti_am_msg_t s = gasneti_wire_short(m);
    return gasneti_wire_len(PRE, &s, 0, 1);
}

/* lock held: an AM to r; data NULL for a header only */
static inline ucs_status_ptr_t am_send(gex_Rank_t r, int is_req, const void *hdr, size_t hlen, const void *data,
                                       size_t len, ucp_request_param_t *p) {
    p->op_attr_mask |= UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    p->memory_type = UCS_MEMORY_TYPE_HOST;
    unsigned id = (is_req ? AM_REQ : AM_REP) + (!hlen && len > COPY_MAX ? AM_REQ_KEPT : 0);
    return ucp_am_send_nbx(gasnetc_ucx_ep[r], id, hdr, hlen, data, len, p);
}

/* send_now's other outcomes: a request, or a refusal, or an error */
static int send_not_now(gex_Rank_t r, int is_req, ucs_status_ptr_t s);
/* the parameters of a send UCX is to complete at once (the same as am_send's, made once) */
static const ucp_request_param_t imm_param = {.op_attr_mask = UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL |
                                                              UCP_OP_ATTR_FIELD_MEMORY_TYPE,
                                              .memory_type = UCS_MEMORY_TYPE_HOST};
/* lock held: a message UCX completes at once or refuses (UCS_ERR_NO_RESOURCE: 1) */
GASNETI_ALWAYS_INLINE int send_now(gex_Rank_t r, int is_req, const void *msg, size_t len) {
    if (GASNETI_UNLIKELY(!imm_ok)) return 1;
    unsigned id = (is_req ? AM_REQ : AM_REP) + (len > COPY_MAX ? AM_REQ_KEPT : 0);
    ucs_status_ptr_t s = ucp_am_send_nbx(gasnetc_ucx_ep[r], id, NULL, 0, msg, len, &imm_param);
    if (GASNETI_LIKELY(s == NULL)) {
        if (GASNETI_UNLIKELY(attention & ATT_REFUSED) && refused_at[r]) __atomic_store_n(&refused_at[r], 0, __ATOMIC_RELAXED);
        if (GASNETI_UNLIKELY(len > imm_max)) imm_max = len;
        return 0;
    }
    return send_not_now(r, is_req, s);
}
GASNETI_NOINLINE static int send_not_now(gex_Rank_t r, int is_req, ucs_status_ptr_t s) {
    if (UCS_PTR_IS_PTR(s)) { /* (a UCX that made a request anyway: msg must outlive it) */
        int was = send_waiting; /* what arrives meanwhile is kept for a poll (requests: the toolkit's queue) */
        send_waiting = 1;
        while (ucp_request_check_status(s) == UCS_INPROGRESS)
            gasnetc_ucx_progress();
        send_waiting = was;
        ucp_request_free(s);
        return 0;
    }
    ucs_status_t st = UCS_PTR_STATUS(s);
    if (st == UCS_ERR_NO_RESOURCE) {
        __atomic_store_n(&refused_at[r], __atomic_load_n(&poll_epoch, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
        attention |= ATT_REFUSED;
        return 1;
    }
    if (st == UCS_ERR_UNSUPPORTED) { /* a UCX without it: every message from a slot */
        imm_ok = 0;
        return 1;
    }
    if (gasnetc_ucx_ignorable(st)) return 0;
    gasnetc_ucx_fail(is_req ? "ucp_am_send_nbx (a request)" : "ucp_am_send_nbx (a reply)", st, r);
}

/* lock held: send slot i's message, len bytes, to r; the slot is given back at completion.
 * 1: UCX holds it (pending, or in flight by zero copy or rendezvous) */
static int send_slot(gex_Rank_t r, int is_req, int i, size_t len) {
    gasnetc_ucx_op_t *o = gasnetc_ucx_op_get(r, is_req ? "ucp_am_send_nbx (a request)" : "ucp_am_send_nbx (a reply)");
    o->slot = i;
    ucp_request_param_t p;
    gasnetc_ucx_op_param(&p, o);
    if (gasnetc_ucx_started(am_send(r, is_req, NULL, 0, pool.slot[i].buf, len, &p), o->call, r)) return 1;
    gasnetc_ucx_op_complete(o);
    return 0;
}

void gasnetc_ucx_slot_done(int slot) { gasneti_slots_put(&pool, slot); }

/* lock held: a credit message to r (gasneti_credit_flush); 1: not now */
static int send_credit(gex_Rank_t r, unsigned n) {
    uint64_t msg[2];
    pre_t p = {gasneti_mynode, 0};
    memcpy(msg, &p, sizeof(p));
    uint32_t len = gasneti_wire_credit_msg((uint8_t *)msg, PRE, n);
    if (send_now(r, 0, msg, len) == 0) return 0;
    int i = gasneti_slots_get(&pool);
    if (i < 0) return 1;
    memcpy(gasneti_slots_buf(&pool, i, len), msg, len);
    send_slot(r, 0, i, len);
    return 0;
}

/* lock held (gasneti_lock_room): m may go as far as credits are concerned; and a send
 * slot is free too */
static int credit_room(void *m) {
    return gasneti_credit_ok(&cr, ((const gasneti_am_msg_t *)m)->jobrank, ((const gasneti_am_msg_t *)m)->is_req);
}
static int slot_room(void *m) { return gasneti_slots_avail(&pool) && credit_room(m); }

/* does Long m go apart (its payload as the AM's data)? */
static int long_apart(const gasneti_am_msg_t *m) {
    return m->category == GASNETI_AM_LONG && long_min && m->nbytes >= long_min;
}

size_t gasnetc_long_piece(const gasneti_am_msg_t *m) {
    return long_min && m->nbytes >= long_min ? GASNETC_MAX_LONG : GASNETC_NET_LONG;
}

int gasnetc_am_would_block(const gasneti_am_msg_t *m) {
    if (!gasneti_credit_peek(&cr, m->jobrank, m->is_req)) return 1;
    if (__atomic_load_n(&refused_at[m->jobrank], __ATOMIC_RELAXED) == __atomic_load_n(&poll_epoch, __ATOMIC_RELAXED))
        return 1;
    if (long_apart(m)) return 0;
    gasneti_am_msg_t first = *m; /* the first piece of a bigger one */
    if (first.nbytes > GASNETC_NET_MEDIUM) first.nbytes = GASNETC_NET_MEDIUM;
    return gasneti_wire_len(PRE, &first, 0, 1) > INLINE_MAX && gasneti_slots_peek(&pool) == 0;
}

/* from a send slot: built there (src NULL) or copied from src (len bytes, built already) */
static int send_by_slot(const gasneti_am_msg_t *m, const uint8_t *src, uint32_t len) {
    if ((m->flags & GEX_FLAG_IMMEDIATE) &&
        __atomic_load_n(&refused_at[m->jobrank], __ATOMIC_RELAXED) == __atomic_load_n(&poll_epoch, __ATOMIC_RELAXED))
        return GASNETI_AM_WOULD_BLOCK;
    if (gasneti_lock_room(&gasnetc_ucx_lock, slot_room, (void *)m, m)) return GASNETI_AM_WOULD_BLOCK;
    int i = gasneti_slots_get(&pool);
    if (m->is_req) gasneti_credit_take(&cr, m->jobrank);
    uint8_t *buf = gasneti_slots_buf(&pool, i, MSG_MAX);
    UCX_UNLOCK();
    if (src)
        memcpy(buf, src, len);
    else
        len = build(buf, m, 0);
    UCX_LOCK();
    gasneti_wire_set_credits(buf, PRE, gasneti_credit_owed(&cr, m->jobrank));
    if (send_slot(m->jobrank, m->is_req, i, len) && (m->flags & GEX_FLAG_IMMEDIATE)) { /* UCX keeps it: */
        __atomic_store_n(&refused_at[m->jobrank], poll_epoch, __ATOMIC_RELAXED);       /* the next IMMEDIATE waits */
        attention |= ATT_REFUSED;
    }
    gasneti_credit_sent(&cr, m->jobrank, 0);
    if (gasnetc_ucx_verbose) n_slot++;
    UCX_UNLOCK();
    return GASNET_OK;
}

/* a Long apart: its message as the AM's header, its payload as the data */
static int send_apart(const gasneti_am_msg_t *m, gasneti_counter_t *lc) {
    if (gasneti_lock_room(&gasnetc_ucx_lock, credit_room, (void *)m, m)) return GASNETI_AM_WOULD_BLOCK;
    if (m->is_req) gasneti_credit_take(&cr, m->jobrank);
    gasnetc_ucx_op_t *o = gasnetc_ucx_op_get(m->jobrank, m->is_req ? "ucp_am_send_nbx (a Long request)"
                                                                   : "ucp_am_send_nbx (a Long reply)");
    UCX_UNLOCK();
    gasneti_counter_t mine; /* no lc: wait here until the source may be reused */
    gasneti_atomic_set(&mine, 0);
    if (!lc) gasneti_counter_add(&mine);
    o->lc = lc ? lc : &mine;
    uint32_t hlen = build((uint8_t *)o->hdr, m, GASNETI_WIRE_ELSEWHERE);
    UCX_LOCK();
    gasneti_wire_set_credits(o->hdr, PRE, gasneti_credit_owed(&cr, m->jobrank));
    ucp_request_param_t p;
    gasnetc_ucx_op_param(&p, o);
    if (!gasnetc_ucx_started(am_send(m->jobrank, m->is_req, o->hdr, hlen, m->src, m->nbytes, &p), o->call, m->jobrank))
        gasnetc_ucx_op_complete(o);
    gasneti_credit_sent(&cr, m->jobrank, 0);
    if (gasnetc_ucx_verbose) n_apart++;
    UCX_UNLOCK();
    if (!lc) gasneti_net_wait_local(&mine);
    return GASNET_OK;
}

/* a message of at most INLINE_MAX bytes from the stack, if UCX takes it at once */
typedef struct {
    const gasneti_am_msg_t *m;
    uint8_t *buf;
    uint32_t len;
    int refused; /* UCX would not complete it at once */
} inline_t;
static int try_inline(void *arg) {
    inline_t *t = arg;
    const gasneti_am_msg_t *m = t->m;
    if (!gasneti_credit_ok(&cr, m->jobrank, m->is_req)) return 0;
    gasneti_wire_set_credits(t->buf, PRE, gasneti_credit_owed(&cr, m->jobrank));
    if (send_now(m->jobrank, m->is_req, t->buf, t->len)) {
        t->refused = 1;
        return 1;
    }
    gasneti_credit_sent(&cr, m->jobrank, m->is_req);
    return 1;
}

/* every message but a Short that goes at once (gasnetc_am_send) */
GASNETI_NOINLINE static int send_other(const gasneti_am_msg_t *m, gasneti_counter_t *lc) {
    if (m->category == GASNETI_AM_LONG) {
        if (long_apart(m)) return send_apart(m, lc);
        if (gasnetc_ucx_verbose) __atomic_fetch_add(&n_long_inside, 1, __ATOMIC_RELAXED);
    }
    gasneti_assert((m->category == GASNETI_AM_SHORT ? 0 : m->nbytes) <= GASNETC_NET_MEDIUM);
    uint32_t len = msg_len(m);
    if (len <= INLINE_MAX) {
        uint64_t buf[INLINE_MAX / 8];
        inline_t t = {m, (uint8_t *)buf, build_small((uint8_t *)buf, m), 0};
        if (gasneti_lock_room(&gasnetc_ucx_lock, try_inline, &t, m)) return GASNETI_AM_WOULD_BLOCK;
        if (gasnetc_ucx_verbose && !t.refused) n_inline++;
        UCX_UNLOCK();
        /* an IMMEDIATE one UCX refuses for want of room is refused: it would wait in UCX's
         * queue for this process's progress, which a sender that stops calling GASNet after
         * an accepted IMMEDIATE send never gives (test_immediate). One beyond UCX's short
         * protocol goes from a slot, UCX's eager copy; if UCX queues it the IMMEDIATE sends
         * after it are refused until this process polls again (send_by_slot). */
        if (t.refused && (((m->flags & GEX_FLAG_IMMEDIATE) && t.len <= imm_max) || send_by_slot(m, t.buf, t.len)))
            return GASNETI_AM_WOULD_BLOCK;
    } else if (send_by_slot(m, NULL, 0)) {
        return GASNETI_AM_WOULD_BLOCK;
    }
    if (lc) gasneti_counter_done(lc); /* copied (or sent): the source may be reused */
    return GASNET_OK;
}

/* a Short UCX refused at once (lock not held): as gasnetc_am_send's general path does */
GASNETI_NOINLINE static int short_refused(const gasneti_am_msg_t *m, const uint8_t *buf, uint32_t len,
                                          gasneti_counter_t *lc) {
    if (((m->flags & GEX_FLAG_IMMEDIATE) && len <= imm_max) || send_by_slot(m, buf, len))
        return GASNETI_AM_WOULD_BLOCK;
    if (lc) gasneti_counter_done(lc);
    return GASNET_OK;
}

/* A Short (at most SHORT_MAX bytes) built on the stack and offered to UCX at once, in a
 * function that keeps only what that needs (issue 45). One without a credit yet goes the
 * general way (send_other: waits, or refuses an IMMEDIATE one), one UCX refuses as there
 * (short_refused). */
#define SHORT_MAX (PRE + 8 + 4 * GASNETI_MAX_ARGS)
_Static_assert(SHORT_MAX % 8 == 0 && SHORT_MAX <= INLINE_MAX && SHORT_MAX <= COPY_MAX, "a Short is small");
int gasnetc_am_send(const gasneti_am_msg_t *m, gasneti_counter_t *lc) {
    if (GASNETI_UNLIKELY(m->category != GASNETI_AM_SHORT || m->nargs > GASNETI_MAX_ARGS || lc))
        return send_other(m, lc); /* (the core gives a Short no lc) */
    uint64_t buf[SHORT_MAX / 8];
    uint32_t len = build_small((uint8_t *)buf, m);
    gex_Rank_t r = m->jobrank;
    int is_req = m->is_req;
    UCX_LOCK();
    if (GASNETI_UNLIKELY(!gasneti_credit_ok(&cr, r, is_req))) {
        UCX_UNLOCK();
        return send_other(m, lc);
    }
    gasneti_wire_set_credits(buf, PRE, gasneti_credit_owed(&cr, r));
    if (GASNETI_UNLIKELY(send_now(r, is_req, buf, len))) {
        UCX_UNLOCK();
        return short_refused(m, (const uint8_t *)buf, len, NULL);
    }
    gasneti_credit_sent(&cr, r, is_req);
    if (gasnetc_ucx_verbose) n_inline++;
    UCX_UNLOCK();
    return GASNET_OK;
}

/* ---- negotiated payload (GASNETC_AM_PREPARE): a Medium the client writes in a send
 * slot, where the message is built around it and from which ucp_am_send_nbx sends it
 * (send_slot): the copy of the payload into the slot that a fixed-payload Medium makes is
 * saved. Only where a slot is used anyway: a message of at most INLINE_MAX bytes goes
 * from the stack. Mediums only (a big Long's payload goes apart, straight from the
 * client's buffer). ---- */
void *gasnetc_am_prepare(const gasneti_am_msg_t *m, size_t least, size_t most, size_t *size, gasneti_am_prep_t *h) {
    if (m->category != GASNETI_AM_MEDIUM) return NULL;
    gasneti_am_msg_t biggest = *m;
    biggest.frag = NULL;
    biggest.nbytes = most < GASNETC_NET_MEDIUM ? most : GASNETC_NET_MEDIUM;
    if (biggest.nbytes < least || gasneti_wire_len(PRE, &biggest, 0, 1) <= INLINE_MAX) return NULL;
    if ((m->flags & GEX_FLAG_IMMEDIATE) &&
        __atomic_load_n(&refused_at[m->jobrank], __ATOMIC_RELAXED) == __atomic_load_n(&poll_epoch, __ATOMIC_RELAXED))
        return NULL;
    if (gasneti_lock_room(&gasnetc_ucx_lock, slot_room, &biggest, &biggest)) return NULL; /* IMMEDIATE */
    int i = gasneti_slots_get(&pool);
    if (m->is_req) gasneti_credit_take(&cr, m->jobrank);
    uint8_t *buf = gasneti_slots_buf(&pool, i, MSG_MAX);
    prep_dest[i] = m->jobrank;
    prep_credit[i] = m->is_req;
    UCX_UNLOCK();
    h->h = i;
    *size = biggest.nbytes;
    return buf + GASNETI_WIRE_PAYLOAD_OFF(PRE, GASNETI_AM_MEDIUM, 0, m->nargs);
}

void gasnetc_am_commit(const gasneti_am_msg_t *m, gasneti_am_prep_t *h) {
    int i = (int)h->h;
    uint8_t *buf = pool.slot[i].buf; /* (made by the Prepare) */
    gasneti_assert(m->src == buf + GASNETI_WIRE_PAYLOAD_OFF(PRE, GASNETI_AM_MEDIUM, 0, m->nargs));
    uint32_t len = build(buf, m, 0); /* around the payload, which stays in place */
    UCX_LOCK();
    prep_credit[i] = 0;
    gasneti_wire_set_credits(buf, PRE, gasneti_credit_owed(&cr, m->jobrank));
    send_slot(m->jobrank, m->is_req, i, len);
    gasneti_credit_sent(&cr, m->jobrank, 0); /* (a request's credit was taken by the Prepare) */
    if (gasnetc_ucx_verbose) n_slot++, n_prepared++;
    UCX_UNLOCK();
}

void gasnetc_am_cancel(gasneti_am_prep_t *h) {
    int i = (int)h->h;
    UCX_LOCK();
    if (prep_credit[i]) gasneti_credit_give_back(&cr, prep_dest[i]);
    prep_credit[i] = 0;
    gasneti_slots_put(&pool, i);
    UCX_UNLOCK();
}

/* ---------------------------------------------------------------------------------
 * The poll
 * --------------------------------------------------------------------------------- */
/* the toolkit's decoding (gasneti_wire_deliver, which takes a Short on a path of its own) */
GASNETI_ALWAYS_INLINE void deliver_one(const uint8_t *msg, size_t len, int is_req) {
    gasneti_wire_deliver(msg, PRE, len, msg_src(msg), is_req);
}
GASNETI_ALWAYS_INLINE int deliver_list(arrived_t *a) {
    int n = 0;
    for (; a; a = a->next, n++)
        deliver_one(a->msg, a->len, a->is_req);
    return n;
}
static void put_list(arrived_t *a) {
    for (arrived_t *next; a; a = next) {
        next = a->next;
        arrived_put(a);
    }
}
/* runs what a poll took, when some of it is records: those kept before its progress
 * (early), its batch, those kept during it (late); then gives the records back */
GASNETI_NOINLINE static int deliver_recs(batch_t *b, arrived_t *early, arrived_t *late) {
    int n = deliver_list(early);
    for (unsigned i = 0; i < b->n; i++) {
        const uint8_t *msg = b->e[i].a ? b->e[i].a->msg : (const uint8_t *)b->msg[i];
        deliver_one(msg, b->e[i].len, b->e[i].is_req);
    }
    n += (int)b->n + deliver_list(late);
    UCX_LOCK();
    put_list(early);
    for (unsigned i = 0; i < b->n; i++)
        if (b->e[i].a) arrived_put(b->e[i].a);
    put_list(late);
    UCX_UNLOCK();
    return n + gasneti_defer_run_here(PRE);
}
/* the common case: a batch of copies only. Out of line (an empty poll stays short), and
 * apart from deliver_recs, so that it holds one copy of the dispatch (issue 45) */
GASNETI_NOINLINE static int deliver(batch_t *b) {
    unsigned n = b->n;
    for (unsigned i = 0; i < n; i++)
        deliver_one((const uint8_t *)b->msg[i], b->e[i].len, b->e[i].is_req);
    return (int)n + gasneti_defer_run_here(PRE);
}
/* one message, the round trip's case, with less to keep across the handler's call */
GASNETI_NOINLINE static int deliver1(batch_t *b) {
    deliver_one((const uint8_t *)b->msg[0], b->e[0].len, b->e[0].is_req);
    return 1 + gasneti_defer_run_here(PRE);
}

/* a poll's start when attention is set: a new epoch after a refusal; the list kept
 * before this poll (early) taken */
GASNETI_NOINLINE static arrived_t *poll_start(void) {
    if (attention & ATT_REFUSED)
        __atomic_store_n(&poll_epoch, poll_epoch + 1 ? poll_epoch + 1 : 1, __ATOMIC_RELAXED);
    arrived_t *early = head;
    head = tail = NULL;
    attention &= ~(ATT_LIST | ATT_REFUSED);
    return early;
}
/* a poll's end when something beyond its batch of copies needs doing (lock held on entry,
 * released): the list kept during it (late), credit messages, an endpoint failure, then
 * the delivery with records */
GASNETI_NOINLINE static int poll_end(batch_t *b, arrived_t *early) {
    arrived_t *late = NULL;
    if (attention & ATT_LIST) {
        late = head;
        head = tail = NULL;
        attention &= ~ATT_LIST;
    }
    if (cr.ndue) gasneti_credit_flush(&cr, send_credit);
    UCX_UNLOCK();
    if (GASNETI_UNLIKELY(gasnetc_ucx_ep_failed)) gasnetc_ucx_report_ep_failure();
    if (early || late || b->recs) return deliver_recs(b, early, late);
    if (!b->n) return gasneti_defer_run_here(PRE);
    return deliver(b);
}

/* An empty poll reads attention, the credits due and the endpoint-failure flag besides
 * UCX's progress (issue 45: a shorter empty poll is a shorter wait for what arrives). */
GASNETI_ALWAYS_INLINE int ucx_poll(void) {
    batch_t b;
    b.n = 0;
    b.recs = 0;
    arrived_t *early = NULL;
    UCX_LOCK();
    if (GASNETI_UNLIKELY(attention)) {
        if (attention & ATT_DOWN) {
            UCX_UNLOCK();
            return 0;
        }
        early = poll_start();
    }
    cur_batch = &b;
    gasnetc_ucx_progress();
    cur_batch = NULL;
    if (GASNETI_UNLIKELY(early || attention || b.recs || cr.ndue || gasnetc_ucx_ep_failed))
        return poll_end(&b, early);
    UCX_UNLOCK();
    if (!b.n) return gasneti_defer_run_here(PRE);
    return b.n == 1 ? deliver1(&b) : deliver(&b);
}

int gasnetc_poll(void) { return ucx_poll(); }

/* ---------------------------------------------------------------------------------
 * Start-up and shut-down
 * --------------------------------------------------------------------------------- */
/* the state dump's lines (gasneti_watchdog.c): racy reads, no lock */
static int diag_peer(gex_Rank_t r, char *buf, size_t len) {
    size_t at;
    int busy = gasneti_credit_diag(&cr, r, buf, len);
    int refused = refused_at && __atomic_load_n(&refused_at[r], __ATOMIC_RELAXED) == poll_epoch;
    if (!busy && !refused && gasnetc_ucx_ep[r]) return 0;
    at = strlen(buf);
    snprintf(buf + at, len - at, "%sUCX endpoint %s%s", at ? "; " : "",
             !gasnetc_ucx_ep[r] ? "not created" : gasnetc_ucx_ep_failed ? "created (an endpoint of this process failed)"
                                                                        : "connected",
             refused ? ", refused a send at once in this poll (no room)" : "");
    return 1;
}
static void diag_lines(void (*line)(const char *fmt, ...)) {
    line("UCX %s: %d of %d send slots free; sends: %zu inline, %zu by slot, %zu payloads apart, %zu rendezvous; "
         "endpoint failure: %s", ucp_get_version_string(), gasneti_slots_peek(&pool), MAXSEND, n_inline, n_slot, n_apart,
         n_rndv, gasnetc_ucx_ep_failed ? "yes" : "none");
}
static const gasneti_diag_conduit_t diag = {diag_peer, diag_lines};

void gasnetc_ucx_am_init(void) {
    gasneti_diag_register(&diag);
    int64_t lm = gasneti_getenv_int("GASNET_UCX_LONG_APART", LONG_APART);
    if (lm < 0) gasneti_launch_error("GASNET_UCX_LONG_APART=%lld: a number of bytes, 0 (never) or more", (long long)lm);
    long_min = gasnetc_ucx_max_am_header >= HDR_MAX ? (size_t)lm : 0;
    if (long_min && long_min < 64) long_min = 64; /* (smaller ones are cheaper inside) */
    gasneti_credits_init(&cr, CREDITS);
    refused_at = calloc(gasneti_nodes, sizeof(unsigned));
    if (!refused_at) gasneti_fatalerror("ucx-conduit: out of memory for %u peers", (unsigned)gasneti_nodes);
    gasneti_slots_init(&pool, MAXSEND, MSG_MAX, NULL, NULL);
    for (int id = AM_REQ; id <= AM_REP_KEPT; id++) {
        ucp_am_handler_param_t h;
        h.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                       UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
        h.id = (unsigned)id;
        h.flags = UCP_AM_FLAG_WHOLE_MSG | (id >= AM_REQ_KEPT ? UCP_AM_FLAG_PERSISTENT_DATA : 0);
        h.cb = am_arrived;
        h.arg = id % 2 == AM_REQ ? (void *)(uintptr_t)1 : NULL;
        ucs_status_t st = ucp_worker_set_am_recv_handler(gasnetc_ucx_worker, &h);
        if (st != UCS_OK) gasnetc_ucx_fail("ucp_worker_set_am_recv_handler", st, GEX_RANK_INVALID);
    }
    attention &= ~ATT_DOWN; /* (start-up is one thread: nobody polls before the network is up) */
}

/* lock held, at shut-down: what was kept and never delivered goes back to UCX */
void gasnetc_ucx_am_fini(void) {
    for (arrived_t *a = head, *next; a; a = next) {
        next = a->next;
        arrived_put(a);
    }
    head = tail = NULL;
    attention = ATT_DOWN;
}

void gasnetc_ucx_am_say(void) {
    fprintf(stderr,
            "ucx-conduit: rank %u sent %zu AM(s) from the stack, %zu from send slots (%zu Medium(s) prepared in "
            "place), %zu Long(s) with the payload apart (GASNET_UCX_LONG_APART=%zu), %zu inside messages; received "
            "%zu by rendezvous\n",
            (unsigned)gasneti_mynode, n_inline, n_slot, n_prepared, n_apart, long_min, n_long_inside, n_rndv);
}
