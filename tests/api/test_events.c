/* tests/api/test_events.c: leaf events (gex_Event_QueryLeaf), NBI access regions
 * collecting puts and gets to every rank, gex_Event_{Test,Wait}{Some,All} on arrays
 * mixing GEX_EVENT_INVALID with real events, gex_NBI_{Test,Wait} masks, and (par) access
 * regions open on several threads at once.
 * Run with 1, 2, 4 ranks, and again with GASNET_RMA_NBRHD_BYPASS=0: then RMA to
 * neighbors goes through the AM-based protocol and events really are asynchronous (the
 * default same-host path completes at once and mostly returns GEX_EVENT_INVALID); that
 * run must see real events, or it fails.  Layer: tests (public API only). */
#include "test_util.h"
#if defined(GASNET_PAR)
#    include <pthread.h>
#endif

#define NOPS 8     /* operations per peer and kind */
#define CHUNK 4096 /* bytes reserved per operation; op k moves op_len(k) of them */
#define SLOT ((size_t)NOPS * CHUNK)
#define NTHREADS 3
#define ROUNDS 4
#define WAIT_SECS 60

/* Offsets in every rank's segment (the same on each). */
#define OFF_G 0                       /* get source, filled by its owner at start */
#define OFF_X SLOT                    /* leaf and mask tests: written by the left neighbor */
#define OFF_T (2 * SLOT)              /* [NTHREADS] slots: the left neighbor's threads */
#define OFF_P ((2 + NTHREADS) * SLOT) /* [test_size] slots: slot s written by rank s */

enum { S_GET = 1, S_LEAF, S_REGION, S_ARRAY, S_MASK, S_THREAD, S_OUTSIDE };

static int ambased; /* GASNET_RMA_NBRHD_BYPASS=0 */
static uint8_t *myseg;
static uint8_t **peerseg; /* [test_size]: each rank's segment (owner address) */
static gex_Rank_t right, left;
static uint8_t *hsrc, *hdst, *hchk; /* private buffers of test_size * SLOT bytes */
static long n_regions, n_real_regions, n_real_events;

static size_t op_len(int k) { return CHUNK - 37 * (size_t)k; } /* distinct lengths */
static uint64_t seed(int what, gex_Rank_t from, gex_Rank_t to, int round, int k) {
    return test_mix64(0xE7E00000ull ^ ((uint64_t)what << 56) ^ ((uint64_t)from << 40) ^ ((uint64_t)to << 24) ^
                      ((uint64_t)round << 8) ^ (uint64_t)k);
}
static void invert(uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)~p[i];
}
static void count_event(gex_Event_t ev) {
    if (ev != GEX_EVENT_INVALID) n_real_events++;
}

/* sync one event: gex_Event_Wait, or gex_Event_Test until it succeeds (polling) */
static void sync_event(gex_Event_t ev, int wait, const char *what) {
    CHECKF(ev != GEX_EVENT_NO_OP, "%s: GEX_EVENT_NO_OP", what);
    if (wait)
        gex_Event_Wait(ev);
    else
        TEST_POLL_UNTIL(gex_Event_Test(ev) == 0, WAIT_SECS, "%s: the event never completed", what);
}

/* read back [dst, dst+n) of rank r and check it holds the stream `s` */
static void check_remote(gex_Rank_t r, uint8_t *dst, size_t n, uint64_t s, const char *what) {
    memset(hchk, 0x5A, n);
    CHECK_EQ(gex_RMA_GetBlocking(test_tm, hchk, r, dst, n, 0), 0);
    CHECK_PAT(hchk, n, s, "%s (read back from rank %u)", what, (unsigned)r);
}

/* ---- the degenerate cases ---- */
static void test_degenerate(void) {
    static const gex_EC_t cats[] = {GEX_EC_GET, GEX_EC_PUT, GEX_EC_AM, GEX_EC_LC, GEX_EC_RMW};
    for (int i = 0; i < 5; i++)
        CHECKF(gex_Event_QueryLeaf(GEX_EVENT_INVALID, cats[i]) == GEX_EVENT_INVALID,
               "gex_Event_QueryLeaf(GEX_EVENT_INVALID, 0x%x) is not GEX_EVENT_INVALID", (unsigned)cats[i]);
    gex_Event_t inv[3] = {GEX_EVENT_INVALID, GEX_EVENT_INVALID, GEX_EVENT_INVALID};
    CHECK_EQ(gex_Event_Test(GEX_EVENT_INVALID), 0);
    gex_Event_Wait(GEX_EVENT_INVALID);
    CHECK_EQ(gex_Event_TestAll(inv, 3, 0), 0);
    CHECK_EQ(gex_Event_TestSome(inv, 3, 0), 0);
    CHECK_EQ(gex_Event_TestAll(inv, 0, 0), 0);
    CHECK_EQ(gex_Event_TestSome(inv, 0, 0), 0);
    gex_Event_WaitAll(inv, 3, 0);
    gex_Event_WaitSome(inv, 3, 0);
    for (int i = 0; i < 3; i++)
        CHECK(inv[i] == GEX_EVENT_INVALID);
    CHECK_EQ(gex_NBI_Test(0, 0), 0);
    for (int i = 0; i < 5; i++)
        CHECK_EQ(gex_NBI_Test(cats[i], 0), 0);
    CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), 0);
}

/* ---- leaves of NB puts and gets ---- */
/* one PutNB to the right neighbor's X area; `how`: 0 &lc, 1 DEFER + ENABLE_LEAF_LC,
 * 2 NOW + ENABLE_LEAF_LC. The source is scribbled once local completion is known. */
static void leaf_put(int how, int round, int k) {
    static const char *const name[3] = {"PutNB(&lc)", "PutNB(DEFER, GEX_FLAG_ENABLE_LEAF_LC)",
                                        "PutNB(NOW, GEX_FLAG_ENABLE_LEAF_LC)"};
    char what[160];
    snprintf(what, sizeof what, "%s of %zu bytes to rank %u, round %d", name[how], op_len(k), (unsigned)right, round);
    uint8_t *dst = peerseg[right] + OFF_X + (size_t)k * CHUNK;
    const uint64_t s = seed(S_LEAF, test_rank, right, round, k);
    test_pat_fill(hsrc, op_len(k), s);
    gex_Event_t lc = GEX_EVENT_NO_OP, ev;
    if (how == 0)
        ev = gex_RMA_PutNB(test_tm, right, dst, hsrc, op_len(k), &lc, 0);
    else
        ev = gex_RMA_PutNB(test_tm, right, dst, hsrc, op_len(k), how == 1 ? GEX_EVENT_DEFER : GEX_EVENT_NOW,
                           GEX_FLAG_ENABLE_LEAF_LC);
    CHECKF(ev != GEX_EVENT_NO_OP, "%s returned GEX_EVENT_NO_OP", what);
    CHECKF(how != 0 || lc != GEX_EVENT_NO_OP, "%s did not write lc", what);
    count_event(ev);
    if (ambased) CHECKF(ev != GEX_EVENT_INVALID, "%s: the AM-based path returned GEX_EVENT_INVALID", what);
    /* the same leaf on every query; the root for its own category */
    gex_Event_t q1 = gex_Event_QueryLeaf(ev, GEX_EC_LC), q2 = gex_Event_QueryLeaf(ev, GEX_EC_LC);
    CHECKF(q1 == q2, "%s: two leaf queries gave %p and %p", what, (void *)q1, (void *)q2);
    if (how == 0)
        CHECKF(q1 == lc, "%s: the LC leaf %p is not the event stored in lc (%p)", what, (void *)q1, (void *)lc);
    CHECKF(gex_Event_QueryLeaf(ev, GEX_EC_PUT) == ev, "%s: the GEX_EC_PUT query is not the root", what);
    if (how == 2) /* NOW: locally complete at return, so the leaf is INVALID or tests done without polling */
        CHECKF(q1 == GEX_EVENT_INVALID || gex_Event_Test(q1) == 0, "%s: the LC leaf is not complete", what);
    if (q1 != GEX_EVENT_INVALID) {
        /* syncing a leaf leaves it in place: it syncs again, and the query still names it */
        sync_event(q1, k & 1, what);
        sync_event(q1, !(k & 1), what);
        CHECKF(gex_Event_QueryLeaf(ev, GEX_EC_LC) == q1, "%s: the leaf changed after its sync", what);
    }
    invert(hsrc, op_len(k)); /* locally complete: the put must not see this */
    if (k & 2) {
        sync_event(ev, k & 1, what);
    } else { /* the root with its leaf in one array (the leaf first: the root recycles it) */
        gex_Event_t arr[3] = {q1, GEX_EVENT_INVALID, ev};
        gex_Event_WaitAll(arr, 3, 0);
        for (int i = 0; i < 3; i++)
            CHECKF(arr[i] == GEX_EVENT_INVALID, "%s: gex_Event_WaitAll left slot %d", what, i);
    }
    check_remote(right, dst, op_len(k), s, what);
}

static void test_leaves(void) {
    for (int round = 0; round < ROUNDS; round++)
        for (int k = 0; k < NOPS; k++)
            leaf_put((k + round) % 3, round, k);
    /* a get is its own GEX_EC_GET leaf */
    for (int k = 0; k < NOPS; k++) {
        memset(hdst, 0, op_len(k));
        gex_Event_t ev = gex_RMA_GetNB(test_tm, hdst, right, peerseg[right] + OFF_G + (size_t)k * CHUNK, op_len(k), 0);
        CHECK(ev != GEX_EVENT_NO_OP);
        count_event(ev);
        CHECKF(gex_Event_QueryLeaf(ev, GEX_EC_GET) == ev, "GetNB %d: the GEX_EC_GET query is not the root", k);
        CHECKF(gex_Event_QueryLeaf(ev, GEX_EC_GET) == ev, "GetNB %d: a second query differs", k);
        sync_event(ev, k & 1, "GetNB");
        CHECK_PAT(hdst, op_len(k), seed(S_GET, right, 0, 0, k), "GetNB %d from rank %u", k, (unsigned)right);
    }
}

/* ---- access regions ---- */
static const gex_Event_t *const lc_modes[3] = {GEX_EVENT_NOW, GEX_EVENT_DEFER, GEX_EVENT_GROUP};

/* Round r: puts and gets to every rank inside one region, with an explicit NB get in the
 * region (not part of it) and, in odd rounds, an NBI get outside it (not part of it either). */
static void region_round(int r) {
    char what[160];
    snprintf(what, sizeof what, "access region, round %d", r);
    const size_t outside_off = (size_t)test_size * SLOT - CHUNK; /* the last chunk of hdst: never a region get */
    if (r & 1) {
        memset(hdst + outside_off, 0, CHUNK);
        CHECK_EQ(gex_RMA_GetNBI(test_tm, hdst + outside_off, left, peerseg[left] + OFF_G, op_len(0), 0), 0);
    }
    for (gex_Rank_t i = 0; i < test_size; i++) {
        const gex_Rank_t p = (test_rank + 1 + i) % test_size;
        for (int k = 0; k < NOPS; k++)
            test_pat_fill(hsrc + (i * NOPS + k) * CHUNK, op_len(k), seed(S_REGION, test_rank, p, r, k));
    }
    memset(hdst, 0, (size_t)test_size * SLOT - CHUNK);
    uint8_t nbbuf[CHUNK];
    gex_NBI_BeginAccessRegion(0);
    for (gex_Rank_t i = 0; i < test_size; i++) {
        const gex_Rank_t p = (test_rank + 1 + i) % test_size;
        for (int k = 0; k < NOPS; k++) {
            size_t o = (i * NOPS + k) * CHUNK;
            CHECK_EQ(gex_RMA_PutNBI(test_tm, p, peerseg[p] + OFF_P + test_rank * SLOT + (size_t)k * CHUNK, hsrc + o,
                                    op_len(k), (gex_Event_t *)lc_modes[(k + r) % 3], 0),
                     0);
            if (o != outside_off)
                CHECK_EQ(gex_RMA_GetNBI(test_tm, hdst + o, p, peerseg[p] + OFF_G + (size_t)k * CHUNK, op_len(k), 0), 0);
        }
    }
    gex_Event_t nb = gex_RMA_GetNB(test_tm, nbbuf, right, peerseg[right] + OFF_G + CHUNK, op_len(1), 0);
    CHECK(nb != GEX_EVENT_NO_OP);
    gex_Event_t ev = gex_NBI_EndAccessRegion(0);
    CHECKF(ev != GEX_EVENT_NO_OP, "%s: gex_NBI_EndAccessRegion returned GEX_EVENT_NO_OP", what);
    n_regions++;
    if (ev != GEX_EVENT_INVALID) n_real_regions++;
    /* the implicit set outside knows nothing of the region: complete at once without
     * polling when nothing was started outside it, else after gex_NBI_Wait */
    if (r & 1) {
        if (r & 2)
            gex_NBI_Wait(GEX_EC_ALL, 0);
        else
            TEST_POLL_UNTIL(gex_NBI_Test(GEX_EC_GET, 0) == 0, WAIT_SECS, "%s: the outside NBI get never completed",
                            what);
        CHECK_PAT(hdst + outside_off, op_len(0), seed(S_GET, left, 0, 0, 0), "%s: the NBI get outside the region",
                  what);
    }
    CHECKF(gex_NBI_Test(GEX_EC_ALL, 0) == 0, "%s: gex_NBI_Test(GEX_EC_ALL) outside the region is not complete", what);
    /* the region's LC leaf: the GROUP puts' sources may be reused once it completes */
    gex_Event_t leaf = gex_Event_QueryLeaf(ev, GEX_EC_LC);
    CHECKF(leaf == gex_Event_QueryLeaf(ev, GEX_EC_LC), "%s: two LC leaf queries differ", what);
    CHECKF(ev != GEX_EVENT_INVALID || leaf == GEX_EVENT_INVALID, "%s: an INVALID region has a valid leaf", what);
    if (leaf != GEX_EVENT_INVALID) sync_event(leaf, r & 2, what);
    for (gex_Rank_t i = 0; i < test_size; i++)
        for (int k = 0; k < NOPS; k++)
            if (lc_modes[(k + r) % 3] != GEX_EVENT_DEFER) invert(hsrc + (i * NOPS + k) * CHUNK, op_len(k));
    sync_event(nb, r & 1, what);
    CHECK_PAT(nbbuf, op_len(1), seed(S_GET, right, 0, 0, 1), "%s: the NB get made inside it", what);
    if (r & 2) {
        sync_event(ev, r & 1, what);
    } else {
        gex_Event_t arr[2] = {GEX_EVENT_INVALID, ev};
        if (r & 1)
            gex_Event_WaitSome(arr, 2, 0);
        else
            gex_Event_WaitAll(arr, 2, 0);
        CHECKF(arr[0] == GEX_EVENT_INVALID && arr[1] == GEX_EVENT_INVALID, "%s: the array was not cleared", what);
    }
    /* every byte of every get */
    for (gex_Rank_t i = 0; i < test_size; i++) {
        const gex_Rank_t p = (test_rank + 1 + i) % test_size;
        for (int k = 0; k < NOPS; k++) {
            size_t o = (i * NOPS + k) * CHUNK;
            if (o != outside_off)
                CHECK_PAT(hdst + o, op_len(k), seed(S_GET, p, 0, 0, k), "%s: get %d from rank %u", what, k,
                          (unsigned)p);
        }
    }
    /* and of every put, where it landed */
    test_barrier();
    for (gex_Rank_t s = 0; s < test_size; s++)
        for (int k = 0; k < NOPS; k++)
            CHECK_PAT(myseg + OFF_P + s * SLOT + (size_t)k * CHUNK, op_len(k), seed(S_REGION, s, test_rank, r, k),
                      "%s: put %d from rank %u", what, k, (unsigned)s);
    test_barrier();
}

static void test_regions(void) {
    for (int r = 0; r < ROUNDS; r++)
        region_round(r);

    /* empty regions, and regions holding only explicit-event operations, are complete at
     * once (no polling) even while NBI operations outside them are outstanding */
    memset(hdst, 0, 2 * CHUNK);
    CHECK_EQ(gex_RMA_GetNBI(test_tm, hdst, right, peerseg[right] + OFF_G, op_len(0), 0), 0);
    gex_NBI_BeginAccessRegion(0);
    gex_Event_t empty = gex_NBI_EndAccessRegion(0);
    CHECKF(empty == GEX_EVENT_INVALID || gex_Event_Test(empty) == 0, "an empty region is not complete at once");
    CHECK(gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_LC) == GEX_EVENT_INVALID);
    gex_NBI_BeginAccessRegion(0);
    gex_Event_t nb = gex_RMA_GetNB(test_tm, hdst + CHUNK, right, peerseg[right] + OFF_G + CHUNK, op_len(1), 0);
    gex_Event_t only_nb = gex_NBI_EndAccessRegion(0);
    CHECKF(only_nb == GEX_EVENT_INVALID || gex_Event_Test(only_nb) == 0,
           "a region holding only an NB get is not complete at once");
    gex_Event_Wait(nb);
    CHECK_PAT(hdst + CHUNK, op_len(1), seed(S_GET, right, 0, 0, 1), "the NB get made in a region");
    gex_NBI_Wait(GEX_EC_GET, 0);
    CHECK_PAT(hdst, op_len(0), seed(S_GET, right, 0, 0, 0), "the NBI get made before an empty region");

    /* regions one after another, synced in reverse order; GROUP puts only */
    gex_Event_t evs[NOPS];
    for (int k = 0; k < NOPS; k++) {
        test_pat_fill(hsrc + (size_t)k * CHUNK, op_len(k), seed(S_REGION, test_rank, right, 100, k));
        gex_NBI_BeginAccessRegion(0);
        CHECK_EQ(gex_RMA_PutNBI(test_tm, right, peerseg[right] + OFF_X + (size_t)k * CHUNK, hsrc + (size_t)k * CHUNK,
                                op_len(k), GEX_EVENT_GROUP, 0),
                 0);
        evs[k] = gex_NBI_EndAccessRegion(0);
        n_regions++;
        if (evs[k] != GEX_EVENT_INVALID) n_real_regions++;
    }
    for (int k = NOPS - 1; k >= 0; k--) {
        gex_Event_t leaf = gex_Event_QueryLeaf(evs[k], GEX_EC_LC);
        if (leaf != GEX_EVENT_INVALID) sync_event(leaf, k & 1, "LC leaf of a GROUP-put region");
        invert(hsrc + (size_t)k * CHUNK, op_len(k));
        sync_event(evs[k], k & 2, "GROUP-put region");
        check_remote(right, peerseg[right] + OFF_X + (size_t)k * CHUNK, op_len(k),
                     seed(S_REGION, test_rank, right, 100, k), "GROUP put in its own region");
    }
    CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), 0);
}

/* ---- event arrays mixing INVALID and real events ---- */
#define NARR (3 * NOPS + 2)
static void test_arrays(void) {
    static const char *const mname[4] = {"gex_Event_WaitAll", "gex_Event_TestAll", "gex_Event_WaitSome",
                                         "gex_Event_TestSome"};
    for (int mode = 0; mode < 4; mode++) {
        gex_Event_t arr[NARR], before[NARR];
        int slot_op[NARR]; /* the get in this slot, or -1 */
        memset(hdst, 0, SLOT);
        for (int i = 0; i < NARR; i++) {
            arr[i] = GEX_EVENT_INVALID;
            slot_op[i] = -1;
        }
        for (int k = 0; k < NOPS; k++) { /* INVALID, get, INVALID, get, ... with a region and a barrier */
            const gex_Rank_t p = (test_rank + 1 + (gex_Rank_t)k) % test_size;
            arr[3 * k + 1] = gex_RMA_GetNB(test_tm, hdst + (size_t)k * CHUNK, p, peerseg[p] + OFF_G + (size_t)k * CHUNK,
                                           op_len(k), 0);
            CHECK(arr[3 * k + 1] != GEX_EVENT_NO_OP);
            count_event(arr[3 * k + 1]);
            slot_op[3 * k + 1] = k;
        }
        gex_NBI_BeginAccessRegion(0);
        CHECK_EQ(gex_RMA_PutNBI(test_tm, right, peerseg[right] + OFF_X, hsrc, 64, GEX_EVENT_DEFER, 0), 0);
        arr[3 * NOPS] = gex_NBI_EndAccessRegion(0);
        arr[3 * NOPS + 1] = gex_Coll_BarrierNB(test_tm, 0); /* every rank runs the same sequence */
        CHECK(arr[3 * NOPS + 1] != GEX_EVENT_INVALID && arr[3 * NOPS + 1] != GEX_EVENT_NO_OP);
        int left_ev = 0;
        for (int i = 0; i < NARR; i++)
            left_ev += arr[i] != GEX_EVENT_INVALID;
        double t0 = test_now();
        while (left_ev) {
            memcpy(before, arr, sizeof arr);
            int rc = 0;
            switch (mode) {
            case 0:
                gex_Event_WaitAll(arr, NARR, 0);
                break;
            case 1:
                rc = gex_Event_TestAll(arr, NARR, 0);
                break;
            case 2:
                gex_Event_WaitSome(arr, NARR, 0);
                break;
            case 3:
                rc = gex_Event_TestSome(arr, NARR, 0);
                break;
            }
            int cleared = 0, still = 0;
            for (int i = 0; i < NARR; i++) {
                if (before[i] == GEX_EVENT_INVALID)
                    CHECKF(arr[i] == GEX_EVENT_INVALID, "%s changed INVALID slot %d", mname[mode], i);
                else if (arr[i] == GEX_EVENT_INVALID) { /* completed in this call: its data is there */
                    cleared++;
                    if (slot_op[i] >= 0)
                        CHECK_PAT(hdst + (size_t)slot_op[i] * CHUNK, op_len(slot_op[i]),
                                  seed(S_GET, (test_rank + 1 + (gex_Rank_t)slot_op[i]) % test_size, 0, 0, slot_op[i]),
                                  "%s: get in slot %d", mname[mode], i);
                } else {
                    CHECKF(arr[i] == before[i], "%s replaced slot %d with another event", mname[mode], i);
                    still++;
                }
            }
            if (mode == 0 || (mode == 1 && rc == 0))
                CHECKF(still == 0, "%s succeeded with %d events outstanding", mname[mode], still);
            if (mode == 1 && rc != 0) CHECKF(still > 0, "%s failed with every event complete", mname[mode]);
            if (mode == 2 || (mode == 3 && rc == 0))
                CHECKF(cleared > 0, "%s succeeded but completed no event", mname[mode]);
            if (mode == 3 && rc != 0) CHECKF(cleared == 0, "%s failed yet cleared %d events", mname[mode], cleared);
            left_ev = still;
            if (left_ev) {
                gasnet_AMPoll();
                CHECKF(test_now() - t0 < WAIT_SECS, "%s: events never completed", mname[mode]);
            }
        }
    }
    gex_NBI_Wait(GEX_EC_ALL, 0);
}

/* ---- NBI masks ---- */
static void test_masks(void) {
    for (int round = 0; round < 3; round++) {
        gex_Event_t *lc = (gex_Event_t *)lc_modes[round];
        memset(hdst, 0, SLOT);
        for (int k = 0; k < NOPS; k++) {
            test_pat_fill(hsrc + (size_t)k * CHUNK, op_len(k), seed(S_MASK, test_rank, right, round, k));
            CHECK_EQ(gex_RMA_PutNBI(test_tm, right, peerseg[right] + OFF_X + (size_t)k * CHUNK,
                                    hsrc + (size_t)k * CHUNK, op_len(k), lc, 0),
                     0);
            CHECK_EQ(gex_RMA_GetNBI(test_tm, hdst + (size_t)k * CHUNK, left, peerseg[left] + OFF_G + (size_t)k * CHUNK,
                                    op_len(k), 0),
                     0);
        }
        /* categories nothing was started in are complete, whatever is outstanding */
        CHECK_EQ(gex_NBI_Test(0, 0), 0);
        CHECK_EQ(gex_NBI_Test(GEX_EC_AM, 0), 0);
        CHECK_EQ(gex_NBI_Test(GEX_EC_RMW | GEX_EC_AM, 0), 0);
        if (lc != GEX_EVENT_GROUP) CHECK_EQ(gex_NBI_Test(GEX_EC_LC, 0), 0);
        if (round == 1)
            gex_NBI_Wait(GEX_EC_GET | GEX_EC_AM, 0);
        else
            TEST_POLL_UNTIL(gex_NBI_Test(GEX_EC_GET, 0) == 0, WAIT_SECS, "NBI gets never completed");
        for (int k = 0; k < NOPS; k++)
            CHECK_PAT(hdst + (size_t)k * CHUNK, op_len(k), seed(S_GET, left, 0, 0, k), "NBI get %d after its mask", k);
        if (lc == GEX_EVENT_GROUP) gex_NBI_Wait(GEX_EC_LC, 0); /* then the sources may change */
        if (lc != GEX_EVENT_DEFER) invert(hsrc, SLOT);
        if (round == 2)
            gex_NBI_Wait(GEX_EC_PUT | GEX_EC_LC, 0);
        else
            TEST_POLL_UNTIL(gex_NBI_Test(GEX_EC_PUT, 0) == 0, WAIT_SECS, "NBI puts never completed");
        CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), 0);
        for (int k = 0; k < NOPS; k++)
            check_remote(right, peerseg[right] + OFF_X + (size_t)k * CHUNK, op_len(k),
                         seed(S_MASK, test_rank, right, round, k), "NBI put after gex_NBI_*(GEX_EC_PUT)");
    }
}

#if defined(GASNET_PAR)
/* ---- par: a region is the calling thread's; NBI sync elsewhere is not inside it ---- */
static int phase; /* thread 0 holds its region open while thread 1 syncs NBI operations */

static void *region_thread(void *arg) {
    const int t = (int)(intptr_t)arg;
    uint8_t *src = (uint8_t *)malloc(SLOT), *dst = (uint8_t *)malloc(SLOT);
    CHECK(src && dst);
    uint8_t *tgt = peerseg[right] + OFF_T + (size_t)t * SLOT;
    for (int r = 0; r < ROUNDS; r++) {
        for (int k = 0; k < NOPS; k++)
            test_pat_fill(src + (size_t)k * CHUNK, op_len(k), seed(S_THREAD, test_rank, t, r, k));
        memset(dst, 0, SLOT);
        gex_NBI_BeginAccessRegion(0);
        if (r == 0 && t == 0) { /* let thread 1 run NBI syncs while this region is open */
            __atomic_store_n(&phase, 1, __ATOMIC_SEQ_CST);
            while (__atomic_load_n(&phase, __ATOMIC_SEQ_CST) != 2)
                gasnet_AMPoll();
        }
        for (int k = 0; k < NOPS; k++) {
            CHECK_EQ(gex_RMA_PutNBI(test_tm, right, tgt + (size_t)k * CHUNK, src + (size_t)k * CHUNK, op_len(k),
                                    GEX_EVENT_DEFER, 0),
                     0);
            CHECK_EQ(gex_RMA_GetNBI(test_tm, dst + (size_t)k * CHUNK, left, peerseg[left] + OFF_G + (size_t)k * CHUNK,
                                    op_len(k), 0),
                     0);
        }
        gex_Event_t ev = gex_NBI_EndAccessRegion(0);
        CHECKF(gex_NBI_Test(GEX_EC_ALL, 0) == 0, "thread %d: NBI outside its region is not complete", t);
        sync_event(ev, (r + t) & 1, "thread region");
        for (int k = 0; k < NOPS; k++)
            CHECK_PAT(dst + (size_t)k * CHUNK, op_len(k), seed(S_GET, left, 0, 0, k), "thread %d region get %d", t, k);
        for (int k = 0; k < NOPS; k++) {
            memset(dst, 0, op_len(k));
            CHECK_EQ(gex_RMA_GetBlocking(test_tm, dst, right, tgt + (size_t)k * CHUNK, op_len(k), 0), 0);
            CHECK_PAT(dst, op_len(k), seed(S_THREAD, test_rank, t, r, k), "thread %d region put %d", t, k);
        }
        if (r == 0 && t == 1) { /* outside any region on this thread, while thread 0 is inside one */
            while (__atomic_load_n(&phase, __ATOMIC_SEQ_CST) != 1)
                gasnet_AMPoll();
            CHECK_EQ(gex_RMA_GetNBI(test_tm, dst, left, peerseg[left] + OFF_G, op_len(0), 0), 0);
            gex_NBI_Wait(GEX_EC_ALL, 0);
            CHECK_PAT(dst, op_len(0), seed(S_GET, left, 0, 0, 0), "thread 1: NBI get while thread 0 is in a region");
            CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), 0);
            __atomic_store_n(&phase, 2, __ATOMIC_SEQ_CST);
        }
    }
    free(src);
    free(dst);
    return NULL;
}

static void test_threads(void) {
    pthread_t th[NTHREADS];
    phase = 0;
    for (int t = 0; t < NTHREADS; t++)
        CHECK_EQ(pthread_create(&th[t], NULL, region_thread, (void *)(intptr_t)t), 0);
    for (int t = 0; t < NTHREADS; t++)
        CHECK_EQ(pthread_join(th[t], NULL), 0);
    CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), 0);
}
#endif

int main(int argc, char **argv) {
    test_init("test_events", &argc, &argv);
    const char *bypass = getenv("GASNET_RMA_NBRHD_BYPASS");
    ambased = bypass && !strcmp(bypass, "0");
    right = (test_rank + 1) % test_size;
    left = (test_rank + test_size - 1) % test_size;
    gex_Segment_t seg = test_attach(OFF_P + (size_t)test_size * SLOT);
    myseg = (uint8_t *)gex_Segment_QueryAddr(seg);
    peerseg = (uint8_t **)calloc(test_size, sizeof(*peerseg));
    hsrc = (uint8_t *)malloc((size_t)test_size * SLOT);
    hdst = (uint8_t *)malloc((size_t)test_size * SLOT);
    hchk = (uint8_t *)malloc(CHUNK);
    CHECK(peerseg && hsrc && hdst && hchk);
    for (gex_Rank_t p = 0; p < test_size; p++) {
        void *own = NULL;
        uintptr_t sz = 0;
        CHECK_EQ(gex_Segment_QueryBound(test_tm, p, &own, NULL, &sz), 0);
        CHECKF(sz >= OFF_P + (size_t)test_size * SLOT, "rank %u's segment is %llu bytes", (unsigned)p,
               (unsigned long long)sz);
        peerseg[p] = (uint8_t *)own;
    }
    for (int k = 0; k < NOPS; k++)
        test_pat_fill(myseg + OFF_G + (size_t)k * CHUNK, CHUNK, seed(S_GET, test_rank, 0, 0, k));
    test_barrier();

    test_degenerate();
    test_leaves();
    test_barrier();
    test_regions();
    test_barrier();
    test_arrays();
    test_barrier();
    test_masks();
    test_barrier();
#if defined(GASNET_PAR)
    test_threads();
    test_barrier();
#endif
    /* else the asynchronous paths were never exercised (with 1 rank every AM-based
     * operation is to this process itself, and completes before its call returns) */
    if (ambased && test_size > 1)
        CHECKF(n_real_events > 0 && n_real_regions > 0, "the AM-based run saw %ld real events and %ld real regions",
               n_real_events, n_real_regions);
    test_finish("%ld regions (%ld with a real event), %ld real NB events, GASNET_RMA_NBRHD_BYPASS=%s", n_regions,
                n_real_regions, n_real_events, bypass ? bypass : "(default)");
    return 0;
}
