/* gasnete_amrma.c: the AM-based reference RMA protocol, used for every peer the
 * conduit cannot reach by native RDMA (and for neighbors when GASNET_RMA_NBRHD_BYPASS=0).
 * Layer: extended.
 *   put: Long request per chunk into the target segment; the target acks with a Short.
 *        Into a neighbour's segment that it cannot map (memory a client gave
 *        gex_Segment_Create): Medium requests whose handler copies into place.
 *   get: Short request per chunk; the target replies with a Medium that the initiator's
 *        reply handler copies into place (so the destination may be outside the segment).
 * Each chunk holds one reference on the caller's completion counter. Addresses arrive
 * translated (no *_SEG_OFFSET left to apply); of the caller's flags only IMMEDIATE, for
 * the first chunk, reaches the AMs. */
#include "gasnete_internal.h"

#include <string.h>

static void put_req_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t hi, gex_AM_Arg_t lo) {
    (void)buf, (void)n;
    gex_AM_ReplyShort2(t, GASNETI_HIDX_AMRMA_PUT_REP, 0, hi, lo);
}

static void putm_req_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t dhi, gex_AM_Arg_t dlo, gex_AM_Arg_t hi,
                             gex_AM_Arg_t lo) {
    memcpy(GASNETE_PTR(dhi, dlo), buf, n);
    gex_AM_ReplyShort2(t, GASNETI_HIDX_AMRMA_PUT_REP, 0, hi, lo);
}

static void put_rep_handler(gex_Token_t t, gex_AM_Arg_t hi, gex_AM_Arg_t lo) {
    (void)t;
    gasneti_counter_done((gasneti_counter_t *)GASNETE_PTR(hi, lo));
}

static void get_req_handler(gex_Token_t t, gex_AM_Arg_t shi, gex_AM_Arg_t slo, gex_AM_Arg_t n, gex_AM_Arg_t dhi,
                            gex_AM_Arg_t dlo, gex_AM_Arg_t chi, gex_AM_Arg_t clo) {
    gex_AM_ReplyMedium4(t, GASNETI_HIDX_AMRMA_GET_REP, GASNETE_PTR(shi, slo), (size_t)(uint32_t)n, GEX_EVENT_NOW, 0,
                        dhi, dlo, chi, clo);
}

static void get_rep_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t dhi, gex_AM_Arg_t dlo, gex_AM_Arg_t chi,
                            gex_AM_Arg_t clo) {
    (void)t;
    gasneti_counter_t *done = (gasneti_counter_t *)GASNETE_PTR(chi, clo);
    /* This handler may run on any thread; it writes the initiator's buffer on behalf of
     * the thread that counted the get in `done` before sending it. The acquire reads
     * that count, so the order the round trip through the peer guarantees anyway is
     * also visible within this process (to ThreadSanitizer, which cannot follow it
     * through another process's memory). */
    (void)gasneti_atomic_read(done);
    memcpy(GASNETE_PTR(dhi, dlo), buf, n);
    gasneti_counter_done(done);
}

extern void gasnete_barrier_handler(gex_Token_t t, gex_AM_Arg_t team, gex_AM_Arg_t seq, gex_AM_Arg_t round,
                                    gex_AM_Arg_t flags, gex_AM_Arg_t value);

#define H(idx, fn, fl, n) {idx, (gex_AM_Fn_t)fn, fl, n, NULL, #fn}
static const gex_AM_Entry_t gasnete_handlers[] = {
    H(GASNETI_HIDX_BARRIER, gasnete_barrier_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 5),
    H(GASNETI_HIDX_AMRMA_PUT_REQ, put_req_handler, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2),
    H(GASNETI_HIDX_AMRMA_PUT_REP, put_rep_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2),
    H(GASNETI_HIDX_AMRMA_GET_REQ, get_req_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 7),
    H(GASNETI_HIDX_AMRMA_GET_REP, get_rep_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 4),
    H(GASNETI_HIDX_AMO_REQ, gasnete_amo_req_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 11),
    H(GASNETI_HIDX_AMO_REP, gasnete_amo_rep_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 7),
    H(GASNETI_HIDX_VIS_PUT_REQ, gasnete_vis_put_req_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 5),
    H(GASNETI_HIDX_VIS_PUT_REP, gasnete_vis_put_rep_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2),
    H(GASNETI_HIDX_VIS_GET_REQ, gasnete_vis_get_req_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2),
    H(GASNETI_HIDX_VIS_GET_REP, gasnete_vis_get_rep_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 2),
    H(GASNETI_HIDX_VIS_PEER, gasnete_vis_peer_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1),
    H(GASNETI_HIDX_COLL, gasnete_coll_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 6),
    H(GASNETI_HIDX_AMRMA_PUTM_REQ, putm_req_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 4),
    H(GASNETI_HIDX_NOOP, gasneti_noop_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0),
    {0, NULL, 0, 0, NULL, NULL}};
#undef H

/* what this layer registers with the core (gasnet_core/gasneti_internal.h): the public
 * gex_Client_Init / gasnet_init macros pass it to gasneti_Client_Init */
const struct gasneti_layer_s gasnete_layer = {gasnete_handlers, gasnete_progress, gasnete_rma_quiesce, gasnete_describe};

int gasnete_amrma_put(gex_EP_Index_t ep, gex_Rank_t jr, void *dest, const void *src, size_t n,
                      gasneti_counter_t *done, gex_Flags_t flags) {
    /* a Long lands in endpoint ep's segment, which a neighbour must have mapped */
    int medium = ep && gasneti_nbrhd_index[jr] >= 0 && gasneti_peerseg_of(jr, ep)->_pshm_delta == GASNETI_NOT_NBR;
    size_t chunk = medium ? gasneti_am_max_medium : gasneti_am_max_long;
    size_t off = 0;
    do {
        size_t c = n - off < chunk ? n - off : chunk;
        char *d = (char *)dest + off;
        gasneti_counter_add(done);
        gex_AM_Arg_t args[4] = {GASNETE_HI(d), GASNETE_LO(d), GASNETE_HI(done), GASNETE_LO(done)};
        gasneti_am_msg_t m = {jr, GASNETI_AM_LONG, 1, 2, GASNETI_HIDX_AMRMA_PUT_REQ,
                              off ? 0 : flags & GEX_FLAG_IMMEDIATE, args + 2, (const char *)src + off, c, d,
                              NULL, (uint8_t)ep, 0};
        if (medium)
            m.category = GASNETI_AM_MEDIUM, m.nargs = 4, m.handler = GASNETI_HIDX_AMRMA_PUTM_REQ, m.args = args,
            m.dest_addr = NULL, m.dst_ep = 0;
        if (gasneti_am_send(&m, GEX_EVENT_NOW)) { /* IMMEDIATE, first chunk: nothing started */
            gasneti_counter_done(done);
            return 1;
        }
        off += c;
    } while (off < n);
    return 0;
}

int gasnete_amrma_get(void *dest, gex_Rank_t jr, void *src, size_t n, gasneti_counter_t *done, gex_Flags_t flags) {
    /* a reply that fits one network message of the conduit (no splitting, gasneti_frag.c) */
    size_t chunk = gasneti_nbrhd_index[jr] < 0 ? gasneti_medium_unsplit(jr) : gasneti_am_max_medium;
    size_t off = 0;
    do {
        size_t c = n - off < chunk ? n - off : chunk;
        char *s = (char *)src + off, *d = (char *)dest + off;
        gasneti_counter_add(done);
        gex_AM_Arg_t args[7] = {GASNETE_HI(s), GASNETE_LO(s), (gex_AM_Arg_t)c, GASNETE_HI(d), GASNETE_LO(d),
                                GASNETE_HI(done), GASNETE_LO(done)};
        gasneti_am_msg_t m = {jr, GASNETI_AM_SHORT, 1, 7, GASNETI_HIDX_AMRMA_GET_REQ,
                              off ? 0 : flags & GEX_FLAG_IMMEDIATE, args, NULL, 0, NULL};
        if (gasneti_am_send(&m, NULL)) {
            gasneti_counter_done(done);
            return 1;
        }
        off += c;
    } while (off < n);
    return 0;
}
