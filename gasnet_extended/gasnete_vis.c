/* gasnete_vis.c: VIS (vector, indexed, strided put/get), spec "Vector/Indexed/Strided".
 * Layer: extended. Each call is cut into the contiguous pieces on which the local and the
 * remote description agree, and every piece is one gex_RMA_* call: that call already takes
 * the same-host load/store shortcut, or the conduit's native RDMA, or the AM reference,
 * so VIS behaves the same on every conduit. Pieces of a Blocking or NB call are issued as
 * NB RMA, up to VIS_INFLIGHT at once, and all are synchronized before return (an NB call
 * then returns GEX_EVENT_INVALID, which the spec allows: the operation completed at
 * initiation). Pieces of an NBI call are NBI RMA, so they join the thread's NBI counts or
 * the open access region like any other NBI put/get. */
#include "gasnete_internal.h"
#include <gasnet_vis.h>
#include <stdlib.h>

#define VIS_INFLIGHT 64 /* NB pieces outstanding before the initiator waits for them */

typedef struct {
    int mode, is_put;
    gex_TM_t tm;
    gex_Rank_t rank;
    gex_Flags_t flags; /* passed to every piece */
    gex_Event_t *lc;   /* a put's local completion */
    const char *call;  /* the VIS call, for debug-build messages */
    size_t nev;
    gex_Event_t ev[VIS_INFLIGHT];
} vis_ctx_t;

static void vis_init(vis_ctx_t *c, int mode, int is_put, gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags,
                     const char *call) {
    c->call = call;
    c->mode = mode;
    c->is_put = is_put;
    c->tm = tm;
    c->rank = rank;
    /* IMMEDIATE: a VIS call may always proceed; LEAF_LC is about the VIS call, not its pieces */
    c->flags = flags & ~(GEX_FLAG_IMMEDIATE | GEX_FLAG_ENABLE_LEAF_LC);
    c->lc = (mode == GASNETE_VIS_NBI && (flags & GEX_FLAG_ENABLE_LEAF_LC)) ? GEX_EVENT_GROUP : GEX_EVENT_DEFER;
    c->nev = 0;
}

/* one contiguous piece: local is on this process, remote at c->rank */
static void vis_piece(vis_ctx_t *c, void *local, void *remote, size_t n) {
    /* the RMA call checks the piece too, but naming the VIS call tells the client which one */
    GASNETI_CHECK_RMA(c->tm, c->rank, remote, n, c->flags, c->call);
    if (c->mode == GASNETE_VIS_NBI) {
        if (c->is_put) (void)gex_RMA_PutNBI(c->tm, c->rank, remote, local, n, c->lc, c->flags);
        else (void)gex_RMA_GetNBI(c->tm, local, c->rank, remote, n, c->flags);
        return;
    }
    gex_Event_t e = c->is_put ? gex_RMA_PutNB(c->tm, c->rank, remote, local, n, GEX_EVENT_DEFER, c->flags)
                              : gex_RMA_GetNB(c->tm, local, c->rank, remote, n, c->flags);
    if (e == GEX_EVENT_INVALID) return;
    c->ev[c->nev++] = e;
    if (c->nev == VIS_INFLIGHT) {
        gex_Event_WaitAll(c->ev, c->nev, 0);
        c->nev = 0;
    }
}

static gex_Event_t vis_finish(vis_ctx_t *c) {
    if (c->nev) gex_Event_WaitAll(c->ev, c->nev, 0);
    c->nev = 0;
    return GEX_EVENT_INVALID;
}

/* A list of (address, length) entries, either memvecs or addresses of one common length. */
typedef struct {
    size_t count;
    const gex_Memvec_t *mv;
    void *const *ptr;
    size_t len;
} vis_list_t;

static inline void *vl_addr(const vis_list_t *l, size_t i) { return l->mv ? l->mv[i].gex_addr : l->ptr[i]; }
static inline size_t vl_len(const vis_list_t *l, size_t i) { return l->mv ? l->mv[i].gex_len : l->len; }

static size_t vl_total(const vis_list_t *l) {
    if (!l->mv) return l->count * l->len;
    size_t t = 0;
    for (size_t i = 0; i < l->count; i++) t += l->mv[i].gex_len;
    return t;
}

/* Walk both lists in step: each piece ends where a local or a remote entry ends. */
static void vis_walk(vis_ctx_t *c, const vis_list_t *loc, const vis_list_t *rem) {
    size_t i = 0, j = 0, oi = 0, oj = 0;
    while (i < loc->count && j < rem->count) {
        size_t li = vl_len(loc, i), lj = vl_len(rem, j);
        if (oi == li) { i++; oi = 0; continue; }
        if (oj == lj) { j++; oj = 0; continue; }
        size_t n = li - oi < lj - oj ? li - oi : lj - oj;
        vis_piece(c, (char *)vl_addr(loc, i) + oi, (char *)vl_addr(rem, j) + oj, n);
        oi += n;
        oj += n;
    }
}

static void vis_common_checks(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags, int is_put, const char *call) {
    (void)tm; (void)rank; (void)flags; (void)is_put; (void)call;
#if GASNETI_DEBUG
    GASNETI_CHECK_NOT_IN_HANDLER(call);
    const gex_Flags_t allowed = GEX_FLAG_IMMEDIATE | GASNETI_FLAG_SELF_SEG_ALL | GASNETI_FLAG_PEER_SEG_ALL |
                                (is_put ? GEX_FLAG_ENABLE_LEAF_LC : 0);
    if (flags & ~allowed) gasneti_fatalerror("%s: flags 0x%x include bits it does not accept", call,
                                             (unsigned)(flags & ~allowed));
    if (!tm || rank >= gex_TM_QuerySize(tm))
        gasneti_fatalerror("%s: rank %u is out of range for the team", call, (unsigned)rank);
#endif
}

static gex_Event_t vis_lists(int mode, int is_put, gex_TM_t tm, gex_Rank_t rank, const vis_list_t *dst,
                             const vis_list_t *src, gex_Flags_t flags, const char *call) {
    vis_common_checks(tm, rank, flags, is_put, call);
#if GASNETI_DEBUG
    if ((dst->count && !(dst->mv || dst->ptr)) || (src->count && !(src->mv || src->ptr)))
        gasneti_fatalerror("%s: NULL list with a non-zero count", call);
    size_t dt = vl_total(dst), st = vl_total(src);
    if (dt != st)
        gasneti_fatalerror("%s: destination holds %zu bytes but source holds %zu", call, dt, st);
#endif
    vis_ctx_t c;
    vis_init(&c, mode, is_put, tm, rank, flags, call);
    if (is_put) vis_walk(&c, src, dst);
    else vis_walk(&c, dst, src);
    return vis_finish(&c);
}

gex_Event_t gasnete_vis_vector(int mode, int is_put, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                               gex_Memvec_t const dstlist[], size_t srccount, gex_Memvec_t const srclist[],
                               gex_Flags_t flags, const char *call) {
    vis_list_t d = {dstcount, dstlist, NULL, 0}, s = {srccount, srclist, NULL, 0};
    return vis_lists(mode, is_put, tm, rank, &d, &s, flags, call);
}

gex_Event_t gasnete_vis_indexed(int mode, int is_put, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                                void *const dstlist[], size_t dstlen, size_t srccount, void *const srclist[],
                                size_t srclen, gex_Flags_t flags, const char *call) {
    vis_list_t d = {dstcount, NULL, dstlist, dstlen}, s = {srccount, NULL, srclist, srclen};
    if (!dstlen) d.count = 0; /* zero-length entries carry nothing and need no address */
    if (!srclen) s.count = 0;
    return vis_lists(mode, is_put, tm, rank, &d, &s, flags, call);
}

gex_Event_t gasnete_vis_strided(int mode, int is_put, gex_TM_t tm, gex_Rank_t rank, void *dstaddr,
                                const ptrdiff_t dststrides[], void *srcaddr, const ptrdiff_t srcstrides[],
                                size_t elemsz, const size_t count[], size_t stridelevels, gex_Flags_t flags,
                                const char *call) {
    vis_common_checks(tm, rank, flags, is_put, call);
    if (!elemsz) return GEX_EVENT_INVALID;
    for (size_t k = 0; k < stridelevels; k++)
        if (!count[k]) return GEX_EVENT_INVALID;
    /* Fold leading levels that are contiguous on both sides into the element: a row of
     * elements laid end to end becomes one piece (and a dense block one RMA). */
    size_t lv = 0;
    while (lv < stridelevels && dststrides[lv] == (ptrdiff_t)elemsz && srcstrides[lv] == (ptrdiff_t)elemsz) {
        elemsz *= count[lv];
        lv++;
    }
    const ptrdiff_t *ds = dststrides + lv, *ss = srcstrides + lv;
    const size_t *cnt = count + lv;
    size_t levels = stridelevels - lv;
    size_t idx_stack[16];
    size_t *idx = levels <= 16 ? idx_stack : calloc(levels, sizeof *idx);
    if (!idx) gasneti_fatalerror("%s: out of memory for %zu stride levels", call, levels);
    for (size_t k = 0; k < levels; k++) idx[k] = 0;
    vis_ctx_t c;
    vis_init(&c, mode, is_put, tm, rank, flags, call);
    char *d = dstaddr, *s = srcaddr;
    for (;;) {
        if (is_put) vis_piece(&c, s, d, elemsz);
        else vis_piece(&c, d, s, elemsz);
        /* odometer step: advance the lowest level, carrying into higher ones */
        size_t k = 0;
        for (; k < levels; k++) {
            if (++idx[k] < cnt[k]) {
                d += ds[k];
                s += ss[k];
                break;
            }
            idx[k] = 0;
            d -= ds[k] * (ptrdiff_t)(cnt[k] - 1);
            s -= ss[k] * (ptrdiff_t)(cnt[k] - 1);
        }
        if (k == levels) break;
    }
    if (idx != idx_stack) free(idx);
    return vis_finish(&c);
}
