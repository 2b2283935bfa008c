/* tests/api/test_coll1.c: the GASNet-1 collectives of gasnet_coll.h (gasnet_coll_*).
 * Started through gasnet_init + gasnet_attach, or (argument "ex") through gex_Client_Init,
 * gex_Segment_Attach and gasnet_QueryGexObjects; GASNET_TEAM_ALL is the primordial team
 * either way. On GASNET_TEAM_ALL, broadcast, scatter, gather, gather_all and exchange:
 *   - sizes 0, 1, 8, 13 and 1000 bytes (per image), roots 0, N-1 and N/2, each of the nine
 *     IN x OUT sync modes, SINGLE (segment addresses at the same offset on every rank,
 *     with SRC/DST_IN_SEGMENT) and LOCAL (malloc'd buffers; NULL where the rank has no
 *     data), blocking, _nb + wait_sync, _nb + try_sync polling (and, in par builds, a
 *     wait_sync from another thread);
 *   - 65539 bytes per image (several AM pieces), and broadcasts of 300001 bytes;
 *   - IN_ALLSYNC against a third party: one rank puts the final source of another rank
 *     20 ms after the others entered, then enters; every result must hold its data;
 *   - OUT_ALLSYNC: after its own sync a rank reads a peer's destination (RMA get): it
 *     must be complete there too;
 *   - every destination byte is checked, and the bytes after it (and a non-root's whole
 *     gather destination) must be untouched.
 * Then five collectives in flight at once (mixed modes) synced by wait_sync_all,
 * try_sync_all, wait_sync_some, try_sync_some and one by one in reverse order; AGGREGATE
 * (three calls return GASNET_COLL_INVALID_HANDLE, the fourth's handle covers all); and
 * the same collectives on the odd/even halves of the job (a gex_TM_t as the team).
 * The GASNet-1 team barrier (gasnet_coll_barrier*: names, mismatches, split phase) on
 * GASNET_TEAM_ALL, a copy of it and the halves, three teams' barriers in flight at once,
 * and gasnet_coll_dumpTuningState/_dumpProfile (a file from rank 0 of the team, removed).
 * Layer: tests (public API only). */
#include "test_util.h"
#include <gasnet_coll.h>
#include <unistd.h>
#if defined(GASNET_PAR)
#    include <pthread.h>
#endif

enum { BCAST, SCATTER, GATHER, GATHER_ALL, EXCHANGE, NCOLL };
static const char *cname[NCOLL] = {"broadcast", "scatter", "gather", "gather_all", "exchange"};
static const int has_root[NCOLL] = {1, 1, 1, 0, 0};
static const int ins[3] = {GASNET_COLL_IN_NOSYNC, GASNET_COLL_IN_MYSYNC, GASNET_COLL_IN_ALLSYNC};
static const int outs[3] = {GASNET_COLL_OUT_NOSYNC, GASNET_COLL_OUT_MYSYNC, GASNET_COLL_OUT_ALLSYNC};
#define GUARD 64
#define BIG 65539
#define BCAST_BIG 300001
#define SENTINEL 0xA5

static int use_ex;
static gex_TM_t tm_all;
static gasnet_seginfo_t *seginfo; /* by jobrank */
static size_t region;             /* bytes of each segment region (source, destination) */
static uint8_t *lsrc, *ldst;      /* LOCAL buffers, region bytes each */
static uint64_t case_no;
static long n_cases, n_polls, n_peerchecks;

typedef struct {
    gasnet_team_handle_t team;
    gex_Rank_t me, n;
} team_t;

static void barrier(const team_t *t) {
    if (!use_ex && t->team == GASNET_TEAM_ALL) { /* the GASNet-1 barrier, after every collective here is synced */
        gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
        CHECK_EQ(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS), GASNET_OK);
    } else {
        gex_Event_Wait(gex_Coll_BarrierNB(t->team, 0));
    }
}

static uint8_t *seg_src(void) { return (uint8_t *)seginfo[gasnet_mynode()].addr; }
static uint8_t *seg_dst(void) { return seg_src() + region; }
/* a team rank's destination region, as an address in its segment */
static uint8_t *peer_seg_dst(const team_t *t, gex_Rank_t r) {
    return (uint8_t *)seginfo[gex_TM_TranslateRankToJobrank(t->team, r)].addr + region;
}
static uint8_t *peer_seg_src(const team_t *t, gex_Rank_t r) {
    return (uint8_t *)seginfo[gex_TM_TranslateRankToJobrank(t->team, r)].addr;
}

/* ---- what each rank holds ---- */
static uint64_t bseed(uint64_t seed, gex_Rank_t r, size_t j) { return test_mix64(seed * 1000003u + r * 4099u + j); }
static size_t src_blocks(int c, int root, gex_Rank_t n) {
    switch (c) {
    case BCAST:
        return root ? 1 : 0;
    case SCATTER:
        return root ? n : 0;
    case GATHER:
    case GATHER_ALL:
        return 1;
    default:
        return n;
    }
}
static size_t dst_blocks(int c, int root, gex_Rank_t n) {
    switch (c) {
    case BCAST:
    case SCATTER:
        return 1;
    case GATHER:
        return root ? n : 0;
    default:
        return n;
    }
}
/* the seed of block j of rank me's destination */
static uint64_t dst_seed(int c, uint64_t seed, gex_Rank_t root, gex_Rank_t me, size_t j) {
    switch (c) {
    case BCAST:
        return bseed(seed, root, 0);
    case SCATTER:
        return bseed(seed, root, me);
    case GATHER:
    case GATHER_ALL:
        return bseed(seed, (gex_Rank_t)j, 0);
    default:
        return bseed(seed, (gex_Rank_t)j, me);
    }
}
static void fill_src(uint8_t *src, int c, uint64_t seed, gex_Rank_t r, int is_root, size_t nb, gex_Rank_t n) {
    for (size_t j = 0; j < src_blocks(c, is_root, n); j++)
        test_pat_fill(src + j * nb, nb, bseed(seed, r, j));
}
/* the bytes of a destination buffer the test watches: the largest any rank gets, and a guard */
static size_t dst_watch(int c, gex_Rank_t n, size_t nb) {
    return (c == BCAST || c == SCATTER ? nb : (size_t)n * nb) + GUARD;
}
static void check_dst(const uint8_t *dst, int c, uint64_t seed, gex_Rank_t root, gex_Rank_t me, size_t nb, gex_Rank_t n,
                      int guard, const char *what) {
    size_t db = dst_blocks(c, me == root, n);
    for (size_t j = 0; j < db; j++)
        CHECK_PAT(dst + j * nb, nb, dst_seed(c, seed, root, me, j), "%s: %s, case %llu, root %u, %zu bytes, block %zu",
                  what, cname[c], (unsigned long long)seed, (unsigned)root, nb, j);
    if (!guard) return;
    size_t end = dst_watch(c, n, nb); /* a non-root's gather destination: untouched */
    for (size_t i = db * nb; i < end; i++)
        CHECKF(dst[i] == SENTINEL,
               "%s: %s, case %llu, root %u, %zu bytes: byte %zu after the destination was written "
               "(0x%02x)",
               what, cname[c], (unsigned long long)seed, (unsigned)root, nb, i - db * nb, dst[i]);
}

static gasnet_coll_handle_t start_nb(const team_t *t, int c, gex_Rank_t root, void *dst, void *src, size_t nb,
                                     int flags) {
    switch (c) {
    case BCAST:
        return gasnet_coll_broadcast_nb(t->team, dst, root, src, nb, flags);
    case SCATTER:
        return gasnet_coll_scatter_nb(t->team, dst, root, src, nb, flags);
    case GATHER:
        return gasnet_coll_gather_nb(t->team, root, dst, src, nb, flags);
    case GATHER_ALL:
        return gasnet_coll_gather_all_nb(t->team, dst, src, nb, flags);
    default:
        return gasnet_coll_exchange_nb(t->team, dst, src, nb, flags);
    }
}
static void run_blocking(const team_t *t, int c, gex_Rank_t root, void *dst, void *src, size_t nb, int flags) {
    switch (c) {
    case BCAST:
        gasnet_coll_broadcast(t->team, dst, root, src, nb, flags);
        break;
    case SCATTER:
        gasnet_coll_scatter(t->team, dst, root, src, nb, flags);
        break;
    case GATHER:
        gasnet_coll_gather(t->team, root, dst, src, nb, flags);
        break;
    case GATHER_ALL:
        gasnet_coll_gather_all(t->team, dst, src, nb, flags);
        break;
    default:
        gasnet_coll_exchange(t->team, dst, src, nb, flags);
        break;
    }
}

#if defined(GASNET_PAR)
static void *sync_thread(void *h) {
    gasnet_coll_wait_sync((gasnet_coll_handle_t)h);
    return NULL;
}
#endif

/* how: 0 blocking, 1 _nb + wait_sync, 2 _nb + try_sync polling, 3 _nb + wait_sync in another thread (par) */
static void complete(const team_t *t, int c, gex_Rank_t root, void *dst, void *src, size_t nb, int flags, int how) {
    if (how == 0) {
        run_blocking(t, c, root, dst, src, nb, flags);
        return;
    }
    gasnet_coll_handle_t h = start_nb(t, c, root, dst, src, nb, flags);
    if (how == 2) {
        double t0 = test_now();
        while (gasnet_coll_try_sync(h) != GASNET_OK) {
            n_polls++;
            CHECKF(test_now() - t0 < 60, "%s: try_sync never succeeded", cname[c]);
        }
        return;
    }
#if defined(GASNET_PAR)
    if (how == 3) {
        pthread_t th;
        CHECK_EQ(pthread_create(&th, NULL, sync_thread, (void *)h), 0);
        CHECK_EQ(pthread_join(th, NULL), 0);
        return;
    }
#endif
    gasnet_coll_wait_sync(h);
}

/* One collective, checked. late: IN_ALLSYNC against a third party (SINGLE, n >= 2): rank
 * L = root + 1 writes the source of rank S by RMA, 20 ms after the others entered, then
 * enters itself; S filled its source with junk. */
static void one_case(const team_t *t, int c, gex_Rank_t root, size_t nb, int in, int out, int single, int how,
                     int late) {
    gex_Rank_t me = t->me, n = t->n;
    uint64_t seed = ++case_no;
    n_cases++;
    uint8_t *src = single ? seg_src() : lsrc, *dst = single ? seg_dst() : ldst;
    gex_Rank_t L = (root + 1) % n, S = (c == BCAST || c == SCATTER) ? root : (L + 1) % n;
    late = late && single && n >= 2;
    fill_src(src, c, seed, me, me == root, nb, n);
    if (late && me == S) fill_src(src, c, ~seed, me, me == root, nb, n); /* junk until L's put */
    memset(dst, SENTINEL, dst_watch(c, n, nb));
    int flags =
        in | out |
        (single ? GASNET_COLL_SINGLE | GASNET_COLL_SRC_IN_SEGMENT | GASNET_COLL_DST_IN_SEGMENT : GASNET_COLL_LOCAL);
    void *src_arg = src, *dst_arg = dst;
    if (!single) { /* LOCAL: a rank with nothing to read or write passes NULL */
        if (!src_blocks(c, me == root, n)) src_arg = NULL;
        if (!dst_blocks(c, me == root, n)) dst_arg = NULL;
    }
    if (in == GASNET_COLL_IN_NOSYNC || late) barrier(t); /* NOSYNC: data may move once anyone enters */
    if (late && me == L) {
        test_sleep_ms(20);
        size_t len = src_blocks(c, S == root, n) * nb;
        uint8_t *good = malloc(len + 1);
        CHECK(good);
        fill_src(good, c, seed, S, S == root, nb, n);
        if (len) gex_RMA_PutBlocking(t->team, S, peer_seg_src(t, S), good, len, 0);
        free(good);
    }
    complete(t, c, root, dst_arg, src_arg, nb, flags, how);
    if (out == GASNET_COLL_OUT_NOSYNC) barrier(t); /* NOSYNC: done once every rank has synced */
    check_dst(dst, c, seed, root, me, nb, n, 1, "own destination");
    if (out == GASNET_COLL_OUT_ALLSYNC && single && n > 1) { /* a peer's destination is complete too */
        gex_Rank_t p = c == GATHER ? root : (me + 1) % n;
        size_t len = dst_blocks(c, p == root, n) * nb;
        if (p != me && len) {
            uint8_t *buf = malloc(len);
            CHECK(buf);
            gex_RMA_GetBlocking(t->team, buf, p, peer_seg_dst(t, p), len, 0);
            check_dst(buf, c, seed, root, p, nb, n, 0, "a peer's destination after OUT_ALLSYNC");
            free(buf);
            n_peerchecks++;
        }
    }
    barrier(t);
}

static void matrix(const team_t *t, const size_t *sizes, int nsizes, int full) {
    gex_Rank_t n = t->n;
    int nhow = 3;
#if defined(GASNET_PAR)
    nhow = 4;
#endif
    for (int c = 0; c < NCOLL; c++) {
        gex_Rank_t roots[3] = {0, n - 1, n / 2};
        int nroots = has_root[c] ? 3 : 1;
        for (int si = 0; si < nsizes; si++)
            for (int ri = 0; ri < nroots; ri++) {
                if (ri && (roots[ri] == roots[0] || roots[ri] == roots[ri - 1])) continue;
                for (int k = 0; k < 9; k++) {
                    if (!full && k % 4) continue; /* (IN, OUT): NOSYNC/NOSYNC, MYSYNC/MYSYNC, ALLSYNC/ALLSYNC */
                    one_case(t, c, roots[ri], sizes[si], ins[k / 3], outs[k % 3], (k + si + ri) & 1,
                             (k + si + ri) % nhow, 0);
                }
            }
    }
}

/* ---- several in flight ---- */
typedef struct {
    int c, flags;
    gex_Rank_t root;
    size_t nb;
    uint64_t seed;
    uint8_t *src, *dst;
} flight_t;

/* f's buffers for its collective, root and size: the source filled, the destination (and
 * the guard bytes after it) set to SENTINEL */
static void flight_prepare(flight_t *f, gex_Rank_t me, gex_Rank_t n) {
    f->seed = ++case_no;
    f->src = malloc((size_t)n * f->nb + 1);
    f->dst = malloc(dst_watch(f->c, n, f->nb));
    CHECK(f->src && f->dst);
    fill_src(f->src, f->c, f->seed, me, me == f->root, f->nb, n);
    memset(f->dst, SENTINEL, dst_watch(f->c, n, f->nb));
}

/* after its sync: f's destination holds what its collective promised; its buffers freed */
static void flight_check(flight_t *f, gex_Rank_t me, gex_Rank_t n, const char *what) {
    check_dst(f->dst, f->c, f->seed, f->root, me, f->nb, n, 1, what);
    free(f->src);
    free(f->dst);
}

static void flight_round(const team_t *t, int sync) {
    enum { K = 5 };
    static const int fl[K] = {
        GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC, GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC,
        GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_MYSYNC, GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_ALLSYNC,
        GASNET_COLL_IN_NOSYNC | GASNET_COLL_OUT_NOSYNC};
    static const size_t nbs[K] = {BIG, 13, 1000, 8, BIG};
    gex_Rank_t me = t->me, n = t->n;
    flight_t f[K];
    gasnet_coll_handle_t h[K];
    for (int i = 0; i < K; i++) {
        f[i].c = (i + sync) % NCOLL;
        f[i].flags = fl[i] | GASNET_COLL_LOCAL;
        f[i].root = (gex_Rank_t)((i + sync) % n);
        f[i].nb = nbs[i];
        flight_prepare(&f[i], me, n);
    }
    barrier(t); /* one of them is IN_NOSYNC */
    for (int i = 0; i < K; i++)
        h[i] = start_nb(t, f[i].c, f[i].root, f[i].dst, f[i].src, f[i].nb, f[i].flags);
    double t0 = test_now();
    switch (sync) {
    case 0:
        gasnet_coll_wait_sync_all(h, K);
        break;
    case 1:
        while (gasnet_coll_try_sync_all(h, K) != GASNET_OK) {
            n_polls++;
            CHECKF(test_now() - t0 < 60, "try_sync_all never succeeded");
        }
        break;
    case 2:
    case 3: {
        int left = K;
        while (left) {
            if (sync == 2)
                gasnet_coll_wait_sync_some(h, K);
            else if (gasnet_coll_try_sync_some(h, K) != GASNET_OK) {
                n_polls++;
                CHECKF(test_now() - t0 < 60, "try_sync_some never succeeded");
                continue;
            }
            int now = 0;
            for (int i = 0; i < K; i++)
                now += h[i] != GASNET_COLL_INVALID_HANDLE;
            CHECKF(now < left, "%s_sync_some returned with no handle completed", sync == 2 ? "wait" : "try");
            left = now;
        }
        break;
    }
    default:
        for (int i = K - 1; i >= 0; i--)
            gasnet_coll_wait_sync(h[i]);
        for (int i = 0; i < K; i++)
            h[i] = GASNET_COLL_INVALID_HANDLE;
        break;
    }
    for (int i = 0; i < K; i++)
        CHECKF(h[i] == GASNET_COLL_INVALID_HANDLE, "handle %d not cleared by sync %d", i, sync);
    barrier(t); /* one of them is OUT_NOSYNC */
    for (int i = 0; i < K; i++) flight_check(&f[i], me, n, "in flight");
    n_cases += K;
}

static void aggregate(const team_t *t) {
    enum { K = 4 };
    gex_Rank_t me = t->me, n = t->n;
    flight_t f[K];
    gasnet_coll_handle_t h = GASNET_COLL_INVALID_HANDLE;
    for (int i = 0; i < K; i++) {
        f[i].c = (i * 2 + 1) % NCOLL;
        f[i].root = (gex_Rank_t)(i % n);
        f[i].nb = i == 2 ? BIG : 17 + (size_t)i;
        flight_prepare(&f[i], me, n);
    }
    for (int i = 0; i < K; i++) {
        int flags = GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_LOCAL;
        if (i < K - 1) flags |= GASNET_COLL_AGGREGATE;
        h = start_nb(t, f[i].c, f[i].root, f[i].dst, f[i].src, f[i].nb, flags);
        if (i < K - 1)
            CHECKF(h == GASNET_COLL_INVALID_HANDLE, "call %d with GASNET_COLL_AGGREGATE returned a handle", i);
    }
    CHECK(h != GASNET_COLL_INVALID_HANDLE);
    gasnet_coll_wait_sync(h);
    for (int i = 0; i < K; i++) flight_check(&f[i], me, n, "aggregate");
    n_cases += K;
    barrier(t);
}

static void special(const team_t *t) {
    /* large blocks (several AM pieces), and large broadcasts */
    for (int c = 0; c < NCOLL; c++)
        for (int k = 0; k < 3; k++) {
            static const int kin[3] = {GASNET_COLL_IN_MYSYNC, GASNET_COLL_IN_ALLSYNC, GASNET_COLL_IN_NOSYNC};
            static const int kout[3] = {GASNET_COLL_OUT_MYSYNC, GASNET_COLL_OUT_NOSYNC, GASNET_COLL_OUT_ALLSYNC};
            gex_Rank_t root = has_root[c] ? (gex_Rank_t)((k * (t->n - 1)) % t->n) : 0;
            one_case(t, c, root, BIG, kin[k], kout[k], (c + k) & 1, k, 0);
        }
    for (int single = 0; single < 2; single++)
        one_case(t, BCAST, t->n - 1, BCAST_BIG, GASNET_COLL_IN_MYSYNC, GASNET_COLL_OUT_ALLSYNC, single, 1, 0);
    /* IN_ALLSYNC against a third party's write */
    for (int c = 0; c < NCOLL; c++)
        one_case(t, c, has_root[c] ? t->n / 2 : 0, 1000, GASNET_COLL_IN_ALLSYNC,
                 c % 2 ? GASNET_COLL_OUT_NOSYNC : GASNET_COLL_OUT_MYSYNC, 1, c % 3, 1);
}

static void sync_corners(void) {
    gasnet_coll_handle_t none[3] = {GASNET_COLL_INVALID_HANDLE, GASNET_COLL_INVALID_HANDLE, GASNET_COLL_INVALID_HANDLE};
    CHECK_EQ(gasnet_coll_try_sync(GASNET_COLL_INVALID_HANDLE), GASNET_OK);
    gasnet_coll_wait_sync(GASNET_COLL_INVALID_HANDLE);
    CHECK_EQ(gasnet_coll_try_sync_all(none, 3), GASNET_OK);
    CHECK_EQ(gasnet_coll_try_sync_some(none, 3), GASNET_OK);
    CHECK_EQ(gasnet_coll_try_sync_all(NULL, 0), GASNET_OK);
    gasnet_coll_wait_sync_all(none, 3);
    gasnet_coll_wait_sync_some(none, 3);
}

/* The GASNet-1 team barrier (gasnet_coll_barrier*): named, anonymous, unnamed, a named
 * one against anonymous ones, names that differ, a rank passing MISMATCH, a wait whose id
 * differs from its notify, split phase with try; each outcome on every rank, and a
 * matching barrier after each mismatch. Collective over team. */
static void team_barriers(gasnet_team_handle_t team, gex_Rank_t me, gex_Rank_t size) {
    const int MM = GASNET_ERR_BARRIER_MISMATCH, ANON = GASNET_BARRIERFLAG_ANONYMOUS;
    CHECK_EQ(gasnet_coll_barrier(team, 7, 0), GASNET_OK);
    CHECK_EQ(gasnet_coll_barrier(team, 0, ANON), GASNET_OK);
    CHECK_EQ(gasnet_coll_barrier(team, (int)me, GASNET_BARRIERFLAG_UNNAMED), GASNET_OK);
    CHECK_EQ(gasnet_coll_barrier(team, 5, me == 0 ? 0 : ANON), GASNET_OK); /* one name: matches */
    if (size > 1) {
        CHECK_EQ(gasnet_coll_barrier(team, 100 + (int)me, 0), MM); /* every rank its own name */
        CHECK_EQ(gasnet_coll_barrier(team, 8, 0), GASNET_OK);
    }
    CHECK_EQ(gasnet_coll_barrier(team, 9, me == size - 1 ? GASNET_BARRIERFLAG_MISMATCH : 0), MM);
    CHECK_EQ(gasnet_coll_barrier(team, 10, 0), GASNET_OK);
    gasnet_coll_barrier_notify(team, 11, 0);
    CHECK_EQ(gasnet_coll_barrier_wait(team, 12, 0), MM); /* not what it notified */
    gasnet_coll_barrier_notify(team, 13, 0);
    int rc;
    while ((rc = gasnet_coll_barrier_try(team, 13, 0)) == GASNET_ERR_NOT_READY) n_polls++;
    CHECK_EQ(rc, GASNET_OK);
    gasnet_coll_barrier_notify(team, 14, 0);
    CHECK_EQ(gasnet_coll_barrier_wait(team, 14, 0), GASNET_OK);
}

/* gasnet_coll_dumpTuningState and _dumpProfile: rank 0 of the team writes the (empty)
 * document to the file named, the others nothing; a NULL name writes nothing */
static void dumps(gasnet_team_handle_t team, gex_Rank_t me) {
    char path[128];
    snprintf(path, sizeof path, "/tmp/test_coll1-dump-%ld-%u.xml", (long)getpid(), (unsigned)test_rank);
    for (int which = 0; which < 2; which++) {
        unlink(path);
        if (which == 0)
            gasnet_coll_dumpTuningState(path, team);
        else
            gasnet_coll_dumpProfile(path, team);
        FILE *f = fopen(path, "r");
        CHECKF((f != NULL) == (me == 0), "dump %d: rank %u of the team %s the file", which, (unsigned)me,
               f ? "wrote" : "did not write");
        if (f) {
            char text[512] = "";
            size_t len = fread(text, 1, sizeof text - 1, f);
            fclose(f);
            text[len] = 0;
            CHECKF(strstr(text, "<?xml") == text && strstr(text, which ? "<gasnet_coll_profile" : "<gasnet_coll_tuning"),
                   "dump %d wrote: %s", which, text);
            unlink(path);
        }
    }
    gasnet_coll_dumpTuningState(NULL, team);
    gasnet_coll_dumpProfile(NULL, team);
}

int main(int argc, char **argv) {
    use_ex = argc > 1 && !strcmp(argv[1], "ex");
    test_name = "test_coll1";
    gex_TM_t qtm = GEX_TM_INVALID;
    if (use_ex) {
        test_init("test_coll1", &argc, &argv);
    } else {
        CHECK_EQ(gasnet_init(&argc, &argv), GASNET_OK);
        gasnet_QueryGexObjects(&test_client, &test_ep, &test_tm, NULL);
        test_rank = gex_TM_QueryRank(test_tm);
        test_size = gex_TM_QuerySize(test_tm);
        test_inited = 1;
    }
    gex_Rank_t n = test_size;
    size_t need = (size_t)n * BIG > BCAST_BIG ? (size_t)n * BIG : BCAST_BIG;
    region = (need + GUARD + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    if (use_ex)
        test_attach(2 * region);
    else
        CHECK_EQ(gasnet_attach(NULL, 0, 2 * region, 0), GASNET_OK);
    gasnet_QueryGexObjects(NULL, NULL, &qtm, NULL);
    CHECK(qtm == test_tm);
    CHECK(GASNET_TEAM_ALL == test_tm); /* after gasnet_attach, or gex_Client_Init */
    tm_all = test_tm;
    seginfo = calloc(n, sizeof(*seginfo));
    CHECK(seginfo);
    CHECK_EQ(gasnet_getSegmentInfo(seginfo, (int)n), GASNET_OK);
    lsrc = malloc(region + 16 * test_rank); /* LOCAL buffers: addresses differ from rank to rank */
    ldst = malloc(region + 16 * (n - test_rank));
    CHECK(lsrc && ldst);
    lsrc += 16 * test_rank, ldst += 16 * (n - test_rank);
    sync_corners();

    team_t all = {GASNET_TEAM_ALL, test_rank, n};
    static const size_t small[] = {0, 1, 8, 13, 1000};
    matrix(&all, small, 5, 1);
    special(&all);
    for (int s = 0; s < 5; s++)
        flight_round(&all, s);
    aggregate(&all);

    /* the team barrier, on GASNET_TEAM_ALL (gasnet_barrier_* itself: the result is the
     * same), on a copy of it, and on two teams at once */
    team_barriers(GASNET_TEAM_ALL, test_rank, n);
    int last = -1;
    CHECK_EQ(gasnet_barrier_result(&last), 0);
    CHECK_EQ(last, 14);
    gex_TM_t dup, halfb;
    gex_TM_Dup(&dup, test_tm, NULL, 0, 0);
    team_barriers(dup, gex_TM_QueryRank(dup), gex_TM_QuerySize(dup));
    gex_TM_Split(&halfb, test_tm, (int)(test_rank % 2), 0, NULL, 0, 0);
    team_barriers(halfb, gex_TM_QueryRank(halfb), gex_TM_QuerySize(halfb));
    gasnet_coll_barrier_notify(dup, 1, 0);
    gasnet_coll_barrier_notify(halfb, 2, 0);
    gasnet_coll_barrier_notify(GASNET_TEAM_ALL, 3, 0);
    CHECK_EQ(gasnet_coll_barrier_wait(halfb, 2, 0), GASNET_OK);
    CHECK_EQ(gasnet_coll_barrier_wait(GASNET_TEAM_ALL, 3, 0), GASNET_OK);
    CHECK_EQ(gasnet_coll_barrier_wait(dup, 1, 0), GASNET_OK);
    dumps(GASNET_TEAM_ALL, test_rank);
    dumps(halfb, gex_TM_QueryRank(halfb));
    gasnet_coll_barrier(dup, 0, GASNET_BARRIERFLAG_ANONYMOUS);
    gex_TM_Destroy(halfb, NULL, 0);
    gex_TM_Destroy(dup, NULL, 0);

    /* odd and even halves: a gex_TM_t as the team, images are its ranks */
    long before = n_cases;
    if (n >= 3) {
        gex_TM_t half;
        gex_TM_Split(&half, test_tm, (int)(test_rank % 2), (int)test_rank, NULL, 0, 0);
        team_t h = {half, gex_TM_QueryRank(half), gex_TM_QuerySize(half)};
        CHECK_EQ(h.me, test_rank / 2);
        static const size_t hs[] = {1, 13, BIG};
        matrix(&h, hs, 3, 0);
        flight_round(&h, 0);
        aggregate(&h);
        gex_TM_Destroy(half, NULL, 0);
    }
    barrier(&all);
    test_finish("%ld collectives (%ld on halves) checked via %s, %ld peer checks after OUT_ALLSYNC, %ld polls", n_cases,
                n_cases - before, use_ex ? "gex_Client_Init" : "gasnet_init/gasnet_attach", n_peerchecks, n_polls);
    return 0;
}
