/* gasnete_rma_api.h: public RMA, event, NBI and barrier API.
 * Layer: extended (installed, included by gasnetex.h).
 * Each RMA call is one straight line: debug check (compiled out) -> the neighbor fast
 * path (the team's table of load/store peers, then one load/store/memcpy into the peer's
 * mapped segment) -> otherwise rank translation, the same-host test, and one call into
 * the extended layer, which picks the conduit's native RDMA or the AM-based reference. */
#ifndef GASNETE_RMA_API_H
#define GASNETE_RMA_API_H

#include <string.h>

GASNETI_BEGIN_EXTERNC

/* ---- slow paths, in the library ---- */
/* `ep`: the index of the peer endpoint whose bound segment holds the remote address */
extern gex_Event_t gasnete_put_nb(gex_EP_Index_t ep, gex_Rank_t jobrank, void *dest, const void *src, size_t nbytes,
                                  gex_Event_t *lc_opt, gex_Flags_t flags);
extern int gasnete_put_nbi(gex_EP_Index_t ep, gex_Rank_t jobrank, void *dest, const void *src, size_t nbytes,
                           gex_Event_t *lc_opt, gex_Flags_t flags);
extern gex_Event_t gasnete_get_nb(gex_EP_Index_t ep, void *dest, gex_Rank_t jobrank, void *src, size_t nbytes,
                                  gex_Flags_t flags);
extern int gasnete_get_nbi(gex_EP_Index_t ep, void *dest, gex_Rank_t jobrank, void *src, size_t nbytes,
                           gex_Flags_t flags);
extern void gasneti_event_wait(gex_Event_t ev);

/* Flags an RMA call accepts (debug builds reject any other bit, naming the call). The
 * LC_COPY hints exist only where there is an lc_opt; ENABLE_LEAF_LC is accepted and ignored.
 * PEER_NEVER_NBRHD skips the same-host test (debug builds check both PEER_NEVER
 * assertions). */
#define GASNETI_RMA_PEER_NEVER (GEX_FLAG_PEER_NEVER_SELF | GEX_FLAG_PEER_NEVER_NBRHD)
#define GASNETI_RMA_FLAGS                                                                           \
    (GEX_FLAG_IMMEDIATE | GASNETI_FLAG_SELF_SEG_ALL | GASNETI_FLAG_PEER_SEG_ALL | GEX_FLAG_ENABLE_LEAF_LC | \
     GASNETI_RMA_PEER_NEVER)
#define GASNETI_RMA_LC_FLAGS (GASNETI_RMA_FLAGS | GEX_FLAG_LC_COPY_YES | GEX_FLAG_LC_COPY_NO)
/* the value forms have no local address for a SELF flag to describe */
#define GASNETI_RMA_VAL_FLAGS                                                                         \
    (GEX_FLAG_IMMEDIATE | GEX_FLAG_SELF_SEG_UNKNOWN | GASNETI_FLAG_PEER_SEG_ALL | GEX_FLAG_ENABLE_LEAF_LC | \
     GASNETI_RMA_PEER_NEVER)

#if GASNETI_DEBUG
/* One RMA call, with its arguments as the client passed them (offsets untranslated):
 * initialized, not in handler context, rank in range, only `allowed` flag bits, and the
 * segment-disposition assertions about self_addr (local side) and peer_addr (remote side). */
extern void gasneti_check_rma_op(gex_TM_t tm, gex_Rank_t rank, const void *self_addr, const void *peer_addr,
                                 size_t nbytes, gex_Flags_t flags, gex_Flags_t allowed, const char *call);
/* The remote side only (PEER_SEG_* flags honoured, other bits ignored): for calls with
 * flags of their own that still address a peer's segment. */
extern void gasneti_check_rma(gex_TM_t tm, gex_Rank_t rank, const void *addr, size_t nbytes,
                              gex_Flags_t flags, const char *call);
extern void gasneti_check_lc_opt(gex_Event_t *lc_opt, int allow_group, int allow_defer, const char *call);
/* the value forms: 1 <= nbytes <= sizeof(gex_RMA_Value_t) */
extern void gasneti_check_rma_val(size_t nbytes, const char *call);
#  define GASNETI_CHECK_RMA_OP(tm, rank, self, peer, n, fl, allowed, call) \
      gasneti_check_rma_op(tm, rank, self, peer, n, fl, allowed, call)
#  define GASNETI_CHECK_RMA(tm, rank, addr, n, fl, call) gasneti_check_rma(tm, rank, addr, n, fl, call)
#  define GASNETI_CHECK_LC(lc, grp, defer, call) gasneti_check_lc_opt(lc, grp, defer, call)
#  define GASNETI_CHECK_RMA_VAL(n, call) gasneti_check_rma_val(n, call)
#else
#  define GASNETI_CHECK_RMA_OP(tm, rank, self, peer, n, fl, allowed, call) ((void)0)
#  define GASNETI_CHECK_RMA(tm, rank, addr, n, fl, call) ((void)0)
#  define GASNETI_CHECK_LC(lc, grp, defer, call) ((void)0)
#  define GASNETI_CHECK_RMA_VAL(n, call) ((void)0)
#endif

/* The neighbor fast path, tried first by every call below: 1 + the delta (add the delta
 * to an address in team member `_rank`'s bound segment to get ours) when the team's table
 * (gasneti_tm_nbr_delta) knows the member as a load/store peer, else 0. What remains of
 * the call is then one load/store/memcpy at GASNETI_NBR_PTR. Not in trace builds (whose
 * records name the job rank), nor under SEG_OFFSET or PEER_NEVER_NBRHD flags (nearly
 * always constants: the test folds away). */
GASNETI_ALWAYS_INLINE intptr_t gasneti_nbr_fast(gex_TM_t _tm, gex_Rank_t _rank, gex_Flags_t _flags,
                                                const char *_call) {
    if (GASNETI_TRACE || (_flags & (GEX_FLAG_PEER_NEVER_NBRHD | GASNETI_FLAG_SEG_OFFSET))) return 0;
    return gasneti_tm_nbr_delta(_tm, _rank, _call);
}
#define GASNETI_NBR_PTR(addr, delta1) ((void *)((uintptr_t)(addr) + (uintptr_t)(delta1) - 1u))

/* The same-host test of the slow path (a member the team's table does not know yet, or
 * flags the fast path leaves alone): the address of dest/src (in the bound segment _seg
 * of member _rank) in our mapping, or NULL; none to look for when the caller asserts
 * GEX_FLAG_PEER_NEVER_NBRHD. A neighbor found here is recorded in the team's table, so
 * the next call takes the fast path. */
GASNETI_ALWAYS_INLINE void *gasneti_nbr_addr(gex_TM_t _tm, gex_Rank_t _rank, const gasneti_peerseg_t *_seg,
                                             const void *_addr, gex_Flags_t _flags) {
    if (_flags & GEX_FLAG_PEER_NEVER_NBRHD) return (void *)0;
    intptr_t _d = _seg->_nbr_delta;
    if (_d == GASNETI_NOT_NBR) return (void *)0;
    if (gasneti_tm_nbr_entry(_tm, _rank) == 0) gasneti_tm_nbr_learn(_tm, _rank, _d);
    return (void *)((uintptr_t)_addr + (uintptr_t)_d);
}

/* SEG_OFFSET arguments become addresses (a test of a flags argument that is nearly always
 * a compile-time constant, so this folds away); the library never sees the OFFSET bits. */
#define GASNETI_RMA_TRANSLATE(tm, ps, flags, local, remote)                                          \
    do {                                                                                            \
        if ((flags) & GEX_FLAG_PEER_SEG_OFFSET) (remote) = gasneti_seg_offset_addr((ps), (remote)); \
        if ((flags) & GEX_FLAG_SELF_SEG_OFFSET)                                                     \
            (local) = (void *)((uintptr_t)(tm)->_ep->_segment->_addr + (uintptr_t)(local));         \
        (flags) &= ~GASNETI_FLAG_SEG_OFFSET;                                                        \
    } while (0)

/* ---- puts ---- */
GASNETI_ALWAYS_INLINE int gex_RMA_PutBlocking(gex_TM_t _tm, gex_Rank_t _rank, void *_dest, const void *_src,
                                              size_t _nbytes, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA_OP(_tm, _rank, _src, _dest, _nbytes, _flags, GASNETI_RMA_FLAGS, "gex_RMA_PutBlocking");
    intptr_t _d = gasneti_nbr_fast(_tm, _rank, _flags, "gex_RMA_PutBlocking");
    if (GASNETI_LIKELY(_d != 0)) {
        memcpy(GASNETI_NBR_PTR(_dest, _d), _src, _nbytes);
        return 0;
    }
    gex_Rank_t _jr = gasneti_tm_jobrank_checked(_tm, _rank, "gex_RMA_PutBlocking");
    const gasneti_peerseg_t *_ps = gasneti_tm_peerseg(_tm, _rank, _jr);
    GASNETI_RMA_TRANSLATE(_tm, _ps, _flags, _src, _dest);
    GASNETI_TRACE_OP(GASNETI_TK_PUT_BLOCKING, _jr, _nbytes, 0);
    void *_near = gasneti_nbr_addr(_tm, _rank, _ps, _dest, _flags);
    if (_near) {
        memcpy(_near, _src, _nbytes);
        return 0;
    }
    gex_Event_t _ev = gasnete_put_nb(gasneti_tm_epidx(_tm, _rank), _jr, _dest, _src, _nbytes, GEX_EVENT_NOW, _flags);
    if (_ev == GEX_EVENT_NO_OP) return 1;
    if (_ev != GEX_EVENT_INVALID) gasneti_event_wait(_ev);
    return 0;
}

GASNETI_ALWAYS_INLINE gex_Event_t gex_RMA_PutNB(gex_TM_t _tm, gex_Rank_t _rank, void *_dest, const void *_src,
                                               size_t _nbytes, gex_Event_t *_lc_opt, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA_OP(_tm, _rank, _src, _dest, _nbytes, _flags, GASNETI_RMA_LC_FLAGS, "gex_RMA_PutNB");
    GASNETI_CHECK_LC(_lc_opt, 0, 1, "gex_RMA_PutNB");
    intptr_t _d = gasneti_nbr_fast(_tm, _rank, _flags, "gex_RMA_PutNB");
    if (GASNETI_LIKELY(_d != 0)) {
        memcpy(GASNETI_NBR_PTR(_dest, _d), _src, _nbytes);
        gasneti_lc_done_at_once(_lc_opt);
        return GEX_EVENT_INVALID;
    }
    gex_Rank_t _jr = gasneti_tm_jobrank_checked(_tm, _rank, "gex_RMA_PutNB");
    const gasneti_peerseg_t *_ps = gasneti_tm_peerseg(_tm, _rank, _jr);
    GASNETI_RMA_TRANSLATE(_tm, _ps, _flags, _src, _dest);
    GASNETI_TRACE_OP(GASNETI_TK_PUT_NB, _jr, _nbytes, 0);
    void *_near = gasneti_nbr_addr(_tm, _rank, _ps, _dest, _flags);
    if (_near) {
        memcpy(_near, _src, _nbytes);
        gasneti_lc_done_at_once(_lc_opt);
        return GEX_EVENT_INVALID;
    }
    return gasnete_put_nb(gasneti_tm_epidx(_tm, _rank), _jr, _dest, _src, _nbytes, _lc_opt, _flags);
}

GASNETI_ALWAYS_INLINE int gex_RMA_PutNBI(gex_TM_t _tm, gex_Rank_t _rank, void *_dest, const void *_src,
                                         size_t _nbytes, gex_Event_t *_lc_opt, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA_OP(_tm, _rank, _src, _dest, _nbytes, _flags, GASNETI_RMA_LC_FLAGS, "gex_RMA_PutNBI");
    GASNETI_CHECK_LC(_lc_opt, 1, 1, "gex_RMA_PutNBI");
    intptr_t _d = gasneti_nbr_fast(_tm, _rank, _flags, "gex_RMA_PutNBI");
    if (GASNETI_LIKELY(_d != 0)) {
        memcpy(GASNETI_NBR_PTR(_dest, _d), _src, _nbytes);
        return 0;
    }
    gex_Rank_t _jr = gasneti_tm_jobrank_checked(_tm, _rank, "gex_RMA_PutNBI");
    const gasneti_peerseg_t *_ps = gasneti_tm_peerseg(_tm, _rank, _jr);
    GASNETI_RMA_TRANSLATE(_tm, _ps, _flags, _src, _dest);
    GASNETI_TRACE_OP(GASNETI_TK_PUT_NBI, _jr, _nbytes, 0);
    void *_near = gasneti_nbr_addr(_tm, _rank, _ps, _dest, _flags);
    if (_near) {
        memcpy(_near, _src, _nbytes);
        return 0;
    }
    return gasnete_put_nbi(gasneti_tm_epidx(_tm, _rank), _jr, _dest, _src, _nbytes, _lc_opt, _flags);
}

/* ---- gets (note: dest precedes rank) ---- */
GASNETI_ALWAYS_INLINE int gex_RMA_GetBlocking(gex_TM_t _tm, void *_dest, gex_Rank_t _rank, void *_src,
                                              size_t _nbytes, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA_OP(_tm, _rank, _dest, _src, _nbytes, _flags, GASNETI_RMA_FLAGS, "gex_RMA_GetBlocking");
    intptr_t _d = gasneti_nbr_fast(_tm, _rank, _flags, "gex_RMA_GetBlocking");
    if (GASNETI_LIKELY(_d != 0)) {
        memcpy(_dest, GASNETI_NBR_PTR(_src, _d), _nbytes);
        return 0;
    }
    gex_Rank_t _jr = gasneti_tm_jobrank_checked(_tm, _rank, "gex_RMA_GetBlocking");
    const gasneti_peerseg_t *_ps = gasneti_tm_peerseg(_tm, _rank, _jr);
    GASNETI_RMA_TRANSLATE(_tm, _ps, _flags, _dest, _src);
    GASNETI_TRACE_OP(GASNETI_TK_GET_BLOCKING, _jr, _nbytes, 0);
    void *_near = gasneti_nbr_addr(_tm, _rank, _ps, _src, _flags);
    if (_near) {
        memcpy(_dest, _near, _nbytes);
        return 0;
    }
    gex_Event_t _ev = gasnete_get_nb(gasneti_tm_epidx(_tm, _rank), _dest, _jr, _src, _nbytes, _flags);
    if (_ev == GEX_EVENT_NO_OP) return 1;
    if (_ev != GEX_EVENT_INVALID) gasneti_event_wait(_ev);
    return 0;
}

GASNETI_ALWAYS_INLINE gex_Event_t gex_RMA_GetNB(gex_TM_t _tm, void *_dest, gex_Rank_t _rank, void *_src,
                                               size_t _nbytes, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA_OP(_tm, _rank, _dest, _src, _nbytes, _flags, GASNETI_RMA_FLAGS, "gex_RMA_GetNB");
    intptr_t _d = gasneti_nbr_fast(_tm, _rank, _flags, "gex_RMA_GetNB");
    if (GASNETI_LIKELY(_d != 0)) {
        memcpy(_dest, GASNETI_NBR_PTR(_src, _d), _nbytes);
        return GEX_EVENT_INVALID;
    }
    gex_Rank_t _jr = gasneti_tm_jobrank_checked(_tm, _rank, "gex_RMA_GetNB");
    const gasneti_peerseg_t *_ps = gasneti_tm_peerseg(_tm, _rank, _jr);
    GASNETI_RMA_TRANSLATE(_tm, _ps, _flags, _dest, _src);
    GASNETI_TRACE_OP(GASNETI_TK_GET_NB, _jr, _nbytes, 0);
    void *_near = gasneti_nbr_addr(_tm, _rank, _ps, _src, _flags);
    if (_near) {
        memcpy(_dest, _near, _nbytes);
        return GEX_EVENT_INVALID;
    }
    return gasnete_get_nb(gasneti_tm_epidx(_tm, _rank), _dest, _jr, _src, _nbytes, _flags);
}

GASNETI_ALWAYS_INLINE int gex_RMA_GetNBI(gex_TM_t _tm, void *_dest, gex_Rank_t _rank, void *_src,
                                         size_t _nbytes, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA_OP(_tm, _rank, _dest, _src, _nbytes, _flags, GASNETI_RMA_FLAGS, "gex_RMA_GetNBI");
    intptr_t _d = gasneti_nbr_fast(_tm, _rank, _flags, "gex_RMA_GetNBI");
    if (GASNETI_LIKELY(_d != 0)) {
        memcpy(_dest, GASNETI_NBR_PTR(_src, _d), _nbytes);
        return 0;
    }
    gex_Rank_t _jr = gasneti_tm_jobrank_checked(_tm, _rank, "gex_RMA_GetNBI");
    const gasneti_peerseg_t *_ps = gasneti_tm_peerseg(_tm, _rank, _jr);
    GASNETI_RMA_TRANSLATE(_tm, _ps, _flags, _dest, _src);
    GASNETI_TRACE_OP(GASNETI_TK_GET_NBI, _jr, _nbytes, 0);
    void *_near = gasneti_nbr_addr(_tm, _rank, _ps, _src, _flags);
    if (_near) {
        memcpy(_dest, _near, _nbytes);
        return 0;
    }
    return gasnete_get_nbi(gasneti_tm_epidx(_tm, _rank), _dest, _jr, _src, _nbytes, _flags);
}

/* ---- value-based payloads (GASNet-1 gasnet_put_val/get_val) ----
 * nbytes is 1..sizeof(gex_RMA_Value_t). Sizes 1, 2, 4 and 8 move a uint8/16/32/64_t holding
 * the low-order bits of the value (so the target sees a native integer of that width);
 * other sizes move the low-order nbytes in the host's byte order. A get zero-extends. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__)
#  if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#    define GASNETI_VAL_LOW_OFFSET(n) (sizeof(gex_RMA_Value_t) - (n)) /* low-order bytes are last */
#  else
#    define GASNETI_VAL_LOW_OFFSET(n) ((size_t)0)
#  endif
#else
#  error "gasnete_rma_api.h needs __BYTE_ORDER__ for the value-based RMA calls"
#endif

GASNETI_ALWAYS_INLINE void gasneti_val_store(void *_p, gex_RMA_Value_t _v, size_t _n) {
    switch (_n) { /* memcpy of a typed temporary: one store, whatever the alignment of _p */
    case 1: { uint8_t _t = (uint8_t)_v; memcpy(_p, &_t, 1); break; }
    case 2: { uint16_t _t = (uint16_t)_v; memcpy(_p, &_t, 2); break; }
    case 4: { uint32_t _t = (uint32_t)_v; memcpy(_p, &_t, 4); break; }
    case 8: { uint64_t _t = (uint64_t)_v; memcpy(_p, &_t, 8); break; }
    default: { /* 3, 5, 6, 7; debug builds stop other sizes earlier, and & 7 keeps them in bounds here */
        const size_t _m = _n & 7;
        memcpy(_p, (const char *)&_v + GASNETI_VAL_LOW_OFFSET(_m), _m);
        break;
    }
    }
}

GASNETI_ALWAYS_INLINE gex_RMA_Value_t gasneti_val_load(const void *_p, size_t _n) {
    switch (_n) {
    case 1: { uint8_t _t; memcpy(&_t, _p, 1); return _t; }
    case 2: { uint16_t _t; memcpy(&_t, _p, 2); return _t; }
    case 4: { uint32_t _t; memcpy(&_t, _p, 4); return _t; }
    case 8: { uint64_t _t; memcpy(&_t, _p, 8); return (gex_RMA_Value_t)_t; }
    default: {
        gex_RMA_Value_t _v = 0;
        const size_t _m = _n & 7;
        memcpy((char *)&_v + GASNETI_VAL_LOW_OFFSET(_m), _p, _m);
        return _v;
    }
    }
}

/* IMMEDIATE is accepted but ignored: the value is the only result, so there is no way to
 * report "nothing done"; the call blocks like the plain form. */
GASNETI_ALWAYS_INLINE gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t _tm, gex_Rank_t _rank, void *_src,
                                                            size_t _nbytes, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA_VAL(_nbytes, "gex_RMA_GetBlockingVal");
    GASNETI_CHECK_RMA_OP(_tm, _rank, (const void *)0, _src, _nbytes, _flags, GASNETI_RMA_VAL_FLAGS,
                         "gex_RMA_GetBlockingVal");
    intptr_t _d = gasneti_nbr_fast(_tm, _rank, _flags, "gex_RMA_GetBlockingVal");
    if (GASNETI_LIKELY(_d != 0)) return gasneti_val_load(GASNETI_NBR_PTR(_src, _d), _nbytes);
    gex_Rank_t _jr = gasneti_tm_jobrank_checked(_tm, _rank, "gex_RMA_GetBlockingVal");
    const gasneti_peerseg_t *_ps = gasneti_tm_peerseg(_tm, _rank, _jr);
    if (_flags & GEX_FLAG_PEER_SEG_OFFSET) _src = gasneti_seg_offset_addr(_ps, _src);
    void *_near = gasneti_nbr_addr(_tm, _rank, _ps, _src, _flags);
    if (_near) return gasneti_val_load(_near, _nbytes);
    gex_RMA_Value_t _buf = 0;
    gex_Event_t _ev = gasnete_get_nb(gasneti_tm_epidx(_tm, _rank), &_buf, _jr, _src, _nbytes,
                                     _flags & ~(GASNETI_FLAG_SEG_OFFSET | GEX_FLAG_IMMEDIATE));
    if (_ev != GEX_EVENT_INVALID) gasneti_event_wait(_ev);
    return gasneti_val_load(&_buf, _nbytes);
}

/* The puts: the value is copied to our stack, so the library call is passed lc_opt
 * GEX_EVENT_NOW and is done with it when it returns; remote completion is as usual. */
GASNETI_ALWAYS_INLINE int gex_RMA_PutBlockingVal(gex_TM_t _tm, gex_Rank_t _rank, void *_dest,
                                                 gex_RMA_Value_t _value, size_t _nbytes, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA_VAL(_nbytes, "gex_RMA_PutBlockingVal");
    GASNETI_CHECK_RMA_OP(_tm, _rank, (const void *)0, _dest, _nbytes, _flags, GASNETI_RMA_VAL_FLAGS,
                         "gex_RMA_PutBlockingVal");
    intptr_t _d = gasneti_nbr_fast(_tm, _rank, _flags, "gex_RMA_PutBlockingVal");
    if (GASNETI_LIKELY(_d != 0)) {
        gasneti_val_store(GASNETI_NBR_PTR(_dest, _d), _value, _nbytes);
        return 0;
    }
    gex_Rank_t _jr = gasneti_tm_jobrank_checked(_tm, _rank, "gex_RMA_PutBlockingVal");
    const gasneti_peerseg_t *_ps = gasneti_tm_peerseg(_tm, _rank, _jr);
    if (_flags & GEX_FLAG_PEER_SEG_OFFSET) _dest = gasneti_seg_offset_addr(_ps, _dest);
    void *_near = gasneti_nbr_addr(_tm, _rank, _ps, _dest, _flags);
    if (_near) {
        gasneti_val_store(_near, _value, _nbytes);
        return 0;
    }
    gex_RMA_Value_t _buf;
    gasneti_val_store(&_buf, _value, _nbytes);
    gex_Event_t _ev = gasnete_put_nb(gasneti_tm_epidx(_tm, _rank), _jr, _dest, &_buf, _nbytes, GEX_EVENT_NOW,
                                   _flags & ~GASNETI_FLAG_SEG_OFFSET);
    if (_ev == GEX_EVENT_NO_OP) return 1;
    if (_ev != GEX_EVENT_INVALID) gasneti_event_wait(_ev);
    return 0;
}

GASNETI_ALWAYS_INLINE int gex_RMA_PutNBIVal(gex_TM_t _tm, gex_Rank_t _rank, void *_dest, gex_RMA_Value_t _value,
                                            size_t _nbytes, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA_VAL(_nbytes, "gex_RMA_PutNBIVal");
    GASNETI_CHECK_RMA_OP(_tm, _rank, (const void *)0, _dest, _nbytes, _flags, GASNETI_RMA_VAL_FLAGS,
                         "gex_RMA_PutNBIVal");
    intptr_t _d = gasneti_nbr_fast(_tm, _rank, _flags, "gex_RMA_PutNBIVal");
    if (GASNETI_LIKELY(_d != 0)) {
        gasneti_val_store(GASNETI_NBR_PTR(_dest, _d), _value, _nbytes);
        return 0;
    }
    gex_Rank_t _jr = gasneti_tm_jobrank_checked(_tm, _rank, "gex_RMA_PutNBIVal");
    const gasneti_peerseg_t *_ps = gasneti_tm_peerseg(_tm, _rank, _jr);
    if (_flags & GEX_FLAG_PEER_SEG_OFFSET) _dest = gasneti_seg_offset_addr(_ps, _dest);
    void *_near = gasneti_nbr_addr(_tm, _rank, _ps, _dest, _flags);
    if (_near) {
        gasneti_val_store(_near, _value, _nbytes);
        return 0;
    }
    gex_RMA_Value_t _buf;
    gasneti_val_store(&_buf, _value, _nbytes);
    return gasnete_put_nbi(gasneti_tm_epidx(_tm, _rank), _jr, _dest, &_buf, _nbytes, GEX_EVENT_NOW,
                                    _flags & ~GASNETI_FLAG_SEG_OFFSET);
}

GASNETI_ALWAYS_INLINE gex_Event_t gex_RMA_PutNBVal(gex_TM_t _tm, gex_Rank_t _rank, void *_dest,
                                                  gex_RMA_Value_t _value, size_t _nbytes, gex_Flags_t _flags) {
    GASNETI_CHECK_RMA_VAL(_nbytes, "gex_RMA_PutNBVal");
    GASNETI_CHECK_RMA_OP(_tm, _rank, (const void *)0, _dest, _nbytes, _flags, GASNETI_RMA_VAL_FLAGS,
                         "gex_RMA_PutNBVal");
    intptr_t _d = gasneti_nbr_fast(_tm, _rank, _flags, "gex_RMA_PutNBVal");
    if (GASNETI_LIKELY(_d != 0)) {
        gasneti_val_store(GASNETI_NBR_PTR(_dest, _d), _value, _nbytes);
        return GEX_EVENT_INVALID;
    }
    gex_Rank_t _jr = gasneti_tm_jobrank_checked(_tm, _rank, "gex_RMA_PutNBVal");
    const gasneti_peerseg_t *_ps = gasneti_tm_peerseg(_tm, _rank, _jr);
    if (_flags & GEX_FLAG_PEER_SEG_OFFSET) _dest = gasneti_seg_offset_addr(_ps, _dest);
    void *_near = gasneti_nbr_addr(_tm, _rank, _ps, _dest, _flags);
    if (_near) {
        gasneti_val_store(_near, _value, _nbytes);
        return GEX_EVENT_INVALID;
    }
    gex_RMA_Value_t _buf;
    gasneti_val_store(&_buf, _value, _nbytes);
    return gasnete_put_nb(gasneti_tm_epidx(_tm, _rank), _jr, _dest, &_buf, _nbytes, GEX_EVENT_NOW,
                                   _flags & ~GASNETI_FLAG_SEG_OFFSET);
}

/* ---- events and NBI synchronization ----
 * An INVALID event is complete: release builds answer inline; debug builds always enter
 * the library, which checks the calling context (no test/wait in handler context). */
extern int gasneti_event_test(gex_Event_t ev);
GASNETI_ALWAYS_INLINE int gex_Event_Test(gex_Event_t _ev) {
    return (!GASNETI_DEBUG && _ev == GEX_EVENT_INVALID) ? 0 : gasneti_event_test(_ev);
}
GASNETI_ALWAYS_INLINE void gex_Event_Wait(gex_Event_t _ev) {
    if (GASNETI_DEBUG || _ev != GEX_EVENT_INVALID) gasneti_event_wait(_ev);
}
extern int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags);
extern int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags);
extern void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags);
/* Access regions: NBI operations this thread initiates between Begin and End are
 * tracked by the event End returns (GEX_EVENT_INVALID when all are complete already),
 * not by gex_NBI_Test/Wait. Regions do not nest; flags must be 0. */
extern void gex_NBI_BeginAccessRegion(gex_Flags_t flags);
extern gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags);
/* The leaf of `root` for one GEX_EC_* category: GEX_EC_LC gives the local-completion
 * leaf (of a put with lc_opt=&event or GEX_FLAG_ENABLE_LEAF_LC, or of an access region),
 * the root's own category the root. GEX_EVENT_INVALID for a root or leaf that is already
 * complete. The leaf belongs to the root: syncing the root recycles it. */
extern gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category);

/* ---- barrier ---- */
extern gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags);
/* the same, waited for (as the released library offers it) */
extern void gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags);

GASNETI_END_EXTERNC

/* Trace builds only: the calls gasnet_trace reports on record the caller's source line
 * (GASNETI_TRACE_SRC) before the call proper; the library defines the non-inline ones as
 * (name)(...), and calls them that way where the client's line must stay. */
#if GASNETI_TRACE
#  define gex_RMA_PutBlocking(...) (GASNETI_TRACE_SRC(), gex_RMA_PutBlocking(__VA_ARGS__))
#  define gex_RMA_PutNB(...) (GASNETI_TRACE_SRC(), gex_RMA_PutNB(__VA_ARGS__))
#  define gex_RMA_PutNBI(...) (GASNETI_TRACE_SRC(), gex_RMA_PutNBI(__VA_ARGS__))
#  define gex_RMA_GetBlocking(...) (GASNETI_TRACE_SRC(), gex_RMA_GetBlocking(__VA_ARGS__))
#  define gex_RMA_GetNB(...) (GASNETI_TRACE_SRC(), gex_RMA_GetNB(__VA_ARGS__))
#  define gex_RMA_GetNBI(...) (GASNETI_TRACE_SRC(), gex_RMA_GetNBI(__VA_ARGS__))
#  define gex_Event_Wait(...) (GASNETI_TRACE_SRC(), gex_Event_Wait(__VA_ARGS__))
#  define gex_Coll_BarrierNB(...) (GASNETI_TRACE_SRC(), gex_Coll_BarrierNB(__VA_ARGS__))
#  define gex_Coll_BarrierBlocking(...) (GASNETI_TRACE_SRC(), gex_Coll_BarrierBlocking(__VA_ARGS__))
#  define gasnet_barrier_notify(...) (GASNETI_TRACE_SRC(), gasnet_barrier_notify(__VA_ARGS__))
#  define gasnet_barrier_wait(...) (GASNETI_TRACE_SRC(), gasnet_barrier_wait(__VA_ARGS__))
#  define gasnet_barrier(...) (GASNETI_TRACE_SRC(), gasnet_barrier(__VA_ARGS__))
#  define gex_Segment_Attach(...) (GASNETI_TRACE_SRC(), gex_Segment_Attach(__VA_ARGS__))
#endif
#endif
