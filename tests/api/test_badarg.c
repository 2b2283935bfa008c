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
 *   in-handler-get     a request handler that calls gex_RMA_GetBlocking
 *   segflags-excl      gex_RMA_PutBlocking with GEX_FLAG_PEER_SEG_BOUND | GEX_FLAG_PEER_SEG_SOME
 *   segflags-offset    gex_RMA_PutBlocking with GEX_FLAG_PEER_SEG_OFFSET past the segment's size
 *   val-size           gex_RMA_PutBlockingVal of 9 bytes (more than a gex_RMA_Value_t)
 *   region-nested      gex_NBI_BeginAccessRegion while a region is open
 *   region-end         gex_NBI_EndAccessRegion without a Begin
 *   region-nbi         gex_NBI_Wait inside an access region
 *   leaf-all           gex_Event_QueryLeaf with GEX_EC_ALL
 *   event-in-handler   a request handler that calls gex_Event_Wait
 *   prepare-nested     gex_AM_PrepareRequestMedium while another Prepare is pending
 *   prepare-between    gex_RMA_PutBlocking between a Prepare and its Commit
 *   srcdesc-noop       gex_AM_SrcDescAddr(GEX_AM_SRCDESC_NO_OP)
 *   reply-hsl          a request handler that replies while holding an HSL
 *   commit-size        (every build) gex_AM_CommitRequestMedium with 1 byte more than prepared
 *   prepare-least      (every build) gex_AM_PrepareRequestMedium with least_payload above the maximum
 *   vis-length         gex_VIS_VectorPutBlocking with 16 destination bytes and 24 source bytes
 *   vis-segment        gex_VIS_StridedPutBlocking whose last row lies past the end of a peer's segment
 *   ad-op              gex_AD_OpNB_U64 with GEX_OP_FSUB on a domain created for GEX_OP_FADD only
 *   coll1-flags        gasnet_coll_broadcast with GASNET_COLL_IN_MYSYNC | GASNET_COLL_LOCAL (no OUT flag)
 *   coll1-segment      gasnet_coll_gather_all with GASNET_COLL_DST_IN_SEGMENT and a destination on the stack
 *   coll1-image        (every build) gasnet_coll_scatter from image == team size
 *   client-null, client-empty  (every build) gex_Client_Init with a NULL or "" clientName
 *                      (any other name is accepted: the tests' own is lower-case)
 *   peer-never-self    gex_RMA_PutBlocking to this process with GEX_FLAG_PEER_NEVER_SELF
 *   query-in-handler   a request handler that calls gex_EP_QueryBoundSegmentNB without
 *                      GEX_FLAG_IMMEDIATE (only with it is the call legal there)
 *   cancel-kind        (every build) gex_AM_CancelRequestLong of a gex_AM_PrepareRequestMedium
 *   nargs-300          (every build) 300 handler arguments, through the array entry point
 *                      behind gex_AM_RequestShort (the numbered forms cannot pass more than 16)
 *   rank-am, rank-prepare, rank-put, rank-get, rank-val, rank-vis, rank-ad, rank-legacy
 *                      (every build) rank == team size, one past the last rank, given to
 *                      gex_AM_RequestMedium0, gex_AM_PrepareRequestMedium, gex_RMA_PutNBI,
 *                      gex_RMA_GetNB, gex_RMA_PutBlockingVal, gex_VIS_VectorPutBlocking,
 *                      gex_AD_OpNB_U64 and GASNet-1's gasnet_put (node == gasnet_nodes())
 * Rank 0 misbehaves; the other ranks wait in a barrier.  Prints "BADVALUE=<value>" on
 * stdout first for the driver.  Layer: tests (public API only). */
#include "test_util.h"
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>
#include <gasnet_coll.h>

static gex_AM_Index_t h_short1 = 200, h_reply2 = 202, h_inh = 203, h_rep = 204, h_inh_get = 205, h_inh_ev = 206;
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
static void inh_ev_handler(gex_Token_t t) {
    (void)t;
    gex_Event_Wait(GEX_EVENT_INVALID); /* no test/wait in a handler, even of an INVALID event */
}
static gex_HSL_t hsl = GEX_HSL_INITIALIZER;
static void reply_hsl_handler(gex_Token_t t) {
    gex_HSL_Lock(&hsl);
    gex_AM_ReplyShort0(t, 204, 0); /* not allowed while holding an HSL */
    gex_HSL_Unlock(&hsl);
}
static void inh_qb_handler(gex_Token_t t) {
    (void)t;
    uintptr_t size;
    gex_EP_QueryBoundSegmentNB(test_tm, test_rank, NULL, NULL, &size, 0); /* IMMEDIATE needed here */
}
static void inh_get_handler(gex_Token_t t) {
    (void)t;
    uint64_t v = 0;
    gex_RMA_GetBlocking(test_tm, &v, test_rank, seg_base, sizeof v, 0); /* not allowed in a handler */
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "ok";
    if (!strcmp(mode, "client-null") || !strcmp(mode, "client-empty")) { /* before any init */
        printf("BADVALUE=%s\n", mode[7] == 'n' ? "NULL" : "empty");
        fflush(stdout);
        gex_Client_Init(&test_client, &test_ep, &test_tm, mode[7] == 'n' ? NULL : "", &argc, &argv, 0);
        fprintf(stderr, "test_badarg: gex_Client_Init accepted a %s name\n", mode + 7);
        return 0;
    }
    test_init("test_badarg", &argc, &argv);
    gex_AM_Entry_t tab[8] = {
        { 208, (gex_AM_Fn_t)inh_qb_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "in_handler_query" },
        { 207, (gex_AM_Fn_t)reply_hsl_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "reply_hsl" },
        { 200, (gex_AM_Fn_t)short1_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "short1" },
        { 202, (gex_AM_Fn_t)reply2_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "reply2" },
        { 203, (gex_AM_Fn_t)inh_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "in_handler" },
        { 204, (gex_AM_Fn_t)rep_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "rep" },
        { 205, (gex_AM_Fn_t)inh_get_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "in_handler_get" },
        { 206, (gex_AM_Fn_t)inh_ev_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "in_handler_event" },
    };
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, sizeof tab / sizeof tab[0]), GASNET_OK);
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
        /* the flags and sizes the misuse cases get wrong, used right */
        CHECK_EQ(gex_RMA_PutBlockingVal(test_tm, peer, (void *)8, 7, 8, GEX_FLAG_PEER_SEG_OFFSET), 0);
        CHECK_EQ(gex_RMA_GetBlockingVal(test_tm, peer, peer_base + 8, 8, GEX_FLAG_PEER_SEG_BOUND), 7);
        gex_NBI_BeginAccessRegion(0);
        gex_Event_Wait(gex_NBI_EndAccessRegion(0));
        CHECK(gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_LC) == GEX_EVENT_INVALID);
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
        } else if (!strcmp(mode, "in-handler-get")) {
            printf("BADVALUE=\n");
            fflush(stdout);
            gex_AM_RequestShort0(test_tm, peer, h_inh_get, 0);
        } else if (!strcmp(mode, "segflags-excl")) {
            const gex_Flags_t fl = GEX_FLAG_PEER_SEG_BOUND | GEX_FLAG_PEER_SEG_SOME;
            printf("BADVALUE=0x%x\n", (unsigned)fl);
            fflush(stdout);
            uint64_t v = 1;
            gex_RMA_PutBlocking(test_tm, peer, peer_base, &v, sizeof v, fl);
        } else if (!strcmp(mode, "segflags-offset")) {
            uintptr_t off = peer_size + GASNET_PAGESIZE;
            printf("BADVALUE=0x%zx\n", (size_t)off);
            fflush(stdout);
            uint64_t v = 1;
            gex_RMA_PutBlocking(test_tm, peer, (void *)off, &v, sizeof v, GEX_FLAG_PEER_SEG_OFFSET);
        } else if (!strcmp(mode, "val-size")) {
            printf("BADVALUE=9\n");
            fflush(stdout);
            gex_RMA_PutBlockingVal(test_tm, peer, peer_base, 1, 9, 0);
        } else if (!strcmp(mode, "region-nested")) {
            printf("BADVALUE=\n");
            fflush(stdout);
            gex_NBI_BeginAccessRegion(0);
            gex_NBI_BeginAccessRegion(0);
        } else if (!strcmp(mode, "region-end")) {
            printf("BADVALUE=\n");
            fflush(stdout);
            gex_NBI_EndAccessRegion(0);
        } else if (!strcmp(mode, "region-nbi")) {
            printf("BADVALUE=\n");
            fflush(stdout);
            gex_NBI_BeginAccessRegion(0);
            gex_NBI_Wait(GEX_EC_ALL, 0);
        } else if (!strcmp(mode, "leaf-all")) {
            printf("BADVALUE=0x%x\n", (unsigned)GEX_EC_ALL);
            fflush(stdout);
            gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_ALL);
        } else if (!strcmp(mode, "event-in-handler")) {
            printf("BADVALUE=\n");
            fflush(stdout);
            gex_AM_RequestShort0(test_tm, peer, h_inh_ev, 0);
        } else if (!strcmp(mode, "prepare-nested")) {
            printf("BADVALUE=\n");
            fflush(stdout);
            gex_AM_PrepareRequestMedium(test_tm, peer, NULL, 8, 8, NULL, 0, 0);
            gex_AM_PrepareRequestMedium(test_tm, peer, NULL, 8, 8, NULL, 0, 0);
        } else if (!strcmp(mode, "prepare-between")) {
            printf("BADVALUE=\n");
            fflush(stdout);
            uint64_t v = 1;
            gex_AM_PrepareRequestMedium(test_tm, peer, NULL, 8, 8, NULL, 0, 0);
            gex_RMA_PutBlocking(test_tm, peer, peer_base, &v, sizeof v, 0);
        } else if (!strcmp(mode, "srcdesc-noop")) {
            printf("BADVALUE=\n");
            fflush(stdout);
            (void)gex_AM_SrcDescAddr(GEX_AM_SRCDESC_NO_OP);
        } else if (!strcmp(mode, "reply-hsl")) {
            printf("BADVALUE=\n");
            fflush(stdout);
            gex_AM_RequestShort0(test_tm, peer, 207, 0);
        } else if (!strcmp(mode, "commit-size")) {
            printf("BADVALUE=101\n");
            fflush(stdout);
            gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(test_tm, peer, NULL, 100, 100, NULL, 0, 1);
            gex_AM_CommitRequestMedium1(sd, 200, 101, 0);
        } else if (!strcmp(mode, "prepare-least")) {
            size_t least = gex_AM_MaxRequestMedium(test_tm, peer, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 0) + 1;
            printf("BADVALUE=%zu\n", least);
            fflush(stdout);
            gex_AM_PrepareRequestMedium(test_tm, peer, NULL, least, least, NULL, 0, 0);
        } else if (!strcmp(mode, "vis-length")) {
            printf("BADVALUE=24\n");
            fflush(stdout);
            static uint8_t buf[24];
            gex_Memvec_t d = {peer_base, 16}, sv = {buf, 24};
            gex_VIS_VectorPutBlocking(test_tm, peer, 1, &d, 1, &sv, 0);
        } else if (!strcmp(mode, "vis-segment")) {
            uint8_t *bad = peer_base + peer_size + 2 * GASNET_PAGESIZE;
            printf("BADVALUE=%p\n", (void *)bad);
            fflush(stdout);
            static uint8_t buf[8];
            ptrdiff_t st[1] = {(ptrdiff_t)(peer_size + 2 * GASNET_PAGESIZE)};
            size_t cnt[1] = {2};
            ptrdiff_t sst[1] = {0};
            gex_VIS_StridedPutBlocking(test_tm, peer, peer_base, st, buf, sst, 8, cnt, 1, 0);
        } else if (!strcmp(mode, "ad-op")) {
            gex_AD_t ad;
            gex_AD_Create(&ad, test_tm, GEX_DT_U64, GEX_OP_FADD, 0);
            printf("BADVALUE=0x%x\n", (unsigned)GEX_OP_FSUB);
            fflush(stdout);
            uint64_t v;
            gex_Event_Wait(gex_AD_OpNB_U64(ad, &v, peer, peer_base, GEX_OP_FSUB, 1, 0, 0));
        } else if (!strcmp(mode, "coll1-flags")) {
            static uint8_t b[8];
            int fl = GASNET_COLL_IN_MYSYNC | GASNET_COLL_LOCAL;
            printf("BADVALUE=0x%x\n", (unsigned)fl);
            fflush(stdout);
            gasnet_coll_broadcast(GASNET_TEAM_ALL, b, 0, b, 8, fl);
        } else if (!strcmp(mode, "coll1-segment")) {
            uint8_t b[64];
            printf("BADVALUE=%p\n", (void *)b);
            fflush(stdout);
            gasnet_coll_gather_all(GASNET_TEAM_ALL, b, seg_base, 8,
                                   GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_LOCAL |
                                       GASNET_COLL_SRC_IN_SEGMENT | GASNET_COLL_DST_IN_SEGMENT);
        } else if (!strcmp(mode, "coll1-image")) {
            static uint8_t b[8];
            printf("BADVALUE=%u\n", (unsigned)test_size);
            fflush(stdout);
            gasnet_coll_scatter(GASNET_TEAM_ALL, b, test_size, b, 4,
                                GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_LOCAL);
        } else if (!strcmp(mode, "peer-never-self")) {
            printf("BADVALUE=0x%x\n", (unsigned)GEX_FLAG_PEER_NEVER_SELF);
            fflush(stdout);
            uint64_t v = 1;
            gex_RMA_PutBlocking(test_tm, test_rank, seg_base, &v, sizeof v, GEX_FLAG_PEER_NEVER_SELF);
        } else if (!strcmp(mode, "query-in-handler")) {
            printf("BADVALUE=\n");
            fflush(stdout);
            gex_AM_RequestShort0(test_tm, peer, 208, 0);
        } else if (!strcmp(mode, "cancel-kind")) {
            printf("BADVALUE=\n");
            fflush(stdout);
            gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(test_tm, peer, NULL, 8, 8, NULL, 0, 0);
            gex_AM_CancelRequestLong(sd, 0);
        } else if (!strcmp(mode, "nargs-300")) {
            printf("BADVALUE=300\n");
            fflush(stdout);
            static gex_AM_Arg_t many[300];
            gasneti_AM_RequestShortA(test_tm, peer, 200, 0, 300, many);
        } else if (!strncmp(mode, "rank-", 5)) {
            const gex_Rank_t bad = test_size; /* one past the last rank */
            printf("BADVALUE=%u\n", (unsigned)bad);
            fflush(stdout);
            static uint64_t buf[4];
            const char *what = mode + 5;
            if (!strcmp(what, "am")) {
                gex_AM_RequestMedium0(test_tm, bad, h_short1, buf, 8, GEX_EVENT_NOW, 0);
            } else if (!strcmp(what, "prepare")) {
                gex_AM_PrepareRequestMedium(test_tm, bad, NULL, 8, 8, NULL, 0, 0);
            } else if (!strcmp(what, "put")) {
                gex_RMA_PutNBI(test_tm, bad, peer_base, buf, 8, GEX_EVENT_NOW, 0);
                gex_NBI_Wait(GEX_EC_ALL, 0);
            } else if (!strcmp(what, "get")) {
                gex_Event_Wait(gex_RMA_GetNB(test_tm, buf, bad, peer_base, 8, 0));
            } else if (!strcmp(what, "val")) {
                gex_RMA_PutBlockingVal(test_tm, bad, peer_base, 1, 8, 0);
            } else if (!strcmp(what, "vis")) {
                gex_Memvec_t d = {peer_base, 8}, sv = {buf, 8};
                gex_VIS_VectorPutBlocking(test_tm, bad, 1, &d, 1, &sv, 0);
            } else if (!strcmp(what, "ad")) {
                gex_AD_t ad;
                gex_AD_Create(&ad, test_tm, GEX_DT_U64, GEX_OP_FADD, 0);
                gex_Event_Wait(gex_AD_OpNB_U64(ad, buf, bad, peer_base, GEX_OP_FADD, 1, 0, 0));
            } else if (!strcmp(what, "legacy")) {
                gasnet_put(gasnet_nodes(), peer_base, buf, 8);
            } else {
                CHECKF(0, "unknown mode \"%s\"", mode);
            }
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
