/* tests/perf/bench_util.h - set-up, timing and reporting shared by the benchmarks.
 * Layer: tests (client code; uses only the public API of gasnet.h / gasnetex.h).
 *
 * Output format (one line per figure, read by tests/perf/run-bench and by people):
 *   BENCH <name>.<mode> <value> <unit>
 *   RATIO <name>.<mode> <value> target<=X|target>=X PASS|MISS
 * Lines starting with '#' are comments. A MISS is reported, never turned into a failure. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <gasnet.h>

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(GASNET_PAR)
#define BENCH_MODE "par"
#elif defined(GASNET_PARSYNC)
#define BENCH_MODE "parsync"
#else
#define BENCH_MODE "seq"
#endif

/* Every figure is the best of BENCH_RUNS timed runs: 3, or the environment variable
 * BENCH_RUNS (1..100) for a noisy machine. Same on every rank (they share the env). */
static inline int bench_runs_value(void) {
    const char *s = getenv("BENCH_RUNS");
    int n = s ? atoi(s) : 0;
    return n >= 1 && n <= 100 ? n : 3;
}
#define BENCH_RUNS bench_runs_value()

/* Keeps the compiler from merging or dropping the memory accesses of a timed loop; costs
 * no instruction at run time. */
#define BENCH_COMPILER_BARRIER() __asm__ __volatile__("" ::: "memory")

typedef struct {
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    gex_Rank_t me, nranks;
    void *my_seg;     /* my segment base */
    uintptr_t seg_size;
    void *peer_seg;   /* partner's segment, as the partner names it (address for RMA) */
    gex_Rank_t peer;  /* 1 for rank 0, 0 for rank 1, GEX_RANK_INVALID for the others */
} bench_job_t;

static inline uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline void bench_barrier(const bench_job_t *j) {
    gex_Event_Wait(gex_Coll_BarrierNB(j->tm, 0));
}

static inline void bench_fail(const bench_job_t *j, const char *what) {
    fprintf(stderr, "ERROR: rank %u: %s\n", (unsigned)(j ? j->me : 0), what);
    fflush(stderr);
    gasnet_exit(1);
}

static inline void bench_print(const char *name, double value, const char *unit) {
    printf("BENCH %s.%s %.3f %s\n", name, BENCH_MODE, value, unit);
    fflush(stdout);
}

/* at_most != 0: the target is value <= target; otherwise value >= target. */
static inline void bench_ratio(const char *name, double value, int at_most, double target) {
    int pass = at_most ? (value <= target) : (value >= target);
    printf("RATIO %s.%s %.3f target%s%g %s\n", name, BENCH_MODE, value, at_most ? "<=" : ">=",
           target, pass ? "PASS" : "MISS");
    fflush(stdout);
}

/* Client init, handler registration, segment attach (seg_size, capped by the maximum the
 * library allows), partner lookup and a barrier. Needs at least 2 ranks; with 1 rank
 * it exits 77 (skip). Ranks other than 0 and 1 only take part in barriers. */
static inline void bench_init(bench_job_t *j, int *argc, char ***argv, const char *name,
                              uintptr_t seg_size, gex_AM_Entry_t *table, size_t nentries) {
    memset(j, 0, sizeof(*j));
    int rc = gex_Client_Init(&j->client, &j->ep, &j->tm, name, argc, argv, GEX_FLAG_USES_GASNET1);
    if (rc != GASNET_OK) bench_fail(NULL, "gex_Client_Init failed");
    j->me = gex_TM_QueryRank(j->tm);
    j->nranks = gex_TM_QuerySize(j->tm);
    if (j->nranks < 2) {
        if (j->me == 0) printf("# %s needs 2 processes (GASNET_PSHM_NODES=2); skipped\n", name);
        fflush(stdout);
        gasnet_exit(77);
    }
    if (nentries && gex_EP_RegisterHandlers(j->ep, table, nentries) != GASNET_OK)
        bench_fail(j, "gex_EP_RegisterHandlers failed");
    uintptr_t max = gasnet_getMaxLocalSegmentSize();
    if (seg_size > max) seg_size = max - max % GASNET_PAGESIZE;
    if (gex_Segment_Attach(&j->seg, j->tm, seg_size) != GASNET_OK)
        bench_fail(j, "gex_Segment_Attach failed");
    j->my_seg = gex_Segment_QueryAddr(j->seg);
    j->seg_size = gex_Segment_QuerySize(j->seg);
    j->peer = j->me < 2 ? (gex_Rank_t)(j->me ^ 1) : GEX_RANK_INVALID;
    if (j->peer != GEX_RANK_INVALID) {
        uintptr_t peer_size = 0;
        if (gex_Segment_QueryBound(j->tm, j->peer, &j->peer_seg, NULL, &peer_size) != 0)
            bench_fail(j, "gex_Segment_QueryBound(peer) failed");
        if (peer_size < j->seg_size) j->seg_size = peer_size;
    }
    bench_barrier(j); /* every rank has registered its handlers */
}

static inline void bench_finish(bench_job_t *j) {
    bench_barrier(j);
    gasnet_exit(0);
}

#endif /* BENCH_UTIL_H */
