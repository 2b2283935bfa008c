/* tests/unit/test_format.c: the formatting helpers of gasnet_tools.h (gasnett_format_*,
 * gasnet_core/gasnett_format.c), called directly (single process, no job):
 *   - the exact text for known inputs (docs/tools.md "Formatting helpers");
 *   - a NULL buffer returns the length the same call writes (= strlen of the text);
 *   - each _bufsz holds the worst case (the widest numbers, pointers and ranks, lists of
 *     0..64 entries): the text plus its NUL fits, and canary bytes after the buffer of
 *     exactly _bufsz bytes are untouched.
 * Built twice: against the smp library with gasnetex.h (every helper), and with
 * -DTEST_FORMAT_TOOLS_ONLY against libgasnet_tools-par.a with gasnet_tools.h alone (the
 * helpers of plain C types, which tools-only clients get).  Layer: tests (unit). */
#ifdef TEST_FORMAT_TOOLS_ONLY
#  include <gasnet_tools.h>
#  ifdef GASNETEX_H
#    error "the tools-only build must not see gasnetex.h"
#  endif
#  ifdef _GASNETT_FORMAT_GEX_DECLARED
#    error "the helpers of gex types are declared only with gasnetex.h"
#  endif
#  define TEST_NAME "test_format_lite"
#else
#  include <gasnet_tools.h> /* first, then gasnetex.h: the gex helpers must still be declared */
#  include <gasnetex.h>
#  ifndef _GASNETT_FORMAT_GEX_DECLARED
#    error "gasnetex.h after gasnet_tools.h must declare the helpers of gex types"
#  endif
#  define TEST_NAME "test_format"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CANARY 32
#define CANARY_BYTE 0xA5

#define EXPECT_TEXT(call_with_buf, call_null, want)                                                       \
    do {                                                                                                  \
        char _b[1024];                                                                                    \
        memset(_b, CANARY_BYTE, sizeof _b);                                                               \
        size_t _n = call_with_buf;                                                                        \
        size_t _m = call_null;                                                                            \
        checks++;                                                                                         \
        if (strcmp(_b, (want)) != 0 || _n != strlen(want) || _m != _n) {                                  \
            fprintf(stderr, TEST_NAME ": FAILED at line %d: %s\n  wrote '%s' (returned %zu, NULL buffer %zu)\n" \
                    "  want  '%s' (%zu)\n", __LINE__, #call_with_buf, _b, _n, _m, (want), strlen(want));     \
            failures++;                                                                                   \
        }                                                                                                 \
    } while (0)

/* the call wrote into a buffer of bufsz bytes followed by CANARY bytes: the text and its
 * NUL fit, nothing after bufsz changed, the result is strlen, and equals the NULL call's */
static void check_fit(int line, const char *what, const unsigned char *b, size_t bufsz, size_t n, size_t m) {
    checks++;
    int canary_ok = 1;
    for (size_t i = 0; i < CANARY; i++) canary_ok &= b[bufsz + i] == CANARY_BYTE;
    size_t len = strnlen((const char *)b, bufsz + CANARY);
    if (!canary_ok || len >= bufsz || n != len || m != n) {
        fprintf(stderr, TEST_NAME ": FAILED at line %d (%s): bufsz %zu, text length %zu, returned %zu, "
                        "NULL buffer %zu, canary %s\n", line, what, bufsz, len, n, m, canary_ok ? "intact" : "OVERWRITTEN");
        failures++;
    }
}
#define FIT(bufsz_expr, call_buf, call_null, what)                                     \
    do {                                                                               \
        size_t _sz = (bufsz_expr);                                                     \
        unsigned char *_b = (unsigned char *)malloc(_sz + CANARY);                     \
        memset(_b, CANARY_BYTE, _sz + CANARY);                                         \
        char *buf = (char *)_b;                                                        \
        size_t _n = call_buf;                                                          \
        size_t _m = call_null;                                                         \
        check_fit(__LINE__, what, _b, _sz, _n, _m);                                    \
        free(_b);                                                                      \
    } while (0)

#define NMAX 64
static void *worst_addrs[NMAX];
static size_t worst_sizes[NMAX];

static void check_plain(void) {
    void *addrs[2] = {(void *)(uintptr_t)0x1000, (void *)(uintptr_t)0xabc0};
    EXPECT_TEXT(gasnett_format_addrlist(_b, 2, addrs, 8), gasnett_format_addrlist(NULL, 2, addrs, 8),
                "count=2 len=8 total=16 [0x1000 0xabc0]");
    EXPECT_TEXT(gasnett_format_addrlist(_b, 0, NULL, 8), gasnett_format_addrlist(NULL, 0, NULL, 8),
                "count=0 len=8 total=0 []");
    void *nul[1] = {NULL};
    EXPECT_TEXT(gasnett_format_addrlist(_b, 1, nul, 0), gasnett_format_addrlist(NULL, 1, nul, 0),
                "count=1 len=0 total=0 [0x0]");
    EXPECT_TEXT(gasnett_format_addrlist(_b, 2, addrs, SIZE_MAX), gasnett_format_addrlist(NULL, 2, addrs, SIZE_MAX),
                sizeof(size_t) == 8 ? "count=2 len=18446744073709551615 total=overflow [0x1000 0xabc0]"
                                    : "count=2 len=4294967295 total=overflow [0x1000 0xabc0]");
    size_t str[3] = {1, 22, 333};
    EXPECT_TEXT(gasnett_format_strides(_b, 3, str), gasnett_format_strides(NULL, 3, str), "[1 22 333]");
    EXPECT_TEXT(gasnett_format_strides(_b, 0, NULL), gasnett_format_strides(NULL, 0, NULL), "[]");

    for (size_t n = 0; n <= NMAX; n = n ? n * 2 : 1) {
        FIT(gasnett_format_addrlist_bufsz(n), gasnett_format_addrlist(buf, n, worst_addrs, SIZE_MAX),
            gasnett_format_addrlist(NULL, n, worst_addrs, SIZE_MAX), "addrlist, widest");
        FIT(gasnett_format_addrlist_bufsz(n), gasnett_format_addrlist(buf, n, worst_addrs, 1),
            gasnett_format_addrlist(NULL, n, worst_addrs, 1), "addrlist, total without overflow");
        FIT(gasnett_format_strides_bufsz(n), gasnett_format_strides(buf, n, worst_sizes),
            gasnett_format_strides(NULL, n, worst_sizes), "strides, widest");
    }
}

#ifndef TEST_FORMAT_TOOLS_ONLY
static ptrdiff_t worst_strides[NMAX];
static gex_Memvec_t worst_memvecs[NMAX];

static void check_names(void) {
    EXPECT_TEXT(gasnett_format_dt(_b, GEX_DT_I32), gasnett_format_dt(NULL, GEX_DT_I32), "GEX_DT_I32");
    EXPECT_TEXT(gasnett_format_dt(_b, GEX_DT_U64), gasnett_format_dt(NULL, GEX_DT_U64), "GEX_DT_U64");
    EXPECT_TEXT(gasnett_format_dt(_b, GEX_DT_DBL), gasnett_format_dt(NULL, GEX_DT_DBL), "GEX_DT_DBL");
    EXPECT_TEXT(gasnett_format_dt(_b, GEX_DT_USER), gasnett_format_dt(NULL, GEX_DT_USER), "GEX_DT_USER");
    EXPECT_TEXT(gasnett_format_dt(_b, 0), gasnett_format_dt(NULL, 0), "0");
    EXPECT_TEXT(gasnett_format_op(_b, GEX_OP_FADD), gasnett_format_op(NULL, GEX_OP_FADD), "GEX_OP_FADD");
    EXPECT_TEXT(gasnett_format_op(_b, GEX_OP_CSWAP), gasnett_format_op(NULL, GEX_OP_CSWAP), "GEX_OP_FCAS");
    EXPECT_TEXT(gasnett_format_op(_b, GEX_OP_USER_NC), gasnett_format_op(NULL, GEX_OP_USER_NC), "GEX_OP_USER_NC");
    EXPECT_TEXT(gasnett_format_op(_b, GEX_OP_ADD | GEX_OP_FADD | GEX_OP_GET),
                gasnett_format_op(NULL, GEX_OP_ADD | GEX_OP_FADD | GEX_OP_GET), "GEX_OP_ADD|GEX_OP_FADD|GEX_OP_GET");
    EXPECT_TEXT(gasnett_format_ti(_b, GEX_TI_ALL), gasnett_format_ti(NULL, GEX_TI_ALL),
                "GEX_TI_SRCRANK|GEX_TI_EP|GEX_TI_ENTRY|GEX_TI_IS_REQ|GEX_TI_IS_LONG");
    EXPECT_TEXT(gasnett_format_ti(_b, GEX_TI_EP | GEX_TI_IS_LONG), gasnett_format_ti(NULL, GEX_TI_EP | GEX_TI_IS_LONG),
                "GEX_TI_EP|GEX_TI_IS_LONG");
    EXPECT_TEXT(gasnett_format_ti(_b, 0), gasnett_format_ti(NULL, 0), "0");
    /* bits with no name: after the names, in hex */
    gex_TI_t stray = (gex_TI_t)1u << 31;
    if (!(stray & GEX_TI_ALL))
        EXPECT_TEXT(gasnett_format_ti(_b, GEX_TI_SRCRANK | stray), gasnett_format_ti(NULL, GEX_TI_SRCRANK | stray),
                    "GEX_TI_SRCRANK|0x80000000");
    gex_DT_t all_dt = GEX_DT_I32 | GEX_DT_U32 | GEX_DT_I64 | GEX_DT_U64 | GEX_DT_FLT | GEX_DT_DBL | GEX_DT_USER;
    if (!((gex_DT_t)1u << 31 & all_dt))
        EXPECT_TEXT(gasnett_format_dt(_b, (gex_DT_t)1u << 31), gasnett_format_dt(NULL, (gex_DT_t)1u << 31), "0x80000000");
    /* every bit set: the NULL length is what a call writes, and exactly that is written */
    size_t n = gasnett_format_op(NULL, 0xFFFFFFFFu);
    FIT(n + 1, gasnett_format_op(buf, 0xFFFFFFFFu), gasnett_format_op(NULL, 0xFFFFFFFFu), "op, every bit");
    n = gasnett_format_dt(NULL, 0xFFFFFFFFu);
    FIT(n + 1, gasnett_format_dt(buf, 0xFFFFFFFFu), gasnett_format_dt(NULL, 0xFFFFFFFFu), "dt, every bit");
    n = gasnett_format_ti(NULL, 0xFFFFFFFFu);
    FIT(n + 1, gasnett_format_ti(buf, 0xFFFFFFFFu), gasnett_format_ti(NULL, 0xFFFFFFFFu), "ti, every bit");
}

static void check_vis(void) {
    gex_TM_t tm = (gex_TM_t)(uintptr_t)0x40;
    gex_Memvec_t mv[2] = {{(void *)(uintptr_t)0x1000, 8}, {(void *)(uintptr_t)0x2000, 16}};
    EXPECT_TEXT(gasnett_format_memveclist(_b, 2, mv), gasnett_format_memveclist(NULL, 2, mv),
                "count=2 total=24 [(0x1000,8) (0x2000,16)]");
    EXPECT_TEXT(gasnett_format_memveclist(_b, 0, NULL), gasnett_format_memveclist(NULL, 0, NULL), "count=0 total=0 []");
    EXPECT_TEXT(gasnett_format_putvgetv(_b, tm, 3, 1, mv, 2, mv), gasnett_format_putvgetv(NULL, tm, 3, 1, mv, 2, mv),
                "tm=0x40 rank=3 dst: count=1 total=8 [(0x1000,8)] src: count=2 total=24 [(0x1000,8) (0x2000,16)]");
    void *a[2] = {(void *)(uintptr_t)0x1000, (void *)(uintptr_t)0x3000};
    EXPECT_TEXT(gasnett_format_putigeti(_b, tm, 0, 2, a, 4, 1, a + 1, 8),
                gasnett_format_putigeti(NULL, tm, 0, 2, a, 4, 1, a + 1, 8),
                "tm=0x40 rank=0 dst: count=2 len=4 total=8 [0x1000 0x3000] src: count=1 len=8 total=8 [0x3000]");
    ptrdiff_t ds[2] = {32, 64}, ss[2] = {-32, -64};
    size_t cnt[2] = {4, 2};
    void *dst = (void *)(uintptr_t)0x1000, *src = (void *)(uintptr_t)0x2000;
    EXPECT_TEXT(gasnett_format_putsgets(_b, NULL, tm, 7, dst, ds, src, ss, 8, cnt, 2),
                gasnett_format_putsgets(NULL, NULL, tm, 7, dst, ds, src, ss, 8, cnt, 2),
                "tm=0x40 rank=7 dst=0x1000 dststrides=[32 64] src=0x2000 srcstrides=[-32 -64] elemsz=8 count=[4 2] total=64");
    /* stridelevels 0: a contiguous copy of elemsz bytes, the arrays unread (NULL here) */
    EXPECT_TEXT(gasnett_format_putsgets(_b, NULL, tm, 7, dst, NULL, src, NULL, 8, NULL, 0),
                gasnett_format_putsgets(NULL, NULL, tm, 7, dst, NULL, src, NULL, 8, NULL, 0),
                "tm=0x40 rank=7 dst=0x1000 dststrides=[] src=0x2000 srcstrides=[] elemsz=8 count=[] total=8");
    /* elemsz 0: a no-op, the arrays unread whatever stridelevels says */
    EXPECT_TEXT(gasnett_format_putsgets(_b, NULL, tm, 7, dst, NULL, src, NULL, 0, NULL, 5),
                gasnett_format_putsgets(NULL, NULL, tm, 7, dst, NULL, src, NULL, 0, NULL, 5),
                "tm=0x40 rank=7 dst=0x1000 dststrides=[] src=0x2000 srcstrides=[] elemsz=0 count=[] total=0");
    size_t huge[2] = {SIZE_MAX, 2}, zero[2] = {SIZE_MAX, 0};
    EXPECT_TEXT(gasnett_format_putsgets(_b, NULL, tm, 1, dst, ds, src, ss, 1, huge + 1, 1),
                gasnett_format_putsgets(NULL, NULL, tm, 1, dst, ds, src, ss, 1, huge + 1, 1),
                "tm=0x40 rank=1 dst=0x1000 dststrides=[32] src=0x2000 srcstrides=[-32] elemsz=1 count=[2] total=2");
    char want[256];
    snprintf(want, sizeof want, "tm=0x40 rank=1 dst=0x1000 dststrides=[32 64] src=0x2000 srcstrides=[-32 -64] "
             "elemsz=4 count=[%zu 2] total=overflow", (size_t)SIZE_MAX);
    EXPECT_TEXT(gasnett_format_putsgets(_b, NULL, tm, 1, dst, ds, src, ss, 4, huge, 2),
                gasnett_format_putsgets(NULL, NULL, tm, 1, dst, ds, src, ss, 4, huge, 2), want);
    snprintf(want, sizeof want, "tm=0x40 rank=1 dst=0x1000 dststrides=[32 64] src=0x2000 srcstrides=[-32 -64] "
             "elemsz=4 count=[%zu 0] total=0", (size_t)SIZE_MAX);
    EXPECT_TEXT(gasnett_format_putsgets(_b, NULL, tm, 1, dst, ds, src, ss, 4, zero, 2),
                gasnett_format_putsgets(NULL, NULL, tm, 1, dst, ds, src, ss, 4, zero, 2), want);

    /* the widest of everything, 0..64 entries */
    gex_TM_t wtm = (gex_TM_t)(uintptr_t)UINTPTR_MAX;
    void *wp = (void *)(uintptr_t)UINTPTR_MAX;
    for (size_t n = 0; n <= NMAX; n = n ? n * 2 : 1) {
        FIT(gasnett_format_memveclist_bufsz(n), gasnett_format_memveclist(buf, n, worst_memvecs),
            gasnett_format_memveclist(NULL, n, worst_memvecs), "memveclist, widest");
        for (size_t m = 0; m <= n; m += n ? n / 2 + (n == 1) : 1) {
            FIT(gasnett_format_putvgetv_bufsz(n, m),
                gasnett_format_putvgetv(buf, wtm, GEX_RANK_INVALID, n, worst_memvecs, m, worst_memvecs),
                gasnett_format_putvgetv(NULL, wtm, GEX_RANK_INVALID, n, worst_memvecs, m, worst_memvecs),
                "putvgetv, widest");
            FIT(gasnett_format_putigeti_bufsz(n, m),
                gasnett_format_putigeti(buf, wtm, GEX_RANK_INVALID, n, worst_addrs, SIZE_MAX, m, worst_addrs, SIZE_MAX),
                gasnett_format_putigeti(NULL, wtm, GEX_RANK_INVALID, n, worst_addrs, SIZE_MAX, m, worst_addrs, SIZE_MAX),
                "putigeti, widest");
        }
        FIT(gasnett_format_putsgets_bufsz(n),
            gasnett_format_putsgets(buf, NULL, wtm, GEX_RANK_INVALID, wp, worst_strides, wp, worst_strides, SIZE_MAX,
                                    worst_sizes, n),
            gasnett_format_putsgets(NULL, NULL, wtm, GEX_RANK_INVALID, wp, worst_strides, wp, worst_strides, SIZE_MAX,
                                    worst_sizes, n),
            "putsgets, widest");
    }
}
#endif

int main(void) {
    for (int i = 0; i < NMAX; i++) {
        worst_addrs[i] = (void *)(uintptr_t)UINTPTR_MAX;
        worst_sizes[i] = SIZE_MAX;
#ifndef TEST_FORMAT_TOOLS_ONLY
        worst_strides[i] = PTRDIFF_MIN;
        worst_memvecs[i].gex_addr = (void *)(uintptr_t)UINTPTR_MAX;
        worst_memvecs[i].gex_len = SIZE_MAX;
#endif
    }
    check_plain();
#ifndef TEST_FORMAT_TOOLS_ONLY
    check_names();
    check_vis();
#endif
    if (failures) {
        fprintf(stderr, TEST_NAME ": %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf(TEST_NAME ": PASS %d checks\n", checks);
    return 0;
}
