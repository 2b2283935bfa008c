/* tests/api/test_badarg.c: one misuse per run, driven by tests/api/test_badarg.sh, which
 * checks that a debug build stops the job with a message naming the call and the value.
 *   ok          correct use (the control case): exits 0
 *   bigseg      attaches gasnet_getMaxLocalSegmentSize() bytes (run with a huge GASNET_MAX_SEGSIZE)
 *   rank        gex_AM_RequestShort0 to rank 12345
 *   segment     gex_RMA_PutBlocking to an address past the end of a peer's segment
 *   handler     gex_AM_RequestShort0 to handler index 201, never registered
 *   nargs       gex_AM_RequestShort5 to a handler registered with 1 argument
 *   category    gex_AM_RequestMedium0 to a handler registered as Short
 *   medium-size gex_AM_RequestMedium0 one byte over gex_AM_MaxRequestMedium
 *   reply2      a request handler that replies twice (gex_AM_ReplyShort0)
 *   in-handler  a request handler that calls gex_RMA_PutBlocking
 * Rank 0 misbehaves; the other ranks wait in a barrier.  Prints "BADVALUE=<value>" on
 * stdout first for the driver.  Layer: tests (public API only). */
#include "test_util.h"

static gex_AM_Index_t h_short1 = 200, h_reply2 = 202, h_inh = 203, h_rep = 204;
static uint8_t *seg_base, *peer_base;

static void short1_handler(gex_Token_t t, gex_AM_Arg_t a) { (void)t; (void)a; }
static void rep_handler(gex_Token_t t) { (void)t; }
static void reply2_handler(gex_Token_t t) {
    gex_AM_ReplyShort0(t, h_rep, 0);
    gex_AM_ReplyShort0(t, h_rep, 0); /* the second reply: erroneous */
}
static void inh_handler(gex_Token_t t) {
    (void)t;
    uint64_t v = 1;
    gex_RMA_PutBlocking(test_tm, test_rank, seg_base, &v, sizeof v, 0); /* not allowed in a handler */
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "ok";
    test_init("test_badarg", &argc, &argv);
    gex_AM_Entry_t tab[4] = {
        { 200, (gex_AM_Fn_t)short1_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "short1" },
        { 202, (gex_AM_Fn_t)reply2_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "reply2" },
        { 203, (gex_AM_Fn_t)inh_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "in_handler" },
        { 204, (gex_AM_Fn_t)rep_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "rep" },
    };
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, 4), GASNET_OK);
    uintptr_t segsz = GASNET_PAGESIZE * 4;
    if (!strcmp(mode, "bigseg")) segsz = gasnet_getMaxLocalSegmentSize();
    gex_Segment_t seg = test_attach(segsz);
    seg_base = (uint8_t *)gex_Segment_QueryAddr(seg);
    const gex_Rank_t peer = (test_rank + 1) % test_size;
    uintptr_t peer_size = 0;
    void *own = NULL;
    CHECK_EQ(gex_Segment_QueryBound(test_tm, peer, &own, NULL, &peer_size), 0);
    peer_base = (uint8_t *)own;
    test_barrier();

    if (!strcmp(mode, "ok") || !strcmp(mode, "bigseg")) {
        CHECK_EQ(gex_AM_RequestShort1(test_tm, peer, h_short1, 0, 5), 0);
        uint64_t v = 42, w = 0;
        CHECK_EQ(gex_RMA_PutBlocking(test_tm, peer, peer_base, &v, sizeof v, 0), 0);
        CHECK_EQ(gex_RMA_GetBlocking(test_tm, &w, peer, peer_base, sizeof w, 0), 0);
        CHECK_EQ(w, 42);
        test_finish("correct use accepted");
    }
    if (test_rank == 0) {
        setvbuf(stderr, NULL, _IONBF, 0);
        if (!strcmp(mode, "rank")) {
            printf("BADVALUE=12345\n");
            fflush(stdout);
            gex_AM_RequestShort0(test_tm, 12345, h_short1, 0);
        } else if (!strcmp(mode, "segment")) {
            uint8_t *bad = peer_base + peer_size + 3 * GASNET_PAGESIZE;
            printf("BADVALUE=%p\n", (void *)bad);
            fflush(stdout);
            uint64_t v = 1;
            gex_RMA_PutBlocking(test_tm, peer, bad, &v, sizeof v, 0);
        } else if (!strcmp(mode, "handler")) {
            printf("BADVALUE=201\n");
            fflush(stdout);
            gex_AM_RequestShort0(test_tm, peer, 201, 0);
        } else if (!strcmp(mode, "nargs")) {
            printf("BADVALUE=5\n");
            fflush(stdout);
            gex_AM_RequestShort5(test_tm, peer, h_short1, 0, 1, 2, 3, 4, 5);
        } else if (!strcmp(mode, "category")) {
            printf("BADVALUE=%d\n", (int)h_short1);
            fflush(stdout);
            char buf[8] = { 0 };
            gex_AM_RequestMedium0(test_tm, peer, h_short1, buf, sizeof buf, GEX_EVENT_NOW, 0);
        } else if (!strcmp(mode, "medium-size")) {
            size_t n = gex_AM_MaxRequestMedium(test_tm, peer, GEX_EVENT_NOW, 0, 0) + 1;
            printf("BADVALUE=%zu\n", n);
            fflush(stdout);
            char *buf = (char *)calloc(1, n);
            gex_AM_RequestMedium0(test_tm, peer, h_short1, buf, n, GEX_EVENT_NOW, 0);
        } else if (!strcmp(mode, "reply2")) {
            printf("BADVALUE=\n");
            fflush(stdout);
            gex_AM_RequestShort0(test_tm, peer, h_reply2, 0);
        } else if (!strcmp(mode, "in-handler")) {
            printf("BADVALUE=\n");
            fflush(stdout);
            gex_AM_RequestShort0(test_tm, peer, h_inh, 0);
        } else {
            CHECKF(0, "unknown mode \"%s\"", mode);
        }
        /* the error may be detected at the target; keep polling until the job is ended */
        double t0 = test_now();
        while (test_now() - t0 < 15) gasnet_AMPoll();
        fprintf(stderr, "test_badarg: mode %s was not detected\n", mode);
        gasnet_exit(0);
    }
    double t0 = test_now();
    while (test_now() - t0 < 15) gasnet_AMPoll(); /* serve rank 0's requests */
    gasnet_exit(0);
    return 0;
}
