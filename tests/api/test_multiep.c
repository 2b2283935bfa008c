/* tests/api/test_multiep.c: several endpoints per process, each with its own segment.
 * Every process creates NEP-1 endpoints beside the primordial one; endpoints 1 and 2 bind
 * segments the library allocates, endpoint 3 one the client provides (malloc). After
 * gex_EP_PublishBoundSegment, a team of every endpoint of the job (gex_TM_Create) is
 * used for: puts and gets between all pairs of endpoints (plain and SEG_OFFSET),
 * Short/Medium/Long AMs to every endpoint and replies back to the sender's endpoint
 * (token info checked), a barrier, broadcast and reduction on the four teams of each
 * process at once, and gex_TM_Pair to every remote endpoint index.
 * Also: gex_EP_Create and gex_MK_Create refuse bad capabilities and device kinds,
 * gex_Segment_Destroy of an unbound segment, and gex_TM_TranslateRankToEP. */
#include "test_util.h"

#include <gasnet_coll.h>
#include <gasnet_mk.h>

#define NEP 4
#define CHUNK 256   /* bytes each endpoint writes into each other endpoint's segment */
#define H_PING 200
#define H_PONG 201
#define H_MED 202
#define H_LONG 203

static gex_EP_t eps[NEP];
static gex_TM_t teams[NEP]; /* the team of every endpoint, one gex_TM_t per local endpoint */
static gex_Rank_t nall;     /* endpoints in the job */
static size_t seg_bytes;    /* of every bound segment: the put area, then the Long area */
static int pongs[NEP], meds[NEP], longs[NEP];

static uint8_t pattern(gex_Rank_t from, gex_Rank_t to, size_t i) { return (uint8_t)(from * 131 + to * 7 + i * 13 + 1); }

static gex_EP_Index_t token_ep(gex_Token_t t, gex_Rank_t *src) {
    gex_Token_Info_t info;
    gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_EP | GEX_TI_SRCRANK);
    CHECK((got & (GEX_TI_EP | GEX_TI_SRCRANK)) == (GEX_TI_EP | GEX_TI_SRCRANK));
    *src = info.gex_srcrank;
    return gex_EP_QueryIndex(info.gex_ep);
}

/* request: (sender's team rank, receiver's team rank) */
static void ping(gex_Token_t t, gex_AM_Arg_t from, gex_AM_Arg_t to) {
    gex_Rank_t src;
    gex_EP_Index_t e = token_ep(t, &src);
    CHECKF((gex_Rank_t)to == test_rank * NEP + e, "ping for team rank %d arrived at endpoint %u", (int)to, (unsigned)e);
    CHECK_EQ(src, (gex_Rank_t)from / NEP);
    gex_AM_ReplyShort2(t, H_PONG, 0, to, from);
}

static void pong(gex_Token_t t, gex_AM_Arg_t from, gex_AM_Arg_t to) {
    gex_Rank_t src;
    gex_EP_Index_t e = token_ep(t, &src);
    CHECKF((gex_Rank_t)to == test_rank * NEP + e, "reply for team rank %d arrived at endpoint %u", (int)to, (unsigned)e);
    CHECK_EQ(src, (gex_Rank_t)from / NEP);
    __atomic_fetch_add(&pongs[e], 1, __ATOMIC_RELAXED);
}

static void check_bytes(const uint8_t *p, size_t n, gex_Rank_t from, gex_Rank_t to, const char *what) {
    for (size_t i = 0; i < n; i++)
        CHECKF(p[i] == pattern(from, to, i), "%s from team rank %u to %u: byte %zu is %u, expected %u", what,
               (unsigned)from, (unsigned)to, i, p[i], pattern(from, to, i));
}

static void med(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t from, gex_AM_Arg_t to) {
    gex_Rank_t src;
    gex_EP_Index_t e = token_ep(t, &src);
    CHECK_EQ((gex_Rank_t)to, test_rank * NEP + e);
    CHECK_EQ(n, CHUNK);
    check_bytes(buf, n, (gex_Rank_t)from, (gex_Rank_t)to, "Medium");
    __atomic_fetch_add(&meds[e], 1, __ATOMIC_RELAXED);
}

static void lng(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t from, gex_AM_Arg_t to) {
    gex_Rank_t src;
    gex_EP_Index_t e = token_ep(t, &src);
    CHECK_EQ((gex_Rank_t)to, test_rank * NEP + e);
    uint8_t *seg = gex_Segment_QueryAddr(gex_EP_QuerySegment(eps[e]));
    CHECKF((uint8_t *)buf == seg + seg_bytes / 2 + (size_t)from * CHUNK, "Long landed at %p", buf);
    CHECK_EQ(n, CHUNK);
    check_bytes(buf, n, (gex_Rank_t)from, (gex_Rank_t)to, "Long");
    __atomic_fetch_add(&longs[e], 1, __ATOMIC_RELAXED);
}

static gex_AM_Entry_t handlers[] = {
    {H_PING, (gex_AM_Fn_t)ping, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "ping"},
    {H_PONG, (gex_AM_Fn_t)pong, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL, "pong"},
    {H_MED, (gex_AM_Fn_t)med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "med"},
    {H_LONG, (gex_AM_Fn_t)lng, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "long"},
};

static void wait_count(int *c, int want) {
    while (__atomic_load_n(c, __ATOMIC_RELAXED) < want) gasnet_AMPoll();
}

/* the segment of team rank r as its owner sees it */
static uint8_t *remote_seg(gex_TM_t tm, gex_Rank_t r) { return test_bound_seg(tm, r, seg_bytes); }

int main(int argc, char **argv) {
    test_init("test_multiep", &argc, &argv);
    nall = test_size * NEP;
    seg_bytes = 2 * (size_t)nall * CHUNK;
    seg_bytes = (seg_bytes + 4095) & ~(size_t)4095;
    gex_Segment_t seg0;
    CHECK(gex_Segment_Attach(&seg0, test_tm, seg_bytes) == GASNET_OK);
    CHECK_EQ(gex_Segment_QuerySize(seg0), seg_bytes);
    CHECK(gex_Segment_QueryKind(seg0) == GEX_MK_HOST);

    /* refusals */
    gex_EP_t bad = GEX_EP_INVALID;
    CHECK_EQ(gex_EP_Create(&bad, test_client, 0, 0), GASNET_ERR_BAD_ARG);
    CHECK_EQ(gex_EP_Create(&bad, test_client, (gex_EP_Capabilities_t)1 << 20, 0), GASNET_ERR_BAD_ARG);
    CHECK(bad == GEX_EP_INVALID);
    gex_MK_t kind = GEX_MK_INVALID;
    gex_MK_Create_args_t mkargs;
    memset(&mkargs, 0, sizeof mkargs);
    mkargs.gex_class = GEX_MK_CLASS_CUDA_UVA;
    CHECK_EQ(gex_MK_Create(&kind, test_client, &mkargs, 0), GASNET_ERR_BAD_ARG);
    CHECK(kind == GEX_MK_INVALID);
    mkargs.gex_class = GEX_MK_CLASS_HOST;
    CHECK_EQ(gex_MK_Create(&kind, test_client, &mkargs, 0), GASNET_OK);
    CHECK(gex_MK_QueryClass(kind) == GEX_MK_CLASS_HOST);
    gex_Segment_t spare;
    CHECK_EQ(gex_Segment_Create(&spare, test_client, NULL, 0, GEX_MK_HOST, 0), GASNET_ERR_BAD_ARG);
    CHECK_EQ(gex_Segment_Create(&spare, test_client, NULL, 10000, kind, 0), GASNET_OK);
    CHECK(gex_Segment_QuerySize(spare) >= 10000);
    memset(gex_Segment_QueryAddr(spare), 0x5a, 10000);
    gex_Segment_Destroy(spare, 0);

    /* the endpoints and their segments */
    eps[0] = test_ep;
    CHECK(gex_EP_RegisterHandlers(eps[0], handlers, sizeof handlers / sizeof handlers[0]) == GASNET_OK);
    for (int e = 1; e < NEP; e++) {
        CHECK_EQ(gex_EP_Create(&eps[e], test_client, GEX_EP_CAPABILITY_ALL, 0), GASNET_OK);
        CHECK_EQ(gex_EP_QueryIndex(eps[e]), e);
        CHECK(gex_EP_QueryClient(eps[e]) == test_client);
        CHECK(gex_EP_QuerySegment(eps[e]) == GEX_SEGMENT_INVALID);
        CHECK(gex_EP_RegisterHandlers(eps[e], handlers, sizeof handlers / sizeof handlers[0]) == GASNET_OK);
        gex_Segment_t s;
        void *mem = NULL;
        if (e == 3) CHECK(posix_memalign(&mem, 4096, seg_bytes) == 0); /* the client's memory */
        CHECK_EQ(gex_Segment_Create(&s, test_client, mem, seg_bytes, e == 1 ? kind : GEX_MK_HOST, 0), GASNET_OK);
        CHECK(!mem || gex_Segment_QueryAddr(s) == mem);
        CHECK_EQ(gex_EP_BindSegment(eps[e], s, 0), GASNET_OK);
        CHECK(gex_EP_QuerySegment(eps[e]) == s);
        memset(gex_Segment_QueryAddr(s), 0, seg_bytes);
    }
    memset(gex_Segment_QueryAddr(seg0), 0, seg_bytes);
    CHECK_EQ(gex_EP_PublishBoundSegment(test_tm, eps + 1, NEP - 1, 0), GASNET_OK);

    /* a caller with numargs == 0 creates no team and its other arguments are ignored
     * (the released spec; the v0.8 text's rule made num_new_tms != 0 fatal) */
    gex_TM_t untouched = GEX_TM_INVALID;
    CHECK_EQ(gex_TM_Create(&untouched, 3, test_tm, (gex_EP_Location_t *)&untouched, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH), 0);
    CHECK(untouched == GEX_TM_INVALID);
    /* the team of every endpoint: team rank = jobrank * NEP + endpoint index */
    gex_EP_Location_t *loc = malloc(nall * sizeof *loc);
    CHECK(loc);
    for (gex_Rank_t r = 0; r < nall; r++) loc[r].gex_rank = r / NEP, loc[r].gex_ep_index = r % NEP;
    gex_TM_Create(teams, NEP, test_tm, loc, nall, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    for (int e = 0; e < NEP; e++) {
        CHECK_EQ(gex_TM_QueryRank(teams[e]), test_rank * NEP + e);
        CHECK_EQ(gex_TM_QuerySize(teams[e]), nall);
        CHECK(gex_TM_QueryEP(teams[e]) == eps[e]);
        for (gex_Rank_t r = 0; r < nall; r++) {
            gex_EP_Location_t l = gex_TM_TranslateRankToEP(teams[e], r, 0);
            CHECK_EQ(l.gex_rank, r / NEP);
            CHECK_EQ(l.gex_ep_index, r % NEP);
            CHECK_EQ(gex_TM_TranslateRankToJobrank(teams[e], r), r / NEP);
        }
    }
    test_barrier();

    /* puts from every local endpoint into every endpoint's segment, at our team rank's chunk */
    uint8_t buf[CHUNK];
    for (int e = 0; e < NEP; e++) {
        gex_Rank_t me = test_rank * NEP + e;
        for (gex_Rank_t r = 0; r < nall; r++) {
            for (size_t i = 0; i < CHUNK; i++) buf[i] = pattern(me, r, i);
            if (r % 2)
                gex_RMA_PutBlocking(teams[e], r, remote_seg(teams[e], r) + (size_t)me * CHUNK, buf, CHUNK, 0);
            else /* an offset into the peer endpoint's bound segment */
                gex_RMA_PutBlocking(teams[e], r, (void *)((size_t)me * CHUNK), buf, CHUNK, GEX_FLAG_PEER_SEG_OFFSET);
        }
    }
    test_barrier();
    for (int e = 0; e < NEP; e++) {
        const uint8_t *seg = gex_Segment_QueryAddr(gex_EP_QuerySegment(eps[e]));
        for (gex_Rank_t from = 0; from < nall; from++)
            check_bytes(seg + (size_t)from * CHUNK, CHUNK, from, test_rank * NEP + e, "put");
    }
    /* gets: what every endpoint wrote into the next process's endpoints */
    for (int e = 0; e < NEP; e++) {
        gex_Rank_t me = test_rank * NEP + e;
        for (gex_Rank_t r = 0; r < nall; r++) {
            gex_Rank_t from = (me + r) % nall;
            memset(buf, 0, sizeof buf);
            gex_Event_Wait(gex_RMA_GetNB(teams[e], buf, r, remote_seg(teams[e], r) + (size_t)from * CHUNK, CHUNK, 0));
            check_bytes(buf, CHUNK, from, r, "get");
        }
    }

    /* AMs to every endpoint, replies back to the sending endpoint */
    for (int e = 0; e < NEP; e++) {
        gex_Rank_t me = test_rank * NEP + e;
        for (gex_Rank_t r = 0; r < nall; r++) {
            CHECK(gex_AM_RequestShort2(teams[e], r, H_PING, 0, me, r) == GASNET_OK);
            for (size_t i = 0; i < CHUNK; i++) buf[i] = pattern(me, r, i);
            CHECK(gex_AM_RequestMedium2(teams[e], r, H_MED, buf, CHUNK, GEX_EVENT_NOW, 0, me, r) == GASNET_OK);
            /* a Long into the client-provided segment is not possible from a neighbour */
            gex_EP_Location_t l = gex_TM_TranslateRankToEP(teams[e], r, 0);
            int nbr = 0;
            gex_RankInfo_t *nb;
            gex_Rank_t nbn, myidx;
            gex_System_QueryNbrhdInfo(&nb, &nbn, &myidx);
            for (gex_Rank_t i = 0; i < nbn; i++) nbr |= nb[i].gex_jobrank == l.gex_rank;
            if (l.gex_ep_index != 3 || !nbr)
                CHECK(gex_AM_RequestLong2(teams[e], r, H_LONG, buf, CHUNK,
                                          remote_seg(teams[e], r) + seg_bytes / 2 + (size_t)me * CHUNK,
                                          GEX_EVENT_NOW, 0, me, r) == GASNET_OK);
        }
    }
    for (int e = 0; e < NEP; e++) {
        wait_count(&pongs[e], (int)nall);
        wait_count(&meds[e], (int)nall);
    }
    test_barrier();
    for (int e = 0; e < NEP; e++) CHECK_EQ(pongs[e], nall);
    for (int e = 0; e < NEP; e++) CHECK_EQ(meds[e], nall);
    {
        gex_RankInfo_t *nb;
        gex_Rank_t nbn, myidx;
        gex_System_QueryNbrhdInfo(&nb, &nbn, &myidx);
        for (int e = 0; e < NEP; e++) { /* Longs come from everyone but, for endpoint 3, the neighbours */
            int want = (int)nall - (e == 3 ? (int)(nbn * NEP) : 0);
            wait_count(&longs[e], want);
            test_barrier();
            CHECK_EQ(longs[e], want);
        }
    }

    /* collectives on the four teams of each process at once */
    gex_Event_t ev[NEP];
    for (int e = 0; e < NEP; e++) ev[e] = gex_Coll_BarrierNB(teams[e], 0);
    gex_Event_WaitAll(ev, NEP, 0);
    uint64_t bval[NEP], mine[NEP], sum[NEP];
    for (int e = 0; e < NEP; e++) {
        bval[e] = test_rank * NEP + e == 1 ? 0x1234567890ull : 0;
        ev[e] = gex_Coll_BroadcastNB(teams[e], nall > 1 ? 1 : 0, &bval[e], &bval[e], sizeof bval[e], 0);
    }
    gex_Event_WaitAll(ev, NEP, 0);
    for (int e = 0; e < NEP; e++) CHECK_EQ(bval[e], nall > 1 ? 0x1234567890ull : 0);
    for (int e = 0; e < NEP; e++) {
        mine[e] = test_rank * NEP + e + 1;
        ev[e] = gex_Coll_ReduceToAllNB(teams[e], &sum[e], &mine[e], GEX_DT_U64, sizeof(uint64_t), 1, GEX_OP_ADD, NULL,
                                       NULL, 0);
    }
    gex_Event_WaitAll(ev, NEP, 0);
    for (int e = 0; e < NEP; e++) CHECK_EQ(sum[e], (uint64_t)nall * (nall + 1) / 2);
    { /* a large broadcast (through shared memory when the team shares it), from the last
       * endpoint, to the four endpoints of each process at once */
        enum { BIG = 200003 };
        uint8_t *bsrc = malloc(BIG), *bdst[NEP];
        CHECK(bsrc);
        test_pat_fill(bsrc, BIG, 0xB16);
        for (int e = 0; e < NEP; e++) {
            CHECK((bdst[e] = calloc(1, BIG)) != NULL);
            ev[e] = gex_Coll_BroadcastNB(teams[e], nall - 1, bdst[e], bsrc, BIG, 0);
        }
        gex_Event_WaitAll(ev, NEP, 0);
        for (int e = 0; e < NEP; e++) {
            CHECK_PAT(bdst[e], BIG, 0xB16, "endpoint %d: broadcast of %d bytes", e, (int)BIG);
            free(bdst[e]);
        }
        free(bsrc);
    }

    /* pair teams: rank = jobrank, to endpoint f of that process */
    test_barrier();
    for (int f = 0; f < NEP; f++) {
        gex_TM_t pair = gex_TM_Pair(eps[0], (gex_EP_Index_t)f);
        gex_Rank_t peer = (test_rank + 1) % test_size, to = peer * NEP + f;
        CHECK(gex_AM_RequestShort2(pair, peer, H_PING, 0, test_rank * NEP, to) == GASNET_OK);
        uint64_t v = 0xabcdef00u + f, got = 0;
        uint8_t *dst = remote_seg(teams[0], to) + seg_bytes - 64; /* in the Long area, checked already */
        gex_RMA_PutBlocking(pair, peer, dst, &v, sizeof v, 0);
        gex_RMA_GetBlocking(pair, &got, peer, dst, sizeof got, 0);
        CHECK_EQ(got, v);
    }
    wait_count(&pongs[0], (int)nall + NEP);

    test_barrier();
    for (int e = 0; e < NEP; e++) CHECK(gex_TM_Destroy(teams[e], NULL, GEX_FLAG_GLOBALLY_QUIESCED) == 0);
    free(loc);
    test_barrier();
    if (test_rank == 0) printf("test_multiep: %u processes, %d endpoints each: PASS\n", (unsigned)test_size, NEP);
    gasnet_exit(0);
    return 0;
}
