/* tests/api/test_trace.c: a small job whose every operation is known, for
 * tests/api/test_diag.sh to find in the trace and statistics files. Built against a
 * library compiled with tracing and statistics (tests/tests.am: -DGASNETI_TRACE=1
 * -DGASNETI_STATS=1). Each rank, towards its right neighbor: 3 AM Short requests (each
 * answered by a Short reply), 2 Mediums of 100 bytes, 1 Long of 200 bytes; puts of 4096
 * bytes: 2 blocking, 1 NB, 1 NBI; gets of 512 bytes: 1 blocking, 2 NB; 1 atomic FADD;
 * GASNETT_TRACE_PRINTF("client message %d", 42) and GASNETT_STATS_PRINTF("client stat
 * %d", 7); barriers around it all. Then GASNETT_STATS_DUMP(1) (a statistics block now,
 * counting again from zero) and one more blocking put of 4096 bytes, which is the only
 * put the block written at exit holds.
 * Layer: tests (public API only). */
#include "test_util.h"

#include <gasnet_ratomic.h>

static volatile int replies, arrived;
static void req_short(gex_Token_t t) {
    __atomic_add_fetch(&arrived, 1, __ATOMIC_RELAXED);
    gex_AM_ReplyShort0(t, 201, 0);
}
static void rep_short(gex_Token_t t) {
    (void)t;
    __atomic_add_fetch(&replies, 1, __ATOMIC_RELAXED);
}
static void req_medlong(gex_Token_t t, void *buf, size_t n) {
    (void)t, (void)buf, (void)n;
    __atomic_add_fetch(&arrived, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv) {
    test_init("test_trace", &argc, &argv);
    gex_AM_Entry_t tab[] = {
        {200, (gex_AM_Fn_t)req_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "req_short"},
        {201, (gex_AM_Fn_t)rep_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "rep_short"},
        {202, (gex_AM_Fn_t)req_medlong, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQUEST, 0, NULL, "req_medlong"},
    };
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, 3), GASNET_OK);
    test_attach(1 << 20);
    CHECK(strstr(gasnet_config_string(), ",trace,stats,"));
    gex_Rank_t right = (test_rank + 1) % test_size;
    void *rseg;
    CHECK_EQ(gex_Segment_QueryBound(test_tm, right, &rseg, NULL, NULL), 0);
    static char buf[4096];
    test_barrier();

    for (int i = 0; i < 3; i++) gex_AM_RequestShort0(test_tm, right, 200, 0);
    for (int i = 0; i < 2; i++) gex_AM_RequestMedium0(test_tm, right, 202, buf, 100, GEX_EVENT_NOW, 0);
    gex_AM_RequestLong0(test_tm, right, 202, buf, 200, rseg, GEX_EVENT_NOW, 0);
    TEST_POLL_UNTIL(replies == 3 && arrived == 6, 60, "replies %d, arrived %d", replies, arrived);

    gex_RMA_PutBlocking(test_tm, right, rseg, buf, 4096, 0);
    gex_RMA_PutBlocking(test_tm, right, rseg, buf, 4096, 0);
    gex_Event_Wait(gex_RMA_PutNB(test_tm, right, rseg, buf, 4096, GEX_EVENT_DEFER, 0));
    gex_RMA_PutNBI(test_tm, right, rseg, buf, 4096, GEX_EVENT_DEFER, 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    gex_RMA_GetBlocking(test_tm, buf, right, rseg, 512, 0);
    gex_Event_t ev[2] = {gex_RMA_GetNB(test_tm, buf, right, rseg, 512, 0),
                         gex_RMA_GetNB(test_tm, buf + 512, right, rseg, 512, 0)};
    gex_Event_WaitAll(ev, 2, 0);

    gex_AD_t ad;
    gex_AD_Create(&ad, test_tm, GEX_DT_U64, GEX_OP_FADD, 0);
    uint64_t old;
    test_barrier();
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, right, (char *)rseg + 8192, GEX_OP_FADD, 1, 0, 0));
    test_barrier();
    gex_AD_Destroy(ad);

    GASNETT_TRACE_PRINTF("client message %d", 42);
    GASNETT_STATS_PRINTF("client stat %d", 7);
    GASNETT_STATS_DUMP(1);
    gex_RMA_PutBlocking(test_tm, right, rseg, buf, 4096, 0);
#if !GASNETT_TRACE_ENABLED
#  error "test_trace must be built against a library with tracing (-DGASNETI_TRACE=1)"
#endif
    test_finish("traced");
    return 0;
}
