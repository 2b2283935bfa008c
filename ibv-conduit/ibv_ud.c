/* ibv_ud.c: ibv-conduit's unreliable datagram (UD) queue pair, one per process, and the
 * protocol that makes it reliable for Active Messages to peers without an RC queue pair
 * (issue 43: per-peer memory toward 1 KiB). Layer: ibv-conduit (a transport under
 * ibv_am.c, which builds the AMs and runs their handlers; docs/ibv-conduit.md, "Scale:
 * datagrams for AMs").
 *
 * Addresses: the UD QP's number with the port's LID and GID, one entry per rank in one
 * exchange at start-up (24 bytes a rank); a peer's address handle (ibv_create_ah) and its
 * protocol state are made at first contact.
 * A datagram: ud_hdr_t (its number, the cumulative acknowledgement of what we received
 * from the peer, the kind), then an AM as on RC (ibv_am.c's 8-byte prefix and the
 * toolkit's layout), at most the port's MTU in all. In a send slot the AM starts at
 * GASNETC_IBV_UD_OFF (16), in a receive buffer at R_OFF (64-byte aligned, as on RC); the
 * header 8 bytes before it, and on receive the 40-byte GRH before that.
 * Reliability (rxe drops a datagram that finds no receive buffer posted): the toolkit's
 * protocol (gasnet_core/gasneti_rdgram.h: numbers per peer, a window of
 * GASNETI_RDG_WIN kept in their send slots until acknowledged, cumulative ACKs carried or
 * alone, go-back-N with a NAK on a gap, resends at a doubling deadline, a peer silent for
 * GASNET_REQUESTTIMEOUT_MAX reported by rank and host); here what UD makes different: the
 * address handle (made with the peer's protocol state), posting on the send queue (its
 * UD_SQ requests bound what goes at once), a slot freed only once both its send completed
 * and the peer acknowledged it.
 * Receive buffers: on a shared receive queue of the UD QP's own, UD_RB_START posted at
 * start-up, doubled when more than half were taken since a poll last posted them or a gap
 * shows a datagram dropped, up to UD_RQ_MAX; the SRQ made as deep as the buffers posted and deepened with
 * them (ibv_modify_srq) where the device resizes SRQs.
 * The queues' rings are small (issue 43): a driver maps them into the process and they
 * are written in turn, slot after slot, as requests are posted, so a ring's pages become
 * private memory one by one under traffic whatever the number in flight. On rxe a send
 * request with UD_INLINE bytes inline takes 256 bytes (64 or more inline: 512) and the
 * ring holds UD_SQ + 1 of them: one page, written in full by the first datagram; the
 * SRQ's ring holds depth + 1 requests of 64 bytes, every one written by the posting of
 * the UD_RB_START buffers at start-up.
 * Every function expects gasnetc_ibv_lock held unless said. */
#include "gasneti_rdgram.h"
#include "ibv_internal.h"

#include <errno.h>
#include <string.h>

#define UD_SQ 7         /* send work requests of the UD QP (2^k - 1 for rxe) */
#define UD_INLINE 48    /* bytes inline in a send request (ACKs, NAKs, small AMs) */
#define UD_RQ_MAX 1023  /* receive work requests at most (2^k - 1) */
#define UD_RB_START 127 /* receive buffers posted at start-up (2^k - 1) */
#define UD_CHUNK 64
#define UD_QKEY 0x1bd5a3c1u
#define GRH 40
typedef gasneti_rdg_hdr_t ud_hdr_t;
#define HDR_AT (GASNETC_IBV_UD_OFF - sizeof(ud_hdr_t)) /* in a send slot */
#define R_OFF 64                                       /* the AM in a receive buffer */
#define R_HDR_AT (R_OFF - sizeof(ud_hdr_t))

typedef struct { /* a rank's UD address, as exchanged */
    uint32_t qpn;
    uint16_t lid;
    uint16_t pad;
    uint8_t gid[16];
} ud_addr_t;
_Static_assert(sizeof(ud_addr_t) == 24, "a UD address is 24 bytes");

/* a peer's: the protocol's state (gasneti_rdg_peer_t), then its address handle */
#define AH(p) (*(struct ibv_ah **)gasneti_rdg_extra(p))

int gasnetc_ibv_ud_on;
uint32_t gasnetc_ibv_ud_max;
static struct ibv_qp *qp;
static struct ibv_srq *srq; /* the UD QP's receive queue */
static uint32_t ud_inline;
static ud_addr_t *addr;     /* [gasneti_nodes] */
static gasneti_rdg_t rdg;   /* the protocol's state, every peer's */
static int sq_out;
static uint8_t posts[GASNETC_IBV_MAXSEND]; /* a slot's sends not completed */
static uint8_t acked[GASNETC_IBV_MAXSEND]; /* a slot's datagram acknowledged (or not ours) */
static uint16_t dlen[GASNETC_IBV_MAXSEND]; /* a slot's datagram's length (header included) */

static struct { /* receive buffers: chunks of UD_CHUNK, one registration each */
    gasnetc_ibv_chunk_t chunk[(UD_RQ_MAX + UD_CHUNK) / UD_CHUNK];
    int made, posted, nrepost, grew;
    int start; /* buffers at first (UD_RB_START) */
    int depth; /* the SRQ's: at most this many posted */
    int most;  /* its depth and buffers at most: UD_RQ_MAX, or its depth once it failed to deepen */
    int repost[UD_RQ_MAX + 1];
    size_t stride;
    int want_more; /* a gap was seen: grow at the next poll */
} rb;
#define UBUF(i) (rb.chunk[(i) / UD_CHUNK].buf + (size_t)((i) % UD_CHUNK) * rb.stride)

/* ---------------------------------------------------------------------------------
 * Receive buffers
 * --------------------------------------------------------------------------------- */
/* post what waits, as far as the SRQ's depth allows (the rest waits for it to deepen) */
static void flush_repost(void) {
    int take = rb.depth - rb.posted < rb.nrepost ? rb.depth - rb.posted : rb.nrepost, n = take;
    if (take <= 0) return;
    rb.nrepost -= take;
    rb.posted += gasnetc_ibv_post_recvs(rb.repost + rb.nrepost, &n, rb.chunk, UD_CHUNK, rb.stride, R_HDR_AT - GRH,
                                        (uint32_t)(GRH + gasnetc_ibv_ud_max), GASNETC_WR_UDRECV, srq, NULL,
                                        "ibv_post_srq_recv (the UD queue pair's)");
}

/* one more chunk, queued to be posted; 0 if it could not be registered (after start-up) */
static int rb_chunk(int startup) {
    int c = rb.made / UD_CHUNK, n = UD_RQ_MAX - rb.made < UD_CHUNK ? UD_RQ_MAX - rb.made : UD_CHUNK;
    size_t bytes = (size_t)n * rb.stride;
    uint8_t *buf = gasneti_net_malloc(bytes, "UD receive buffers");
    struct ibv_mr *mr = startup ? gasnetc_ibv_reg(buf, bytes, IBV_ACCESS_LOCAL_WRITE, "the UD receive buffers")
                                : gasnetc_ibv_try_reg(buf, bytes, IBV_ACCESS_LOCAL_WRITE);
    if (!mr) {
        free(buf);
        return 0;
    }
    rb.chunk[c].buf = buf;
    rb.chunk[c].mr = mr;
    for (int k = 0; k < n; k++) rb.repost[rb.nrepost++] = rb.made + k;
    rb.made += n;
    return 1;
}

/* twice the buffers; where the SRQ is resized, it is deepened first, to 2d + 1 requests
 * (2^k - 1: rxe's ring is then full, all of it written as they are posted) */
static void rb_grow(void) {
    int was = rb.made, was_depth = rb.depth, want;
    if (gasnetc_ibv_srq_resize) {
        struct ibv_srq_attr a;
        memset(&a, 0, sizeof(a));
        a.max_wr = (uint32_t)(2 * rb.depth + 1 < UD_RQ_MAX ? 2 * rb.depth + 1 : UD_RQ_MAX);
        if (ibv_modify_srq(srq, &a, IBV_SRQ_MAX_WR)) { /* it stays as deep: dropped datagrams are resent */
            rb.most = rb.depth;
            return;
        }
        rb.depth = (int)a.max_wr;
        want = rb.depth;
    } else
        want = 2 * rb.made < UD_RQ_MAX ? 2 * rb.made : UD_RQ_MAX;
    while (rb.made < want && rb_chunk(0)) {}
    if (rb.made > was || rb.depth > was_depth) rb.grew++;
    flush_repost();
}

void gasnetc_ibv_ud_repost(int idx) { rb.repost[rb.nrepost++] = idx; }

/* ---------------------------------------------------------------------------------
 * Peers
 * --------------------------------------------------------------------------------- */
/* the protocol's made: the peer's address handle */
static void op_made(gex_Rank_t r, gasneti_rdg_peer_t *p) {
    struct ibv_ah_attr a;
    memset(&a, 0, sizeof(a));
    a.dlid = addr[r].lid;
    a.port_num = gasnetc_ibv_port.port;
    if (gasnetc_ibv_port.gid_index >= 0) {
        a.is_global = 1;
        memcpy(a.grh.dgid.raw, addr[r].gid, 16);
        a.grh.sgid_index = (uint8_t)gasnetc_ibv_port.gid_index;
        a.grh.hop_limit = 64;
    }
    AH(p) = ibv_create_ah(gasnetc_ibv_pd, &a);
    if (!AH(p)) gasnetc_ibv_fail("ibv_create_ah (the peer's UD address)", errno, r);
}

int gasnetc_ibv_ud_room(gex_Rank_t r) { return sq_out < UD_SQ && gasneti_rdg_room(&rdg, r); }
int gasnetc_ibv_ud_peek(gex_Rank_t r) {
    return __atomic_load_n(&sq_out, __ATOMIC_RELAXED) < UD_SQ && gasneti_rdg_peek(&rdg, r);
}

/* post the datagram at buf + HDR_AT (len bytes from there) to r; slot: its send slot,
 * or -1 (inline from buf: a control message) */
static void post(gex_Rank_t r, gasneti_rdg_peer_t *p, uint8_t *buf, uint32_t len, int slot, uint32_t lkey) {
    struct ibv_sge sge = {(uintptr_t)(buf + HDR_AT), len, lkey};
    struct ibv_send_wr wr, *bad = NULL;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = slot < 0 ? (((uint64_t)GASNETC_IBV_MAXSEND << 4) | GASNETC_WR_UDSEND)
                        : (((uint64_t)slot << 4) | GASNETC_WR_UDSEND);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED | (len <= ud_inline ? IBV_SEND_INLINE : 0);
    wr.wr.ud.ah = AH(p);
    wr.wr.ud.remote_qpn = addr[r].qpn;
    wr.wr.ud.remote_qkey = UD_QKEY;
    int rc = ibv_post_send(qp, &wr, &bad);
    if (rc) gasnetc_ibv_fail("ibv_post_send (a datagram)", rc, r);
    sq_out++;
    if (slot >= 0) posts[slot]++;
}

/* the protocol's callbacks: a kept datagram (re)sent, an ACK or NAK, a slot's header, a
 * datagram acknowledged; 1: no room in the send queue now */
static int op_xmit(gex_Rank_t r, gasneti_rdg_peer_t *p, int slot) {
    if (sq_out >= UD_SQ) return 1;
    post(r, p, gasnetc_ibv_slot_buf(slot), dlen[slot], slot, gasnetc_ibv_slot_lkey(slot));
    return 0;
}
static int op_control(gex_Rank_t r, gasneti_rdg_peer_t *p, const gasneti_rdg_hdr_t *h) {
    if (sq_out >= UD_SQ || ud_inline < GASNETC_IBV_UD_OFF + 8 - HDR_AT) return 1;
    uint64_t msg[(GASNETC_IBV_UD_OFF + 8) / 8];
    memcpy((uint8_t *)msg + HDR_AT, h, sizeof(*h));
    gasnetc_ibv_pre_t pre = {gasneti_mynode, 0, 0, 0};
    memcpy((uint8_t *)msg + GASNETC_IBV_UD_OFF, &pre, sizeof(pre));
    post(r, p, (uint8_t *)msg, (uint32_t)(sizeof(*h) + sizeof(pre)), -1, 0);
    return 0;
}
static gasneti_rdg_hdr_t *op_hdr(int slot) { return (gasneti_rdg_hdr_t *)(gasnetc_ibv_slot_buf(slot) + HDR_AT); }
static void op_acked(int slot) {
    acked[slot] = 1;
    if (!posts[slot]) gasnetc_ibv_slot_release(slot);
}
static const gasneti_rdg_ops_t ops = {op_xmit, op_control, op_hdr, op_acked, op_made};

uint32_t gasnetc_ibv_ud_send(gex_Rank_t r, int slot, uint32_t len) {
    acked[slot] = 0;
    dlen[slot] = (uint16_t)(sizeof(ud_hdr_t) + len);
    return gasneti_rdg_send(&rdg, r, slot);
}

void gasnetc_ibv_ud_send_done(const struct ibv_wc *wc) {
    unsigned slot = (unsigned)GASNETC_WR_VAL(wc->wr_id);
    sq_out--;
    if (wc->status != IBV_WC_SUCCESS) /* a local error: a datagram is not acknowledged by the network */
        gasnetc_ibv_wc_fail(wc, "a datagram's SEND (completion)", GEX_RANK_INVALID);
    if (slot >= GASNETC_IBV_MAXSEND) return; /* a control message */
    if (!--posts[slot] && acked[slot]) gasnetc_ibv_slot_release((int)slot);
}

uint8_t *gasnetc_ibv_ud_recv(const struct ibv_wc *wc, size_t *len, int *idx) {
    *idx = (int)GASNETC_WR_VAL(wc->wr_id);
    rb.posted--;
    if (wc->status != IBV_WC_SUCCESS) {
        gasnetc_ibv_wc_fail(wc, "a datagram's receive (completion)", GEX_RANK_INVALID);
        rb.repost[rb.nrepost++] = *idx;
        return NULL;
    }
    uint8_t *d = UBUF(*idx) + R_HDR_AT;
    size_t n = wc->byte_len >= GRH ? wc->byte_len - GRH : 0;
    gasnetc_ibv_pre_t pre;
    if (n < sizeof(ud_hdr_t) + sizeof(pre)) gasneti_wire_bad("a datagram shorter than ibv-conduit's headers", GEX_RANK_INVALID);
    memcpy(&pre, d + sizeof(ud_hdr_t), sizeof(pre));
    if (pre.src >= gasneti_nodes) gasneti_wire_bad("a bad ibv-conduit datagram header", GEX_RANK_INVALID);
    int got = gasneti_rdg_recv(&rdg, pre.src, (const ud_hdr_t *)d);
    if (got == GASNETI_RDG_TAKE) {
        *len = n - sizeof(ud_hdr_t);
        return d + sizeof(ud_hdr_t);
    }
    if (got == GASNETI_RDG_GAP) rb.want_more = 1; /* one was dropped (no buffer?) */
    rb.repost[rb.nrepost++] = *idx;
    return NULL;
}

void gasnetc_ibv_ud_progress(void) {
    /* low: more than half the buffers taken since they were last posted, counted before
     * they are posted again (after, a queue of one buffer never looked low: a dropped
     * datagram then shows only as a resend at its sender, not as a gap here) */
    int postable = rb.made < rb.depth ? rb.made : rb.depth, low = 2 * rb.posted < postable;
    if (rb.nrepost) flush_repost();
    if ((rb.depth < rb.most || rb.made < rb.most) && (rb.want_more || low)) {
        rb.want_more = 0;
        rb_grow();
    }
    gasneti_rdg_progress(&rdg);
}

/* ---------------------------------------------------------------------------------
 * Start-up and shut-down
 * --------------------------------------------------------------------------------- */
int gasnetc_ibv_ud_cq_share(void) { return UD_SQ + UD_RQ_MAX; }

void gasnetc_ibv_ud_init(gasneti_bootstrap_t *boot) {
    gasnetc_ibv_ud_on = gasneti_getenv_yesno("GASNET_IBV_UD", 1);
    gasneti_rdg_init(&rdg, &ops, sizeof(struct ibv_ah *), "ibv-conduit's datagrams");
    /* every rank takes part in the exchange, UD or not, so that the choice is the same */
    ud_addr_t mine;
    memset(&mine, 0, sizeof(mine));
    uint32_t mtu = 128u << (int)gasnetc_ibv_port.mtu;
    if (gasnetc_ibv_ud_on) {
        struct ibv_srq_init_attr sa;
        memset(&sa, 0, sizeof(sa));
        /* GASNET_IBV_TEST_UD_RB=K (tests): K buffers at first (1..UD_RQ_MAX), to see them grow */
        int64_t k = gasneti_getenv_int("GASNET_IBV_TEST_UD_RB", UD_RB_START);
        rb.start = k < 1 ? 1 : k > UD_RQ_MAX ? UD_RQ_MAX : (int)k;
        rb.depth = gasnetc_ibv_srq_resize ? rb.start : UD_RQ_MAX;
        rb.most = UD_RQ_MAX;
        sa.attr.max_wr = (uint32_t)rb.depth;
        sa.attr.max_sge = 1;
        srq = ibv_create_srq(gasnetc_ibv_pd, &sa);
        if (!srq) gasnetc_ibv_fail("ibv_create_srq (the UD queue pair's)", errno, GEX_RANK_INVALID);
        qp = gasnetc_ibv_make_qp(IBV_QPT_UD, srq, UD_SQ, UD_INLINE, &ud_inline, "ibv_create_qp (UD)", GEX_RANK_INVALID);
        if (ud_inline < 16) { /* ACKs go inline from the stack: without it, RC only */
            ibv_destroy_qp(qp);
            ibv_destroy_srq(srq);
            qp = NULL;
            srq = NULL;
            gasnetc_ibv_ud_on = 0;
        }
    }
    if (gasnetc_ibv_ud_on) {
        struct ibv_qp_attr at;
        memset(&at, 0, sizeof(at));
        at.qp_state = IBV_QPS_INIT;
        at.port_num = gasnetc_ibv_port.port;
        at.qkey = UD_QKEY;
        int rc = ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
        if (rc) gasnetc_ibv_fail("ibv_modify_qp (UD, to INIT)", rc, GEX_RANK_INVALID);
        at.qp_state = IBV_QPS_RTR;
        rc = ibv_modify_qp(qp, &at, IBV_QP_STATE);
        if (rc) gasnetc_ibv_fail("ibv_modify_qp (UD, to RTR)", rc, GEX_RANK_INVALID);
        at.qp_state = IBV_QPS_RTS;
        at.sq_psn = 0;
        rc = ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN);
        if (rc) gasnetc_ibv_fail("ibv_modify_qp (UD, to RTS)", rc, GEX_RANK_INVALID);
        mine.qpn = qp->qp_num;
        mine.lid = gasnetc_ibv_port.lid;
        memcpy(mine.gid, gasnetc_ibv_port.gid.raw, 16);
        gasnetc_ibv_ud_max = mtu;
        rb.stride = (R_OFF + mtu + 63) & ~(size_t)63;
        while (rb.made < rb.start) rb_chunk(1);
        flush_repost();
    }
    gex_Rank_t n = gasneti_nodes;
    addr = calloc(n, sizeof(ud_addr_t));
    if (!addr) gasneti_fatalerror("ibv-conduit: out of memory for %u peers' UD addresses", (unsigned)n);
    boot->exchange(&mine, sizeof(mine), addr);
    for (gex_Rank_t r = 0; r < n && gasnetc_ibv_ud_on; r++)
        if (!addr[r].qpn) gasnetc_ibv_ud_on = 0; /* GASNET_IBV_UD differs between ranks: RC only */
}

void gasnetc_ibv_ud_fini(void) {
    if (qp) ibv_destroy_qp(qp);
    if (srq) ibv_destroy_srq(srq);
    for (gex_Rank_t r = 0; rdg.peer && r < gasneti_nodes; r++)
        if (rdg.peer[r]) ibv_destroy_ah(AH(rdg.peer[r]));
}
void gasnetc_ibv_ud_free(void) {
    for (size_t c = 0; c < sizeof(rb.chunk) / sizeof(rb.chunk[0]) && rb.chunk[c].mr; c++) ibv_dereg_mr(rb.chunk[c].mr);
}

void gasnetc_ibv_ud_say(int slots) {
    if (!gasnetc_ibv_ud_on) {
        fprintf(stderr, "ibv-conduit: rank %u datagrams off (GASNET_IBV_UD=0): every AM over RC\n", (unsigned)gasneti_mynode);
        return;
    }
    fprintf(stderr,
            "ibv-conduit: rank %u datagrams: %zu AM(s) sent over UD to %zu peer(s) (%zu resent), %zu ACK(s) and %zu "
            "NAK(s) alone, %zu repeat(s) and %zu gap(s) dropped; RC queue pairs made for %d of %u peer(s); UD receive "
            "buffers: %d of %zu bytes (started with %d, at most %d; their queue %d deep), grew %d time(s); %d datagram send "
            "slot(s) made\n",
            (unsigned)gasneti_mynode, rdg.n_data, rdg.n_peers, rdg.n_resent, rdg.n_ack, rdg.n_nak, rdg.n_dup, rdg.n_gap,
            gasnetc_ibv_qps_made(),
            (unsigned)gasneti_nodes - 1, rb.made, rb.stride, rb.start, UD_RQ_MAX, rb.depth, rb.grew, slots);
}
