/* gasnet_vis.h: VIS, the vector, indexed and strided put/get calls (spec "Vector/Indexed/Strided").
 * Layer: public. Every call is decomposed by the library into contiguous pieces moved with
 * gex_RMA_* (gasnet_extended/gasnete_vis.c), so it works on every conduit. See docs/vis.md.
 * Not provided: gex_VIS_SetPeerCompletionHandler and the GASNet-1 gasnet_{put,get}{v,i,s}
 * prototype (the legacy spec only references it). */
#ifndef GASNET_VIS_H
#define GASNET_VIS_H
#include <gasnetex.h>
#include <stddef.h>

GASNETI_BEGIN_EXTERNC

/* mode: how the pieces complete (blocking, one NB event, or the NBI machinery) */
#define GASNETE_VIS_BLOCKING 0
#define GASNETE_VIS_NB 1
#define GASNETE_VIS_NBI 2

extern gex_Event_t gasnete_vis_vector(int mode, int is_put, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                                      gex_Memvec_t const dstlist[], size_t srccount, gex_Memvec_t const srclist[],
                                      gex_Flags_t flags, const char *call);
extern gex_Event_t gasnete_vis_indexed(int mode, int is_put, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                                       void *const dstlist[], size_t dstlen, size_t srccount,
                                       void *const srclist[], size_t srclen, gex_Flags_t flags, const char *call);
extern gex_Event_t gasnete_vis_strided(int mode, int is_put, gex_TM_t tm, gex_Rank_t rank, void *dstaddr,
                                       const ptrdiff_t dststrides[], void *srcaddr, const ptrdiff_t srcstrides[],
                                       size_t elemsz, const size_t count[], size_t stridelevels, gex_Flags_t flags,
                                       const char *call);

/* Blocking and NBI calls return 0: a VIS call never declines with IMMEDIATE (a function,
 * not a comma expression, so an unused result draws no warning) */
GASNETI_ALWAYS_INLINE int gasnete_vis_rc(gex_Event_t _ev) { (void)_ev; return 0; }

/* ---- vector ---- */
#define gex_VIS_VectorGetNB(tm, dc, dl, rank, sc, sl, fl) \
    gasnete_vis_vector(GASNETE_VIS_NB, 0, tm, rank, dc, dl, sc, sl, fl, "gex_VIS_VectorGetNB")
#define gex_VIS_VectorGetNBI(tm, dc, dl, rank, sc, sl, fl) \
    gasnete_vis_rc(gasnete_vis_vector(GASNETE_VIS_NBI, 0, tm, rank, dc, dl, sc, sl, fl, "gex_VIS_VectorGetNBI"))
#define gex_VIS_VectorGetBlocking(tm, dc, dl, rank, sc, sl, fl) \
    gasnete_vis_rc(gasnete_vis_vector(GASNETE_VIS_BLOCKING, 0, tm, rank, dc, dl, sc, sl, fl, "gex_VIS_VectorGetBlocking"))
#define gex_VIS_VectorPutNB(tm, rank, dc, dl, sc, sl, fl) \
    gasnete_vis_vector(GASNETE_VIS_NB, 1, tm, rank, dc, dl, sc, sl, fl, "gex_VIS_VectorPutNB")
#define gex_VIS_VectorPutNBI(tm, rank, dc, dl, sc, sl, fl) \
    gasnete_vis_rc(gasnete_vis_vector(GASNETE_VIS_NBI, 1, tm, rank, dc, dl, sc, sl, fl, "gex_VIS_VectorPutNBI"))
#define gex_VIS_VectorPutBlocking(tm, rank, dc, dl, sc, sl, fl) \
    gasnete_vis_rc(gasnete_vis_vector(GASNETE_VIS_BLOCKING, 1, tm, rank, dc, dl, sc, sl, fl, "gex_VIS_VectorPutBlocking"))

/* ---- indexed ---- */
#define gex_VIS_IndexedGetNB(tm, dc, dl, dlen, rank, sc, sl, slen, fl) \
    gasnete_vis_indexed(GASNETE_VIS_NB, 0, tm, rank, dc, dl, dlen, sc, sl, slen, fl, "gex_VIS_IndexedGetNB")
#define gex_VIS_IndexedGetNBI(tm, dc, dl, dlen, rank, sc, sl, slen, fl)                                           \
    gasnete_vis_rc(gasnete_vis_indexed(GASNETE_VIS_NBI, 0, tm, rank, dc, dl, dlen, sc, sl, slen, fl,                      \
                               "gex_VIS_IndexedGetNBI"))
#define gex_VIS_IndexedGetBlocking(tm, dc, dl, dlen, rank, sc, sl, slen, fl)                                      \
    gasnete_vis_rc(gasnete_vis_indexed(GASNETE_VIS_BLOCKING, 0, tm, rank, dc, dl, dlen, sc, sl, slen, fl,                 \
                               "gex_VIS_IndexedGetBlocking"))
#define gex_VIS_IndexedPutNB(tm, rank, dc, dl, dlen, sc, sl, slen, fl) \
    gasnete_vis_indexed(GASNETE_VIS_NB, 1, tm, rank, dc, dl, dlen, sc, sl, slen, fl, "gex_VIS_IndexedPutNB")
#define gex_VIS_IndexedPutNBI(tm, rank, dc, dl, dlen, sc, sl, slen, fl)                                           \
    gasnete_vis_rc(gasnete_vis_indexed(GASNETE_VIS_NBI, 1, tm, rank, dc, dl, dlen, sc, sl, slen, fl,                      \
                               "gex_VIS_IndexedPutNBI"))
#define gex_VIS_IndexedPutBlocking(tm, rank, dc, dl, dlen, sc, sl, slen, fl)                                      \
    gasnete_vis_rc(gasnete_vis_indexed(GASNETE_VIS_BLOCKING, 1, tm, rank, dc, dl, dlen, sc, sl, slen, fl,                 \
                               "gex_VIS_IndexedPutBlocking"))

/* ---- strided ---- */
#define gex_VIS_StridedGetNB(tm, d, ds, rank, s, ss, esz, cnt, lv, fl) \
    gasnete_vis_strided(GASNETE_VIS_NB, 0, tm, rank, d, ds, s, ss, esz, cnt, lv, fl, "gex_VIS_StridedGetNB")
#define gex_VIS_StridedGetNBI(tm, d, ds, rank, s, ss, esz, cnt, lv, fl)                                           \
    gasnete_vis_rc(gasnete_vis_strided(GASNETE_VIS_NBI, 0, tm, rank, d, ds, s, ss, esz, cnt, lv, fl,                      \
                               "gex_VIS_StridedGetNBI"))
#define gex_VIS_StridedGetBlocking(tm, d, ds, rank, s, ss, esz, cnt, lv, fl)                                      \
    gasnete_vis_rc(gasnete_vis_strided(GASNETE_VIS_BLOCKING, 0, tm, rank, d, ds, s, ss, esz, cnt, lv, fl,                 \
                               "gex_VIS_StridedGetBlocking"))
#define gex_VIS_StridedPutNB(tm, rank, d, ds, s, ss, esz, cnt, lv, fl) \
    gasnete_vis_strided(GASNETE_VIS_NB, 1, tm, rank, d, ds, s, ss, esz, cnt, lv, fl, "gex_VIS_StridedPutNB")
#define gex_VIS_StridedPutNBI(tm, rank, d, ds, s, ss, esz, cnt, lv, fl)                                           \
    gasnete_vis_rc(gasnete_vis_strided(GASNETE_VIS_NBI, 1, tm, rank, d, ds, s, ss, esz, cnt, lv, fl,                      \
                               "gex_VIS_StridedPutNBI"))
#define gex_VIS_StridedPutBlocking(tm, rank, d, ds, s, ss, esz, cnt, lv, fl)                                      \
    gasnete_vis_rc(gasnete_vis_strided(GASNETE_VIS_BLOCKING, 1, tm, rank, d, ds, s, ss, esz, cnt, lv, fl,                 \
                               "gex_VIS_StridedPutBlocking"))

GASNETI_END_EXTERNC
#endif
