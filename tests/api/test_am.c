/* tests/api/test_am.c: Active Messages.  Every category (Short/Medium/Long, Request and
 * Reply) with 0..16 arguments, each argument checked in the handler; payloads from 0 to the
 * Max* limits (incl. max and max-1, unaligned source offsets) checked byte by byte; replies
 * of every category from request handlers; lc_opt NOW, &event and GROUP; numbered and
 * variadic forms; the handler-index assignment rule; gex_Token_Info; limit queries;
 * GASNET_BLOCKUNTIL; HSLs; all-to-all floods (with a second polling thread in PAR mode).
 * Layer: tests (public API only).  Run with 1, 2, 4 ranks. */
#include "test_util.h"
#if defined(GASNET_PAR)
#  include <pthread.h>
#endif

enum { CAT_SHORT = 0, CAT_MEDIUM = 1, CAT_LONG = 2 };
static const char *const cat_name[3] = { "Short", "Medium", "Long" };
enum { LC_NOW = 0, LC_EVENT = 1, LC_GROUP = 2 };
static const char *const lc_name[3] = { "NOW", "&event", "GROUP" };
enum { Q_REQ_MED = 0, Q_REP_MED = 1, Q_REQ_LONG = 2, Q_REP_LONG = 3 };

#define MAXARGS 16
#define WAIT_SECS 60

/* parameter lists, value lists and argument lists for 0..16 handler arguments */
#define P_0
#define P_1 , gex_AM_Arg_t a0
#define P_2 , gex_AM_Arg_t a0, gex_AM_Arg_t a1
#define P_3 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2
#define P_4 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3
#define P_5 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4
#define P_6 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5
#define P_7 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6
#define P_8 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7
#define P_9 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8
#define P_10 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9
#define P_11 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9, gex_AM_Arg_t a10
#define P_12 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9, gex_AM_Arg_t a10, gex_AM_Arg_t a11
#define P_13 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9, gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12
#define P_14 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9, gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13
#define P_15 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9, gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13, gex_AM_Arg_t a14
#define P_16 , gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9, gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13, gex_AM_Arg_t a14, gex_AM_Arg_t a15
#define V_0
#define V_1 , a0
#define V_2 , a0, a1
#define V_3 , a0, a1, a2
#define V_4 , a0, a1, a2, a3
#define V_5 , a0, a1, a2, a3, a4
#define V_6 , a0, a1, a2, a3, a4, a5
#define V_7 , a0, a1, a2, a3, a4, a5, a6
#define V_8 , a0, a1, a2, a3, a4, a5, a6, a7
#define V_9 , a0, a1, a2, a3, a4, a5, a6, a7, a8
#define V_10 , a0, a1, a2, a3, a4, a5, a6, a7, a8, a9
#define V_11 , a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10
#define V_12 , a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11
#define V_13 , a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12
#define V_14 , a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13
#define V_15 , a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14
#define V_16 , a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15
#define AV_0
#define AV_1 , av[0]
#define AV_2 , av[0], av[1]
#define AV_3 , av[0], av[1], av[2]
#define AV_4 , av[0], av[1], av[2], av[3]
#define AV_5 , av[0], av[1], av[2], av[3], av[4]
#define AV_6 , av[0], av[1], av[2], av[3], av[4], av[5]
#define AV_7 , av[0], av[1], av[2], av[3], av[4], av[5], av[6]
#define AV_8 , av[0], av[1], av[2], av[3], av[4], av[5], av[6], av[7]
#define AV_9 , av[0], av[1], av[2], av[3], av[4], av[5], av[6], av[7], av[8]
#define AV_10 , av[0], av[1], av[2], av[3], av[4], av[5], av[6], av[7], av[8], av[9]
#define AV_11 , av[0], av[1], av[2], av[3], av[4], av[5], av[6], av[7], av[8], av[9], av[10]
#define AV_12 , av[0], av[1], av[2], av[3], av[4], av[5], av[6], av[7], av[8], av[9], av[10], av[11]
#define AV_13 , av[0], av[1], av[2], av[3], av[4], av[5], av[6], av[7], av[8], av[9], av[10], av[11], av[12]
#define AV_14 , av[0], av[1], av[2], av[3], av[4], av[5], av[6], av[7], av[8], av[9], av[10], av[11], av[12], av[13]
#define AV_15 , av[0], av[1], av[2], av[3], av[4], av[5], av[6], av[7], av[8], av[9], av[10], av[11], av[12], av[13], av[14]
#define AV_16 , av[0], av[1], av[2], av[3], av[4], av[5], av[6], av[7], av[8], av[9], av[10], av[11], av[12], av[13], av[14], av[15]

#define ALL17(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)

/* ---- per-handler registration record (also the gex_cdata of each entry) ---- */
typedef struct {
    int cat;
    unsigned nargs;
    gex_AM_Fn_t fn;
    gex_Flags_t flags;
    gex_AM_Index_t index;
} hinfo_t;
static hinfo_t hinfo[3][MAXARGS + 1];

/* ---- job state ---- */
static uint8_t *myseg;        /* my segment */
static uint8_t **peer_seg;    /* [size] owner address of every rank's segment */
static size_t slot_bytes;     /* one Long landing zone */
static uint8_t *scratch;      /* in-segment source buffer (after the 2N slots) */
static uint8_t *heapbuf;      /* out-of-segment source buffer */
static uint8_t **rep_buf;     /* [size] per-requester reply source buffers (lc NOW) */
static uint8_t **ask_buf;     /* [size] the same for replies sent by ask_handler */

static long replies_got;      /* replies seen by the generic handlers (atomic) */
static long replies_expected;

/* Long landing zones in every segment: [requests from rank 0..N-1][replies from rank 0..N-1] */
static size_t req_slot(gex_Rank_t from) { return (size_t)from * slot_bytes; }
static size_t rep_slot(gex_Rank_t from) { return ((size_t)test_size + from) * slot_bytes; }
static size_t dest_off(size_t n, unsigned nargs) { return (n * 7 + nargs * 3 + 1) % 61; }
static size_t src_off(size_t n) { return (n * 5 + 3) % 29; }

static gex_AM_Arg_t argval(int cat, int isreq, unsigned nargs, unsigned i, gex_Rank_t from, gex_Rank_t to) {
    uint64_t x = ((uint64_t)(cat + 1) << 58) ^ ((uint64_t)isreq << 56) ^ ((uint64_t)nargs << 48) ^
                 ((uint64_t)i << 40) ^ ((uint64_t)from << 20) ^ (uint64_t)to;
    return (gex_AM_Arg_t)(uint32_t)test_mix64(x);
}
static uint64_t pseed(int cat, int isreq, gex_Rank_t from, gex_Rank_t to, size_t n, unsigned nargs) {
    return test_mix64(0xA11A0000ull ^ ((uint64_t)cat << 60) ^ ((uint64_t)isreq << 59) ^ ((uint64_t)from << 40) ^
                      ((uint64_t)to << 20) ^ ((uint64_t)nargs << 54) ^ (uint64_t)n * 0x100000001ull);
}
static gex_Event_t *lc_ptr(int lcmode, gex_Event_t *ev) {
    return lcmode == LC_NOW ? GEX_EVENT_NOW : lcmode == LC_GROUP ? GEX_EVENT_GROUP : ev;
}

/* ---- limit queries ---- */
static size_t q_max(int which, gex_Rank_t r, const gex_Event_t *lc, unsigned nargs) {
    switch (which) {
    case Q_REQ_MED: return gex_AM_MaxRequestMedium(test_tm, r, lc, 0, nargs);
    case Q_REP_MED: return gex_AM_MaxReplyMedium(test_tm, r, lc, 0, nargs);
    case Q_REQ_LONG: return gex_AM_MaxRequestLong(test_tm, r, lc, 0, nargs);
    default: return gex_AM_MaxReplyLong(test_tm, r, lc, 0, nargs);
    }
}
static size_t q_lub(int which) {
    switch (which) {
    case Q_REQ_MED: return gex_AM_LUBRequestMedium();
    case Q_REP_MED: return gex_AM_LUBReplyMedium();
    case Q_REQ_LONG: return gex_AM_LUBRequestLong();
    default: return gex_AM_LUBReplyLong();
    }
}
static const char *const q_name[4] = { "MaxRequestMedium", "MaxReplyMedium", "MaxRequestLong", "MaxReplyLong" };

/* ---- injection through the numbered forms, plus the variadic forms for some counts ---- */
/* AMCALL expands the AV_M list before the numbered macro sees its arguments */
#define AMCALL(f, args) f args
#define RQS(M) case M: return AMCALL(gex_AM_RequestShort##M, (test_tm, r, h, 0 AV_##M));
#define RQM(M) case M: return AMCALL(gex_AM_RequestMedium##M, (test_tm, r, h, src, n, lc, 0 AV_##M));
#define RQL(M) case M: return AMCALL(gex_AM_RequestLong##M, (test_tm, r, h, src, n, dest, lc, 0 AV_##M));
#define RPS(M) case M: return AMCALL(gex_AM_ReplyShort##M, (t, h, 0 AV_##M));
#define RPM(M) case M: return AMCALL(gex_AM_ReplyMedium##M, (t, h, src, n, lc, 0 AV_##M));
#define RPL(M) case M: return AMCALL(gex_AM_ReplyLong##M, (t, h, src, n, dest, lc, 0 AV_##M));

static int has_variadic(unsigned nargs) { return nargs == 0 || nargs == 1 || nargs == 3 || nargs == 16; }

static int send_req_numbered(int cat, gex_Rank_t r, gex_AM_Index_t h, unsigned nargs, const void *src, size_t n,
                             void *dest, gex_Event_t *lc, const gex_AM_Arg_t *av) {
    (void)av;
    if (cat == CAT_SHORT) { switch (nargs) { ALL17(RQS) } }
    else if (cat == CAT_MEDIUM) { switch (nargs) { ALL17(RQM) } }
    else { switch (nargs) { ALL17(RQL) } }
    test_fail(__FILE__, __LINE__, "nargs <= 16", "nargs %u", nargs);
}
static int send_req_variadic(int cat, gex_Rank_t r, gex_AM_Index_t h, unsigned nargs, const void *src, size_t n,
                             void *dest, gex_Event_t *lc, const gex_AM_Arg_t *av) {
    const gex_AM_Arg_t *a = av;
    switch (cat * 100 + (int)nargs) {
    case CAT_SHORT * 100 + 0: return gex_AM_RequestShort(test_tm, r, h, 0);
    case CAT_SHORT * 100 + 1: return gex_AM_RequestShort(test_tm, r, h, 0, a[0]);
    case CAT_SHORT * 100 + 3: return gex_AM_RequestShort(test_tm, r, h, 0, a[0], a[1], a[2]);
    case CAT_SHORT * 100 + 16:
        return gex_AM_RequestShort(test_tm, r, h, 0, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9],
                                   a[10], a[11], a[12], a[13], a[14], a[15]);
    case CAT_MEDIUM * 100 + 0: return gex_AM_RequestMedium(test_tm, r, h, src, n, lc, 0);
    case CAT_MEDIUM * 100 + 1: return gex_AM_RequestMedium(test_tm, r, h, src, n, lc, 0, a[0]);
    case CAT_MEDIUM * 100 + 3: return gex_AM_RequestMedium(test_tm, r, h, src, n, lc, 0, a[0], a[1], a[2]);
    case CAT_MEDIUM * 100 + 16:
        return gex_AM_RequestMedium(test_tm, r, h, src, n, lc, 0, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7],
                                    a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
    case CAT_LONG * 100 + 0: return gex_AM_RequestLong(test_tm, r, h, src, n, dest, lc, 0);
    case CAT_LONG * 100 + 1: return gex_AM_RequestLong(test_tm, r, h, src, n, dest, lc, 0, a[0]);
    case CAT_LONG * 100 + 3: return gex_AM_RequestLong(test_tm, r, h, src, n, dest, lc, 0, a[0], a[1], a[2]);
    case CAT_LONG * 100 + 16:
        return gex_AM_RequestLong(test_tm, r, h, src, n, dest, lc, 0, a[0], a[1], a[2], a[3], a[4], a[5], a[6],
                                  a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
    }
    test_fail(__FILE__, __LINE__, "has_variadic(nargs)", "nargs %u", nargs);
}
static int send_rep(int variadic, int cat, gex_Token_t t, gex_AM_Index_t h, unsigned nargs, const void *src,
                    size_t n, void *dest, gex_Event_t *lc, const gex_AM_Arg_t *av) {
    if (variadic) {
        const gex_AM_Arg_t *a = av;
        switch (cat * 100 + (int)nargs) {
        case CAT_SHORT * 100 + 0: return gex_AM_ReplyShort(t, h, 0);
        case CAT_SHORT * 100 + 1: return gex_AM_ReplyShort(t, h, 0, a[0]);
        case CAT_SHORT * 100 + 3: return gex_AM_ReplyShort(t, h, 0, a[0], a[1], a[2]);
        case CAT_SHORT * 100 + 16:
            return gex_AM_ReplyShort(t, h, 0, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10],
                                     a[11], a[12], a[13], a[14], a[15]);
        case CAT_MEDIUM * 100 + 0: return gex_AM_ReplyMedium(t, h, src, n, lc, 0);
        case CAT_MEDIUM * 100 + 1: return gex_AM_ReplyMedium(t, h, src, n, lc, 0, a[0]);
        case CAT_MEDIUM * 100 + 3: return gex_AM_ReplyMedium(t, h, src, n, lc, 0, a[0], a[1], a[2]);
        case CAT_MEDIUM * 100 + 16:
            return gex_AM_ReplyMedium(t, h, src, n, lc, 0, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8],
                                      a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
        case CAT_LONG * 100 + 0: return gex_AM_ReplyLong(t, h, src, n, dest, lc, 0);
        case CAT_LONG * 100 + 1: return gex_AM_ReplyLong(t, h, src, n, dest, lc, 0, a[0]);
        case CAT_LONG * 100 + 3: return gex_AM_ReplyLong(t, h, src, n, dest, lc, 0, a[0], a[1], a[2]);
        case CAT_LONG * 100 + 16:
            return gex_AM_ReplyLong(t, h, src, n, dest, lc, 0, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7],
                                    a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
        }
        test_fail(__FILE__, __LINE__, "has_variadic(nargs)", "nargs %u", nargs);
    }
    if (cat == CAT_SHORT) { switch (nargs) { ALL17(RPS) } }
    else if (cat == CAT_MEDIUM) { switch (nargs) { ALL17(RPM) } }
    else { switch (nargs) { ALL17(RPL) } }
    test_fail(__FILE__, __LINE__, "nargs <= 16", "nargs %u", nargs);
}

/* ---- reply events created in handler context, synced later by the main thread ---- */
typedef struct { gex_Event_t ev; void *buf; } pend_t;
static pend_t *pend;
static size_t pend_n, pend_cap;
static gex_HSL_t pend_lock = GEX_HSL_INITIALIZER;

static void pend_push(gex_Event_t ev, void *buf) {
    gex_HSL_Lock(&pend_lock);
    if (pend_n == pend_cap) {
        pend_cap = pend_cap ? 2 * pend_cap : 64;
        pend = (pend_t *)realloc(pend, pend_cap * sizeof(pend_t));
        CHECK(pend != NULL);
    }
    pend[pend_n].ev = ev;
    pend[pend_n].buf = buf;
    pend_n++;
    gex_HSL_Unlock(&pend_lock);
}
static size_t pend_synced;
static void pend_drain(void) {
    gex_HSL_Lock(&pend_lock);
    size_t n = pend_n;
    pend_t *p = NULL;
    if (n) {
        p = (pend_t *)malloc(n * sizeof(pend_t));
        memcpy(p, pend, n * sizeof(pend_t));
        pend_n = 0;
    }
    gex_HSL_Unlock(&pend_lock);
    if (!n) return;
    gex_Event_t *evs = (gex_Event_t *)malloc(n * sizeof(gex_Event_t));
    for (size_t i = 0; i < n; i++) evs[i] = p[i].ev;
    gex_Event_WaitAll(evs, n, 0);
    for (size_t i = 0; i < n; i++) {
        CHECKF(evs[i] == GEX_EVENT_INVALID, "gex_Event_WaitAll left slot %zu set", i);
        free(p[i].buf);
    }
    pend_synced += n;
    free(evs);
    free(p);
}

/* ---- the generic handlers: one per category and argument count ---- */
static void on_msg(gex_Token_t t, int cat, unsigned nargs, void *buf, size_t nbytes, const gex_AM_Arg_t *av) {
    const hinfo_t *hi = &hinfo[cat][nargs];
    gex_Token_Info_t ti;
    memset(&ti, 0, sizeof ti);
    gex_TI_t got = gex_Token_Info(t, &ti, GEX_TI_ALL);
    CHECKF((got & GEX_TI_ALL) == GEX_TI_ALL, "gex_Token_Info returned mask 0x%x, asked 0x%x", (unsigned)got,
           (unsigned)GEX_TI_ALL);
    const gex_Rank_t src = ti.gex_srcrank;
    CHECKF(src < test_size, "gex_srcrank %u", (unsigned)src);
    CHECK(ti.gex_ep == test_ep);
    CHECK(ti.gex_entry != NULL);
    CHECKF(ti.gex_entry->gex_fnptr == hi->fn, "%s handler with %u args: gex_entry->gex_fnptr is not the handler",
           cat_name[cat], nargs);
    CHECK_EQ(ti.gex_entry->gex_index, hi->index);
    CHECK_EQ(ti.gex_entry->gex_nargs, nargs);
    CHECK_EQ(ti.gex_entry->gex_flags, hi->flags);
    CHECK(ti.gex_entry->gex_cdata == (const void *)hi);
    CHECKF(ti.gex_is_long == (cat == CAT_LONG), "%s handler: gex_is_long %u", cat_name[cat], (unsigned)ti.gex_is_long);
    CHECKF(ti.gex_is_req == 0 || ti.gex_is_req == 1, "gex_is_req %u", (unsigned)ti.gex_is_req);
    const int isreq = (int)ti.gex_is_req;
    for (unsigned i = 0; i < nargs; i++)
        CHECKF(av[i] == argval(cat, isreq, nargs, i, src, test_rank),
               "%s %s from rank %u with %u args: arg %u is %d, expected %d", cat_name[cat],
               isreq ? "request" : "reply", (unsigned)src, nargs, i, (int)av[i],
               (int)argval(cat, isreq, nargs, i, src, test_rank));
    if (cat != CAT_SHORT) {
        if (cat == CAT_LONG) {
            uint8_t *want = myseg + (isreq ? req_slot(src) : rep_slot(src)) + dest_off(nbytes, nargs);
            CHECKF((uint8_t *)buf == want, "Long %s from rank %u (%zu bytes): buf %p, dest_addr was %p",
                   isreq ? "request" : "reply", (unsigned)src, nbytes, buf, (void *)want);
        } else if (nbytes) {
            CHECKF((uintptr_t)buf % 8 == 0, "Medium payload at %p is not aligned", buf);
        }
        CHECK_PAT(buf, nbytes, pseed(cat, isreq, src, test_rank, nbytes, nargs),
                  "%s %s from rank %u, %u args", cat_name[cat], isreq ? "request" : "reply", (unsigned)src, nargs);
    } else {
        CHECK_EQ(nbytes, 0);
    }
    if (!isreq) {
        __atomic_fetch_add(&replies_got, 1, __ATOMIC_SEQ_CST);
        return;
    }
    /* reply in the same category with the same argument count */
    gex_AM_Arg_t rav[MAXARGS];
    for (unsigned i = 0; i < nargs; i++) rav[i] = argval(cat, 0, nargs, i, test_rank, src);
    size_t rn = 0;
    uint8_t *rsrc = NULL;
    void *rdest = NULL;
    if (cat != CAT_SHORT) {
        size_t tokmax = cat == CAT_MEDIUM ? gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, nargs)
                                          : gex_Token_MaxReplyLong(t, GEX_EVENT_NOW, 0, nargs);
        size_t amax = q_max(cat == CAT_MEDIUM ? Q_REP_MED : Q_REP_LONG, src, GEX_EVENT_NOW, nargs);
        CHECKF(tokmax == amax, "gex_Token_MaxReply%s = %zu but gex_AM_MaxReply%s(rank %u) = %zu", cat_name[cat],
               tokmax, cat_name[cat], (unsigned)src, amax);
        CHECK(tokmax >= 512);
        rn = nbytes < tokmax ? nbytes : tokmax;
        rsrc = rep_buf[src] + src_off(rn);
        test_pat_fill(rsrc, rn, pseed(cat, 0, test_rank, src, rn, nargs));
        if (cat == CAT_LONG) rdest = peer_seg[src] + rep_slot(test_rank) + dest_off(rn, nargs);
    }
    int variadic = has_variadic(nargs) && ((src + nargs + rn) & 1);
    int rc = send_rep(variadic, cat, t, hi->index, nargs, rsrc, rn, rdest, GEX_EVENT_NOW, rav);
    CHECKF(rc == 0, "gex_AM_Reply%s%s returned %d", cat_name[cat], variadic ? "" : "M", rc);
    if (rsrc) for (size_t i = 0; i < rn; i++) rsrc[i] = (uint8_t)~rsrc[i]; /* locally complete: scribble */
    /* the request's payload stays valid until the handler returns, reply or not */
    if (cat == CAT_MEDIUM)
        CHECK_PAT(buf, nbytes, pseed(cat, isreq, src, test_rank, nbytes, nargs),
                  "Medium request from rank %u, %u args, after the handler replied", (unsigned)src, nargs);
}

#define DEF_HANDLERS(M)                                                                          \
    static void sh_##M(gex_Token_t t P_##M) {                                                    \
        gex_AM_Arg_t v[MAXARGS + 1] = { 0 V_##M };                                               \
        on_msg(t, CAT_SHORT, M, NULL, 0, v + 1);                                                 \
    }                                                                                            \
    static void md_##M(gex_Token_t t, void *buf, size_t n P_##M) {                               \
        gex_AM_Arg_t v[MAXARGS + 1] = { 0 V_##M };                                               \
        on_msg(t, CAT_MEDIUM, M, buf, n, v + 1);                                                 \
    }                                                                                            \
    static void lg_##M(gex_Token_t t, void *buf, size_t n P_##M) {                               \
        gex_AM_Arg_t v[MAXARGS + 1] = { 0 V_##M };                                               \
        on_msg(t, CAT_LONG, M, buf, n, v + 1);                                                   \
    }
ALL17(DEF_HANDLERS)
#define FN_SH(M) (gex_AM_Fn_t)sh_##M,
#define FN_MD(M) (gex_AM_Fn_t)md_##M,
#define FN_LG(M) (gex_AM_Fn_t)lg_##M,
static const gex_AM_Fn_t fn_table[3][MAXARGS + 1] = { { ALL17(FN_SH) }, { ALL17(FN_MD) }, { ALL17(FN_LG) } };

/* ---- ask: a Short request asking for a reply of a given category, size, args, lc_opt ---- */
static gex_AM_Index_t h_ask;
static void ask_handler(gex_Token_t t, gex_AM_Arg_t cat, gex_AM_Arg_t nbytes_a, gex_AM_Arg_t nargs_a,
                        gex_AM_Arg_t lcmode, gex_AM_Arg_t unused) {
    (void)unused;
    gex_Token_Info_t ti;
    gex_TI_t got = gex_Token_Info(t, &ti, GEX_TI_SRCRANK | GEX_TI_IS_REQ | GEX_TI_IS_LONG);
    CHECK((got & (GEX_TI_SRCRANK | GEX_TI_IS_REQ | GEX_TI_IS_LONG)) == (GEX_TI_SRCRANK | GEX_TI_IS_REQ | GEX_TI_IS_LONG));
    CHECK(ti.gex_is_req == 1);
    CHECK(ti.gex_is_long == 0);
    const gex_Rank_t src = ti.gex_srcrank;
    CHECK(src < test_size);
    const unsigned nargs = (unsigned)nargs_a;
    const size_t nbytes = (size_t)(uint32_t)nbytes_a;
    CHECK(cat == CAT_MEDIUM || cat == CAT_LONG);
    CHECK(nargs <= MAXARGS);
    CHECK(lcmode == LC_NOW || lcmode == LC_EVENT);
    gex_Event_t ev = GEX_EVENT_NO_OP, *lc = lcmode == LC_NOW ? GEX_EVENT_NOW : &ev;
    size_t tokmax = cat == CAT_MEDIUM ? gex_Token_MaxReplyMedium(t, lc, 0, nargs)
                                      : gex_Token_MaxReplyLong(t, lc, 0, nargs);
    CHECKF(nbytes <= tokmax, "rank %u asked for a %zu-byte %s reply (%s, %u args), gex_Token_MaxReply%s says %zu",
           (unsigned)src, nbytes, cat_name[cat], lc_name[lcmode], nargs, cat_name[cat], tokmax);
    uint8_t *mem = lcmode == LC_NOW ? ask_buf[src] : (uint8_t *)malloc(nbytes + 64);
    CHECK(mem != NULL);
    uint8_t *rsrc = mem + src_off(nbytes);
    test_pat_fill(rsrc, nbytes, pseed(cat, 0, test_rank, src, nbytes, nargs));
    gex_AM_Arg_t rav[MAXARGS];
    for (unsigned i = 0; i < nargs; i++) rav[i] = argval(cat, 0, nargs, i, test_rank, src);
    void *rdest = cat == CAT_LONG ? peer_seg[src] + rep_slot(test_rank) + dest_off(nbytes, nargs) : NULL;
    int variadic = has_variadic(nargs) && (nbytes & 1);
    int rc = send_rep(variadic, cat, t, hinfo[cat][nargs].index, nargs, rsrc, nbytes, rdest, lc, rav);
    CHECKF(rc == 0, "reply returned %d", rc);
    if (lcmode == LC_NOW) {
        for (size_t i = 0; i < nbytes; i++) rsrc[i] = (uint8_t)~rsrc[i];
    } else {
        CHECK(ev != GEX_EVENT_NO_OP); /* the call must write *lc_opt */
        pend_push(ev, mem);
    }
}

/* ---- flood: all-to-all traffic, counted per source under HSLs ---- */
#define FLOOD_SHORT 400
#define FLOOD_MED 150
static gex_AM_Index_t h_fl_req, h_fl_med, h_fl_rep;
static gasnet_hsl_t flood_lock = GASNET_HSL_INITIALIZER;
static long *flood_short_from, *flood_med_from; /* [size] */
static long flood_replies; /* written by reply handlers (the poller thread too): read under flood_lock */
static long flood_replies_now(void) {
    gasnet_hsl_lock(&flood_lock);
    long n = flood_replies;
    gasnet_hsl_unlock(&flood_lock);
    return n;
}

static gex_AM_Arg_t flood_tag(gex_AM_Arg_t i, gex_Rank_t from, gex_Rank_t to) {
    return (gex_AM_Arg_t)(uint32_t)test_mix64(0xF100Dull ^ ((uint64_t)(uint32_t)i << 32) ^ ((uint64_t)from << 16) ^ to);
}
static gex_Rank_t token_src(gex_Token_t t) {
    gex_Token_Info_t ti;
    gex_TI_t got = gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    CHECK(got & GEX_TI_SRCRANK);
    CHECK(ti.gex_srcrank < test_size);
    return ti.gex_srcrank;
}
static void fl_req_handler(gex_Token_t t, gex_AM_Arg_t i, gex_AM_Arg_t tag) {
    gex_Rank_t src = token_src(t);
    CHECKF(tag == flood_tag(i, src, test_rank), "flood Short %d from rank %u: tag %d", (int)i, (unsigned)src, (int)tag);
    gasnet_hsl_lock(&flood_lock);
    flood_short_from[src]++;
    gasnet_hsl_unlock(&flood_lock);
    CHECK_EQ(gex_AM_ReplyShort1(t, h_fl_rep, 0, i), 0);
}
static void fl_med_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t i) {
    gex_Rank_t src = token_src(t);
    CHECK_EQ(n, (size_t)((i * 13) % 300));
    CHECK_PAT(buf, n, pseed(CAT_MEDIUM, 1, src, test_rank, n, 99), "flood Medium %d from rank %u", (int)i, (unsigned)src);
    gasnet_hsl_lock(&flood_lock);
    flood_med_from[src]++;
    gasnet_hsl_unlock(&flood_lock);
    CHECK_EQ(gex_AM_ReplyShort1(t, h_fl_rep, 0, i), 0);
}
static void fl_rep_handler(gex_Token_t t, gex_AM_Arg_t i) {
    (void)i;
    gex_Token_Info_t ti;
    CHECK(gex_Token_Info(t, &ti, GEX_TI_IS_REQ) & GEX_TI_IS_REQ);
    CHECK(ti.gex_is_req == 0);
    gasnet_hsl_lock(&flood_lock);
    flood_replies++;
    gasnet_hsl_unlock(&flood_lock);
}

/* ---- the symmetric-limits exchange ---- */
#define NQ 8
static gex_AM_Index_t h_maxcheck;
static long maxcheck_got;
static void maxcheck_handler(gex_Token_t t, void *buf, size_t n) {
    gex_Rank_t src = token_src(t);
    uint64_t theirs[NQ];
    CHECK_EQ(n, sizeof theirs);
    memcpy(theirs, buf, sizeof theirs);
    for (int q = 0; q < NQ; q++) {
        size_t mine = q_max(q % 4, src, GEX_EVENT_NOW, q < 4 ? 0 : MAXARGS);
        CHECKF(mine == theirs[q], "gex_AM_%s(%u args) is not symmetric: rank %u -> me %llu, me -> rank %u %zu",
               q_name[q % 4], q < 4 ? 0 : MAXARGS, (unsigned)src, (unsigned long long)theirs[q], (unsigned)src, mine);
    }
    __atomic_fetch_add(&maxcheck_got, 1, __ATOMIC_SEQ_CST);
}

/* ---- handlers of the second registration call ---- */
static long extra_got[3];
static void extra_a(gex_Token_t t) { (void)t; __atomic_fetch_add(&extra_got[0], 1, __ATOMIC_SEQ_CST); }
static void extra_b(gex_Token_t t) { (void)t; __atomic_fetch_add(&extra_got[1], 1, __ATOMIC_SEQ_CST); }
static void extra_c(gex_Token_t t) { (void)t; __atomic_fetch_add(&extra_got[2], 1, __ATOMIC_SEQ_CST); }

/* ---- registration and the index-assignment rule ---- */
static void expect_assignment(const gex_AM_Entry_t *before, const gex_AM_Entry_t *after, size_t n,
                              unsigned char *used) {
    /* spec: fixed indices are registered first; then each index-0 entry, in table order, gets
     * the highest index still free; nothing else in the table is modified. */
    for (size_t i = 0; i < n; i++)
        if (before[i].gex_index) {
            CHECKF(!used[before[i].gex_index], "test bug: index %u reused", before[i].gex_index);
            used[before[i].gex_index] = 1;
        }
    for (size_t i = 0; i < n; i++) {
        if (before[i].gex_index) {
            CHECKF(after[i].gex_index == before[i].gex_index, "entry %zu (%s): fixed index %u changed to %u", i,
                   before[i].gex_name, before[i].gex_index, after[i].gex_index);
        } else {
            unsigned k = 255;
            while (used[k]) k--;
            used[k] = 1;
            CHECKF(after[i].gex_index == k, "entry %zu (%s): assigned index %u, the rule gives %u", i,
                   before[i].gex_name, after[i].gex_index, k);
        }
        CHECK(after[i].gex_fnptr == before[i].gex_fnptr);
        CHECK_EQ(after[i].gex_flags, before[i].gex_flags);
        CHECK_EQ(after[i].gex_nargs, before[i].gex_nargs);
        CHECK(after[i].gex_cdata == before[i].gex_cdata);
        CHECK(after[i].gex_name == before[i].gex_name);
    }
}

static gex_AM_Index_t h_extra[3];
static void register_all(void) {
    CHECKF(GEX_AM_INDEX_BASE <= 128, "GEX_AM_INDEX_BASE %d", (int)GEX_AM_INDEX_BASE);
    gex_AM_Entry_t tab[64];
    size_t n = 0;
    static char names[3][MAXARGS + 1][16];
    const gex_Flags_t catflag[3] = { GEX_FLAG_AM_SHORT, GEX_FLAG_AM_MEDIUM, GEX_FLAG_AM_LONG };
#define ENTRY(idx, fn, fl, na, cd, nm) \
    (tab[n].gex_index = (idx), tab[n].gex_fnptr = (gex_AM_Fn_t)(fn), tab[n].gex_flags = (fl), \
     tab[n].gex_nargs = (na), tab[n].gex_cdata = (cd), tab[n].gex_name = (nm), n++)
    size_t first[3];
    ENTRY(250, ask_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 5, NULL, "ask");
    for (int c = 0; c < 3; c++) {
        if (c == 1) ENTRY(254, fl_req_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "fl_req");
        if (c == 2) ENTRY(GEX_AM_INDEX_BASE, fl_rep_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "fl_rep");
        first[c] = n;
        for (unsigned m = 0; m <= MAXARGS; m++) {
            hinfo_t *hi = &hinfo[c][m];
            hi->cat = c;
            hi->nargs = m;
            hi->fn = fn_table[c][m];
            hi->flags = catflag[c] | GEX_FLAG_AM_REQREP;
            snprintf(names[c][m], sizeof names[c][m], "%s%u", cat_name[c], m);
            ENTRY(0, hi->fn, hi->flags, m, hi, names[c][m]);
        }
    }
    size_t i_med = n;
    ENTRY(0, fl_med_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "fl_med");
    ENTRY(0, maxcheck_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "maxcheck");
    gex_AM_Entry_t before[64];
    memcpy(before, tab, n * sizeof tab[0]);
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, n), GASNET_OK);
    unsigned char used[256];
    memset(used, 0, sizeof used);
    for (int k = 0; k < GEX_AM_INDEX_BASE; k++) used[k] = 1;
    expect_assignment(before, tab, n, used);
    /* spelled out for the first few: 254 and 250 are fixed, so Short0..Short4 get 255,253,252,251,249 */
    CHECK_EQ(tab[first[0] + 0].gex_index, 255);
    CHECK_EQ(tab[first[0] + 1].gex_index, 253);
    CHECK_EQ(tab[first[0] + 2].gex_index, 252);
    CHECK_EQ(tab[first[0] + 3].gex_index, 251);
    CHECK_EQ(tab[first[0] + 4].gex_index, 249);
    for (int c = 0; c < 3; c++)
        for (unsigned m = 0; m <= MAXARGS; m++) hinfo[c][m].index = tab[first[c] + m].gex_index;
    h_ask = 250;
    h_fl_req = 254;
    h_fl_rep = GEX_AM_INDEX_BASE;
    h_fl_med = tab[i_med].gex_index;
    h_maxcheck = tab[i_med + 1].gex_index;

    /* a second call continues the same rule over the indices still free */
    gex_AM_Entry_t tab2[3] = {
        { 0, (gex_AM_Fn_t)extra_a, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "extra_a" },
        { GEX_AM_INDEX_BASE + 1, (gex_AM_Fn_t)extra_b, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "extra_b" },
        { 0, (gex_AM_Fn_t)extra_c, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "extra_c" },
    };
    gex_AM_Entry_t before2[3];
    memcpy(before2, tab2, sizeof tab2);
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab2, 3), GASNET_OK);
    expect_assignment(before2, tab2, 3, used);
    for (int k = 0; k < 3; k++) h_extra[k] = tab2[k].gex_index;
#undef ENTRY
}

/* ---- limits ---- */
static void check_limits(void) {
    CHECKF(gex_AM_MaxArgs() >= MAXARGS, "gex_AM_MaxArgs() = %u", gex_AM_MaxArgs());
    CHECKF(gasnet_AMMaxArgs() == gex_AM_MaxArgs(), "gasnet_AMMaxArgs() = %zu", (size_t)gasnet_AMMaxArgs());
    gex_Event_t ev;
    const gex_Event_t *lcs[4] = { GEX_EVENT_NOW, &ev, NULL, GEX_EVENT_GROUP };
    for (int q = 0; q < 4; q++) {
        size_t lub = q_lub(q);
        CHECKF(lub >= 512, "gex_AM_LUB%s() = %zu", q_name[q] + 3, lub);
        CHECK_EQ(q_lub(q), lub);
        const int nlc = (q == Q_REQ_MED || q == Q_REQ_LONG) ? 4 : 3; /* GROUP only for requests */
        for (int l = 0; l < nlc; l++)
            for (unsigned m = 0; m <= MAXARGS; m++) {
                size_t minv = (size_t)-1;
                for (gex_Rank_t r = 0; r < test_size; r++) {
                    size_t v = q_max(q, r, lcs[l], m);
                    CHECKF(v >= 512, "gex_AM_%s(rank %u, lc %d, %u args) = %zu", q_name[q], (unsigned)r, l, m, v);
                    CHECKF(lub <= v, "gex_AM_LUB%s() = %zu > gex_AM_%s(rank %u, lc %d, %u args) = %zu", q_name[q] + 3,
                           lub, q_name[q], (unsigned)r, l, m, v);
                    CHECKF(q_max(q, r, lcs[l], m) == v, "gex_AM_%s is not stable", q_name[q]);
                    if (m) {
                        size_t prev = q_max(q, r, lcs[l], m - 1);
                        CHECKF(v <= prev, "gex_AM_%s grows with numargs: %zu args %zu, %u args %zu", q_name[q],
                               (size_t)m - 1, prev, m, v);
                    }
                    if (l == 2) /* a NULL lc_opt means the same as any event pointer */
                        CHECKF(v == q_max(q, r, &ev, m), "gex_AM_%s: NULL and &event lc_opt differ", q_name[q]);
                    if (v < minv) minv = v;
                }
                size_t any = q_max(q, GEX_RANK_INVALID, lcs[l], m);
                CHECKF(any == minv, "gex_AM_%s(GEX_RANK_INVALID, lc %d, %u args) = %zu, min over ranks %zu", q_name[q],
                       l, m, any, minv);
            }
    }
}

static size_t make_sizes(size_t max, size_t *out) {
    size_t n = 0;
    const size_t small[] = { 0, 1, 2, 3 };
    for (size_t i = 0; i < 4; i++) out[n++] = small[i];
    for (size_t p = 4; p <= max; p *= 2) {
        out[n++] = p - 1;
        out[n++] = p;
        if (p + 1 <= max) out[n++] = p + 1;
    }
    out[n++] = max / 3;
    out[n++] = max - 1;
    out[n++] = max;
    /* sort, unique */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && out[j - 1] > out[j]; j--) {
            size_t t = out[j]; out[j] = out[j - 1]; out[j - 1] = t;
        }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (out[i] <= max && (k == 0 || out[k - 1] != out[i])) out[k++] = out[i];
    return k;
}

static void wait_replies(const char *what) {
    TEST_POLL_UNTIL(__atomic_load_n(&replies_got, __ATOMIC_SEQ_CST) == replies_expected, WAIT_SECS,
                    "waiting for the reply to %s: %ld of %ld replies", what,
                    __atomic_load_n(&replies_got, __ATOMIC_SEQ_CST), replies_expected);
    CHECK_EQ(__atomic_load_n(&replies_got, __ATOMIC_SEQ_CST), replies_expected);
    pend_drain();
}

static long n_round_trips;

/* one request of the generic handlers, waited for through its reply */
static void do_request(int cat, gex_Rank_t r, unsigned nargs, size_t n, int lcmode, int in_seg, int variadic) {
    char what[160];
    snprintf(what, sizeof what, "%s request to rank %u: %zu bytes, %u args, lc %s, %s source, %s form", cat_name[cat],
             (unsigned)r, n, nargs, lc_name[lcmode], in_seg ? "in-segment" : "heap", variadic ? "variadic" : "numbered");
    uint8_t *src = (in_seg ? scratch : heapbuf) + src_off(n);
    if (cat != CAT_SHORT) test_pat_fill(src, n, pseed(cat, 1, test_rank, r, n, nargs));
    gex_AM_Arg_t av[MAXARGS];
    for (unsigned i = 0; i < nargs; i++) av[i] = argval(cat, 1, nargs, i, test_rank, r);
    void *dest = cat == CAT_LONG ? peer_seg[r] + req_slot(test_rank) + dest_off(n, nargs) : NULL;
    gex_Event_t ev = GEX_EVENT_NO_OP;
    gex_Event_t *lc = lc_ptr(lcmode, &ev);
    replies_expected++;
    int rc = variadic ? send_req_variadic(cat, r, hinfo[cat][nargs].index, nargs, src, n, dest, lc, av)
                      : send_req_numbered(cat, r, hinfo[cat][nargs].index, nargs, src, n, dest, lc, av);
    CHECKF(rc == 0, "%s: returned %d", what, rc);
    if (cat != CAT_SHORT) {
        if (lcmode == LC_EVENT) {
            CHECKF(ev != GEX_EVENT_NO_OP, "%s: *lc_opt not written", what);
            if (n & 1)
                gex_Event_Wait(ev);
            else
                TEST_POLL_UNTIL(gex_Event_Test(ev) == 0, WAIT_SECS, "%s: local completion never came", what);
        } else if (lcmode == LC_GROUP) {
            if (n & 1)
                gex_NBI_Wait(GEX_EC_AM, 0);
            else
                TEST_POLL_UNTIL(gex_NBI_Test(GEX_EC_AM, 0) == 0, WAIT_SECS, "%s: NBI local completion never came",
                                what);
        }
        for (size_t i = 0; i < n; i++) src[i] = (uint8_t)~src[i]; /* locally complete: scribble */
    }
    wait_replies(what);
    n_round_trips++;
}

/* ask rank r for a reply of the given shape; the reply lands in the generic handlers */
static void do_ask(int cat, gex_Rank_t r, unsigned nargs, size_t n, int lcmode) {
    char what[160];
    snprintf(what, sizeof what, "asked %s reply from rank %u: %zu bytes, %u args, lc %s", cat_name[cat], (unsigned)r,
             n, nargs, lc_name[lcmode]);
    replies_expected++;
    int rc = gex_AM_RequestShort5(test_tm, r, h_ask, 0, cat, (gex_AM_Arg_t)(uint32_t)n, nargs, lcmode, 0);
    CHECKF(rc == 0, "%s: returned %d", what, rc);
    wait_replies(what);
    n_round_trips++;
}

static void test_args(void) {
    for (gex_Rank_t k = 0; k < test_size; k++) {
        gex_Rank_t r = (test_rank + 1 + k) % test_size;
        for (int cat = 0; cat < 3; cat++)
            for (unsigned m = 0; m <= MAXARGS; m++) {
                size_t n = cat == CAT_SHORT ? 0 : m * 5 + 1;
                do_request(cat, r, m, n, LC_NOW, 0, 0);
                if (has_variadic(m)) do_request(cat, r, m, n + (cat != CAT_SHORT), LC_NOW, 0, 1);
            }
    }
}

/* Medium and Long payloads of requests (isreq) or of replies (sent from the handler of
 * an ask): sizes from 0 to the maximum, lc_opt cycling through the modes the call allows
 * (replies: NOW or &event, GROUP is not allowed), argument counts cycling, then the exact
 * maximum and one less for each lc_opt with the fewest and the most arguments. Requests
 * also alternate local buffers in and out of the segment and the variadic forms. */
static void test_payloads(int isreq) {
    size_t sizes[256];
    gex_Event_t ev;
    const int nlc = isreq ? 3 : 2;
    for (gex_Rank_t k = 0; k < test_size; k++) {
        gex_Rank_t r = (test_rank + 1 + k) % test_size;
        for (int cat = CAT_MEDIUM; cat <= CAT_LONG; cat++) {
            const int q = (cat == CAT_MEDIUM ? Q_REQ_MED : Q_REQ_LONG) + !isreq; /* Q_REP_x == Q_REQ_x + 1 */
            size_t ns = make_sizes(q_max(q, r, GEX_EVENT_NOW, 0), sizes);
            for (size_t i = 0; i < ns; i++) {
                int lcmode = (int)(i % (size_t)nlc);
                unsigned nargs = i % (size_t)(nlc + 1) == 0 ? MAXARGS : (unsigned)((i * (isreq ? 5 : 7)) % (MAXARGS + 1));
                size_t mx = q_max(q, r, lc_ptr(lcmode, &ev), nargs);
                size_t n = sizes[i] < mx ? sizes[i] : mx;
                if (isreq)
                    do_request(cat, r, nargs, n, lcmode, (int)(i & 1), has_variadic(nargs) && (i & 2));
                else
                    do_ask(cat, r, nargs, n, lcmode);
            }
            for (int lcmode = 0; lcmode < nlc; lcmode++)
                for (unsigned nargs = 0; nargs <= MAXARGS; nargs += MAXARGS) {
                    size_t mx = q_max(q, r, lc_ptr(lcmode, &ev), nargs);
                    for (size_t d = 0; d < 2; d++) {
                        if (isreq)
                            do_request(cat, r, nargs, mx - d, lcmode, (lcmode ^ (int)d) & 1, 0);
                        else
                            do_ask(cat, r, nargs, mx - d, lcmode);
                    }
                }
        }
    }
}

#if defined(GASNET_PAR)
static volatile int poller_stop;
static void *poller_main(void *arg) {
    (void)arg;
    while (!__atomic_load_n(&poller_stop, __ATOMIC_SEQ_CST)) gasnet_AMPoll();
    return NULL;
}
#endif

static void test_flood(void) {
#if defined(GASNET_PAR)
    pthread_t th;
    poller_stop = 0;
    CHECK_EQ(pthread_create(&th, NULL, poller_main, NULL), 0);
#endif
    size_t maxn = 300;
    uint8_t *mbuf = (uint8_t *)malloc(maxn + 8);
    long expected = 0;
    for (int i = 0; i < FLOOD_SHORT; i++)
        for (gex_Rank_t k = 0; k < test_size; k++) {
            gex_Rank_t r = (test_rank + k) % test_size;
            CHECK_EQ(gex_AM_RequestShort2(test_tm, r, h_fl_req, 0, i, flood_tag(i, test_rank, r)), 0);
            expected++;
            if (i < FLOOD_MED) {
                size_t n = (size_t)((i * 13) % 300);
                test_pat_fill(mbuf + 1, n, pseed(CAT_MEDIUM, 1, test_rank, r, n, 99));
                CHECK_EQ(gex_AM_RequestMedium1(test_tm, r, h_fl_med, mbuf + 1, n, GEX_EVENT_NOW, 0, i), 0);
                memset(mbuf, 0xEE, maxn + 8);
                expected++;
            }
        }
    GASNET_BLOCKUNTIL(flood_replies_now() == expected);
    CHECK_EQ(flood_replies_now(), expected);
#if defined(GASNET_PAR)
    __atomic_store_n(&poller_stop, 1, __ATOMIC_SEQ_CST);
    CHECK_EQ(pthread_join(th, NULL), 0);
#endif
    test_barrier(); /* every rank has all its replies, so every request has been handled */
    for (gex_Rank_t s = 0; s < test_size; s++) {
        CHECKF(flood_short_from[s] == FLOOD_SHORT, "flood: %ld Short requests from rank %u, expected %d",
               flood_short_from[s], (unsigned)s, FLOOD_SHORT);
        CHECKF(flood_med_from[s] == FLOOD_MED, "flood: %ld Medium requests from rank %u, expected %d",
               flood_med_from[s], (unsigned)s, FLOOD_MED);
    }
    free(mbuf);
}

/* ---- HSLs ---- */
static gex_HSL_t hsl_static = GEX_HSL_INITIALIZER;
static gasnet_hsl_t ghsl_static = GASNET_HSL_INITIALIZER;
#if defined(GASNET_PAR)
static volatile int holder_state; /* 1: holding, 2: may release */
static long shared_count;
static void *holder_gex(void *arg) {
    gex_HSL_Lock((gex_HSL_t *)arg);
    __atomic_store_n(&holder_state, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&holder_state, __ATOMIC_SEQ_CST) != 2) { }
    gex_HSL_Unlock((gex_HSL_t *)arg);
    return NULL;
}
static void *holder_legacy(void *arg) {
    gasnet_hsl_lock((gasnet_hsl_t *)arg);
    __atomic_store_n(&holder_state, 1, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&holder_state, __ATOMIC_SEQ_CST) != 2) { }
    gasnet_hsl_unlock((gasnet_hsl_t *)arg);
    return NULL;
}
static void *counter_thread(void *arg) {
    for (int i = 0; i < 200000; i++) {
        gex_HSL_Lock((gex_HSL_t *)arg);
        shared_count++;
        gex_HSL_Unlock((gex_HSL_t *)arg);
    }
    return NULL;
}
#endif

static void test_hsl(void) {
    gex_HSL_t dyn;
    gex_HSL_Init(&dyn);
    gex_HSL_Lock(&dyn);
    gex_HSL_Unlock(&dyn);
    CHECK_EQ(gex_HSL_Trylock(&dyn), GASNET_OK);
    gex_HSL_Unlock(&dyn);
    gex_HSL_Lock(&hsl_static);
    gex_HSL_Unlock(&hsl_static);
    CHECK_EQ(gex_HSL_Trylock(&hsl_static), GASNET_OK);
    gex_HSL_Unlock(&hsl_static);

    gasnet_hsl_t gdyn;
    gasnet_hsl_init(&gdyn);
    gasnet_hsl_lock(&gdyn);
    gasnet_hsl_unlock(&gdyn);
    CHECK_EQ(gasnet_hsl_trylock(&gdyn), GASNET_OK);
    gasnet_hsl_unlock(&gdyn);
    CHECK_EQ(gasnet_hsl_trylock(&ghsl_static), GASNET_OK);
    gasnet_hsl_unlock(&ghsl_static);
#if defined(GASNET_PAR)
    /* a lock held by another thread: trylock says NOT_READY, then succeeds once released */
    pthread_t th;
    holder_state = 0;
    CHECK_EQ(pthread_create(&th, NULL, holder_gex, &dyn), 0);
    while (__atomic_load_n(&holder_state, __ATOMIC_SEQ_CST) != 1) { }
    CHECK_EQ(gex_HSL_Trylock(&dyn), GASNET_ERR_NOT_READY);
    __atomic_store_n(&holder_state, 2, __ATOMIC_SEQ_CST);
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(gex_HSL_Trylock(&dyn), GASNET_OK);
    gex_HSL_Unlock(&dyn);

    holder_state = 0;
    CHECK_EQ(pthread_create(&th, NULL, holder_legacy, &gdyn), 0);
    while (__atomic_load_n(&holder_state, __ATOMIC_SEQ_CST) != 1) { }
    CHECK_EQ(gasnet_hsl_trylock(&gdyn), GASNET_ERR_NOT_READY);
    __atomic_store_n(&holder_state, 2, __ATOMIC_SEQ_CST);
    CHECK_EQ(pthread_join(th, NULL), 0);
    CHECK_EQ(gasnet_hsl_trylock(&gdyn), GASNET_OK);
    gasnet_hsl_unlock(&gdyn);

    /* mutual exclusion */
    pthread_t t1, t2;
    shared_count = 0;
    CHECK_EQ(pthread_create(&t1, NULL, counter_thread, &hsl_static), 0);
    CHECK_EQ(pthread_create(&t2, NULL, counter_thread, &hsl_static), 0);
    CHECK_EQ(pthread_join(t1, NULL), 0);
    CHECK_EQ(pthread_join(t2, NULL), 0);
    CHECK_EQ(shared_count, 400000);
#endif
    gex_HSL_Destroy(&dyn);
    gasnet_hsl_destroy(&gdyn);
}

int main(int argc, char **argv) {
    test_init("test_am", &argc, &argv);
    CHECK_EQ(gasnet_AMPoll(), GASNET_OK);
    register_all();
    check_limits();
    test_hsl();

    /* segment: 2N Long landing zones + one in-segment source area */
    size_t biggest = 0;
    gex_Event_t ev;
    const gex_Event_t *lcs[3] = { GEX_EVENT_NOW, &ev, GEX_EVENT_GROUP };
    for (int q = 0; q < 4; q++)
        for (int l = 0; l < 3; l++)
            for (gex_Rank_t r = 0; r < test_size; r++) {
                if (l == 2 && (q == Q_REP_MED || q == Q_REP_LONG)) continue;
                size_t v = q_max(q, r, lcs[l], 0);
                if (v > biggest) biggest = v;
            }
    slot_bytes = (biggest + 128 + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    uintptr_t segsz = (uintptr_t)slot_bytes * (2 * (uintptr_t)test_size + 1);
    uintptr_t maxlocal = gasnet_getMaxLocalSegmentSize();
    CHECKF(segsz <= maxlocal, "the AM limits (largest payload %zu) need a %llu-byte segment, "
           "gasnet_getMaxLocalSegmentSize() is %llu", biggest, (unsigned long long)segsz, (unsigned long long)maxlocal);
    gex_Segment_t seg = test_attach(segsz);
    myseg = (uint8_t *)gex_Segment_QueryAddr(seg);
    scratch = myseg + 2 * (size_t)test_size * slot_bytes;
    heapbuf = (uint8_t *)malloc(slot_bytes);
    peer_seg = (uint8_t **)calloc(test_size, sizeof(uint8_t *));
    rep_buf = (uint8_t **)calloc(test_size, sizeof(uint8_t *));
    ask_buf = (uint8_t **)calloc(test_size, sizeof(uint8_t *));
    flood_short_from = (long *)calloc(test_size, sizeof(long));
    flood_med_from = (long *)calloc(test_size, sizeof(long));
    CHECK(heapbuf && peer_seg && rep_buf && ask_buf && flood_short_from && flood_med_from);
    for (gex_Rank_t r = 0; r < test_size; r++) {
        void *own = NULL;
        uintptr_t sz = 0;
        CHECK_EQ(gex_Segment_QueryBound(test_tm, r, &own, NULL, &sz), 0);
        CHECK_EQ(sz, segsz); /* everybody asked for the same size */
        peer_seg[r] = (uint8_t *)own;
        rep_buf[r] = (uint8_t *)malloc(slot_bytes);
        ask_buf[r] = (uint8_t *)malloc(slot_bytes);
        CHECK(rep_buf[r] && ask_buf[r]);
    }
    test_barrier(); /* handlers were registered before the attach barrier; buffers are ready now */

    /* the limits are symmetric between every pair of ranks */
    {
        uint64_t mine[NQ];
        for (gex_Rank_t r = 0; r < test_size; r++) {
            for (int q = 0; q < NQ; q++) mine[q] = q_max(q % 4, r, GEX_EVENT_NOW, q < 4 ? 0 : MAXARGS);
            CHECK_EQ(gex_AM_RequestMedium0(test_tm, r, h_maxcheck, mine, sizeof mine, GEX_EVENT_NOW, 0), 0);
        }
        TEST_POLL_UNTIL(__atomic_load_n(&maxcheck_got, __ATOMIC_SEQ_CST) == (long)test_size, WAIT_SECS,
                        "maxcheck: %ld of %u", maxcheck_got, (unsigned)test_size);
    }

    test_args();
    test_barrier();
    test_payloads(1);
    test_barrier();
    test_payloads(0);
    test_barrier();
    pend_drain();
    test_flood();

    /* handlers from the second registration call work */
    gex_Rank_t right = (test_rank + 1) % test_size;
    for (int k = 0; k < 3; k++) CHECK_EQ(gex_AM_RequestShort0(test_tm, right, h_extra[k], 0), 0);
    for (int k = 0; k < 3; k++)
        TEST_POLL_UNTIL(__atomic_load_n(&extra_got[k], __ATOMIC_SEQ_CST) == 1, WAIT_SECS, "extra handler %d", k);
    test_barrier();
    pend_drain();
    CHECK_EQ(pend_n, 0);

    test_finish("%ld round trips (largest payload %zu), %u reply events synced later, flood of %d+%d per pair",
                n_round_trips, biggest, (unsigned)pend_synced, FLOOD_SHORT, FLOOD_MED);
    return 0;
}
