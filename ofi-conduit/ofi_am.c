/* ofi_am.c: Active Messages to non-neighbors over libfabric messages.
 * Layer: ofi-conduit (the network half of conduit_contract.h; start-up is ofi_init.c).
 *
 * An AM is one message: a header, the arguments and the payload (Medium, or one piece of
 * a Long of up to GASNETC_NET_LONG bytes, written at its destination address by the
 * receiver; the core splits bigger ones). Except a Long that gasnetc_ofi_long_by_write
 * picks (big enough, into the peer's registered segment): ofi_long.c writes its payload
 * by fi_write, and its message, header and arguments only, flagged
 * GASNETI_WIRE_ELSEWHERE, follows the write's completion (sent by
 * gasnetc_ofi_am_send_built below). Messages have the toolkit's layout (gasneti_wire.h)
 * behind an 8-byte prefix, the sender's rank (libfabric does not say who sent a
 * message). Lengths are rounded up to 16 bytes so that messages packed into a
 * multi-receive buffer start aligned. A message of at most the provider's inject size
 * (and INJECT_MAX) goes by fi_inject from the stack; a bigger one is copied into a send
 * slot (MAXSEND per process) and sent by fi_send, the slot freed by its completion.
 * Either way the source may be reused when gasnetc_am_send returns.
 *
 * Requests and replies travel on their own channels (ofi_internal.h: one endpoint with
 * replies tagged, or two endpoints), each with its own receive buffers (multi-receive
 * buffers of MULTI_BYTES when the provider has FI_MULTI_RECV, else NSINGLE buffers of one
 * message each; tagged replies always the latter, as multi-receive is for untagged
 * messages), so replies never wait for buffers that requests hold. Handlers run in place
 * in the receive buffer, which is posted again once the provider has released it and no
 * handler is using it. A channel starts with START_MULTI (START_SINGLE) buffers and gains
 * one, up to NMULTI (NSINGLE), each time a completion leaves it none posted (load:
 * messages arrive faster than handlers release buffers); the send slots' buffers are
 * made at their first use (gasneti_slots.h). So a process that sends and receives little
 * holds little (docs/memory.md); GASNET_VERBOSEENV shows how far each grew.
 * Flow control: CREDITS request credits per peer (the toolkit's, gasneti_credit.h: a
 * request is taken when the peer reads it from its completion queue); credit messages go
 * on the reply channel. On ofi_rxd, which loses a message that finds no receive posted,
 * RXD_CREDITS, and a buffer for each posted from the start (gasnetc_ofi_am_init).
 * A send the provider refuses for now (-FI_EAGAIN), one that finds no free slot, or a
 * request without credit, makes
 * progress until it can go: a request from outside a handler runs everything; a reply,
 * or anything inside a handler, runs replies only (requests that arrive meanwhile are
 * copied and run at the next top-level poll), so a reply always goes out and no two ranks
 * wait on each other. Progress is fi_cq_read inside every poll, which is what providers
 * with FI_PROGRESS_MANUAL need; every library call that waits polls.
 * PAR: gasnetc_ofi_lock guards every libfabric call and the state here; handlers run
 * without it. */
#include "ofi_internal.h"

#include <string.h>
#include <time.h>

#define MULTI_BYTES (1u << 20) /* one multi-receive buffer */
#define NMULTI 4               /* multi-receive buffers per channel, at most */
#define NSINGLE 32             /* one-message buffers per channel without FI_MULTI_RECV, at most */
#define START_MULTI 1          /* ... and at start-up (more_rbufs: they grow under load) */
#define START_SINGLE 4
#define MAXSEND 256            /* fi_send operations outstanding per process */
#define INJECT_MAX 1024        /* largest message built on the stack for fi_inject */
#define CQ_BATCH 16
#define CREDITS 64             /* requests in flight to one peer */
#define RXD_CREDITS 8          /* ... on ofi_rxd, where each has a buffer posted (gasnetc_ofi_am_init) */
#define RXD_SPARE 32           /* ... and these more per channel (held by handlers, credit messages) */

/* Every message starts with this prefix, then the toolkit's header (gasneti_wire.h). Kept
 * small: a Short with up to 4 arguments is 32 bytes, and a message of 40 bytes or more
 * takes the shm provider 0.07 us longer each way than one of 32 or less (fi_pingpong -S,
 * 2026-11-25). */
typedef struct {
    uint32_t src; /* the sender's rank */
    uint32_t unused;
} pre_t;
#define PRE sizeof(pre_t)
#define ALIGN 16 /* message lengths: multi-receive buffers stay aligned */
#define MSG_MAX ((GASNETI_WIRE_MAX(PRE, GASNETC_NET_MEDIUM) + 15u) & ~15u)
_Static_assert(CREDITS <= 65535, "credits owed fit the header");
static inline gex_Rank_t msg_src(const uint8_t *msg) { return ((const pre_t *)msg)->src; }
static inline void set_src(uint8_t *msg) {
    pre_t p = {gasneti_mynode, 0};
    memcpy(msg, &p, sizeof(p));
}
/* in a datagram (ofi_dgram.c), the prefix's second word says which: 1 a request, 2 a reply */
static inline void set_dg_src(uint8_t *msg, int is_req) {
    pre_t p = {gasneti_mynode, is_req ? 1u : 2u};
    memcpy(msg, &p, sizeof(p));
}
/* channel ch's messages are tagged (replies, when one endpoint carries both channels) */
#define TAGGED(ch) ((ch) == GASNETC_CH_REP && gasnetc_ofi_tagged)
/* a message of len bytes goes by fi_inject (from the stack or its own memory) */
#define INJECTABLE(len) ((len) <= gasnetc_ofi_inject_size && (len) <= INJECT_MAX)
_Static_assert(GASNETC_NET_LONG <= GASNETC_NET_MEDIUM, "a Long piece fits a receive buffer");
_Static_assert(MSG_MAX <= 65536 + 1024, "FI_OPT_MIN_MULTI_RECV (ofi_init.c) covers the largest message");
_Static_assert(GASNETI_WIRE_PAYLOAD_OFF(PRE, GASNETI_AM_LONG, GASNETI_WIRE_FRAG, GASNETI_MAX_ARGS) <= GASNETC_OFI_HDR_MAX,
               "a written Long's message fits ofi_long.c's");

typedef struct { /* a posted receive buffer */
    struct fi_context2 ctx; /* first: the operation's context */
    uint8_t *base;
    size_t size;
    struct fid_mr *mr; /* FI_MR_LOCAL */
    void *desc;
    int ch, posted, refs; /* refs: handlers running in it */
    int multi;            /* posted with FI_MULTI_RECV, else for one message */
} rbuf_t;

typedef struct { /* a send slot's (the buffer is the pool's, same index) */
    struct fi_context2 ctx; /* first */
    gex_Rank_t dest;
    int credit; /* prepared (gasnetc_am_prepare): a request's credit is taken */
} slot_t;

static gasneti_credits_t cr;
static gasneti_slots_t pool;
static rbuf_t *rbufs; /* [first[ch], first[ch] + made[ch]): channel ch's, room for most[ch] */
static int nrbufs;    /* room for, in all */
static int first[2], made[2], most[2], nposted[2], start[2];
/* buffers whose handlers have run, posted again at the start of the next poll: off the
 * path from a reply's handler to the request the caller sends next (see ofi_poll) */
static rbuf_t **repost;
static int nrepost;
static slot_t slots[MAXSEND];

static size_t mediums_prepared; /* built around a client's payload (gasnetc_am_prepare) */

/* lock held: send slot i's buffer, allocated (and registered: slot_reg) at its first use */
static uint8_t *slot_buf(int i) { return gasneti_slots_buf(&pool, i, MSG_MAX); }
static void *slot_desc(int i) { return pool.slot[i].reg ? fi_mr_desc(pool.slot[i].reg) : NULL; }
static void *slot_reg(void *buf, size_t len) { return gasnetc_ofi_reg_local(buf, len, "a send slot"); }
static void slot_dereg(void *mr) { fi_close(&((struct fid_mr *)mr)->fid); }

/* lock held */
static void post_rbuf(rbuf_t *rb) {
    struct iovec iov = {rb->base, rb->size};
    int tagged = TAGGED(rb->ch);
    for (;;) {
        ssize_t rc;
        if (tagged) {
            struct fi_msg_tagged msg = {.msg_iov = &iov, .desc = &rb->desc, .iov_count = 1, .addr = FI_ADDR_UNSPEC,
                                        .tag = GASNETC_OFI_TAG_REPLY, .context = &rb->ctx};
            rc = fi_trecvmsg(gasnetc_ofi_ep[rb->ch], &msg, 0);
        } else {
            struct fi_msg msg = {.msg_iov = &iov, .desc = &rb->desc, .iov_count = 1, .addr = FI_ADDR_UNSPEC,
                                 .context = &rb->ctx};
            rc = fi_recvmsg(gasnetc_ofi_ep[rb->ch], &msg, rb->multi ? FI_MULTI_RECV : 0);
        }
        if (rc == 0) break;
        if (rc != -FI_EAGAIN) gasnetc_ofi_fail(tagged ? "fi_trecvmsg" : "fi_recvmsg", rc, -1);
        fi_cq_read(gasnetc_ofi_cq, NULL, 0); /* progress only */
    }
    rb->posted = 1;
    nposted[rb->ch]++;
}

/* lock held: one more receive buffer for channel ch, posted (at start-up, and when a
 * completion left the channel none posted: more_rbufs) */
static void add_rbuf(int ch) {
    rbuf_t *rb = &rbufs[first[ch] + made[ch]++];
    rb->ch = ch;
    rb->multi = ch == GASNETC_CH_REQ ? gasnetc_ofi_multi_recv : gasnetc_ofi_multi_recv && !gasnetc_ofi_tagged;
    size_t size = rb->multi ? MULTI_BYTES : MSG_MAX;
    rb->base = gasneti_net_malloc(size, "a receive buffer");
    rb->size = size;
    if (gasnetc_ofi_mr_local) {
        rb->mr = gasnetc_ofi_reg_local(rb->base, size, "a receive buffer");
        rb->desc = fi_mr_desc(rb->mr);
    }
    post_rbuf(rb);
}
/* lock held: a buffer of channel ch was taken by the provider (a message of one, a full
 * multi-receive one): if none is left posted, the channel grows (up to most[ch]) */
static inline void taken(int ch) {
    if (--nposted[ch] == 0 && made[ch] < most[ch]) add_rbuf(ch);
}

/* lock held: the result of a send, which one progress call pushes on if gasnetc_ofi_push */
static ssize_t pushed(ssize_t rc) {
    if (rc == 0 && gasnetc_ofi_push) fi_cq_read(gasnetc_ofi_cq, NULL, 0); /* progress only */
    return rc;
}
/* lock held: a message to rank r on channel ch (replies tagged when one endpoint carries
 * both), by fi_inject (the buffer may be reused at once) or by fi_send (ctx: its slot) */
static ssize_t ch_inject(int ch, const void *buf, size_t len, gex_Rank_t r) {
    fi_addr_t a = GASNETC_OFI_PEER(r, ch);
    return pushed(TAGGED(ch) ? fi_tinject(gasnetc_ofi_ep[ch], buf, len, a, GASNETC_OFI_TAG_REPLY)
                             : fi_inject(gasnetc_ofi_ep[ch], buf, len, a));
}
static ssize_t ch_send(int ch, void *buf, size_t len, void *desc, gex_Rank_t r, void *ctx) {
    fi_addr_t a = GASNETC_OFI_PEER(r, ch);
    return pushed(TAGGED(ch) ? fi_tsend(gasnetc_ofi_ep[ch], buf, len, desc, a, GASNETC_OFI_TAG_REPLY, ctx)
                             : fi_send(gasnetc_ofi_ep[ch], buf, len, desc, a, ctx));
}

/* ---------------------------------------------------------------------------------
 * Receiving
 * --------------------------------------------------------------------------------- */
/* lock held: a completion that is not a success */
GASNETI_COLD static void cq_error(void) {
    struct fi_cq_err_entry err;
    memset(&err, 0, sizeof(err));
    ssize_t rc = fi_cq_readerr(gasnetc_ofi_cq, &err, 0);
    if (rc == -FI_EAGAIN) return;
    if (rc < 0) gasnetc_ofi_fail("fi_cq_readerr", rc, -1);
    if (err.err == FI_ECANCELED) return;
    long peer = -1;
    const char *what = "a completion";
    if (err.flags & FI_ATOMIC) {
        peer = gasnetc_ofi_rma_peer(err.op_context);
        what = "an atomic (fi_atomic, fi_fetch_atomic or fi_compare_atomic completion)";
    } else if (err.flags & FI_RMA) {
        peer = gasnetc_ofi_rma_peer(err.op_context);
        what = (err.flags & FI_READ) ? "fi_read (completion)" : "fi_write (completion)";
    } else if (err.flags & FI_SEND) {
        slot_t *s = (slot_t *)err.op_context;
        peer = s ? (long)s->dest : -1;
        what = "fi_send (completion)";
    } else if (err.flags & FI_RECV) {
        what = "fi_recv (completion)";
    }
    char buf[256], why[512];
    const char *perr = fi_cq_strerror(gasnetc_ofi_cq, err.prov_errno, err.err_data, buf, sizeof(buf));
    snprintf(why, sizeof(why), "%s (provider %s: %s)", fi_strerror(err.err), gasnetc_ofi_info->fabric_attr->prov_name,
             perr ? perr : "no details");
    gasneti_peer_fail(what, why, peer >= 0 ? (gex_Rank_t)peer : GEX_RANK_INVALID);
}

/* lock held: a message from a peer arrived, len bytes: checked; the credits it returns,
 * the one we owe. Returns 1 for a credit message (nothing else in it). */
static int account(const uint8_t *msg, size_t len, int is_req) {
    const char *why = gasneti_wire_check(msg, PRE, len, 0);
    if (why) gasneti_wire_bad(why, len >= PRE ? msg_src(msg) : GEX_RANK_INVALID);
    const gasneti_wire_hdr_t *h = GASNETI_WIRE_HDR(msg, PRE);
    gasneti_credit_arrived(&cr, msg_src(msg), h->credits, is_req);
    return (h->flags & GASNETI_WIRE_CREDIT) != 0;
}

/* lock held: a credit message to r (gasneti_credit_flush); 1: not now */
static int send_credit(gex_Rank_t r, unsigned n) {
    uint64_t msg[2];
    if (gasnetc_ofi_dg_to(r)) { /* as a datagram */
        if (!gasnetc_ofi_dg_room(r)) return 1;
        int slot;
        uint8_t *b = gasnetc_ofi_dg_slot(&slot, 16);
        set_dg_src(b, 0);
        gasnetc_ofi_dg_send(r, slot, gasneti_wire_credit_msg(b, PRE, n));
        return 0;
    }
    set_src((uint8_t *)msg);
    uint32_t len = gasneti_wire_credit_msg((uint8_t *)msg, PRE, n);
    ssize_t rc = ch_inject(GASNETC_CH_REP, msg, len, r);
    if (rc && rc != -FI_EAGAIN) gasnetc_ofi_fail("fi_inject (credits)", rc, (long)r);
    return rc != 0;
}

/* lock held: a message built elsewhere (a written Long's, ofi_long.c: its credit taken
 * by gasnetc_ofi_am_credit) to dest, with the credits we owe it; -FI_EAGAIN if the
 * provider or the send slots have no room now */
ssize_t gasnetc_ofi_am_send_built(int is_req, gex_Rank_t dest, void *msg, uint32_t len) {
    int ch = is_req ? GASNETC_CH_REQ : GASNETC_CH_REP;
    gasneti_wire_set_credits(msg, PRE, gasneti_credit_owed(&cr, dest));
    ssize_t rc;
    if (INJECTABLE(len)) {
        rc = ch_inject(ch, msg, len, dest);
    } else {
        int i = gasneti_slots_get(&pool);
        if (i < 0) return -FI_EAGAIN;
        slot_t *s = &slots[i];
        memcpy(slot_buf(i), msg, len);
        s->dest = dest;
        rc = ch_send(ch, slot_buf(i), len, slot_desc(i), dest, &s->ctx);
        if (rc) gasneti_slots_put(&pool, i);
    }
    if (rc == 0) gasneti_credit_sent(&cr, dest, 0); /* its credit was taken before the write */
    if (rc == 0) gasnetc_ofi_dg_mark(dest);
    else if (rc != -FI_EAGAIN) gasnetc_ofi_fail("fi_inject or fi_send (a Long after its fi_write)", rc, (long)dest);
    return rc;
}

static int ofi_poll(int nested) {
    if (!__atomic_load_n(&gasnetc_ofi_up, __ATOMIC_ACQUIRE)) return 0;
    struct fi_cq_data_entry e[CQ_BATCH];
    const uint8_t *run[2 * CQ_BATCH];
    size_t runlen[2 * CQ_BATCH];
    rbuf_t *runbuf[2 * CQ_BATCH]; /* NULL: a datagram's (rundg) */
    int rundg[2 * CQ_BATCH], runreq[2 * CQ_BATCH];
    int nrun = 0, n = 0;
    OFI_LOCK();
    while (nrepost) post_rbuf(repost[--nrepost]);
    ssize_t got = fi_cq_read(gasnetc_ofi_cq, e, CQ_BATCH);
    if (got == -FI_EAVAIL) cq_error();
    else if (got < 0 && got != -FI_EAGAIN) gasnetc_ofi_fail("fi_cq_read", got, -1);
    for (ssize_t k = 0; k < got; k++) {
        if (e[k].flags & (FI_RMA | FI_ATOMIC)) { /* fi_write / fi_read / atomics (ofi_rma.c) */
            gasnetc_ofi_rma_done(e[k].op_context);
            continue;
        }
        if (e[k].flags & FI_SEND) {
            gasneti_slots_put(&pool, (int)((slot_t *)e[k].op_context - slots));
            continue;
        }
        rbuf_t *rb = (rbuf_t *)e[k].op_context;
        if ((e[k].flags & FI_RECV) && e[k].len) {
            const uint8_t *msg = rb->multi ? (const uint8_t *)e[k].buf : rb->base;
            int is_req = rb->ch == GASNETC_CH_REQ;
            if (gasnetc_ofi_dg_on) gasnetc_ofi_dg_mark(msg_src(msg)); /* a connection from it exists */
            if (account(msg, e[k].len, is_req)) { /* a credit message: nothing to run */
            } else if (gasneti_defer_if(nested, is_req, msg_src(msg), msg, e[k].len)) {
            } else {
                rb->refs++;
                runreq[nrun] = is_req;
                runbuf[nrun] = rb;
                runlen[nrun] = e[k].len;
                run[nrun++] = msg;
            }
        }
        if (rb->posted && (!rb->multi || (e[k].flags & FI_MULTI_RECV))) {
            rb->posted = 0;
            taken(rb->ch);
        }
        if (!rb->posted && !rb->refs) post_rbuf(rb);
    }
    static unsigned dg_tick;
    if (gasnetc_ofi_dg_on && (gasnetc_ofi_dg_hot || !(++dg_tick % GASNETC_OFI_DG_IDLE_EVERY))) { /* datagrams (ofi_dgram.c) */
        gasnetc_ofi_dgmsg_t dm[CQ_BATCH];
        int nd = gasnetc_ofi_dg_poll(dm, CQ_BATCH);
        for (int k = 0; k < nd; k++) {
            const gasneti_wire_hdr_t *h;
            if (account(dm[k].msg, dm[k].len, dm[k].is_req)) { /* a credit message */
            } else if ((h = GASNETI_WIRE_HDR(dm[k].msg, PRE))->flags & GASNETI_WIRE_ELSEWHERE) {
                gasneti_wire_bad("a datagram with its payload elsewhere", msg_src(dm[k].msg));
            } else if (!gasneti_defer_if(nested, dm[k].is_req, msg_src(dm[k].msg), dm[k].msg, dm[k].len)) {
                runbuf[nrun] = NULL;
                rundg[nrun] = dm[k].idx;
                runreq[nrun] = dm[k].is_req;
                runlen[nrun] = dm[k].len;
                run[nrun++] = dm[k].msg;
                continue;
            }
            gasnetc_ofi_dg_release(dm[k].idx);
        }
    }
    if (gasnetc_ofi_long_queued) gasnetc_ofi_long_send_queued();
    if (cr.ndue) gasneti_credit_flush(&cr, send_credit);
    OFI_UNLOCK();
    for (int r = 0; r < nrun; r++) {
        gasneti_wire_deliver(run[r], PRE, runlen[r], msg_src(run[r]), runreq[r]);
        OFI_LOCK();
        if (!runbuf[r]) { /* a datagram's buffer: posted again now */
            if (gasnetc_ofi_up) gasnetc_ofi_dg_release(rundg[r]);
            OFI_UNLOCK();
            n++;
            continue;
        }
        /* posted again by the next poll, not now: a ping-pong's next request goes out
         * first (a buffer of one message, as each reply's is with tagged replies, is
         * posted after every message; bench_ofi's round trip on shm 0.653 -> 0.636 us,
         * the means of six alternated runs) */
        if (!--runbuf[r]->refs && !runbuf[r]->posted && gasnetc_ofi_up) repost[nrepost++] = runbuf[r];
        OFI_UNLOCK();
        n++;
    }
    return n + gasneti_defer_run(nested, PRE);
}

int gasnetc_poll(void) { return ofi_poll(gasneti_net_nested()); }

/* ---------------------------------------------------------------------------------
 * Sending
 * --------------------------------------------------------------------------------- */
int gasnetc_am_would_block(const gasneti_am_msg_t *m) {
    if (gasnetc_ofi_dg_to(m->jobrank) && !m->frag && gasneti_wire_len(PRE, m, 0, 1) <= gasnetc_ofi_dg_max)
        return !gasneti_credit_peek(&cr, m->jobrank, m->is_req) || !gasnetc_ofi_dg_peek(m->jobrank);
    int written = m->category == GASNETI_AM_LONG && gasnetc_ofi_long_by_write(m);
    gasneti_am_msg_t first = *m; /* the first piece of a bigger one */
    if (first.nbytes > GASNETC_NET_MEDIUM) first.nbytes = GASNETC_NET_MEDIUM;
    uint32_t len = gasneti_wire_len(PRE, &first, written ? GASNETI_WIRE_ELSEWHERE : 0, ALIGN);
    if (!gasneti_credit_peek(&cr, m->jobrank, m->is_req)) return 1;
    if (written || INJECTABLE(len)) return 0;
    return gasneti_slots_peek(&pool) == 0;
}

/* m's message at buf (flags: the toolkit's); its length */
static uint32_t build(uint8_t *buf, const gasneti_am_msg_t *m, unsigned flags) {
    set_src(buf);
    return gasneti_wire_build(buf, PRE, m, flags, 0, ALIGN);
}

/* lock held (gasneti_lock_room): m may go as far as credits are concerned; and a send
 * slot is free too. Only look. */
static int credit_room(void *m) {
    return gasneti_credit_ok(&cr, ((const gasneti_am_msg_t *)m)->jobrank, ((const gasneti_am_msg_t *)m)->is_req);
}
static int slot_room(void *m) { return gasneti_slots_avail(&pool) && credit_room(m); }

/* A built message on its way: by fi_inject from the stack (slot < 0), or from send slot
 * `slot`, reserved with the request's credit (reserve: a Prepare, or gasnetc_am_send's
 * message too big to inject). Sending is: the room check (only looks: a credit, unless
 * reserved), then the send (post), lock held throughout; what the provider refuses for
 * now (-FI_EAGAIN) is sent again after a poll, as for room (send_going). */
typedef struct {
    const gasneti_am_msg_t *m;
    void *buf;
    uint32_t len;
    int ch, slot;
} going_t;
/* lock held (gasneti_lock_room): may g go now? Only looks */
static int going_room(void *arg) {
    const going_t *g = arg;
    return g->slot >= 0 || credit_room((void *)g->m);
}

/* lock held, slot_room said yes: a send slot for g, and a request's credit */
static void reserve(going_t *g) {
    const gasneti_am_msg_t *m = g->m;
    g->slot = gasneti_slots_get(&pool);
    g->buf = slot_buf(g->slot);
    if (m->is_req) gasneti_credit_take(&cr, m->jobrank);
    slots[g->slot].dest = m->jobrank;
    slots[g->slot].credit = m->is_req;
}
/* lock held: give back what reserve took (g never went) */
static void unreserve(going_t *g) {
    if (slots[g->slot].credit) gasneti_credit_give_back(&cr, slots[g->slot].dest);
    slots[g->slot].credit = 0;
    gasneti_slots_put(&pool, g->slot);
}

/* lock held, going_room said yes: give g to the provider, carrying the credits we owe;
 * -FI_EAGAIN if it has no room now */
static ssize_t post(going_t *g) {
    const gasneti_am_msg_t *m = g->m;
    gasneti_wire_set_credits(g->buf, PRE, gasneti_credit_owed(&cr, m->jobrank));
    ssize_t rc = g->slot < 0 ? ch_inject(g->ch, g->buf, g->len, m->jobrank)
                             : ch_send(g->ch, g->buf, g->len, slot_desc(g->slot), m->jobrank, &slots[g->slot].ctx);
    if (rc == -FI_EAGAIN) return rc;
    if (rc) gasnetc_ofi_fail(g->slot < 0 ? "fi_inject" : "fi_send", rc, (long)m->jobrank);
    int take = m->is_req && g->slot < 0; /* (a reserved request's credit is taken) */
    gasnetc_ofi_dg_mark(m->jobrank);
    if (g->slot >= 0) slots[g->slot].credit = 0;
    gasneti_credit_sent(&cr, m->jobrank, take);
    return 0;
}

/* lock not held: send g, waiting for its room and then for the provider's (polling as
 * gasneti_lock_room does); GASNETI_AM_WOULD_BLOCK instead, nothing sent, at the first
 * refusal with GEX_FLAG_IMMEDIATE in g->m->flags */
static int send_going(going_t *g) {
    const gasneti_am_msg_t *m = g->m;
    for (;;) {
        if (gasneti_lock_room(&gasnetc_ofi_lock, going_room, g, m)) return GASNETI_AM_WOULD_BLOCK;
        ssize_t rc = post(g);
        OFI_UNLOCK();
        if (rc == 0) return GASNET_OK;
        if (m->flags & GEX_FLAG_IMMEDIATE) return GASNETI_AM_WOULD_BLOCK;
        gasneti_wait_for_room_to(m->jobrank, m->is_req);
    }
}

/* ---- negotiated payload (GASNETC_AM_PREPARE): a Medium the client writes in a send
 * slot, where the message is built around it. Only where it pays: a message that goes
 * by fi_inject from the stack costs less than a slot; and Mediums only (a Long's big
 * payload goes by fi_write from the library's buffer itself). The Prepare is the
 * reservation (slot and credit), the Commit builds the message and sends it. ---- */
void *gasnetc_am_prepare(const gasneti_am_msg_t *m, size_t least, size_t most, size_t *size, gasneti_am_prep_t *h) {
    if (m->category != GASNETI_AM_MEDIUM) return NULL;
    if (gasnetc_ofi_dg_to(m->jobrank)) { /* one that fits a datagram: the library's buffer */
        gasneti_am_msg_t least_m = *m;
        least_m.frag = NULL;
        least_m.nbytes = least;
        if (gasneti_wire_len(PRE, &least_m, 0, 1) <= gasnetc_ofi_dg_max) return NULL;
    }
    gasneti_am_msg_t biggest = *m;
    biggest.nbytes = most < GASNETC_NET_MEDIUM ? most : GASNETC_NET_MEDIUM;
    biggest.frag = NULL;
    if (biggest.nbytes < least || INJECTABLE(gasneti_wire_len(PRE, &biggest, 0, ALIGN))) return NULL;
    if (gasneti_lock_room(&gasnetc_ofi_lock, slot_room, &biggest, &biggest)) return NULL; /* IMMEDIATE */
    going_t g = {m, NULL, 0, 0, -1};
    reserve(&g);
    OFI_UNLOCK();
    h->h = g.slot;
    *size = biggest.nbytes;
    return (uint8_t *)g.buf + GASNETI_WIRE_PAYLOAD_OFF(PRE, GASNETI_AM_MEDIUM, 0, m->nargs);
}

void gasnetc_am_commit(const gasneti_am_msg_t *m, gasneti_am_prep_t *h) {
    gasneti_am_msg_t now = *m;
    now.flags &= ~GEX_FLAG_IMMEDIATE; /* the room is reserved: it waits, if ever, for the provider */
    int i = (int)h->h;
    going_t g = {&now, slot_buf(i), 0, m->is_req ? GASNETC_CH_REQ : GASNETC_CH_REP, i};
    gasneti_assert(m->src == (uint8_t *)g.buf + GASNETI_WIRE_PAYLOAD_OFF(PRE, GASNETI_AM_MEDIUM, 0, m->nargs));
    g.len = build(g.buf, &now, 0); /* around the payload, which stays in place */
    send_going(&g);
    if (gasnetc_ofi_verbose) __atomic_fetch_add(&mediums_prepared, 1, __ATOMIC_RELAXED);
}

void gasnetc_am_cancel(gasneti_am_prep_t *h) {
    going_t g = {NULL, NULL, 0, 0, (int)h->h};
    OFI_LOCK();
    unreserve(&g);
    OFI_UNLOCK();
}

/* For ofi_long.c: a request's credit, waited for (GASNETI_AM_WOULD_BLOCK instead, with
 * GEX_FLAG_IMMEDIATE) or given back; the message of Long m without its payload, flagged
 * GASNETI_WIRE_ELSEWHERE (its length) */
int gasnetc_ofi_am_credit(const gasneti_am_msg_t *m) {
    if (gasneti_lock_room(&gasnetc_ofi_lock, credit_room, (void *)m, m)) return GASNETI_AM_WOULD_BLOCK;
    gasneti_credit_take(&cr, m->jobrank);
    OFI_UNLOCK();
    return 0;
}

void gasnetc_ofi_am_uncredit(gex_Rank_t r) {
    OFI_LOCK();
    gasneti_credit_give_back(&cr, r);
    OFI_UNLOCK();
}

uint32_t gasnetc_ofi_am_build_written(void *buf, const gasneti_am_msg_t *m) {
    return build(buf, m, GASNETI_WIRE_ELSEWHERE);
}

/* lock held (gasneti_lock_room): room for m as a datagram */
static int dg_room(void *m) {
    return credit_room(m) && gasnetc_ofi_dg_room(((const gasneti_am_msg_t *)m)->jobrank);
}
/* m (len bytes with its prefix) as a datagram: built in a datagram send slot, kept there
 * until the peer acknowledges it (ofi_dgram.c) */
static int send_dg(const gasneti_am_msg_t *m, uint32_t len, gasneti_counter_t *lc) {
    gex_Rank_t r = m->jobrank;
    if (gasneti_lock_room(&gasnetc_ofi_lock, dg_room, (void *)m, m)) return GASNETI_AM_WOULD_BLOCK;
    int slot;
    uint8_t *b = gasnetc_ofi_dg_slot(&slot, len);
    set_dg_src(b, m->is_req);
    gasneti_wire_build(b, PRE, m, 0, 0, 1); /* (under the lock: a datagram at most) */
    gasneti_wire_set_credits(b, PRE, gasneti_credit_owed(&cr, r));
    gasneti_credit_sent(&cr, r, m->is_req);
    gasnetc_ofi_dg_send(r, slot, len);
    OFI_UNLOCK();
    if (lc) gasneti_counter_done(lc); /* copied */
    return GASNET_OK;
}

int gasnetc_am_send(const gasneti_am_msg_t *m, gasneti_counter_t *lc) {
    if (m->category == GASNETI_AM_LONG) { /* by fi_write (ofi_long.c), or inside the message */
        if (gasnetc_ofi_long_by_write(m)) return gasnetc_ofi_long_send(m, lc);
        if (gasnetc_ofi_verbose) __atomic_fetch_add(&gasnetc_ofi_longs_inline, 1, __ATOMIC_RELAXED);
    }
    if (gasnetc_ofi_dg_to(m->jobrank) && !m->frag) { /* as a datagram, if it fits (ofi_dgram.c) */
        uint32_t dl = gasneti_wire_len(PRE, m, 0, 1);
        if (dl <= gasnetc_ofi_dg_max) return send_dg(m, dl, lc);
    }
    gasneti_assert((m->category == GASNETI_AM_SHORT ? 0 : m->nbytes) <= GASNETC_NET_MEDIUM);
    going_t g = {m, NULL, gasneti_wire_len(PRE, m, 0, ALIGN), m->is_req ? GASNETC_CH_REQ : GASNETC_CH_REP, -1};
    if (INJECTABLE(g.len)) { /* built on the stack, injected */
        uint64_t buf[INJECT_MAX / 8];
        build((uint8_t *)buf, m, 0);
        g.buf = buf;
        if (send_going(&g)) return GASNETI_AM_WOULD_BLOCK;
    } else { /* reserved, built in its slot with the lock released, sent */
        if (gasneti_lock_room(&gasnetc_ofi_lock, slot_room, (void *)m, m)) return GASNETI_AM_WOULD_BLOCK;
        reserve(&g);
        OFI_UNLOCK();
        build(g.buf, m, 0);
        if (send_going(&g)) { /* IMMEDIATE, and the provider has no room */
            OFI_LOCK();
            unreserve(&g);
            OFI_UNLOCK();
            return GASNETI_AM_WOULD_BLOCK;
        }
    }
    if (lc) gasneti_counter_done(lc); /* copied (or injected): the source may be reused */
    return GASNET_OK;
}

/* ---------------------------------------------------------------------------------
 * Start-up and shut-down
 * --------------------------------------------------------------------------------- */
/* the state dump's lines (gasneti_watchdog.c): racy reads, no lock */
static int diag_peer(gex_Rank_t r, char *buf, size_t len) { return gasneti_credit_diag(&cr, r, buf, len); }
static void diag_lines(void (*line)(const char *fmt, ...)) {
    line("ofi provider %s: %d of %d send slots free, %d receive buffers, %d waiting to be posted again",
         gasnetc_ofi_info && gasnetc_ofi_info->fabric_attr ? gasnetc_ofi_info->fabric_attr->prov_name : "?",
         gasneti_slots_peek(&pool), MAXSEND, nrbufs, __atomic_load_n(&nrepost, __ATOMIC_RELAXED));
}
static const gasneti_diag_conduit_t diag = {diag_peer, diag_lines};

void gasnetc_ofi_am_init(void) {
    gasneti_diag_register(&diag);
    if (gasnetc_ofi_inject_size < PRE + sizeof(gasneti_wire_hdr_t))
        gasneti_fatalerror("ofi-conduit: provider %s injects at most %zu bytes, less than a credit message (%zu): "
                           "not supported yet (choose another with FI_PROVIDER)",
                           gasnetc_ofi_info->fabric_attr->prov_name, gasnetc_ofi_inject_size, PRE + sizeof(gasneti_wire_hdr_t));
    int rep_multi = gasnetc_ofi_multi_recv && !gasnetc_ofi_tagged;
    /* ofi_rxd (reliable datagrams over udp) loses messages that arrive with no receive
     * posted for them (test_stress, 4 ranks: a reply handed to fi_tsend never reached its
     * target, 1 run in 2 with 32 buffers a channel; none in 3 with 256). There a request
     * has a buffer posted from start-up for every credit: RXD_CREDITS per peer, each
     * channel RXD_CREDITS per peer and RXD_SPARE more (replies answer our requests, which
     * the same credits bound). Before, with 4 buffers at the start, test_vis hung 4 runs in
     * 12 there. */
    const char *prov = gasnetc_ofi_info->fabric_attr ? gasnetc_ofi_info->fabric_attr->prov_name : NULL;
    int rxd = prov && strstr(prov, "ofi_rxd");
    int nsingle = rxd ? RXD_CREDITS * (int)(gasneti_nodes - 1) + RXD_SPARE : NSINGLE;
    if (nsingle < NSINGLE) nsingle = NSINGLE;
    most[GASNETC_CH_REQ] = gasnetc_ofi_multi_recv ? NMULTI : nsingle;
    most[GASNETC_CH_REP] = rep_multi ? NMULTI : nsingle;
    int single = rxd ? nsingle : START_SINGLE;
    start[GASNETC_CH_REQ] = gasnetc_ofi_multi_recv ? START_MULTI : single;
    start[GASNETC_CH_REP] = rep_multi ? START_MULTI : single;
    first[GASNETC_CH_REQ] = 0;
    first[GASNETC_CH_REP] = most[GASNETC_CH_REQ];
    nrbufs = most[GASNETC_CH_REQ] + most[GASNETC_CH_REP];
    rbufs = calloc((size_t)nrbufs, sizeof(rbuf_t));
    repost = calloc((size_t)nrbufs, sizeof(rbuf_t *));
    if (!rbufs || !repost) gasneti_fatalerror("ofi-conduit: out of memory for receive buffers");
    gasneti_slots_init(&pool, MAXSEND, MSG_MAX, gasnetc_ofi_mr_local ? slot_reg : NULL, slot_dereg);
    gasneti_credits_init(&cr, rxd ? RXD_CREDITS : CREDITS);
    OFI_LOCK();
    for (int ch = 0; ch < 2; ch++)
        while (made[ch] < start[ch]) add_rbuf(ch);
    __atomic_store_n(&gasnetc_ofi_up, 1, __ATOMIC_RELEASE);
    OFI_UNLOCK();
}

void gasnetc_ofi_am_say_pools(void) {
    fprintf(stderr,
            "ofi-conduit: rank %u receive buffers: requests %d of %zu bytes (started with %d, at most %d), replies "
            "%d of %zu bytes (started with %d, at most %d); send slots with a buffer: %d of %d\n",
            (unsigned)gasneti_mynode, made[GASNETC_CH_REQ], rbufs[first[GASNETC_CH_REQ]].size, start[GASNETC_CH_REQ],
            most[GASNETC_CH_REQ], made[GASNETC_CH_REP], rbufs[first[GASNETC_CH_REP]].size, start[GASNETC_CH_REP],
            most[GASNETC_CH_REP], gasneti_slots_made(&pool), MAXSEND);
}

void gasnetc_ofi_am_say_prepared(void) {
    fprintf(stderr, "ofi-conduit: rank %u sent %zu Medium(s) built around a payload prepared in a send slot\n",
            (unsigned)gasneti_mynode, __atomic_load_n(&mediums_prepared, __ATOMIC_RELAXED));
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Every rank is leaving: give sends still in flight (and injected ones the provider may
 * still hold) a brief chance, then close the endpoints, so that providers remove what
 * they created (shm's shared memory). Nothing more is delivered. Skipped if another
 * thread holds the lock (a fatal error elsewhere): the process leaves anyway. */
int gasnetc_ofi_am_fini(void) {
    if (!OFI_TRYLOCK()) return 0;
    __atomic_store_n(&gasnetc_ofi_up, 0, __ATOMIC_RELEASE);
    double end = now_s() + 0.1, min_end = now_s() + 0.002;
    struct fi_cq_data_entry e[CQ_BATCH];
    for (;;) {
        double t = now_s();
        if (t > end || (gasneti_slots_avail(&pool) == MAXSEND && gasnetc_ofi_dg_idle() && t > min_end)) break;
        gasnetc_ofi_dg_drain(); /* acknowledgements, resends */
        ssize_t got = fi_cq_read(gasnetc_ofi_cq, e, CQ_BATCH);
        if (got == -FI_EAVAIL) {
            struct fi_cq_err_entry err;
            memset(&err, 0, sizeof(err));
            fi_cq_readerr(gasnetc_ofi_cq, &err, 0);
            continue;
        }
        for (ssize_t k = 0; k < got; k++) {
            if (e[k].flags & (FI_RMA | FI_ATOMIC)) gasnetc_ofi_rma_done(e[k].op_context);
            else if (e[k].flags & FI_SEND) gasneti_slots_put(&pool, (int)((slot_t *)e[k].op_context - slots));
        }
    }
    fi_close(&gasnetc_ofi_ep[GASNETC_CH_REQ]->fid);
    if (!gasnetc_ofi_tagged) fi_close(&gasnetc_ofi_ep[GASNETC_CH_REP]->fid);
    fi_close(&gasnetc_ofi_cq->fid);
    for (int i = 0; i < nrbufs; i++)
        if (rbufs[i].mr) fi_close(&rbufs[i].mr->fid);
    gasneti_slots_fini(&pool);
    OFI_UNLOCK();
    return 1;
}
