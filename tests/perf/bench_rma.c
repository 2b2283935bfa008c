/* tests/perf/bench_rma.c - RMA benchmarks on 2 processes (run by `make bench`).
 * Layer: tests (client code).
 *
 *   put8 / get8     gex_RMA_PutBlocking / GetBlocking of 8 bytes into rank 1's segment,
 *                   average ns per operation over many operations (target <= 10 ns).
 *   put_bw_1MiB     gex_RMA_PutBlocking of 1 MiB from a private buffer into rank 1's
 *                   segment, repeated; GB/s (1e9 bytes/s).
 *   memcpy_bw_1MiB  baseline: memcpy of 1 MiB between two private buffers of rank 0,
 *                   from the same source buffer. Target: put_bw / memcpy_bw >= 0.95.
 *   put8_nbi_group_x1000 / put8_blocking_x1000
 *                   ns per put of batches of 1,000 8-byte puts to rank 1: gex_RMA_PutNBI
 *                   with lc_opt GEX_EVENT_GROUP and one gex_NBI_Wait(GEX_EC_ALL) per batch,
 *                   against gex_RMA_PutBlocking, measured in the same run. Target: the NBI
 *                   batch costs no more than the blocking puts (ratio <= NBI_TARGET).
 *   the same two with the suffix _ambased: the AM-based path (GASNET_RMA_NBRHD_BYPASS=0),
 *                   where each blocking put waits a round trip and NBI puts overlap them
 *                   (ratio <= NBI_TARGET_AM). The path is chosen once per job, at
 *                   gex_Client_Init, so the program first runs itself again (a job of its
 *                   own, before its own starts) with GASNET_RMA_NBRHD_BYPASS=0 and
 *                   BENCH_RMA_AMBASED=1, which runs these two figures only.
 *   amo_fadd_nbr    gex_AD_OpNB_U64 FADD of 1 on a location in rank 1's segment (a
 *                   neighbor: one CPU atomic), event waited for; ns per operation
 *                   (target <= 50 ns).
 * Only rank 0 times; rank 1 waits in a barrier and checks what arrived. Baseline and
 * library runs alternate; each figure is the best of BENCH_RUNS runs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, MAP_ANONYMOUS, posix_memalign under -std=c11 */
#endif
#include "bench_util.h"

#include <gasnet_ratomic.h>
#include <sys/wait.h>
#include <unistd.h>

#define WIN_SLOTS 512u                    /* 8-byte slots: a 4 KiB window at offset 0 */
#define OP_WARMUP 100000L
#define OP_ITERS 10000000L
#define OP_TARGET_NS 10.0
#define BW_BYTES (1u << 20)
#define BW_OFFSET (1u << 20)              /* the 1 MiB destination in rank 1's segment */
#define BW_REPS 1000L
#define BW_TARGET 0.95
#define SEG_BYTES (4u << 20)
#define NBI_BATCH 1000
#define NBI_OFFSET (64u << 10)            /* the batch's 8-byte slots in rank 1's segment */
#define NBI_BATCHES 5000L                 /* per run, same-host path */
#define NBI_BATCHES_AM 100L               /* per run, AM-based path */
#define NBI_TARGET 1.05                   /* same-host: both are stores; the one wait is amortized */
#define AMO_ITERS 2000000L
#define AMO_TARGET_NS 50.0
#define NBI_TARGET_AM 0.5                 /* AM-based: overlapping puts beats one round trip each */

static uint64_t slot_pattern(unsigned k) { return 0x0101010101010101u * (k & 0xff) ^ 0xfeedfaceu; }
static unsigned char bw_pattern(size_t k) { return (unsigned char)(k * 7 + 3); }

static double put8_run(const bench_job_t *j, uint64_t salt) {
    uint64_t *win = j->peer_seg, t0 = 0, t1 = 0;
    bench_barrier(j);
    if (j->me == 0) {
        for (long i = -OP_WARMUP; i < OP_ITERS; i++) {
            if (i == 0) t0 = bench_now_ns();
            uint64_t v = salt + (uint64_t)i;
            gex_RMA_PutBlocking(j->tm, 1, win + ((unsigned long)i % WIN_SLOTS), &v, 8, 0);
            BENCH_COMPILER_BARRIER();
        }
        t1 = bench_now_ns();
    }
    bench_barrier(j);
    if (j->me == 1) { /* slot k holds the last value put there */
        const uint64_t *mine = j->my_seg;
        for (unsigned k = 0; k < WIN_SLOTS; k++) {
            uint64_t last = (uint64_t)(OP_ITERS - 1) - (uint64_t)(OP_ITERS - 1 - k) % WIN_SLOTS;
            if (mine[k] != salt + last) bench_fail(j, "8-byte put: wrong value in the target slot");
        }
    }
    bench_barrier(j);
    return j->me == 0 ? (double)(t1 - t0) / (double)OP_ITERS : 0.0;
}

static double get8_run(const bench_job_t *j) {
    uint64_t *win = j->peer_seg, t0 = 0, t1 = 0, sum = 0, expect = 0;
    if (j->me == 1) {
        uint64_t *mine = j->my_seg;
        for (unsigned k = 0; k < WIN_SLOTS; k++) mine[k] = slot_pattern(k);
    }
    bench_barrier(j);
    if (j->me == 0) {
        for (long i = -OP_WARMUP; i < OP_ITERS; i++) {
            if (i == 0) t0 = bench_now_ns();
            uint64_t v;
            gex_RMA_GetBlocking(j->tm, &v, 1, win + ((unsigned long)i % WIN_SLOTS), 8, 0);
            BENCH_COMPILER_BARRIER();
            sum += v;
        }
        t1 = bench_now_ns();
        for (long i = -OP_WARMUP; i < OP_ITERS; i++) expect += slot_pattern((unsigned long)i % WIN_SLOTS);
        if (sum != expect) bench_fail(j, "8-byte get: wrong values read");
    }
    bench_barrier(j);
    return j->me == 0 ? (double)(t1 - t0) / (double)OP_ITERS : 0.0;
}

/* Bandwidth of BW_REPS copies of BW_BYTES, in GB/s; dst == NULL means put to rank 1. */
static double bw_run(const bench_job_t *j, const unsigned char *src, unsigned char *dst) {
    unsigned char *remote = (unsigned char *)j->peer_seg + BW_OFFSET;
    uint64_t t0 = 0, t1 = 0;
    bench_barrier(j);
    if (j->me == 0) {
        for (long r = -1; r < BW_REPS; r++) { /* r == -1: warm-up */
            if (r == 0) t0 = bench_now_ns();
            if (dst)
                memcpy(dst, src, BW_BYTES);
            else
                gex_RMA_PutBlocking(j->tm, 1, remote, src, BW_BYTES, 0);
            BENCH_COMPILER_BARRIER();
        }
        t1 = bench_now_ns();
    }
    bench_barrier(j);
    return j->me == 0 ? (double)BW_BYTES * (double)BW_REPS / (double)(t1 - t0) : 0.0;
}

/* Batches of NBI_BATCH 8-byte puts into rank 1's segment, each from its own source word
 * (which GROUP lets the library read until the gex_NBI_Wait); ns per put. */
static double batch_run(const bench_job_t *j, int nbi, long batches, uint64_t salt) {
    uint64_t *win = (uint64_t *)((char *)j->peer_seg + NBI_OFFSET), t0 = 0, t1 = 0;
    static uint64_t src[NBI_BATCH];
    bench_barrier(j);
    if (j->me == 0) {
        for (long b = -1; b < batches; b++) { /* b == -1: warm-up */
            if (b == 0) t0 = bench_now_ns();
            for (unsigned i = 0; i < NBI_BATCH; i++) src[i] = salt + (uint64_t)(b + 1) * NBI_BATCH + i;
            if (nbi) {
                for (unsigned i = 0; i < NBI_BATCH; i++)
                    gex_RMA_PutNBI(j->tm, 1, win + i, &src[i], 8, GEX_EVENT_GROUP, 0);
                gex_NBI_Wait(GEX_EC_ALL, 0);
            } else {
                for (unsigned i = 0; i < NBI_BATCH; i++) gex_RMA_PutBlocking(j->tm, 1, win + i, &src[i], 8, 0);
            }
            BENCH_COMPILER_BARRIER();
        }
        t1 = bench_now_ns();
    }
    bench_barrier(j);
    if (j->me == 1) { /* the last batch is there */
        const uint64_t *mine = (const uint64_t *)((const char *)j->my_seg + NBI_OFFSET);
        for (unsigned i = 0; i < NBI_BATCH; i++)
            if (mine[i] != salt + (uint64_t)batches * NBI_BATCH + i) bench_fail(j, "batch of 8-byte puts: wrong value");
    }
    bench_barrier(j);
    return j->me == 0 ? (double)(t1 - t0) / ((double)batches * NBI_BATCH) : 0.0;
}

/* NBI batch against blocking puts, alternating, best of BENCH_RUNS; prints three lines. */
static void nbi_vs_blocking(const bench_job_t *j, long batches, const char *suffix, double target) {
    double nbi = 1e30, blk = 1e30;
    for (int r = 0; r < BENCH_RUNS; r++) {
        double b = batch_run(j, 0, batches, (uint64_t)(2 * r + 1) << 40);
        double n = batch_run(j, 1, batches, (uint64_t)(2 * r + 2) << 40);
        if (b < blk) blk = b;
        if (n < nbi) nbi = n;
    }
    if (j->me != 0) return;
    char name[96];
    snprintf(name, sizeof name, "put8_nbi_group_x1000%s", suffix);
    bench_print(name, nbi, "ns");
    snprintf(name, sizeof name, "put8_blocking_x1000%s", suffix);
    bench_print(name, blk, "ns");
    snprintf(name, sizeof name, "put8_nbi_group_vs_blocking%s", suffix);
    bench_ratio(name, nbi / blk, 1, target);
}

/* Runs this program again, as a job of its own, on the AM-based path; returns its exit
 * status (0 when it ran, 77 when it was skipped). */
static int run_ambased(char **argv) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        setenv("GASNET_RMA_NBRHD_BYPASS", "0", 1);
        setenv("BENCH_RMA_AMBASED", "1", 1);
        execv("/proc/self/exe", argv);
        perror("bench_rma: exec of the AM-based run");
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0) {}
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void check_bw_landed(const bench_job_t *j) {
    bench_barrier(j);
    if (j->me == 1) {
        const unsigned char *mine = (const unsigned char *)j->my_seg + BW_OFFSET;
        for (size_t k = 0; k < BW_BYTES; k++)
            if (mine[k] != bw_pattern(k)) bench_fail(j, "1 MiB put: wrong data in the target");
    }
    bench_barrier(j);
}

static double amo_run(const bench_job_t *j, gex_AD_t ad) {
    uint64_t *loc = (uint64_t *)j->peer_seg + WIN_SLOTS; /* just past the put8 window */
    bench_barrier(j);
    double ns = 0;
    if (j->me == 0) {
        uint64_t v = 0, t0 = bench_now_ns();
        for (long i = 0; i < AMO_ITERS; i++) gex_Event_Wait(gex_AD_OpNB_U64(ad, &v, 1, loc, GEX_OP_FADD, 1, 0, 0));
        ns = (double)(bench_now_ns() - t0) / AMO_ITERS;
        gex_Event_Wait(gex_AD_OpNB_U64(ad, &v, 1, loc, GEX_OP_FADD, 0, 0, 0));
        if (v % AMO_ITERS) bench_fail(j, "FADD: the counter is not a multiple of the adds");
    }
    bench_barrier(j);
    return ns;
}

int main(int argc, char **argv) {
    bench_job_t job, *j = &job;
    const int ambased = getenv("BENCH_RMA_AMBASED") != NULL;
    const int am_status = ambased ? 0 : run_ambased(argv); /* before gex_Client_Init: one process */
    bench_init(j, &argc, &argv, "BENCH_RMA", SEG_BYTES, NULL, 0);
    if (j->seg_size < BW_OFFSET + BW_BYTES) bench_fail(j, "segment smaller than 2 MiB");
    if (ambased) {
        if (j->me == 0)
            printf("# bench_rma (%s): %u processes, best of %d runs; GASNET_RMA_NBRHD_BYPASS=0 (AM-based RMA)\n",
                   BENCH_MODE, (unsigned)j->nranks, BENCH_RUNS);
        nbi_vs_blocking(j, NBI_BATCHES_AM, "_ambased", NBI_TARGET_AM);
        bench_finish(j);
    }
    if (j->me == 0)
        printf("# bench_rma (%s): %u processes, best of %d runs; segment %lu bytes\n", BENCH_MODE,
               (unsigned)j->nranks, BENCH_RUNS, (unsigned long)j->seg_size);

    double put = 1e30, get = 1e30, bw_put = 0.0, bw_mem = 0.0;
    for (int r = 0; r < BENCH_RUNS; r++) {
        double p = put8_run(j, (uint64_t)(r + 1) << 40);
        double g = get8_run(j);
        if (p < put) put = p;
        if (g < get) get = g;
    }

    void *srcp = NULL, *dstp = NULL;
    if (posix_memalign(&srcp, 4096, BW_BYTES) || posix_memalign(&dstp, 4096, BW_BYTES))
        bench_fail(j, "posix_memalign");
    unsigned char *src = srcp, *dst = dstp;
    for (size_t k = 0; k < BW_BYTES; k++) src[k] = bw_pattern(k);
    memset(dst, 0, BW_BYTES);
    for (int r = 0; r < BENCH_RUNS; r++) {
        double m = bw_run(j, src, dst);
        double p = bw_run(j, src, NULL);
        if (m > bw_mem) bw_mem = m;
        if (p > bw_put) bw_put = p;
    }
    check_bw_landed(j);

    if (j->me == 0) {
        bench_print("put8", put, "ns");
        bench_ratio("put8_ns", put, 1, OP_TARGET_NS);
        bench_print("get8", get, "ns");
        bench_ratio("get8_ns", get, 1, OP_TARGET_NS);
        bench_print("memcpy_bw_1MiB", bw_mem, "GB/s");
        bench_print("put_bw_1MiB", bw_put, "GB/s");
        bench_ratio("put_bw_1MiB_vs_memcpy", bw_put / bw_mem, 0, BW_TARGET);
    }
    nbi_vs_blocking(j, NBI_BATCHES, "", NBI_TARGET);
    gex_AD_t ad;
    gex_AD_Create(&ad, j->tm, GEX_DT_U64, GEX_OP_FADD, GEX_FLAG_AD_FAVOR_MY_NBRHD);
    double amo = 1e30;
    for (int r = 0; r < BENCH_RUNS; r++) {
        double a = amo_run(j, ad);
        if (a < amo) amo = a;
    }
    if (j->me == 0) {
        bench_print("amo_fadd_nbr", amo, "ns");
        bench_ratio("amo_fadd_nbr_ns", amo, 1, AMO_TARGET_NS);
    }
    bench_barrier(j);
    gex_AD_Destroy(ad);
    free(src);
    free(dst);
    if (am_status != 0 && am_status != 77) {
        if (j->me == 0) printf("# bench_rma: the AM-based run failed (status %d)\n", am_status);
        bench_barrier(j);
        gasnet_exit(1);
    }
    bench_finish(j);
    return 0;
}
