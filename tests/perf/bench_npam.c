/* tests/perf/bench_npam.c - negotiated-payload Mediums (Prepare/Commit) against
 * fixed-payload ones of the same size, on a network conduit, in the same run (built for
 * ucx, ibv and ofi as bench_npam_<conduit>_seq; run with 2 processes and
 * GASNET_SUPERNODE_MAXSIZE=1, so that every AM crosses the network). Layer: tests (client
 * code).
 *   am_med<N>_fixed_rtt    gex_AM_RequestMedium1 of N bytes from the client's buffer
 *                          (GEX_EVENT_NOW), the handler replies with a Short; rank 0 waits
 *                          for the reply. us per round trip.
 *   am_med<N>_prepare_rtt  the same with gex_AM_PrepareRequestMedium(client_buf NULL,
 *                          least = most = N), the payload's first 8 bytes written into the
 *                          buffer it hands out, gex_AM_CommitRequestMedium1.
 *   am_med<N>_prepare_vs_fixed  the ratio; target <= 1.1 (issue 45).
 * N: 1024 and 16384. In both forms the client writes an 8-byte sequence number into the
 * payload, which the handler checks with the length. Runs alternate (fixed, prepare, ...);
 * each figure is the best of 2 x BENCH_RUNS runs of NPAM_ITERS round trips (default 2000;
 * fewer under emulation), and the median is printed beside it.
 * Where the conduit hands out its own send memory (GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM) the
 * Prepare saves the copy of the payload that the fixed form makes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_prepare.h"

/* one run: us per round trip */
static double run(const bench_job_t *j, size_t bytes, int prepare, long iters, uint8_t *buf) {
    return bench_prepare_rtt_run(j, bytes, prepare, iters / 10 + 1, iters, buf) / 1000.0;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    gex_AM_Entry_t h[] = {BENCH_PREPARE_HANDLERS};
    bench_job_t j;
    bench_init(&j, &argc, &argv, "BENCH_NPAM", 1u << 20, h, 2);
    const char *s = getenv("NPAM_ITERS");
    long iters = s && atol(s) > 0 ? atol(s) : 2000;
    int runs = 2 * BENCH_RUNS;
    static const size_t sizes[2] = {1024, 16384};
    uint8_t *buf = calloc(1, 16384);
    double *f = calloc((size_t)runs, sizeof(double)), *p = calloc((size_t)runs, sizeof(double));
    if (!buf || !f || !p) bench_fail(&j, "calloc");
    if (j.me == 0) {
#ifdef GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM
        const char *native = "defined";
#else
        const char *native = "undefined";
#endif
        printf("# bench_npam (%s): %u processes, %ld round trips per run, best and median of %d alternated runs; "
               "GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM %s\n",
               BENCH_MODE, (unsigned)j.nranks, iters, runs, native);
    }
    for (int k = 0; k < 2; k++) {
        size_t n = sizes[k];
        run(&j, n, 0, iters / 10 + 1, buf); /* warm-up of both */
        run(&j, n, 1, iters / 10 + 1, buf);
        for (int r = 0; r < runs; r++) {
            f[r] = run(&j, n, 0, iters, buf);
            p[r] = run(&j, n, 1, iters, buf);
        }
        if (j.me == 0) {
            qsort(f, (size_t)runs, sizeof(double), cmp);
            qsort(p, (size_t)runs, sizeof(double), cmp);
            char name[64];
            snprintf(name, sizeof name, "am_med%zuk_fixed_rtt", n / 1024);
            bench_print(name, f[0], "us");
            snprintf(name, sizeof name, "am_med%zuk_fixed_rtt_median", n / 1024);
            bench_print(name, f[runs / 2], "us");
            snprintf(name, sizeof name, "am_med%zuk_prepare_rtt", n / 1024);
            bench_print(name, p[0], "us");
            snprintf(name, sizeof name, "am_med%zuk_prepare_rtt_median", n / 1024);
            bench_print(name, p[runs / 2], "us");
            snprintf(name, sizeof name, "am_med%zuk_prepare_vs_fixed", n / 1024);
            bench_ratio(name, p[0] / f[0], 1, 1.1);
        }
    }
    if (j.me == 1 && atomic_load(&bench_prepare_errors))
        bench_fail(&j, "a Medium arrived with a wrong length or sequence number");
    free(buf), free(f), free(p);
    bench_finish(&j);
    return 0;
}
