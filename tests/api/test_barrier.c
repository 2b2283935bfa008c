/* tests/api/test_barrier.c: gex_Coll_BarrierNB, and the legacy split-phase barrier
 * (gasnet_barrier_notify/wait/try): anonymous, named, mismatched names, the MISMATCH flag,
 * anonymous mixed with named, a wait whose id or flags differ from its own notify, and try
 * before every rank has notified.  Each phase proves that no rank leaves early: before a
 * barrier every rank puts the phase number into a slot in every segment, after it every
 * rank finds all the slots set.
 * Layer: tests (public API only).  Run with 1, 2, 4 ranks. */
#include "test_util.h"

#define ITERS_NB 400
#define ITERS_LEGACY 100
#define WAIT_SECS 60

static volatile int64_t *slots; /* my segment: [2][size] phase numbers, then [size] flags */
static int64_t **peer_slots;    /* every rank's slot array (owner addresses) */
static long epoch;              /* the phase number, identical on every rank */
static long n_barriers;

static void announce(long value) {
    const int buf = (int)(value & 1);
    for (gex_Rank_t k = 0; k < test_size; k++) {
        gex_Rank_t r = (test_rank + k) % test_size;
        int64_t v = value;
        if (k & 1) {
            CHECK_EQ(gex_RMA_PutBlocking(test_tm, r, &peer_slots[r][buf * test_size + test_rank], &v, sizeof v, 0), 0);
        } else {
            CHECK_EQ(gex_RMA_PutNBI(test_tm, r, &peer_slots[r][buf * test_size + test_rank], &v, sizeof v,
                                    GEX_EVENT_NOW, 0), 0);
        }
    }
    gex_NBI_Wait(GEX_EC_PUT, 0);
}
/* after the barrier of phase 'value': every rank announced it before entering */
static void check_announced(long value, const char *what) {
    const int buf = (int)(value & 1);
    for (gex_Rank_t p = 0; p < test_size; p++) {
        int64_t got = slots[buf * test_size + p];
        CHECKF(got == value, "%s, phase %ld: rank %u's slot holds %lld; it had not entered the barrier when I left",
               what, value, (unsigned)p, (long long)got);
    }
}
/* occasionally one rank arrives late, so an early exit would be seen */
static void maybe_delay(long i) {
    if (i % 25 == 0 && (gex_Rank_t)((i / 25) % test_size) == test_rank) test_sleep_ms(20);
}

static void nb_barrier(long i) {
    gex_Event_t ev = gex_Coll_BarrierNB(test_tm, 0);
    CHECK(ev != GEX_EVENT_NO_OP);
    if (i & 1)
        gex_Event_Wait(ev);
    else
        TEST_POLL_UNTIL(gex_Event_Test(ev) == 0, WAIT_SECS, "gex_Coll_BarrierNB %ld never completed", i);
    n_barriers++;
}

/* legacy split-phase barrier, returning wait's result */
static int legacy(int nid, int nflags, int wid, int wflags) {
    gasnet_barrier_notify(nid, nflags);
    int rc = gasnet_barrier_wait(wid, wflags);
    n_barriers++;
    return rc;
}
static void expect_rc(int rc, int want, const char *what) {
    CHECKF(rc == want, "%s: returned %s (%d), expected %s (%d)", what, gasnet_ErrorName(rc), rc,
           gasnet_ErrorName(want), want);
}
/* a checked anonymous legacy phase */
static void legacy_phase(const char *what) {
    epoch++;
    announce(epoch);
    expect_rc(legacy(0, GASNET_BARRIERFLAG_ANONYMOUS, 0, GASNET_BARRIERFLAG_ANONYMOUS), GASNET_OK, what);
    check_announced(epoch, what);
}

static void test_nb(void) {
    for (long i = 0; i < ITERS_NB; i++) {
        epoch++;
        maybe_delay(i);
        announce(epoch);
        nb_barrier(i);
        check_announced(epoch, "gex_Coll_BarrierNB");
    }
    /* several barriers in flight at once complete in order */
    gex_Event_t evs[4];
    for (int k = 0; k < 4; k++) evs[k] = gex_Coll_BarrierNB(test_tm, 0);
    gex_Event_WaitAll(evs, 4, 0);
    for (int k = 0; k < 4; k++) CHECK(evs[k] == GEX_EVENT_INVALID);
    n_barriers += 4;
    /* many in flight (the spec sets no limit), waited for newest first; one rank late */
    enum { MANY = 64 };
    gex_Event_t many[MANY];
    epoch++;
    if (test_rank == test_size - 1) test_sleep_ms(20);
    announce(epoch);
    for (int k = 0; k < MANY; k++) many[k] = gex_Coll_BarrierNB(test_tm, 0);
    for (int k = MANY - 1; k >= 0; k--) gex_Event_Wait(many[k]);
    check_announced(epoch, "64 gex_Coll_BarrierNB in flight");
    n_barriers += MANY;
}

static void test_legacy(void) {
    const int multi = test_size > 1;
    /* anonymous */
    for (long i = 0; i < ITERS_LEGACY; i++) {
        epoch++;
        maybe_delay(i);
        announce(epoch);
        expect_rc(legacy(0, GASNET_BARRIERFLAG_ANONYMOUS, 0, GASNET_BARRIERFLAG_ANONYMOUS), GASNET_OK, "anonymous");
        check_announced(epoch, "anonymous legacy barrier");
    }
    /* named, the same id everywhere (including negative and large ids) */
    for (long i = 0; i < 50; i++) {
        int id = (i % 3 == 0) ? (int)(0x7fff0000 + i) : (i % 3 == 1) ? (int)-i : (int)(1000 + i);
        epoch++;
        maybe_delay(i);
        announce(epoch);
        expect_rc(legacy(id, 0, id, 0), GASNET_OK, "named barrier, same id everywhere");
        check_announced(epoch, "named legacy barrier");
    }
    /* different ids: a mismatch, reported on every rank */
    epoch++;
    announce(epoch);
    expect_rc(legacy((int)test_rank + 7, 0, (int)test_rank + 7, 0), multi ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK,
              "named barrier, a different id on every rank");
    check_announced(epoch, "mismatched named barrier");
    legacy_phase("anonymous barrier after a mismatch");
    /* one rank differs from all the others */
    epoch++;
    announce(epoch);
    {
        int id = test_rank == test_size - 1 ? 43 : 42;
        expect_rc(legacy(id, 0, id, 0), multi ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK,
                  "named barrier, the last rank's id differs");
    }
    check_announced(epoch, "mismatched named barrier");
    legacy_phase("anonymous barrier after a mismatch");

    /* GASNET_BARRIERFLAG_MISMATCH on one rank forces a mismatch everywhere */
    for (gex_Rank_t who = 0; who < test_size; who += (test_size > 1 ? test_size - 1 : 1)) {
        epoch++;
        announce(epoch);
        int rc = test_rank == who ? legacy(5, GASNET_BARRIERFLAG_MISMATCH, 5, GASNET_BARRIERFLAG_MISMATCH)
                                  : legacy(5, 0, 5, 0);
        expect_rc(rc, GASNET_ERR_BARRIER_MISMATCH, "GASNET_BARRIERFLAG_MISMATCH on one rank");
        check_announced(epoch, "barrier with GASNET_BARRIERFLAG_MISMATCH");
        legacy_phase("anonymous barrier after a forced mismatch");
    }

    /* anonymous matches anything */
    epoch++;
    announce(epoch);
    expect_rc(test_rank % 2 ? legacy(77, 0, 77, 0)
                            : legacy(0, GASNET_BARRIERFLAG_ANONYMOUS, 0, GASNET_BARRIERFLAG_ANONYMOUS),
              GASNET_OK, "odd ranks named 77, even ranks anonymous");
    check_announced(epoch, "mixed anonymous/named barrier");
    epoch++;
    announce(epoch);
    expect_rc(test_rank == 0 ? legacy(-3, 0, -3, 0)
                             : legacy(99, GASNET_BARRIERFLAG_ANONYMOUS, 12, GASNET_BARRIERFLAG_ANONYMOUS),
              GASNET_OK, "rank 0 named, the others anonymous (with ignored ids)");
    check_announced(epoch, "mixed anonymous/named barrier");
    /* but two named ranks that disagree still mismatch, anonymous ranks included */
    epoch++;
    announce(epoch);
    {
        int rc;
        if (test_rank == 0) rc = legacy(1, 0, 1, 0);
        else if (test_rank == test_size - 1) rc = legacy(2, 0, 2, 0);
        else rc = legacy(0, GASNET_BARRIERFLAG_ANONYMOUS, 0, GASNET_BARRIERFLAG_ANONYMOUS);
        expect_rc(rc, multi ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK, "ranks 0 and N-1 named 1 and 2, others anonymous");
    }
    check_announced(epoch, "mixed barrier with disagreeing names");
    legacy_phase("anonymous barrier after a mismatch");

    /* wait with an id or flags different from this rank's own notify: a local mismatch */
    epoch++;
    announce(epoch);
    expect_rc(test_rank == 0 ? legacy(9, 0, 10, 0) : legacy(9, 0, 9, 0), test_rank == 0 ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK,
              "wait id differs from notify id on rank 0 only");
    check_announced(epoch, "wait id differing from notify id");
    epoch++;
    announce(epoch);
    expect_rc(test_rank == 0 ? legacy(9, 0, 9, GASNET_BARRIERFLAG_ANONYMOUS) : legacy(9, 0, 9, 0),
              test_rank == 0 ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK, "wait flags differ from notify flags on rank 0 only");
    check_announced(epoch, "wait flags differing from notify flags");
    legacy_phase("anonymous barrier after local mismatches");

    /* split phase: work between notify and wait */
    epoch++;
    announce(epoch);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    for (int k = 0; k < 100; k++) gasnet_AMPoll();
    expect_rc(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS), GASNET_OK, "wait after work");
    check_announced(epoch, "split-phase barrier with work in between");
}

/* gasnet_barrier_try before every rank has notified: NOT_READY, a no-op */
static void test_try(void) {
    volatile int64_t *flags = slots + 2 * test_size; /* rank 0 sets mine just before it notifies */
    for (int variant = 0; variant < 4; variant++) {
        legacy_phase("anonymous barrier before a try test");
        const long mark = 1000 + variant;
        const int named = variant >= 2;
        const int id = named ? 4242 : 0, fl = named ? 0 : GASNET_BARRIERFLAG_ANONYMOUS;
        int rc;
        if (test_rank == 0) {
            test_sleep_ms(200); /* everyone else notifies and tries meanwhile */
            for (gex_Rank_t r = 0; r < test_size; r++) {
                int64_t v = mark;
                CHECK_EQ(gex_RMA_PutBlocking(test_tm, r, &peer_slots[r][2 * test_size], &v, sizeof v, 0), 0);
            }
            gasnet_barrier_notify(id, fl);
            double t0 = test_now();
            while ((rc = gasnet_barrier_try(id, fl)) == GASNET_ERR_NOT_READY) {
                gasnet_AMPoll();
                CHECKF(test_now() - t0 < WAIT_SECS, "gasnet_barrier_try never succeeded on rank 0");
            }
        } else {
            gasnet_barrier_notify(id, fl);
            rc = gasnet_barrier_try(id, fl);
            /* rank 0 puts the mark before it notifies: no mark yet after the try means
             * rank 0 had not notified when it ran (a rank delayed past rank 0's sleep
             * may find the barrier complete, and then has nothing left to wait for) */
            CHECKF(rc == GASNET_ERR_NOT_READY || flags[0] == mark,
                   "gasnet_barrier_try while rank 0 has not notified returned %s (%d), expected GASNET_ERR_NOT_READY",
                   gasnet_ErrorName(rc), rc);
            if (rc != GASNET_ERR_NOT_READY) {
                /* done already: expect_rc below checks the result */
            } else if (variant & 1) {
                rc = gasnet_barrier_wait(id, fl); /* the NOT_READY try consumed nothing */
            } else {
                double t0 = test_now();
                while ((rc = gasnet_barrier_try(id, fl)) == GASNET_ERR_NOT_READY) {
                    gasnet_AMPoll();
                    CHECKF(test_now() - t0 < WAIT_SECS, "gasnet_barrier_try never succeeded");
                }
            }
        }
        n_barriers++;
        expect_rc(rc, GASNET_OK, "try/wait after rank 0 notified");
        CHECKF(flags[0] == mark, "the barrier completed but rank 0's pre-notify put (%ld) is not here (%lld)", mark,
               (long long)flags[0]);
    }
    /* try also reports a mismatch */
    legacy_phase("anonymous barrier before a mismatching try");
    gasnet_barrier_notify((int)test_rank, 0);
    int rc;
    double t0 = test_now();
    while ((rc = gasnet_barrier_try((int)test_rank, 0)) == GASNET_ERR_NOT_READY) {
        gasnet_AMPoll();
        CHECKF(test_now() - t0 < WAIT_SECS, "gasnet_barrier_try never completed");
    }
    n_barriers++;
    expect_rc(rc, test_size > 1 ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK, "try with a different id on every rank");
    legacy_phase("anonymous barrier after a mismatching try");
}

int main(int argc, char **argv) {
    test_init("test_barrier", &argc, &argv);
    gex_Segment_t seg = test_attach(GASNET_PAGESIZE + 3 * test_size * sizeof(int64_t));
    slots = (volatile int64_t *)gex_Segment_QueryAddr(seg);
    for (gex_Rank_t k = 0; k < 3 * test_size; k++) slots[k] = -1;
    peer_slots = (int64_t **)calloc(test_size, sizeof(int64_t *));
    for (gex_Rank_t r = 0; r < test_size; r++) {
        void *own = NULL;
        CHECK_EQ(gex_Segment_QueryBound(test_tm, r, &own, NULL, NULL), 0);
        peer_slots[r] = (int64_t *)own;
    }
    test_barrier(); /* slots initialized everywhere */
    n_barriers++;

    test_nb();
    test_legacy(); /* every gex_Coll_BarrierNB above has been waited for */
    test_try();
    for (long i = 0; i < 20; i++) { /* and back to the EX barrier */
        epoch++;
        announce(epoch);
        nb_barrier(i);
        check_announced(epoch, "gex_Coll_BarrierNB after legacy barriers");
    }
    test_finish("%ld barriers (EX and legacy; anonymous, named, mismatched, try)", n_barriers);
    return 0;
}
