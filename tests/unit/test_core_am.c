/* tests/unit/test_core_am.c: the core alone. Linked with tests/unit/libgasnet-smp-seq-core.a
 * (gasnet_core/ and smp-conduit, no gasnet_extended/: a link error here means the core
 * names the extended layer again), it starts a job through gasneti_Client_Init with an
 * empty layer record (no handlers, progress or quiesce from above), attaches a segment,
 * and sends Short (16 arguments), Medium and Long requests to itself and to the next
 * rank (on more than one rank); each request handler checks what arrived and answers
 * with a reply of the same category, whose handler checks it in turn. Every rank checks
 * that all its replies and all the requests meant for it arrived, each once.
 * Layer: tests (unit; uses gasnet_core/gasneti_internal.h). */
#include <gasnetex.h>
#include <gasnet.h>
#include "gasneti_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "unit_check.h"

enum { H_SHORT_REQ = GEX_AM_INDEX_BASE, H_SHORT_REP, H_MED_REQ, H_MED_REP, H_LONG_REQ, H_LONG_REP };
enum { SHORT, MEDIUM, LONG, NCAT };
#define NARGS 16
#define LONG_BYTES ((size_t)8192)
#define SEG_BYTES ((size_t)65536)
/* where Longs land in a segment: requests from the rank itself and from its left
 * neighbour at [0, 16K) and [16K, 32K), replies from itself and its right one above */
#define REQ_OFF(from_self) ((from_self) ? 0 : 16384)
#define REP_OFF(from_self) (32768 + ((from_self) ? 0 : 16384))

static gex_Rank_t me, nranks;
static gex_TM_t tm;
static size_t med_bytes;                 /* the largest Medium request payload */
static uint8_t *seg;                     /* my segment */
static gasnet_seginfo_t *segs;           /* everyone's */
static uint8_t *scratch;                 /* reply payloads (sent with lc NOW) */
static volatile int reqs_seen[NCAT];     /* requests handled, per category */
static volatile int reps_seen[NCAT];     /* replies handled, per category */

/* payload byte i of a message from `from` to `to`, request or reply */
static uint8_t pattern(gex_Rank_t from, gex_Rank_t to, int is_req, size_t i) {
    return (uint8_t)(from * 31 + to * 7 + is_req * 101 + i * 13 + (i >> 8));
}
static void fill(uint8_t *p, size_t n, gex_Rank_t from, gex_Rank_t to, int is_req) {
    for (size_t i = 0; i < n; i++) p[i] = pattern(from, to, is_req, i);
}
static int matches(const uint8_t *p, size_t n, gex_Rank_t from, gex_Rank_t to, int is_req) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != pattern(from, to, is_req, i)) return 0;
    return 1;
}
static gex_Rank_t src_of(gex_Token_t t) {
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(t, &info, GEX_TI_SRCRANK) & GEX_TI_SRCRANK);
    return info.gex_srcrank;
}
/* the requests rank r sends: to itself and, on more than one rank, to the next one */
static int is_sender_to_me(gex_Rank_t r) { return r == me || (nranks > 1 && (r + 1) % nranks == me); }

/* Short: 16 arguments a_i = from * 1000 + i (the reply: + 500) */
#define A(from, i, rep) ((gex_AM_Arg_t)((from)*1000 + (i) + ((rep) ? 500 : 0)))
static void check_args(const gex_AM_Arg_t *a, gex_Rank_t from, int rep) {
    int ok = 1;
    for (int i = 0; i < NARGS; i++) ok &= a[i] == A(from, i, rep);
    CHECK(ok);
}
static void short_req(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3,
                      gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8,
                      gex_AM_Arg_t a9, gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13,
                      gex_AM_Arg_t a14, gex_AM_Arg_t a15) {
    gex_Rank_t from = src_of(t);
    const gex_AM_Arg_t a[NARGS] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
    CHECK(is_sender_to_me(from));
    check_args(a, from, 0);
    reqs_seen[SHORT]++;
    gex_AM_ReplyShort16(t, H_SHORT_REP, 0, A(me, 0, 1), A(me, 1, 1), A(me, 2, 1), A(me, 3, 1), A(me, 4, 1),
                        A(me, 5, 1), A(me, 6, 1), A(me, 7, 1), A(me, 8, 1), A(me, 9, 1), A(me, 10, 1), A(me, 11, 1),
                        A(me, 12, 1), A(me, 13, 1), A(me, 14, 1), A(me, 15, 1));
}
static void short_rep(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3,
                      gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8,
                      gex_AM_Arg_t a9, gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13,
                      gex_AM_Arg_t a14, gex_AM_Arg_t a15) {
    const gex_AM_Arg_t a[NARGS] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
    check_args(a, src_of(t), 1);
    reps_seen[SHORT]++;
}

/* Medium: the largest payload, argument = its length */
static void med_req(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t len) {
    gex_Rank_t from = src_of(t);
    CHECK(is_sender_to_me(from));
    CHECK(n == (size_t)(uint32_t)len && n == med_bytes);
    CHECK(matches(buf, n, from, me, 1));
    reqs_seen[MEDIUM]++;
    size_t rn = n < gex_AM_LUBReplyMedium() ? n : gex_AM_LUBReplyMedium();
    fill(scratch, rn, me, from, 0);
    gex_AM_ReplyMedium1(t, H_MED_REP, scratch, rn, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)rn);
}
static void med_rep(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t len) {
    gex_Rank_t from = src_of(t);
    CHECK(n == (size_t)(uint32_t)len && n > 0);
    CHECK(matches(buf, n, from, me, 0));
    reps_seen[MEDIUM]++;
}

/* Long: LONG_BYTES into the target's segment; the reply Long into the requester's */
static void long_req(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t rep_off) {
    gex_Rank_t from = src_of(t);
    CHECK(is_sender_to_me(from));
    CHECK(n == LONG_BYTES && buf == seg + REQ_OFF(from == me));
    CHECK(matches(buf, n, from, me, 1));
    reqs_seen[LONG]++;
    fill(scratch, n, me, from, 0);
    gex_AM_ReplyLong0(t, H_LONG_REP, scratch, n, (uint8_t *)segs[from].addr + (uint32_t)rep_off, GEX_EVENT_NOW, 0);
}
static void long_rep(gex_Token_t t, void *buf, size_t n) {
    gex_Rank_t from = src_of(t);
    CHECK(n == LONG_BYTES && buf == seg + REP_OFF(from == me));
    CHECK(matches(buf, n, from, me, 0));
    reps_seen[LONG]++;
}

static gex_AM_Entry_t handlers[] = {
    {H_SHORT_REQ, (gex_AM_Fn_t)short_req, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, NARGS, NULL, "short_req"},
    {H_SHORT_REP, (gex_AM_Fn_t)short_rep, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, NARGS, NULL, "short_rep"},
    {H_MED_REQ, (gex_AM_Fn_t)med_req, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "med_req"},
    {H_MED_REP, (gex_AM_Fn_t)med_rep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "med_rep"},
    {H_LONG_REQ, (gex_AM_Fn_t)long_req, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "long_req"},
    {H_LONG_REP, (gex_AM_Fn_t)long_rep, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 0, NULL, "long_rep"},
};

static void send_all(gex_Rank_t to, uint8_t *src) {
    CHECK(gex_AM_RequestShort16(tm, to, H_SHORT_REQ, 0, A(me, 0, 0), A(me, 1, 0), A(me, 2, 0), A(me, 3, 0),
                                A(me, 4, 0), A(me, 5, 0), A(me, 6, 0), A(me, 7, 0), A(me, 8, 0), A(me, 9, 0),
                                A(me, 10, 0), A(me, 11, 0), A(me, 12, 0), A(me, 13, 0), A(me, 14, 0),
                                A(me, 15, 0)) == GASNET_OK);
    fill(src, med_bytes, me, to, 1);
    CHECK(gex_AM_RequestMedium1(tm, to, H_MED_REQ, src, med_bytes, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)med_bytes) ==
          GASNET_OK);
    fill(src, LONG_BYTES, me, to, 1);
    CHECK(gex_AM_RequestLong1(tm, to, H_LONG_REQ, src, LONG_BYTES, (uint8_t *)segs[to].addr + REQ_OFF(to == me),
                              GEX_EVENT_NOW, 0, (gex_AM_Arg_t)REP_OFF(to == me)) == GASNET_OK);
}

int main(int argc, char **argv) {
    /* what the extended layer would register: nothing (gasneti_internal.h allows NULLs) */
    static const struct gasneti_layer_s no_layer = {NULL, NULL, NULL};
    gex_Client_t client;
    gex_EP_t ep;
    gex_Segment_t segment;
    if (gasneti_Client_Init(&GASNETI_LINKCONFIG, &no_layer, &client, &ep, &tm, "TEST_CORE_AM", &argc, &argv, 0) !=
        GASNET_OK) {
        fprintf(stderr, "test_core_am: gasneti_Client_Init failed\n");
        return 1;
    }
    me = gex_TM_QueryRank(tm);
    nranks = gex_TM_QuerySize(tm);
    snprintf(unit_who, sizeof unit_who, "test_core_am [rank %u of %u]", (unsigned)me, (unsigned)nranks);
    if (gex_Segment_Attach(&segment, tm, SEG_BYTES) != GASNET_OK) {
        fprintf(stderr, "test_core_am [rank %u]: gex_Segment_Attach failed\n", (unsigned)me);
        gasnet_exit(1);
    }
    seg = gex_Segment_QueryAddr(segment);
    CHECK(gex_EP_RegisterHandlers(ep, handlers, sizeof handlers / sizeof handlers[0]) == GASNET_OK);
    segs = calloc(nranks, sizeof *segs);
    CHECK(segs && gasnet_getSegmentInfo(segs, (int)nranks) == GASNET_OK && segs[me].addr == seg);
    med_bytes = gex_AM_LUBRequestMedium();
    CHECK(med_bytes >= 512 && gex_AM_LUBRequestLong() >= LONG_BYTES);
    uint8_t *src = malloc(med_bytes > LONG_BYTES ? med_bytes : LONG_BYTES);
    scratch = malloc(med_bytes > LONG_BYTES ? med_bytes : LONG_BYTES);
    if (!src || !scratch || !segs) {
        fprintf(stderr, "test_core_am [rank %u]: out of memory\n", (unsigned)me);
        gasnet_exit(1);
    }

    /* to itself: run before the call returns (gasneti_am.c's loopback) */
    send_all(me, src);
    for (int c = 0; c < NCAT; c++) CHECK(reqs_seen[c] == 1 && reps_seen[c] == 1);
    /* to the next rank, through the neighbourhood's shared memory; the previous one sends to us */
    int expect = 1 + (nranks > 1);
    if (nranks > 1) send_all((me + 1) % nranks, src);
    GASNET_BLOCKUNTIL(reqs_seen[SHORT] == expect && reqs_seen[MEDIUM] == expect && reqs_seen[LONG] == expect &&
                      reps_seen[SHORT] == expect && reps_seen[MEDIUM] == expect && reps_seen[LONG] == expect);
    for (int c = 0; c < NCAT; c++) CHECK(reqs_seen[c] == expect && reps_seen[c] == expect);

    char detail[160];
    snprintf(detail, sizeof detail, " (Short, Medium of %zu bytes, Long of %zu, to itself%s)", med_bytes, LONG_BYTES,
             nranks > 1 ? " and the next rank" : "");
    free(src);
    unit_end(detail);
    return 0;
}
