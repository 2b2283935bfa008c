/* tests/perf/bench_vis.c: VIS strided put cost against a contiguous put of the same bytes.
 * A 256x256 block of doubles (2 KiB rows) put with gex_VIS_StridedPutBlocking from and to
 * arrays whose rows are 4 KiB apart (so no level folds: 256 pieces), against one
 * gex_RMA_PutBlocking of the 512 KiB. Rank 0 puts into rank 1. Target: the strided
 * put's bandwidth >= 0.7 x the contiguous one's. Built for smp (neighbors: copies) and for
 * udp (run-bench starts it without PSHM: pieces packed into AM Mediums, gasnete_vis.c).
 * Layer: tests (public API only). Output: BENCH / RATIO lines (bench_util.h). */
#include "bench_util.h"
#include <gasnet_vis.h>

#define N 256
#define ROWB (N * sizeof(double))
#define PITCH (2 * ROWB)
#define ITERS 50

int main(int argc, char **argv) {
    bench_job_t j;
    bench_init(&j, &argc, &argv, "BENCH_VIS", 4u << 20, NULL, 0);
    if (j.seg_size < N * PITCH) bench_fail(&j, "segment too small");
    double *src = malloc(N * PITCH);
    if (!src) bench_fail(&j, "out of memory");
    for (size_t i = 0; i < N * PITCH / sizeof(double); i++) src[i] = (double)i;
    double best_s = 1e30, best_c = 1e30;
    if (j.me == 0) {
        ptrdiff_t st[1] = {(ptrdiff_t)PITCH};
        size_t cnt[1] = {N};
        for (int r = 0; r < BENCH_RUNS; r++) {
            uint64_t t0 = bench_now_ns();
            for (int i = 0; i < ITERS; i++)
                gex_VIS_StridedPutBlocking(j.tm, j.peer, j.peer_seg, st, src, st, ROWB, cnt, 1, 0);
            uint64_t t1 = bench_now_ns();
            for (int i = 0; i < ITERS; i++) gex_RMA_PutBlocking(j.tm, j.peer, j.peer_seg, src, N * ROWB, 0);
            uint64_t t2 = bench_now_ns();
            double s = (double)(t1 - t0) / ITERS / 1000.0, c = (double)(t2 - t1) / ITERS / 1000.0;
            if (s < best_s) best_s = s;
            if (c < best_c) best_c = c;
        }
        /* the data must have arrived: row N-1 of the strided put was overwritten by the
         * contiguous one, so check row 1 of the last contiguous put instead */
        double chk[N];
        gex_RMA_GetBlocking(j.tm, chk, j.peer, (char *)j.peer_seg + ROWB, ROWB, 0);
        if (memcmp(chk, (char *)src + ROWB, ROWB)) bench_fail(&j, "contiguous put data did not arrive");
        bench_print("vis.strided_put_256x256d", best_s, "us");
        bench_print("vis.contig_put_512KiB", best_c, "us");
        bench_ratio("vis.strided_bw_vs_contig", best_c / best_s, 0, 0.7);
    }
    bench_finish(&j);
    return 0;
}
