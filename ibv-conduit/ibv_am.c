/* ibv_am.c: Active Messages to non-neighbors over InfiniBand verbs, and the poll of the
 * one completion queue. Layer: ibv-conduit (the network half of conduit_contract.h:
 * gasnetc_am_send, gasnetc_poll; start-up is ibv_init.c, QPs ibv_connect.c).
 *
 * An AM is one SEND on the RC QP to its peer: an 8-byte prefix (the sender's rank, the
 * kind: request, reply, or a lent buffer's release; the SEND's number on the QP, which
 * catches a verbs stack that delivers one twice or loses one) and the toolkit's layout
 * (gasneti_wire.h). A message of at most the QP's inline size goes inline from the
 * stack; a bigger one is copied into a registered send slot (MAXSEND per process, freed
 * by its completion). Either way the source may be reused at once.
 * Receives: one shared receive queue (SRQ) of buffers that hold a message with
 * GASNETC_NET_MEDIUM (4 KiB) of payload, for every QP. A handler runs in place in its
 * buffer, which is posted again once it returns; a request that may not run now (a
 * nested poll) is copied (gasneti_defer_if) and its buffer posted again at once. The
 * buffers may grow to gasnetc_ibv_srq_depth, but GASNETC_IBV_RB_START are posted at
 * start-up and their number doubles, up to that depth, when the SRQ's limit event says
 * fewer than half are posted (rb_check, below): a process that few peers talk to at once
 * holds about 0.5 MiB of them, not 64 per peer. Where the device resizes SRQs, the SRQ
 * itself is made for the buffers posted at first and deepened before more are posted
 * (ibv_modify_srq, IBV_SRQ_MAX_WR), so that its ring does not follow the job either.
 * Bigger payloads:
 *   - a Medium above 4 KiB (gasnetc_medium_piece: every Medium goes whole): the header
 *     alone, the payload in a buffer lent to the receiver, who reads it by RDMA READ and
 *     releases the buffer (ibv_bigmed.c, the whole protocol, both sides);
 *   - a Long above 4 KiB into the peer's registered segment (gasnetc_long_piece: whole,
 *     up to GASNETC_MAX_LONG): an RDMA WRITE of the payload (from the segment's
 *     registration, or from a bounce buffer: then up to 64 KiB a piece), and the header
 *     flagged GASNETI_WIRE_ELSEWHERE chained behind it on the same QP, which delivers it
 *     after the written data is in place (RC order). The source may be reused when the
 *     WRITE completes (at once from a bounce buffer).
 *   - any other Long: 4 KiB pieces inside messages (the core splits it).
 * Flow control: CREDITS request credits per peer (the toolkit's, gasneti_credit.h),
 * returned in headers or by credit messages; replies need none. The SRQ may grow to
 * enough buffers for every network peer's credits and the replies to ours (up to 4096);
 * until it has (many peers sending at once to a process that has posted few), or beyond
 * that, a sender's QP waits for buffers (RNR, retried by its HCA without limit every
 * 0.64 ms), it never fails; nothing waits on it in software, and every poll of this
 * process posts again the buffers whose handlers returned, so it cannot deadlock.
 * Send work requests: GASNETC_IBV_SQ_DEPTH per QP and the completion queue's share over
 * all (gasnetc_ibv_sq_room). Sending (going_t, below): the room check only looks (credit,
 * work requests, slot, lent or bounce buffer); a send without room waits in
 * gasneti_lock_room (replies only where needed), or returns GASNETI_AM_WOULD_BLOCK with
 * GEX_FLAG_IMMEDIATE. Then a message of at most the inline size is posted at once (built
 * on the stack before the lock); a bigger one reserves what it needs, is built and its
 * payload copied with the lock released, and is posted once its QP has room.
 * Negotiated payload (GASNETC_AM_PREPARE): a Prepare is that reservation, handing the
 * client the slot (or lent buffer) its payload goes out from; its Commit builds the
 * header around the payload and posts it: no copy of the payload.
 * Test hook (debug builds only): GASNET_IBV_TEST_REPEAT (ibv_connect.c).
 * PAR: gasnetc_ibv_lock guards every verbs call and the state here; handlers run without
 * it. */
#include "ibv_internal.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define CREDITS 32    /* requests in flight to one peer */
#define MAXSEND GASNETC_IBV_MAXSEND /* AMs from send slots in flight per process */
#define INLINE_MAX 256 /* the largest message built on the stack */
#define CQ_BATCH 16

typedef gasnetc_ibv_pre_t pre_t;
enum { K_REQ = GASNETC_IBV_K_REQ, K_REP = GASNETC_IBV_K_REP, K_RELEASE = GASNETC_IBV_K_RELEASE };
#define PRE GASNETC_IBV_PRE
#define MSG_MAX ((GASNETI_WIRE_MAX(PRE, GASNETC_NET_MEDIUM) + 63u) & ~63u)
#define HDR_MAX GASNETC_IBV_HDR_MAX
_Static_assert(GASNETI_WIRE_PAYLOAD_OFF(PRE, GASNETI_AM_LONG, GASNETI_WIRE_FRAG, GASNETI_MAX_ARGS) <= HDR_MAX,
               "a header fits HDR_MAX");
_Static_assert(GASNETC_NET_LONG <= GASNETC_NET_MEDIUM, "a Long piece fits a receive buffer");
_Static_assert(GASNETC_IBV_SQ_DEPTH < 256, "a SEND in flight is told from a repeat by its number mod 256");

static gasneti_credits_t cr;
static gasneti_slots_t pool;          /* send slots */
static gasneti_slots_t udpool;        /* datagrams' send slots: an MTU each, held until acknowledged */
static gex_Rank_t slot_dest[MAXSEND]; /* lock held */
static uint8_t slot_credit[MAXSEND];  /* a Prepare's slot: its request's credit is taken (lock held) */
static gasnetc_ibv_lent_t slot_lent[MAXSEND]; /* a Prepare's slot: the big Medium buffer it lent (i -1: none) */
static int *repost, nrepost; /* buffers to post again (lock held) */

static size_t n_inline, n_slot, n_longw, n_credit, n_repeat, n_prepared;

/* Receive buffers (lock held): made in chunks of RB_CHUNK, each chunk one allocation and
 * one registration; buffer i is chunk i / RB_CHUNK's (i % RB_CHUNK)th. rb.made of them
 * exist, gasnetc_ibv_srq_start at first, at most rb.most (the SRQ's depth). rb.posted
 * counts those posted and not yet seen completed. The SRQ's limit, armed at half of
 * rb.made, raises an event when fewer are posted (messages arrive faster than this
 * process takes them); the poll reads it (gasnetc_ibv_async_poll) when it finds its
 * completion queue backed up (a full batch) and doubles rb.made; so does a poll that
 * finds rb.posted itself below half (buffers held by handlers). */
#define RB_CHUNK 64
#define RB_CHUNKS (4096 / RB_CHUNK) /* gasnetc_ibv_srq_depth is at most 4096 */
static struct {
    gasnetc_ibv_chunk_t chunk[RB_CHUNKS];
    int made, most, posted;
    unsigned seen; /* receives completed since the poll last read the device's events */
    int armed;     /* the SRQ's limit is armed */
    int can_arm;   /* ibv_modify_srq took a limit (else the poll's count only) */
    int cap_repost;
    int srq_wr; /* the SRQ's depth (gasnetc_ibv_srq_resize: made small, deepened by rb_grow) */
    size_t grew_event, grew_poll;
    const char *stopped; /* why it stopped short of rb.most, or NULL */
    int stopped_err;
} rb;
#define RBUF(i) (rb.chunk[(i) / RB_CHUNK].buf + (size_t)((i) % RB_CHUNK) * MSG_MAX)

static void *slot_reg(void *buf, size_t len) { return gasnetc_ibv_reg(buf, len, IBV_ACCESS_LOCAL_WRITE, "a send slot"); }
static void slot_dereg(void *mr) { ibv_dereg_mr(mr); }
void gasnetc_ibv_slot_release(int slot) { gasneti_slots_put(&udpool, slot); }
uint8_t *gasnetc_ibv_slot_buf(int slot) { return udpool.slot[slot].buf; }
uint32_t gasnetc_ibv_slot_lkey(int slot) { return ((struct ibv_mr *)udpool.slot[slot].reg)->lkey; }

/* m (whose message is len bytes) goes as a datagram (ibv_ud.c): datagrams are on, its
 * peer has no RC QP up, it is not a piece of a split AM (whose pieces must stay in order
 * on one QP), and it fits */
GASNETI_ALWAYS_INLINE int by_ud(const gasneti_am_msg_t *m, uint32_t len) {
    return gasnetc_ibv_ud_on && !m->frag && len + 8 <= gasnetc_ibv_ud_max && !gasnetc_ibv_rc_up(m->jobrank);
}
/* datagrams to one peer after which it gets an RC QP (connected without waiting; AMs
 * then go over RC, faster on a busy pair: no window, no copy into a slot) */
#define UD_TO_RC 64

/* lock held: the buffers to post again, in one call */
static void flush_repost(void) {
    rb.posted += gasnetc_ibv_post_recvs(repost, &nrepost, rb.chunk, RB_CHUNK, MSG_MAX, 0, MSG_MAX, GASNETC_WR_RECV,
                                        gasnetc_ibv_srq, NULL, "ibv_post_srq_recv");
}

/* lock held: arm the SRQ's limit at half the buffers made (none once all are) */
static void rb_arm(void) {
    if (!rb.can_arm || rb.made >= rb.most) return;
    struct ibv_srq_attr a;
    memset(&a, 0, sizeof(a));
    a.srq_limit = (uint32_t)rb.made / 2;
    int rc = ibv_modify_srq(gasnetc_ibv_srq, &a, IBV_SRQ_LIMIT);
    if (rc) { /* a device without the limit: the poll's own count only */
        rb.can_arm = 0;
        return;
    }
    rb.armed = 1;
}

/* lock held: growth stops at rb.made, saying why */
static void rb_stop(const char *why, int err) {
    rb.stopped = why;
    rb.stopped_err = err;
    rb.most = rb.made;
}

/* lock held: one more chunk of buffers (up to RB_CHUNK, not beyond rb.most), registered
 * and queued to be posted; 0 if it could not be made (at start-up the job ends) */
static int rb_chunk(int startup) {
    int c = rb.made / RB_CHUNK, n = rb.most - rb.made < RB_CHUNK ? rb.most - rb.made : RB_CHUNK;
    size_t bytes = (size_t)n * MSG_MAX;
    uint8_t *buf = gasneti_net_malloc(bytes, "receive buffers");
    struct ibv_mr *mr = startup ? gasnetc_ibv_reg(buf, bytes, IBV_ACCESS_LOCAL_WRITE, "the receive buffers")
                                : gasnetc_ibv_try_reg(buf, bytes, IBV_ACCESS_LOCAL_WRITE);
    if (!mr) {
        free(buf);
        rb_stop("ibv_reg_mr of more receive buffers failed (the memory-lock limit?)", errno);
        return 0;
    }
    rb.chunk[c].buf = buf;
    rb.chunk[c].mr = mr;
    if (rb.made + n > rb.cap_repost) {
        int cap = rb.made + n > 2 * rb.cap_repost ? rb.made + n : 2 * rb.cap_repost;
        int *r = realloc(repost, (size_t)cap * sizeof(int));
        if (!r) gasneti_fatalerror("ibv-conduit: out of memory for receive buffers");
        repost = r;
        rb.cap_repost = cap;
    }
    for (int k = 0; k < n; k++) repost[nrepost++] = rb.made + k;
    rb.made += n;
    return 1;
}

/* lock held: twice the buffers (at most rb.most), posted; the completion queue grown to
 * hold their completions besides the sends' share; the limit armed again */
static void rb_grow(int by_event) {
    int want = 2 * rb.made < rb.most ? 2 * rb.made : rb.most;
    if (want <= rb.made) return;
    int cq_more = gasnetc_ibv_sq_max + gasnetc_ibv_ud_cq_share();
    if (want + cq_more > gasnetc_ibv_cq->cqe) {
        int rc = ibv_resize_cq(gasnetc_ibv_cq, want + cq_more);
        if (rc) {
            rb_stop("ibv_resize_cq failed: the completion queue holds no more", rc);
            return;
        }
    }
    if (gasnetc_ibv_srq_resize && want > rb.srq_wr) { /* the SRQ made deeper first */
        struct ibv_srq_attr a;
        memset(&a, 0, sizeof(a));
        a.max_wr = (uint32_t)want;
        int rc = ibv_modify_srq(gasnetc_ibv_srq, &a, IBV_SRQ_MAX_WR);
        if (rc) {
            rb_stop("ibv_modify_srq (IBV_SRQ_MAX_WR) failed: the shared receive queue grows no more", rc);
            return;
        }
        rb.srq_wr = want;
    }
    int was = rb.made;
    while (rb.made < want && rb_chunk(0)) {}
    if (rb.made == was) return;
    flush_repost();
    if (by_event) rb.grew_event++;
    else rb.grew_poll++;
    rb_arm();
}

/* lock held, from the poll: got completions were found (CQ_BATCH: more may wait). The
 * device's events are read (a system call) at most once per rb.made / 4 receives: a
 * limit reached leaves at least that many to poll. */
static void rb_check(int got) {
    if (rb.made >= rb.most) return;
    if (rb.armed && got == CQ_BATCH && rb.seen >= (unsigned)rb.made / 4) {
        rb.seen = 0;
        if (gasnetc_ibv_async_poll()) {
            rb.armed = 0;
            rb_grow(1);
        }
    } else if (rb.posted + nrepost < rb.made / 2) {
        rb_grow(0);
    }
}

/* ---------------------------------------------------------------------------------
 * Sending
 * --------------------------------------------------------------------------------- */
enum { PLAIN, BIGMED, LONGW };
/* An AM on its way. Sending is three steps: room (gasneti_lock_room's check: is every
 * resource free? it only looks), then, lock held, either the post at once (a message
 * built on the stack) or the reservation of its resources (send slot, request credit,
 * lent or bounce buffer); the lock released, the message is built in its slot and the
 * payload copied where it goes; the lock taken again, it is posted (send_reserved). A
 * Prepare (gasnetc_am_prepare) is the reservation, its Commit the rest. */
typedef struct {
    const gasneti_am_msg_t *m;
    gasneti_counter_t *lc;  /* LONGW from registered memory: done when the WRITE completes */
    int how;                /* PLAIN, BIGMED, LONGW */
    int inl;                /* built on the stack (ibuf) and sent inline; else from slot */
    uint32_t len;           /* of the message */
    int slot;               /* reserved: the send slot */
    int bounce;             /* reserved, LONGW from unregistered memory: a bounce buffer, else -1 */
    uint32_t lkey;          /* LONGW from registered memory: its key */
    gasnetc_ibv_lent_t lent; /* reserved, BIGMED: the buffer lent to the receiver */
    uint8_t *buf;           /* the message: ibuf or the slot's buffer */
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

/* lock held (gasneti_lock_room): is everything g needs free now? Only looks. */
static int room(void *arg) {
    const going_t *g = arg;
    const gasneti_am_msg_t *m = g->m;
    gex_Rank_t r = m->jobrank;
    int ok = 1;
    if (!gasneti_credit_ok(&cr, r, m->is_req) || !gasnetc_ibv_sq_room(r, g->how == LONGW ? 2 : 1)) return 0;
    if (!g->inl && !gasneti_slots_avail(&pool)) return 0;
    if (g->how == BIGMED) return gasnetc_ibv_bigmed_room();
    if (g->how == LONGW) gasnetc_ibv_local_key(m->src, m->nbytes, &ok);
    return ok || gasneti_slots_avail(&gasnetc_ibv_bounce);
}
/* lock held (gasneti_lock_room): room to post a reserved message */
static int sq_room(void *arg) {
    const going_t *g = arg;
    return gasnetc_ibv_sq_room(g->m->jobrank, g->how == LONGW ? 2 : 1);
}

/* lock held, room() said yes: take what g needs (a request's credit, a send slot, a lent
 * or bounce buffer) */
static void reserve(going_t *g) {
    const gasneti_am_msg_t *m = g->m;
    gex_Rank_t r = m->jobrank;
    if (m->is_req) gasneti_credit_take(&cr, r);
    g->slot = gasneti_slots_get(&pool);
    g->buf = gasneti_slots_buf(&pool, g->slot, MSG_MAX);
    slot_dest[g->slot] = r;
    g->bounce = -1;
    if (g->how == BIGMED) gasnetc_ibv_bigmed_lend(r, &g->lent);
    if (g->how == LONGW) {
        int ok;
        g->lkey = gasnetc_ibv_local_key(m->src, m->nbytes, &ok);
        if (!ok) g->bounce = gasnetc_ibv_bounce_get();
    }
}

/* lock not held: g's message at g->buf, and its payload where it goes (a big Medium's in
 * its lent buffer, a Long's from unregistered memory in its bounce buffer) unless it was
 * written there already (a Prepare's) */
static void build(going_t *g) {
    const gasneti_am_msg_t *m = g->m;
    pre_t pre = {gasneti_mynode, (uint8_t)(m->is_req ? K_REQ : K_REP), 0,
                 (uint16_t)(g->how == BIGMED ? g->lent.i : 0)};
    memcpy(g->buf, &pre, sizeof(pre));
    g->len = gasneti_wire_build(g->buf, PRE, m, g->how == PLAIN ? 0 : GASNETI_WIRE_ELSEWHERE,
                                g->how == BIGMED ? g->lent.rkey : 0, 1);
    if (g->how == BIGMED) { /* the receiver reads the payload from the lent buffer */
        gasneti_wire_long_t x;
        memcpy(&x, GASNETI_WIRE_HDR(g->buf, PRE) + 1, sizeof(x));
        x.dest_addr = g->lent.addr;
        memcpy(GASNETI_WIRE_HDR(g->buf, PRE) + 1, &x, sizeof(x));
        if (m->src != g->lent.buf) memcpy(g->lent.buf, m->src, m->nbytes);
    } else if (g->how == LONGW && g->bounce >= 0) {
        gasneti_assert(m->nbytes <= GASNETC_IBV_BOUNCE);
        memcpy(gasnetc_ibv_bounce.slot[g->bounce].buf, m->src, m->nbytes);
    }
}

/* lock held, room there (and what g needs reserved unless inline): post g's message */
static void post(going_t *g) {
    const gasneti_am_msg_t *m = g->m;
    gex_Rank_t r = m->jobrank;
    gasneti_wire_set_credits(g->buf, PRE, gasneti_credit_owed(&cr, r));
    struct ibv_send_wr send, write;
    struct ibv_sge sge, wsge;
    fill_send(&send, &sge, r, g->buf, g->len, g->inl ? -1 : g->slot);
    if (g->how == LONGW) { /* the payload written, the header behind it */
        const gasnetc_ibv_rkey_t *k = gasneti_peerseg_of(r, m->dst_ep)->_rkey;
        gasnetc_ibv_op_t *o = gasnetc_ibv_op_get(r, GASNETC_OP_RMA);
        wsge = (struct ibv_sge){(uintptr_t)m->src, (uint32_t)m->nbytes, g->lkey};
        if (g->bounce >= 0) {
            wsge.addr = (uintptr_t)gasnetc_ibv_bounce.slot[g->bounce].buf;
            wsge.lkey = gasnetc_ibv_bounce_mr(g->bounce)->lkey;
            o->bounce = g->bounce;
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
        gasnetc_ibv_post(r, &send, 1, g->how == BIGMED ? "ibv_post_send (a big Medium's header)"
                                                       : "ibv_post_send (an AM)");
    }
    if (g->inl) n_inline++;
    else n_slot++;
    gasneti_credit_sent(&cr, r, m->is_req && g->inl); /* (a reserved request's credit is taken) */
}

/* lock not held: post reserved g once its QP has room (which needs no peer's progress:
 * it waits, IMMEDIATE or not, as a reservation may not be declined) */
static void send_reserved(going_t *g) {
    gasneti_am_msg_t now = *g->m;
    now.flags &= ~GEX_FLAG_IMMEDIATE;
    const gasneti_am_msg_t *m = g->m;
    g->m = &now;
    gasneti_lock_room(&gasnetc_ibv_lock, sq_room, g, &now);
    post(g);
    IBV_UNLOCK();
    g->m = m;
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
    if (gasnetc_ibv_ud_on && by_ud(m, gasneti_wire_len(PRE, m, 0, 1)))
        return !gasneti_credit_peek(&cr, m->jobrank, m->is_req) || !gasnetc_ibv_ud_peek(m->jobrank) ||
               !gasneti_slots_peek(&udpool);
    if (__atomic_load_n(&gasnetc_ibv_peers[m->jobrank].state, __ATOMIC_ACQUIRE) != GASNETC_IBV_UP) return 1;
    if (!gasneti_credit_peek(&cr, m->jobrank, m->is_req)) return 1;
    size_t plen = m->category == GASNETI_AM_SHORT ? 0 : m->nbytes;
    if (plen > GASNETC_NET_MEDIUM && m->category == GASNETI_AM_MEDIUM && !gasnetc_ibv_bigmed_peek()) return 1;
    if (plen > GASNETC_NET_LONG && m->category == GASNETI_AM_LONG && !gasneti_slots_peek(&gasnetc_ibv_bounce)) return 1;
    return !gasneti_slots_peek(&pool);
}

/* lock held (gasneti_lock_room): room for a datagram */
static int ud_room(void *arg) {
    const gasneti_am_msg_t *m = arg;
    return gasneti_credit_ok(&cr, m->jobrank, m->is_req) && gasnetc_ibv_ud_room(m->jobrank) &&
           gasneti_slots_avail(&udpool);
}

/* m (len bytes with its prefix) as a datagram: built in a send slot, kept there until
 * the peer acknowledges it (ibv_ud.c) */
static int send_ud(const gasneti_am_msg_t *m, gasneti_counter_t *lc) {
    gex_Rank_t r = m->jobrank;
    if (gasneti_lock_room(&gasnetc_ibv_lock, ud_room, (void *)m, m)) return GASNETI_AM_WOULD_BLOCK;
    going_t g;
    g.m = m;
    g.how = PLAIN;
    g.slot = gasneti_slots_get(&udpool);
    uint8_t *slot = gasneti_slots_buf(&udpool, g.slot, GASNETC_IBV_UD_OFF + gasneti_wire_len(PRE, m, 0, 1));
    g.buf = slot + GASNETC_IBV_UD_OFF;
    build(&g); /* (under the lock: a datagram at most) */
    gasneti_wire_set_credits(g.buf, PRE, gasneti_credit_owed(&cr, r));
    gasneti_credit_sent(&cr, r, m->is_req);
    uint32_t sent = gasnetc_ibv_ud_send(r, g.slot, g.len);
    IBV_UNLOCK();
    if (lc) gasneti_counter_done(lc); /* copied */
    if (sent == UD_TO_RC) gasnetc_ibv_connect_slow(r, GEX_FLAG_IMMEDIATE);
    return GASNET_OK;
}

int gasnetc_am_send(const gasneti_am_msg_t *m, gasneti_counter_t *lc) {
    if (gasnetc_ibv_ud_on && by_ud(m, gasneti_wire_len(PRE, m, 0, 1))) return send_ud(m, lc);
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
    g.inl = g.how == PLAIN && g.len <= gasnetc_ibv_inline && g.len <= INLINE_MAX;
    if (g.inl) { /* built on the stack, posted inline under one lock */
        g.buf = (uint8_t *)g.ibuf;
        build(&g);
        if (gasneti_lock_room(&gasnetc_ibv_lock, room, &g, m)) return GASNETI_AM_WOULD_BLOCK;
        post(&g);
        IBV_UNLOCK();
        if (lc) gasneti_counter_done(lc); /* inline: the source may be reused */
        return GASNET_OK;
    }
    gasneti_counter_t mine; /* LONGW without lc: wait here until the source may be reused */
    gasneti_atomic_set(&mine, 0);
    if (g.how == LONGW && !lc) {
        gasneti_counter_add(&mine);
        g.lc = &mine;
    }
    if (gasneti_lock_room(&gasnetc_ibv_lock, room, &g, m)) return GASNETI_AM_WOULD_BLOCK;
    reserve(&g);
    IBV_UNLOCK();
    build(&g);
    send_reserved(&g);
    if (g.lc == &mine) gasneti_counter_done(&mine); /* copied to a bounce buffer */
    else if (g.lc) gasneti_counter_done(g.lc);      /* copied: the source may be reused */
    if (g.how == LONGW && !lc) gasneti_net_wait_local(&mine);
    return GASNET_OK;
}

/* ---- negotiated payload (GASNETC_AM_PREPARE): a Medium the client writes where it is
 * sent from, a send slot (the message built around it) or, above GASNETC_NET_MEDIUM, a
 * buffer lent to the receiver. Not where it does not pay: a message that goes inline
 * from the stack. Not Longs: their payload goes by RDMA WRITE from the client's buffer
 * itself, or is copied into a bounce buffer. ---- */
void *gasnetc_am_prepare(const gasneti_am_msg_t *m, size_t least, size_t most, size_t *size, gasneti_am_prep_t *h) {
    if (m->category != GASNETI_AM_MEDIUM) return NULL;
    if (gasnetc_ibv_ud_on && !gasnetc_ibv_rc_up(m->jobrank)) { /* a datagram's payload: the library's buffer */
        gasneti_am_msg_t least_m = *m;
        least_m.frag = NULL;
        least_m.nbytes = least;
        if (by_ud(&least_m, gasneti_wire_len(PRE, &least_m, 0, 1))) return NULL;
    }
    if (gasnetc_ibv_connected(m->jobrank, m->flags)) return NULL; /* IMMEDIATE, not connected */
    gasneti_am_msg_t biggest = *m;
    biggest.frag = NULL;
    going_t g;
    g.m = &biggest;
    g.lc = NULL;
    g.inl = 0;
    if (least > GASNETC_NET_MEDIUM) { /* only a big Medium offers that much */
        g.how = BIGMED;
        biggest.nbytes = most < GASNETC_MAX_MEDIUM ? most : GASNETC_MAX_MEDIUM;
    } else {
        g.how = PLAIN;
        biggest.nbytes = most < GASNETC_NET_MEDIUM ? most : GASNETC_NET_MEDIUM;
        uint32_t len = gasneti_wire_len(PRE, &biggest, 0, 1);
        if (len <= gasnetc_ibv_inline && len <= INLINE_MAX) return NULL; /* cheaper from the stack */
    }
    if (gasneti_lock_room(&gasnetc_ibv_lock, room, &g, &biggest)) return NULL; /* IMMEDIATE */
    reserve(&g);
    slot_credit[g.slot] = m->is_req;
    slot_lent[g.slot].i = -1;
    if (g.how == BIGMED) slot_lent[g.slot] = g.lent;
    IBV_UNLOCK();
    h->h = g.slot;
    *size = biggest.nbytes;
    if (g.how == BIGMED) return g.lent.buf;
    return g.buf + GASNETI_WIRE_PAYLOAD_OFF(PRE, GASNETI_AM_MEDIUM, 0, m->nargs);
}

void gasnetc_am_commit(const gasneti_am_msg_t *m, gasneti_am_prep_t *h) {
    going_t g;
    g.m = m;
    g.lc = NULL;
    g.inl = 0;
    g.slot = (int)h->h;
    g.buf = pool.slot[g.slot].buf; /* (made by the Prepare) */
    g.bounce = -1;
    g.lent = slot_lent[g.slot];
    g.how = g.lent.i >= 0 ? BIGMED : PLAIN;
    if (g.how == BIGMED) {
        gasneti_assert(m->src == g.lent.buf);
    } else {
        gasneti_assert(m->src == g.buf + GASNETI_WIRE_PAYLOAD_OFF(PRE, GASNETI_AM_MEDIUM, 0, m->nargs));
    }
    build(&g); /* around the payload, which stays in place */
    slot_credit[g.slot] = 0;
    slot_lent[g.slot].i = -1;
    send_reserved(&g);
    if (gasnetc_ibv_verbose) __atomic_fetch_add(&n_prepared, 1, __ATOMIC_RELAXED);
}

void gasnetc_am_cancel(gasneti_am_prep_t *h) {
    int i = (int)h->h;
    IBV_LOCK();
    if (slot_credit[i]) gasneti_credit_give_back(&cr, slot_dest[i]);
    if (slot_lent[i].i >= 0) gasnetc_ibv_bigmed_unlend(slot_lent[i].i);
    slot_credit[i] = 0;
    slot_lent[i].i = -1;
    gasneti_slots_put(&pool, i);
    IBV_UNLOCK();
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

int gasnetc_ibv_post_small(gex_Rank_t r, void *msg, uint32_t len, const char *what) {
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
    if (gasnetc_ibv_ud_on && !gasnetc_ibv_rc_up(r)) { /* as a datagram */
        if (!gasnetc_ibv_ud_room(r) || !gasneti_slots_avail(&udpool)) return 1;
        int i = gasneti_slots_get(&udpool);
        uint8_t *slot = gasneti_slots_buf(&udpool, i, GASNETC_IBV_UD_OFF + 64), *b = slot + GASNETC_IBV_UD_OFF;
        memcpy(b, &pre, sizeof(pre));
        uint32_t len = gasneti_wire_credit_msg(b, PRE, n);
        gasnetc_ibv_ud_send(r, i, len);
        n_credit++;
        return 0;
    }
    memcpy(msg, &pre, sizeof(pre));
    uint32_t len = gasneti_wire_credit_msg((uint8_t *)msg, PRE, n);
    if (!gasnetc_ibv_post_small(r, msg, len, "ibv_post_send (credits)")) return 1;
    n_credit++;
    return 0;
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
        case GASNETC_WR_BIGMED: peer = gasnetc_ibv_bigmed_reader((unsigned)v), what = "the RDMA READ of a big Medium (completion)"; break;
        default:
            o = (gasnetc_ibv_op_t *)(uintptr_t)wc->wr_id;
            peer = o->peer;
            what = o->kind == GASNETC_OP_AMO ? "an atomic (completion)" : "an RDMA WRITE or READ (completion)";
    }
    gasnetc_ibv_peers[peer].sq_out--;
    gasnetc_ibv_sq_total--;
    if (wc->status != IBV_WC_SUCCESS) gasnetc_ibv_wc_fail(wc, what, peer); /* returns while exiting */
    if (GASNETC_WR_KIND(wc->wr_id) == GASNETC_WR_SLOT) {
        gasneti_slots_put(&pool, (int)v);
    } else if (GASNETC_WR_KIND(wc->wr_id) == GASNETC_WR_BIGMED) {
        gasnetc_ibv_bigmed_read_done((unsigned)v, wc->status == IBV_WC_SUCCESS);
    } else if (o) {
        if (wc->status != IBV_WC_SUCCESS) o->copy_to = NULL; /* nothing arrived */
        gasnetc_ibv_op_done(o);
    }
}

typedef struct {
    uint8_t *msg;
    int idx;
    uint32_t len;
    gex_Rank_t src;
    int is_req;
    int ud; /* a datagram's buffer (gasnetc_ibv_ud_repost) */
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
    rb.posted--;
    rb.seen++;
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
        gasnetc_ibv_bigmed_released(src, pre.lent);
        return 0;
    }
    int is_req = pre.kind == K_REQ;
    if (account(msg, len, src, is_req)) return 0; /* a credit message */
    const gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(msg, PRE);
    if ((h->flags & GASNETI_WIRE_ELSEWHERE) && h->category == GASNETI_AM_MEDIUM) {
        gasnetc_ibv_bigmed_arrived(msg, len, src, is_req);
        return 0;
    }
    if (gasneti_defer_if(nested, is_req, src, msg, len)) return 0;
    nrepost--;
    *r = (run_t){msg, idx, (uint32_t)len, src, is_req, 0};
    return 1;
}

/* lock held: a datagram's receive completion; 1 (and *r filled) if its handler is to run now */
static int ud_recv_done(const struct ibv_wc *wc, int nested, run_t *r) {
    size_t len;
    int idx;
    uint8_t *msg = gasnetc_ibv_ud_recv(wc, &len, &idx);
    if (!msg) return 0;
    pre_t pre;
    memcpy(&pre, msg, sizeof(pre));
    gex_Rank_t src = pre.src;
    if (pre.kind != K_REQ && pre.kind != K_REP) gasneti_wire_bad("a datagram of a kind RC alone carries", src);
    int is_req = pre.kind == K_REQ, run = 0;
    if (!account(msg, len, src, is_req)) {
        const gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(msg, PRE);
        if (h->flags & GASNETI_WIRE_ELSEWHERE) gasneti_wire_bad("a datagram with its payload elsewhere", src);
        run = !gasneti_defer_if(nested, is_req, src, msg, len);
    }
    if (!run) {
        gasnetc_ibv_ud_repost(idx);
        return 0;
    }
    *r = (run_t){msg, idx, (uint32_t)len, src, is_req, 1};
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
    if (gasnetc_ibv_bigmed_work) gasnetc_ibv_bigmed_retry();
    int got = ibv_poll_cq(gasnetc_ibv_cq, CQ_BATCH, wc);
    if (got < 0) gasnetc_ibv_fail("ibv_poll_cq", -got, GEX_RANK_INVALID);
    for (int k = 0; k < got; k++) {
        unsigned kind = GASNETC_WR_KIND(wc[k].wr_id);
        if (kind == GASNETC_WR_RECV) {
            if (recv_done(&wc[k], nested, &run[nrun])) nrun++;
        } else if (kind == GASNETC_WR_UDRECV) {
            if (ud_recv_done(&wc[k], nested, &run[nrun])) nrun++;
        } else if (kind == GASNETC_WR_UDSEND) {
            gasnetc_ibv_ud_send_done(&wc[k]);
        } else {
            send_done(&wc[k]);
        }
    }
    if (gasnetc_ibv_ud_on) gasnetc_ibv_ud_progress();
    if (cr.ndue) gasneti_credit_flush(&cr, send_credit);
    void *big = gasnetc_ibv_bigmed_work ? gasnetc_ibv_bigmed_take() : NULL;
    if (nrepost) flush_repost();
    if (got > 0) rb_check(got);
    IBV_UNLOCK();
    for (int r = 0; r < nrun; r++) {
        gasneti_wire_deliver(run[r].msg, PRE, run[r].len, run[r].src, run[r].is_req);
        IBV_LOCK();
        if (run[r].ud) gasnetc_ibv_ud_repost(run[r].idx);
        else repost[nrepost++] = run[r].idx; /* posted by the next poll */
        IBV_UNLOCK();
        n++;
    }
    if (big) n += gasnetc_ibv_bigmed_run(big, nested); /* big Mediums whose payload was read */
    return n + gasneti_defer_run(nested, PRE);
}

int gasnetc_poll(void) { return ibv_poll(gasneti_net_nested()); }

/* ---------------------------------------------------------------------------------
 * Start-up and shut-down
 * --------------------------------------------------------------------------------- */
void gasnetc_ibv_am_init(void) {
    gasneti_slots_init(&pool, MAXSEND, MSG_MAX, slot_reg, slot_dereg);
    /* (a datagram's slot is made for a small AM and grown for a bigger one: it is held
     * until the peer acknowledges, so many may be in use when many peers are contacted) */
    gasneti_slots_init(&udpool, MAXSEND, GASNETC_IBV_UD_OFF + 128, slot_reg, slot_dereg);
    for (int i = 0; i < MAXSEND; i++) slot_lent[i].i = -1;
    gasnetc_ibv_bigmed_init();
    gasneti_credits_init(&cr, CREDITS);
    IBV_LOCK();
    rb.most = gasnetc_ibv_srq_depth;
    rb.srq_wr = gasnetc_ibv_srq_resize ? gasnetc_ibv_srq_start : gasnetc_ibv_srq_depth;
    rb.can_arm = 1;
    while (rb.made < gasnetc_ibv_srq_start) rb_chunk(1);
    flush_repost();
    rb_arm();
    IBV_UNLOCK();
}

void gasnetc_ibv_am_say(void) {
    fprintf(stderr,
            "ibv-conduit: rank %u sent %zu AM(s) inline, %zu from send slots (%zu Medium(s) prepared in place); "
            "%zu Long(s) by RDMA WRITE; %zu credit message(s); %zu repeated SEND(s) dropped\n",
            (unsigned)gasneti_mynode, n_inline, n_slot, n_prepared, n_longw, n_credit, n_repeat);
    gasnetc_ibv_ud_say(gasneti_slots_made(&udpool));
    char stopped[160] = "";
    if (rb.stopped) snprintf(stopped, sizeof(stopped), "; stopped there: %s (%s)", rb.stopped, strerror(rb.stopped_err));
    fprintf(stderr,
            "ibv-conduit: rank %u receive buffers: %d of %zu bytes (started with %d, at most %d); grew %zu time(s) at the "
            "SRQ's limit event, %zu found low by a poll%s\n",
            (unsigned)gasneti_mynode, rb.made, (size_t)MSG_MAX, gasnetc_ibv_srq_start, gasnetc_ibv_srq_depth,
            rb.grew_event, rb.grew_poll, stopped);
    gasnetc_ibv_bigmed_say();
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
            if (GASNETC_WR_KIND(wc[k].wr_id) != GASNETC_WR_RECV && GASNETC_WR_KIND(wc[k].wr_id) < GASNETC_WR_UDSEND) {
                uint64_t v = GASNETC_WR_VAL(wc[k].wr_id);
                unsigned kind = GASNETC_WR_KIND(wc[k].wr_id);
                gex_Rank_t peer = kind == GASNETC_WR_INLINE   ? (gex_Rank_t)v
                                  : kind == GASNETC_WR_SLOT   ? slot_dest[v]
                                  : kind == GASNETC_WR_BIGMED ? gasnetc_ibv_bigmed_reader((unsigned)v)
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
    for (int c = 0; c < RB_CHUNKS && rb.chunk[c].mr; c++) ibv_dereg_mr(rb.chunk[c].mr);
    gasneti_slots_fini(&pool);
    gasneti_slots_fini(&udpool);
    gasnetc_ibv_bigmed_free();
}
