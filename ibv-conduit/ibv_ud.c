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
 * Reliability (rxe drops a datagram that finds no receive buffer posted): per peer,
 * datagrams are numbered; at most WIN are unacknowledged, each kept in its send slot
 * until the peer's cumulative acknowledgement covers it (carried by every datagram back,
 * or alone: ACK once ACK_EVERY are owed or one has been owed for ACK_DELAY). The receiver
 * takes only the next number due (go-back-N): a repeat is dropped and acknowledged again
 * at once, a gap is dropped and answered by a NAK (once per missing number) that makes
 * the sender resend everything unacknowledged at once. Otherwise the sender resends at a
 * deadline (RTO, doubling per retry up to RTO_MAX); a peer that acknowledges nothing for
 * GASNET_REQUESTTIMEOUT_MAX seconds (default 60; 0: never) is reported by rank and host.
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
#include "ibv_internal.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#define WIN 32          /* unacknowledged datagrams per peer */
#define ACK_EVERY 8     /* a lone ACK once this many are owed */
#define UD_SQ 7         /* send work requests of the UD QP (2^k - 1 for rxe) */
#define UD_INLINE 48    /* bytes inline in a send request (ACKs, NAKs, small AMs) */
#define UD_RQ_MAX 1023  /* receive work requests at most (2^k - 1) */
#define UD_RB_START 127 /* receive buffers posted at start-up (2^k - 1) */
#define UD_CHUNK 64
#define UD_QKEY 0x1bd5a3c1u
#define GRH 40
static const uint64_t ACK_DELAY = 500000, RTO = 50000000, RTO_MAX = 1000000000; /* ns */
static double give_up = 60.0;                                                    /* s */

enum { UD_DATA = 1, UD_ACK = 2, UD_NAK = 3 };
typedef struct {
    uint16_t seq;  /* UD_DATA: its number */
    uint16_t ack;  /* the next number due from the peer (all before it arrived) */
    uint8_t kind;  /* UD_* */
    uint8_t pad;
    uint16_t pad2;
} ud_hdr_t;
_Static_assert(sizeof(ud_hdr_t) == 8, "a UD header is 8 bytes");
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

typedef struct { /* a peer's state, made at first contact */
    struct ibv_ah *ah;
    uint64_t deadline;    /* ns: resend what is unacknowledged (0: not armed) */
    uint64_t progress_at; /* ns: when the peer last acknowledged something new */
    uint64_t owed_since;  /* ns: the oldest datagram not yet acknowledged to it (0: none) */
    uint32_t n_sent;      /* datagrams sent (ibv_am.c makes an RC QP after many) */
    uint16_t base, next;  /* [base, next): sent, not yet acknowledged */
    uint16_t expect;      /* the next number due from it */
    uint16_t owed;        /* datagrams taken since our last acknowledgement */
    uint16_t naked;       /* expect + 1 when a NAK for it went (0: none) */
    uint8_t retx, active, ackdue;
    int16_t win[WIN]; /* the send slot of number s at s % WIN */
} udpeer_t;
_Static_assert(sizeof(udpeer_t) <= 128, "a peer's UD state stays small (issue 43)");

int gasnetc_ibv_ud_on;
uint32_t gasnetc_ibv_ud_max;
static struct ibv_qp *qp;
static struct ibv_srq *srq; /* the UD QP's receive queue */
static uint32_t ud_inline;
static ud_addr_t *addr;     /* [gasneti_nodes] */
static udpeer_t **peer;     /* [gasneti_nodes], NULL until first contact */
static gex_Rank_t *active, *ackdue; /* peers with datagrams unacknowledged; owed an ACK */
static int nactive, nackdue, sq_out;
static uint8_t posts[GASNETC_IBV_MAXSEND]; /* a slot's sends not completed */
static uint8_t acked[GASNETC_IBV_MAXSEND]; /* a slot's datagram acknowledged (or not ours) */
static uint16_t dlen[GASNETC_IBV_MAXSEND]; /* a slot's datagram's length (header included) */
static size_t n_data, n_ack, n_nak, n_resent, n_dup, n_gap, n_peers;

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

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

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
static udpeer_t *peer_of(gex_Rank_t r) {
    udpeer_t *p = peer[r];
    if (GASNETI_LIKELY(p != NULL)) return p;
    p = calloc(1, sizeof(*p));
    if (!p) gasneti_fatalerror("ibv-conduit: out of memory for a peer's UD state");
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
    p->ah = ibv_create_ah(gasnetc_ibv_pd, &a);
    if (!p->ah) gasnetc_ibv_fail("ibv_create_ah (the peer's UD address)", errno, r);
    for (int k = 0; k < WIN; k++) p->win[k] = -1;
    peer[r] = p;
    n_peers++;
    return p;
}

int gasnetc_ibv_ud_room(gex_Rank_t r) {
    const udpeer_t *p = peer[r];
    return sq_out < UD_SQ && (!p || (uint16_t)(p->next - p->base) < WIN);
}
int gasnetc_ibv_ud_peek(gex_Rank_t r) {
    const udpeer_t *p = __atomic_load_n(&peer[r], __ATOMIC_RELAXED);
    return __atomic_load_n(&sq_out, __ATOMIC_RELAXED) < UD_SQ &&
           (!p || (uint16_t)(__atomic_load_n(&p->next, __ATOMIC_RELAXED) - __atomic_load_n(&p->base, __ATOMIC_RELAXED)) < WIN);
}

/* post the datagram at buf + HDR_AT (len bytes from there) to r; slot: its send slot,
 * or -1 (inline from buf: a control message) */
static void post(gex_Rank_t r, udpeer_t *p, uint8_t *buf, uint32_t len, int slot, uint32_t lkey) {
    struct ibv_sge sge = {(uintptr_t)(buf + HDR_AT), len, lkey};
    struct ibv_send_wr wr, *bad = NULL;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = slot < 0 ? (((uint64_t)GASNETC_IBV_MAXSEND << 4) | GASNETC_WR_UDSEND)
                        : (((uint64_t)slot << 4) | GASNETC_WR_UDSEND);
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED | (len <= ud_inline ? IBV_SEND_INLINE : 0);
    wr.wr.ud.ah = p->ah;
    wr.wr.ud.remote_qpn = addr[r].qpn;
    wr.wr.ud.remote_qkey = UD_QKEY;
    int rc = ibv_post_send(qp, &wr, &bad);
    if (rc) gasnetc_ibv_fail("ibv_post_send (a datagram)", rc, r);
    sq_out++;
    if (slot >= 0) posts[slot]++;
}

/* an ACK or NAK to r now (0: no room in the send queue) */
static int control(gex_Rank_t r, udpeer_t *p, uint8_t kind) {
    if (sq_out >= UD_SQ || ud_inline < GASNETC_IBV_UD_OFF + 8 - HDR_AT) return 0;
    uint64_t msg[(GASNETC_IBV_UD_OFF + 8) / 8];
    ud_hdr_t h = {0, p->expect, kind, 0, 0};
    memcpy((uint8_t *)msg + HDR_AT, &h, sizeof(h));
    gasnetc_ibv_pre_t pre = {gasneti_mynode, 0, 0, 0};
    memcpy((uint8_t *)msg + GASNETC_IBV_UD_OFF, &pre, sizeof(pre));
    post(r, p, (uint8_t *)msg, (uint32_t)(sizeof(h) + sizeof(pre)), -1, 0);
    p->owed = 0;
    p->owed_since = 0;
    if (kind == UD_ACK) n_ack++;
    else n_nak++;
    return 1;
}

static void list_add(gex_Rank_t *list, int *n, uint8_t *flag, gex_Rank_t r) {
    if (*flag) return;
    *flag = 1;
    list[(*n)++] = r;
}

uint32_t gasnetc_ibv_ud_send(gex_Rank_t r, int slot, uint8_t *buf, uint32_t len, uint32_t lkey) {
    udpeer_t *p = peer_of(r);
    ud_hdr_t h = {p->next, p->expect, UD_DATA, 0, 0};
    memcpy(buf + HDR_AT, &h, sizeof(h));
    p->win[p->next % WIN] = (int16_t)slot;
    acked[slot] = 0;
    dlen[slot] = (uint16_t)(sizeof(h) + len);
    if (p->next == p->base) {
        p->deadline = 0; /* armed by the next progress */
        p->progress_at = 0;
        p->retx = 0;
    }
    p->next++;
    p->owed = 0; /* (carried) */
    p->owed_since = 0;
    post(r, p, buf, (uint32_t)sizeof(h) + len, slot, lkey);
    list_add(active, &nactive, &p->active, r);
    n_data++;
    return ++p->n_sent;
}

/* the peer acknowledged everything before ack */
static void acked_to(udpeer_t *p, uint16_t ack) {
    if ((uint16_t)(ack - p->base) > (uint16_t)(p->next - p->base) || ack == p->base) return;
    for (uint16_t s = p->base; s != ack; s++) {
        int slot = p->win[s % WIN];
        p->win[s % WIN] = -1;
        acked[slot] = 1;
        if (!posts[slot]) gasnetc_ibv_slot_release(slot);
    }
    p->base = ack;
    p->retx = 0;
    p->deadline = 0;
    p->progress_at = 0;
}

/* resend everything unacknowledged to r (as the send queue allows) */
static void resend(gex_Rank_t r, udpeer_t *p) {
    for (uint16_t s = p->base; s != p->next && sq_out < UD_SQ; s++) {
        int slot = p->win[s % WIN];
        uint8_t *buf = gasnetc_ibv_slot_buf(slot);
        ud_hdr_t h;
        memcpy(&h, buf + HDR_AT, sizeof(h));
        h.ack = p->expect;
        memcpy(buf + HDR_AT, &h, sizeof(h));
        post(r, p, buf, dlen[slot], slot, gasnetc_ibv_slot_lkey(slot));
        n_resent++;
    }
    p->owed = 0;
    p->owed_since = 0;
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
    ud_hdr_t h;
    gasnetc_ibv_pre_t pre;
    if (n < sizeof(h) + sizeof(pre)) gasneti_wire_bad("a datagram shorter than ibv-conduit's headers", GEX_RANK_INVALID);
    memcpy(&h, d, sizeof(h));
    memcpy(&pre, d + sizeof(h), sizeof(pre));
    if (pre.src >= gasneti_nodes || h.kind < UD_DATA || h.kind > UD_NAK)
        gasneti_wire_bad("a bad ibv-conduit datagram header", pre.src < gasneti_nodes ? pre.src : GEX_RANK_INVALID);
    gex_Rank_t src = pre.src;
    udpeer_t *p = peer_of(src);
    acked_to(p, h.ack);
    if (h.kind == UD_NAK && p->base != p->next) resend(src, p);
    if (h.kind == UD_DATA) {
        if (h.seq == p->expect) {
            p->expect++;
            p->owed++;
            list_add(ackdue, &nackdue, &p->ackdue, src);
            *len = n - sizeof(h);
            return d + sizeof(h);
        }
        if ((uint16_t)(p->expect - h.seq) <= WIN) { /* a repeat: our ACK was lost or late */
            n_dup++;
            p->owed = ACK_EVERY;
            list_add(ackdue, &nackdue, &p->ackdue, src);
        } else { /* a gap: one was dropped (no buffer?) */
            n_gap++;
            rb.want_more = 1;
            if (p->naked != (uint16_t)(p->expect + 1) && control(src, p, UD_NAK)) p->naked = (uint16_t)(p->expect + 1);
        }
    }
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
    if (!nactive && !nackdue) return;
    uint64_t now = now_ns();
    for (int k = 0; k < nackdue; k++) {
        gex_Rank_t r = ackdue[k];
        udpeer_t *p = peer[r];
        if (p->owed && !p->owed_since) p->owed_since = now;
        if (p->owed && (p->owed >= ACK_EVERY || now - p->owed_since >= ACK_DELAY) && !control(r, p, UD_ACK)) continue;
        if (p->owed) continue;
        p->ackdue = 0;
        ackdue[k--] = ackdue[--nackdue];
    }
    for (int k = 0; k < nactive; k++) {
        gex_Rank_t r = active[k];
        udpeer_t *p = peer[r];
        if (p->base == p->next) {
            p->active = 0;
            active[k--] = active[--nactive];
            continue;
        }
        if (!p->progress_at) p->progress_at = now;
        if (!p->deadline) p->deadline = now + RTO;
        if (now < p->deadline) continue;
        if (give_up > 0 && (double)(now - p->progress_at) * 1e-9 > give_up) {
            char why[160];
            snprintf(why, sizeof(why), "it acknowledged none of %u datagram(s) for %.0f s (GASNET_REQUESTTIMEOUT_MAX): "
                     "gone, stopped or unreachable", (unsigned)(uint16_t)(p->next - p->base), give_up);
            gasneti_peer_fail("ibv-conduit's datagrams", why, r);
        }
        resend(r, p);
        p->retx = p->retx < 20 ? p->retx + 1 : p->retx;
        uint64_t rto = RTO << (p->retx < 5 ? p->retx : 5);
        p->deadline = now + (rto < RTO_MAX ? rto : RTO_MAX);
    }
}

/* ---------------------------------------------------------------------------------
 * Start-up and shut-down
 * --------------------------------------------------------------------------------- */
int gasnetc_ibv_ud_cq_share(void) { return UD_SQ + UD_RQ_MAX; }

void gasnetc_ibv_ud_init(gasneti_bootstrap_t *boot) {
    gasnetc_ibv_ud_on = gasneti_getenv_yesno("GASNET_IBV_UD", 1);
    const char *v = gasneti_getenv("GASNET_REQUESTTIMEOUT_MAX");
    if (v && *v) {
        char *end;
        double d = strtod(v, &end);
        if (*end || d < 0) gasneti_launch_error("GASNET_REQUESTTIMEOUT_MAX=%s: expected a number of seconds >= 0", v);
        give_up = d; /* 0: never */
    }
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
    peer = calloc(n, sizeof(udpeer_t *));
    active = calloc(n, sizeof(gex_Rank_t));
    ackdue = calloc(n, sizeof(gex_Rank_t));
    if (!addr || !peer || !active || !ackdue) gasneti_fatalerror("ibv-conduit: out of memory for %u peers' UD addresses", (unsigned)n);
    boot->exchange(&mine, sizeof(mine), addr);
    for (gex_Rank_t r = 0; r < n && gasnetc_ibv_ud_on; r++)
        if (!addr[r].qpn) gasnetc_ibv_ud_on = 0; /* GASNET_IBV_UD differs between ranks: RC only */
}

void gasnetc_ibv_ud_fini(void) {
    if (qp) ibv_destroy_qp(qp);
    if (srq) ibv_destroy_srq(srq);
    for (gex_Rank_t r = 0; peer && r < gasneti_nodes; r++)
        if (peer[r]) ibv_destroy_ah(peer[r]->ah);
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
            (unsigned)gasneti_mynode, n_data, n_peers, n_resent, n_ack, n_nak, n_dup, n_gap, gasnetc_ibv_qps_made(),
            (unsigned)gasneti_nodes - 1, rb.made, rb.stride, rb.start, UD_RQ_MAX, rb.depth, rb.grew, slots);
}
