/* tests/api/test_tracesum.c: a job of known puts, gets, barriers and internal calls, each
 * from a source line marked "T:<name>", for tests/api/test_gasnet_trace.sh to find in
 * gasnet_trace's report. Built against the smp library with tracing compiled in
 * (tests/tests.am). Each rank, towards its right neighbor unless said: T:putself an NBI
 * put of 250 bytes to itself; T:putloop 3 blocking puts of 100 bytes; T:putvar NB puts
 * of 10 and 1000 bytes; T:get 2 blocking gets of 64 bytes; T:getnbi an NBI get of 16
 * bytes; T:memset gasnet_memset of 40 bytes (the library's own puts: internal);
 * T:notify / T:wait a legacy split-phase barrier; T:bblock gex_Coll_BarrierBlocking.
 * Layer: tests (public API only). */
#include "test_util.h"

#include <gasnet.h>

int main(int argc, char **argv) {
    test_init("test_tracesum", &argc, &argv);
    test_attach(1 << 16);
    CHECK(strstr(gasnet_config_string(), ",trace,"));
    gex_Rank_t right = (test_rank + 1) % test_size;
    void *rseg, *myseg;
    CHECK_EQ(gex_Segment_QueryBound(test_tm, right, &rseg, NULL, NULL), 0);
    CHECK_EQ(gex_Segment_QueryBound(test_tm, test_rank, &myseg, NULL, NULL), 0);
    static char buf[4096];
    test_barrier();

    gex_RMA_PutNBI(test_tm, test_rank, (char *)myseg + 8192, buf, 250, GEX_EVENT_DEFER, 0); /* T:putself */
    gex_NBI_Wait(GEX_EC_ALL, 0);
    for (int i = 0; i < 3; i++) gex_RMA_PutBlocking(test_tm, right, rseg, buf, 100, 0); /* T:putloop */
    for (int i = 0; i < 2; i++) {
        size_t n = i ? 1000 : 10;
        gex_Event_Wait(gex_RMA_PutNB(test_tm, right, rseg, buf, n, GEX_EVENT_DEFER, 0)); /* T:putvar */
    }
    for (int i = 0; i < 2; i++) gex_RMA_GetBlocking(test_tm, buf, right, rseg, 64, 0); /* T:get */
    gex_RMA_GetNBI(test_tm, buf, right, rseg, 16, 0); /* T:getnbi */
    gex_NBI_Wait(GEX_EC_ALL, 0);
    gasnet_memset(right, (char *)rseg + 4096, 7, 40); /* T:memset */

    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS); /* T:notify */
    CHECK_EQ(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS), GASNET_OK); /* T:wait */
    gex_Coll_BarrierBlocking(test_tm, 0); /* T:bblock */
    CHECK_EQ(((unsigned char *)myseg)[4096 + 39], 7); /* the left neighbor's memset arrived */
#if !GASNETT_TRACE_ENABLED
#  error "test_tracesum must be built against a library with tracing (-DGASNETI_TRACE=1)"
#endif
    test_finish("traced");
    return 0;
}
