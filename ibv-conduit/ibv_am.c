/* ibv_am.c: Active Messages to non-neighbors over InfiniBand verbs, and the poll of the
 * one completion queue. Layer: ibv-conduit (the network half of conduit_contract.h:
 * gasnetc_am_send, gasnetc_poll; start-up is ibv_init.c, QPs ibv_connect.c).
 *
 * An AM is one SEND on the RC QP to its peer: an 8-byte prefix (the sender's rank, the
 * kind: request, reply, or a bounce buffer's release; the SEND's number on the QP, which
 * catches a verbs stack that delivers one twice or loses one) and the toolkit's layout
 * (gasneti_wire.h). A message of at most the QP's inline size goes inline from the
 * stack; a bigger one is copied into a registered send slot (MAXSEND per process, freed
 * by its completion). Either way the source may be reused at once.
 * Receives: one shared receive queue (SRQ) of buffers that hold a message with
 * GASNETC_NET_MEDIUM (4 KiB) of payload, for every QP. A handler runs in place in its
 * buffer, which is posted again once it returns; a request that may not run now (a
 * nested poll) is copied (gasneti_defer_if) and its buffer posted again at once.
 * Bigger payloads:
 *   - a Medium above 4 KiB (gasnetc_medium_piece: every Medium goes whole): the sender
 *     copies the payload into one of its registered 64 KiB bounce buffers and sends the
 *     header alone, flagged GASNETI_WIRE_ELSEWHERE, with the buffer's address and rkey in
 *     the Long fields (dest_addr, aux) and its index in the prefix; the receiver reads
 *     the payload by RDMA READ into a buffer of its own (NREAD of them, never lent, so
 *     that reads always progress), copies it into a buffer of
 *     the core's pool (gasneti_wire_elsewhere), sends the sender a release naming the
 *     index (the sender's buffer is free again) and runs the handler.
 *   - a Long above 4 KiB into the peer's registered segment (gasnetc_long_piece: whole,
 *     up to GASNETC_MAX_LONG): an RDMA WRITE of the payload (from the segment's
 *     registration, or from a bounce buffer: then up to 64 KiB a piece), and the header
 *     flagged GASNETI_WIRE_ELSEWHERE chained behind it on the same QP, which delivers it
 *     after the written data is in place (RC order). The source may be reused when the
 *     WRITE completes (at once from a bounce buffer).
 *   - any other Long: 4 KiB pieces inside messages (the core splits it).
 * Flow control: CREDITS request credits per peer (the toolkit's, gasneti_credit.h),
 * returned in headers or by credit messages; replies need none. The SRQ holds enough
 * buffers for every network peer's credits and the replies to ours (up to 4096); beyond
 * that a sender's QP waits for buffers (RNR, retried without limit), it never fails.
 * Send work requests: GASNETC_IBV_SQ_DEPTH per QP and the completion queue's share over
 * all (gasnetc_ibv_sq_room); a send without room, slot, bounce buffer or credit waits in
 * gasneti_lock_room (replies only where needed), or returns GASNETI_AM_WOULD_BLOCK with
 * GEX_FLAG_IMMEDIATE.
 * PAR: gasnetc_ibv_lock guards every verbs call and the state here; handlers run without
 * it. */
#include "ibv_internal.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define CREDITS 32    /* requests in flight to one peer */
#define MAXSEND 256   /* AMs from send slots in flight per process */
#define INLINE_MAX 256 /* the largest message built on the stack */
#define NREAD 8        /* big Mediums read at once */
#define CQ_BATCH 16

typedef struct {
    uint32_t src;  /* the sender's rank */
    uint8_t kind;  /* K_* */
    uint8_t seq;   /* the SEND's number on its QP, modulo 256 (fill_send, check_seq) */
    uint16_t slot; /* K_RELEASE, or a big Medium's header: the sender's bounce buffer */
} pre_t;
enum { K_REQ = 1, K_REP = 2, K_RELEASE = 3 };
#define PRE sizeof(pre_t)
#define MSG_MAX ((GASNETI_WIRE_MAX(PRE, GASNETC_NET_MEDIUM) + 63u) & ~63u)
#define HDR_MAX 128 /* a message without payload */
_Static_assert(GASNETI_WIRE_PAYLOAD_OFF(PRE, GASNETI_AM_LONG, GASNETI_WIRE_FRAG, GASNETI_MAX_ARGS) <= HDR_MAX,
               "a header fits HDR_MAX");
_Static_assert(GASNETC_NET_LONG <= GASNETC_NET_MEDIUM, "a Long piece fits a receive buffer");
_Static_assert(GASNETC_IBV_BOUNCE >= GASNETC_MAX_MEDIUM, "a big Medium fits a bounce buffer");
_Static_assert(GASNETC_IBV_SQ_DEPTH < 256, "a SEND in flight is told from a repeat by its number mod 256");

static gasneti_credits_t cr;
static gasneti_slots_t pool;          /* send slots */
static gasneti_slots_t rd_pool;       /* where big Mediums are read (start_read) */
static gex_Rank_t slot_dest[MAXSEND]; /* lock held */
static uint8_t *rbufs;                /* gasnetc_ibv_srq_depth buffers of MSG_MAX bytes */
static struct ibv_mr *rbufs_mr;
static int *repost, nrepost; /* buffers to post again (lock held) */
static gex_Rank_t *bm_dest;  /* [bounce]: the peer a big Medium's buffer waits for, or GEX_RANK_INVALID */

/* a big Medium whose header arrived: its payload to read, then its handler to run */
typedef struct pend_s {
    struct pend_s *next;
    gex_Rank_t src;
    int is_req;
    uint16_t slot; /* the sender's bounce buffer */
    uint32_t rkey, nbytes;
    uint64_t raddr;
    size_t len; /* of msg */
    uint64_t msg[HDR_MAX / 8];
} pend_t;
static pend_t *to_read, *to_read_tail; /* waiting for room to read (lock held) */
static pend_t *ready, *ready_tail;     /* read: to deliver (lock held) */
typedef struct {
    gex_Rank_t dest;
    uint16_t slot;
} rel_t;
static rel_t *rels; /* releases waiting for room (lock held) */
static int nrels;

static size_t n_inline, n_slot, n_bigmed, n_bigread, n_longw, n_credit, n_repeat;

#define RBUF(i) (rbufs + (size_t)(i)*MSG_MAX)

static void *slot_reg(void *buf, size_t len) { return gasnetc_ibv_reg(buf, len, IBV_ACCESS_LOCAL_WRITE, "a send slot"); }
static void slot_dereg(void *mr) { ibv_dereg_mr(mr); }

/* lock held: the buffers to post again, in one call */
static void flush_repost(void) {
    struct ibv_recv_wr wr[32], *bad;
    struct ibv_sge sge[32];
    while (nrepost) {
        int n = nrepost < 32 ? nrepost : 32;
        for (int k = 0; k < n; k++) {
            int i = repost[--nrepost];
            sge[k] = (struct ibv_sge){(uintptr_t)RBUF(i), MSG_MAX, rbufs_mr->lkey};
            wr[k].wr_id = ((uint64_t)i << 4) | GASNETC_WR_RECV;
            wr[k].sg_list = &sge[k];
            wr[k].num_sge = 1;
            wr[k].next = k + 1 < n ? &wr[k + 1] : NULL;
        }
        int rc = ibv_post_srq_recv(gasnetc_ibv_srq, wr, &bad);
        if (rc) gasnetc_ibv_fail("ibv_post_srq_recv", rc, GEX_RANK_INVALID);
    }
}

/* ---------------------------------------------------------------------------------
 * Sending
 * --------------------------------------------------------------------------------- */
enum { PLAIN, BIGMED, LONGW };
typedef struct { /* an AM on its way (gasneti_lock_room's argument) */
    const gasneti_am_msg_t *m;
    gasneti_counter_t *lc; /* LONGW from registered memory: done when the WRITE completes */
    int how;               /* PLAIN, BIGMED, LONGW */
    uint32_t len;          /* of the message */
    uint64_t ibuf[INLINE_MAX / 8];
} going_t;

/* lock held: a SEND of the message at buf (len bytes, built) to r, inline or from slot
 * (wr filled, its number in the prefix; the caller posts it at once) */
static void fill_send(struct ibv_send_wr *wr, struct ibv_sge *sge, gex_Rank_t r, void *buf, uint32_t len, int slot) {
    ((pre_t *)buf)->seq = gasnetc_ibv_peers[r].tx_seq++;
    memset(wr, 0, sizeof(*wr));
    wr->sg_list = sge;
    wr->num_sge = 1;
    wr->opcode = IBV_WR_SEND;
    sge->addr = (uintptr_t)buf;
    sge->length = len;
    if (slot < 0) {
        wr->send_flags = IBV_SEND_INLINE;
        wr->wr_id = ((uint64_t)r << 4) | GASNETC_WR_INLINE;
        sge->lkey = 0;
    } else {
        wr->wr_id = ((uint64_t)slot << 4) | GASNETC_WR_SLOT;
        sge->lkey = ((struct ibv_mr *)pool.slot[slot].reg)->lkey;
        slot_dest[slot] = r;
    }
}

/* lock held (gasneti_lock_room): send it if every resource is there; 0 if not now */
static int try_send(void *arg) {
    going_t *g = arg;
    const gasneti_am_msg_t *m = g->m;
    gex_Rank_t r = m->jobrank;
    int inl = g->len <= gasnetc_ibv_inline && g->len <= INLINE_MAX, ok = 1;
    uint32_t lkey = 0;
    if (g->how == LONGW) lkey = gasnetc_ibv_local_key(m->src, m->nbytes, &ok);
    int need_bounce = g->how == BIGMED || (g->how == LONGW && !ok);
    if (!gasneti_credit_ok(&cr, r, m->is_req) || !gasnetc_ibv_sq_room(r, g->how == LONGW ? 2 : 1) ||
        (!inl && !gasneti_slots_avail(&pool)) || (need_bounce && !gasneti_slots_avail(&gasnetc_ibv_bounce)))
        return 0;
    int slot = inl ? -1 : gasneti_slots_get(&pool), bounce = need_bounce ? gasnetc_ibv_bounce_get() : -1;
    uint8_t *buf = inl ? (uint8_t *)g->ibuf : gasneti_slots_buf(&pool, slot, MSG_MAX);
    pre_t pre = {gasneti_mynode, (uint8_t)(m->is_req ? K_REQ : K_REP), 0, (uint16_t)(bounce >= 0 ? bounce : 0)};
    memcpy(buf, &pre, sizeof(pre));
    uint32_t len = gasneti_wire_build(buf, PRE, m, g->how == PLAIN ? 0 : GASNETI_WIRE_ELSEWHERE, 0, 1);
    gasneti_assert(len == g->len);
    gasneti_wire_set_credits(buf, PRE, gasneti_credit_owed(&cr, r));
    struct ibv_send_wr send, write;
    struct ibv_sge sge, wsge;
    fill_send(&send, &sge, r, buf, len, slot);
    if (g->how == BIGMED) { /* the payload where the receiver reads it */
        struct ibv_mr *mr = gasnetc_ibv_bounce_mr(bounce);
        memcpy(gasnetc_ibv_bounce.slot[bounce].buf, m->src, m->nbytes);
        gasneti_wire_long_t x;
        memcpy(&x, GASNETI_WIRE_HDR(buf, PRE) + 1, sizeof(x));
        x.dest_addr = (uintptr_t)gasnetc_ibv_bounce.slot[bounce].buf;
        x.aux = mr->rkey;
        memcpy(GASNETI_WIRE_HDR(buf, PRE) + 1, &x, sizeof(x));
        bm_dest[bounce] = r;
        gasnetc_ibv_post(r, &send, 1, "ibv_post_send (a big Medium's header)");
        n_bigmed++;
    } else if (g->how == LONGW) { /* the payload written, the header behind it */
        const gasnetc_ibv_rkey_t *k = gasneti_peerseg_of(r, m->dst_ep)->_rkey;
        gasnetc_ibv_op_t *o = gasnetc_ibv_op_get(r, GASNETC_OP_RMA);
        wsge = (struct ibv_sge){(uintptr_t)m->src, (uint32_t)m->nbytes, lkey};
        if (bounce >= 0) {
            gasneti_assert(m->nbytes <= GASNETC_IBV_BOUNCE);
            memcpy(gasnetc_ibv_bounce.slot[bounce].buf, m->src, m->nbytes);
            wsge.addr = (uintptr_t)gasnetc_ibv_bounce.slot[bounce].buf;
            wsge.lkey = gasnetc_ibv_bounce_mr(bounce)->lkey;
            o->bounce = bounce;
        } else {
            o->lc = g->lc;
            g->lc = NULL; /* done at the WRITE's completion */
        }
        memset(&write, 0, sizeof(write));
        write.wr_id = (uintptr_t)o;
        write.sg_list = &wsge;
        write.num_sge = 1;
        write.opcode = IBV_WR_RDMA_WRITE;
        write.wr.rdma.remote_addr = (uintptr_t)m->dest_addr;
        write.wr.rdma.rkey = k->rkey;
        write.next = &send;
        gasnetc_ibv_post(r, &write, 2, "ibv_post_send (a Long's RDMA WRITE and header)");
        n_longw++;
    } else {
        gasnetc_ibv_post(r, &send, 1, "ibv_post_send (an AM)");
    }
    if (inl) n_inline++;
    else n_slot++;
    gasneti_credit_sent(&cr, r, m->is_req);
    return 1;
}

int gasnetc_ibv_long_by_write(const gasneti_am_msg_t *m) {
    if (m->nbytes <= GASNETC_NET_LONG || !gasnetc_rma_native) return 0;
    const gasneti_peerseg_t *ps = gasneti_peerseg_of(m->jobrank, m->dst_ep);
    const gasnetc_ibv_rkey_t *k = ps->_rkey;
    return k && gasnetc_ibv_in_range(k->base, k->size, m->dest_addr, m->nbytes);
}

size_t gasnetc_long_piece(const gasneti_am_msg_t *m) {
    if (!gasnetc_ibv_long_by_write(m)) return GASNETC_NET_LONG;
    int ok;
    IBV_LOCK();
    gasnetc_ibv_local_key(m->src, m->nbytes, &ok);
    IBV_UNLOCK();
    return ok ? GASNETC_MAX_LONG : GASNETC_IBV_BOUNCE;
}

size_t gasnetc_medium_piece(const gasneti_am_msg_t *m) {
    (void)m;
    return GASNETC_MAX_MEDIUM; /* whole: above 4 KiB its payload is read by the receiver */
}

int gasnetc_am_would_block(const gasneti_am_msg_t *m) {
    if (__atomic_load_n(&gasnetc_ibv_peers[m->jobrank].state, __ATOMIC_ACQUIRE) != GASNETC_IBV_UP) return 1;
    if (!gasneti_credit_peek(&cr, m->jobrank, m->is_req)) return 1;
    size_t plen = m->category == GASNETI_AM_SHORT ? 0 : m->nbytes;
    if (plen > GASNETC_NET_MEDIUM && !gasneti_slots_peek(&gasnetc_ibv_bounce)) return 1;
    return !gasneti_slots_peek(&pool);
}

int gasnetc_am_send(const gasneti_am_msg_t *m, gasneti_counter_t *lc) {
    if (gasnetc_ibv_connected(m->jobrank, m->flags)) return GASNETI_AM_WOULD_BLOCK;
    going_t g;
    g.m = m;
    g.lc = lc;
    g.how = PLAIN;
    size_t plen = m->category == GASNETI_AM_SHORT ? 0 : m->nbytes;
    if (m->category == GASNETI_AM_LONG && plen > GASNETC_NET_LONG) g.how = LONGW;
    else if (m->category == GASNETI_AM_MEDIUM && plen > GASNETC_NET_MEDIUM) g.how = BIGMED;
    gasneti_assert(g.how != LONGW || gasnetc_ibv_long_by_write(m));
    g.len = gasneti_wire_len(PRE, m, g.how == PLAIN ? 0 : GASNETI_WIRE_ELSEWHERE, 1);
    gasneti_counter_t mine; /* LONGW without lc: wait here until the source may be reused */
    gasneti_atomic_set(&mine, 0);
    if (g.how == LONGW && !lc) {
        gasneti_counter_add(&mine);
        g.lc = &mine;
    }
    if (gasneti_lock_room(&gasnetc_ibv_lock, try_send, &g, m)) return GASNETI_AM_WOULD_BLOCK;
    IBV_UNLOCK();
    if (g.lc == &mine) gasneti_counter_done(&mine); /* copied to a bounce buffer */
    else if (g.lc) gasneti_counter_done(g.lc);      /* copied (or inline): the source may be reused */
    if (g.how == LONGW && !lc) gasneti_net_wait_local(&mine);
    return GASNET_OK;
}

/* ---------------------------------------------------------------------------------
 * Receiving
 * --------------------------------------------------------------------------------- */
/* lock held: a message from src arrived, len bytes: checked; the credits it returns, the
 * one we owe. Returns 1 for a credit message (nothing else in it). */
static int account(const uint8_t *msg, size_t len, gex_Rank_t src, int is_req) {
    const char *why = gasneti_wire_check(msg, PRE, len, 0);
    if (why) gasneti_wire_bad(why, src);
    const gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(msg, PRE);
    gasneti_credit_arrived(&cr, src, h->credits, is_req);
    return (h->flags & GASNETI_WIRE_CREDIT) != 0;
}

/* lock held: a small message (credits, a release) to r, inline (or from a send slot on a
 * device without inline data); 0 if there is no room now */
static int post_small(gex_Rank_t r, void *msg, uint32_t len, const char *what) {
    int slot = -1;
    if (!gasnetc_ibv_sq_room(r, 1) || __atomic_load_n(&gasnetc_ibv_peers[r].state, __ATOMIC_ACQUIRE) != GASNETC_IBV_UP)
        return 0;
    if (len > gasnetc_ibv_inline) {
        if ((slot = gasneti_slots_get(&pool)) < 0) return 0;
        uint8_t *b = gasneti_slots_buf(&pool, slot, MSG_MAX);
        memcpy(b, msg, len);
        msg = b;
    }
    struct ibv_send_wr wr;
    struct ibv_sge sge;
    fill_send(&wr, &sge, r, msg, len, slot);
    gasnetc_ibv_post(r, &wr, 1, what);
    return 1;
}

/* lock held: a credit message to r (gasneti_credit_flush); 1: not now */
static int send_credit(gex_Rank_t r, unsigned n) {
    uint64_t msg[2];
    pre_t pre = {gasneti_mynode, K_REP, 0, 0};
    memcpy(msg, &pre, sizeof(pre));
    uint32_t len = gasneti_wire_credit_msg((uint8_t *)msg, PRE, n);
    if (!post_small(r, msg, len, "ibv_post_send (credits)")) return 1;
    n_credit++;
    return 0;
}

/* lock held: tell r its bounce buffer `slot` is free; 0 if no room now */
static int send_release(gex_Rank_t r, uint16_t slot) {
    pre_t pre = {gasneti_mynode, K_RELEASE, 0, slot};
    return post_small(r, &pre, sizeof(pre), "ibv_post_send (a bounce buffer's release)");
}

/* lock held: read the payload of a big Medium; 0 if no room now. Into a buffer of
 * rd_pool, never lent: a read needs no peer's progress, so two ranks whose bounce
 * buffers are all lent to each other's big Mediums still read them */
static int start_read(pend_t *p) {
    if (!gasnetc_ibv_sq_room(p->src, 1) || !gasneti_slots_avail(&rd_pool)) return 0;
    int b = gasneti_slots_get(&rd_pool);
    uint8_t *buf = gasneti_slots_buf(&rd_pool, b, GASNETC_IBV_BOUNCE);
    gasnetc_ibv_op_t *o = gasnetc_ibv_op_get(p->src, GASNETC_OP_BIGMED);
    o->bounce = b;
    o->pend = p;
    o->copy_to = gasneti_wire_elsewhere((uint8_t *)p->msg, PRE); /* a pool buffer, recorded in the header */
    o->copy_from = buf;
    o->copy_len = p->nbytes;
    struct ibv_sge sge = {(uintptr_t)buf, p->nbytes, ((struct ibv_mr *)rd_pool.slot[b].reg)->lkey};
    struct ibv_send_wr wr;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = (uintptr_t)o;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_READ;
    wr.wr.rdma.remote_addr = p->raddr;
    wr.wr.rdma.rkey = p->rkey;
    gasnetc_ibv_post(p->src, &wr, 1, "ibv_post_send (RDMA READ of a big Medium's payload)");
    return 1;
}

/* lock held: a big Medium's header arrived (msg, len bytes, checked) */
static void bigmed_arrived(const uint8_t *msg, size_t len, gex_Rank_t src, int is_req) {
    pend_t *p = gasneti_net_malloc(sizeof(pend_t), "a big Medium's header");
    const gasneti_wire_long_t *x = (const gasneti_wire_long_t *)(GASNETI_WIRE_HDR(msg, PRE) + 1);
    if (len > sizeof(p->msg)) gasneti_wire_bad("a big Medium's header too long", src);
    p->next = NULL;
    p->src = src;
    p->is_req = is_req;
    p->slot = ((const pre_t *)msg)->slot;
    p->raddr = x->dest_addr;
    p->rkey = x->aux;
    p->nbytes = x->nbytes;
    p->len = len;
    memcpy(p->msg, msg, len);
    if (!to_read && start_read(p)) return;
    if (to_read_tail) to_read_tail->next = p;
    else to_read = p;
    to_read_tail = p;
}

/* lock held: a big Medium's payload is in its pool buffer (op_done copied it) */
static void bigmed_read(gasnetc_ibv_op_t *o) {
    pend_t *p = o->pend;
    n_bigread++;
    gasneti_slots_put(&rd_pool, o->bounce);
    gasnetc_ibv_op_put(o);
    if (!send_release(p->src, p->slot)) {
        rels = realloc(rels, (size_t)(nrels + 1) * sizeof(rel_t));
        if (!rels) gasneti_fatalerror("ibv-conduit: out of memory for a release");
        rels[nrels++] = (rel_t){p->src, p->slot};
    }
    p->next = NULL; /* (it may still point into to_read, whence it came) */
    if (ready_tail) ready_tail->next = p;
    else ready = p;
    ready_tail = p;
}

/* lock held: r released our bounce buffer `slot` (its big Medium was read) */
static void released(gex_Rank_t r, unsigned slot) {
    if (slot >= (unsigned)gasnetc_ibv_bounce.n || bm_dest[slot] != r)
        gasneti_wire_bad("the release of a bounce buffer it was not lent", r);
    bm_dest[slot] = GEX_RANK_INVALID;
    gasneti_slots_put(&gasnetc_ibv_bounce, (int)slot);
}

/* lock held: work that waited for room (reads of big Mediums, releases) */
static void retry_waiting(void) {
    while (to_read && start_read(to_read)) {
        pend_t *p = to_read;
        to_read = p->next;
        p->next = NULL;
        if (!to_read) to_read_tail = NULL;
    }
    int k = 0;
    for (int i = 0; i < nrels; i++)
        if (!send_release(rels[i].dest, rels[i].slot)) rels[k++] = rels[i];
    nrels = k;
}

/* lock held: a send-side completion */
static void send_done(const struct ibv_wc *wc) {
    uint64_t v = GASNETC_WR_VAL(wc->wr_id);
    gex_Rank_t peer;
    gasnetc_ibv_op_t *o = NULL;
    const char *what;
    switch (GASNETC_WR_KIND(wc->wr_id)) {
        case GASNETC_WR_INLINE: peer = (gex_Rank_t)v, what = "an AM's SEND (completion)"; break;
        case GASNETC_WR_SLOT: peer = slot_dest[v], what = "an AM's SEND (completion)"; break;
        default:
            o = (gasnetc_ibv_op_t *)(uintptr_t)wc->wr_id;
            peer = o->peer;
            what = o->kind == GASNETC_OP_AMO      ? "an atomic (completion)"
                 : o->kind == GASNETC_OP_BIGMED ? "the RDMA READ of a big Medium (completion)"
                                                : "an RDMA WRITE or READ (completion)";
    }
    gasnetc_ibv_peers[peer].sq_out--;
    gasnetc_ibv_sq_total--;
    if (wc->status != IBV_WC_SUCCESS) gasnetc_ibv_wc_fail(wc, what, peer); /* returns while exiting */
    if (GASNETC_WR_KIND(wc->wr_id) == GASNETC_WR_SLOT) {
        gasneti_slots_put(&pool, (int)v);
    } else if (o) {
        int big = o->kind == GASNETC_OP_BIGMED;
        if (wc->status != IBV_WC_SUCCESS) o->copy_to = NULL; /* nothing arrived */
        gasnetc_ibv_op_done(o);
        if (big && wc->status == IBV_WC_SUCCESS) bigmed_read(o);
    }
}

typedef struct {
    int idx;
    uint32_t len;
    gex_Rank_t src;
    int is_req;
} run_t;

/* lock held: is the SEND numbered seq from src the next one on its QP? 0 if it is a repeat
 * of one already received, which is dropped. RC delivers every SEND once and in order;
 * the number catches a verbs stack that does not (a retransmission delivered twice, a
 * message lost), which would otherwise deliver an AM twice or mis-assemble a split one. */
static int check_seq(gex_Rank_t src, uint8_t seq) {
    uint8_t want = gasnetc_ibv_peers[src].rx_seq, behind = (uint8_t)(want - seq);
    if (GASNETI_LIKELY(behind == 0)) {
        gasnetc_ibv_peers[src].rx_seq = (uint8_t)(want + 1);
        return 1;
    }
    /* a SEND still unacknowledged is at most GASNETC_IBV_SQ_DEPTH behind the next one */
    if (behind > GASNETC_IBV_SQ_DEPTH)
        gasneti_fatalerror("ibv-conduit: rank %u lost a message from rank %u (host %s): SEND number %u (mod 256) "
                           "arrived where %u was due; the verbs stack broke the reliable connection's order",
                           (unsigned)gasneti_mynode, (unsigned)src, gasneti_host_name(src), seq, want);
    if (n_repeat++ == 0)
        fprintf(stderr,
                "ibv-conduit: WARNING: rank %u received a SEND from rank %u (host %s) a second time (number %u, "
                "%u behind): the verbs stack delivered a retransmission twice; dropped (said once per process)\n",
                (unsigned)gasneti_mynode, (unsigned)src, gasneti_host_name(src), seq, behind);
    return 0;
}

/* lock held: a receive completion; 1 (and *r filled) if its handler is to run now */
static int recv_done(const struct ibv_wc *wc, int nested, run_t *r) {
    int idx = (int)GASNETC_WR_VAL(wc->wr_id);
    if (wc->status != IBV_WC_SUCCESS) {
        gasnetc_ibv_wc_fail(wc, "a receive (completion)", GEX_RANK_INVALID);
        return 0; /* (exiting: flushed) */
    }
    uint8_t *msg = RBUF(idx);
    size_t len = wc->byte_len;
    pre_t pre;
    if (len < PRE) gasneti_wire_bad("shorter than ibv-conduit's prefix", GEX_RANK_INVALID);
    memcpy(&pre, msg, sizeof(pre));
    gex_Rank_t src = pre.src;
    if (src >= gasneti_nodes || pre.kind < K_REQ || pre.kind > K_RELEASE)
        gasneti_wire_bad("a bad ibv-conduit prefix", src < gasneti_nodes ? src : GEX_RANK_INVALID);
    repost[nrepost++] = idx; /* undone below if its handler runs in it */
    if (!check_seq(src, pre.seq)) return 0;
    if (pre.kind == K_RELEASE) {
        released(src, pre.slot);
        return 0;
    }
    int is_req = pre.kind == K_REQ;
    if (account(msg, len, src, is_req)) return 0; /* a credit message */
    const gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(msg, PRE);
    if ((h->flags & GASNETI_WIRE_ELSEWHERE) && h->category == GASNETI_AM_MEDIUM) {
        bigmed_arrived(msg, len, src, is_req);
        return 0;
    }
    if (gasneti_defer_if(nested, is_req, src, msg, len)) return 0;
    nrepost--;
    *r = (run_t){idx, (uint32_t)len, src, is_req};
    return 1;
}

static int ibv_poll(int nested) {
    if (!__atomic_load_n(&gasnetc_ibv_up, __ATOMIC_ACQUIRE)) return 0;
    if (gasnetc_ibv_lazy) gasnetc_ibv_connect_poll();
    struct ibv_wc wc[CQ_BATCH];
    run_t run[CQ_BATCH];
    int nrun = 0, n = 0;
    IBV_LOCK();
    if (nrepost) flush_repost();
    if (to_read || nrels) retry_waiting();
    int got = ibv_poll_cq(gasnetc_ibv_cq, CQ_BATCH, wc);
    if (got < 0) gasnetc_ibv_fail("ibv_poll_cq", -got, GEX_RANK_INVALID);
    for (int k = 0; k < got; k++) {
        if (GASNETC_WR_KIND(wc[k].wr_id) == GASNETC_WR_RECV) {
            if (recv_done(&wc[k], nested, &run[nrun])) nrun++;
        } else {
            send_done(&wc[k]);
        }
    }
    if (cr.ndue) gasneti_credit_flush(&cr, send_credit);
    pend_t *big = ready;
    ready = ready_tail = NULL;
    if (nrepost) flush_repost();
    IBV_UNLOCK();
    for (int r = 0; r < nrun; r++) {
        gasneti_wire_deliver(RBUF(run[r].idx), PRE, run[r].len, run[r].src, run[r].is_req);
        IBV_LOCK();
        repost[nrepost++] = run[r].idx; /* posted by the next poll */
        IBV_UNLOCK();
        n++;
    }
    while (big) { /* big Mediums whose payload was read */
        pend_t *p = big;
        big = p->next;
        if (!gasneti_defer_if(nested, p->is_req, p->src, p->msg, p->len)) {
            gasneti_wire_deliver((uint8_t *)p->msg, PRE, p->len, p->src, p->is_req);
            n++;
        }
        free(p);
    }
    return n + gasneti_defer_run(nested, PRE);
}

int gasnetc_poll(void) { return ibv_poll(gasneti_net_nested()); }

/* ---------------------------------------------------------------------------------
 * Start-up and shut-down
 * --------------------------------------------------------------------------------- */
void gasnetc_ibv_am_init(void) {
    int depth = gasnetc_ibv_srq_depth;
    size_t bytes = (size_t)depth * MSG_MAX;
    rbufs = gasneti_net_malloc(bytes, "receive buffers");
    rbufs_mr = gasnetc_ibv_reg(rbufs, bytes, IBV_ACCESS_LOCAL_WRITE, "the receive buffers");
    repost = calloc((size_t)depth, sizeof(int));
    bm_dest = calloc((size_t)gasnetc_ibv_bounce.n, sizeof(gex_Rank_t));
    if (!repost || !bm_dest) gasneti_fatalerror("ibv-conduit: out of memory for receive buffers");
    for (int i = 0; i < gasnetc_ibv_bounce.n; i++) bm_dest[i] = GEX_RANK_INVALID;
    gasneti_slots_init(&pool, MAXSEND, MSG_MAX, slot_reg, slot_dereg);
    gasneti_slots_init(&rd_pool, NREAD, GASNETC_IBV_BOUNCE, slot_reg, slot_dereg);
    gasneti_credits_init(&cr, CREDITS);
    IBV_LOCK();
    for (int i = 0; i < depth; i++) repost[nrepost++] = i;
    flush_repost();
    IBV_UNLOCK();
}

void gasnetc_ibv_am_say(void) {
    fprintf(stderr,
            "ibv-conduit: rank %u sent %zu AM(s) inline, %zu from send slots; big Mediums: %zu sent, %zu read by "
            "RDMA READ; %zu Long(s) by RDMA WRITE; %zu credit message(s); %zu repeated SEND(s) dropped\n",
            (unsigned)gasneti_mynode, n_inline, n_slot, n_bigmed, n_bigread, n_longw, n_credit, n_repeat);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Every rank is leaving: give sends in flight a brief chance to complete (so that no
 * peer's receive is cut short). Nothing more is delivered;
 * failed completions are not reported from here on. Skipped if another thread holds the
 * lock (a fatal error elsewhere): the process leaves anyway. */
int gasnetc_ibv_am_fini(void) {
    if (!IBV_TRYLOCK()) return 0;
    __atomic_store_n(&gasnetc_ibv_up, 0, __ATOMIC_RELEASE);
    double end = now_s() + 0.1;
    struct ibv_wc wc[CQ_BATCH];
    while (gasnetc_ibv_sq_total > 0 && now_s() < end) {
        int got = ibv_poll_cq(gasnetc_ibv_cq, CQ_BATCH, wc);
        for (int k = 0; k < got; k++)
            if (GASNETC_WR_KIND(wc[k].wr_id) != GASNETC_WR_RECV) {
                uint64_t v = GASNETC_WR_VAL(wc[k].wr_id);
                gex_Rank_t peer = GASNETC_WR_KIND(wc[k].wr_id) == GASNETC_WR_INLINE ? (gex_Rank_t)v
                                  : GASNETC_WR_KIND(wc[k].wr_id) == GASNETC_WR_SLOT ? slot_dest[v]
                                  : ((gasnetc_ibv_op_t *)(uintptr_t)wc[k].wr_id)->peer;
                gasnetc_ibv_peers[peer].sq_out--;
                gasnetc_ibv_sq_total--;
            }
    }
    IBV_UNLOCK();
    return 1;
}

/* after the QPs and the SRQ are gone: the registrations of the buffers */
void gasnetc_ibv_am_free(void) {
    ibv_dereg_mr(rbufs_mr);
    gasneti_slots_fini(&pool);
    gasneti_slots_fini(&rd_pool);
}
