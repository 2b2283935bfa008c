/* gasnete_rma_api.h: public RMA, event, NBI and barrier API.
 * Layer: extended (installed, included by gasnetex.h).
 * Each RMA call is one straight line: debug check (compiled out) -> same-host
 * shortcut (a load/store into the peer's mapped segment) -> one call into the
 * extended layer, which picks the conduit's native RDMA or the AM-based reference. */
#ifndef GASNETE_RMA_API_H
#define GASNETE_RMA_API_H

#include <string.h>

GASNETI_BEGIN_EXTERNC

/* ---- slow paths, in the library ---- */
extern gex_Event_t gasnete_put_nb(gex_TM_t tm, gex_Rank_t jobrank, void *dest, const void *src, size_t nbytes,
                                  gex_Event_t *lc_opt, gex_Flags_t flags);
extern int gasnete_put_nbi(gex_TM_t tm, gex_Rank_t jobrank, void *dest, const void *src, size_t nbytes,
                           gex_Event_t *lc_opt, gex_Flags_t flags);
extern gex_Event_t gasnete_get_nb(gex_TM_t tm, void *dest, gex_Rank_t jobrank, void *src, size_t nbytes,
                                  gex_Flags_t flags);
extern int gasnete_get_nbi(gex_TM_t tm, void *dest, gex_Rank_t jobrank, void *src, size_t nbytes,
                           gex_Flags_t flags);
extern void gasnete_event_wait(gex_Event_t ev);

#if GASNETI_DEBUG
extern void gasneti_check_rma(gex_TM_t tm, gex_Rank_t rank, const void *addr, size_t nbytes,
                              gex_Flags_t flags, const char *call);
extern void gasneti_check_lc_opt(gex_Event_t *lc_opt, int allow_group, int allow_defer, const char *call);
#  define GASNETI_CHECK_RMA(tm, rank, addr, n, fl, call) gasneti_check_rma(tm, rank, addr, n, fl, call)
#  define GASNETI_CHECK_LC(lc, grp, defer, call) gasneti_check_lc_opt(lc, grp, defer, call)
#else
#  define GASNETI_CHECK_RMA(tm, rank, addr, n, fl, call) ((void)0)
#  define GASNETI_CHECK_LC(lc, grp, defer, call) ((void)0)
#endif

/* The one same-host test: the address of dest/src in our mapping, or NULL. */
GASNETI_ALWAYS_INLINE void *gasneti_nbr_addr(gex_Rank_t _jobrank, const void *_addr) {
    intptr_t _d = gasneti_peerseg[_jobrank]._nbr_delta;
    return GASNETI_LIKELY(_d != GASNETI_NOT_NBR) ? (void *)((uintptr_t)_addr + _d) : (void *)0;
}

/* ---- puts ---- */
GASNETI_ALWAYS_INLINE int gex_RMA_PutBlocking(gex_TM_t _tm, gex_Rank_t _rank, void *_dest, const void *_src,
                                              size_t _nbytes, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA(_tm, _rank, _dest, _nbytes, _flags, "gex_RMA_PutBlocking");
    gex_Rank_t _jr = gasneti_tm_jobrank(_tm, _rank);
    void *_near = gasneti_nbr_addr(_jr, _dest);
    if (_near) {
        memcpy(_near, _src, _nbytes);
        return 0;
    }
    gex_Event_t _ev = gasnete_put_nb(_tm, _jr, _dest, _src, _nbytes, GEX_EVENT_NOW, _flags);
    if (_ev == GEX_EVENT_NO_OP) return 1;
    if (_ev != GEX_EVENT_INVALID) gasnete_event_wait(_ev);
    return 0;
}

GASNETI_ALWAYS_INLINE gex_Event_t gex_RMA_PutNB(gex_TM_t _tm, gex_Rank_t _rank, void *_dest, const void *_src,
                                               size_t _nbytes, gex_Event_t *_lc_opt, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA(_tm, _rank, _dest, _nbytes, _flags, "gex_RMA_PutNB");
    GASNETI_CHECK_LC(_lc_opt, 0, 1, "gex_RMA_PutNB");
    gex_Rank_t _jr = gasneti_tm_jobrank(_tm, _rank);
    void *_near = gasneti_nbr_addr(_jr, _dest);
    if (_near) {
        memcpy(_near, _src, _nbytes);
        gasneti_lc_done_at_once(_lc_opt);
        return GEX_EVENT_INVALID;
    }
    return gasnete_put_nb(_tm, _jr, _dest, _src, _nbytes, _lc_opt, _flags);
}

GASNETI_ALWAYS_INLINE int gex_RMA_PutNBI(gex_TM_t _tm, gex_Rank_t _rank, void *_dest, const void *_src,
                                         size_t _nbytes, gex_Event_t *_lc_opt, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA(_tm, _rank, _dest, _nbytes, _flags, "gex_RMA_PutNBI");
    GASNETI_CHECK_LC(_lc_opt, 1, 1, "gex_RMA_PutNBI");
    gex_Rank_t _jr = gasneti_tm_jobrank(_tm, _rank);
    void *_near = gasneti_nbr_addr(_jr, _dest);
    if (_near) {
        memcpy(_near, _src, _nbytes);
        return 0;
    }
    return gasnete_put_nbi(_tm, _jr, _dest, _src, _nbytes, _lc_opt, _flags);
}

/* ---- gets (note: dest precedes rank) ---- */
GASNETI_ALWAYS_INLINE int gex_RMA_GetBlocking(gex_TM_t _tm, void *_dest, gex_Rank_t _rank, void *_src,
                                              size_t _nbytes, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA(_tm, _rank, _src, _nbytes, _flags, "gex_RMA_GetBlocking");
    gex_Rank_t _jr = gasneti_tm_jobrank(_tm, _rank);
    void *_near = gasneti_nbr_addr(_jr, _src);
    if (_near) {
        memcpy(_dest, _near, _nbytes);
        return 0;
    }
    gex_Event_t _ev = gasnete_get_nb(_tm, _dest, _jr, _src, _nbytes, _flags);
    if (_ev == GEX_EVENT_NO_OP) return 1;
    if (_ev != GEX_EVENT_INVALID) gasnete_event_wait(_ev);
    return 0;
}

GASNETI_ALWAYS_INLINE gex_Event_t gex_RMA_GetNB(gex_TM_t _tm, void *_dest, gex_Rank_t _rank, void *_src,
                                               size_t _nbytes, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA(_tm, _rank, _src, _nbytes, _flags, "gex_RMA_GetNB");
    gex_Rank_t _jr = gasneti_tm_jobrank(_tm, _rank);
    void *_near = gasneti_nbr_addr(_jr, _src);
    if (_near) {
        memcpy(_dest, _near, _nbytes);
        return GEX_EVENT_INVALID;
    }
    return gasnete_get_nb(_tm, _dest, _jr, _src, _nbytes, _flags);
}

GASNETI_ALWAYS_INLINE int gex_RMA_GetNBI(gex_TM_t _tm, void *_dest, gex_Rank_t _rank, void *_src,
                                         size_t _nbytes, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA(_tm, _rank, _src, _nbytes, _flags, "gex_RMA_GetNBI");
    gex_Rank_t _jr = gasneti_tm_jobrank(_tm, _rank);
    void *_near = gasneti_nbr_addr(_jr, _src);
    if (_near) {
        memcpy(_dest, _near, _nbytes);
        return 0;
    }
    return gasnete_get_nbi(_tm, _dest, _jr, _src, _nbytes, _flags);
}

/* ---- events and NBI synchronization ---- */
extern int gasnete_event_test(gex_Event_t ev);
GASNETI_ALWAYS_INLINE int gex_Event_Test(gex_Event_t _ev) {
    return _ev == GEX_EVENT_INVALID ? 0 : gasnete_event_test(_ev);
}
GASNETI_ALWAYS_INLINE void gex_Event_Wait(gex_Event_t _ev) {
    if (_ev != GEX_EVENT_INVALID) gasnete_event_wait(_ev);
}
extern int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags);
extern void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags);

/* ---- barrier ---- */
extern gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags);

GASNETI_END_EXTERNC
#endif
