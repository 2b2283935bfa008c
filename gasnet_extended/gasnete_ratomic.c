/* gasnete_ratomic.c: remote atomics (gasnet_ratomic.h, spec "Remote Atomic Operations").
 * Layer: extended.
 *
 * Every operation, whoever initiates it, is finally one CPU atomic instruction (or a
 * compare-and-swap loop) on the target location, performed either
 *   - by the initiator itself, on its mapping of the target's segment, when the target
 *     is a load/store peer (itself or a neighbor, as for RMA: GASNET_RMA_NBRHD_BYPASS); or
 *   - by an AM handler in the target process (request: the operation and operands;
 *     reply: the fetched value), for any other target.
 * Both act on the same memory with the same hardware atomics, so they are atomic with
 * respect to each other: a domain whose members are partly neighbors, partly remote may
 * mix them. The choice a domain makes at creation is therefore only which members it can
 * reach directly (docs/ratomic.md).
 *
 * Network atomics (GASNETC_NATIVE_AMO: ofi-conduit's fi_atomic) are not known to be
 * atomic with respect to the CPU's, so the choice between them and the above is made per
 * domain, once, at gex_AD_Create (gasnetc_amo_domain: the conduit can do every operation
 * of the domain on its type): such a domain sends every operation on a segment the
 * network reaches (one with a key: the primordial segments, and the bound segments of
 * other endpoints once published) through the network (gasnetc_amo), those targeting
 * this process and its neighbors included. Segments without a key (memory the conduit
 * could not register) keep the CPU/AM path; a location is in one segment, and every
 * process has the same key for it, so no location sees both.
 *
 * Floating-point operations other than SET/GET/SWAP/CAS are compare-and-swap loops on
 * the value's bits; (F)CAS compares bits (the spec allows it). Integer MULT, MIN and MAX
 * are loops too; ADD/SUB/INC/DEC/AND/OR/XOR are single fetch-and-op instructions. Signed
 * arithmetic wraps (done on the unsigned type). Ordering: every atomic is sequentially
 * consistent; GEX_FLAG_AD_REL adds a release fence before, GEX_FLAG_AD_ACQ an acquire
 * fence after local completion (a remote operation's sync acquires the completion count). */
#include "gasnete_internal.h"
#include <gasnet_ratomic.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct gasneti_ad_s {
    gex_TM_t tm; /* tm and cpu: gasneti_ad_head_t, read by the inline path (gasnet_ratomic.h) */
    int cpu;     /* !network: operations on load/store peers are CPU atomics */
    gex_DT_t dt;
    gex_OP_t ops;
    gex_Flags_t flags;
    void *cdata;
    int network; /* every operation on a segment with a key by gasnetc_amo */
};

_Static_assert(offsetof(struct gasneti_ad_s, tm) == offsetof(gasneti_ad_head_t, _tm) &&
                   offsetof(struct gasneti_ad_s, cpu) == offsetof(gasneti_ad_head_t, _cpu),
               "a domain begins with gasneti_ad_head_t");

#define FETCHING_OPS                                                                                       \
    (GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FMULT | GEX_OP_FMIN | GEX_OP_FMAX |      \
     GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR | GEX_OP_FINC | GEX_OP_FDEC | GEX_OP_GET)
#define BITWISE_OPS (GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR | GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR)
#define ATOMIC_OPS                                                                                         \
    (FETCHING_OPS | GEX_OP_SET | GEX_OP_CAS | GEX_OP_ADD | GEX_OP_SUB | GEX_OP_MULT | GEX_OP_MIN | GEX_OP_MAX | \
     GEX_OP_AND | GEX_OP_OR | GEX_OP_XOR | GEX_OP_INC | GEX_OP_DEC)

/* ---- the operation itself, on memory this process can address ---- */

/* integer types: T the C type, U its unsigned twin (arithmetic wraps there) */
#define INT_APPLY(T, U)                                                                                      \
    do {                                                                                                     \
        T *p = (T *)addr, a = *(const T *)op1, b = *(const T *)op2, old = 0, nw;                           \
        switch (base) {                                                                                      \
            case GEX_OP_GET: old = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;                             \
            case GEX_OP_SET:                                                                                 \
                if (fetch) old = __atomic_exchange_n(p, a, __ATOMIC_SEQ_CST);                               \
                else __atomic_store_n(p, a, __ATOMIC_SEQ_CST);                                              \
                break;                                                                                       \
            case GEX_OP_CAS:                                                                                 \
                old = a;                                                                                     \
                __atomic_compare_exchange_n(p, &old, b, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);             \
                break;                                                                                       \
            case GEX_OP_ADD: old = (T)__atomic_fetch_add((U *)p, (U)a, __ATOMIC_SEQ_CST); break;            \
            case GEX_OP_SUB: old = (T)__atomic_fetch_sub((U *)p, (U)a, __ATOMIC_SEQ_CST); break;            \
            case GEX_OP_INC: old = (T)__atomic_fetch_add((U *)p, (U)1, __ATOMIC_SEQ_CST); break;            \
            case GEX_OP_DEC: old = (T)__atomic_fetch_sub((U *)p, (U)1, __ATOMIC_SEQ_CST); break;            \
            case GEX_OP_AND: old = __atomic_fetch_and(p, a, __ATOMIC_SEQ_CST); break;                       \
            case GEX_OP_OR: old = __atomic_fetch_or(p, a, __ATOMIC_SEQ_CST); break;                         \
            case GEX_OP_XOR: old = __atomic_fetch_xor(p, a, __ATOMIC_SEQ_CST); break;                       \
            default: /* MULT, MIN, MAX */                                                                    \
                old = __atomic_load_n(p, __ATOMIC_RELAXED);                                                 \
                do {                                                                                         \
                    if (base == GEX_OP_MULT) nw = (T)((U)old * (U)a);                                       \
                    else if (base == GEX_OP_MIN) nw = old < a ? old : a;                                    \
                    else nw = old > a ? old : a;                                                            \
                } while (!__atomic_compare_exchange_n(p, &old, nw, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));   \
        }                                                                                                    \
        if (result) memcpy(result, &old, sizeof(T));                                                         \
    } while (0)

/* floating-point types: F the C type, B the integer of its width (bits are swapped) */
#define FLT_APPLY(F, B)                                                                                      \
    do {                                                                                                     \
        B *p = (B *)addr, bits, a, b, nb;                                                                    \
        F fa, fo, fn;                                                                                        \
        memcpy(&a, op1, sizeof(B));                                                                          \
        memcpy(&b, op2, sizeof(B));                                                                          \
        memcpy(&fa, op1, sizeof(F));                                                                         \
        switch (base) {                                                                                      \
            case GEX_OP_GET: bits = __atomic_load_n(p, __ATOMIC_SEQ_CST); break;                            \
            case GEX_OP_SET:                                                                                 \
                if (fetch) bits = __atomic_exchange_n(p, a, __ATOMIC_SEQ_CST);                              \
                else __atomic_store_n(p, a, (bits = 0, __ATOMIC_SEQ_CST));                                  \
                break;                                                                                       \
            case GEX_OP_CAS:                                                                                 \
                bits = a;                                                                                    \
                __atomic_compare_exchange_n(p, &bits, b, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);            \
                break;                                                                                       \
            default:                                                                                         \
                bits = __atomic_load_n(p, __ATOMIC_RELAXED);                                                \
                do {                                                                                         \
                    memcpy(&fo, &bits, sizeof(F));                                                           \
                    switch (base) {                                                                          \
                        case GEX_OP_ADD: fn = fo + fa; break;                                                \
                        case GEX_OP_SUB: fn = fo - fa; break;                                                \
                        case GEX_OP_MULT: fn = fo * fa; break;                                               \
                        case GEX_OP_MIN: fn = fo < fa ? fo : fa; break;                                      \
                        case GEX_OP_MAX: fn = fo > fa ? fo : fa; break;                                      \
                        case GEX_OP_INC: fn = fo + 1; break;                                                 \
                        default: fn = fo - 1; break; /* DEC */                                               \
                    }                                                                                        \
                    memcpy(&nb, &fn, sizeof(B));                                                             \
                } while (!__atomic_compare_exchange_n(p, &bits, nb, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));  \
        }                                                                                                    \
        if (result) memcpy(result, &bits, sizeof(B));                                                        \
    } while (0)

/* Performs op on addr; writes the value before it to result when result is not NULL. */
static void apply(gex_DT_t dt, gex_OP_t op, void *addr, const void *op1, const void *op2, void *result) {
    int fetch = (op & FETCHING_OPS) != 0;
    gex_OP_t base = op == GEX_OP_GET ? op : GEX_OP_TO_NONFETCHING(op);
    switch (dt) {
        case GEX_DT_I32: INT_APPLY(int32_t, uint32_t); break;
        case GEX_DT_U32: INT_APPLY(uint32_t, uint32_t); break;
        case GEX_DT_I64: INT_APPLY(int64_t, uint64_t); break;
        case GEX_DT_U64: INT_APPLY(uint64_t, uint64_t); break;
        case GEX_DT_FLT: FLT_APPLY(float, uint32_t); break;
        default: FLT_APPLY(double, uint64_t); break;
    }
}

/* ---- by AM, for targets this process cannot address ---- */

/* request args: addr(2) dt|op<<8 op1(2) op2(2) result(2) done(2) = 11; reply: value(2) result(2) done(2) four = 7 */
void gasnete_amo_req_handler(gex_Token_t t, gex_AM_Arg_t ahi, gex_AM_Arg_t alo, gex_AM_Arg_t code, gex_AM_Arg_t a1hi,
                            gex_AM_Arg_t a1lo, gex_AM_Arg_t a2hi, gex_AM_Arg_t a2lo, gex_AM_Arg_t rhi,
                            gex_AM_Arg_t rlo, gex_AM_Arg_t dhi, gex_AM_Arg_t dlo) {
    gex_DT_t dt = (gex_DT_t)1u << ((uint32_t)code & 0xff);
    gex_OP_t op = (gex_OP_t)1u << ((uint32_t)code >> 8);
    uint64_t o1 = ((uint64_t)(uint32_t)a1hi << 32) | (uint32_t)a1lo, o2 = ((uint64_t)(uint32_t)a2hi << 32) | (uint32_t)a2lo;
    uint64_t old = 0;
    /* operands and the old value as the type's bytes: 4-byte types sit in the low word */
    uint32_t o1w = (uint32_t)o1, o2w = (uint32_t)o2, oldw = 0;
    int four = gasnete_dt_size(dt) == 4;
    int fetch = rhi || rlo;
    apply(dt, op, GASNETE_PTR(ahi, alo), four ? (void *)&o1w : (void *)&o1, four ? (void *)&o2w : (void *)&o2,
          fetch ? (four ? (void *)&oldw : (void *)&old) : NULL);
    if (four) old = oldw;
    gex_AM_ReplyShort7(t, GASNETI_HIDX_AMO_REP, 0, (gex_AM_Arg_t)(uint32_t)(old >> 32), (gex_AM_Arg_t)(uint32_t)old,
                       rhi, rlo, dhi, dlo, (gex_AM_Arg_t)four);
}

void gasnete_amo_rep_handler(gex_Token_t t, gex_AM_Arg_t vhi, gex_AM_Arg_t vlo, gex_AM_Arg_t rhi, gex_AM_Arg_t rlo,
                             gex_AM_Arg_t dhi, gex_AM_Arg_t dlo, gex_AM_Arg_t four) {
    (void)t;
    gasneti_counter_t *done = (gasneti_counter_t *)GASNETE_PTR(dhi, dlo);
    void *result = GASNETE_PTR(rhi, rlo);
    if (result) {
        if (four) { /* the type's width, echoed by the target */
            uint32_t v = (uint32_t)vlo;
            memcpy(result, &v, 4);
        } else {
            uint64_t v = ((uint64_t)(uint32_t)vhi << 32) | (uint32_t)vlo;
            memcpy(result, &v, 8);
        }
    }
    gasneti_counter_done(done);
}

static unsigned bit_index(uint32_t v) { return (unsigned)__builtin_ctz(v); }

/* ---- domains ---- */

void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags) {
    GASNETI_CHECK_NOT_IN_HANDLER("gex_AD_Create");
    if (!ad_p || !tm) gasneti_fatalerror("gex_AD_Create: ad_p and tm must not be NULL");
    if (!gasnete_dt_size(dt))
        gasneti_fatalerror("gex_AD_Create: data type 0x%x is not one remote atomics support (I32, U32, I64, U64, "
                           "FLT, DBL)", (unsigned)dt);
    if (!ops || (ops & ~(gex_OP_t)ATOMIC_OPS))
        gasneti_fatalerror("gex_AD_Create: ops 0x%x include 0x%x, which are not remote atomic operations", (unsigned)ops,
                           (unsigned)(ops & ~(gex_OP_t)ATOMIC_OPS));
    if ((dt == GEX_DT_FLT || dt == GEX_DT_DBL) && (ops & BITWISE_OPS))
        gasneti_fatalerror("gex_AD_Create: bit-wise operations (ops 0x%x) are not defined for %s", (unsigned)ops,
                           gasnete_dt_name(dt));
    gex_AD_t ad = calloc(1, sizeof(*ad));
    if (!ad) gasneti_fatalerror("gex_AD_Create: out of memory");
    ad->tm = tm;
    ad->dt = dt;
    ad->ops = ops;
    ad->flags = flags;
#if GASNETC_NATIVE_AMO
    ad->network = gasnetc_amo_domain(dt, ops);
#endif
    ad->cpu = !ad->network;
    if (gasneti_mynode == 0 && gasnett_verboseenv())
        fprintf(stderr, "gex_AD_Create: %s domain, ops 0x%x: %s\n", gasnete_dt_name(dt) + 7, (unsigned)ops,
                ad->network ? "network atomics (" GASNETC_NAME " conduit) for every target"
                            : "CPU atomics for load/store peers, AMs for the others");
    *ad_p = ad;
}

void gex_AD_Destroy(gex_AD_t ad) {
    GASNETI_CHECK_NOT_IN_HANDLER("gex_AD_Destroy");
    if (!ad) gasneti_fatalerror("gex_AD_Destroy: GEX_AD_INVALID");
    free(ad);
}

gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad) { return ad->flags; }
gex_TM_t gex_AD_QueryTM(gex_AD_t ad) { return ad->tm; }
gex_DT_t gex_AD_QueryDT(gex_AD_t ad) { return ad->dt; }
gex_OP_t gex_AD_QueryOps(gex_AD_t ad) { return ad->ops; }
void gex_AD_SetCData(gex_AD_t ad, const void *val) { ad->cdata = (void *)val; }
void *gex_AD_QueryCData(gex_AD_t ad) { return ad->cdata; }

/* ---- operations ---- */

#if GASNETI_DEBUG
static void debug_check_op(gex_AD_t ad, gex_DT_t dt, void *result_p, gex_Rank_t jr, const gasneti_peerseg_t *s,
                           void *tgt_addr, gex_OP_t op, gex_Flags_t flags, int nbi) {
    const char *call = nbi ? "gex_AD_OpNBI" : "gex_AD_OpNB";
    GASNETI_CHECK_NOT_IN_HANDLER(call);
    if (dt != ad->dt)
        gasneti_fatalerror("%s_%s: the domain's data type is %s", call, gasnete_dt_name(dt) + 7,
                           gasnete_dt_name(ad->dt));
    if (!op || (op & (op - 1))) gasneti_fatalerror("%s: opcode 0x%x is not a single GEX_OP_*", call, (unsigned)op);
    if (!(op & ad->ops))
        gasneti_fatalerror("%s: opcode 0x%x is not among the domain's operations (0x%x)", call, (unsigned)op,
                           (unsigned)ad->ops);
    if ((op & FETCHING_OPS) && !result_p) gasneti_fatalerror("%s: fetching opcode 0x%x with result_p NULL", call, (unsigned)op);
    if ((uintptr_t)tgt_addr % gasnete_dt_size(dt))
        gasneti_fatalerror("%s: target address %p is not aligned to %zu bytes", call, tgt_addr, gasnete_dt_size(dt));
    const gex_Flags_t allowed = GEX_FLAG_IMMEDIATE | GEX_FLAG_AD_MY_RANK | GEX_FLAG_AD_MY_NBRHD | GEX_FLAG_AD_ACQ |
                                GEX_FLAG_AD_REL | GEX_FLAG_RANK_IS_JOBRANK;
    if (flags & ~allowed) gasneti_fatalerror("%s: flags 0x%x include bits it does not accept", call, (unsigned)flags);
    if ((flags & GEX_FLAG_AD_MY_RANK) && jr != gasneti_mynode)
        gasneti_fatalerror("%s: GEX_FLAG_AD_MY_RANK but the target is rank %u of the job", call, (unsigned)jr);
    if ((flags & GEX_FLAG_AD_MY_NBRHD) && gasneti_nbrhd_index[jr] < 0)
        gasneti_fatalerror("%s: GEX_FLAG_AD_MY_NBRHD but job rank %u is not in this neighborhood", call, (unsigned)jr);
    uintptr_t a = (uintptr_t)tgt_addr, b = (uintptr_t)s->_owner_addr;
    if (!s->_size || a < b || a + gasnete_dt_size(dt) > b + s->_size)
        gasneti_fatalerror("%s: target %p is outside the segment of job rank %u", call, tgt_addr, (unsigned)jr);
}
#endif

gex_Event_t gasnete_ad_op(gex_AD_t ad, gex_DT_t dt, void *result_p, gex_Rank_t tgt_rank, void *tgt_addr, gex_OP_t op,
                          const void *operand1, const void *operand2, gex_Flags_t flags, int nbi) {
    gex_Rank_t jr;
    gex_EP_Index_t ep;
    if (flags & GEX_FLAG_RANK_IS_JOBRANK) { /* the endpoint of that process with our endpoint's index */
        jr = tgt_rank;
        ep = ad->tm->_ep->_index;
        if (GASNETI_UNLIKELY(jr >= gasneti_nodes))
            gasneti_fatalerror("gex_AD_Op: job rank %u (GEX_FLAG_RANK_IS_JOBRANK) is out of range (%u processes)",
                               (unsigned)jr, (unsigned)gasneti_nodes);
    } else {
        jr = gasneti_tm_jobrank_checked(ad->tm, tgt_rank, "gex_AD_Op");
        ep = gasneti_tm_epidx(ad->tm, tgt_rank);
    }
    const gasneti_peerseg_t *seg = gasneti_peerseg_of(jr, ep);
#if GASNETI_DEBUG
    debug_check_op(ad, dt, result_p, jr, seg, tgt_addr, op, flags, nbi);
#endif
    if (!(op & FETCHING_OPS)) result_p = NULL;
    GASNETI_TRACE_OP(GASNETI_TK_AMO, jr, gasnete_dt_size(dt), 0);
    if (flags & GEX_FLAG_AD_REL) __atomic_thread_fence(__ATOMIC_RELEASE);
    intptr_t delta = seg->_nbr_delta;
#if GASNETC_NATIVE_AMO
    if (ad->network && seg->_rkey) { /* by the network, whoever the target is */
        gex_Event_t nev = GEX_EVENT_INVALID;
        gasneti_counter_t *ndone;
        int ncat = op == GEX_OP_SET ? GASNETI_NBI_PUT : op == GEX_OP_GET ? GASNETI_NBI_GET : GASNETI_NBI_RMW;
        if (nbi) {
            ndone = gasneti_nbi_counter(ncat);
        } else {
            nev = gasneti_event_new(0);
            ndone = &nev->pending;
        }
        gasneti_counter_add(ndone);
        if (gasnetc_amo(jr, seg->_rkey, tgt_addr, dt, op, operand1, operand2, result_p, ndone, flags)) {
            gasneti_counter_done(ndone); /* IMMEDIATE and no room: nothing started */
            if (!nbi) gasneti_event_free(nev);
            return GEX_EVENT_NO_OP;
        }
        return nev;
    }
#endif
    if (delta != GASNETI_NOT_NBR) {
        /* the inline path takes the next operations on this member (a team rank) */
        if (!(flags & GEX_FLAG_RANK_IS_JOBRANK) && !gasneti_tm_nbr_entry(ad->tm, tgt_rank))
            gasneti_tm_nbr_learn(ad->tm, tgt_rank, delta);
        apply(dt, op, (void *)((uintptr_t)tgt_addr + delta), operand1, operand2, result_p);
        if (flags & GEX_FLAG_AD_ACQ) __atomic_thread_fence(__ATOMIC_ACQUIRE);
        return GEX_EVENT_INVALID;
    }
    /* remote: one AM round trip */
    int cat = op == GEX_OP_SET ? GASNETI_NBI_PUT : op == GEX_OP_GET ? GASNETI_NBI_GET : GASNETI_NBI_RMW;
    gex_Event_t ev = GEX_EVENT_INVALID;
    gasneti_counter_t *done;
    if (nbi) {
        done = gasneti_nbi_counter(cat);
    } else {
        ev = gasneti_event_new(0);
        done = &ev->pending;
    }
    uint64_t o1 = 0, o2 = 0;
    size_t sz = gasnete_dt_size(dt);
    memcpy(&o1, operand1, sz);
    memcpy(&o2, operand2, sz);
    uintptr_t r = (uintptr_t)result_p;
    gasneti_counter_add(done);
    gex_AM_Arg_t args[11] = {GASNETE_HI(tgt_addr), GASNETE_LO(tgt_addr),
                             (gex_AM_Arg_t)(bit_index(dt) | bit_index(op) << 8), (gex_AM_Arg_t)(uint32_t)(o1 >> 32),
                             (gex_AM_Arg_t)(uint32_t)o1, (gex_AM_Arg_t)(uint32_t)(o2 >> 32), (gex_AM_Arg_t)(uint32_t)o2,
                             GASNETE_HI(r), GASNETE_LO(r), GASNETE_HI(done), GASNETE_LO(done)};
    gasneti_am_msg_t m = {jr, GASNETI_AM_SHORT, 1, 11, GASNETI_HIDX_AMO_REQ, flags & GEX_FLAG_IMMEDIATE, args, NULL, 0,
                          NULL};
    int rc = gasneti_am_send(&m, NULL);
    if (rc) { /* IMMEDIATE and no room: nothing started */
        gasneti_counter_done(done);
        if (!nbi) gasneti_event_free(ev);
        return GEX_EVENT_NO_OP;
    }
    return ev;
}
