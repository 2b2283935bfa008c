/* tests/api/test_vis.c: gex_VIS_{Vector,Indexed,Strided}{Put,Get}{Blocking,NB,NBI} with random
 * shapes (gaps, contiguous runs that fold, negative strides, different local and remote
 * segmentations) against a reference computed here byte by byte, plus a few 4 MiB 2-D
 * transfers. Each rank puts into its right neighbor's area P (written by nobody else)
 * and gets from the neighbor's area G (a known pattern). Checks the bytes around every
 * transfer too; then the GASNet-1 prototype forms gasnet_{put,get}{v,i,s}[_nb|_nbi][_bulk].
 * Last, gex_VIS_SetPeerCompletionHandler: armed puts of every kind notify the right
 * neighbor, whose handler checks that the put's data is already there; a disarmed put and
 * a get leave no notification; each arrives exactly once.
 * Layer: tests (public API only). Run also with GASNET_RMA_NBRHD_BYPASS=0 (AM-based, and
 * small pieces packed into AM Mediums) and with GASNET_VIS_AMPIPE=0 (no packing). */
#include "test_util.h"
#include <gasnet_vis.h>

#define AREA ((size_t)4 << 20)
#define NOPS 40
#define MARGIN 64

static gex_Rank_t right;
static uint8_t *myseg, *rseg;   /* rseg: right neighbor's segment (its address) */
static uint8_t *src, *dst, *expect, *refP, *refG, *verify;
static uint64_t rng = 0x5151;
static long n_ops;

static uint64_t rnd(uint64_t n) { rng = test_mix64(rng + 0x9E3779B97F4A7C15ull); return n ? rng % n : 0; }

/* ---- completion modes ---- */
enum { M_BLOCK, M_NB, M_NBI, M_REGION, M_COUNT };
static const char *mname[M_COUNT] = {"Blocking", "NB", "NBI", "NBI-region"};
static void mode_begin(int m) { if (m == M_REGION) gex_NBI_BeginAccessRegion(0); }
static void mode_end(int m, gex_Event_t ev) {
    if (m == M_NB) gex_Event_Wait(ev);
    else if (m == M_NBI) gex_NBI_Wait(GEX_EC_ALL, 0);
    else if (m == M_REGION) gex_Event_Wait(gex_NBI_EndAccessRegion(0));
}

/* ---- checking: the touched range [lo,hi) plus MARGIN bytes either side ---- */
static void check_put(size_t lo, size_t hi, const char *what) {
    lo = lo > MARGIN ? lo - MARGIN : 0;
    hi = hi + MARGIN < AREA ? hi + MARGIN : AREA;
    memset(verify, 0xA5, hi - lo);
    CHECK_EQ(gex_RMA_GetBlocking(test_tm, verify, right, rseg + lo, hi - lo, 0), 0);
    for (size_t i = 0; i < hi - lo; i++)
        CHECKF(verify[i] == refP[lo + i], "%s: remote byte %zu is 0x%02x, expected 0x%02x", what, lo + i,
               verify[i], refP[lo + i]);
}
static void check_get(size_t lo, size_t hi, const char *what) {
    lo = lo > MARGIN ? lo - MARGIN : 0;
    hi = hi + MARGIN < AREA ? hi + MARGIN : AREA;
    for (size_t i = lo; i < hi; i++)
        CHECKF(dst[i] == expect[i], "%s: local byte %zu is 0x%02x, expected 0x%02x", what, i, dst[i], expect[i]);
}

/* ---- strided shapes ---- */
typedef struct {
    size_t e, lv, cnt[4];
    ptrdiff_t ds[4], ss[4];
    size_t doff, soff; /* offset of the base address */
} shape_t;

static void gen_strides(shape_t *s, ptrdiff_t *st, size_t *off, size_t room) {
    size_t ext = s->e, neg = 0;
    for (size_t k = 0; k < s->lv; k++) {
        size_t gap = rnd(3) ? rnd(9) : 0; /* often contiguous, so levels fold */
        size_t step = ext + gap;
        int negative = rnd(4) == 0;
        st[k] = negative ? -(ptrdiff_t)step : (ptrdiff_t)step;
        if (negative) neg += step * (s->cnt[k] - 1);
        ext = step * (s->cnt[k] - 1) + ext;
    }
    CHECK(ext < room);
    *off = neg + rnd(room - ext); /* the lowest byte touched lies at *off - neg >= 0 */
}

/* the reference: every element, by plain recursion, element by element */
static void ref_strided(const shape_t *s, size_t lvl, uint8_t *d, ptrdiff_t dp, const uint8_t *sr, ptrdiff_t sp,
                        size_t *lo, size_t *hi) {
    if (lvl == 0) {
        memcpy(d + dp, sr + sp, s->e);
        if ((size_t)dp < *lo) *lo = (size_t)dp;
        if ((size_t)dp + s->e > *hi) *hi = (size_t)dp + s->e;
        return;
    }
    for (size_t i = 0; i < s->cnt[lvl - 1]; i++)
        ref_strided(s, lvl - 1, d, dp + (ptrdiff_t)i * s->ds[lvl - 1], sr, sp + (ptrdiff_t)i * s->ss[lvl - 1], lo, hi);
}

static void do_strided(int is_put, int m, const shape_t *s, const char *what) {
    gex_Event_t ev = GEX_EVENT_INVALID;
    size_t lo = SIZE_MAX, hi = 0;
    mode_begin(m);
    if (is_put) {
        uint8_t *d = rseg + s->doff, *sr = src + s->soff;
        switch (m) {
        case M_BLOCK: CHECK_EQ(gex_VIS_StridedPutBlocking(test_tm, right, d, s->ds, sr, s->ss, s->e, s->cnt, s->lv, 0), 0); break;
        case M_NB: ev = gex_VIS_StridedPutNB(test_tm, right, d, s->ds, sr, s->ss, s->e, s->cnt, s->lv, 0); break;
        default:
            CHECK_EQ(gex_VIS_StridedPutNBI(test_tm, right, d, s->ds, sr, s->ss, s->e, s->cnt, s->lv,
                                           GEX_FLAG_ENABLE_LEAF_LC), 0);
        }
        mode_end(m, ev);
        ref_strided(s, s->lv, refP, (ptrdiff_t)s->doff, src, (ptrdiff_t)s->soff, &lo, &hi);
        check_put(lo, hi, what);
    } else {
        uint8_t *d = dst + s->doff, *sr = rseg + AREA + s->soff;
        switch (m) {
        case M_BLOCK: CHECK_EQ(gex_VIS_StridedGetBlocking(test_tm, d, s->ds, right, sr, s->ss, s->e, s->cnt, s->lv, 0), 0); break;
        case M_NB: ev = gex_VIS_StridedGetNB(test_tm, d, s->ds, right, sr, s->ss, s->e, s->cnt, s->lv, 0); break;
        default: CHECK_EQ(gex_VIS_StridedGetNBI(test_tm, d, s->ds, right, sr, s->ss, s->e, s->cnt, s->lv, 0), 0);
        }
        mode_end(m, ev);
        ref_strided(s, s->lv, expect, (ptrdiff_t)s->doff, refG, (ptrdiff_t)s->soff, &lo, &hi);
        check_get(lo, hi, what);
    }
    n_ops++;
}

static void test_strided(void) {
    char what[160];
    for (int m = 0; m < M_COUNT; m++)
        for (int is_put = 0; is_put < 2; is_put++)
            for (int i = 0; i < NOPS; i++) {
                shape_t s;
                s.e = 1 + rnd(48);
                s.lv = rnd(4);
                for (size_t k = 0; k < s.lv; k++) s.cnt[k] = 1 + rnd(6);
                gen_strides(&s, s.ds, &s.doff, AREA);
                gen_strides(&s, s.ss, &s.soff, AREA);
                snprintf(what, sizeof what, "Strided%s%s #%d (elemsz %zu, %zu levels)", is_put ? "Put" : "Get",
                         mname[m], i, s.e, s.lv);
                do_strided(is_put, m, &s, what);
            }
    /* 2-D, 256 rows: dense 16 KiB rows (folds into one 4 MiB piece) and 8 KiB rows 16 KiB apart */
    for (int m = 0; m < M_COUNT; m += 2)
        for (int is_put = 0; is_put < 2; is_put++)
            for (int gap = 0; gap < 2; gap++) {
                shape_t s = {0};
                s.lv = 1;
                s.cnt[0] = 256;
                s.e = gap ? 8192 : 16384;
                s.ds[0] = s.ss[0] = 16384;
                s.doff = s.soff = 0;
                snprintf(what, sizeof what, "Strided%s%s 256 rows of %zu bytes", is_put ? "Put" : "Get", mname[m], s.e);
                do_strided(is_put, m, &s, what);
            }
    /* degenerate: elemsz 0, a zero count: nothing moves (the reference is untouched too) */
    size_t zc[2] = {3, 0};
    ptrdiff_t st[2] = {100, 1000};
    CHECK_EQ(gex_VIS_StridedPutBlocking(test_tm, right, rseg, st, src, st, 0, zc, 2, 0), 0);
    CHECK_EQ(gex_VIS_StridedPutBlocking(test_tm, right, rseg, st, src, st, 8, zc, 2, 0), 0);
    check_put(0, 4096, "StridedPutBlocking with elemsz 0 or count 0");
}

/* ---- vector and indexed: random lists, reference byte by byte ---- */
#define MAXV 64
#define MAXB 65536
static size_t boff_d[MAXB], boff_s[MAXB];

/* cut total bytes into k entries (some empty) placed in increasing order with gaps in [0, room) */
static size_t gen_vec(gex_Memvec_t *v, uint8_t *base, size_t total, size_t *boff, size_t room) {
    size_t k = 1 + rnd(MAXV), left = total, pos = rnd(4096), nb = 0;
    for (size_t i = 0; i < k; i++) {
        size_t len = i == k - 1 ? left : rnd(left + 1) / (rnd(3) + 1);
        left -= len;
        v[i].gex_addr = base + pos;
        v[i].gex_len = len;
        for (size_t j = 0; j < len; j++) boff[nb++] = pos + j;
        pos += len + (rnd(2) ? rnd(200) : 0);
    }
    CHECK(pos < room && nb == total);
    return k;
}

static void apply_ref(uint8_t *d, const uint8_t *s, size_t total, size_t *lo, size_t *hi) {
    for (size_t b = 0; b < total; b++) {
        d[boff_d[b]] = s[boff_s[b]];
        if (boff_d[b] < *lo) *lo = boff_d[b];
        if (boff_d[b] + 1 > *hi) *hi = boff_d[b] + 1;
    }
}

static void test_vector(void) {
    static gex_Memvec_t dv[MAXV], sv[MAXV];
    char what[160];
    for (int m = 0; m < M_COUNT; m++)
        for (int is_put = 0; is_put < 2; is_put++)
            for (int i = 0; i < NOPS; i++) {
                size_t total = rnd(4) ? rnd(4096) : rnd(MAXB / 2);
                size_t lo = SIZE_MAX, hi = 0;
                gex_Event_t ev = GEX_EVENT_INVALID;
                snprintf(what, sizeof what, "Vector%s%s #%d (%zu bytes)", is_put ? "Put" : "Get", mname[m], i, total);
                mode_begin(m);
                if (is_put) {
                    size_t dc = gen_vec(dv, rseg, total, boff_d, AREA), sc = gen_vec(sv, src, total, boff_s, AREA);
                    if (m == M_BLOCK) CHECK_EQ(gex_VIS_VectorPutBlocking(test_tm, right, dc, dv, sc, sv, 0), 0);
                    else if (m == M_NB) ev = gex_VIS_VectorPutNB(test_tm, right, dc, dv, sc, sv, 0);
                    else CHECK_EQ(gex_VIS_VectorPutNBI(test_tm, right, dc, dv, sc, sv, 0), 0);
                    mode_end(m, ev);
                    apply_ref(refP, src, total, &lo, &hi);
                    if (total) check_put(lo, hi, what);
                } else {
                    size_t dc = gen_vec(dv, dst, total, boff_d, AREA);
                    size_t sc = gen_vec(sv, rseg + AREA, total, boff_s, AREA);
                    if (m == M_BLOCK) CHECK_EQ(gex_VIS_VectorGetBlocking(test_tm, dc, dv, right, sc, sv, 0), 0);
                    else if (m == M_NB) ev = gex_VIS_VectorGetNB(test_tm, dc, dv, right, sc, sv, 0);
                    else CHECK_EQ(gex_VIS_VectorGetNBI(test_tm, dc, dv, right, sc, sv, 0), 0);
                    mode_end(m, ev);
                    apply_ref(expect, refG, total, &lo, &hi);
                    if (total) check_get(lo, hi, what);
                }
                n_ops++;
            }
}

/* indexed: total = a*b*c bytes as c entries of a*b on one side and b*c entries of a on the other */
static size_t gen_idx(void **l, uint8_t *base, size_t cnt, size_t len, size_t *boff) {
    size_t pos = rnd(1024), nb = 0;
    for (size_t i = 0; i < cnt; i++) {
        l[i] = base + pos;
        for (size_t j = 0; j < len; j++) boff[nb++] = pos + j;
        pos += len + (rnd(2) ? rnd(100) : 0);
    }
    CHECK(pos < AREA);
    return nb;
}

static void test_indexed(void) {
    static void *dl[MAXV * 8], *sl[MAXV * 8];
    char what[160];
    for (int m = 0; m < M_COUNT; m++)
        for (int is_put = 0; is_put < 2; is_put++)
            for (int i = 0; i < NOPS; i++) {
                size_t a = 1 + rnd(64), b = 1 + rnd(8), c = 1 + rnd(MAXV);
                int swap = (int)rnd(2);
                size_t dlen = swap ? a : a * b, dc = swap ? b * c : c;
                size_t slen = swap ? a * b : a, sc = swap ? c : b * c;
                size_t lo = SIZE_MAX, hi = 0, total = a * b * c;
                gex_Event_t ev = GEX_EVENT_INVALID;
                snprintf(what, sizeof what, "Indexed%s%s #%d (%zu x %zu to %zu x %zu)", is_put ? "Put" : "Get",
                         mname[m], i, sc, slen, dc, dlen);
                mode_begin(m);
                if (is_put) {
                    gen_idx(dl, rseg, dc, dlen, boff_d);
                    gen_idx(sl, src, sc, slen, boff_s);
                    if (m == M_BLOCK) CHECK_EQ(gex_VIS_IndexedPutBlocking(test_tm, right, dc, dl, dlen, sc, sl, slen, 0), 0);
                    else if (m == M_NB) ev = gex_VIS_IndexedPutNB(test_tm, right, dc, dl, dlen, sc, sl, slen, 0);
                    else CHECK_EQ(gex_VIS_IndexedPutNBI(test_tm, right, dc, dl, dlen, sc, sl, slen, 0), 0);
                    mode_end(m, ev);
                    apply_ref(refP, src, total, &lo, &hi);
                    check_put(lo, hi, what);
                } else {
                    gen_idx(dl, dst, dc, dlen, boff_d);
                    gen_idx(sl, rseg + AREA, sc, slen, boff_s);
                    if (m == M_BLOCK) CHECK_EQ(gex_VIS_IndexedGetBlocking(test_tm, dc, dl, dlen, right, sc, sl, slen, 0), 0);
                    else if (m == M_NB) ev = gex_VIS_IndexedGetNB(test_tm, dc, dl, dlen, right, sc, sl, slen, 0);
                    else CHECK_EQ(gex_VIS_IndexedGetNBI(test_tm, dc, dl, dlen, right, sc, sl, slen, 0), 0);
                    mode_end(m, ev);
                    apply_ref(expect, refG, total, &lo, &hi);
                    check_get(lo, hi, what);
                }
                n_ops++;
            }
}

/* the GASNet-1 prototype forms (blocking, _nb, _nbi; bulk and not) on the same references */
static void legacy_sync(int m, gasnet_handle_t h, int is_put) {
    if (m == 1) gasnet_wait_syncnb(h);
    if (m == 2) {
        if (is_put) gasnet_wait_syncnbi_puts();
        else gasnet_wait_syncnbi_gets();
    }
}
/* the same list as GASNet-1 memvecs (fields addr and len) */
static void memvec1(gasnet_memvec_t *out, const gex_Memvec_t *in, size_t n) {
    for (size_t i = 0; i < n; i++) out[i].addr = in[i].gex_addr, out[i].len = in[i].gex_len;
}

static void test_legacy_forms(void) {
    static gex_Memvec_t dvx[MAXV], svx[MAXV];
    static gasnet_memvec_t dv[MAXV], sv[MAXV];
    static void *dl[MAXV * 8], *sl[MAXV * 8];
    char what[160];
    gasnet_node_t node = (gasnet_node_t)gex_TM_TranslateRankToJobrank(test_tm, right);
    for (int m = 0; m < 3; m++)
        for (int bulk = 0; bulk < 2; bulk++)
            for (int i = 0; i < 6; i++) {
                gasnet_handle_t h = GASNET_INVALID_HANDLE;
                size_t total = 1 + rnd(20000), lo = SIZE_MAX, hi = 0;
                /* putv / getv */
                snprintf(what, sizeof what, "gasnet_putv mode %d bulk %d #%d", m, bulk, i);
                size_t dc = gen_vec(dvx, rseg, total, boff_d, AREA), sc = gen_vec(svx, src, total, boff_s, AREA);
                memvec1(dv, dvx, dc);
                memvec1(sv, svx, sc);
                if (m == 0) { if (bulk) gasnet_putv_bulk(node, dc, dv, sc, sv); else gasnet_putv(node, dc, dv, sc, sv); }
                else if (m == 1) h = bulk ? gasnet_putv_nb_bulk(node, dc, dv, sc, sv) : gasnet_putv_nb(node, dc, dv, sc, sv);
                else { if (bulk) gasnet_putv_nbi_bulk(node, dc, dv, sc, sv); else gasnet_putv_nbi(node, dc, dv, sc, sv); }
                legacy_sync(m, h, 1);
                apply_ref(refP, src, total, &lo, &hi);
                check_put(lo, hi, what);
                snprintf(what, sizeof what, "gasnet_getv mode %d bulk %d #%d", m, bulk, i);
                lo = SIZE_MAX, hi = 0;
                dc = gen_vec(dvx, dst, total, boff_d, AREA);
                sc = gen_vec(svx, rseg + AREA, total, boff_s, AREA);
                memvec1(dv, dvx, dc);
                memvec1(sv, svx, sc);
                if (m == 0) { if (bulk) gasnet_getv_bulk(dc, dv, node, sc, sv); else gasnet_getv(dc, dv, node, sc, sv); }
                else if (m == 1) h = bulk ? gasnet_getv_nb_bulk(dc, dv, node, sc, sv) : gasnet_getv_nb(dc, dv, node, sc, sv);
                else { if (bulk) gasnet_getv_nbi_bulk(dc, dv, node, sc, sv); else gasnet_getv_nbi(dc, dv, node, sc, sv); }
                legacy_sync(m, h, 0);
                apply_ref(expect, refG, total, &lo, &hi);
                check_get(lo, hi, what);
                /* puti / geti: c entries of a bytes on both sides */
                size_t a = 1 + rnd(300), c = 1 + rnd(MAXV);
                snprintf(what, sizeof what, "gasnet_puti mode %d bulk %d #%d (%zu x %zu)", m, bulk, i, c, a);
                lo = SIZE_MAX, hi = 0;
                gen_idx(dl, rseg, c, a, boff_d);
                gen_idx(sl, src, c, a, boff_s);
                if (m == 0) { if (bulk) gasnet_puti_bulk(node, c, dl, a, c, sl, a); else gasnet_puti(node, c, dl, a, c, sl, a); }
                else if (m == 1) h = bulk ? gasnet_puti_nb_bulk(node, c, dl, a, c, sl, a) : gasnet_puti_nb(node, c, dl, a, c, sl, a);
                else { if (bulk) gasnet_puti_nbi_bulk(node, c, dl, a, c, sl, a); else gasnet_puti_nbi(node, c, dl, a, c, sl, a); }
                legacy_sync(m, h, 1);
                apply_ref(refP, src, a * c, &lo, &hi);
                check_put(lo, hi, what);
                snprintf(what, sizeof what, "gasnet_geti mode %d bulk %d #%d (%zu x %zu)", m, bulk, i, c, a);
                lo = SIZE_MAX, hi = 0;
                gen_idx(dl, dst, c, a, boff_d);
                gen_idx(sl, rseg + AREA, c, a, boff_s);
                if (m == 0) { if (bulk) gasnet_geti_bulk(c, dl, a, node, c, sl, a); else gasnet_geti(c, dl, a, node, c, sl, a); }
                else if (m == 1) h = bulk ? gasnet_geti_nb_bulk(c, dl, a, node, c, sl, a) : gasnet_geti_nb(c, dl, a, node, c, sl, a);
                else { if (bulk) gasnet_geti_nbi_bulk(c, dl, a, node, c, sl, a); else gasnet_geti_nbi(c, dl, a, node, c, sl, a); }
                legacy_sync(m, h, 0);
                apply_ref(expect, refG, a * c, &lo, &hi);
                check_get(lo, hi, what);
                /* puts / gets: count[0] bytes, count[1] x count[2] elements, size_t strides */
                size_t cnt[3] = {1 + rnd(64), 1 + rnd(16), 1 + rnd(8)};
                size_t dst_st[2], src_st[2];
                dst_st[0] = cnt[0] + rnd(32); dst_st[1] = dst_st[0] * cnt[1] + rnd(64);
                src_st[0] = cnt[0] + rnd(32); src_st[1] = src_st[0] * cnt[1] + rnd(64);
                size_t doff = rnd(4096), soff = rnd(4096), nb = 0;
                for (size_t z = 0; z < cnt[2]; z++)
                    for (size_t y = 0; y < cnt[1]; y++)
                        for (size_t x = 0; x < cnt[0]; x++, nb++) {
                            boff_d[nb] = doff + z * dst_st[1] + y * dst_st[0] + x;
                            boff_s[nb] = soff + z * src_st[1] + y * src_st[0] + x;
                        }
                snprintf(what, sizeof what, "gasnet_puts mode %d bulk %d #%d", m, bulk, i);
                lo = SIZE_MAX, hi = 0;
                if (m == 0) { if (bulk) gasnet_puts_bulk(node, rseg + doff, dst_st, src + soff, src_st, cnt, 2); else gasnet_puts(node, rseg + doff, dst_st, src + soff, src_st, cnt, 2); }
                else if (m == 1) h = bulk ? gasnet_puts_nb_bulk(node, rseg + doff, dst_st, src + soff, src_st, cnt, 2) : gasnet_puts_nb(node, rseg + doff, dst_st, src + soff, src_st, cnt, 2);
                else { if (bulk) gasnet_puts_nbi_bulk(node, rseg + doff, dst_st, src + soff, src_st, cnt, 2); else gasnet_puts_nbi(node, rseg + doff, dst_st, src + soff, src_st, cnt, 2); }
                legacy_sync(m, h, 1);
                apply_ref(refP, src, nb, &lo, &hi);
                check_put(lo, hi, what);
                snprintf(what, sizeof what, "gasnet_gets mode %d bulk %d #%d", m, bulk, i);
                lo = SIZE_MAX, hi = 0;
                if (m == 0) { if (bulk) gasnet_gets_bulk(dst + doff, dst_st, node, rseg + AREA + soff, src_st, cnt, 2); else gasnet_gets(dst + doff, dst_st, node, rseg + AREA + soff, src_st, cnt, 2); }
                else if (m == 1) h = bulk ? gasnet_gets_nb_bulk(dst + doff, dst_st, node, rseg + AREA + soff, src_st, cnt, 2) : gasnet_gets_nb(dst + doff, dst_st, node, rseg + AREA + soff, src_st, cnt, 2);
                else { if (bulk) gasnet_gets_nbi_bulk(dst + doff, dst_st, node, rseg + AREA + soff, src_st, cnt, 2); else gasnet_gets_nbi(dst + doff, dst_st, node, rseg + AREA + soff, src_st, cnt, 2); }
                legacy_sync(m, h, 0);
                apply_ref(expect, refG, nb, &lo, &hi);
                check_get(lo, hi, what);
                n_ops += 6;
            }
}

/* ---- peer completion ---- */
#define PC_OPS 24            /* armed puts 0..PC_OPS-1; PC_OPS: disarmed; PC_OPS+1: after a get */
#define PC_HIDX 200
#define PC_MAXB (14 * 48) /* the largest c * a of pc_shape */
typedef struct {
    uint32_t k, from;
} pc_note_t;
static volatile int pc_got[PC_OPS + 2];
static volatile int pc_bad_note;

/* the shape of op k: c elements of a bytes, 2a apart, at offset k * 8192 of the P area */
static void pc_shape(uint32_t k, size_t *c, size_t *a, size_t *off) {
    *c = 8 + k % 7, *a = 16 + 8 * (k % 5), *off = (size_t)k * 8192;
}

static void pc_handler(gex_Token_t t, void *buf, size_t n) {
    (void)t;
    pc_note_t note;
    if (n != sizeof note) { pc_bad_note = 1; return; }
    memcpy(&note, buf, sizeof note);
    if (note.k >= PC_OPS + 2 || note.from != (test_rank + test_size - 1) % test_size) { pc_bad_note = 1; return; }
    size_t c, a, off;
    pc_shape(note.k, &c, &a, &off);
    uint8_t want[PC_MAXB];
    test_pat_fill(want, c * a, 0x9C000000ull + note.k + ((uint64_t)note.from << 16));
    for (size_t e = 0; e < c; e++)
        CHECKF(!memcmp(myseg + off + e * 2 * a, want + e * a, a),
               "peer completion %u from rank %u ran before element %zu of its put arrived", note.k, note.from, e);
    pc_got[note.k]++;
}

static void pc_put(uint32_t k, int arm, gex_Event_t *ev_out) {
    size_t c, a, off;
    pc_shape(k, &c, &a, &off);
    static uint8_t data[PC_MAXB];
    test_pat_fill(data, c * a, 0x9C000000ull + k + ((uint64_t)test_rank << 16));
    pc_note_t note = {k, test_rank};
    if (arm) gex_VIS_SetPeerCompletionHandler(PC_HIDX, &note, sizeof note, 0);
    gex_Memvec_t dv[16], sv = {data, c * a};
    void *dp[16], *sp = data;
    for (size_t e = 0; e < c; e++) {
        dv[e].gex_addr = dp[e] = rseg + off + e * 2 * a;
        dv[e].gex_len = a;
    }
    ptrdiff_t dst_st[2] = {(ptrdiff_t)a, (ptrdiff_t)(2 * a)}, src_st[2] = {(ptrdiff_t)a, (ptrdiff_t)(c * a)};
    size_t cnt[2] = {1, c};
    gex_Event_t ev = GEX_EVENT_INVALID;
    switch (k % 4) {
    case 0: CHECK_EQ(gex_VIS_StridedPutBlocking(test_tm, right, rseg + off, dst_st + 1, data, src_st, a, cnt + 1, 1, 0), 0); break;
    case 1: ev = gex_VIS_StridedPutNB(test_tm, right, rseg + off, dst_st + 1, data, src_st, a, cnt + 1, 1, 0); break;
    case 2: CHECK_EQ(gex_VIS_VectorPutNBI(test_tm, right, c, dv, 1, &sv, 0), 0); gex_NBI_Wait(GEX_EC_ALL, 0); break;
    default:
        gex_NBI_BeginAccessRegion(0);
        CHECK_EQ(gex_VIS_IndexedPutNBI(test_tm, right, c, dp, a, 1, &sp, c * a, 0), 0);
        ev = gex_NBI_EndAccessRegion(0);
    }
    (void)cnt;
    if (ev_out) *ev_out = ev;
    else gex_Event_Wait(ev);
}

static void test_peer_completion(void) {
    gex_AM_Entry_t h = {PC_HIDX, (gex_AM_Fn_t)pc_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "pc"};
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, &h, 1), GASNET_OK);
    CHECK(GEX_VIS_MAX_PEERCOMPLETION >= 127);
    test_barrier();
    for (uint32_t k = 0; k < PC_OPS; k++) pc_put(k, 1, NULL);
    /* armed, then disarmed: the put that follows notifies nobody */
    pc_note_t dummy = {PC_OPS, test_rank};
    gex_VIS_SetPeerCompletionHandler(PC_HIDX, &dummy, sizeof dummy, 0);
    gex_VIS_SetPeerCompletionHandler(0, NULL, 0, 0);
    pc_put(PC_OPS, 0, NULL);
    /* armed across a get: the get leaves it armed for the put after it (docs/vis.md) */
    uint32_t k = PC_OPS + 1;
    size_t c, a, off;
    pc_shape(k, &c, &a, &off);
    pc_note_t note = {k, test_rank};
    static uint8_t data[PC_MAXB];
    test_pat_fill(data, c * a, 0x9C000000ull + k + ((uint64_t)test_rank << 16));
    gex_VIS_SetPeerCompletionHandler(PC_HIDX, &note, sizeof note, 0);
    ptrdiff_t st = (ptrdiff_t)(2 * a), lst = (ptrdiff_t)a;
    size_t cnt = c;
    uint8_t got[PC_MAXB];
    CHECK_EQ(gex_VIS_StridedGetBlocking(test_tm, got, &lst, right, rseg + AREA, &st, a, &cnt, 1, 0), 0);
    CHECK_EQ(gex_VIS_StridedPutBlocking(test_tm, right, rseg + off, &st, data, &lst, a, &cnt, 1, 0), 0);
    TEST_POLL_UNTIL(pc_got[PC_OPS + 1], 30, "the last peer completion never arrived");
    for (uint32_t j = 0; j < PC_OPS; j++)
        TEST_POLL_UNTIL(pc_got[j], 30, "peer completion %u never arrived", j);
    test_barrier();
    double t0 = test_now();
    while (test_now() - t0 < 0.05) gasnet_AMPoll(); /* let a wrong extra notification show up */
    CHECK(!pc_bad_note);
    for (uint32_t j = 0; j < PC_OPS + 2; j++)
        CHECKF(pc_got[j] == (j == PC_OPS ? 0 : 1), "peer completion %u ran %d times", j, pc_got[j]);
    n_ops += PC_OPS + 3;
}

int main(int argc, char **argv) {
    test_init("test_vis", &argc, &argv);
    right = (test_rank + 1) % test_size;
    gex_Segment_t seg = test_attach(2 * AREA);
    myseg = (uint8_t *)gex_Segment_QueryAddr(seg);
    void *own = NULL;
    uintptr_t rsz = 0;
    CHECK_EQ(gex_Segment_QueryBound(test_tm, right, &own, NULL, &rsz), 0);
    CHECK(rsz >= 2 * AREA);
    rseg = (uint8_t *)own;
    src = malloc(AREA); dst = malloc(AREA); expect = malloc(AREA);
    refP = malloc(AREA); refG = malloc(AREA); verify = malloc(AREA);
    CHECK(src && dst && expect && refP && refG && verify);
    rng ^= test_rank;
    /* my P starts zero (the left neighbor's reference assumes it), my G holds my pattern */
    memset(myseg, 0, AREA);
    test_pat_fill(myseg + AREA, AREA, 0xC0FFEE00ull + test_rank);
    memset(refP, 0, AREA);
    test_pat_fill(refG, AREA, 0xC0FFEE00ull + right);
    test_pat_fill(src, AREA, 0x5EED0000ull + test_rank);
    memset(dst, 0x3C, AREA);
    memset(expect, 0x3C, AREA);
    test_barrier();

    test_strided();
    test_vector();
    test_indexed();
    test_legacy_forms();
    /* the whole of both areas, once, against the references */
    check_put(0, AREA, "final contents of the right neighbor's area");
    check_get(0, AREA, "final contents of the local get buffer");
    test_peer_completion();
    test_finish("%ld VIS operations (gex_VIS_* and the GASNet-1 forms), GASNET_RMA_NBRHD_BYPASS=%s, "
                "GASNET_VIS_AMPIPE=%s", n_ops,
                getenv("GASNET_RMA_NBRHD_BYPASS") ? getenv("GASNET_RMA_NBRHD_BYPASS") : "(unset)",
                getenv("GASNET_VIS_AMPIPE") ? getenv("GASNET_VIS_AMPIPE") : "(unset)");
}
