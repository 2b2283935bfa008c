/* tests/api/test_util.h: small helpers shared by the tests/api programs (header only).
 * Layer: tests.  Every check names itself on failure and ends the whole job non-zero;
 * a check that fails inside an AM handler uses gasnet_exit(), which is legal there. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <gasnetex.h>
#include <gasnet.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(GASNET_PAR)
#  define TEST_MODE "par"
#elif defined(GASNET_PARSYNC)
#  define TEST_MODE "parsync"
#else
#  define TEST_MODE "seq"
#endif

static const char *test_name = "test";
static int test_inited;      /* gex_Client_Init has returned */
static gex_Rank_t test_rank; /* valid once test_inited */
static gex_Rank_t test_size;

#if defined(__GNUC__)
__attribute__((__noreturn__, __format__(__printf__, 4, 5)))
#endif
static void test_fail(const char *file, int line, const char *what, const char *fmt, ...) {
    char msg[1024];
    msg[0] = 0;
    {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
    }
    fflush(stdout);
    if (test_inited)
        fprintf(stderr, "%s: rank %u/%u: FAILED check `%s` at %s:%d%s%s\n", test_name,
                (unsigned)test_rank, (unsigned)test_size, what, file, line, msg[0] ? ": " : "", msg);
    else
        fprintf(stderr, "%s: FAILED check `%s` at %s:%d%s%s\n", test_name, what, file, line,
                msg[0] ? ": " : "", msg);
    fflush(stderr);
    if (test_inited) gasnet_exit(1);
    exit(1);
}

/* CHECK(cond); CHECKF(cond, "fmt", ...) adds details; CHECK_EQ compares two integers. */
#define CHECK(cond) do { if (!(cond)) test_fail(__FILE__, __LINE__, #cond, "%s", ""); } while (0)
#define CHECKF(cond, ...) do { if (!(cond)) test_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); } while (0)
#define CHECK_EQ(a, b) do {                                                                    \
        unsigned long long _ta = (unsigned long long)(a), _tb = (unsigned long long)(b);         \
        if (_ta != _tb) test_fail(__FILE__, __LINE__, #a " == " #b, "%llu (0x%llx) != %llu (0x%llx)", \
                                  _ta, _ta, _tb, _tb);                                         \
    } while (0)

/* ---- job helpers ---- */
static gex_Client_t test_client;
static gex_EP_t test_ep;
static gex_TM_t test_tm;

static void test_init(const char *name, int *argc, char ***argv) {
    test_name = name;
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* a lower-case name, as released clients pass ("upcxx") */
    int rc = gex_Client_Init(&test_client, &test_ep, &test_tm, "gasnet_tests", argc, argv,
                             GEX_FLAG_USES_GASNET1);
    CHECKF(rc == GASNET_OK, "gex_Client_Init returned %d", rc);
    test_rank = gex_TM_QueryRank(test_tm);
    test_size = gex_TM_QuerySize(test_tm);
    test_inited = 1;
}

static void test_barrier(void) {
    gex_Event_t ev = gex_Coll_BarrierNB(test_tm, 0);
    gex_Event_Wait(ev);
}

/* Attach a segment of 'size' bytes (rounded up to GASNET_PAGESIZE). */
static gex_Segment_t test_attach(uintptr_t size) {
    gex_Segment_t seg = GEX_SEGMENT_INVALID;
    size = (size + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    int rc = gex_Segment_Attach(&seg, test_tm, size);
    CHECKF(rc == GASNET_OK, "gex_Segment_Attach(%llu) returned %d", (unsigned long long)size, rc);
    CHECK(seg != GEX_SEGMENT_INVALID);
    return seg;
}

/* The bound segment of team member r as its owner sees it, checked to be `size` bytes. */
static uint8_t *test_bound_seg(gex_TM_t tm, gex_Rank_t r, uintptr_t size) {
    void *owner = NULL;
    uintptr_t got = 0;
    CHECK(gex_Segment_QueryBound(tm, r, &owner, NULL, &got) == 0);
    CHECK_EQ(got, size);
    return owner;
}

/* rank 0 prints the one summary line, then everyone leaves together. */
static void test_finish(const char *fmt, ...) {
    test_barrier();
    if (test_rank == 0) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        printf("%s: PASS [%s, %u ranks] %s\n", test_name, TEST_MODE, (unsigned)test_size, msg);
        fflush(stdout);
    }
    test_barrier();
    gasnet_exit(0);
}

/* ---- deterministic data patterns ---- */
static inline uint64_t test_mix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
/* byte i of the stream named by seed */
static inline uint8_t test_pat(uint64_t seed, size_t i) {
    return (uint8_t)(test_mix64(seed ^ ((uint64_t)(i >> 3) * 0xD6E8FEB86659FD93ull)) >> (8 * (i & 7)));
}
static void test_pat_fill(void *buf, size_t n, uint64_t seed) {
    uint8_t *p = (uint8_t *)buf;
    size_t i = 0;
    while (i < n && (i & 7)) { p[i] = test_pat(seed, i); i++; }
    for (; i + 8 <= n; i += 8) {
        uint64_t w = test_mix64(seed ^ ((uint64_t)(i >> 3) * 0xD6E8FEB86659FD93ull));
        for (int b = 0; b < 8; b++) p[i + b] = (uint8_t)(w >> (8 * b));
    }
    for (; i < n; i++) p[i] = test_pat(seed, i);
}
/* returns the index of the first wrong byte, or (size_t)-1 when all n bytes match */
static size_t test_pat_find_bad(const void *buf, size_t n, uint64_t seed) {
    const uint8_t *p = (const uint8_t *)buf;
    size_t i = 0;
    while (i < n && (i & 7)) { if (p[i] != test_pat(seed, i)) return i; i++; }
    for (; i + 8 <= n; i += 8) {
        uint64_t w = test_mix64(seed ^ ((uint64_t)(i >> 3) * 0xD6E8FEB86659FD93ull));
        for (int b = 0; b < 8; b++)
            if (p[i + b] != (uint8_t)(w >> (8 * b))) return i + b;
    }
    for (; i < n; i++) if (p[i] != test_pat(seed, i)) return i;
    return (size_t)-1;
}
/* CHECK_PAT(buf, n, seed, "what %d", x): every byte of buf matches the stream */
#define CHECK_PAT(buf, n, seed, ...) do {                                                      \
        const uint8_t *_cb = (const uint8_t *)(buf);                                             \
        size_t _cn = (n); uint64_t _cs = (seed);                                                 \
        size_t _bad = test_pat_find_bad(_cb, _cn, _cs);                                          \
        if (_bad != (size_t)-1) {                                                                \
            char _what[400]; snprintf(_what, sizeof _what, __VA_ARGS__);                         \
            test_fail(__FILE__, __LINE__, "payload pattern", "%s: byte %llu of %llu is 0x%02x, expected 0x%02x", \
                      _what, (unsigned long long)_bad, (unsigned long long)_cn, _cb[_bad],        \
                      test_pat(_cs, _bad));                                                      \
        }                                                                                        \
    } while (0)

static double test_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void test_sleep_ms(unsigned ms) {
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    while (nanosleep(&ts, &ts) != 0) { }
}

/* seconds-bounded poll loop for conditions set by handlers, so a lost message is a
 * named failure instead of a hang; GASNET_BLOCKUNTIL is exercised separately. */
#define TEST_POLL_UNTIL(cond, secs, ...) do {                                                   \
        double _t0 = test_now();                                                                 \
        while (!(cond)) {                                                                        \
            gasnet_AMPoll();                                                                     \
            if (test_now() - _t0 > (secs)) test_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);   \
        }                                                                                        \
    } while (0)

#endif
