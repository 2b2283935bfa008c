/* ofi_rma.c: native RMA of ofi-conduit: gex_RMA_* to non-neighbors by fi_write/fi_read
 * into the target endpoint's bound segment, each segment of a process registered once
 * (fi_mr_reg: the primordial one at attach, the others at gex_Segment_Create) with its key
 * published by the core (conduit_contract.h, "Segments reached by RDMA"). Layer:
 * ofi-conduit (the optional RDMA half of conduit_contract.h: gasnetc_put, gasnetc_get,
 * gasnetc_rma_native, the segment keys, gasnetc_rma_flush).
 *
 * Used when the provider has FI_RMA and gasnetc_ofi_rma_wanted (GASNET_OFI_RMA) (gasnetc_rma_native;
 * otherwise the extended layer's AM reference serves every peer). Memory registration
 * modes handled: FI_MR_VIRT_ADDR (remote address = virtual address, else the offset in
 * the segment), FI_MR_PROV_KEY (the key the provider gives, else ours), FI_MR_ALLOCATED,
 * FI_MR_LOCAL (gasnetc_ofi_mr_local: a segment's registration serves local buffers in
 * it; one out of every segment is registered for the operation, or copied when it cannot be,
 * local_desc; an atomic's operands and fetched value go through the op itself,
 * registered once); providers needing FI_MR_ENDPOINT are not chosen (ofi_init.c). A put
 * asks for delivery completion (FI_DELIVERY_COMPLETE): its completion means the data is
 * in place at the target, which is when the remote-completion counter is signalled; the
 * source may be reused then too (except in the flush mode, below). Transfers above the
 * provider's max_msg_size go in pieces.
 * Completions arrive in the one completion queue, polled by ofi_am.c, which hands them to
 * gasnetc_ofi_rma_done.
 *
 * Long payloads by fi_write (ofi_long.c, the protocol) are written here the same way
 * (gasnetc_ofi_rma_write_long), each piece's completion handed to gasnetc_ofi_long_written.
 *
 * Remote atomics (gasnetc_amo_domain, gasnetc_amo; GASNETC_NATIVE_AMO): fi_fetch_atomicmsg
 * or fi_compare_atomicmsg on the primordial segment, for an atomic domain whose every
 * (operation, type) the provider reports valid (fi_query_atomic), when the provider has
 * FI_ATOMIC, native RMA is on and gasnetc_ofi_atomics_wanted (GASNET_OFI_ATOMICS). Such a
 * domain sends every operation through the network, those on this process's own and its
 * neighbors' segments included (loopback), so that all are performed by the same agent.
 * GEX ops map to FI_SUM (ADD; SUB, INC, DEC with a negated or constant operand), FI_PROD,
 * FI_MIN, FI_MAX, FI_BAND, FI_BOR, FI_BXOR, FI_ATOMIC_WRITE (SET; SWAP when fetching),
 * FI_ATOMIC_READ (GET) and FI_CSWAP (CAS and FCAS). Every operation fetches, the non-fetching ones into the operation's bounce: the
 * completion of a fetch means the operation was performed at the target, which is when
 * the remote-completion counter is signalled (fi_atomic with FI_DELIVERY_COMPLETE would
 * mean the same, but libfabric 1.17's shm crashes or stalls in fi_cq_read with it when
 * several peers update one location). Operands are copied into the operation (the
 * caller's may be gone before completion); a fetched value goes straight into the
 * client's result buffer. */
#include "conduit_contract.h"
#include "ofi_internal.h"

#include <string.h>


int gasnetc_rma_native;
static int atomics_on; /* FI_ATOMIC, native RMA and GASNET_OFI_ATOMICS */

typedef struct seg_s { /* one registered segment of this process (gasnetc_segment_register) */
    struct seg_s *next;
    struct fid_mr *mr;
    uint64_t base, size;
} seg_t;

typedef struct { /* a peer segment's key, unpacked (gasnetc_segkey_unpack): the core's _rkey */
    uint64_t key;
    uint64_t base; /* subtracted from the owner's addresses: 0 with FI_MR_VIRT_ADDR, else its base */
    gex_EP_Index_t ep;
} rkey_t;

typedef struct rma_op_s { /* one fi_write/fi_read in flight */
    struct fi_context2 ctx; /* first: the operation's context */
    struct rma_op_s *next_free;
    gasneti_counter_t *lc, *rc;
    gasnetc_ofi_long_t *wl; /* a Long's payload (ofi_long.c): gasnetc_ofi_long_written at completion */
    gex_Rank_t peer;
    uint64_t operand[2], bounce; /* atomics: operands, a non-fetching CAS's old value */
    /* FI_MR_LOCAL: the registration of this op's local buffer when it is out of the
     * segment (closed at completion); of the op itself (operands and bounce, for its
     * life); a copy of the local buffer when it could not be registered (freed at
     * completion); where fetched or read data goes at completion, from copy_from */
    struct fid_mr *tmp, *self;
    void *copy, *copy_to;
    const void *copy_from;
    size_t copy_len;
} rma_op_t;

static seg_t *my_segs; /* this process's registered segments (lock held) */
static int virt_addr;
static int bound_keys; /* GASNET_OFI_RMA_BOUND: segments other than the primordial one get keys */
static uint32_t next_seg; /* segments registered so far, for the keys we choose */
static size_t max_piece;
static rma_op_t *free_ops;
static size_t tmp_made, tmp_closed, tmp_copied; /* FI_MR_LOCAL: registrations for one transfer (lock held) */
/* GASNET_VERBOSEENV (rank 0): native puts and gets by the target's endpoint index */
static size_t n_put[GASNET_MAXEPS], n_get[GASNET_MAXEPS], n_amo; /* GASNET_VERBOSEENV */

/* lock held: the registered segment of ours holding [p, p+n), or NULL */
static seg_t *my_seg(const void *p, size_t n) {
    for (seg_t *g = my_segs; g; g = g->next)
        if (gasnetc_ofi_in_range(g->base, g->size, p, n)) return g;
    return NULL;
}

/* lock held */
static rma_op_t *op_get(void) {
    rma_op_t *o = free_ops;
    if (o) {
        free_ops = o->next_free;
        return o;
    }
    o = calloc(1, sizeof(*o));
    if (!o) gasneti_fatalerror("ofi-conduit: out of memory for an RMA operation");
    if (gasnetc_ofi_mr_local) o->self = gasnetc_ofi_reg_local(o, sizeof(*o), "an atomic's operands");
    return o;
}

/* lock held, FI_MR_LOCAL: the descriptor of the local buffer *buf of n bytes: the
 * segment's, or a registration of its own for this op (o->tmp). A buffer that cannot be
 * registered (verbs registers for local write, so a put's source in read-only memory
 * fails with -FI_EFAULT) goes through a copy of ours, registered instead: *buf becomes
 * the copy, filled now for a write, copied out at completion for a read. */
static void *local_desc(rma_op_t *o, void **buf, size_t n, int write) {
    seg_t *g = my_seg(*buf, n);
    if (g) return fi_mr_desc(g->mr);
    tmp_made++;
    if (gasnetc_ofi_try_reg_local(*buf, n, &o->tmp) == 0) return fi_mr_desc(o->tmp);
    o->copy = malloc(n ? n : 1);
    if (!o->copy) gasneti_fatalerror("ofi-conduit: out of memory for a copy of %zu bytes (FI_MR_LOCAL)", n);
    if (write) memcpy(o->copy, *buf, n);
    else o->copy_to = *buf, o->copy_from = o->copy, o->copy_len = n;
    *buf = o->copy;
    tmp_copied++;
    o->tmp = gasnetc_ofi_reg_local(o->copy, n, "a copy of a local buffer that could not be registered");
    return fi_mr_desc(o->tmp);
}

/* lock held: the op is done with (completed, or not issued) */
static void op_put(rma_op_t *o) {
    if (o->tmp) fi_close(&o->tmp->fid), tmp_closed++;
    free(o->copy);
    o->tmp = NULL;
    o->copy = NULL;
    o->next_free = free_ops;
    free_ops = o;
}

/* Issues one operation: takes an op (its context, counters and peer set), has `start`
 * hand it to the provider (lock held), and retries after progress while the provider
 * says -FI_EAGAIN; with GEX_FLAG_IMMEDIATE returns 1 then, nothing issued. Any other
 * error is fatal, naming the call (`what`) and the peer. */
typedef ssize_t (*start_fn)(rma_op_t *o, void *arg);
static int post(gex_Rank_t jr, gasneti_counter_t *lc, gasneti_counter_t *rc, gex_Flags_t flags, const char *what,
                start_fn start, void *arg) {
    for (;;) {
        OFI_LOCK();
        rma_op_t *o = op_get();
        o->lc = lc;
        o->rc = rc;
        o->wl = NULL;
        o->copy_to = NULL;
        o->peer = jr;
        ssize_t r = start(o, arg);
        if (r) op_put(o);
        OFI_UNLOCK();
        if (r == 0) return 0;
        if (r != -FI_EAGAIN) gasnetc_ofi_fail(what, r, (long)jr);
        if (flags & GEX_FLAG_IMMEDIATE) return 1;
        gasneti_poll_backoff(gasnetc_poll());
    }
}

/* lock held: a completion of ours arrived */
void gasnetc_ofi_rma_done(void *context) {
    rma_op_t *o = context;
    gasnetc_ofi_long_t *wl = o->wl;
    if (o->copy_to) memcpy(o->copy_to, o->copy_from, o->copy_len);
    if (o->lc) gasneti_counter_done(o->lc);
    if (o->rc) gasneti_counter_done(o->rc);
    op_put(o);
    if (wl) gasnetc_ofi_long_written(wl);
}

long gasnetc_ofi_rma_peer(void *context) { return context ? (long)((rma_op_t *)context)->peer : -1; }

/* the flush mode (below): set up when asked for; the targets of puts posted with local
 * completion only, since their last flush (lock held) */
static void flush_init(void);
static gasneti_dirty_t dirty;
static uint8_t *rma_am; /* [gasneti_nodes] (datagrams on): small RMA to each peer by AMs (rma_by_am) */
static size_t n_by_am;

void gasnetc_ofi_rma_init(void) {
    struct fi_info *info = gasnetc_ofi_info;
    /* the same on every rank: FI_RMA comes from the one provider, GASNET_OFI_RMA from the
     * launcher's environment */
    gasnetc_rma_native = (info->caps & FI_RMA) && gasnetc_ofi_rma_wanted();
    if (!gasnetc_rma_native) return;
    if (gasnetc_ofi_dg_on && !(rma_am = calloc(gasneti_nodes, 1)))
        gasneti_fatalerror("ofi-conduit: out of memory for %u peers", (unsigned)gasneti_nodes);
    virt_addr = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) != 0;
    bound_keys = gasneti_getenv_yesno("GASNET_OFI_RMA_BOUND", 1);
    max_piece = info->ep_attr->max_msg_size ? info->ep_attr->max_msg_size : (1u << 30);
    if (max_piece > (1u << 30)) max_piece = 1u << 30;
    atomics_on = (info->caps & FI_ATOMIC) && gasnetc_ofi_atomics_wanted();
    if (gasneti_getenv_yesno("GASNET_OFI_RMA_FLUSH", 0)) flush_init();
}

/* ---------------------------------------------------------------------------------
 * Segments and their keys (conduit_contract.h, "Segments reached by RDMA"): one fid_mr
 * per segment. Without FI_MR_PROV_KEY the key is ours, unique in this process's domain:
 * rank + 1 for the primordial segment, rank + 1 + n * nodes for the n-th after it
 * (below 2^40, where gasnetc_ofi_try_reg_local's keys start; a segment beyond that is
 * reached by AMs). The blob is the key, then, when remote addresses are offsets (no
 * FI_MR_VIRT_ADDR), the segment's base.
 * --------------------------------------------------------------------------------- */
size_t gasnetc_segment_register(gex_Segment_t seg, void *key) {
    if (!gasnetc_ofi_up || !gasnetc_rma_native || (seg->_id && !bound_keys)) return 0;
    uint64_t access = FI_REMOTE_READ | FI_REMOTE_WRITE;
    if (gasnetc_ofi_mr_local) access |= FI_SEND | FI_RECV | FI_READ | FI_WRITE; /* local buffers too */
    seg_t *g = calloc(1, sizeof(*g));
    if (!g) gasneti_fatalerror("ofi-conduit: out of memory registering a segment");
    OFI_LOCK();
    uint64_t want = (uint64_t)gasneti_mynode + 1 + (uint64_t)next_seg++ * gasneti_nodes;
    int rc = -FI_ENOKEY;
    if (want < ((uint64_t)1 << 40))
        rc = fi_mr_reg(gasnetc_ofi_domain, seg->_addr, seg->_size, access, 0, want, 0, &g->mr, NULL);
    if (rc == 0) {
        g->base = (uint64_t)(uintptr_t)seg->_addr;
        g->size = seg->_size;
        g->next = my_segs;
        my_segs = g;
    }
    OFI_UNLOCK();
    if (rc && seg->_id == 0) gasnetc_ofi_fail("fi_mr_reg (the segment)", rc, -1);
    if (rc) { /* reached by AMs */
        free(g);
        return 0;
    }
    seg->_creg = g;
    uint64_t blob[2] = {fi_mr_key(g->mr), g->base};
    size_t len = virt_addr ? 8 : 16;
    memcpy(key, blob, len);
    return len;
}

void gasnetc_segment_deregister(gex_Segment_t seg) {
    seg_t *g = seg->_creg;
    if (!g) return;
    OFI_LOCK();
    for (seg_t **p = &my_segs; *p; p = &(*p)->next)
        if (*p == g) {
            *p = g->next;
            break;
        }
    fi_close(&g->mr->fid);
    OFI_UNLOCK();
    free(g);
    seg->_creg = NULL;
}

const void *gasnetc_segkey_unpack(gex_Rank_t owner, gex_EP_Index_t ep, const void *blob, size_t len) {
    (void)owner;
    if (len != (virt_addr ? 8u : 16u)) return NULL;
    rkey_t *k = calloc(1, sizeof(*k));
    if (!k) gasneti_fatalerror("ofi-conduit: out of memory for a segment key");
    uint64_t b[2] = {0, 0};
    memcpy(b, blob, len);
    k->key = b[0];
    k->base = b[1];
    k->ep = ep;
    return k;
}

/* the segment owner's address of x (dest or src in the target's segment) as libfabric
 * wants it: the virtual address, or the offset from the segment's base */
static inline uint64_t remote_addr(const rkey_t *k, void *x) { return (uint64_t)(uintptr_t)x - k->base; }


typedef struct {
    int write;
    uint64_t wflags; /* a write's completion: FI_DELIVERY_COMPLETE, or FI_INJECT_COMPLETE (flush mode) */
    gasnetc_ofi_long_t *wl;
    void *local; /* the caller's buffer: iov's, unless local_desc copies it (per attempt) */
    void *desc;
    struct iovec iov;
    struct fi_msg_rma msg;
} rma_args_t;

static ssize_t start_rma(rma_op_t *o, void *arg) {
    rma_args_t *a = arg;
    o->wl = a->wl;
    a->iov.iov_base = a->local;
    if (gasnetc_ofi_mr_local) {
        a->desc = local_desc(o, &a->iov.iov_base, a->iov.iov_len, a->write);
        a->msg.desc = &a->desc;
    }
    a->msg.context = &o->ctx;
    if (!a->write) return fi_readmsg(gasnetc_ofi_ep[GASNETC_CH_REQ], &a->msg, FI_COMPLETION);
    ssize_t r = fi_writemsg(gasnetc_ofi_ep[GASNETC_CH_REQ], &a->msg, a->wflags | FI_COMPLETION);
    if (r == 0 && a->wflags == FI_INJECT_COMPLETE) gasneti_dirty_mark(&dirty, o->peer);
    return r;
}

/* one piece: fi_writemsg or fi_readmsg (see post) */
static int issue(int write, gex_Rank_t jr, uint64_t key, void *local, uint64_t raddr, size_t n,
                 gasneti_counter_t *lc, gasneti_counter_t *rc, gasnetc_ofi_long_t *wl, gex_Flags_t flags) {
    struct fi_rma_iov riov = {raddr, n, key};
    rma_args_t a;
    memset(&a, 0, sizeof(a));
    a.write = write;
    /* a put's remote completion by a later flush; a Long's payload must be in place
     * before its header goes (wl) */
    a.wflags = gasnetc_rma_flush_on && !wl ? FI_INJECT_COMPLETE : FI_DELIVERY_COMPLETE;
    a.wl = wl;
    a.local = local;
    a.iov.iov_len = n;
    a.msg.msg_iov = &a.iov;
    a.msg.iov_count = 1;
    a.msg.addr = GASNETC_OFI_PEER(jr, GASNETC_CH_REQ);
    a.msg.rma_iov = &riov;
    a.msg.rma_iov_count = 1;
    return post(jr, lc, rc, flags, write ? "fi_writemsg" : "fi_readmsg", start_rma, &a);
}

size_t gasnetc_ofi_rma_npieces(size_t nbytes) { return nbytes ? (nbytes + max_piece - 1) / max_piece : 1; }

/* A write or read of nbytes in pieces of at most max_piece, each completing lc, rc and wl
 * (their counts taken by the caller); 1 if refused for GEX_FLAG_IMMEDIATE (nothing issued:
 * only the first piece may be refused). */
static int pieces(int write, gex_Rank_t jr, const rkey_t *k, void *local, void *remote, size_t nbytes,
                  gasneti_counter_t *lc, gasneti_counter_t *rc, gasnetc_ofi_long_t *wl, gex_Flags_t flags) {
    uint64_t raddr = remote_addr(k, remote);
    size_t npieces = gasnetc_ofi_rma_npieces(nbytes);
    for (size_t off = 0, i = 0; i < npieces; i++, off += max_piece) {
        size_t n = nbytes - off < max_piece ? nbytes - off : max_piece;
        gex_Flags_t f = i ? flags & ~(gex_Flags_t)GEX_FLAG_IMMEDIATE : flags;
        if (issue(write, jr, k->key, (char *)local + off, raddr + off, n, lc, rc, wl, f)) return 1;
    }
    return 0;
}

/* RMA to a peer without a connection (datagrams on, ofi_dgram.c): the first RMA_AM_FIRST
 * small ones go by the AM reference (GASNETC_RMA_BY_AM: datagrams); after them, or a
 * bigger one, the RDM endpoint (a connection: the peer is marked). So a peer touched now
 * and then costs no connection, and a busy one gets one. With GASNET_OFI_DGRAM_SWITCH=never
 * every small one goes by AMs. */
#define RMA_AM_FIRST 16
#define RMA_AM_SMALL 512
static int rma_by_am(gex_Rank_t jr, size_t n) {
    if (GASNETI_LIKELY(!gasnetc_ofi_dg_to(jr))) return 0;
    if (n <= RMA_AM_SMALL) {
        int by_am = !gasnetc_ofi_dg_follow;
        OFI_LOCK();
        if (rma_am[jr] < RMA_AM_FIRST) rma_am[jr]++, by_am = 1;
        n_by_am += by_am;
        OFI_UNLOCK();
        if (by_am) return 1;
    }
    gasnetc_ofi_dg_mark(jr);
    return 0;
}

int gasnetc_put(gex_Rank_t jr, const void *rkey, void *dest, const void *src, size_t nbytes, gasneti_counter_t *lc,
                gasneti_counter_t *rc, gex_Flags_t flags) {
    if (rma_by_am(jr, nbytes)) return GASNETC_RMA_BY_AM;
    const rkey_t *k = rkey;
    if (gasnetc_ofi_verbose) __atomic_fetch_add(&n_put[k->ep], 1, __ATOMIC_RELAXED);
    gasneti_counter_t mine; /* no lc: wait here until the source may be reused */
    gasneti_counter_t *l = lc ? lc : &mine;
    size_t npieces = gasnetc_ofi_rma_npieces(nbytes);
    gasneti_atomic_set(&mine, 0);
    /* the caller counted one lc and one rc for the whole put: the other pieces add theirs */
    for (size_t i = 1; i < npieces; i++) {
        gasneti_counter_add(rc);
        gasneti_counter_add(l);
    }
    if (!lc) gasneti_counter_add(&mine);
    if (pieces(1, jr, k, (void *)src, dest, nbytes, l, rc, NULL, flags)) {
        for (size_t k = 1; k < npieces; k++) {
            gasneti_counter_done(rc);
            gasneti_counter_done(l);
        }
        return 1;
    }
    /* (backing off: the put may need the target's progress, and the target our CPU) */
    while (!lc && gasneti_atomic_read(&mine) != 0) gasneti_poll_backoff(gasnetc_poll());
    return 0;
}

int gasnetc_get(void *dest, gex_Rank_t jr, const void *rkey, void *src, size_t nbytes, gasneti_counter_t *rc,
                gex_Flags_t flags) {
    if (rma_by_am(jr, nbytes)) return GASNETC_RMA_BY_AM;
    const rkey_t *k = rkey;
    if (gasnetc_ofi_verbose) __atomic_fetch_add(&n_get[k->ep], 1, __ATOMIC_RELAXED);
    size_t npieces = gasnetc_ofi_rma_npieces(nbytes);
    for (size_t i = 1; i < npieces; i++) gasneti_counter_add(rc);
    if (pieces(0, jr, k, dest, src, nbytes, NULL, rc, NULL, flags)) {
        for (size_t k = 1; k < npieces; k++) gasneti_counter_done(rc);
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------
 * Remote completion by flush (GASNET_OFI_RMA_FLUSH=1; conduit_contract.h,
 * GASNETC_RMA_FLUSH). A put is then posted with FI_INJECT_COMPLETE: its completion says
 * only that the source may be reused, and it signals both counters then; the put's
 * target is marked (gasneti_dirty_mark). gasnetc_rma_flush reads 8 bytes of every marked
 * target's primordial segment with fi_read on the same endpoint and waits for those
 * reads: the provider orders a read after the writes before it to the same peer
 * (FI_ORDER_RMA_RAW, or FI_ORDER_RAW, in its tx_attr->msg_order, for operations of at
 * most ep_attr->max_order_raw_size bytes, fi_endpoint(3): "the RMA read operation will
 * see the results of the previous RMA write"), so a read's completion means every
 * earlier write to that peer is in place. Pieces are capped at max_order_raw_size. A
 * provider without that order (shm reports max_order_raw_size 0) keeps delivery
 * completion for every put (the mode is off; GASNET_VERBOSEENV says so).
 * --------------------------------------------------------------------------------- */
int gasnetc_rma_flush_on;
static int flush_refused;     /* asked for, but the provider does not order reads after writes */
static gex_Rank_t *flushing;  /* the ones one flush reads (flush_lock held) */
static size_t n_flushes, n_flush_reads;
static gasneti_counter_t flush_reads; /* the flush's reads not completed (flush_lock held) */
#if GASNETI_LOCKS
static pthread_mutex_t flush_lock = PTHREAD_MUTEX_INITIALIZER; /* one flush at a time */
#endif

static void flush_init(void) {
    struct fi_info *info = gasnetc_ofi_info;
    size_t raw = info->ep_attr->max_order_raw_size;
    if (!(info->tx_attr->msg_order & (FI_ORDER_RMA_RAW | FI_ORDER_RAW)) || raw < sizeof(uint64_t)) {
        flush_refused = 1;
        return;
    }
    gasneti_dirty_init(&dirty);
    flushing = gasneti_net_malloc(gasneti_nodes * sizeof(gex_Rank_t), "a flush's peers");
    if (max_piece > raw) max_piece = raw;
    gasnetc_rma_flush_on = 1;
}

typedef struct {
    uint64_t raddr, key;
} flush_args_t;

static ssize_t start_flush(rma_op_t *o, void *arg) {
    flush_args_t *a = arg;
    struct iovec iov = {&o->bounce, sizeof(o->bounce)};
    struct fi_rma_iov riov = {a->raddr, sizeof(o->bounce), a->key};
    void *desc = o->self ? fi_mr_desc(o->self) : NULL; /* FI_MR_LOCAL: the op is registered */
    struct fi_msg_rma msg;
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &iov;
    msg.desc = desc ? &desc : NULL;
    msg.iov_count = 1;
    msg.addr = GASNETC_OFI_PEER(o->peer, GASNETC_CH_REQ);
    msg.rma_iov = &riov;
    msg.rma_iov_count = 1;
    msg.context = &o->ctx;
    return fi_readmsg(gasnetc_ofi_ep[GASNETC_CH_REQ], &msg, FI_COMPLETION);
}

void gasnetc_rma_flush(void) {
#if GASNETI_LOCKS
    pthread_mutex_lock(&flush_lock);
#endif
    OFI_LOCK();
    size_t n = gasneti_dirty_take(&dirty, flushing);
    OFI_UNLOCK();
    for (size_t i = 0; i < n; i++) {
        const gasneti_peerseg_t *ps = &gasneti_peerseg[flushing[i]];
        const rkey_t *k = ps->_rkey;
        flush_args_t a = {remote_addr(k, ps->_owner_addr), k->key};
        gasneti_counter_add(&flush_reads);
        post(flushing[i], NULL, &flush_reads, 0, "fi_readmsg (a flush)", start_flush, &a);
    }
    /* at an exit past its timeout, a target that does not poll is given up on: its read
     * completes (into flush_reads, never on this stack) or not, the process leaves */
    while (gasneti_atomic_read(&flush_reads) != 0 && !gasneti_exit_overdue()) gasneti_poll_backoff(gasnetc_poll());
    n_flushes++;
    n_flush_reads += n;
#if GASNETI_LOCKS
    pthread_mutex_unlock(&flush_lock);
#endif
}

/* ofi_long.c: a Long's payload by fi_write (its write completes delivered, each piece
 * calling gasnetc_ofi_long_written) */
int gasnetc_ofi_rma_write_long(gex_Rank_t jr, const void *rkey, const void *src, void *dest, size_t nbytes,
                               gasnetc_ofi_long_t *wl, gex_Flags_t flags) {
    return pieces(1, jr, rkey, (void *)src, dest, nbytes, NULL, NULL, wl, flags);
}

/* ---------------------------------------------------------------------------------
 * Remote atomics
 * --------------------------------------------------------------------------------- */
enum { K_FETCH, K_COMPARE }; /* fi_fetch_atomic, fi_compare_atomic */

static int fi_type(gex_DT_t dt) {
    switch (dt) {
        case GEX_DT_I32: return FI_INT32;
        case GEX_DT_U32: return FI_UINT32;
        case GEX_DT_I64: return FI_INT64;
        case GEX_DT_U64: return FI_UINT64;
        case GEX_DT_FLT: return FI_FLOAT;
        case GEX_DT_DBL: return FI_DOUBLE;
        default: return -1;
    }
}

/* one GEX_OP_* as a libfabric operation and call; -1: none */
static int fi_opcode(gex_OP_t op, int *kind) {
    *kind = K_FETCH; /* non-fetching ones too (the old value into the bounce): see the top */
    switch (op == GEX_OP_GET ? op : GEX_OP_TO_NONFETCHING(op)) {
        case GEX_OP_GET: return FI_ATOMIC_READ;
        case GEX_OP_SET: return FI_ATOMIC_WRITE; /* SWAP when fetching */
        case GEX_OP_CAS: *kind = K_COMPARE; return FI_CSWAP;
        case GEX_OP_ADD: case GEX_OP_SUB: case GEX_OP_INC: case GEX_OP_DEC: return FI_SUM;
        case GEX_OP_MULT: return FI_PROD;
        case GEX_OP_MIN: return FI_MIN;
        case GEX_OP_MAX: return FI_MAX;
        case GEX_OP_AND: return FI_BAND;
        case GEX_OP_OR: return FI_BOR;
        case GEX_OP_XOR: return FI_BXOR;
        default: return -1;
    }
}

/* lock held: may the provider do (fop, fdt) as a `kind` call, one element at a time? */
static int valid(int fdt, int fop, int kind) {
    struct fi_atomic_attr attr;
    uint64_t f = kind == K_FETCH ? FI_FETCH_ATOMIC : FI_COMPARE_ATOMIC;
    memset(&attr, 0, sizeof(attr));
    int rc = fi_query_atomic(gasnetc_ofi_domain, (enum fi_datatype)fdt, (enum fi_op)fop, &attr, f);
    if (rc == -FI_ENOSYS) { /* a provider without the domain query: the endpoint's */
        size_t count = 0;
        struct fid_ep *ep = gasnetc_ofi_ep[GASNETC_CH_REQ];
        enum fi_datatype t = (enum fi_datatype)fdt;
        enum fi_op o = (enum fi_op)fop;
        rc = kind == K_FETCH ? fi_fetch_atomicvalid(ep, t, o, &count) : fi_compare_atomicvalid(ep, t, o, &count);
        return rc == 0 && count >= 1;
    }
    return rc == 0 && attr.count >= 1;
}

int gasnetc_amo_domain(gex_DT_t dt, gex_OP_t ops) {
    int fdt = fi_type(dt), ok = atomics_on && gasnetc_rma_native && fdt >= 0 && ops;
    OFI_LOCK();
    for (gex_OP_t rest = ops; ok && rest; rest &= rest - 1) {
        int kind, fop = fi_opcode(rest & -rest, &kind);
        ok = fop >= 0 && valid(fdt, fop, kind);
    }
    OFI_UNLOCK();
    return ok;
}

/* the operand libfabric adds for SUB (-a), INC (1), DEC (-1), in the type's bytes */
static uint64_t sum_operand(gex_DT_t dt, gex_OP_t base, const void *a) {
    uint64_t v = 0;
    if (dt == GEX_DT_FLT) {
        float x = base == GEX_OP_INC ? 1.0f : base == GEX_OP_DEC ? -1.0f : -*(const float *)a;
        memcpy(&v, &x, 4);
    } else if (dt == GEX_DT_DBL) {
        double x = base == GEX_OP_INC ? 1.0 : base == GEX_OP_DEC ? -1.0 : -*(const double *)a;
        memcpy(&v, &x, 8);
    } else if (dt == GEX_DT_I32 || dt == GEX_DT_U32) {
        uint32_t x = base == GEX_OP_INC ? 1u : base == GEX_OP_DEC ? (uint32_t)-1 : -*(const uint32_t *)a;
        memcpy(&v, &x, 4);
    } else {
        v = base == GEX_OP_INC ? 1u : base == GEX_OP_DEC ? (uint64_t)-1 : -*(const uint64_t *)a;
    }
    return v;
}

typedef struct {
    int kind;
    uint64_t opnd[2]; /* the operand, and CAS's second */
    void *result;
    size_t size; /* of an element */
    struct fi_msg_atomic msg;
} amo_args_t;

static ssize_t start_amo(rma_op_t *o, void *arg) {
    amo_args_t *a = arg;
    struct fid_ep *ep = gasnetc_ofi_ep[GASNETC_CH_REQ];
    /* CAS: libfabric writes buf where the target equals compare: buf = operand2 */
    o->operand[0] = a->kind == K_COMPARE ? a->opnd[1] : a->opnd[0];
    o->operand[1] = a->opnd[0];
    struct fi_ioc buf = {&o->operand[0], 1}, cmp = {&o->operand[1], 1};
    struct fi_ioc res = {a->result ? a->result : (void *)&o->bounce, 1};
    void *desc = NULL, **d = NULL;
    if (gasnetc_ofi_mr_local) { /* operands in the registered op; the result through its bounce */
        desc = fi_mr_desc(o->self);
        d = &desc;
        res.addr = &o->bounce;
        o->copy_to = a->result;
        o->copy_from = &o->bounce;
        o->copy_len = a->size;
    }
    a->msg.msg_iov = &buf;
    a->msg.desc = d;
    a->msg.context = &o->ctx;
    return a->kind == K_COMPARE ? fi_compare_atomicmsg(ep, &a->msg, &cmp, d, 1, &res, d, 1, FI_COMPLETION)
                                : fi_fetch_atomicmsg(ep, &a->msg, &res, d, 1, FI_COMPLETION);
}

int gasnetc_amo(gex_Rank_t jr, const void *rkey, void *tgt, gex_DT_t dt, gex_OP_t op, const void *operand1, const void *operand2,
                void *result, gasneti_counter_t *rc, gex_Flags_t flags) {
    gasnetc_ofi_dg_mark(jr); /* (by the RDM endpoint: a connection) */
    int kind, fop = fi_opcode(op, &kind);
    gex_OP_t base = op == GEX_OP_GET ? op : GEX_OP_TO_NONFETCHING(op);
    size_t sz = (dt == GEX_DT_I32 || dt == GEX_DT_U32 || dt == GEX_DT_FLT) ? 4 : 8;
    amo_args_t a;
    memset(&a, 0, sizeof(a));
    if (base == GEX_OP_SUB || base == GEX_OP_INC || base == GEX_OP_DEC) a.opnd[0] = sum_operand(dt, base, operand1);
    else if (base != GEX_OP_GET) memcpy(&a.opnd[0], operand1, sz);
    if (base == GEX_OP_CAS) memcpy(&a.opnd[1], operand2, sz);
    const rkey_t *k = rkey; /* the target segment's (primordial or bound) */
    if (gasnetc_ofi_verbose) __atomic_fetch_add(&n_amo, 1, __ATOMIC_RELAXED);
    struct fi_rma_ioc rioc = {remote_addr(k, tgt), 1, k->key};
    a.kind = kind;
    a.result = result;
    a.size = sz;
    a.msg.iov_count = 1;
    a.msg.addr = GASNETC_OFI_PEER(jr, GASNETC_CH_REQ);
    a.msg.rma_iov = &rioc;
    a.msg.rma_iov_count = 1;
    a.msg.datatype = (enum fi_datatype)fi_type(dt);
    a.msg.op = (enum fi_op)fop;
    return post(jr, NULL, rc, flags, kind == K_COMPARE ? "fi_compare_atomicmsg" : "fi_fetch_atomicmsg", start_amo, &a);
}

void gasnetc_ofi_rma_say_regs(void) {
    OFI_LOCK();
    size_t made = tmp_made, held = tmp_made - tmp_closed, copied = tmp_copied;
    OFI_UNLOCK();
    fprintf(stderr, "ofi-conduit: rank %u registered %zu local buffer(s) out of the segment for one transfer each "
            "(FI_MR_LOCAL), %zu of them through a copy, %zu still held\n", (unsigned)gasneti_mynode, made, copied, held);
}

void gasnetc_ofi_rma_say(void) {
    if (gasnetc_ofi_dg_on)
        fprintf(stderr, "ofi-conduit: rank %u RMA by AMs to peers without a connection (datagrams): %zu\n",
                (unsigned)gasneti_mynode, n_by_am);
    for (int e = 0; e < GASNET_MAXEPS; e++) {
        size_t p = __atomic_load_n(&n_put[e], __ATOMIC_RELAXED), g = __atomic_load_n(&n_get[e], __ATOMIC_RELAXED);
        if (p || g)
            fprintf(stderr, "ofi-conduit: rank %u native RMA to endpoint %d: %zu put(s) by fi_write, %zu get(s) by "
                    "fi_read\n", (unsigned)gasneti_mynode, e, p, g);
    }
    size_t a = __atomic_load_n(&n_amo, __ATOMIC_RELAXED);
    if (a)
        fprintf(stderr, "ofi-conduit: rank %u made %zu atomic operation(s) by fi_fetch_atomicmsg or "
                "fi_compare_atomicmsg\n", (unsigned)gasneti_mynode, a);
    if (gasnetc_rma_flush_on)
        fprintf(stderr, "ofi-conduit: rank %u flushed puts' remote completion %zu time(s), by %zu fi_read(s) "
                "(GASNET_OFI_RMA_FLUSH=1)\n", (unsigned)gasneti_mynode, n_flushes, n_flush_reads);
    else if (flush_refused)
        fprintf(stderr, "ofi-conduit: GASNET_OFI_RMA_FLUSH=1 ignored: provider %s does not order a read after a write "
                "(msg_order 0x%llx without FI_ORDER_RMA_RAW, or max_order_raw_size %zu); puts complete by "
                "FI_DELIVERY_COMPLETE\n", gasnetc_ofi_info->fabric_attr->prov_name,
                (unsigned long long)gasnetc_ofi_info->tx_attr->msg_order, gasnetc_ofi_info->ep_attr->max_order_raw_size);
}

void gasnetc_ofi_rma_fini(void) {
    for (rma_op_t *o = free_ops; o; o = o->next_free)
        if (o->self) fi_close(&o->self->fid), o->self = NULL;
    for (seg_t *g = my_segs; g; g = g->next) fi_close(&g->mr->fid);
    my_segs = NULL;
}
