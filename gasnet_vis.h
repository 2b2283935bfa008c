/* gasnet_vis.h: VIS, the vector, indexed and strided put/get calls (spec "Vector/Indexed/Strided").
 * Layer: public. Every call is decomposed by the library into contiguous pieces moved with
 * gex_RMA_* (gasnet_extended/gasnete_vis.c), so it works on every conduit. See docs/vis.md.
 * The GASNet-1 prototype forms gasnet_{put,get}{v,i,s}[_nb|_nbi][_bulk] are at the end.
 * gex_VIS_SetPeerCompletionHandler [EXPERIMENTAL in the spec]: a put that takes an armed
 * handler completes before it returns, then notifies the target (docs/vis.md). */
#ifndef GASNET_VIS_H
#define GASNET_VIS_H
#include <gasnetex.h>
#include <stddef.h>

GASNETI_BEGIN_EXTERNC

/* ---- peer completion (spec "VIS Put Peer Completion") ---- */
#define GEX_VIS_MAX_PEERCOMPLETION ((size_t)512)
extern void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr, size_t nbytes,
                                             gex_Flags_t flags);

/* mode: how the pieces complete (blocking, one NB event, or the NBI machinery) */
#define GASNETE_VIS_BLOCKING 0
#define GASNETE_VIS_NB 1
#define GASNETE_VIS_NBI 2
#define GASNETE_VIS_LC_NOW 4 /* or'ed into NBI: a put's source is free at return (GASNet-1 non-bulk) */

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

extern gex_Event_t gasnete_vis_strided_legacy(int mode, int is_put, gex_Rank_t node, void *dstaddr,
                                              const size_t dststrides[], void *srcaddr, const size_t srcstrides[],
                                              const size_t count[], size_t stridelevels, const char *call);

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

/* ---- the GASNet-1 VIS prototype (on the primordial team, node = job rank) ----
 * putv/getv: gasnet_memvec_t lists (fields addr, len); puti/geti: address lists of one length each side;
 * puts/gets: count[0] contiguous bytes, count[1..stridelevels] counts, size_t strides.
 * _bulk: the source may be reused once the operation is synchronized; the forms without
 * it (non-bulk) free the source at return. Blocking forms return nothing, _nb a handle,
 * _nbi nothing (synchronized with gasnet_wait_syncnbi_*). */
/* a GASNet-1 memvec list as the gex_Memvec_t list of the same layout (the spec allows
 * the cast; the function keeps the argument's type checked) */
GASNETI_ALWAYS_INLINE const gex_Memvec_t *gasnete_memvec1(const gasnet_memvec_t *_v) {
    return (const gex_Memvec_t *)(const void *)_v;
}
#define GASNETE_VIS1_V(mode, put, node, dc, dl, sc, sl, name) \
    gasnete_vis_vector(mode, put, gasneti_tm0, node, dc, gasnete_memvec1(dl), sc, gasnete_memvec1(sl), 0, name)
#define GASNETE_VIS1_I(mode, put, node, dc, dl, dlen, sc, sl, slen, name) \
    gasnete_vis_indexed(mode, put, gasneti_tm0, node, dc, (void *const *)(dl), dlen, sc, (void *const *)(sl), slen, 0, name)

#define gasnet_putv_bulk(node, dc, dl, sc, sl) ((void)GASNETE_VIS1_V(GASNETE_VIS_BLOCKING, 1, node, dc, dl, sc, sl, "gasnet_putv_bulk"))
#define gasnet_putv(node, dc, dl, sc, sl) ((void)GASNETE_VIS1_V(GASNETE_VIS_BLOCKING, 1, node, dc, dl, sc, sl, "gasnet_putv"))
#define gasnet_putv_nb_bulk(node, dc, dl, sc, sl) GASNETE_VIS1_V(GASNETE_VIS_NB, 1, node, dc, dl, sc, sl, "gasnet_putv_nb_bulk")
#define gasnet_putv_nb(node, dc, dl, sc, sl) GASNETE_VIS1_V(GASNETE_VIS_NB, 1, node, dc, dl, sc, sl, "gasnet_putv_nb")
#define gasnet_putv_nbi_bulk(node, dc, dl, sc, sl) ((void)GASNETE_VIS1_V(GASNETE_VIS_NBI, 1, node, dc, dl, sc, sl, "gasnet_putv_nbi_bulk"))
#define gasnet_putv_nbi(node, dc, dl, sc, sl) \
    ((void)GASNETE_VIS1_V(GASNETE_VIS_NBI | GASNETE_VIS_LC_NOW, 1, node, dc, dl, sc, sl, "gasnet_putv_nbi"))
#define gasnet_getv_bulk(dc, dl, node, sc, sl) ((void)GASNETE_VIS1_V(GASNETE_VIS_BLOCKING, 0, node, dc, dl, sc, sl, "gasnet_getv_bulk"))
#define gasnet_getv gasnet_getv_bulk
#define gasnet_getv_nb_bulk(dc, dl, node, sc, sl) GASNETE_VIS1_V(GASNETE_VIS_NB, 0, node, dc, dl, sc, sl, "gasnet_getv_nb_bulk")
#define gasnet_getv_nb gasnet_getv_nb_bulk
#define gasnet_getv_nbi_bulk(dc, dl, node, sc, sl) ((void)GASNETE_VIS1_V(GASNETE_VIS_NBI, 0, node, dc, dl, sc, sl, "gasnet_getv_nbi_bulk"))
#define gasnet_getv_nbi gasnet_getv_nbi_bulk

#define gasnet_puti_bulk(node, dc, dl, dlen, sc, sl, slen) \
    ((void)GASNETE_VIS1_I(GASNETE_VIS_BLOCKING, 1, node, dc, dl, dlen, sc, sl, slen, "gasnet_puti_bulk"))
#define gasnet_puti(node, dc, dl, dlen, sc, sl, slen) \
    ((void)GASNETE_VIS1_I(GASNETE_VIS_BLOCKING, 1, node, dc, dl, dlen, sc, sl, slen, "gasnet_puti"))
#define gasnet_puti_nb_bulk(node, dc, dl, dlen, sc, sl, slen) \
    GASNETE_VIS1_I(GASNETE_VIS_NB, 1, node, dc, dl, dlen, sc, sl, slen, "gasnet_puti_nb_bulk")
#define gasnet_puti_nb(node, dc, dl, dlen, sc, sl, slen) \
    GASNETE_VIS1_I(GASNETE_VIS_NB, 1, node, dc, dl, dlen, sc, sl, slen, "gasnet_puti_nb")
#define gasnet_puti_nbi_bulk(node, dc, dl, dlen, sc, sl, slen) \
    ((void)GASNETE_VIS1_I(GASNETE_VIS_NBI, 1, node, dc, dl, dlen, sc, sl, slen, "gasnet_puti_nbi_bulk"))
#define gasnet_puti_nbi(node, dc, dl, dlen, sc, sl, slen) \
    ((void)GASNETE_VIS1_I(GASNETE_VIS_NBI | GASNETE_VIS_LC_NOW, 1, node, dc, dl, dlen, sc, sl, slen, "gasnet_puti_nbi"))
#define gasnet_geti_bulk(dc, dl, dlen, node, sc, sl, slen) \
    ((void)GASNETE_VIS1_I(GASNETE_VIS_BLOCKING, 0, node, dc, dl, dlen, sc, sl, slen, "gasnet_geti_bulk"))
#define gasnet_geti gasnet_geti_bulk
#define gasnet_geti_nb_bulk(dc, dl, dlen, node, sc, sl, slen) \
    GASNETE_VIS1_I(GASNETE_VIS_NB, 0, node, dc, dl, dlen, sc, sl, slen, "gasnet_geti_nb_bulk")
#define gasnet_geti_nb gasnet_geti_nb_bulk
#define gasnet_geti_nbi_bulk(dc, dl, dlen, node, sc, sl, slen) \
    ((void)GASNETE_VIS1_I(GASNETE_VIS_NBI, 0, node, dc, dl, dlen, sc, sl, slen, "gasnet_geti_nbi_bulk"))
#define gasnet_geti_nbi gasnet_geti_nbi_bulk

#define gasnet_puts_bulk(node, d, ds, s, ss, cnt, lv) \
    ((void)gasnete_vis_strided_legacy(GASNETE_VIS_BLOCKING, 1, node, d, ds, s, ss, cnt, lv, "gasnet_puts_bulk"))
#define gasnet_puts(node, d, ds, s, ss, cnt, lv) \
    ((void)gasnete_vis_strided_legacy(GASNETE_VIS_BLOCKING, 1, node, d, ds, s, ss, cnt, lv, "gasnet_puts"))
#define gasnet_puts_nb_bulk(node, d, ds, s, ss, cnt, lv) \
    gasnete_vis_strided_legacy(GASNETE_VIS_NB, 1, node, d, ds, s, ss, cnt, lv, "gasnet_puts_nb_bulk")
#define gasnet_puts_nb(node, d, ds, s, ss, cnt, lv) \
    gasnete_vis_strided_legacy(GASNETE_VIS_NB, 1, node, d, ds, s, ss, cnt, lv, "gasnet_puts_nb")
#define gasnet_puts_nbi_bulk(node, d, ds, s, ss, cnt, lv) \
    ((void)gasnete_vis_strided_legacy(GASNETE_VIS_NBI, 1, node, d, ds, s, ss, cnt, lv, "gasnet_puts_nbi_bulk"))
#define gasnet_puts_nbi(node, d, ds, s, ss, cnt, lv) \
    ((void)gasnete_vis_strided_legacy(GASNETE_VIS_NBI | GASNETE_VIS_LC_NOW, 1, node, d, ds, s, ss, cnt, lv, "gasnet_puts_nbi"))
#define gasnet_gets_bulk(d, ds, node, s, ss, cnt, lv) \
    ((void)gasnete_vis_strided_legacy(GASNETE_VIS_BLOCKING, 0, node, d, ds, s, ss, cnt, lv, "gasnet_gets_bulk"))
#define gasnet_gets gasnet_gets_bulk
#define gasnet_gets_nb_bulk(d, ds, node, s, ss, cnt, lv) \
    gasnete_vis_strided_legacy(GASNETE_VIS_NB, 0, node, d, ds, s, ss, cnt, lv, "gasnet_gets_nb_bulk")
#define gasnet_gets_nb gasnet_gets_nb_bulk
#define gasnet_gets_nbi_bulk(d, ds, node, s, ss, cnt, lv) \
    ((void)gasnete_vis_strided_legacy(GASNETE_VIS_NBI, 0, node, d, ds, s, ss, cnt, lv, "gasnet_gets_nbi_bulk"))
#define gasnet_gets_nbi gasnet_gets_nbi_bulk

GASNETI_END_EXTERNC
#endif
