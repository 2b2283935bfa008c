/* tests/api/test_ratomic.c: remote atomics (gasnet_ratomic.h) for every data type and
 * operation, from every rank (and 4 threads per rank in par) at once, on a location of
 * each rank in turn (so the target is the caller itself, a neighbor or a remote process).
 *   - FADD(1), FINC, FDEC: the fetched values of all callers are exactly the integers of
 *     the range, each once (gathered on rank 0), and the final value is right;
 *   - SWAP: the fetched values plus the final one are the initial value and every value
 *     swapped in, each once;
 *   - a lock by FCAS (with ACQ) and SET 0 (with REL) guarding a GET-then-SET counter:
 *     no increment is lost;
 *   - FMIN/FMAX (fetched values never beyond the final), FMULT (ints: 3^n wrapping,
 *     floats: x2 and x0.5 in turn), FAND/FOR/FXOR (integers), non-fetching ADD/SUB/INC/
 *     DEC/MULT/MIN/MAX/AND/OR/XOR/SET/CAS, GET, and NBI completion (GEX_EC_RMW);
 *   - mixed: one domain, every rank adding to one location by ADD, FADD, INC (NBI),
 *     FSUB, SUB, FINC and GET-then-FCAS loops at once; the final value is exact;
 *   - ACQ/REL: data put into rank 0, published by SET of a flag with REL; every rank
 *     polls the flag with GET|ACQ and then finds the data.
 * Which path a domain took (network atomics on ofi, else CPU/AM) is printed by
 * gex_AD_Create under GASNET_VERBOSEENV; tests/api/test_ratomic.sh checks it.
 * Layer: tests (public API only).  1, 2, 4 ranks, seq and par. */
#include "test_util.h"

#include <gasnet_ratomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(GASNET_PAR)
#  include <pthread.h>
#  define NTHR 4
#else
#  define NTHR 1
#endif

#define K 120            /* operations per thread per phase */
#define GATHER_OFF 4096  /* rank 0's area for everyone's fetched values */
#define DATA_OFF (GATHER_OFF + 64 * NTHR * K * 8)
#define SEG_SIZE (DATA_OFF + 8192)

typedef struct {
    gex_DT_t dt;
    const char *name;
    int is_float, bits, is_signed;
} tinfo_t;
static const tinfo_t types[] = {
    {GEX_DT_I32, "I32", 0, 32, 1}, {GEX_DT_U32, "U32", 0, 32, 0}, {GEX_DT_I64, "I64", 0, 64, 1},
    {GEX_DT_U64, "U64", 0, 64, 0}, {GEX_DT_FLT, "FLT", 1, 32, 1}, {GEX_DT_DBL, "DBL", 1, 64, 1},
};

static uint8_t *myseg;
static void **segs; /* every rank's segment, in its owner's addresses */

static gex_Event_t do_op(const tinfo_t *ti, gex_AD_t ad, void *res, gex_Rank_t r, void *addr, gex_OP_t op,
                         int64_t a, int64_t b, gex_Flags_t f, int nbi) {
#define CASE(DT, N, T)                                                                                     \
    case DT:                                                                                               \
        if (nbi) {                                                                                         \
            CHECK_EQ(gex_AD_OpNBI_##N(ad, (T *)res, r, addr, op, (T)a, (T)b, f), 0);                      \
            return GEX_EVENT_INVALID;                                                                      \
        }                                                                                                  \
        return gex_AD_OpNB_##N(ad, (T *)res, r, addr, op, (T)a, (T)b, f);
    switch (ti->dt) {
        CASE(GEX_DT_I32, I32, int32_t)
        CASE(GEX_DT_U32, U32, uint32_t)
        CASE(GEX_DT_I64, I64, int64_t)
        CASE(GEX_DT_U64, U64, uint64_t)
        CASE(GEX_DT_FLT, FLT, float)
        CASE(GEX_DT_DBL, DBL, double)
    }
#undef CASE
    CHECK(0);
    return GEX_EVENT_INVALID;
}
/* a blocking operation: the fetched value (0 for a non-fetching one) */
static int64_t op_sync(const tinfo_t *ti, gex_AD_t ad, gex_Rank_t r, void *addr, gex_OP_t op, int64_t a, int64_t b,
                       gex_Flags_t f);
static int64_t val_of(const tinfo_t *ti, const void *p) {
    switch (ti->dt) {
        case GEX_DT_I32: return *(const int32_t *)p;
        case GEX_DT_U32: return *(const uint32_t *)p;
        case GEX_DT_I64: return *(const int64_t *)p;
        case GEX_DT_U64: return (int64_t)*(const uint64_t *)p;
        case GEX_DT_FLT: return (int64_t)*(const float *)p;
        default: return (int64_t)*(const double *)p;
    }
}
static int64_t op_sync(const tinfo_t *ti, gex_AD_t ad, gex_Rank_t r, void *addr, gex_OP_t op, int64_t a, int64_t b,
                       gex_Flags_t f) {
    uint64_t res = 0;
    gex_Event_Wait(do_op(ti, ad, &res, r, addr, op, a, b, f, 0));
    return val_of(ti, &res);
}
static uint64_t mask_of(const tinfo_t *ti) { return ti->bits == 32 ? 0xffffffffull : ~0ull; }

/* ---- one phase: every thread of every rank does K operations on one location ---- */
typedef struct {
    const tinfo_t *ti;
    gex_AD_t ad;
    gex_Rank_t tgt;
    void *loc, *loc2; /* at tgt */
    int kind;
    int64_t *fetched; /* [NTHR * K] */
} phase_t;
enum { P_FADD, P_FINC, P_FDEC, P_SWAP, P_LOCK, P_FMAX, P_FMIN, P_FMULT, P_FOR, P_FXOR, P_FAND, P_NONFETCH, P_NBI };

static int64_t id_of(int t, int i) { return ((int64_t)test_rank * NTHR + t) * K + i + 1; } /* 1..total */

static void *phase_thread(void *arg) {
    phase_t *p = (phase_t *)((void **)arg)[0];
    int t = (int)(intptr_t)((void **)arg)[1];
    const tinfo_t *ti = p->ti;
    int64_t *out = p->fetched + (size_t)t * K;
    uint64_t raw[K];
    for (int i = 0; i < K; i++) {
        int64_t id = id_of(t, i);
        switch (p->kind) {
            case P_FADD: out[i] = op_sync(ti, p->ad, p->tgt, p->loc, GEX_OP_FADD, 1, 0, 0); break;
            case P_FINC: {
                /* half of them NBI, synced at the end */
                raw[i] = 0;
                gex_Event_t ev = do_op(ti, p->ad, &raw[i], p->tgt, p->loc, GEX_OP_FINC, 0, 0, 0, i & 1);
                gex_Event_Wait(ev);
                break;
            }
            case P_FDEC: out[i] = op_sync(ti, p->ad, p->tgt, p->loc, GEX_OP_FDEC, 0, 0, 0); break;
            case P_SWAP: out[i] = op_sync(ti, p->ad, p->tgt, p->loc, GEX_OP_SWAP, id, 0, 0); break;
            case P_LOCK:
                if (i % 4) break;
                while (op_sync(ti, p->ad, p->tgt, p->loc, GEX_OP_FCAS, 0, id, GEX_FLAG_AD_ACQ) != 0) gasnet_AMPoll();
                {
                    int64_t c = op_sync(ti, p->ad, p->tgt, p->loc2, GEX_OP_GET, 0, 0, 0);
                    op_sync(ti, p->ad, p->tgt, p->loc2, GEX_OP_SET, c + 1, 0, 0);
                }
                op_sync(ti, p->ad, p->tgt, p->loc, GEX_OP_SET, 0, 0, GEX_FLAG_AD_REL);
                break;
            case P_FMAX: out[i] = op_sync(ti, p->ad, p->tgt, p->loc, GEX_OP_FMAX, id, 0, 0); break;
            case P_FMIN: out[i] = op_sync(ti, p->ad, p->tgt, p->loc, GEX_OP_FMIN, id, 0, 0); break;
            case P_FMULT:
                if (ti->is_float) {
                    /* doubles are exact: x2 then x0.5 (float operand 0.5 is passed as a raw value) */
                    raw[i] = 0;
                    if (ti->dt == GEX_DT_FLT) {
                        gex_Event_Wait(gex_AD_OpNB_FLT(p->ad, (float *)&raw[i], p->tgt, p->loc, GEX_OP_FMULT,
                                                       i & 1 ? 0.5f : 2.0f, 0, 0));
                    } else {
                        gex_Event_Wait(gex_AD_OpNB_DBL(p->ad, (double *)&raw[i], p->tgt, p->loc, GEX_OP_FMULT,
                                                       i & 1 ? 0.5 : 2.0, 0, 0));
                    }
                } else {
                    op_sync(ti, p->ad, p->tgt, p->loc, GEX_OP_FMULT, 3, 0, 0);
                }
                break;
            case P_FOR: op_sync(ti, p->ad, p->tgt, p->loc, GEX_OP_FOR, (int64_t)(1ull << (id % ti->bits)), 0, 0); break;
            case P_FXOR: op_sync(ti, p->ad, p->tgt, p->loc, GEX_OP_FXOR, id * 0x9e3779b1, 0, 0); break;
            case P_FAND:
                op_sync(ti, p->ad, p->tgt, p->loc, GEX_OP_FAND, (int64_t) ~(1ull << (id % ti->bits)), 0, 0);
                break;
            case P_NONFETCH: {
                /* ADD 3, SUB 1, INC, DEC, DEC: +1 net per five on loc; MAX and MIN on loc2 */
                static const gex_OP_t seq[5] = {GEX_OP_ADD, GEX_OP_SUB, GEX_OP_INC, GEX_OP_DEC, GEX_OP_DEC};
                int64_t a = seq[i % 5] == GEX_OP_ADD ? 3 : 1;
                op_sync(ti, p->ad, p->tgt, p->loc, seq[i % 5], a, 0, 0);
                /* MAX of the even ids; MIN with a bound above every id changes nothing */
                if (i & 1) op_sync(ti, p->ad, p->tgt, p->loc2, GEX_OP_MIN, (int64_t)test_size * NTHR * K + 100, 0, 0);
                else op_sync(ti, p->ad, p->tgt, p->loc2, GEX_OP_MAX, id, 0, 0);
                break;
            }
            case P_NBI:
                CHECK_EQ(do_op(ti, p->ad, NULL, p->tgt, p->loc, GEX_OP_ADD, 2, 0, 0, 1), GEX_EVENT_INVALID);
                break;
        }
    }
    if (p->kind == P_FINC) gex_NBI_Wait(GEX_EC_RMW, 0); /* the NBI half */
    if (p->kind == P_FINC || (p->kind == P_FMULT && ti->is_float))
        for (int i = 0; i < K; i++) out[i] = val_of(ti, &raw[i]);
    if (p->kind == P_NBI) gex_NBI_Wait(GEX_EC_RMW, 0);
    return NULL;
}

/* fn on NTHR threads (PAR; one call otherwise), thread t given args[t] */
static void run_threads(void *(*fn)(void *), void *args[NTHR]) {
#if defined(GASNET_PAR)
    pthread_t th[NTHR];
    for (int t = 0; t < NTHR; t++) CHECK_EQ(pthread_create(&th[t], NULL, fn, args[t]), 0);
    for (int t = 0; t < NTHR; t++) CHECK_EQ(pthread_join(th[t], NULL), 0);
#else
    fn(args[0]);
#endif
}

static void run_phase(phase_t *p) {
    void *args[NTHR][2], *argp[NTHR];
    for (int t = 0; t < NTHR; t++) args[t][0] = p, args[t][1] = (void *)(intptr_t)t, argp[t] = args[t];
    run_threads(phase_thread, argp);
}

static int cmp64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* the owner of the location sets it before the phase (a plain store: a barrier separates
 * it from the atomic phase), everyone runs, then the final value is read back */
static int64_t phase(const tinfo_t *ti, gex_AD_t ad, int kind, gex_Rank_t tgt, int64_t init, int64_t init2,
                     int64_t *fetched, int64_t *final2) {
    void *loc = segs[tgt], *loc2 = (uint8_t *)segs[tgt] + 8;
    if (test_rank == tgt) {
        memset(myseg, 0, 16);
        uint64_t v = 0;
        if (ti->is_float && ti->bits == 32) { float f = (float)init; memcpy(&v, &f, 4); }
        else if (ti->is_float) { double d = (double)init; memcpy(&v, &d, 8); }
        else v = (uint64_t)init;
        memcpy(myseg, &v, ti->bits / 8);
        v = 0;
        if (ti->is_float && ti->bits == 32) { float f = (float)init2; memcpy(&v, &f, 4); }
        else if (ti->is_float) { double d = (double)init2; memcpy(&v, &d, 8); }
        else v = (uint64_t)init2;
        memcpy(myseg + 8, &v, ti->bits / 8);
    }
    test_barrier();
    phase_t p = {ti, ad, tgt, loc, loc2, kind, fetched};
    run_phase(&p);
    test_barrier();
    int64_t f = op_sync(ti, ad, tgt, loc, GEX_OP_GET, 0, 0, 0);
    if (final2) *final2 = op_sync(ti, ad, tgt, loc2, GEX_OP_GET, 0, 0, 0);
    test_barrier();
    return f;
}

/* rank 0 gets every rank's fetched values, sorted, in all[] (total entries) */
static void gather(int64_t *fetched, int64_t *all, size_t total) {
    gex_RMA_PutBlocking(test_tm, 0, (uint8_t *)segs[0] + GATHER_OFF + (size_t)test_rank * NTHR * K * 8, fetched,
                        (size_t)NTHR * K * 8, 0);
    test_barrier();
    if (test_rank == 0) {
        memcpy(all, myseg + GATHER_OFF, total * 8);
        qsort(all, total, 8, cmp64);
    }
    test_barrier();
}

static void test_type(const tinfo_t *ti) {
    gex_OP_t ops = GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_CAS | GEX_OP_FCAS | GEX_OP_ADD | GEX_OP_FADD |
                   GEX_OP_SUB | GEX_OP_FSUB | GEX_OP_MULT | GEX_OP_FMULT | GEX_OP_MIN | GEX_OP_FMIN | GEX_OP_MAX |
                   GEX_OP_FMAX | GEX_OP_INC | GEX_OP_FINC | GEX_OP_DEC | GEX_OP_FDEC;
    if (!ti->is_float) ops |= GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR;
    gex_AD_t ad;
    gex_AD_Create(&ad, test_tm, ti->dt, ops, 0);
    CHECK(ad != GEX_AD_INVALID);
    CHECK_EQ(gex_AD_QueryDT(ad), ti->dt);
    CHECK_EQ(gex_AD_QueryOps(ad), ops);
    CHECK(gex_AD_QueryTM(ad) == test_tm);
    CHECK_EQ(gex_AD_QueryFlags(ad), 0);
    CHECK(gex_AD_QueryCData(ad) == NULL);
    gex_AD_SetCData(ad, ti);
    CHECK(gex_AD_QueryCData(ad) == ti);

    size_t total = (size_t)test_size * NTHR * K;
    int64_t *fetched = calloc((size_t)NTHR * K, 8), *all = calloc(total + 1, 8);
    CHECK(fetched && all);
    uint64_t m = mask_of(ti);
    int step = 0;
#define TGT ((gex_Rank_t)(step++ % test_size))
#define EXPECT(cond, ...) CHECKF(cond, __VA_ARGS__)

    /* FADD 1 from 0, FINC from 0: fetched = 0..total-1; FDEC from total: total..1 */
    for (int kind = P_FADD; kind <= P_FDEC; kind++) {
        int64_t start = kind == P_FDEC ? (int64_t)total : 0;
        int64_t f = phase(ti, ad, kind, TGT, start, 0, fetched, NULL);
        EXPECT(f == (kind == P_FDEC ? 0 : (int64_t)total), "%s kind %d: final %lld", ti->name, kind, (long long)f);
        gather(fetched, all, total);
        if (test_rank == 0)
            for (size_t i = 0; i < total; i++)
                EXPECT(all[i] == (int64_t)i + (kind == P_FDEC), "%s kind %d: fetched values not each once (at %zu: %lld)",
                       ti->name, kind, i, (long long)all[i]);
    }
    /* SWAP: fetched + final = {0} + every id */
    {
        int64_t f = phase(ti, ad, P_SWAP, TGT, 0, 0, fetched, NULL);
        gather(fetched, all, total);
        if (test_rank == 0) {
            all[total] = f;
            qsort(all, total + 1, 8, cmp64);
            for (size_t i = 0; i <= total; i++)
                EXPECT(all[i] == (int64_t)i, "%s SWAP: value %lld at %zu: lost or duplicated", ti->name,
                       (long long)all[i], i);
        }
    }
    /* lock: every GET-then-SET increment under it survives */
    {
        int64_t c2 = 0;
        int64_t f = phase(ti, ad, P_LOCK, TGT, 0, 0, fetched, &c2);
        EXPECT(f == 0, "%s lock left held (%lld)", ti->name, (long long)f);
        EXPECT(c2 == (int64_t)total / 4 + 0, "%s lock: counter %lld, expected %zu", ti->name, (long long)c2, total / 4);
    }
    /* FMAX from 0 (ids 1..total): total; FMIN from total+5: 1; fetched never beyond the final */
    {
        int64_t f = phase(ti, ad, P_FMAX, TGT, 0, 0, fetched, NULL);
        EXPECT(f == (int64_t)total, "%s FMAX final %lld", ti->name, (long long)f);
        for (int i = 0; i < NTHR * K; i++) EXPECT(fetched[i] >= 0 && fetched[i] <= f, "%s FMAX fetched %lld", ti->name, (long long)fetched[i]);
        f = phase(ti, ad, P_FMIN, TGT, (int64_t)total + 5, 0, fetched, NULL);
        EXPECT(f == 1, "%s FMIN final %lld", ti->name, (long long)f);
        for (int i = 0; i < NTHR * K; i++)
            EXPECT(fetched[i] >= 1 && fetched[i] <= (int64_t)total + 5, "%s FMIN fetched %lld", ti->name, (long long)fetched[i]);
    }
    /* FMULT: ints x3 per operation (wrapping); floats x2, x0.5 in turn: back to 1 */
    {
        int64_t f = phase(ti, ad, P_FMULT, TGT, 1, 0, fetched, NULL);
        if (ti->is_float) {
            EXPECT(f == 1, "%s FMULT final %lld", ti->name, (long long)f);
        } else {
            uint64_t want = 1;
            for (size_t i = 0; i < total; i++) want = (want * 3) & m;
            EXPECT(((uint64_t)f & m) == want, "%s FMULT final 0x%llx, expected 0x%llx", ti->name,
                   (unsigned long long)((uint64_t)f & m), (unsigned long long)want);
        }
    }
    if (!ti->is_float) {
        uint64_t want_or = 0, want_xor = 0, want_and = m;
        for (gex_Rank_t r = 0; r < test_size; r++)
            for (int t = 0; t < NTHR; t++)
                for (int i = 0; i < K; i++) {
                    int64_t id = ((int64_t)r * NTHR + t) * K + i + 1;
                    want_or |= 1ull << (id % ti->bits);
                    want_xor ^= (uint64_t)(id * 0x9e3779b1);
                    want_and &= ~(1ull << (id % ti->bits));
                }
        int64_t f = phase(ti, ad, P_FOR, TGT, 0, 0, fetched, NULL);
        EXPECT(((uint64_t)f & m) == (want_or & m), "%s FOR final 0x%llx", ti->name, (unsigned long long)f);
        f = phase(ti, ad, P_FXOR, TGT, 0, 0, fetched, NULL);
        EXPECT(((uint64_t)f & m) == (want_xor & m), "%s FXOR final 0x%llx", ti->name, (unsigned long long)f);
        f = phase(ti, ad, P_FAND, TGT, (int64_t)m, 0, fetched, NULL);
        EXPECT(((uint64_t)f & m) == (want_and & m), "%s FAND final 0x%llx", ti->name, (unsigned long long)f);
    }
    /* non-fetching: ADD/SUB/INC/DEC net +0 per 5 ops; MIN/MAX; then NBI ADD 2 */
    {
        int64_t f2 = 0, per = 0;
        for (int i = 0; i < K; i++) per += (int64_t[]){3, -1, 1, -1, -1}[i % 5];
        int64_t f = phase(ti, ad, P_NONFETCH, TGT, 100, 7, fetched, &f2);
        EXPECT(f == 100 + per * (int64_t)test_size * NTHR, "%s ADD/SUB/INC/DEC final %lld", ti->name, (long long)f);
        int64_t want2 = 0; /* the largest id of an even i */
        for (gex_Rank_t r = 0; r < test_size; r++)
            for (int t = 0; t < NTHR; t++)
                for (int i = 0; i < K; i += 2) {
                    int64_t id = ((int64_t)r * NTHR + t) * K + i + 1;
                    if (id > want2) want2 = id;
                }
        EXPECT(f2 == want2, "%s MAX/MIN final %lld, expected %lld", ti->name, (long long)f2, (long long)want2);
        f = phase(ti, ad, P_NBI, TGT, 0, 0, fetched, NULL);
        EXPECT(f == 2 * (int64_t)total, "%s NBI ADD final %lld", ti->name, (long long)f);
    }
    /* CAS (non-fetching) and SET: one CAS from each rank may win, from 0 to its id */
    {
        gex_Rank_t tgt = TGT;
        if (test_rank == tgt) memset(myseg, 0, 16);
        test_barrier();
        op_sync(ti, ad, tgt, segs[tgt], GEX_OP_CAS, 0, (int64_t)test_rank + 1, 0);
        test_barrier();
        int64_t f = op_sync(ti, ad, tgt, segs[tgt], GEX_OP_GET, 0, 0, 0);
        EXPECT(f >= 1 && f <= (int64_t)test_size, "%s CAS: final %lld is no rank's", ti->name, (long long)f);
        test_barrier();
        if (test_rank == 0) op_sync(ti, ad, tgt, segs[tgt], GEX_OP_SET, 42, 0, 0);
        test_barrier();
        EXPECT(op_sync(ti, ad, tgt, segs[tgt], GEX_OP_GET, 0, 0, 0) == 42, "%s SET", ti->name);
        test_barrier();
    }
#undef TGT
#undef EXPECT
    free(fetched);
    free(all);
    test_barrier();
    gex_AD_Destroy(ad);
}

/* one domain, every rank (and thread) mixing operations on one location of each rank in
 * turn: fetching and non-fetching adds and subtractions, INC/DEC, GETs, and adds done as
 * GET-then-FCAS loops; the final value is the sum of every contribution (the same
 * location updated by every kind of call, which a network that does atomics only with
 * respect to itself must still serialize: ofi's native atomics serve such a domain) */
static void *mixed_thread(void *arg) {
    int64_t *loc = ((void **)arg)[0];
    gex_AD_t ad = ((void **)arg)[1];
    gex_Rank_t tgt = (gex_Rank_t)(intptr_t)((void **)arg)[2];
    for (int i = 0; i < K; i++) {
        int64_t r = -1;
        switch (i % 8) {
            case 0: gex_Event_Wait(gex_AD_OpNB_I64(ad, NULL, tgt, loc, GEX_OP_ADD, 3, 0, 0)); break;
            case 1: gex_Event_Wait(gex_AD_OpNB_I64(ad, &r, tgt, loc, GEX_OP_FADD, 5, 0, 0)); break;
            case 2: CHECK_EQ(gex_AD_OpNBI_I64(ad, NULL, tgt, loc, GEX_OP_INC, 0, 0, 0), 0); break;
            case 3: gex_Event_Wait(gex_AD_OpNB_I64(ad, &r, tgt, loc, GEX_OP_FSUB, 2, 0, 0)); break;
            case 4: gex_Event_Wait(gex_AD_OpNB_I64(ad, &r, tgt, loc, GEX_OP_GET, 0, 0, 0)); break;
            case 5: { /* +7 by compare-and-swap */
                int64_t old = 0, seen;
                gex_Event_Wait(gex_AD_OpNB_I64(ad, &old, tgt, loc, GEX_OP_GET, 0, 0, 0));
                for (;;) {
                    gex_Event_Wait(gex_AD_OpNB_I64(ad, &seen, tgt, loc, GEX_OP_FCAS, old, old + 7, 0));
                    if (seen == old) break;
                    old = seen;
                }
                break;
            }
            case 6: gex_Event_Wait(gex_AD_OpNB_I64(ad, NULL, tgt, loc, GEX_OP_SUB, 1, 0, 0)); break;
            default: gex_Event_Wait(gex_AD_OpNB_I64(ad, &r, tgt, loc, GEX_OP_FINC, 0, 0, 0)); break;
        }
        if (r != -1 && (i % 8) != 4) CHECKF(r >= 0, "mixed: fetched %lld", (long long)r); /* never below 0 */
    }
    gex_NBI_Wait(GEX_EC_ALL, 0);
    return NULL;
}

static void test_mixed(void) {
    gex_AD_t ad;
    gex_AD_Create(&ad, test_tm, GEX_DT_I64,
                  GEX_OP_ADD | GEX_OP_FADD | GEX_OP_INC | GEX_OP_FSUB | GEX_OP_GET | GEX_OP_FCAS | GEX_OP_SUB | GEX_OP_FINC,
                  0);
    /* per 8 operations: 3 + 5 + 1 - 2 + 0 + 7 - 1 + 1 */
    const int64_t per_thread = (int64_t)(K / 8) * 14;
    for (gex_Rank_t tgt = 0; tgt < test_size; tgt++) {
        int64_t *loc = (int64_t *)((uint8_t *)segs[tgt] + 32);
        if (test_rank == tgt) memset(myseg + 32, 0, 8);
        test_barrier();
        void *args[3] = {loc, ad, (void *)(intptr_t)tgt}, *argp[NTHR];
        for (int t = 0; t < NTHR; t++) argp[t] = args; /* the threads only read them */
        run_threads(mixed_thread, argp);
        test_barrier();
        int64_t f = -1;
        gex_Event_Wait(gex_AD_OpNB_I64(ad, &f, tgt, loc, GEX_OP_GET, 0, 0, 0));
        CHECKF(f == per_thread * NTHR * (int64_t)test_size, "mixed operations on rank %u: final %lld, expected %lld",
               (unsigned)tgt, (long long)f, (long long)(per_thread * NTHR * (int64_t)test_size));
        test_barrier();
    }
    gex_AD_Destroy(ad);
}

/* data put into rank 0, then published by SET|REL of a flag; readers GET|ACQ the flag */
static void test_acq_rel(void) {
    if (test_size < 2) return;
    gex_AD_t ad;
    gex_AD_Create(&ad, test_tm, GEX_DT_I64, GEX_OP_SET | GEX_OP_GET, GEX_FLAG_AD_FAVOR_REMOTE);
    if (test_rank == 0) memset(myseg + 16, 0, 8);
    test_barrier();
    uint8_t *data = (uint8_t *)segs[0] + DATA_OFF, *flag = (uint8_t *)segs[0] + 16;
    if (test_rank == 1) {
        uint8_t buf[4096];
        test_pat_fill(buf, sizeof buf, 77);
        gex_RMA_PutBlocking(test_tm, 0, data, buf, sizeof buf, 0);
        gex_Event_Wait(gex_AD_OpNB_I64(ad, NULL, 0, flag, GEX_OP_SET, 1, 0, GEX_FLAG_AD_REL));
    }
    int64_t v = 0;
    double t0 = test_now();
    do {
        gex_Event_Wait(gex_AD_OpNB_I64(ad, &v, 0, flag, GEX_OP_GET, 0, 0, GEX_FLAG_AD_ACQ));
        CHECKF(test_now() - t0 < 60, "the flag never came");
        gasnet_AMPoll(); /* a GET of our own location needs no progress, the SET arriving by AM does */
    } while (v != 1);
    uint8_t got[4096];
    gex_RMA_GetBlocking(test_tm, got, 0, data, sizeof got, 0);
    CHECK_PAT(got, sizeof got, 77, "data published under the flag");
    test_barrier();
    gex_AD_Destroy(ad);
}

int main(int argc, char **argv) {
    test_init("test_ratomic", &argc, &argv);
    test_attach(SEG_SIZE);
    CHECK_EQ(gex_Segment_QueryBound(test_tm, test_rank, (void **)&myseg, NULL, NULL), 0);
    segs = calloc(test_size, sizeof(void *));
    CHECK(segs);
    for (gex_Rank_t r = 0; r < test_size; r++) CHECK_EQ(gex_Segment_QueryBound(test_tm, r, &segs[r], NULL, NULL), 0);
    CHECK(test_size <= 64);
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) test_type(&types[i]);
    test_mixed();
    test_acq_rel();
    test_finish("6 types x every operation, %d threads x %d operations per rank per phase, targets on every rank",
                NTHR, K);
    return 0;
}
