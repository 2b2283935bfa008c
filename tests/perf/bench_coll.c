/* tests/perf/bench_coll.c: collective latency and bandwidth on the primordial team (run
 * with 4 processes: run-bench uses GASNET_PSHM_NODES=4), against point-to-point figures
 * measured in the same run:
 *   - the AM Short request/reply round trip between ranks 0 and 1 (the baseline);
 *   - gex_Coll_BarrierNB, an 8-byte BroadcastNB and an 8-byte ReduceToAllNB (U64 ADD),
 *     each as the mean time per call of back-to-back calls: target <= 2x the round trip;
 *   - a 1 MiB BroadcastNB from rank 0 against a 1 MiB gex_RMA_PutBlocking from rank 0 to
 *     rank 1: bandwidth target >= 0.5x the put's.
 * Results are checked (the broadcast and reduction values) so a fast wrong answer fails.
 * Layer: tests (public API only). Output: BENCH / RATIO lines (bench_util.h). */
#include "bench_util.h"
#include <gasnet_coll.h>

#define LAT_ITERS 2000
#define BW_ITERS 20
#define MIB (1u << 20)

static volatile int replies;
static void ping(gex_Token_t t) { gex_AM_ReplyShort0(t, 201, 0); }
static void pong(gex_Token_t t) { (void)t; replies++; }

/* mean ns per call of `iters` back-to-back calls, best of BENCH_RUNS, agreed by all ranks
 * (rank 0's figure is printed) */
#define TIME_LOOP(best, iters, body)                                                  \
    do {                                                                               \
        best = 1e30;                                                                   \
        for (int r_ = 0; r_ < BENCH_RUNS; r_++) {                                      \
            bench_barrier(&j);                                                         \
            uint64_t t0_ = bench_now_ns();                                             \
            for (int i_ = 0; i_ < (iters); i_++) { body; }                            \
            double t_ = (double)(bench_now_ns() - t0_) / (iters);                      \
            if (t_ < best) best = t_;                                                  \
        }                                                                              \
    } while (0)

int main(int argc, char **argv) {
    gex_AM_Entry_t h[] = {{200, (gex_AM_Fn_t)ping, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "ping"},
                          {201, (gex_AM_Fn_t)pong, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "pong"}};
    bench_job_t j;
    bench_init(&j, &argc, &argv, "BENCH_COLL", 4u << 20, h, 2);
    if (j.seg_size < MIB) bench_fail(&j, "segment too small");
    uint8_t *src = malloc(MIB), *dst = malloc(MIB);
    if (!src || !dst) bench_fail(&j, "out of memory");
    for (size_t i = 0; i < MIB; i++) src[i] = (uint8_t)(i * 7 + 3);
    double rtt, bar, bc8, ar8, bc1m, put1m;

    /* the baseline: AM Short round trip, rank 0 to rank 1 (the others wait) */
    rtt = 1e30;
    for (int r = 0; r < BENCH_RUNS; r++) {
        bench_barrier(&j);
        if (j.me == 0) {
            replies = 0;
            uint64_t t0 = bench_now_ns();
            for (int i = 0; i < LAT_ITERS; i++) {
                gex_AM_RequestShort0(j.tm, 1, 200, 0);
                GASNET_BLOCKUNTIL(replies == i + 1);
            }
            double t = (double)(bench_now_ns() - t0) / LAT_ITERS;
            if (t < rtt) rtt = t;
        }
    }
    TIME_LOOP(bar, LAT_ITERS, gex_Event_Wait(gex_Coll_BarrierNB(j.tm, 0)));
    uint64_t v8 = 0, in8 = 0;
    TIME_LOOP(bc8, LAT_ITERS, {
        in8 = (uint64_t)i_ * 3 + 1;
        gex_Event_Wait(gex_Coll_BroadcastNB(j.tm, 0, &v8, &in8, 8, 0));
        if (v8 != (uint64_t)i_ * 3 + 1) bench_fail(&j, "8-byte broadcast delivered a wrong value");
    });
    TIME_LOOP(ar8, LAT_ITERS, {
        in8 = j.me + (uint64_t)i_;
        gex_Event_Wait(gex_Coll_ReduceToAllNB(j.tm, &v8, &in8, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0));
        if (v8 != (uint64_t)j.nranks * (j.nranks - 1) / 2 + (uint64_t)j.nranks * i_)
            bench_fail(&j, "8-byte reduction gave a wrong sum");
    });
    TIME_LOOP(bc1m, BW_ITERS, gex_Event_Wait(gex_Coll_BroadcastNB(j.tm, 0, dst, src, MIB, 0)));
    if (memcmp(dst, src, MIB)) bench_fail(&j, "1 MiB broadcast delivered wrong bytes");
    TIME_LOOP(put1m, BW_ITERS, if (j.me == 0) gex_RMA_PutBlocking(j.tm, 1, j.peer_seg, src, MIB, 0));
    if (j.me == 0) {
        bench_print("coll.am_short_rtt", rtt, "ns");
        bench_print("coll.barrier", bar, "ns");
        bench_print("coll.bcast_8b", bc8, "ns");
        bench_print("coll.allreduce_8b", ar8, "ns");
        bench_print("coll.bcast_1m_bw", 1e9 / bc1m, "MiB/s"); /* 1 MiB per call */
        bench_print("coll.put_1m_bw", 1e9 / put1m, "MiB/s");
        printf("# %u processes\n", (unsigned)j.nranks);
        bench_ratio("coll.barrier_vs_am_rtt", bar / rtt, 1, 2.0);
        bench_ratio("coll.bcast_8b_vs_am_rtt", bc8 / rtt, 1, 2.0);
        bench_ratio("coll.allreduce_8b_vs_am_rtt", ar8 / rtt, 1, 2.0);
        bench_ratio("coll.bcast_1m_bw_vs_put", put1m / bc1m, 0, 0.5);
    }
    bench_finish(&j);
    return 0;
}
