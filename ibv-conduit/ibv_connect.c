/* ibv_connect.c: ibv-conduit's reliable connected (RC) queue pairs, one per peer (itself
 * and its neighbors included: the HCA's atomics reach every rank through the network),
 * all sharing the completion queue and the shared receive queue of ibv_init.c.
 * Layer: ibv-conduit (connections; used by ibv_am.c and ibv_rma.c before they post).
 *
 * A QP's address: its number, a starting packet sequence number, the port's LID, MTU and
 * GID (gasnetc_ibv_port). Two ways to connect:
 *   eager (jobs of at most GASNET_IBV_CONNECT_LAZY ranks; the default, 0, makes none
 *     eager: per-peer state is made on first contact): every rank makes a QP for every rank, the addresses go round in one gasneti_boot_exchange_v (rank r
 *     gives N addresses, the one for rank s at s), and each QP goes to RTR and RTS with
 *     its peer's; network init's barrier then lets anyone send.
 *   lazy (the default; jobs of more than GASNET_IBV_CONNECT_LAZY ranks): a QP is made at the first send or
 *     RDMA to a peer, its address sent with gasneti_boot_send (REQ); the peer, at its
 *     next poll (gasnetc_ibv_connect_poll: gasneti_boot_recv), makes its own QP if it has
 *     none, connects it to ours and answers with its address (ACK) unless it had sent
 *     its own REQ already (both at once: each connects to the other's REQ and says so,
 *     READY); the first side connects at the answer and says so (READY). A side sends on
 *     its QP only once both are connected (its own, and the peer's: an ACK or a READY
 *     said so): a SEND that reached a QP still in INIT would be dropped, and the HCA's
 *     retries (about half a second) would run out while a peer does not poll. A sender
 *     waits for that, polling (or, with datagrams, goes on by datagrams meanwhile).
 * RC settings: retry 7 times (GASNET_QP_RETRY_COUNT) with a 67 ms timeout (GASNET_QP_TIMEOUT
 * = 14: 4.096 us << 14), so a peer that is gone shows as IBV_WC_RETRY_EXC_ERR within
 * about half a second; receiver-not-ready retried without
 * limit (the shared receive queue momentarily empty only delays a sender), READs and
 * atomics in flight as the device allows (up to 16). */
#include "ibv_internal.h"

#include <errno.h>
#include <string.h>

gasnetc_ibv_peer_t *gasnetc_ibv_peers;
int gasnetc_ibv_lazy;
int gasnetc_ibv_qp_timeout, gasnetc_ibv_qp_retries;
uint32_t gasnetc_ibv_inline = UINT32_MAX;
int gasnetc_ibv_sq_total, gasnetc_ibv_sq_max;

#define INLINE_WANT 256   /* inline data asked of each QP (the device may give less) */
#define LAZY_DEFAULT 0    /* GASNET_IBV_CONNECT_LAZY's default: lazy at every size (issue 43) */

typedef struct { /* a QP's address, as its peer needs it */
    uint32_t qpn, psn;
    uint16_t lid;
    uint8_t mtu, pad;
    uint8_t gid[16];
} addr_t;
_Static_assert(sizeof(addr_t) == 28, "a QP's address is 28 bytes on the wire");
enum { MSG_REQ = 1, MSG_ACK = 2, MSG_READY = 3 };
enum { HS_MINE = 1, HS_PEER = 2, HS_BOTH = 3 };
typedef struct { /* a lazy connection's message (gasneti_boot_send) */
    uint32_t type;
    addr_t a;
} cmsg_t;

static uint32_t psn_of(gex_Rank_t from, gex_Rank_t to) { return ((uint32_t)from * 2654435761u + (uint32_t)to * 40503u) & 0xffffff; }

static int n_made; /* QPs made for peers other than this process */
int gasnetc_ibv_qps_made(void) { return __atomic_load_n(&n_made, __ATOMIC_RELAXED); }

/* lock held (or at init): peer r's QP, made and in INIT */
static void create_qp(gex_Rank_t r) {
    if (r != gasneti_mynode) __atomic_fetch_add(&n_made, 1, __ATOMIC_RELAXED);
    uint32_t got;
    struct ibv_qp *qp = gasnetc_ibv_make_qp(IBV_QPT_RC, gasnetc_ibv_srq, GASNETC_IBV_SQ_DEPTH, INLINE_WANT, &got,
                                            "ibv_create_qp", r);
    if (got < gasnetc_ibv_inline) gasnetc_ibv_inline = got;
    struct ibv_qp_attr at;
    memset(&at, 0, sizeof(at));
    at.qp_state = IBV_QPS_INIT;
    at.pkey_index = 0;
    at.port_num = gasnetc_ibv_port.port;
    at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                         IBV_ACCESS_REMOTE_ATOMIC;
    int rc = ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
    if (rc) gasnetc_ibv_fail("ibv_modify_qp (to INIT)", rc, r);
    gasnetc_ibv_peers[r].qp = qp;
}

static void my_addr(gex_Rank_t r, addr_t *a) {
    memset(a, 0, sizeof(*a));
    a->qpn = gasnetc_ibv_peers[r].qp->qp_num;
    a->psn = psn_of(gasneti_mynode, r);
    a->lid = gasnetc_ibv_port.lid;
    a->mtu = (uint8_t)gasnetc_ibv_port.mtu;
    memcpy(a->gid, gasnetc_ibv_port.gid.raw, 16);
}

/* lock held (or at init): what is connected now; up once both QPs are */
static void handshake(gex_Rank_t r, uint8_t what) {
    gasnetc_ibv_peer_t *p = &gasnetc_ibv_peers[r];
    p->hs |= what;
    if (p->hs == HS_BOTH) __atomic_store_n(&p->state, GASNETC_IBV_UP, __ATOMIC_RELEASE);
}

/* lock held (or at init): peer r's QP to RTR and RTS with the peer's address a */
static void connect_qp(gex_Rank_t r, const addr_t *a) {
    gasnetc_ibv_port_t *p = &gasnetc_ibv_port;
    struct ibv_qp *qp = gasnetc_ibv_peers[r].qp;
    struct ibv_qp_attr at;
    memset(&at, 0, sizeof(at));
    at.qp_state = IBV_QPS_RTR;
    at.path_mtu = a->mtu < (uint8_t)p->mtu ? (enum ibv_mtu)a->mtu : p->mtu;
    at.dest_qp_num = a->qpn;
    at.rq_psn = a->psn;
    at.max_dest_rd_atomic = (uint8_t)p->rd_atomic;
    at.min_rnr_timer = 12; /* 0.64 ms */
    at.ah_attr.dlid = a->lid;
    at.ah_attr.port_num = p->port;
    if (p->gid_index >= 0) {
        at.ah_attr.is_global = 1;
        memcpy(at.ah_attr.grh.dgid.raw, a->gid, 16);
        at.ah_attr.grh.sgid_index = (uint8_t)p->gid_index;
        at.ah_attr.grh.hop_limit = 64;
    }
    int rc = ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                        IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
    if (rc) gasnetc_ibv_fail("ibv_modify_qp (to RTR)", rc, r);
    memset(&at, 0, sizeof(at));
    at.qp_state = IBV_QPS_RTS;
    at.timeout = (uint8_t)gasnetc_ibv_qp_timeout;
    at.retry_cnt = (uint8_t)gasnetc_ibv_qp_retries;
    at.rnr_retry = 7; /* without limit */
    at.sq_psn = psn_of(gasneti_mynode, r);
    at.max_rd_atomic = (uint8_t)p->rd_atomic;
    rc = ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
                                    IBV_QP_MAX_QP_RD_ATOMIC);
    if (rc) gasnetc_ibv_fail("ibv_modify_qp (to RTS)", rc, r);
    handshake(r, HS_MINE);
}

/* the state dump's lines (gasneti_watchdog.c): racy reads, no lock; the QP's state as
 * the driver has it (ibv_query_qp) for a peer with send work outstanding or not connected */
static int diag_peer(gex_Rank_t r, char *buf, size_t len) {
    static const char *const qps[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};
    const gasnetc_ibv_peer_t *p = &gasnetc_ibv_peers[r];
    int st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE), out = __atomic_load_n(&p->sq_out, __ATOMIC_RELAXED);
    if (st == GASNETC_IBV_NONE && gasnetc_ibv_lazy) return 0; /* never contacted */
    if (st == GASNETC_IBV_UP && !out) return 0;
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr ia;
    const char *qs = "none";
    if (p->qp && !ibv_query_qp(p->qp, &a, IBV_QP_STATE, &ia)) qs = a.qp_state <= IBV_QPS_ERR ? qps[a.qp_state] : "?";
    snprintf(buf, len, "QP %u %s (%s), %d send work requests outstanding (of %d)", p->qp ? p->qp->qp_num : 0u,
             st == GASNETC_IBV_UP ? "up" : st == GASNETC_IBV_CONNECTING ? "connecting" : "not connected", qs, out,
             GASNETC_IBV_SQ_DEPTH);
    return 1;
}
static void diag_lines(void (*line)(const char *fmt, ...)) {
    int up = 0, connecting = 0;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
        int st = __atomic_load_n(&gasnetc_ibv_peers[r].state, __ATOMIC_RELAXED);
        up += st == GASNETC_IBV_UP;
        connecting += st == GASNETC_IBV_CONNECTING;
    }
    line("ibv: %d QPs up, %d connecting (%s connection); send work requests over every QP: %d of %d",
         up, connecting, gasnetc_ibv_lazy ? "lazy" : "eager", __atomic_load_n(&gasnetc_ibv_sq_total, __ATOMIC_RELAXED),
         gasnetc_ibv_sq_max);
}
static const gasneti_diag_conduit_t diag = {diag_peer, diag_lines};

void gasnetc_ibv_connect_init(gasneti_bootstrap_t *boot) {
    (void)boot;
    gasneti_diag_register(&diag);
    gex_Rank_t n = gasneti_nodes;
    gasnetc_ibv_peers = calloc(n, sizeof(gasnetc_ibv_peer_t));
    if (!gasnetc_ibv_peers) gasneti_fatalerror("ibv-conduit: out of memory for %u peers", (unsigned)n);
    gasnetc_ibv_qp_timeout = (int)gasneti_getenv_int("GASNET_QP_TIMEOUT", 14);
    if (gasnetc_ibv_qp_timeout < 1 || gasnetc_ibv_qp_timeout > 31)
        gasneti_launch_error("GASNET_QP_TIMEOUT=%d: from 1 to 31 (the ACK timeout is 4.096 us << it)",
                             gasnetc_ibv_qp_timeout);
    gasnetc_ibv_qp_retries = (int)gasneti_getenv_int("GASNET_QP_RETRY_COUNT", 7);
    if (gasnetc_ibv_qp_retries < 0 || gasnetc_ibv_qp_retries > 7)
        gasneti_launch_error("GASNET_QP_RETRY_COUNT=%d: from 0 to 7", gasnetc_ibv_qp_retries);
    int64_t lazy_above = gasneti_getenv_int("GASNET_IBV_CONNECT_LAZY", LAZY_DEFAULT);
    if (lazy_above < 0) gasneti_launch_error("GASNET_IBV_CONNECT_LAZY=%lld: a number of ranks, 0 or more", (long long)lazy_above);
    gasnetc_ibv_lazy = (int64_t)n > lazy_above;
    if (gasnetc_ibv_lazy) {
        create_qp(gasneti_mynode); /* one QP made now, for the inline size */
        __atomic_store_n(&gasnetc_ibv_peers[gasneti_mynode].state, GASNETC_IBV_CONNECTING, __ATOMIC_RELAXED);
        addr_t a;
        my_addr(gasneti_mynode, &a);
        handshake(gasneti_mynode, HS_PEER);
        connect_qp(gasneti_mynode, &a); /* to itself */
        return;
    }
    addr_t *mine = calloc(n, sizeof(addr_t));
    size_t *lens = calloc(n, sizeof(size_t));
    if (!mine || !lens) gasneti_fatalerror("ibv-conduit: out of memory for %u peers' addresses", (unsigned)n);
    for (gex_Rank_t r = 0; r < n; r++) {
        create_qp(r);
        my_addr(r, &mine[r]);
    }
    addr_t *all = gasneti_boot_exchange_v(mine, n * sizeof(addr_t), lens);
    for (gex_Rank_t r = 0; r < n; r++) {
        if (lens[r] != n * sizeof(addr_t))
            gasneti_fatalerror("ibv-conduit: rank %u gave %zu bytes of QP addresses, expected %zu", (unsigned)r, lens[r],
                               n * sizeof(addr_t));
        handshake(r, HS_PEER); /* (network init's barrier: every rank's QPs are connected before anyone sends) */
        connect_qp(r, &all[(size_t)r * n + gasneti_mynode]);
    }
    free(all);
    free(lens);
    free(mine);
}

void gasnetc_ibv_connect_fini(void) {
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++)
        if (gasnetc_ibv_peers[r].qp) ibv_destroy_qp(gasnetc_ibv_peers[r].qp);
}

/* a lazy connection's message to r: our QP's address */
static void send_addr(gex_Rank_t r, uint32_t type, const addr_t *a) {
    cmsg_t m;
    memset(&m, 0, sizeof(m));
    m.type = type;
    if (a) m.a = *a;
    gasneti_boot_send(r, &m, sizeof(m));
}

int gasnetc_ibv_connect_slow(gex_Rank_t r, gex_Flags_t flags) {
    gasnetc_ibv_peer_t *p = &gasnetc_ibv_peers[r];
    addr_t a;
    int send = 0;
    IBV_LOCK();
    if (p->state == GASNETC_IBV_NONE) {
        create_qp(r);
        __atomic_store_n(&p->state, GASNETC_IBV_CONNECTING, __ATOMIC_RELEASE);
        my_addr(r, &a);
        send = 1;
    }
    IBV_UNLOCK();
    if (send) send_addr(r, MSG_REQ, &a);
    if (flags & GEX_FLAG_IMMEDIATE) return __atomic_load_n(&p->state, __ATOMIC_ACQUIRE) != GASNETC_IBV_UP;
    while (__atomic_load_n(&p->state, __ATOMIC_ACQUIRE) != GASNETC_IBV_UP) gasneti_poll_backoff(gasnetc_poll());
    return 0;
}

void gasnetc_ibv_connect_poll(void) {
    gex_Rank_t src;
    size_t len;
    cmsg_t *m;
    while ((m = gasneti_boot_recv(&src, &len, 0))) {
        if (len != sizeof(cmsg_t) || m->type < MSG_REQ || m->type > MSG_READY)
            gasneti_fatalerror("ibv-conduit: a malformed connection message (%zu bytes) from rank %u (host %s)", len,
                               (unsigned)src, gasneti_host_name(src));
        gasnetc_ibv_peer_t *p = &gasnetc_ibv_peers[src];
        addr_t mine;
        uint32_t answer = 0;
        IBV_LOCK();
        if (m->type == MSG_READY) {
            handshake(src, HS_PEER);
        } else if (p->state == GASNETC_IBV_NONE) { /* REQ, its first contact: a QP for it, our address back */
            create_qp(src);
            __atomic_store_n(&p->state, GASNETC_IBV_CONNECTING, __ATOMIC_RELEASE);
            my_addr(src, &mine);
            connect_qp(src, &m->a);
            answer = MSG_ACK;
        } else if (!(p->hs & HS_MINE)) { /* the ACK to our REQ, or its REQ crossing ours */
            connect_qp(src, &m->a);
            if (m->type == MSG_ACK) handshake(src, HS_PEER); /* (it connected before it answered) */
            answer = MSG_READY;
        }
        IBV_UNLOCK();
        if (answer) send_addr(src, answer, answer == MSG_ACK ? &mine : NULL);
        free(m);
    }
}

#if GASNETI_DEBUG
/* GASNET_IBV_TEST_REPEAT=N, for tests, in debug builds only (docs/ibv-conduit.md): every
 * Nth lone inline SEND is posted twice, as a verbs stack that delivers a retransmission
 * twice would; the receiver must drop the copy (ibv_am.c, check_seq). 0: off */
static int64_t test_repeat = -1;
static uint64_t n_lone;
static void repeat_for_test(gex_Rank_t r, struct ibv_send_wr *wr, const char *what) {
    if (wr->opcode != IBV_WR_SEND || wr->next || !(wr->send_flags & IBV_SEND_INLINE)) return;
    if (test_repeat < 0) test_repeat = gasneti_getenv_int("GASNET_IBV_TEST_REPEAT", 0);
    if (test_repeat > 0 && ++n_lone % (uint64_t)test_repeat == 0 && gasnetc_ibv_sq_room(r, 1)) {
        struct ibv_send_wr *bad = NULL;
        int rc = ibv_post_send(gasnetc_ibv_peers[r].qp, wr, &bad);
        if (rc) gasnetc_ibv_fail(what, rc, r);
        gasnetc_ibv_peers[r].sq_out++; /* (its data was copied: inline) */
        gasnetc_ibv_sq_total++;
    }
}
#endif

void gasnetc_ibv_post(gex_Rank_t r, struct ibv_send_wr *wr, int n, const char *what) {
    for (struct ibv_send_wr *w = wr; w; w = w->next) w->send_flags |= IBV_SEND_SIGNALED;
    struct ibv_send_wr *bad = NULL;
    int rc = ibv_post_send(gasnetc_ibv_peers[r].qp, wr, &bad);
    if (rc) gasnetc_ibv_fail(what, rc, r);
    gasnetc_ibv_peers[r].sq_out += n;
    gasnetc_ibv_sq_total += n;
#if GASNETI_DEBUG
    if (test_repeat) repeat_for_test(r, wr, what);
#endif
}
