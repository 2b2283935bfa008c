/* gasnet_ratomic.h: remote atomics, the gex_AD_* calls (spec "Remote Atomic Operations").
 * Layer: public. Implemented in gasnet_extended/gasnete_ratomic.c; how a domain chooses
 * its implementation is in docs/ratomic.md. The gex_DT_t / gex_OP_t constants are in
 * gasnetex.h (shared with the collectives). */
#ifndef GASNET_RATOMIC_H
#define GASNET_RATOMIC_H
#include <gasnetex.h>
#include <stdint.h>

GASNETI_BEGIN_EXTERNC

typedef struct gasneti_ad_s *gex_AD_t;
#define GEX_AD_INVALID ((gex_AD_t)0)

extern void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags);
extern void gex_AD_Destroy(gex_AD_t ad);
extern gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad);
extern gex_TM_t gex_AD_QueryTM(gex_AD_t ad);
extern gex_DT_t gex_AD_QueryDT(gex_AD_t ad);
extern gex_OP_t gex_AD_QueryOps(gex_AD_t ad);
extern void gex_AD_SetCData(gex_AD_t ad, const void *val);
extern void *gex_AD_QueryCData(gex_AD_t ad);

/* One entry point for every type: the operands travel by address, the result pointer
 * untyped; nbi selects the completion (0: the returned event, 1: the thread's NBI
 * counts, the returned event then being GEX_EVENT_INVALID or, under IMMEDIATE, NO_OP). */
extern gex_Event_t gasnete_ad_op(gex_AD_t ad, gex_DT_t dt, void *result_p, gex_Rank_t tgt_rank, void *tgt_addr,
                                 gex_OP_t opcode, const void *operand1, const void *operand2, gex_Flags_t flags,
                                 int nbi);

#define GASNETE_AD_TYPED(NAME, DT, T)                                                                          \
    GASNETI_ALWAYS_INLINE gex_Event_t gex_AD_OpNB_##NAME(gex_AD_t _ad, T *_res, gex_Rank_t _rank, void *_addr,  \
                                                         gex_OP_t _op, T _op1, T _op2, gex_Flags_t _fl) {      \
        return gasnete_ad_op(_ad, DT, _res, _rank, _addr, _op, &_op1, &_op2, _fl, 0);                          \
    }                                                                                                          \
    GASNETI_ALWAYS_INLINE int gex_AD_OpNBI_##NAME(gex_AD_t _ad, T *_res, gex_Rank_t _rank, void *_addr,         \
                                                  gex_OP_t _op, T _op1, T _op2, gex_Flags_t _fl) {             \
        return gasnete_ad_op(_ad, DT, _res, _rank, _addr, _op, &_op1, &_op2, _fl, 1) == GEX_EVENT_NO_OP;       \
    }
GASNETE_AD_TYPED(I32, GEX_DT_I32, int32_t)
GASNETE_AD_TYPED(U32, GEX_DT_U32, uint32_t)
GASNETE_AD_TYPED(I64, GEX_DT_I64, int64_t)
GASNETE_AD_TYPED(U64, GEX_DT_U64, uint64_t)
GASNETE_AD_TYPED(FLT, GEX_DT_FLT, float)
GASNETE_AD_TYPED(DBL, GEX_DT_DBL, double)
#undef GASNETE_AD_TYPED

GASNETI_END_EXTERNC
#endif
