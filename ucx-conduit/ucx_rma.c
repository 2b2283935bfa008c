/* ucx_rma.c: native RMA of ucx-conduit: gex_RMA_* to non-neighbors by ucp_put_nbx /
 * ucp_get_nbx into the target endpoint's bound segment, each segment of a process mapped
 * once (ucp_mem_map: the primordial one at attach, the others at gex_Segment_Create) with
 * its packed rkey published by the core (conduit_contract.h, "Segments reached by RDMA")
 * and unpacked once per (peer, segment) on the endpoint to that peer. Layer: ucx-conduit
 * (the optional RDMA half of conduit_contract.h: gasnetc_put, gasnetc_get,
 * gasnetc_rma_native, the segment keys, gasnetc_rma_flush).
 *
 * Used unless GASNET_UCX_RMA=0 (gasnetc_rma_native; then the extended layer's AM
 * reference serves every peer and no segment is mapped). Remote addresses are the
 * owner's virtual addresses (UCX's rule), so the key blob is the packed rkey alone.
 * Completion: a put's completion (UCS_OK at once, or its callback) is local: the source
 * may be reused. Its remote completion is the flush's (GASNETC_RMA_FLUSH): the put marks
 * its endpoint dirty, and gasnetc_rma_flush, which the extended layer calls once per
 * synchronization of any number of puts, flushes every dirty endpoint (ucp_ep_flush_nbx)
 * and waits for those flushes: UCX completes an endpoint's flush once every operation
 * issued on it before is complete at its target. A get completes when its data is here. */
#include "conduit_contract.h"
#include "ucx_internal.h"

#include <string.h>

int gasnetc_rma_native;
int gasnetc_rma_flush_on;

typedef struct seg_s { /* one mapped segment of this process (gasnetc_segment_register) */
    ucp_mem_h memh;
    struct seg_s *next, **prev; /* in my_segs (lock held) */
} seg_t;
static seg_t *my_segs;               /* unmapped at gex_Segment_Destroy, or at shut-down */
static gasnetc_ucx_rkey_t *unpacked; /* every rkey unpacked (lock held) */

static int bound_keys;                    /* GASNET_UCX_RMA_BOUND: segments other than the primordial one */
static gasneti_dirty_t dirty;           /* the peers put to since their last flush (lock held) */
static gex_Rank_t *flushing;            /* those one flush waits for (flush_lock held) */
static gasneti_counter_t flush_pending; /* the flush's endpoint flushes not completed */
static size_t n_flushes, n_flush_eps, n_too_big;
static size_t n_put[GASNET_MAXEPS], n_get[GASNET_MAXEPS]; /* GASNET_VERBOSEENV: by target endpoint */
#if GASNETI_LOCKS
static pthread_mutex_t flush_lock = PTHREAD_MUTEX_INITIALIZER; /* one flush at a time */
#endif

void gasnetc_ucx_rma_init(void) {
    /* the same on every rank: from the launcher's environment */
    gasnetc_rma_native = gasneti_getenv_yesno("GASNET_UCX_RMA", 1);
    if (!gasnetc_rma_native) return;
    gasnetc_rma_flush_on = 1;
    bound_keys = gasneti_getenv_yesno("GASNET_UCX_RMA_BOUND", 1);
    gasneti_dirty_init(&dirty);
    flushing = gasneti_net_malloc(gasneti_nodes * sizeof(gex_Rank_t), "a flush's peers");
}

/* ---------------------------------------------------------------------------------
 * Segments and their keys
 * --------------------------------------------------------------------------------- */
size_t gasnetc_segment_register(gex_Segment_t seg, void *key) {
    if (!gasnetc_ucx_up || !gasnetc_rma_native || (seg->_id && !bound_keys)) return 0;
    ucp_mem_map_params_t mp;
    memset(&mp, 0, sizeof(mp));
    mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_PROT;
    mp.address = seg->_addr;
    mp.length = seg->_size;
    mp.prot = UCP_MEM_MAP_PROT_LOCAL_READ | UCP_MEM_MAP_PROT_LOCAL_WRITE | UCP_MEM_MAP_PROT_REMOTE_READ |
              UCP_MEM_MAP_PROT_REMOTE_WRITE;
    seg_t *g = calloc(1, sizeof(*g));
    if (!g) gasneti_fatalerror("ucx-conduit: out of memory registering a segment");
    void *packed = NULL;
    size_t plen = 0;
    UCX_LOCK();
    ucs_status_t st = ucp_mem_map(gasnetc_ucx_ctx, &mp, &g->memh);
    if (st == UCS_OK) {
        st = ucp_rkey_pack(gasnetc_ucx_ctx, g->memh, &packed, &plen);
        if (st != UCS_OK) ucp_mem_unmap(gasnetc_ucx_ctx, g->memh);
    }
    if (st == UCS_OK && plen > GASNETC_SEGKEY_MAX) { /* reached by AMs */
        n_too_big++;
        ucp_rkey_buffer_release(packed);
        ucp_mem_unmap(gasnetc_ucx_ctx, g->memh);
        st = UCS_ERR_EXCEEDS_LIMIT;
    }
    UCX_UNLOCK();
    if (st != UCS_OK) {
        free(g);
        if (seg->_id) return 0; /* reached by AMs */
        if (st == UCS_ERR_EXCEEDS_LIMIT)
            gasneti_fatalerror("ucx-conduit: the packed rkey of the segment takes %zu bytes, more than the %d of "
                               "GASNETC_SEGKEY_MAX (ucx_conduit.h); GASNET_UCX_RMA=0 runs RMA by AMs",
                               plen, GASNETC_SEGKEY_MAX);
        gasnetc_ucx_fail("ucp_mem_map or ucp_rkey_pack (the segment)", st, GEX_RANK_INVALID);
    }
    memcpy(key, packed, plen);
    UCX_LOCK();
    ucp_rkey_buffer_release(packed);
    if ((g->next = my_segs)) my_segs->prev = &g->next;
    g->prev = &my_segs;
    my_segs = g;
    UCX_UNLOCK();
    seg->_creg = g;
    return plen;
}

void gasnetc_segment_deregister(gex_Segment_t seg) {
    seg_t *g = seg->_creg;
    if (!g) return;
    UCX_LOCK();
    if (gasnetc_ucx_up) {
        ucp_mem_unmap(gasnetc_ucx_ctx, g->memh);
        if ((*g->prev = g->next)) g->next->prev = g->prev;
    }
    UCX_UNLOCK();
    free(g);
    seg->_creg = NULL;
}

const void *gasnetc_segkey_unpack(gex_Rank_t owner, gex_EP_Index_t ep, const void *blob, size_t len) {
    (void)len;
    if (!gasnetc_ucx_up || !gasnetc_ucx_ep[owner]) return NULL;
    gasnetc_ucx_rkey_t *k = calloc(1, sizeof(*k));
    if (!k) gasneti_fatalerror("ucx-conduit: out of memory for a segment key");
    UCX_LOCK();
    ucs_status_t st = ucp_ep_rkey_unpack(gasnetc_ucx_ep[owner], blob, &k->rkey);
    if (st == UCS_OK) {
        k->next = unpacked;
        unpacked = k;
    }
    UCX_UNLOCK();
    if (st != UCS_OK) gasnetc_ucx_fail("ucp_ep_rkey_unpack (a segment's key)", st, owner);
    k->ep = ep;
    return k;
}

/* ---------------------------------------------------------------------------------
 * Puts and gets
 * --------------------------------------------------------------------------------- */
int gasnetc_put(gex_Rank_t jr, const void *rkey, void *dest, const void *src, size_t nbytes, gasneti_counter_t *lc,
                gasneti_counter_t *rc, gex_Flags_t flags) {
    const gasnetc_ucx_rkey_t *k = rkey;
    (void)flags;            /* UCX always takes a put (it queues what cannot go yet): IMMEDIATE never refuses */
    gasneti_counter_t mine; /* no lc: wait here until the source may be reused */
    gasneti_atomic_set(&mine, 0);
    if (!lc) gasneti_counter_add(&mine);
    UCX_LOCK();
    if (gasnetc_ucx_verbose) n_put[k->ep]++;
    gasnetc_ucx_op_t *o = gasnetc_ucx_op_get(jr, "ucp_put_nbx");
    o->lc = lc ? lc : &mine;
    o->rc = rc; /* remotely complete after a flush (gasnetc_rma_flush_on) */
    ucp_request_param_t p;
    gasnetc_ucx_op_param(&p, o);
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    p.memory_type = UCS_MEMORY_TYPE_HOST;
    gasneti_dirty_mark(&dirty, jr);
    if (!gasnetc_ucx_started(ucp_put_nbx(gasnetc_ucx_ep[jr], src, nbytes, (uint64_t)(uintptr_t)dest, k->rkey, &p),
                             o->call, jr))
        gasnetc_ucx_op_complete(o);
    UCX_UNLOCK();
    /* (backing off: the put may need the target's progress, and the target our CPU) */
    while (!lc && gasneti_atomic_read(&mine) != 0)
        gasneti_poll_backoff(gasnetc_poll());
    return 0;
}

int gasnetc_get(void *dest, gex_Rank_t jr, const void *rkey, void *src, size_t nbytes, gasneti_counter_t *rc,
                gex_Flags_t flags) {
    const gasnetc_ucx_rkey_t *k = rkey;
    (void)flags;
    UCX_LOCK();
    if (gasnetc_ucx_verbose) n_get[k->ep]++;
    gasnetc_ucx_op_t *o = gasnetc_ucx_op_get(jr, "ucp_get_nbx");
    o->rc = rc;
    ucp_request_param_t p;
    gasnetc_ucx_op_param(&p, o);
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    p.memory_type = UCS_MEMORY_TYPE_HOST;
    if (!gasnetc_ucx_started(ucp_get_nbx(gasnetc_ucx_ep[jr], dest, nbytes, (uint64_t)(uintptr_t)src, k->rkey, &p),
                             o->call, jr))
        gasnetc_ucx_op_complete(o);
    UCX_UNLOCK();
    return 0;
}

/* ---------------------------------------------------------------------------------
 * The flush (conduit_contract.h, GASNETC_RMA_FLUSH): every put whose rc was signalled
 * before the call is complete at its target when it returns.
 * --------------------------------------------------------------------------------- */
void gasnetc_rma_flush(void) {
#if GASNETI_LOCKS
    pthread_mutex_lock(&flush_lock);
#endif
    UCX_LOCK();
    size_t n = gasneti_dirty_take(&dirty, flushing);
    for (size_t i = 0; i < n; i++) {
        gex_Rank_t jr = flushing[i];
        gasnetc_ucx_op_t *o = gasnetc_ucx_op_get(jr, "ucp_ep_flush_nbx (remote completion of puts)");
        o->rc = &flush_pending;
        gasneti_counter_add(&flush_pending);
        ucp_request_param_t p;
        gasnetc_ucx_op_param(&p, o);
        if (!gasnetc_ucx_started(ucp_ep_flush_nbx(gasnetc_ucx_ep[jr], &p), o->call, jr)) gasnetc_ucx_op_complete(o);
    }
    if (n) n_flushes++, n_flush_eps += n;
    UCX_UNLOCK();
    /* at an exit past its timeout, a target that does not poll is given up on: its flush
     * completes (into flush_pending, never on this stack) or not, the process leaves */
    while (gasneti_atomic_read(&flush_pending) != 0 && !gasneti_exit_overdue())
        gasneti_poll_backoff(gasnetc_poll());
#if GASNETI_LOCKS
    pthread_mutex_unlock(&flush_lock);
#endif
}

void gasnetc_ucx_rma_say(void) {
    if (!gasnetc_rma_native) {
        fprintf(stderr, "ucx-conduit: RMA by AMs (GASNET_UCX_RMA=0)\n");
        return;
    }
    for (int e = 0; e < GASNET_MAXEPS; e++)
        if (n_put[e] || n_get[e])
            fprintf(stderr,
                    "ucx-conduit: rank %u native RMA to endpoint %d: %zu put(s) by ucp_put_nbx, %zu get(s) by "
                    "ucp_get_nbx\n",
                    (unsigned)gasneti_mynode, e, n_put[e], n_get[e]);
    fprintf(stderr, "ucx-conduit: rank %u flushed puts' remote completion %zu time(s), by %zu endpoint flush(es)\n",
            (unsigned)gasneti_mynode, n_flushes, n_flush_eps);
    if (n_too_big)
        fprintf(stderr,
                "ucx-conduit: rank %u: %zu created segment(s) reached by AMs, their packed rkeys over %d bytes\n",
                (unsigned)gasneti_mynode, n_too_big, GASNETC_SEGKEY_MAX);
}

/* lock held, at shut-down: the rkeys (the core's copies are not used again: the process
 * is leaving), then the mappings of segments still alive */
void gasnetc_ucx_rma_fini_rkeys(void) {
    for (gasnetc_ucx_rkey_t *k = unpacked; k; k = k->next)
        ucp_rkey_destroy(k->rkey);
    unpacked = NULL;
}

void gasnetc_ucx_rma_fini(void) {
    for (seg_t *g = my_segs; g; g = g->next)
        ucp_mem_unmap(gasnetc_ucx_ctx, g->memh);
    my_segs = NULL;
}
