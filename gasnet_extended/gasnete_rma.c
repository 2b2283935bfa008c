/* gasnete_rma.c: RMA to peers that are not reached by load/store: the one place that
 * chooses between the conduit's native RDMA (capability knobs) and the AM reference.
 * Layer: extended. The same-host shortcut is in the public inlines (gasnete_rma_api.h).
 * The conduit's RDMA reaches every bound segment that has a key (the conduit registered
 * it and the core published the key with it: conduit_contract.h, "Segments reached by
 * RDMA"), on any endpoint; the others (no RDMA, or a segment the conduit would not
 * register, or an operation the conduit sends back with GASNETC_RMA_BY_AM) through the AM reference, whose handler writes or reads the address in the
 * target process whatever segment holds it.
 * Local completion (lc_opt, spec "Extended API" NOTE 2a/2b) is mapped onto a counter
 * that is decremented once the source may be reused, as the conduit contract signals it:
 *   NOW                 none: the put finishes with the source before returning
 *   DEFER               the operation's own counter (the root, or the NBI put count)
 *   GROUP (NBI)         the thread's, or the open access region's, GEX_EC_LC count
 *   &event, or GEX_FLAG_ENABLE_LEAF_LC (NB)   a leaf event owned by the root
 * The AM reference sends each chunk with lc NOW, so today every lc is complete when the
 * call returns and an &event receives GEX_EVENT_INVALID; a conduit whose native put
 * completes locally later is served by the same code. */
#include "gasnete_internal.h"

/* at a normal exit, registered with the core (gasnete_layer): every put needing a flush
 * complete at its target (the numbering and the flush are the core's, gasneti_event.c) */
void gasnete_rma_quiesce(void) { gasneti_rma_flush_all(); }

/* lc (NULL: must be complete at return) and rc each receive one gasneti_counter_done;
 * both are incremented here, before the conduit may signal them. *seq: the put's number
 * when its remote completion needs a flush, else left 0. */
static int put_start(gex_EP_Index_t ep, gex_Rank_t jr, void *dest, const void *src, size_t n, gasneti_counter_t *lc,
                     gasneti_counter_t *rc, gex_Flags_t flags, uint64_t *seq) {
#if GASNETC_NATIVE_PUT
    const void *rkey = gasneti_peerseg_of(jr, ep)->_rkey;
    if (rkey && gasneti_nbrhd_index[jr] < 0) {
        gasneti_counter_add(rc);
        if (lc) gasneti_counter_add(lc);
        int err = gasnetc_put(jr, rkey, dest, src, n, lc, rc, flags);
        if (err) {
            gasneti_counter_done(rc);
            if (lc) gasneti_counter_done(lc);
        }
#if GASNETC_RMA_FLUSH
        else if (gasnetc_rma_flush_on)
            *seq = gasneti_rma_flush_number();
#endif
        if (err != GASNETC_RMA_BY_AM) return err;
    }
#endif
    (void)lc, (void)seq; /* the AM reference is locally complete at return, remotely at its ack */
    return gasnete_amrma_put(ep, jr, dest, src, n, rc, flags);
}

static int get_start(gex_EP_Index_t ep, void *dest, gex_Rank_t jr, void *src, size_t n, gasneti_counter_t *done,
                     gex_Flags_t flags) {
#if GASNETC_NATIVE_GET
    const void *rkey = gasneti_peerseg_of(jr, ep)->_rkey;
    if (rkey && gasneti_nbrhd_index[jr] < 0) {
        gasneti_counter_add(done);
        int rc = gasnetc_get(dest, jr, rkey, src, n, done, flags);
        if (rc) gasneti_counter_done(done);
        if (rc != GASNETC_RMA_BY_AM) return rc;
    }
#endif
    (void)ep;
    return gasnete_amrma_get(dest, jr, src, n, done, flags);
}

gex_Event_t gasnete_put_nb(gex_EP_Index_t ep, gex_Rank_t jr, void *dest, const void *src, size_t n, gex_Event_t *lc_opt,
                           gex_Flags_t flags) {
    gasneti_counter_t *lc;
    uint64_t seq = 0;
    gex_Event_t ev = gasneti_put_event(lc_opt, flags, &lc);
    if (put_start(ep, jr, dest, src, n, lc, &ev->pending, flags, &seq)) {
        gasneti_put_event_cancel(ev);
        return GEX_EVENT_NO_OP;
    }
    if (seq) ev->flush_seq = seq;
    return gasneti_put_event_started(ev, lc_opt);
}

int gasnete_put_nbi(gex_EP_Index_t ep, gex_Rank_t jr, void *dest, const void *src, size_t n, gex_Event_t *lc_opt,
                    gex_Flags_t flags) {
    gasneti_counter_t *lc = NULL;
    if (lc_opt == GEX_EVENT_GROUP || ((flags & GEX_FLAG_ENABLE_LEAF_LC) && lc_opt != GEX_EVENT_NOW))
        lc = gasneti_nbi_counter(GASNETI_NBI_LC);
    else if (lc_opt == GEX_EVENT_DEFER)
        lc = gasneti_nbi_counter(GASNETI_NBI_PUT);
    uint64_t seq = 0;
    int err = put_start(ep, jr, dest, src, n, lc, gasneti_nbi_counter(GASNETI_NBI_PUT), flags, &seq);
    if (seq) *(gasneti_td.region ? &gasneti_td.region->flush_seq : &gasneti_td.nbi_flush_seq) = seq;
    return err;
}

gex_Event_t gasnete_get_nb(gex_EP_Index_t ep, void *dest, gex_Rank_t jr, void *src, size_t n, gex_Flags_t flags) {
    gex_Event_t ev = gasneti_event_new(0);
    ev->kind = GASNETI_EV_GET;
    if (get_start(ep, dest, jr, src, n, &ev->pending, flags)) {
        gasneti_event_free(ev);
        return GEX_EVENT_NO_OP;
    }
    return ev;
}

int gasnete_get_nbi(gex_EP_Index_t ep, void *dest, gex_Rank_t jr, void *src, size_t n, gex_Flags_t flags) {
    return get_start(ep, dest, jr, src, n, gasneti_nbi_counter(GASNETI_NBI_GET), flags);
}
