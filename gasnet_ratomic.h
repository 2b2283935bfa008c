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

/* The first members of a domain (gasnete_ratomic.c), which the inline path reads: its
 * team, and whether its operations on load/store peers are CPU atomics (not network
 * atomics: gasnetc_amo_domain said no). */
typedef struct {
    gex_TM_t _tm;
    int _cpu;
} gasneti_ad_head_t;

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

/* The neighbor fast path of the integer types, as the RMA calls have (gasneti_nbr_fast):
 * on a CPU-atomics domain, an opcode known at compile time (the switch then folds to one
 * atomic instruction) and a team member the team's table knows as a load/store peer, the
 * operation is one CPU atomic through our mapping, with the library's semantics
 * (sequentially consistent; AD_REL/AD_ACQ fences; arithmetic wraps on the unsigned
 * type). Returns 1 when done. Not in debug builds (the library checks the domain's type
 * and operations, alignment and bounds first), trace builds, nor under
 * GEX_FLAG_RANK_IS_JOBRANK; MULT, MIN and MAX go to the library. */
#define GASNETI_AD_NBR_INT(T, U)                                                                               \
    do {                                                                                                       \
        if (GASNETI_DEBUG || GASNETI_TRACE || !__builtin_constant_p(_op) || (_fl & GEX_FLAG_RANK_IS_JOBRANK) || \
            !((const gasneti_ad_head_t *)_ad)->_cpu)                                                          \
            break;                                                                                             \
        gex_TM_t _tm = ((const gasneti_ad_head_t *)_ad)->_tm;                                                  \
        intptr_t _d = gasneti_tm_nbr_delta(_tm, _rank, "gex_AD_OpNB");                                         \
        if (!_d) break;                                                                                        \
        T *_p = (T *)((uintptr_t)_addr + (uintptr_t)_d - 1u), _old = 0;                                        \
        if (_fl & GEX_FLAG_AD_REL) __atomic_thread_fence(__ATOMIC_RELEASE);                                    \
        switch (_op) {                                                                                         \
            case GEX_OP_GET: _old = __atomic_load_n(_p, __ATOMIC_SEQ_CST); break;                              \
            case GEX_OP_SET: __atomic_store_n(_p, _op1, __ATOMIC_SEQ_CST); break;                              \
            case GEX_OP_SWAP: _old = __atomic_exchange_n(_p, _op1, __ATOMIC_SEQ_CST); break;                   \
            case GEX_OP_CAS:                                                                                   \
            case GEX_OP_FCAS:                                                                                  \
                _old = _op1;                                                                                   \
                __atomic_compare_exchange_n(_p, &_old, _op2, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);           \
                break;                                                                                         \
            case GEX_OP_ADD:                                                                                   \
            case GEX_OP_FADD: _old = (T)__atomic_fetch_add((U *)_p, (U)_op1, __ATOMIC_SEQ_CST); break;         \
            case GEX_OP_SUB:                                                                                   \
            case GEX_OP_FSUB: _old = (T)__atomic_fetch_sub((U *)_p, (U)_op1, __ATOMIC_SEQ_CST); break;         \
            case GEX_OP_INC:                                                                                   \
            case GEX_OP_FINC: _old = (T)__atomic_fetch_add((U *)_p, (U)1, __ATOMIC_SEQ_CST); break;            \
            case GEX_OP_DEC:                                                                                   \
            case GEX_OP_FDEC: _old = (T)__atomic_fetch_sub((U *)_p, (U)1, __ATOMIC_SEQ_CST); break;            \
            case GEX_OP_AND:                                                                                   \
            case GEX_OP_FAND: _old = __atomic_fetch_and(_p, _op1, __ATOMIC_SEQ_CST); break;                    \
            case GEX_OP_OR:                                                                                    \
            case GEX_OP_FOR: _old = __atomic_fetch_or(_p, _op1, __ATOMIC_SEQ_CST); break;                      \
            case GEX_OP_XOR:                                                                                   \
            case GEX_OP_FXOR: _old = __atomic_fetch_xor(_p, _op1, __ATOMIC_SEQ_CST); break;                    \
            default: _done = -1; break; /* MULT, MIN, MAX: the library (nothing done here yet) */              \
        }                                                                                                      \
        if (_done < 0) {                                                                                       \
            _done = 0;                                                                                         \
            break;                                                                                             \
        }                                                                                                      \
        if ((_op & 0x0fff0000u) || _op == GEX_OP_GET) *_res = _old;                                            \
        if (_fl & GEX_FLAG_AD_ACQ) __atomic_thread_fence(__ATOMIC_ACQUIRE);                                    \
        _done = 1;                                                                                             \
    } while (0)
#define GASNETI_AD_NBR_NONE(T, U) ((void)0)

#define GASNETE_AD_TYPED(NAME, DT, T, NBR, U)                                                                  \
    GASNETI_ALWAYS_INLINE gex_Event_t gex_AD_OpNB_##NAME(gex_AD_t _ad, T *_res, gex_Rank_t _rank, void *_addr,  \
                                                         gex_OP_t _op, T _op1, T _op2, gex_Flags_t _fl) {      \
        int _done = 0;                                                                                         \
        NBR(T, U);                                                                                             \
        if (_done) return GEX_EVENT_INVALID;                                                                   \
        return gasnete_ad_op(_ad, DT, _res, _rank, _addr, _op, &_op1, &_op2, _fl, 0);                          \
    }                                                                                                          \
    GASNETI_ALWAYS_INLINE int gex_AD_OpNBI_##NAME(gex_AD_t _ad, T *_res, gex_Rank_t _rank, void *_addr,         \
                                                  gex_OP_t _op, T _op1, T _op2, gex_Flags_t _fl) {             \
        int _done = 0;                                                                                         \
        NBR(T, U);                                                                                             \
        if (_done) return 0;                                                                                   \
        return gasnete_ad_op(_ad, DT, _res, _rank, _addr, _op, &_op1, &_op2, _fl, 1) == GEX_EVENT_NO_OP;       \
    }
GASNETE_AD_TYPED(I32, GEX_DT_I32, int32_t, GASNETI_AD_NBR_INT, uint32_t)
GASNETE_AD_TYPED(U32, GEX_DT_U32, uint32_t, GASNETI_AD_NBR_INT, uint32_t)
GASNETE_AD_TYPED(I64, GEX_DT_I64, int64_t, GASNETI_AD_NBR_INT, uint64_t)
GASNETE_AD_TYPED(U64, GEX_DT_U64, uint64_t, GASNETI_AD_NBR_INT, uint64_t)
GASNETE_AD_TYPED(FLT, GEX_DT_FLT, float, GASNETI_AD_NBR_NONE, uint32_t)
GASNETE_AD_TYPED(DBL, GEX_DT_DBL, double, GASNETI_AD_NBR_NONE, uint64_t)
#undef GASNETE_AD_TYPED

GASNETI_END_EXTERNC
#endif
