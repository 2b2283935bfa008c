/* gasnete_rma.c: RMA to peers that are not reached by load/store: the one place that
 * chooses between the conduit's native RDMA (capability knobs) and the AM reference.
 * Layer: extended. The same-host shortcut is in the public inlines (gasnete_rma_api.h).
 * Local completion: both paths here finish with the source before returning, so every
 * lc_opt is satisfied at once (an event pointer receives GEX_EVENT_INVALID). */
#include "gasnete_internal.h"

static int put_start(gex_Rank_t jr, void *dest, const void *src, size_t n, gasneti_counter_t *done,
                     gex_Flags_t flags) {
#if GASNETC_NATIVE_PUT
    if (gasneti_nbrhd_index[jr] < 0) {
        gasneti_counter_add(done);
        int rc = gasnetc_put(jr, dest, src, n, NULL, done, flags);
        if (rc) gasneti_counter_done(done);
        return rc;
    }
#endif
    return gasnete_amrma_put(jr, dest, src, n, done, flags);
}

static int get_start(void *dest, gex_Rank_t jr, void *src, size_t n, gasneti_counter_t *done, gex_Flags_t flags) {
#if GASNETC_NATIVE_GET
    if (gasneti_nbrhd_index[jr] < 0) {
        gasneti_counter_add(done);
        int rc = gasnetc_get(dest, jr, src, n, done, flags);
        if (rc) gasneti_counter_done(done);
        return rc;
    }
#endif
    return gasnete_amrma_get(dest, jr, src, n, done, flags);
}

gex_Event_t gasnete_put_nb(gex_TM_t tm, gex_Rank_t jr, void *dest, const void *src, size_t n, gex_Event_t *lc_opt,
                           gex_Flags_t flags) {
    (void)tm;
    gex_Event_t ev = gasnete_event_new(0);
    if (put_start(jr, dest, src, n, &ev->pending, flags)) {
        gasnete_event_test(ev); /* returns it to the pool */
        return GEX_EVENT_NO_OP;
    }
    gasneti_lc_done_at_once(lc_opt);
    return ev;
}

int gasnete_put_nbi(gex_TM_t tm, gex_Rank_t jr, void *dest, const void *src, size_t n, gex_Event_t *lc_opt,
                    gex_Flags_t flags) {
    (void)tm;
    if (put_start(jr, dest, src, n, &gasnete_td.nbi[GASNETE_NBI_PUT], flags)) return 1;
    gasneti_lc_done_at_once(lc_opt);
    return 0;
}

gex_Event_t gasnete_get_nb(gex_TM_t tm, void *dest, gex_Rank_t jr, void *src, size_t n, gex_Flags_t flags) {
    (void)tm;
    gex_Event_t ev = gasnete_event_new(0);
    if (get_start(dest, jr, src, n, &ev->pending, flags)) {
        gasnete_event_test(ev);
        return GEX_EVENT_NO_OP;
    }
    return ev;
}

int gasnete_get_nbi(gex_TM_t tm, void *dest, gex_Rank_t jr, void *src, size_t n, gex_Flags_t flags) {
    (void)tm;
    return get_start(dest, jr, src, n, &gasnete_td.nbi[GASNETE_NBI_GET], flags);
}
