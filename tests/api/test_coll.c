/* tests/api/test_coll.c: teams (gex_TM_Split with halves, odd/even, singletons, reversed
 * keys, non-members, nested; gex_TM_Dup; gex_TM_Destroy with scratch returned; gex_TM_Pair;
 * translations both ways) and collectives over each team: gex_Coll_BarrierNB,
 * BroadcastNB (every root, 0 bytes to 1 MiB), ReduceToOneNB (every root) and
 * ReduceToAllNB for every built-in type and operation, user operations (commutative on a
 * 3-byte GEX_DT_USER, non-commutative on a 16-byte one, whose result depends on rank order),
 * counts up to 10^6, several operations in flight on several teams at once (small ones,
 * and large broadcasts on three teams at once), synced in reverse order. Every result is compared with one computed here. RMA by team rank
 * checks the translation of each new team. Layer: tests (public API only). */
#include "test_util.h"
#include <gasnet_coll.h>

static uint8_t *myseg;
static long n_checks;

/* ---- element values: rank r's element i ---- */
static int64_t ival(gex_Rank_t r, size_t i) { return (int64_t)((r * 7 + i * 3) % 17) - 5; }
static int64_t mval(gex_Rank_t r, size_t i) { return ((r + i) % 3 == 0) ? -1 : ((r + i) % 3 == 1 ? 1 : 2); }

typedef struct {
    gex_DT_t dt;
    size_t sz;
    const char *name;
    int is_int;
} dtinfo_t;
static const dtinfo_t dts[] = {{GEX_DT_I32, 4, "I32", 1}, {GEX_DT_U32, 4, "U32", 1}, {GEX_DT_I64, 8, "I64", 1},
                               {GEX_DT_U64, 8, "U64", 1}, {GEX_DT_FLT, 4, "FLT", 0}, {GEX_DT_DBL, 8, "DBL", 0}};
typedef struct {
    gex_OP_t op;
    const char *name;
    int ints_only;
} opinfo_t;
static const opinfo_t ops[] = {{GEX_OP_ADD, "ADD", 0}, {GEX_OP_MULT, "MULT", 0}, {GEX_OP_MIN, "MIN", 0},
                               {GEX_OP_MAX, "MAX", 0}, {GEX_OP_AND, "AND", 1}, {GEX_OP_OR, "OR", 1},
                               {GEX_OP_XOR, "XOR", 1}};

/* writes value v (as the type) at element i of buf */
static void put_val(const dtinfo_t *d, void *buf, size_t i, int64_t v) {
    switch (d->dt) {
    case GEX_DT_I32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case GEX_DT_U32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case GEX_DT_I64: ((int64_t *)buf)[i] = v; break;
    case GEX_DT_U64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case GEX_DT_FLT: ((float *)buf)[i] = (float)v; break;
    default: ((double *)buf)[i] = (double)v; break;
    }
}

static int64_t bits(gex_OP_t op, int64_t a, int64_t b) { return op == GEX_OP_AND ? (a & b) : op == GEX_OP_OR ? (a | b) : (a ^ b); }

/* the reference: element i over team ranks 0..n-1, computed in the type */
#define REF(T)                                                                                   \
    do {                                                                                         \
        T acc = (T)src_of(0, i);                                                                 \
        for (gex_Rank_t r = 1; r < n; r++) {                                                     \
            T x = (T)src_of(r, i);                                                               \
            if (o->op == GEX_OP_ADD) acc = acc + x;                                              \
            else if (o->op == GEX_OP_MULT) acc = acc * x;                                        \
            else if (o->op == GEX_OP_MIN) acc = x < acc ? x : acc;                               \
            else if (o->op == GEX_OP_MAX) acc = x > acc ? x : acc;                               \
            else acc = (T)bits(o->op, (int64_t)acc, (int64_t)x);                                 \
        }                                                                                        \
        ((T *)out)[i] = acc;                                                                     \
    } while (0)
static int64_t (*src_of)(gex_Rank_t, size_t);

static void reference(const dtinfo_t *d, const opinfo_t *o, gex_Rank_t n, size_t cnt, void *out) {
    src_of = o->op == GEX_OP_MULT ? mval : ival;
    for (size_t i = 0; i < cnt; i++) {
        switch (d->dt) {
        case GEX_DT_I32: REF(int32_t); break;
        case GEX_DT_U32: REF(uint32_t); break;
        case GEX_DT_I64: REF(int64_t); break;
        case GEX_DT_U64: REF(uint64_t); break;
        case GEX_DT_FLT: { float acc = (float)src_of(0, i); for (gex_Rank_t r = 1; r < n; r++) { float x = (float)src_of(r, i); acc = o->op == GEX_OP_ADD ? acc + x : o->op == GEX_OP_MULT ? acc * x : o->op == GEX_OP_MIN ? (x < acc ? x : acc) : (x > acc ? x : acc); } ((float *)out)[i] = acc; break; }
        default: { double acc = (double)src_of(0, i); for (gex_Rank_t r = 1; r < n; r++) { double x = (double)src_of(r, i); acc = o->op == GEX_OP_ADD ? acc + x : o->op == GEX_OP_MULT ? acc * x : o->op == GEX_OP_MIN ? (x < acc ? x : acc) : (x > acc ? x : acc); } ((double *)out)[i] = acc; break; }
        }
    }
}

static void test_reductions(gex_TM_t tm, const char *tname) {
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    static const size_t counts[] = {1, 7, 1000, 20000};
    size_t maxb = 20000 * 8;
    uint8_t *src = malloc(maxb), *dst = malloc(maxb), *ref = malloc(maxb);
    CHECK(src && dst && ref);
    for (size_t di = 0; di < sizeof dts / sizeof dts[0]; di++)
        for (size_t oi = 0; oi < sizeof ops / sizeof ops[0]; oi++)
            for (size_t ci = 0; ci < sizeof counts / sizeof counts[0]; ci++) {
                const dtinfo_t *d = &dts[di];
                const opinfo_t *o = &ops[oi];
                if (o->ints_only && !d->is_int) continue;
                size_t cnt = counts[ci];
                int64_t (*f)(gex_Rank_t, size_t) = o->op == GEX_OP_MULT ? mval : ival;
                for (size_t i = 0; i < cnt; i++) put_val(d, src, i, f(me, i));
                reference(d, o, n, cnt, ref);
                gex_Rank_t root = (gex_Rank_t)((di + oi + ci) % n);
                memset(dst, 0xEE, cnt * d->sz);
                gex_Event_Wait(gex_Coll_ReduceToOneNB(tm, root, dst, src, d->dt, d->sz, cnt, o->op, NULL, NULL, 0));
                if (me == root)
                    CHECKF(!memcmp(dst, ref, cnt * d->sz), "%s: ReduceToOne %s %s x%zu root %u differs from the reference",
                           tname, d->name, o->name, cnt, (unsigned)root);
                memset(dst, 0xEE, cnt * d->sz);
                gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, dst, src, d->dt, d->sz, cnt, o->op, NULL, NULL, 0));
                CHECKF(!memcmp(dst, ref, cnt * d->sz), "%s: ReduceToAll %s %s x%zu differs from the reference", tname,
                       d->name, o->name, cnt);
                n_checks += 2;
            }
    /* in place on every rank, and a large count */
    size_t big = 1000000;
    int32_t *b = malloc(big * sizeof *b);
    CHECK(b);
    for (size_t i = 0; i < big; i++) b[i] = (int32_t)(i + me);
    gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, b, b, GEX_DT_I32, 4, big, GEX_OP_ADD, NULL, NULL, 0));
    for (size_t i = 0; i < big; i++)
        CHECKF(b[i] == (int32_t)(n * i + (size_t)n * (n - 1) / 2), "%s: in-place ReduceToAll of 10^6 I32: element %zu is %d",
               tname, i, b[i]);
    free(b);
    free(src), free(dst), free(ref);
}

/* ---- user operations ---- */
typedef struct {
    uint8_t lo, mid, hi;
} u24_t; /* GEX_DT_USER, 3 bytes: a 24-bit counter, added */
static void add_u24(const void *a1, void *a2o, size_t count, const void *cdata) {
    CHECK(cdata == (void *)0x1234);
    const u24_t *x = a1;
    u24_t *y = a2o;
    for (size_t i = 0; i < count; i++) {
        uint32_t s = (x[i].lo | x[i].mid << 8 | (uint32_t)x[i].hi << 16) + (y[i].lo | y[i].mid << 8 | (uint32_t)y[i].hi << 16);
        y[i].lo = (uint8_t)s, y[i].mid = (uint8_t)(s >> 8), y[i].hi = (uint8_t)(s >> 16);
    }
}
/* non-commutative and associative, on a 16-byte GEX_DT_USER: (w, v) stands for "shift by
 * w, then add v"; (w1, v1) (+) (w2, v2) = (w1 * w2, v1 * w2 + v2) mod 2^64. Over ranks in
 * order the v part is v_0 K^(n-1) + v_1 K^(n-2) + ... + v_(n-1); any other order differs. */
typedef struct {
    uint64_t w, v;
} affine_t;
static void compose(const void *a1, void *a2o, size_t count, const void *cdata) {
    (void)cdata;
    const affine_t *x = a1;
    affine_t *y = a2o;
    for (size_t i = 0; i < count; i++) {
        y[i].v = x[i].v * y[i].w + y[i].v;
        y[i].w = x[i].w * y[i].w;
    }
}

static void test_user_ops(gex_TM_t tm, const char *tname) {
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    size_t cnt = 5000;
    u24_t *s = malloc(cnt * sizeof *s), *d = malloc(cnt * sizeof *d);
    CHECK(s && d);
    for (size_t i = 0; i < cnt; i++) {
        uint32_t v = (uint32_t)(i * 1000 + me);
        s[i].lo = (uint8_t)v, s[i].mid = (uint8_t)(v >> 8), s[i].hi = (uint8_t)(v >> 16);
    }
    gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, d, s, GEX_DT_USER, sizeof(u24_t), cnt, GEX_OP_USER, add_u24,
                                          (void *)0x1234, 0));
    for (size_t i = 0; i < cnt; i++) {
        uint32_t want = (uint32_t)((i * 1000 * n + (size_t)n * (n - 1) / 2) & 0xFFFFFF);
        uint32_t got = d[i].lo | d[i].mid << 8 | (uint32_t)d[i].hi << 16;
        CHECKF(got == want, "%s: GEX_OP_USER on a 3-byte GEX_DT_USER, element %zu: %u, expected %u", tname, i, got, want);
    }
    free(s), free(d);
    /* non-commutative: only src[0] (+) src[1] (+) ... (+) src[n-1] in this order gives want */
    const uint64_t K = 1000003u;
    affine_t v[3], out[3];
    for (int i = 0; i < 3; i++) v[i].w = K, v[i].v = me * 7u + (uint64_t)i + 1;
    for (gex_Rank_t root = 0; root < n; root++) {
        memset(out, 0, sizeof out);
        gex_Event_Wait(gex_Coll_ReduceToOneNB(tm, root, out, v, GEX_DT_USER, sizeof(affine_t), 3, GEX_OP_USER_NC,
                                              compose, NULL, 0));
        if (me == root)
            for (int i = 0; i < 3; i++) {
                uint64_t acc = (uint64_t)i + 1;
                for (gex_Rank_t r = 1; r < n; r++) acc = acc * K + (r * 7u + (uint64_t)i + 1);
                CHECKF(out[i].v == acc, "%s: GEX_OP_USER_NC to root %u, element %d: %llu, expected %llu (rank order)",
                       tname, (unsigned)root, i, (unsigned long long)out[i].v, (unsigned long long)acc);
            }
    }
    n_checks += 1 + n;
}

static void test_broadcasts(gex_TM_t tm, const char *tname) {
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    static const size_t sizes[] = {0, 1, 8, 1000, 65536, 65537, 300000, 1 << 20};
    uint8_t *buf = malloc(1 << 20), *src = malloc(1 << 20);
    CHECK(buf && src);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++)
        for (gex_Rank_t root = 0; root < n; root++) {
            size_t nb = sizes[si];
            if (nb > 70000 && root != (gex_Rank_t)(si % n)) continue; /* big ones: one root each */
            uint64_t seed = 0xB0000000ull + nb * 131 + root;
            test_pat_fill(src, nb, seed);
            memset(buf, 0x5A, nb + 1 < (1 << 20) ? nb + 1 : nb);
            gex_Event_Wait(gex_Coll_BroadcastNB(tm, root, buf, me == root ? src : NULL, nb, 0));
            CHECK_PAT(buf, nb, seed, "%s: broadcast of %zu bytes from root %u", tname, nb, (unsigned)root);
            if (nb + 1 < (1 << 20)) CHECKF(buf[nb] == 0x5A, "%s: broadcast of %zu bytes wrote past its end", tname, nb);
            n_checks++;
        }
    /* root with dst == src */
    test_pat_fill(buf, 4096, 77 + me);
    gex_Event_Wait(gex_Coll_BroadcastNB(tm, n - 1, buf, buf, 4096, 0));
    CHECK_PAT(buf, 4096, 77 + (n - 1), "%s: broadcast with dst == src at the root", tname);
    free(buf), free(src);
}

/* several operations in flight, synced in reverse order */
static void test_inflight(gex_TM_t tm, const char *tname) {
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    enum { K = 12 };
    gex_Event_t ev[K];
    static uint64_t bsrc[K][64], bdst[K][64], rsrc[K], rdst[K];
    for (int k = 0; k < K; k++) {
        if (k % 3 == 0) {
            for (int i = 0; i < 64; i++) bsrc[k][i] = (uint64_t)k * 1000 + (uint64_t)i;
            ev[k] = gex_Coll_BroadcastNB(tm, (gex_Rank_t)(k % n), bdst[k], bsrc[k], sizeof bsrc[k], 0);
        } else if (k % 3 == 1) {
            rsrc[k] = (uint64_t)me + (uint64_t)k;
            ev[k] = gex_Coll_ReduceToAllNB(tm, &rdst[k], &rsrc[k], GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
        } else {
            ev[k] = gex_Coll_BarrierNB(tm, 0);
        }
    }
    for (int k = K - 1; k >= 0; k--) gex_Event_Wait(ev[k]);
    for (int k = 0; k < K; k++) {
        if (k % 3 == 0)
            for (int i = 0; i < 64; i++)
                CHECKF(bdst[k][i] == (uint64_t)k * 1000 + (uint64_t)i, "%s: in-flight broadcast %d element %d", tname, k, i);
        else if (k % 3 == 1)
            CHECKF(rdst[k] == (uint64_t)n * (n - 1) / 2 + (uint64_t)n * k, "%s: in-flight reduction %d: %llu", tname, k,
                   (unsigned long long)rdst[k]);
    }
    n_checks += K;
}

/* large broadcasts (the same-host shared-memory path when the members share memory) in
 * flight on several teams at once, from several roots, synced in reverse order */
static void test_big_inflight(gex_TM_t *tms, int ntm) {
    enum { PER = 3 };
    static const size_t sizes[PER] = {4096, 300001, (1 << 20) - 3};
    uint8_t *src[8][PER], *dst[8][PER];
    gex_Event_t ev[8][PER];
    CHECK(ntm <= 8);
    for (int t = 0; t < ntm; t++)
        for (int k = 0; k < PER; k++) {
            gex_Rank_t n = gex_TM_QuerySize(tms[t]), root = (gex_Rank_t)((t + k) % n);
            src[t][k] = malloc(sizes[k]), dst[t][k] = malloc(sizes[k] + 1);
            CHECK(src[t][k] && dst[t][k]);
            test_pat_fill(src[t][k], sizes[k], 0xC0000000ull + (uint64_t)t * 16 + k);
            memset(dst[t][k], 0x5A, sizes[k] + 1);
            ev[t][k] = gex_Coll_BroadcastNB(tms[t], root, dst[t][k], src[t][k], sizes[k], 0);
        }
    for (int t = ntm - 1; t >= 0; t--)
        for (int k = PER - 1; k >= 0; k--) gex_Event_Wait(ev[t][k]);
    for (int t = 0; t < ntm; t++)
        for (int k = 0; k < PER; k++) {
            CHECK_PAT(dst[t][k], sizes[k], 0xC0000000ull + (uint64_t)t * 16 + k,
                      "team %d: in-flight broadcast of %zu bytes", t, sizes[k]);
            CHECKF(dst[t][k][sizes[k]] == 0x5A, "team %d: in-flight broadcast of %zu bytes wrote past its end", t,
                   sizes[k]);
            free(src[t][k]), free(dst[t][k]);
            n_checks++;
        }
}

/* team ranks map to the right processes: each member puts its jobrank into its right
 * team neighbor's slot, addressed by team rank */
static void test_team_rma(gex_TM_t tm, const char *tname, size_t slot) {
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    gex_Rank_t right = (me + 1) % n, left = (me + n - 1) % n;
    void *raddr = NULL;
    CHECK_EQ(gex_Segment_QueryBound(tm, right, &raddr, NULL, NULL), 0);
    uint64_t v = gex_System_QueryJobRank();
    gex_RMA_PutBlocking(tm, right, (uint8_t *)raddr + slot * 8, &v, 8, 0);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    uint64_t got;
    memcpy(&got, myseg + slot * 8, 8);
    CHECKF(got == gex_TM_TranslateRankToJobrank(tm, left), "%s: the left member's put carried jobrank %llu, expected %u",
           tname, (unsigned long long)got, (unsigned)gex_TM_TranslateRankToJobrank(tm, left));
    for (gex_Rank_t r = 0; r < n; r++)
        CHECK_EQ(gex_TM_TranslateJobrankToRank(tm, gex_TM_TranslateRankToJobrank(tm, r)), r);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
}

static void exercise(gex_TM_t tm, const char *tname, size_t slot) {
    test_team_rma(tm, tname, slot);
    test_broadcasts(tm, tname);
    test_reductions(tm, tname);
    test_user_ops(tm, tname);
    test_inflight(tm, tname);
}

/* checks a split's membership: the members are those with my color, ordered by key then
 * parent rank */
static void check_split(gex_TM_t tm, gex_TM_t parent, const int *color, const int *key, const char *tname) {
    gex_Rank_t pn = gex_TM_QuerySize(parent), me = gex_TM_QueryRank(parent);
    gex_Rank_t expect[64], k = 0;
    for (int kv = -64; kv <= 64; kv++)
        for (gex_Rank_t r = 0; r < pn; r++)
            if (color[r] == color[me] && key[r] == kv) expect[k++] = r;
    CHECKF(gex_TM_QuerySize(tm) == k, "%s: size %u, expected %u", tname, (unsigned)gex_TM_QuerySize(tm), (unsigned)k);
    for (gex_Rank_t i = 0; i < k; i++) {
        CHECKF(gex_TM_TranslateRankToJobrank(tm, i) == gex_TM_TranslateRankToJobrank(parent, expect[i]),
               "%s: rank %u is jobrank %u, expected %u", tname, (unsigned)i, (unsigned)gex_TM_TranslateRankToJobrank(tm, i),
               (unsigned)gex_TM_TranslateRankToJobrank(parent, expect[i]));
        if (expect[i] == me) CHECK_EQ(gex_TM_QueryRank(tm), i);
    }
    CHECK(gex_TM_QueryEP(tm) == gex_TM_QueryEP(parent));
}

int main(int argc, char **argv) {
    test_init("test_coll", &argc, &argv);
    gex_Segment_t seg = test_attach(1 << 16);
    myseg = gex_Segment_QueryAddr(seg);
    gex_Rank_t n = test_size, me = test_rank;
    CHECK(n <= 64);
    int color[64] = {0}, key[64] = {0};

    exercise(test_tm, "primordial", 0);
    CHECK_EQ(gex_TM_Split(NULL, test_tm, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_MIN), 0);

    /* halves, keys reversed, scratch granted */
    for (gex_Rank_t r = 0; r < n; r++) color[r] = r < n / 2, key[r] = -(int)r;
    gex_TM_t half;
    gex_TM_Split(&half, test_tm, color[me], key[me], myseg + 60000, 4096, 0);
    check_split(half, test_tm, color, key, "halves (reversed keys)");
    exercise(half, "halves", 1);

    /* odd/even, equal keys: parent order kept; even ranks only take part through a Dup */
    for (gex_Rank_t r = 0; r < n; r++) color[r] = r % 2, key[r] = 0;
    gex_TM_t oe;
    gex_TM_Split(&oe, test_tm, color[me], 0, NULL, 0, 0);
    check_split(oe, test_tm, color, key, "odd/even");
    gex_TM_t oe2;
    gex_TM_Dup(&oe2, oe, NULL, 0, 0);
    CHECK_EQ(gex_TM_QuerySize(oe2), gex_TM_QuerySize(oe));
    CHECK_EQ(gex_TM_QueryRank(oe2), gex_TM_QueryRank(oe));
    exercise(oe2, "odd/even dup", 2);

    /* singletons */
    for (gex_Rank_t r = 0; r < n; r++) color[r] = (int)r, key[r] = 0;
    gex_TM_t single;
    gex_TM_Split(&single, test_tm, color[me], 0, NULL, 0, 0);
    check_split(single, test_tm, color, key, "singletons");
    exercise(single, "singleton", 3);

    /* non-members: rank 0 passes NULL; nested: the rest split again into pairs */
    gex_TM_t rest = GEX_TM_INVALID;
    gex_TM_Split(me ? &rest : NULL, test_tm, 5, 0, NULL, 0, 0);
    if (me) {
        CHECK_EQ(gex_TM_QuerySize(rest), n - 1);
        CHECK_EQ(gex_TM_QueryRank(rest), me - 1);
        CHECK_EQ(gex_TM_TranslateJobrankToRank(rest, gex_TM_TranslateRankToJobrank(test_tm, 0)), GEX_RANK_INVALID);
        gex_TM_t pairs;
        gex_Rank_t rr = gex_TM_QueryRank(rest);
        gex_TM_Split(&pairs, rest, (int)(rr / 2), (int)(rr % 2 ? 0 : 1), NULL, 0, 0); /* keys swap each pair */
        exercise(pairs, "nested pairs", 4);
        CHECK_EQ(gex_TM_Destroy(pairs, NULL, 0), 0);
        exercise(rest, "all but rank 0", 5);
    }
    gex_Event_Wait(gex_Coll_BarrierNB(test_tm, 0));

    /* two teams busy at once */
    uint64_t a = me, b = 1, ra = 0, rb = 0;
    gex_Event_t e1 = gex_Coll_ReduceToAllNB(half, &ra, &a, GEX_DT_U64, 8, 1, GEX_OP_MAX, NULL, NULL, 0);
    gex_Event_t e2 = gex_Coll_ReduceToAllNB(oe, &rb, &b, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0);
    gex_Event_Wait(e2);
    gex_Event_Wait(e1);
    CHECK_EQ(ra, (uint64_t)(me < n / 2 ? (n / 2 ? n / 2 - 1 : 0) : n - 1));
    CHECK_EQ(rb, (uint64_t)gex_TM_QuerySize(oe));
    gex_TM_t busy[3] = {test_tm, half, oe};
    test_big_inflight(busy, 3);

    /* gex_TM_Pair: rank arguments are jobranks */
    gex_TM_t pair = gex_TM_Pair(test_ep, 0);
    gex_Rank_t peer = (me + 1) % n;
    void *paddr = NULL;
    CHECK_EQ(gex_Segment_QueryBound(test_tm, peer, &paddr, NULL, NULL), 0);
    uint64_t pv = 0xAB00 + me;
    gex_RMA_PutBlocking(pair, peer, (uint8_t *)paddr + 7 * 8, &pv, 8, 0);
    test_barrier();
    uint64_t pgot;
    memcpy(&pgot, myseg + 7 * 8, 8);
    CHECK_EQ(pgot, (uint64_t)(0xAB00 + (me + n - 1) % n));

    /* destroy: scratch comes back only where it was granted */
    gex_Memvec_t sc = {NULL, 0};
    CHECK_EQ(gex_TM_Destroy(half, &sc, GEX_FLAG_GLOBALLY_QUIESCED), 1);
    CHECK(sc.gex_addr == myseg + 60000 && sc.gex_len == 4096);
    CHECK_EQ(gex_TM_Destroy(oe2, &sc, 0), 0);
    CHECK_EQ(gex_TM_Destroy(oe, NULL, 0), 0);
    CHECK_EQ(gex_TM_Destroy(single, NULL, 0), 0);
    if (me) CHECK_EQ(gex_TM_Destroy(rest, NULL, 0), 0);
    test_finish("%ld collective results checked on 6 kinds of team", n_checks);
}
