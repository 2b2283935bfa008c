/* ibv_rma.c: native RMA and atomics of ibv-conduit: gex_RMA_* to non-neighbors by RDMA
 * WRITE/READ into the target endpoint's bound segment, each segment of a process
 * registered once (ibv_reg_mr: the primordial one at attach, the others at
 * gex_Segment_Create), its key (rkey, base, size) published by the core
 * (conduit_contract.h, "Segments reached by RDMA"); 64-bit remote atomics by the HCA.
 * Layer: ibv-conduit (the optional RDMA half of conduit_contract.h: gasnetc_put,
 * gasnetc_get, gasnetc_amo, gasnetc_rma_native, the segment keys).
 *
 * Local memory: a transfer whose local buffer lies in one of this process's registered
 * segments uses the segment's registration. Any other buffer goes through bounce
 * buffers (GASNETC_IBV_BOUNCE = 64 KiB each, 64 of them, registered once at first use;
 * the toolkit's slot pool): a put is copied in (its source may then be reused) and
 * written from there, a get read into one and copied out at completion. A put of at most
 * the QP's inline size goes inline (no registration needed); a get of at most 8 bytes
 * lands in the operation's own registered word. Transfers above the port's largest
 * message go in pieces.
 * Completion: an RDMA WRITE's completion on an RC QP means the responder acknowledged it,
 * the data is in place: both counters are signalled then.
 *
 * Atomics (GASNETC_NATIVE_AMO): where the device has them (atomic_cap) and
 * GASNET_IBV_ATOMICS is not 0, an atomic domain of I64 or U64 whose operations are all
 * among GET, ADD, SUB, INC, DEC, CAS and their fetching forms goes to the HCA:
 * IBV_WR_ATOMIC_FETCH_AND_ADD (GET adds 0; SUB, INC, DEC add -a, 1, -1) and
 * IBV_WR_ATOMIC_CMP_AND_SWP. Every operation of such a domain goes through the network,
 * to this process's own segment and its neighbors' too (loopback QPs), because the HCA's
 * atomics are atomic only with respect to each other (IBV_ATOMIC_HCA). Other domains
 * (32-bit, floating point, SET, MIN, ...) use CPU atomics and AMs (gasnete_ratomic.c),
 * and so does every domain when an HCA's atomics fail the start-up probe of their byte
 * order (gasnetc_ibv_atomics_probe). The old value lands in the operation's registered
 * word and is copied to the client's result at completion. */
#include "conduit_contract.h"
#include "ibv_internal.h"

#include <errno.h>
#include <string.h>

int gasnetc_rma_native;
gasneti_slots_t gasnetc_ibv_bounce;
static int atomics_on;

#define NBOUNCE 64
#define OPS_CHUNK 256

typedef struct seg_s { /* one registered segment of this process */
    struct seg_s *next;
    struct ibv_mr *mr;
    uint64_t base, size;
} seg_t;
static seg_t *my_segs; /* lock held */

typedef struct chunk_s { /* ops are made in registered chunks */
    struct chunk_s *next;
    struct ibv_mr *mr;
} chunk_t;
static chunk_t *chunks;
static gasnetc_ibv_op_t *free_ops;
/* GASNET_VERBOSEENV (rank 0): what native RMA did */
static size_t n_put, n_get, n_amo, n_bounced, n_inline, n_by_am;

/* ---------------------------------------------------------------------------------
 * Ops and bounce buffers
 * --------------------------------------------------------------------------------- */
gasnetc_ibv_op_t *gasnetc_ibv_op_get(gex_Rank_t peer, uint8_t kind) {
    if (!free_ops) {
        size_t bytes = sizeof(chunk_t) + OPS_CHUNK * sizeof(gasnetc_ibv_op_t);
        chunk_t *c = gasneti_net_malloc(bytes, "RDMA operations");
        c->mr = gasnetc_ibv_reg(c, bytes, IBV_ACCESS_LOCAL_WRITE, "RDMA operations");
        c->next = chunks;
        chunks = c;
        gasnetc_ibv_op_t *o = (gasnetc_ibv_op_t *)((uint8_t *)c + ((sizeof(chunk_t) + 15) & ~(size_t)15));
        size_t n = (bytes - ((sizeof(chunk_t) + 15) & ~(size_t)15)) / sizeof(*o);
        for (size_t i = 0; i < n; i++) {
            o[i].lkey = c->mr->lkey;
            o[i].next = free_ops;
            free_ops = &o[i];
        }
    }
    gasnetc_ibv_op_t *o = free_ops;
    free_ops = o->next;
    o->lc = o->rc = NULL;
    o->copy_to = NULL;
    o->copy_len = 0;
    o->bounce = -1;
    o->peer = peer;
    o->kind = kind;
    return o;
}

void gasnetc_ibv_op_put(gasnetc_ibv_op_t *o) {
    o->next = free_ops;
    free_ops = o;
}

static void *bounce_reg(void *buf, size_t len) {
    return gasnetc_ibv_reg(buf, len, IBV_ACCESS_LOCAL_WRITE, "a bounce buffer");
}
static void bounce_dereg(void *mr) { ibv_dereg_mr(mr); }

int gasnetc_ibv_bounce_get(void) {
    int i = gasneti_slots_get(&gasnetc_ibv_bounce);
    if (i >= 0) gasneti_slots_buf(&gasnetc_ibv_bounce, i, GASNETC_IBV_BOUNCE);
    return i;
}

void gasnetc_ibv_op_done(gasnetc_ibv_op_t *o) {
    if (o->copy_to) memcpy(o->copy_to, o->copy_from, o->copy_len);
    if (o->lc) gasneti_counter_done(o->lc);
    if (o->rc) gasneti_counter_done(o->rc);
    if (o->bounce >= 0) gasneti_slots_put(&gasnetc_ibv_bounce, o->bounce);
    gasnetc_ibv_op_put(o);
}

uint32_t gasnetc_ibv_local_key(const void *p, size_t n, int *ok) {
    for (seg_t *g = my_segs; g; g = g->next)
        if (gasnetc_ibv_in_range(g->base, g->size, p, n)) {
            *ok = 1;
            return g->mr->lkey;
        }
    *ok = 0;
    return 0;
}

void gasnetc_ibv_rma_init(void) {
    /* the same on every rank: GASNET_IBV_RMA comes from the launcher's environment */
    gasnetc_rma_native = gasneti_getenv_yesno("GASNET_IBV_RMA", 1);
    atomics_on = gasnetc_rma_native && gasnetc_ibv_port.atomics && gasneti_getenv_yesno("GASNET_IBV_ATOMICS", 1);
    gasneti_slots_init(&gasnetc_ibv_bounce, NBOUNCE, GASNETC_IBV_BOUNCE, bounce_reg, bounce_dereg);
}

/* The HCA's atomics tried once, at start-up (every QP connected, before any peer may
 * send, so the completion queue holds nothing else): a fetch-and-add of 1 through this
 * process's own QP to a word of its own holding 0x0102030405060708 must return that
 * value and leave ...09, both as this host stores them. An HCA that answers in another
 * byte order (some return the old value big-endian) fails it. The results are shared:
 * atomic domains go to the HCA only if every rank's HCA passed (a domain is served the
 * same way everywhere), else by CPU and AMs, and GASNET_VERBOSEENV says why.
 * GASNET_IBV_TEST_ATOMIC_SWAP=1 (tests only) byte-swaps the value returned, as such an
 * HCA would. */
#define PROBE_WORD 0x0102030405060708ull
const char *gasnetc_ibv_atomics_off; /* why the HCA serves no atomic domain, or NULL */
static char probe_why[160];

/* an atomic's work request for op o: its old value lands in o->result */
static void fill_amo(struct ibv_send_wr *wr, struct ibv_sge *sge, gasnetc_ibv_op_t *o, int cas, uint64_t raddr,
                     uint32_t rkey, uint64_t compare_add, uint64_t swap) {
    *sge = (struct ibv_sge){(uintptr_t)&o->result, 8, o->lkey};
    memset(wr, 0, sizeof(*wr));
    wr->wr_id = (uintptr_t)o;
    wr->sg_list = sge;
    wr->num_sge = 1;
    wr->opcode = cas ? IBV_WR_ATOMIC_CMP_AND_SWP : IBV_WR_ATOMIC_FETCH_AND_ADD;
    wr->wr.atomic.remote_addr = raddr;
    wr->wr.atomic.rkey = rkey;
    wr->wr.atomic.compare_add = compare_add;
    wr->wr.atomic.swap = swap;
}

static const char *probe(void) {
    uint64_t *word = gasneti_net_malloc(64, "the atomics probe's word");
    struct ibv_mr *mr = gasnetc_ibv_reg(word, 64, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC, "the atomics probe's word");
    *word = PROBE_WORD;
    gasnetc_ibv_op_t *o = gasnetc_ibv_op_get(gasneti_mynode, GASNETC_OP_AMO);
    o->result = 0;
    struct ibv_sge sge;
    struct ibv_send_wr wr;
    fill_amo(&wr, &sge, o, 0, (uintptr_t)word, mr->rkey, 1, 0);
    IBV_LOCK();
    gasnetc_ibv_post(gasneti_mynode, &wr, 1, "ibv_post_send (the start-up probe of the HCA's atomics)");
    struct ibv_wc wc;
    int got = 0;
    for (long spins = 0; !got && spins < 100000000L; spins++) got = ibv_poll_cq(gasnetc_ibv_cq, 1, &wc);
    if (got < 0) gasnetc_ibv_fail("ibv_poll_cq", -got, gasneti_mynode);
    if (got == 0)
        gasneti_fatalerror("ibv-conduit: the start-up probe of the HCA's atomics (a fetch-and-add through this "
                           "process's own queue pair, device %s port %u) never completed",
                           gasnetc_ibv_port.dev, (unsigned)gasnetc_ibv_port.port);
    gasnetc_ibv_peers[gasneti_mynode].sq_out--;
    gasnetc_ibv_sq_total--;
    IBV_UNLOCK();
    if (wc.wr_id != (uintptr_t)o) gasneti_fatalerror("ibv-conduit: an unexpected completion during the atomics probe");
    if (wc.status != IBV_WC_SUCCESS) /* (gasnetc_ibv_wc_fail is quiet before the network is up) */
        gasneti_fatalerror("ibv-conduit: the start-up probe of the HCA's atomics (a fetch-and-add through this "
                           "process's own queue pair) failed: %s (status %d, vendor error 0x%x; device %s port %u); "
                           "GASNET_IBV_ATOMICS=0 leaves the HCA's atomics unused",
                           ibv_wc_status_str(wc.status), (int)wc.status, wc.vendor_err, gasnetc_ibv_port.dev,
                           (unsigned)gasnetc_ibv_port.port);
    uint64_t old = o->result, now = *word;
    if (gasneti_getenv_yesno("GASNET_IBV_TEST_ATOMIC_SWAP", 0)) old = __builtin_bswap64(old);
    gasnetc_ibv_op_put(o);
    ibv_dereg_mr(mr);
    free(word);
    if (old == PROBE_WORD && now == PROBE_WORD + 1) return NULL;
    snprintf(probe_why, sizeof(probe_why),
             "the HCA's fetch-and-add of 1 to 0x%016llx returned 0x%016llx and left 0x%016llx: not in this host's "
             "byte order", (unsigned long long)PROBE_WORD, (unsigned long long)old, (unsigned long long)now);
    return probe_why;
}

void gasnetc_ibv_atomics_probe(gasneti_bootstrap_t *boot) {
    const char *why = !atomics_on ? NULL : probe();
    uint8_t mine = atomics_on && !why, *all = gasneti_net_malloc(gasneti_nodes, "the atomics probe's results");
    boot->exchange(&mine, 1, all);
    gex_Rank_t bad = GEX_RANK_INVALID;
    for (gex_Rank_t r = 0; r < gasneti_nodes && bad == GEX_RANK_INVALID; r++)
        if (!all[r]) bad = r;
    free(all);
    if (!atomics_on || bad == GEX_RANK_INVALID) return;
    atomics_on = 0;
    if (!why) {
        snprintf(probe_why, sizeof(probe_why), "rank %u's HCA failed the start-up probe or has none", (unsigned)bad);
        why = probe_why;
    }
    gasnetc_ibv_atomics_off = why;
}

void gasnetc_ibv_rma_fini(void) {
    for (seg_t *g = my_segs; g; g = g->next) ibv_dereg_mr(g->mr);
    my_segs = NULL;
    for (chunk_t *c = chunks; c; c = c->next) ibv_dereg_mr(c->mr);
    chunks = NULL;
    gasneti_slots_fini(&gasnetc_ibv_bounce);
}

void gasnetc_ibv_rma_say(void) {
    fprintf(stderr,
            "ibv-conduit: rank %u native RMA: %zu put(s) by RDMA WRITE (%zu inline), %zu get(s) by RDMA READ, %zu through "
            "bounce buffers; %zu atomic(s) by the HCA; %zu small put(s) and get(s) by AMs (no RC queue pair up yet)\n",
            (unsigned)gasneti_mynode, __atomic_load_n(&n_put, __ATOMIC_RELAXED), __atomic_load_n(&n_inline, __ATOMIC_RELAXED),
            __atomic_load_n(&n_get, __ATOMIC_RELAXED), __atomic_load_n(&n_bounced, __ATOMIC_RELAXED),
            __atomic_load_n(&n_amo, __ATOMIC_RELAXED), __atomic_load_n(&n_by_am, __ATOMIC_RELAXED));
}

/* ---------------------------------------------------------------------------------
 * Segments and their keys: one ibv_mr per segment; the blob is its base, size and rkey
 * (remote addresses are the owner's virtual addresses).
 * --------------------------------------------------------------------------------- */
typedef struct {
    uint64_t base, size;
    uint32_t rkey, pad;
} blob_t;
_Static_assert(sizeof(blob_t) <= GASNETC_SEGKEY_MAX, "a segment's key fits GASNETC_SEGKEY_MAX");

size_t gasnetc_segment_register(gex_Segment_t seg, void *key) {
    if (!__atomic_load_n(&gasnetc_ibv_up, __ATOMIC_ACQUIRE) || !gasnetc_rma_native) return 0;
    int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    if (gasnetc_ibv_port.atomics) access |= IBV_ACCESS_REMOTE_ATOMIC;
    seg_t *g = calloc(1, sizeof(*g));
    if (!g) gasneti_fatalerror("ibv-conduit: out of memory registering a segment");
    /* the primordial segment must be registered (its failure says what limit to raise);
     * another one that cannot be is reached by AMs */
    g->mr = seg->_id == 0 ? gasnetc_ibv_reg(seg->_addr, seg->_size, access, "the segment")
                          : gasnetc_ibv_try_reg(seg->_addr, seg->_size, access);
    if (!g->mr) {
        free(g);
        return 0;
    }
    g->base = (uint64_t)(uintptr_t)seg->_addr;
    g->size = seg->_size;
    IBV_LOCK();
    g->next = my_segs;
    my_segs = g;
    IBV_UNLOCK();
    seg->_creg = g;
    blob_t b = {g->base, g->size, g->mr->rkey, 0};
    memcpy(key, &b, sizeof(b));
    return sizeof(b);
}

void gasnetc_segment_deregister(gex_Segment_t seg) {
    seg_t *g = seg->_creg;
    if (!g) return;
    IBV_LOCK();
    for (seg_t **p = &my_segs; *p; p = &(*p)->next)
        if (*p == g) {
            *p = g->next;
            break;
        }
    ibv_dereg_mr(g->mr);
    IBV_UNLOCK();
    free(g);
    seg->_creg = NULL;
}

const void *gasnetc_segkey_unpack(gex_Rank_t owner, gex_EP_Index_t ep, const void *blob, size_t len) {
    (void)owner;
    if (len != sizeof(blob_t)) return NULL;
    blob_t b;
    memcpy(&b, blob, sizeof(b));
    gasnetc_ibv_rkey_t *k = calloc(1, sizeof(*k));
    if (!k) gasneti_fatalerror("ibv-conduit: out of memory for a segment key");
    k->base = b.base;
    k->size = b.size;
    k->rkey = b.rkey;
    k->ep = ep;
    return k;
}

/* ---------------------------------------------------------------------------------
 * Put and get
 * --------------------------------------------------------------------------------- */
typedef struct { /* one piece of a transfer */
    int write;
    gex_Rank_t jr;
    void *local;
    uint64_t raddr;
    uint32_t rkey;
    size_t n;
    gasneti_counter_t *lc, *rc;
} piece_t;

/* lock held: start piece a, or 0 if there is no room now (a send work request; a bounce
 * buffer where the local memory is not registered) */
static int try_piece(piece_t *a) {
    if (!gasnetc_ibv_sq_room(a->jr, 1)) return 0;
    int ok;
    uint32_t lkey = gasnetc_ibv_local_key(a->local, a->n, &ok);
    int inl = a->write && a->n <= gasnetc_ibv_inline;
    int small_get = !a->write && !ok && a->n <= sizeof(uint64_t);
    int bounce = -1;
    if (!ok && !inl && !small_get && (bounce = gasnetc_ibv_bounce_get()) < 0) return 0;
    gasnetc_ibv_op_t *o = gasnetc_ibv_op_get(a->jr, GASNETC_OP_RMA);
    struct ibv_sge sge = {(uintptr_t)a->local, (uint32_t)a->n, lkey};
    struct ibv_send_wr wr;
    memset(&wr, 0, sizeof(wr));
    wr.wr_id = (uintptr_t)o;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = a->write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
    wr.wr.rdma.remote_addr = a->raddr;
    wr.wr.rdma.rkey = a->rkey;
    o->rc = a->rc;
    if (bounce >= 0) { /* through a bounce buffer */
        struct ibv_mr *mr = gasnetc_ibv_bounce_mr(bounce);
        void *buf = gasnetc_ibv_bounce.slot[bounce].buf;
        o->bounce = bounce;
        sge.addr = (uintptr_t)buf;
        sge.lkey = mr->lkey;
        if (a->write) memcpy(buf, a->local, a->n);
        else o->copy_to = a->local, o->copy_from = buf, o->copy_len = a->n;
        __atomic_fetch_add(&n_bounced, 1, __ATOMIC_RELAXED);
    } else if (small_get) { /* into the op's own word */
        sge.addr = (uintptr_t)&o->result;
        sge.lkey = o->lkey;
        o->copy_to = a->local, o->copy_from = &o->result, o->copy_len = a->n;
    } else if (inl) {
        wr.send_flags = IBV_SEND_INLINE;
        __atomic_fetch_add(&n_inline, 1, __ATOMIC_RELAXED);
    }
    /* the source may be reused once copied (inline, bounce), else at completion */
    int copied = a->write && (bounce >= 0 || wr.send_flags == IBV_SEND_INLINE);
    o->lc = copied ? NULL : a->lc;
    gasnetc_ibv_post(a->jr, &wr, 1, a->write ? "ibv_post_send (RDMA WRITE)" : "ibv_post_send (RDMA READ)");
    if (copied && a->lc) gasneti_counter_done(a->lc);
    return 1;
}

/* piece a, waiting (polling) for room; 1 if refused for GEX_FLAG_IMMEDIATE */
static int issue(piece_t *a, gex_Flags_t flags) {
    for (;;) {
        IBV_LOCK();
        int done = try_piece(a);
        IBV_UNLOCK();
        if (done) return 0;
        if (flags & GEX_FLAG_IMMEDIATE) return 1;
        gasneti_poll_backoff(gasnetc_poll());
    }
}

/* the pieces of a transfer: at most the port's largest message, and where the local
 * memory is not registered at most a bounce buffer (the first may be refused under
 * GEX_FLAG_IMMEDIATE: 1, nothing started) */
static size_t piece_size(const void *local, size_t n) {
    int ok;
    IBV_LOCK();
    gasnetc_ibv_local_key(local, n, &ok);
    IBV_UNLOCK();
    size_t max = ok ? gasnetc_ibv_port.max_msg : GASNETC_IBV_BOUNCE;
    return max;
}
static int transfer(int write, gex_Rank_t jr, const gasnetc_ibv_rkey_t *k, void *local, void *remote, size_t n,
                    gasneti_counter_t *lc, gasneti_counter_t *rc, gex_Flags_t flags) {
    size_t max = piece_size(local, n), npieces = n ? (n + max - 1) / max : 1;
    /* the caller counted one lc and one rc for the whole transfer: the other pieces add theirs */
    for (size_t i = 1; i < npieces; i++) {
        if (rc) gasneti_counter_add(rc);
        if (lc) gasneti_counter_add(lc);
    }
    for (size_t i = 0, off = 0; i < npieces; i++, off += max) {
        piece_t a = {write, jr, (char *)local + off, (uint64_t)(uintptr_t)remote + off, k->rkey,
                     n - off < max ? n - off : max, lc, rc};
        if (issue(&a, i ? flags & ~(gex_Flags_t)GEX_FLAG_IMMEDIATE : flags)) {
            for (size_t j = 1; j < npieces; j++) {
                if (rc) gasneti_counter_done(rc);
                if (lc) gasneti_counter_done(lc);
            }
            return 1;
        }
    }
    return 0;
}

/* RMA to a peer without an RC QP up (datagrams on): the first RMA_AM_FIRST small ones go
 * by the AM reference (GASNETC_RMA_BY_AM: datagrams), then the QP is made without
 * waiting, and they go by AMs until it is up; a bigger one makes the QP and waits. So a
 * peer that is touched once costs no QP, and one that is busy gets one. */
#define RMA_AM_FIRST 16
#define RMA_AM_SMALL 512
static int rma_by_am(gex_Rank_t jr, size_t n) {
    if (!gasnetc_ibv_ud_on || n > RMA_AM_SMALL || gasnetc_ibv_rc_up(jr)) return 0;
    uint8_t *k = &gasnetc_ibv_peers[jr].rma_by_am;
    if (__atomic_load_n(k, __ATOMIC_RELAXED) < RMA_AM_FIRST) {
        __atomic_fetch_add(k, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&n_by_am, 1, __ATOMIC_RELAXED);
        return 1;
    }
    if (!gasnetc_ibv_connect_slow(jr, GEX_FLAG_IMMEDIATE)) return 0;
    __atomic_fetch_add(&n_by_am, 1, __ATOMIC_RELAXED);
    return 1;
}

int gasnetc_put(gex_Rank_t jr, const void *rkey, void *dest, const void *src, size_t nbytes, gasneti_counter_t *lc,
                gasneti_counter_t *rc, gex_Flags_t flags) {
    if (rma_by_am(jr, nbytes)) return GASNETC_RMA_BY_AM;
    if (gasnetc_ibv_connected(jr, flags)) return 1;
    if (gasnetc_ibv_verbose) __atomic_fetch_add(&n_put, 1, __ATOMIC_RELAXED);
    gasneti_counter_t mine; /* no lc: wait here until the source may be reused */
    gasneti_atomic_set(&mine, 0);
    if (!lc) gasneti_counter_add(&mine);
    if (transfer(1, jr, rkey, (void *)src, dest, nbytes, lc ? lc : &mine, rc, flags)) return 1;
    while (!lc && gasneti_atomic_read(&mine) != 0) gasneti_poll_backoff(gasnetc_poll());
    return 0;
}

int gasnetc_get(void *dest, gex_Rank_t jr, const void *rkey, void *src, size_t nbytes, gasneti_counter_t *rc,
                gex_Flags_t flags) {
    if (rma_by_am(jr, nbytes)) return GASNETC_RMA_BY_AM;
    if (gasnetc_ibv_connected(jr, flags)) return 1;
    if (gasnetc_ibv_verbose) __atomic_fetch_add(&n_get, 1, __ATOMIC_RELAXED);
    return transfer(0, jr, rkey, dest, src, nbytes, NULL, rc, flags);
}

/* ---------------------------------------------------------------------------------
 * Remote atomics
 * --------------------------------------------------------------------------------- */
#define NATIVE_OPS (GEX_OP_GET | GEX_OP_ADD | GEX_OP_SUB | GEX_OP_INC | GEX_OP_DEC | GEX_OP_CAS | GEX_OP_FADD | \
                    GEX_OP_FSUB | GEX_OP_FINC | GEX_OP_FDEC | GEX_OP_FCAS)

int gasnetc_amo_domain(gex_DT_t dt, gex_OP_t ops) {
    return atomics_on && gasnetc_rma_native && (dt == GEX_DT_I64 || dt == GEX_DT_U64) && ops &&
           !(ops & ~(gex_OP_t)NATIVE_OPS);
}

typedef struct {
    gex_Rank_t jr;
    uint64_t raddr, add, cmp, swap;
    uint32_t rkey;
    int cas;
    void *result;
    gasneti_counter_t *rc;
} amo_t;

/* lock held: start it, or 0 without room */
static int try_amo(void *arg) {
    amo_t *a = arg;
    if (!gasnetc_ibv_sq_room(a->jr, 1)) return 0;
    gasnetc_ibv_op_t *o = gasnetc_ibv_op_get(a->jr, GASNETC_OP_AMO);
    o->rc = a->rc;
    if (a->result) o->copy_to = a->result, o->copy_from = &o->result, o->copy_len = 8;
    struct ibv_sge sge;
    struct ibv_send_wr wr;
    fill_amo(&wr, &sge, o, a->cas, a->raddr, a->rkey, a->cas ? a->cmp : a->add, a->swap);
    gasnetc_ibv_post(a->jr, &wr, 1, a->cas ? "ibv_post_send (ATOMIC_CMP_AND_SWP)" : "ibv_post_send (ATOMIC_FETCH_AND_ADD)");
    return 1;
}

int gasnetc_amo(gex_Rank_t jr, const void *rkey, void *tgt, gex_DT_t dt, gex_OP_t op, const void *operand1, const void *operand2,
                void *result, gasneti_counter_t *rc, gex_Flags_t flags) {
    (void)dt;
    if (gasnetc_ibv_connected(jr, flags)) return 1;
    gex_OP_t base = GEX_OP_TO_NONFETCHING(op);
    uint64_t a1 = 0, a2 = 0;
    if (operand1) memcpy(&a1, operand1, 8);
    if (operand2) memcpy(&a2, operand2, 8);
    const gasnetc_ibv_rkey_t *k = rkey; /* the target segment's (primordial or bound) */
    amo_t a = {jr, (uint64_t)(uintptr_t)tgt, 0, 0, 0, k->rkey, 0, result, rc};
    switch (base) {
        case GEX_OP_GET: a.add = 0; break;
        case GEX_OP_ADD: a.add = a1; break;
        case GEX_OP_SUB: a.add = (uint64_t)0 - a1; break;
        case GEX_OP_INC: a.add = 1; break;
        case GEX_OP_DEC: a.add = (uint64_t)-1; break;
        case GEX_OP_CAS: a.cas = 1, a.cmp = a1, a.swap = a2; break;
        default: gasneti_fatalerror("ibv-conduit: gasnetc_amo: operation 0x%x is not one of the HCA's", (unsigned)op);
    }
    if (gasnetc_ibv_verbose) __atomic_fetch_add(&n_amo, 1, __ATOMIC_RELAXED);
    for (;;) {
        IBV_LOCK();
        int done = try_amo(&a);
        IBV_UNLOCK();
        if (done) return 0;
        if (flags & GEX_FLAG_IMMEDIATE) return 1;
        gasneti_poll_backoff(gasnetc_poll());
    }
}
