/* tests/api/test_init.c: client init, object queries, CData, job/neighborhood queries,
 * segment size queries, gex_Segment_Attach/QueryBound (self and every peer), legacy
 * gasnet_QueryGexObjects and gasnet_Error{Name,Desc}. Hosts and neighborhoods: as
 * TEST_HOSTS (default 1) and GASNET_SUPERNODE_MAXSIZE say (see nhosts_expected).
 * Layer: tests (public API only).  Run with 1, 2, 4 ranks. */
#include "test_util.h"

#if !defined(GASNET_RELEASE_VERSION_MAJOR) || !defined(GASNET_RELEASE_VERSION_MINOR) || \
    !defined(GASNET_RELEASE_VERSION_PATCH)
#  error "GASNET_RELEASE_VERSION_{MAJOR,MINOR,PATCH} must be defined by gasnetex.h"
#endif
#if GASNET_RELEASE_VERSION_MAJOR < 2000
#  error "GASNET_RELEASE_VERSION_MAJOR must be a year"
#endif
#if GEX_SPEC_VERSION_MAJOR != 0 || GEX_SPEC_VERSION_MINOR != 19
#  error "GEX_SPEC_VERSION must be 0.19 (the released API, docs/GASNet-EX.txt)"
#endif
#if GASNET_SPEC_VERSION_MAJOR != 1 || GASNET_SPEC_VERSION_MINOR != 8
#  error "GASNET_SPEC_VERSION must be 1.8"
#endif
#if !defined(GASNET_PAGESIZE) || (GASNET_PAGESIZE <= 0)
#  error "GASNET_PAGESIZE must be a positive preprocessor constant"
#endif

typedef struct {
    uint64_t addr;
    uint64_t size;
    uint64_t maxlocal;
    uint64_t maxglobal;
} seginfo_msg_t;

static seginfo_msg_t *peer_info; /* [size], filled by the handler */
static volatile int peer_info_count;
static gex_HSL_t info_lock = GEX_HSL_INITIALIZER;

static void seginfo_handler(gex_Token_t token, void *buf, size_t nbytes) {
    gex_Token_Info_t ti;
    gex_TI_t got = gex_Token_Info(token, &ti, GEX_TI_SRCRANK);
    CHECK(got & GEX_TI_SRCRANK);
    CHECKF(ti.gex_srcrank < test_size, "srcrank %u", (unsigned)ti.gex_srcrank);
    CHECK_EQ(nbytes, sizeof(seginfo_msg_t));
    gex_HSL_Lock(&info_lock);
    memcpy(&peer_info[ti.gex_srcrank], buf, sizeof(seginfo_msg_t));
    peer_info_count++;
    gex_HSL_Unlock(&info_lock);
}

static void check_errors(void) {
    static const struct { int code; const char *name; } errs[] = {
        { GASNET_OK, "GASNET_OK" },
        { GASNET_ERR_RESOURCE, "GASNET_ERR_RESOURCE" },
        { GASNET_ERR_BAD_ARG, "GASNET_ERR_BAD_ARG" },
        { GASNET_ERR_NOT_INIT, "GASNET_ERR_NOT_INIT" },
        { GASNET_ERR_BARRIER_MISMATCH, "GASNET_ERR_BARRIER_MISMATCH" },
        { GASNET_ERR_NOT_READY, "GASNET_ERR_NOT_READY" },
    };
    const int n = (int)(sizeof errs / sizeof errs[0]);
    CHECK_EQ(GASNET_OK, 0);
    for (int i = 0; i < n; i++) {
        const char *nm = gasnet_ErrorName(errs[i].code);
        const char *ds = gasnet_ErrorDesc(errs[i].code);
        CHECKF(nm && ds, "gasnet_ErrorName/Desc(%d) returned NULL", errs[i].code);
        CHECKF(strcmp(nm, errs[i].name) == 0, "gasnet_ErrorName(%d) = \"%s\", expected \"%s\"",
               errs[i].code, nm, errs[i].name);
        CHECKF(strlen(ds) > 0, "gasnet_ErrorDesc(%s) is empty", errs[i].name);
        for (int j = 0; j < i; j++) {
            CHECKF(errs[i].code != errs[j].code, "%s and %s share the value %d", errs[i].name,
                   errs[j].name, errs[i].code);
            CHECKF(strcmp(ds, gasnet_ErrorDesc(errs[j].code)) != 0,
                   "%s and %s have the same description \"%s\"", errs[i].name, errs[j].name, ds);
        }
    }
}

/* Where the job's ranks are: on TEST_HOSTS hosts (default 1) round robin, as the ssh
 * spawner puts them (rank r on host r % TEST_HOSTS), each host cut into neighborhoods of
 * GASNET_SUPERNODE_MAXSIZE (0, the default: the whole host) in rank order. */
static gex_Rank_t nhosts_expected(void) {
    const char *h = getenv("TEST_HOSTS");
    gex_Rank_t n = h ? (gex_Rank_t)atoi(h) : 1;
    CHECKF(n >= 1, "TEST_HOSTS=%s", h);
    return n < test_size ? n : test_size;
}
static gex_Rank_t host_count(gex_Rank_t h, gex_Rank_t nh) { return (test_size - h + nh - 1) / nh; }
static gex_Rank_t nbrhd_per(gex_Rank_t cnt) {
    const char *m = getenv("GASNET_SUPERNODE_MAXSIZE");
    gex_Rank_t max = m ? (gex_Rank_t)atoi(m) : 0;
#ifdef GASNET_CONDUIT_SMP
    max = 0; /* no network: the host is one neighborhood whatever the variable says */
#endif
    return (max == 0 || max > cnt) ? cnt : max;
}

/* info, count, idx as a query returned them: the ranks first, first + nh, ... (n of
 * them), me at index myidx */
static void check_rankinfo(const char *what, gex_RankInfo_t *info, gex_Rank_t count, gex_Rank_t idx,
                           gex_Rank_t first, gex_Rank_t nh, gex_Rank_t n, gex_Rank_t myidx) {
    CHECKF(info != NULL, "%s: info_p is NULL", what);
    CHECKF(count == n, "%s: count %u, expected %u (job size %u)", what, (unsigned)count, (unsigned)n,
           (unsigned)test_size);
    CHECKF(idx == myidx, "%s: my index %u, expected %u (my rank %u)", what, (unsigned)idx, (unsigned)myidx,
           (unsigned)test_rank);
    for (gex_Rank_t i = 0; i < count; i++)
        CHECKF(info[i].gex_jobrank == first + i * nh, "%s: entry %u has jobrank %u, expected %u", what, (unsigned)i,
               (unsigned)info[i].gex_jobrank, (unsigned)(first + i * nh));
    CHECK(info[idx].gex_jobrank == gex_System_QueryJobRank());
}

static void check_system_queries(void) {
    /* the library was built with the settings this client was compiled with */
    CHECKF(!strcmp(gasnet_config_string(), GASNET_CONFIG_STRING), "library config \"%s\", client's \"%s\"",
           gasnet_config_string(), GASNET_CONFIG_STRING);
    CHECK(strstr(GASNET_CONFIG_STRING, "CONDUIT=" GASNET_CONDUIT_NAME_STR ","));
    char tm[40] = "THREADMODEL=";
    for (const char *m = TEST_MODE; *m; m++) tm[strlen(tm) + 1] = 0, tm[strlen(tm)] = (char)(*m - 'a' + 'A');
    strcat(tm, ",");
    CHECKF(strstr(GASNET_CONFIG_STRING, tm), "%s does not say %s", GASNET_CONFIG_STRING, tm);
    CHECK_EQ(gex_System_QueryJobRank(), test_rank);
    CHECK_EQ(gex_System_QueryJobSize(), test_size);
    CHECK_EQ(gasnet_mynode(), test_rank);
    CHECK_EQ(gasnet_nodes(), test_size);
    /* the size the harness asked for (tests/harness/gasnet-run), else smp's variable */
    const char *env = getenv("TEST_NPROCS");
    if (!env) env = getenv("GASNET_PSHM_NODES");
    unsigned expect = env ? (unsigned)atoi(env) : 1;
    CHECKF(test_size == expect, "job size %u, expected %s", (unsigned)test_size, env ? env : "1");
    CHECK(test_rank < test_size);

    /* my host, its neighborhoods, and mine among them */
    gex_Rank_t nh = nhosts_expected(), myhost = test_rank % nh, hcnt = host_count(myhost, nh);
    gex_Rank_t hidx = test_rank / nh, per = nbrhd_per(hcnt), nfirst = hidx / per * per;
    gex_Rank_t ncnt = nfirst + per <= hcnt ? per : hcnt - nfirst, nb_before = 0, nb_total = 0;
    for (gex_Rank_t h = 0; h < nh; h++) {
        gex_Rank_t c = host_count(h, nh), p = nbrhd_per(c);
        if (h < myhost) nb_before += (c + p - 1) / p;
        nb_total += (c + p - 1) / p;
    }

    gex_RankInfo_t *info = NULL;
    gex_Rank_t count = 0, idx = GEX_RANK_INVALID;
    gex_System_QueryNbrhdInfo(&info, &count, &idx);
    check_rankinfo("gex_System_QueryNbrhdInfo", info, count, idx, myhost + nfirst * nh, nh, ncnt, hidx - nfirst);
    gex_RankInfo_t *info2 = NULL;
    gex_System_QueryNbrhdInfo(&info2, NULL, NULL); /* every output is optional */
    CHECK(info2 == info);
    count = 0;
    gex_System_QueryNbrhdInfo(NULL, &count, NULL);
    CHECK_EQ(count, ncnt);
    idx = GEX_RANK_INVALID;
    gex_System_QueryNbrhdInfo(NULL, NULL, &idx);
    CHECK_EQ(idx, hidx - nfirst);

    info = NULL; count = 0; idx = GEX_RANK_INVALID;
    gex_System_QueryHostInfo(&info, &count, &idx);
    check_rankinfo("gex_System_QueryHostInfo", info, count, idx, myhost, nh, hcnt, hidx);
    gex_System_QueryHostInfo(NULL, NULL, NULL);

    gex_Rank_t nsz = 99, nrk = 99, hsz = 99, hrk = 99;
    gex_System_QueryMyPosition(&nsz, &nrk, &hsz, &hrk);
    CHECK_EQ(nsz, nb_total);
    CHECK_EQ(nrk, nb_before + hidx / per);
    CHECK_EQ(hsz, nh);
    CHECK_EQ(hrk, myhost);
    nsz = 99;
    gex_System_QueryMyPosition(&nsz, NULL, NULL, NULL);
    CHECK_EQ(nsz, nb_total);
    gex_System_QueryMyPosition(NULL, NULL, NULL, NULL);
}

static void check_objects(void) {
    CHECK(test_client != (gex_Client_t)0);
    CHECK(test_ep != (gex_EP_t)0);
    CHECK(test_tm != GEX_TM_INVALID);
    const char *nm = gex_Client_QueryName(test_client);
    CHECKF(nm && strcmp(nm, "gasnet_tests") == 0, "gex_Client_QueryName = \"%s\"", nm ? nm : "(null)");
    CHECK_EQ(gex_Client_QueryFlags(test_client), GEX_FLAG_USES_GASNET1);

    CHECK(gex_EP_QueryClient(test_ep) == test_client);
    (void)gex_EP_QueryFlags(test_ep);
    CHECK(gex_EP_QuerySegment(test_ep) == GEX_SEGMENT_INVALID); /* nothing attached yet */

    CHECK(gex_TM_QueryClient(test_tm) == test_client);
    CHECK(gex_TM_QueryEP(test_tm) == test_ep);
    (void)gex_TM_QueryFlags(test_tm);
    CHECK_EQ(gex_TM_QueryRank(test_tm), gex_System_QueryJobRank());
    CHECK_EQ(gex_TM_QuerySize(test_tm), gex_System_QueryJobSize());

    gex_Client_t c = (gex_Client_t)0;
    gex_EP_t e = (gex_EP_t)0;
    gex_TM_t t = GEX_TM_INVALID;
    gex_Segment_t s = (gex_Segment_t)(uintptr_t)0x1234;
    gasnet_QueryGexObjects(&c, &e, &t, &s);
    CHECK(c == test_client);
    CHECK(e == test_ep);
    CHECK(t == test_tm);
    CHECK(s == GEX_SEGMENT_INVALID);
    gasnet_QueryGexObjects(NULL, NULL, NULL, NULL);
    c = (gex_Client_t)0;
    gasnet_QueryGexObjects(&c, NULL, NULL, NULL);
    CHECK(c == test_client);

    /* CData: NULL when new, each object keeps its own value */
    static int tag_c, tag_e, tag_t;
    CHECK(gex_Client_QueryCData(test_client) == NULL);
    CHECK(gex_EP_QueryCData(test_ep) == NULL);
    CHECK(gex_TM_QueryCData(test_tm) == NULL);
    gex_Client_SetCData(test_client, &tag_c);
    gex_EP_SetCData(test_ep, &tag_e);
    gex_TM_SetCData(test_tm, &tag_t);
    CHECK(gex_Client_QueryCData(test_client) == &tag_c);
    CHECK(gex_EP_QueryCData(test_ep) == &tag_e);
    CHECK(gex_TM_QueryCData(test_tm) == &tag_t);
    gex_EP_SetCData(test_ep, NULL);
    CHECK(gex_EP_QueryCData(test_ep) == NULL);
    CHECK(gex_Client_QueryCData(test_client) == &tag_c);
    gex_EP_SetCData(test_ep, &tag_e);
}

int main(int argc, char **argv) {
    /* arguments given to the program must survive gex_Client_Init */
    int argc0 = argc;
    char **saved = (char **)calloc((size_t)argc + 1, sizeof(char *));
    for (int i = 0; i < argc; i++) saved[i] = strdup(argv[i]);

    CHECK_EQ(sizeof(gex_Event_t), sizeof(uintptr_t));
    CHECK_EQ(sizeof(gex_TM_t), sizeof(uintptr_t));

    test_init("test_init", &argc, &argv);
    CHECKF(argc == argc0, "argc %d after gex_Client_Init, %d before", argc, argc0);
    for (int i = 0; i < argc0; i++)
        CHECKF(argv[i] && strcmp(argv[i], saved[i]) == 0, "argv[%d] = \"%s\", was \"%s\"", i,
               argv[i] ? argv[i] : "(null)", saved[i]);
    CHECK(argv[argc] == NULL);

    check_errors();
    check_system_queries();
    check_objects();

    peer_info = (seginfo_msg_t *)calloc(test_size, sizeof(seginfo_msg_t));
    gex_AM_Entry_t htab[1] = { { 0, (gex_AM_Fn_t)seginfo_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST,
                                 0, NULL, "seginfo" } };
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, htab, 1), GASNET_OK);
    CHECK_EQ(htab[0].gex_index, 255); /* first index-0 entry gets the highest free index */

    /* no segment yet: QueryBound fails and leaves every output alone */
    {
        void *own = (void *)(uintptr_t)0x11, *loc = (void *)(uintptr_t)0x22;
        uintptr_t sz = 0x33;
        int rc = gex_Segment_QueryBound(test_tm, test_rank, &own, &loc, &sz);
        CHECKF(rc != 0, "gex_Segment_QueryBound before attach returned %d", rc);
        CHECK(own == (void *)(uintptr_t)0x11 && loc == (void *)(uintptr_t)0x22 && sz == 0x33);
    }

    /* segment size limits (legacy queries, valid before the segment exists) */
    uintptr_t maxlocal = gasnet_getMaxLocalSegmentSize();
    uintptr_t maxglobal = gasnet_getMaxGlobalSegmentSize();
    CHECK(maxlocal > 0);
    CHECK(maxglobal > 0);
    CHECKF(maxglobal <= maxlocal, "global %llu > local %llu", (unsigned long long)maxglobal,
           (unsigned long long)maxlocal);
    CHECKF(maxlocal % GASNET_PAGESIZE == 0, "maxlocal %llu", (unsigned long long)maxlocal);
    CHECKF(maxglobal % GASNET_PAGESIZE == 0, "maxglobal %llu", (unsigned long long)maxglobal);

    /* sizes differ per rank (not single-valued), so peers' reports are distinguishable */
    uintptr_t want = 4u << 20;
    if (want + (uintptr_t)test_size * GASNET_PAGESIZE > maxglobal)
        want = maxglobal / 2 / GASNET_PAGESIZE * GASNET_PAGESIZE;
    CHECKF(want >= GASNET_PAGESIZE, "maxglobal %llu is below a page", (unsigned long long)maxglobal);
    uintptr_t mysize = want + (uintptr_t)test_rank * GASNET_PAGESIZE;
    CHECK(mysize % GASNET_PAGESIZE == 0);
    gex_Segment_t seg = GEX_SEGMENT_INVALID;
    int rc = gex_Segment_Attach(&seg, test_tm, mysize);
    CHECKF(rc == GASNET_OK, "gex_Segment_Attach(%llu) returned %d", (unsigned long long)mysize, rc);
    CHECK(seg != GEX_SEGMENT_INVALID);

    CHECK(gex_Segment_QueryClient(seg) == test_client);
    CHECK_EQ(gex_Segment_QueryFlags(seg), 0);
    uint8_t *base = (uint8_t *)gex_Segment_QueryAddr(seg);
    CHECK(base != NULL);
    CHECKF((uintptr_t)base % GASNET_PAGESIZE == 0, "segment base %p", (void *)base);
    CHECK_EQ(gex_Segment_QuerySize(seg), mysize);
    CHECK(gex_EP_QuerySegment(test_ep) == seg);
    {
        gex_Segment_t s = GEX_SEGMENT_INVALID;
        gasnet_QueryGexObjects(NULL, NULL, NULL, &s);
        CHECK(s == seg);
    }
    CHECK(gex_Segment_QueryCData(seg) == NULL);
    static int tag_s;
    gex_Segment_SetCData(seg, &tag_s);
    CHECK(gex_Segment_QueryCData(seg) == &tag_s);
    CHECK(gex_EP_QueryCData(test_ep) != &tag_s && gex_Client_QueryCData(test_client) != &tag_s);

    /* the whole segment is usable memory; leave a per-rank pattern in it */
    test_pat_fill(base, mysize, 0x5E600000u + test_rank);
    CHECK_PAT(base, mysize, 0x5E600000u + test_rank, "own segment after fill");

    /* self */
    {
        void *own = NULL, *loc = NULL;
        uintptr_t sz = 0;
        CHECK_EQ(gex_Segment_QueryBound(test_tm, test_rank, &own, &loc, &sz), 0);
        CHECK(own == base);
        CHECK(loc == base);
        CHECK_EQ(sz, mysize);
        CHECK_EQ(gex_Segment_QueryBound(test_tm, test_rank, NULL, NULL, NULL), 0);
    }

    /* tell every peer (and myself) what I see, by AM */
    seginfo_msg_t mine;
    mine.addr = (uint64_t)(uintptr_t)base;
    mine.size = mysize;
    mine.maxlocal = maxlocal;
    mine.maxglobal = maxglobal;
    for (gex_Rank_t p = 0; p < test_size; p++)
        gex_AM_RequestMedium0(test_tm, p, htab[0].gex_index, &mine, sizeof mine, GEX_EVENT_NOW, 0);
    TEST_POLL_UNTIL(peer_info_count == (int)test_size, 60, "got %d of %u seginfo messages",
                    peer_info_count, (unsigned)test_size);
    test_barrier(); /* every rank has filled its segment with its pattern */

    uint64_t minlocal = maxlocal;
    gex_RankInfo_t *ninfo = NULL;
    gex_Rank_t ncount = 0;
    gex_System_QueryNbrhdInfo(&ninfo, &ncount, NULL);
    for (gex_Rank_t p = 0; p < test_size; p++) {
        void *own = NULL, *loc = NULL;
        uintptr_t sz = 0;
        int qrc = gex_Segment_QueryBound(test_tm, p, &own, &loc, &sz);
        CHECKF(qrc == 0, "gex_Segment_QueryBound(rank %u) returned %d", (unsigned)p, qrc);
        CHECKF((uint64_t)(uintptr_t)own == peer_info[p].addr, "rank %u: owneraddr %p, owner reports 0x%llx",
               (unsigned)p, own, (unsigned long long)peer_info[p].addr);
        CHECKF(sz == peer_info[p].size, "rank %u: size %llu, owner reports %llu", (unsigned)p,
               (unsigned long long)sz, (unsigned long long)peer_info[p].size);
        CHECKF(sz == want + (uintptr_t)p * GASNET_PAGESIZE, "rank %u: size %llu", (unsigned)p,
               (unsigned long long)sz);
        /* a neighbor's segment is mapped here, and it is the same memory; no other is */
        int nbr = 0;
        for (gex_Rank_t i = 0; i < ncount; i++) nbr |= ninfo[i].gex_jobrank == p;
        if (nbr) {
            CHECKF(loc != NULL, "rank %u (a neighbor): segment not mapped locally", (unsigned)p);
            CHECK_PAT(loc, sz, 0x5E600000u + p, "rank %u's segment read through localaddr %p", (unsigned)p, loc);
        } else {
            CHECKF(loc == NULL, "rank %u (not a neighbor): localaddr %p", (unsigned)p, loc);
        }
        /* outputs are optional */
        void *own2 = NULL;
        CHECK_EQ(gex_Segment_QueryBound(test_tm, p, &own2, NULL, NULL), 0);
        CHECK(own2 == own);
        uintptr_t sz2 = 0;
        CHECK_EQ(gex_Segment_QueryBound(test_tm, p, NULL, NULL, &sz2), 0);
        CHECK_EQ(sz2, sz);
        /* the global maximum is one value, no larger than anyone's local maximum */
        CHECKF(peer_info[p].maxglobal == maxglobal, "rank %u: maxglobal %llu, mine %llu", (unsigned)p,
               (unsigned long long)peer_info[p].maxglobal, (unsigned long long)maxglobal);
        if (peer_info[p].maxlocal < minlocal) minlocal = peer_info[p].maxlocal;
    }
    CHECKF(maxglobal <= minlocal, "maxglobal %llu > smallest maxlocal %llu", (unsigned long long)maxglobal,
           (unsigned long long)minlocal);

    test_finish("objects, queries, CData, segments of %llu..%llu bytes", (unsigned long long)want,
                (unsigned long long)(want + (test_size - 1) * GASNET_PAGESIZE));
    return 0;
}
