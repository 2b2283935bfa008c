/* tests/api/test_mixed.c: one client using the GASNet-1 API (gasnet.h) and the EX API
 * (gasnetex.h) together, as the EX spec allows after gex_Client_Init with
 * GEX_FLAG_USES_GASNET1: gasnet_mynode/nodes against the TM queries; gasnet_getSegmentInfo
 * against gex_Segment_QueryBound for a segment made by gex_Segment_Attach; legacy AM
 * requests (gasnet_AMRequestShort2/Medium1) to handlers registered with
 * gex_EP_RegisterHandlers, replying with gex_AM_ReplyShort and reading the source with
 * gasnet_AMGetMsgSource; an EX request to a handler that replies with gasnet_AMReplyShort1;
 * gex_RMA_PutNB synced by gasnet_wait_syncnb (handles are events) and gasnet_put_nb_bulk
 * synced by gex_Event_Wait; gasnet_put_nbi with gex_NBI_Wait; gasnet_hsl and gex_HSL on one
 * handler's data; gasnet_barrier_notify/wait between gex_Coll_BarrierNB calls.
 * Layer: tests (public API only). */
#include "test_util.h"

enum { H_PING = 200, H_PONG, H_MED, H_EXPING, H_EXPONG };
static volatile int pongs, meds, expongs;
static gasnet_hsl_t hsl = GASNET_HSL_INITIALIZER;
static long sum;

static void ping(gex_Token_t t, gex_AM_Arg_t a, gex_AM_Arg_t b) {
    gasnet_node_t src;
    CHECK_EQ(gasnet_AMGetMsgSource(t, &src), GASNET_OK);
    CHECK_EQ((uint32_t)a, (uint32_t)src);
    CHECK_EQ((uint32_t)b, 0xabcdu);
    gex_AM_ReplyShort1(t, H_PONG, 0, (gex_AM_Arg_t)gasnet_mynode());
}
static void pong(gex_Token_t t, gex_AM_Arg_t who) {
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    CHECK_EQ((uint32_t)who, (uint32_t)ti.gex_srcrank);
    __atomic_add_fetch(&pongs, 1, __ATOMIC_RELAXED);
}
static void med(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t v) {
    (void)t;
    CHECK_EQ(n, 64);
    CHECK_PAT(buf, n, (uint64_t)v, "legacy Medium payload");
    gasnet_hsl_lock(&hsl);
    sum += v;
    gasnet_hsl_unlock(&hsl);
    __atomic_add_fetch(&meds, 1, __ATOMIC_RELAXED);
}
static void exping(gasnet_token_t t, gasnet_handlerarg_t x) { gasnet_AMReplyShort1(t, H_EXPONG, x + 1); }
static void expong(gex_Token_t t, gex_AM_Arg_t x) {
    (void)t;
    CHECK_EQ((uint32_t)x, 43u);
    __atomic_add_fetch(&expongs, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv) {
    test_init("test_mixed", &argc, &argv);
    CHECK_EQ(gasnet_mynode(), gex_TM_QueryRank(test_tm));
    CHECK_EQ(gasnet_nodes(), gex_TM_QuerySize(test_tm));
    gex_AM_Entry_t tab[] = {
        {H_PING, (gex_AM_Fn_t)ping, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "ping"},
        {H_PONG, (gex_AM_Fn_t)pong, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "pong"},
        {H_MED, (gex_AM_Fn_t)med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "med"},
        {H_EXPING, (gex_AM_Fn_t)exping, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "exping"},
        {H_EXPONG, (gex_AM_Fn_t)expong, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "expong"},
    };
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, 5), GASNET_OK);
    test_attach(1 << 20);

    /* the legacy segment table describes the EX segments */
    gasnet_seginfo_t *si = calloc(gasnet_nodes(), sizeof(*si));
    CHECK(si);
    CHECK_EQ(gasnet_getSegmentInfo(si, (int)gasnet_nodes()), GASNET_OK);
    for (gex_Rank_t r = 0; r < test_size; r++) {
        void *a;
        uintptr_t sz;
        CHECK_EQ(gex_Segment_QueryBound(test_tm, r, &a, NULL, &sz), 0);
        CHECK(si[r].addr == a && si[r].size == sz);
    }
    /* gasnet_getNodeInfo: my neighbors share my supernode and are reached at the offset */
    gasnet_nodeinfo_t *ni = calloc(gasnet_nodes(), sizeof(*ni));
    CHECK(ni);
    CHECK_EQ(gasnet_getNodeInfo(ni, (int)gasnet_nodes()), GASNET_OK);
    CHECK_EQ(ni[test_rank].offset, 0);
    for (gex_Rank_t r = 0; r < test_size; r++) {
        void *owner, *local;
        CHECK_EQ(gex_Segment_QueryBound(test_tm, r, &owner, &local, NULL), 0);
        if (local) {
            CHECK_EQ(ni[r].supernode, ni[test_rank].supernode);
            CHECK_EQ(ni[r].host, ni[test_rank].host);
            CHECK((char *)owner + ni[r].offset == (char *)local);
        } else {
            CHECK(ni[r].supernode != ni[test_rank].supernode);
        }
    }
    gex_Rank_t right = (test_rank + 1) % test_size;
    uint8_t *rseg = si[right].addr, *myseg = si[test_rank].addr;
    gex_Event_Wait(gex_Coll_BarrierNB(test_tm, 0));

    /* legacy requests to EX handlers, EX request to a legacy-style handler */
    for (int i = 0; i < 10; i++) gasnet_AMRequestShort2(right, H_PING, (gasnet_handlerarg_t)gasnet_mynode(), 0xabcd);
    static uint8_t payload[64];
    test_pat_fill(payload, 64, (uint64_t)test_rank + 1);
    gasnet_AMRequestMedium1(right, H_MED, payload, 64, (gasnet_handlerarg_t)test_rank + 1);
    gex_AM_RequestShort1(test_tm, right, H_EXPING, 0, 42);
    GASNET_BLOCKUNTIL(pongs == 10 && meds == 1 && expongs == 1);
    gasnet_hsl_lock(&hsl);
    CHECK_EQ(sum, (long)((test_rank + test_size - 1) % test_size) + 1);
    gasnet_hsl_unlock(&hsl);

    /* RMA: EX initiation with legacy sync and the other way round */
    static uint8_t buf[4096], back[4096];
    test_pat_fill(buf, sizeof buf, 0x1000 + test_rank);
    gasnet_handle_t h = gex_RMA_PutNB(test_tm, right, rseg, buf, 1024, GEX_EVENT_DEFER, 0);
    gasnet_wait_syncnb(h);
    gex_Event_Wait(gasnet_put_nb_bulk(right, rseg + 1024, buf + 1024, 1024));
    gasnet_put_nbi(right, rseg + 2048, buf + 2048, 2048);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    gasnet_barrier_notify(7, 0);
    CHECK_EQ(gasnet_barrier_wait(7, 0), GASNET_OK);
    gex_Event_Wait(gex_Coll_BarrierNB(test_tm, 0));
    gex_Rank_t left = (test_rank + test_size - 1) % test_size;
    CHECK_PAT(myseg, 4096, 0x1000 + left, "puts from the left neighbor");
    gasnet_get(back, right, rseg, 4096);
    CHECK_PAT(back, 4096, 0x1000 + test_rank, "get back of my puts");

    /* handler-safe locks: both kinds in one process */
    gex_HSL_t exl = GEX_HSL_INITIALIZER;
    gex_HSL_Lock(&exl);
    gasnet_hsl_lock(&hsl);
    gasnet_hsl_unlock(&hsl);
    gex_HSL_Unlock(&exl);
    test_finish("legacy and EX calls mixed: AMs, RMA with either sync, segments, barriers");
    return 0;
}
