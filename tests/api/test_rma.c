/* tests/api/test_rma.c: gex_RMA_{Put,Get}{Blocking,NB,NBI} from 1 byte to 8 MiB (powers of
 * two and odd sizes) at unaligned offsets, every lc_opt, local buffers inside and outside
 * the segment (and read-only ones for puts), guard bytes around every transfer,
 * gex_Event_{Test,Wait}{,All,Some}, gex_NBI_{Test,Wait} by category, and a sweep of every
 * neighbor's whole segment.
 * Layer: tests (public API only).  Run with 1, 2, 4 ranks, and again with
 * GASNET_RMA_NBRHD_BYPASS=0 (the AM-based reference protocol). */
#include "test_util.h"
#include <sys/mman.h>

#define MAXSZ_DEFAULT ((size_t)8 << 20)
#define SEG_CAP ((uintptr_t)64 << 20)
#define GUARD 16
#define PAD (2 * GASNET_PAGESIZE)
#define WAIT_SECS 60

static size_t maxsz;          /* largest transfer */
static size_t region;         /* maxsz + PAD */
static uint8_t *myseg;
static uintptr_t mysegsz;
static gex_Rank_t right, left;
static uint8_t *seg_right;    /* right neighbor's segment (owner address) */
static uintptr_t segsz_right;
/* my segment: [A: written by me as "self" target][B: written by my left neighbor]
 *             [S: in-segment source][D: in-segment get destination] */
static uint8_t *regA, *regB, *regS, *regD;
static uint8_t *heapS, *heapD, *verify;
static long n_xfers;

enum { KIND_SELF = 0, KIND_RIGHT = 1 };
static gex_Rank_t kind_rank(int kind) { return kind == KIND_SELF ? test_rank : right; }
/* address (in the owner's space) of the start of the target region for a kind */
static uint8_t *kind_base(int kind) {
    return kind == KIND_SELF ? regA : seg_right + (size_t)(regB - myseg);
}
static size_t doff(size_t s, int kind) { return 64 + (s * 3 + (size_t)kind * 5) % 61; }
static size_t soff(size_t s) { return GUARD + (s * 5 + 1) % 47; }

static uint64_t seedP(gex_Rank_t from, gex_Rank_t to, size_t s, int v) {
    return test_mix64(0x9E700000ull ^ ((uint64_t)from << 48) ^ ((uint64_t)to << 32) ^ ((uint64_t)v << 28) ^ s);
}
static uint64_t seedG(gex_Rank_t from, gex_Rank_t to, size_t s) { return seedP(from, to, s, 15); }
static uint64_t seedGuard(gex_Rank_t from, size_t s) { return seedP(from, from, s, 14); }

static void wait_event_polling(gex_Event_t ev, const char *what) {
    TEST_POLL_UNTIL(gex_Event_Test(ev) == 0, WAIT_SECS, "%s: event never completed", what);
}
static void nbi_wait_polling(gex_EC_t ec, const char *what) {
    TEST_POLL_UNTIL(gex_NBI_Test(ec, 0) == 0, WAIT_SECS, "%s: NBI operations never completed", what);
}
static void invert(uint8_t *p, size_t n) { for (size_t i = 0; i < n; i++) p[i] = (uint8_t)~p[i]; }

/* read back [dst-GUARD, dst+s+GUARD) at rank r: guards intact, body matches seed */
static void verify_remote(gex_Rank_t r, uint8_t *dst, size_t s, uint64_t seed, const char *what) {
    memset(verify, 0xC3, s + 2 * GUARD);
    CHECK_EQ(gex_RMA_GetBlocking(test_tm, verify, r, dst - GUARD, s + 2 * GUARD, 0), 0);
    uint8_t g[GUARD];
    test_pat_fill(g, GUARD, seedGuard(test_rank, s));
    CHECKF(memcmp(verify, g, GUARD) == 0, "%s: the %d bytes before the target were modified", what, GUARD);
    test_pat_fill(g, GUARD, seedGuard(test_rank, s) + 1);
    CHECKF(memcmp(verify + GUARD + s, g, GUARD) == 0, "%s: the %d bytes after the target were modified", what, GUARD);
    CHECK_PAT(verify + GUARD, s, seed, "%s", what);
}
static void put_guards(gex_Rank_t r, uint8_t *dst, size_t s) {
    uint8_t g[GUARD];
    test_pat_fill(g, GUARD, seedGuard(test_rank, s));
    CHECK_EQ(gex_RMA_PutBlocking(test_tm, r, dst - GUARD, g, GUARD, 0), 0);
    test_pat_fill(g, GUARD, seedGuard(test_rank, s) + 1);
    CHECK_EQ(gex_RMA_PutBlocking(test_tm, r, dst + s, g, GUARD, 0), 0);
}

static const char *const put_name[7] = { "PutBlocking", "PutNB(NOW)", "PutNB(DEFER)", "PutNB(&event)",
                                         "PutNBI(NOW)", "PutNBI(DEFER)", "PutNBI(GROUP)" };

static void do_put(int v, int kind, size_t s) {
    const gex_Rank_t r = kind_rank(kind);
    uint8_t *dst = kind_base(kind) + doff(s, kind);
    const int in_seg = (int)((s + (size_t)v) & 1);
    uint8_t *src = (in_seg ? regS : heapS) + soff(s);
    const uint64_t seed = seedP(test_rank, r, s, v);
    char what[200];
    snprintf(what, sizeof what, "%s of %zu bytes to rank %u (dst offset %zu, %s source offset %zu)", put_name[v], s,
             (unsigned)r, (size_t)(dst - kind_base(kind)), in_seg ? "in-segment" : "heap", soff(s));
    put_guards(r, dst, s);
    test_pat_fill(src, s, seed);
    gex_Event_t ev = GEX_EVENT_NO_OP, lc = GEX_EVENT_NO_OP;
    switch (v) {
    case 0:
        CHECKF(gex_RMA_PutBlocking(test_tm, r, dst, src, s, 0) == 0, "%s", what);
        invert(src, s);
        break;
    case 1:
        ev = gex_RMA_PutNB(test_tm, r, dst, src, s, GEX_EVENT_NOW, 0);
        CHECKF(ev != GEX_EVENT_NO_OP, "%s returned NO_OP", what);
        invert(src, s); /* NOW: locally complete at return */
        if (s & 1) gex_Event_Wait(ev); else wait_event_polling(ev, what);
        break;
    case 2:
        ev = gex_RMA_PutNB(test_tm, r, dst, src, s, GEX_EVENT_DEFER, 0);
        CHECKF(ev != GEX_EVENT_NO_OP, "%s returned NO_OP", what);
        if (s & 1) wait_event_polling(ev, what); else gex_Event_Wait(ev);
        invert(src, s);
        break;
    case 3:
        ev = gex_RMA_PutNB(test_tm, r, dst, src, s, &lc, 0);
        CHECKF(ev != GEX_EVENT_NO_OP && lc != GEX_EVENT_NO_OP, "%s: events not set", what);
        if (s & 2) gex_Event_Wait(lc); else wait_event_polling(lc, what);
        invert(src, s); /* locally complete: the source may change, the put must not */
        if (s & 1) gex_Event_Wait(ev); else wait_event_polling(ev, what);
        break;
    case 4:
        CHECKF(gex_RMA_PutNBI(test_tm, r, dst, src, s, GEX_EVENT_NOW, 0) == 0, "%s", what);
        invert(src, s);
        if (s & 1) gex_NBI_Wait(GEX_EC_PUT, 0); else nbi_wait_polling(GEX_EC_PUT, what);
        break;
    case 5:
        CHECKF(gex_RMA_PutNBI(test_tm, r, dst, src, s, GEX_EVENT_DEFER, 0) == 0, "%s", what);
        if (s & 1) gex_NBI_Wait(GEX_EC_ALL, 0); else nbi_wait_polling(GEX_EC_PUT, what);
        invert(src, s);
        break;
    case 6:
        CHECKF(gex_RMA_PutNBI(test_tm, r, dst, src, s, GEX_EVENT_GROUP, 0) == 0, "%s", what);
        if (s & 2) gex_NBI_Wait(GEX_EC_LC, 0); else nbi_wait_polling(GEX_EC_LC, what);
        invert(src, s);
        if (s & 1) gex_NBI_Wait(GEX_EC_PUT, 0); else nbi_wait_polling(GEX_EC_ALL, what);
        break;
    }
    verify_remote(r, dst, s, seed, what);
    n_xfers++;
}

static const char *const get_name[3] = { "GetBlocking", "GetNB", "GetNBI" };

static void do_get(int v, int kind, size_t s) {
    const gex_Rank_t r = kind_rank(kind);
    uint8_t *src = kind_base(kind) + doff(s, kind); /* holds seedG(me, r, s), put there by the caller */
    const int in_seg = (int)((s + (size_t)v) & 1);
    uint8_t *dst = (in_seg ? regD : heapD) + soff(s);
    char what[200];
    snprintf(what, sizeof what, "%s of %zu bytes from rank %u into a %s buffer (offset %zu)", get_name[v], s,
             (unsigned)r, in_seg ? "in-segment" : "heap", soff(s));
    /* stale contents and guards that the get must not touch */
    test_pat_fill(dst - GUARD, s + 2 * GUARD, seedG(test_rank, r, s) ^ 0xFFull);
    switch (v) {
    case 0:
        CHECKF(gex_RMA_GetBlocking(test_tm, dst, r, src, s, 0) == 0, "%s", what);
        break;
    case 1: {
        gex_Event_t ev = gex_RMA_GetNB(test_tm, dst, r, src, s, 0);
        CHECKF(ev != GEX_EVENT_NO_OP, "%s returned NO_OP", what);
        if (s & 1) gex_Event_Wait(ev); else wait_event_polling(ev, what);
        break;
    }
    case 2:
        CHECKF(gex_RMA_GetNBI(test_tm, dst, r, src, s, 0) == 0, "%s", what);
        if (s & 1) gex_NBI_Wait(GEX_EC_GET, 0); else nbi_wait_polling(GEX_EC_GET, what);
        break;
    }
    CHECK_PAT(dst, s, seedG(test_rank, r, s), "%s", what);
    uint8_t g[GUARD];
    test_pat_fill(g, GUARD, seedG(test_rank, r, s) ^ 0xFFull); /* first GUARD bytes of the stale stream */
    CHECKF(memcmp(dst - GUARD, g, GUARD) == 0, "%s: wrote before the destination", what);
    for (size_t i = 0; i < GUARD; i++)
        CHECKF(dst[s + i] == test_pat(seedG(test_rank, r, s) ^ 0xFFull, GUARD + s + i),
               "%s: wrote past the end of the destination (byte +%zu)", what, i);
    n_xfers++;
}

static size_t make_sizes(size_t *out) {
    size_t n = 0;
    for (size_t p = 1; p <= maxsz; p *= 2) out[n++] = p;
    static const size_t odd[] = { 3, 5, 7, 13, 31, 63, 100, 255, 257, 1000, 1023, 4097, 65535, 65537, 100003,
                                  1048575, 1048577, 4194305, 8388607 };
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++)
        if (odd[i] <= maxsz) out[n++] = odd[i];
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
            size_t t = out[j]; out[j] = out[j - 1]; out[j - 1] = t;
        }
    return n;
}

static void test_sizes(void) {
    size_t sizes[64];
    size_t ns = make_sizes(sizes);
    for (size_t i = 0; i < ns; i++) {
        const size_t s = sizes[i];
        for (int kind = 0; kind < 2; kind++) {
            for (int v = 0; v < 7; v++) do_put(v, kind, s);
            /* known contents, then every kind of get */
            const gex_Rank_t r = kind_rank(kind);
            uint8_t *dst = kind_base(kind) + doff(s, kind);
            put_guards(r, dst, s);
            test_pat_fill(heapS, s, seedG(test_rank, r, s));
            CHECK_EQ(gex_RMA_PutBlocking(test_tm, r, dst, heapS, s, 0), 0);
            for (int v = 0; v < 3; v++) do_get(v, kind, s);
        }
        /* the data really is in the target's memory: check mine with plain loads */
        test_barrier();
        CHECK_PAT(regA + doff(s, KIND_SELF), s, seedG(test_rank, test_rank, s), "region written by myself, %zu bytes", s);
        CHECK_PAT(regB + doff(s, KIND_RIGHT), s, seedG(left, test_rank, s),
                  "region written by my left neighbor (rank %u), %zu bytes", (unsigned)left, s);
        test_barrier(); /* before anyone overwrites them */
    }
}

/* ---- event arrays and NBI categories ---- */
#define NOPS 48
#define CHUNK 1000
static void check_chunk(const uint8_t *dst, int k, uint64_t base, const char *what) {
    CHECK_PAT(dst + (size_t)k * CHUNK, CHUNK - (size_t)k, base + (uint64_t)k, "%s, op %d", what, k);
}

static void test_events(void) {
    /* degenerate cases */
    CHECK_EQ(gex_Event_Test(GEX_EVENT_INVALID), 0);
    gex_Event_Wait(GEX_EVENT_INVALID);
    gex_Event_t inv[4] = { GEX_EVENT_INVALID, GEX_EVENT_INVALID, GEX_EVENT_INVALID, GEX_EVENT_INVALID };
    CHECK_EQ(gex_Event_TestAll(inv, 4, 0), 0);
    CHECK_EQ(gex_Event_TestSome(inv, 4, 0), 0);
    gex_Event_WaitAll(inv, 4, 0);
    gex_Event_WaitSome(inv, 4, 0);
    CHECK_EQ(gex_Event_TestAll(inv, 0, 0), 0);
    CHECK_EQ(gex_Event_TestSome(inv, 0, 0), 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), 0);
    CHECK_EQ(gex_NBI_Test(GEX_EC_GET, 0), 0);
    CHECK_EQ(gex_NBI_Test(GEX_EC_PUT, 0), 0);

    /* source data: region B of the right neighbor (I am its only writer) */
    const gex_Rank_t r = right;
    uint8_t *rbase = kind_base(KIND_RIGHT) + 64;
    const uint64_t gbase = seedP(test_rank, r, 0, 13);
    for (int k = 0; k < NOPS; k++) {
        test_pat_fill(heapS, CHUNK - (size_t)k, gbase + (uint64_t)k);
        CHECK_EQ(gex_RMA_PutBlocking(test_tm, r, rbase + (size_t)k * CHUNK, heapS, CHUNK - (size_t)k, 0), 0);
    }
    gex_Event_t evs[2 * NOPS];
    for (int mode = 0; mode < 4; mode++) {
        static const char *const mname[4] = { "gex_Event_WaitAll", "gex_Event_TestAll", "gex_Event_WaitSome",
                                              "gex_Event_TestSome" };
        uint8_t *dst = (mode & 1) ? regD : heapD;
        memset(dst, 0, (size_t)NOPS * CHUNK);
        for (int k = 0; k < NOPS; k++) {
            evs[2 * k] = GEX_EVENT_INVALID; /* interleaved INVALID entries are ignored */
            evs[2 * k + 1] = gex_RMA_GetNB(test_tm, dst + (size_t)k * CHUNK, r, rbase + (size_t)k * CHUNK,
                                           CHUNK - (size_t)k, 0);
            CHECK(evs[2 * k + 1] != GEX_EVENT_NO_OP);
        }
        double t0 = test_now();
        if (mode == 0) {
            gex_Event_WaitAll(evs, 2 * NOPS, 0);
        } else if (mode == 1) {
            while (gex_Event_TestAll(evs, 2 * NOPS, 0) != 0) {
                gasnet_AMPoll();
                CHECKF(test_now() - t0 < WAIT_SECS, "%s never succeeded", mname[mode]);
            }
        } else {
            int left_ops = NOPS;
            char seen[NOPS];
            memset(seen, 0, sizeof seen);
            while (left_ops) {
                if (mode == 2) {
                    gex_Event_WaitSome(evs, 2 * NOPS, 0);
                } else {
                    while (gex_Event_TestSome(evs, 2 * NOPS, 0) != 0) {
                        gasnet_AMPoll();
                        CHECKF(test_now() - t0 < WAIT_SECS, "%s never succeeded", mname[mode]);
                    }
                }
                int done_now = 0;
                for (int k = 0; k < NOPS; k++) {
                    CHECKF(evs[2 * k] == GEX_EVENT_INVALID, "%s changed an INVALID slot", mname[mode]);
                    if (evs[2 * k + 1] == GEX_EVENT_INVALID && !seen[k]) {
                        /* completed in this call: its data is there now */
                        check_chunk(dst, k, gbase, mname[mode]);
                        seen[k] = 1;
                        done_now++;
                    }
                }
                CHECKF(done_now > 0, "%s succeeded but no event was completed and set to INVALID", mname[mode]);
                left_ops -= done_now;
            }
        }
        for (int k = 0; k < 2 * NOPS; k++)
            CHECKF(evs[k] == GEX_EVENT_INVALID, "%s: slot %d not INVALID after success", mname[mode], k);
        for (int k = 0; k < NOPS; k++) check_chunk(dst, k, gbase, mname[mode]);
    }

    /* puts with &event local completion: sync the lc leaves, scribble, then the roots */
    {
        gex_Event_t lcs[NOPS], roots[NOPS];
        uint8_t *pdst = rbase + (size_t)NOPS * CHUNK + 64;
        const uint64_t pbase = seedP(test_rank, r, 1, 12);
        for (int k = 0; k < NOPS; k++) {
            test_pat_fill(heapS + (size_t)k * CHUNK, CHUNK - (size_t)k, pbase + (uint64_t)k);
            roots[k] = gex_RMA_PutNB(test_tm, r, pdst + (size_t)k * CHUNK, heapS + (size_t)k * CHUNK,
                                     CHUNK - (size_t)k, &lcs[k], 0);
            CHECK(roots[k] != GEX_EVENT_NO_OP);
        }
        gex_Event_WaitAll(lcs, NOPS, 0);
        for (int k = 0; k < NOPS; k++) CHECK(lcs[k] == GEX_EVENT_INVALID);
        invert(heapS, (size_t)NOPS * CHUNK);
        gex_Event_WaitAll(roots, NOPS, 0);
        for (int k = 0; k < NOPS; k++) CHECK(roots[k] == GEX_EVENT_INVALID);
        CHECK_EQ(gex_RMA_GetBlocking(test_tm, heapD, r, pdst, (size_t)NOPS * CHUNK, 0), 0);
        for (int k = 0; k < NOPS; k++) check_chunk(heapD, k, pbase, "PutNB(&event) batch");
    }

    /* NBI by category: gets complete under GEX_EC_GET, puts under GEX_EC_PUT */
    for (int round = 0; round < 3; round++) {
        uint8_t *pdst = rbase + (size_t)(2 * NOPS) * CHUNK + 128;
        const uint64_t pbase = seedP(test_rank, r, 2 + (size_t)round, 11);
        memset(heapD, 0, (size_t)NOPS * CHUNK);
        for (int k = 0; k < NOPS; k++) {
            test_pat_fill(heapS, CHUNK - (size_t)k, pbase + (uint64_t)k);
            CHECK_EQ(gex_RMA_PutNBI(test_tm, r, pdst + (size_t)k * CHUNK, heapS, CHUNK - (size_t)k, GEX_EVENT_NOW, 0), 0);
            CHECK_EQ(gex_RMA_GetNBI(test_tm, heapD + (size_t)k * CHUNK, r, rbase + (size_t)k * CHUNK, CHUNK - (size_t)k, 0), 0);
        }
        if (round == 0) {
            gex_NBI_Wait(GEX_EC_GET, 0);
            for (int k = 0; k < NOPS; k++) check_chunk(heapD, k, gbase, "GetNBI batch after gex_NBI_Wait(GEX_EC_GET)");
            gex_NBI_Wait(GEX_EC_PUT, 0);
        } else if (round == 1) {
            nbi_wait_polling(GEX_EC_PUT, "PutNBI batch");
            nbi_wait_polling(GEX_EC_GET, "GetNBI batch");
            for (int k = 0; k < NOPS; k++) check_chunk(heapD, k, gbase, "GetNBI batch after gex_NBI_Test(GEX_EC_GET)");
        } else {
            gex_NBI_Wait(GEX_EC_ALL, 0);
            for (int k = 0; k < NOPS; k++) check_chunk(heapD, k, gbase, "GetNBI batch after gex_NBI_Wait(GEX_EC_ALL)");
        }
        CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), 0);
        CHECK_EQ(gex_RMA_GetBlocking(test_tm, heapD, r, pdst, (size_t)NOPS * CHUNK, 0), 0);
        for (int k = 0; k < NOPS; k++) check_chunk(heapD, k, pbase, "PutNBI batch");
    }
    n_xfers += 4 * NOPS + 2 * NOPS + 6 * NOPS;
}

/* every rank writes its right neighbor's entire segment, then checks its own */
#define SWEEP_CHUNK ((size_t)1 << 20)
static void test_sweep(void) {
    const uint64_t base = seedP(test_rank, right, 0, 10);
    for (size_t off = 0, c = 0; off < segsz_right; off += SWEEP_CHUNK, c++) {
        size_t n = segsz_right - off < SWEEP_CHUNK ? segsz_right - off : SWEEP_CHUNK;
        test_pat_fill(heapS, n, base + c);
        CHECK_EQ(gex_RMA_PutNBI(test_tm, right, seg_right + off, heapS, n, GEX_EVENT_NOW, 0), 0);
    }
    gex_NBI_Wait(GEX_EC_PUT, 0);
    test_barrier();
    const uint64_t lbase = seedP(left, test_rank, 0, 10);
    for (size_t off = 0, c = 0; off < mysegsz; off += SWEEP_CHUNK, c++) {
        size_t n = mysegsz - off < SWEEP_CHUNK ? mysegsz - off : SWEEP_CHUNK;
        CHECK_PAT(myseg + off, n, lbase + c, "segment sweep by rank %u: chunk at offset %zu", (unsigned)left, off);
    }
    /* and read the neighbor's whole segment back */
    for (size_t off = 0, c = 0; off < segsz_right; off += SWEEP_CHUNK, c++) {
        size_t n = segsz_right - off < SWEEP_CHUNK ? segsz_right - off : SWEEP_CHUNK;
        gex_Event_t ev = gex_RMA_GetNB(test_tm, heapD, right, seg_right + off, n, 0);
        gex_Event_Wait(ev);
        CHECK_PAT(heapD, n, base + c, "segment sweep read-back from rank %u at offset %zu", (unsigned)right, off);
    }
    test_barrier();
}

/* Puts whose source is read-only memory out of the segment (a const table): a conduit
 * that registers local buffers for the network (ofi on verbs, FI_MR_LOCAL) cannot
 * register such pages for local write and must still send them. */
static void test_readonly(void) {
    size_t n = maxsz < ((size_t)256 << 10) ? maxsz : (size_t)256 << 10;
    size_t len = (n + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    uint8_t *ro = (uint8_t *)mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(ro != MAP_FAILED);
    const uint64_t seed = seedP(test_rank, right, n, 13);
    test_pat_fill(ro, n, seed);
    CHECK_EQ(mprotect(ro, len, PROT_READ), 0);
    static const size_t sizes[] = { 8, 4096, 0 /* n */ };
    uint8_t *dst = kind_base(KIND_RIGHT) + 64;
    for (int i = 0; i < 3; i++) {
        size_t s = sizes[i] ? sizes[i] : n;
        for (int v = 0; v < 3; v++) {
            memset(heapD, 0, s);
            CHECK_EQ(gex_RMA_PutBlocking(test_tm, right, dst, heapD, s, 0), 0); /* clear */
            if (v == 0) {
                CHECK_EQ(gex_RMA_PutBlocking(test_tm, right, dst, ro, s, 0), 0);
            } else if (v == 1) {
                wait_event_polling(gex_RMA_PutNB(test_tm, right, dst, ro, s, GEX_EVENT_DEFER, 0), "PutNB read-only");
            } else {
                CHECK_EQ(gex_RMA_PutNBI(test_tm, right, dst, ro, s, GEX_EVENT_DEFER, 0), 0);
                nbi_wait_polling(GEX_EC_PUT, "PutNBI read-only");
            }
            CHECK_EQ(gex_RMA_GetBlocking(test_tm, heapD, right, dst, s, 0), 0);
            CHECK_PAT(heapD, s, seed, "%s of %zu bytes from read-only memory to rank %u", put_name[v == 0 ? 0 : v == 1 ? 2 : 5],
                      s, (unsigned)right);
            n_xfers += 3;
        }
    }
    CHECK_EQ(munmap(ro, len), 0);
    test_barrier();
}

int main(int argc, char **argv) {
    test_init("test_rma", &argc, &argv);
    right = (test_rank + 1) % test_size;
    left = (test_rank + test_size - 1) % test_size;

    /* segment: min(64 MiB, what the library offers), in whole pages */
    uintptr_t maxlocal = gasnet_getMaxLocalSegmentSize();
    uintptr_t segsz = maxlocal < SEG_CAP ? maxlocal : SEG_CAP;
    segsz = segsz / GASNET_PAGESIZE * GASNET_PAGESIZE;
    maxsz = MAXSZ_DEFAULT;
    while (maxsz > 1 && 4 * (maxsz + PAD) > segsz) maxsz /= 2;
    CHECKF(maxsz == MAXSZ_DEFAULT || getenv("GASNET_MAX_SEGSIZE"),
           "gasnet_getMaxLocalSegmentSize() = %llu leaves room only for %zu-byte transfers (need 8 MiB)",
           (unsigned long long)maxlocal, maxsz);
    region = maxsz + PAD;
    CHECKF(region >= 3 * 48 * 1000 + 4096, "segment of %llu bytes is too small for this test",
           (unsigned long long)segsz);
    gex_Segment_t seg = test_attach(segsz);
    myseg = (uint8_t *)gex_Segment_QueryAddr(seg);
    mysegsz = gex_Segment_QuerySize(seg);
    CHECK_EQ(mysegsz, segsz);
    regA = myseg;
    regB = myseg + region;
    regS = myseg + 2 * region;
    regD = myseg + 3 * region;
    void *own = NULL;
    CHECK_EQ(gex_Segment_QueryBound(test_tm, right, &own, NULL, &segsz_right), 0);
    seg_right = (uint8_t *)own;
    CHECKF(segsz_right >= 4 * region, "right neighbor's segment is %llu bytes", (unsigned long long)segsz_right);
    heapS = (uint8_t *)malloc(region);
    heapD = (uint8_t *)malloc(region);
    verify = (uint8_t *)malloc(region);
    CHECK(heapS && heapD && verify);
    test_barrier();

    test_sizes();
    test_barrier();
    test_events();
    test_barrier();
    test_sweep();
    test_readonly(); /* after the sweep: it writes into the right neighbor's region B */

    const char *bypass = getenv("GASNET_RMA_NBRHD_BYPASS");
    test_finish("%ld transfers of 1..%zu bytes, segment %llu bytes, sweep of %llu bytes, GASNET_RMA_NBRHD_BYPASS=%s",
                n_xfers, maxsz, (unsigned long long)mysegsz, (unsigned long long)segsz_right,
                bypass ? bypass : "(default)");
    return 0;
}
