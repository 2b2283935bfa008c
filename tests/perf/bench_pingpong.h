/* tests/perf/bench_pingpong.h - the AM Short round trip the network benchmarks measure
 * against their raw transport (bench_mpi, bench_ofi): rank 0 sends gex_AM_RequestShort0,
 * the handler replies with gex_AM_ReplyShort0, rank 0 polls for it. Register
 * BENCH_PINGPONG_HANDLERS (indices BENCH_H_PING, BENCH_H_PONG). Layer: tests. */
#ifndef BENCH_PINGPONG_H
#define BENCH_PINGPONG_H

#include "bench_util.h"

enum { BENCH_H_PING = 200, BENCH_H_PONG };
static volatile long bench_pongs;

static void bench_h_ping(gex_Token_t t) { gex_AM_ReplyShort0(t, BENCH_H_PONG, 0); }
static void bench_h_pong(gex_Token_t t) {
    (void)t;
    bench_pongs++;
}
#define BENCH_PINGPONG_HANDLERS                                                                                    \
    {BENCH_H_PING, (gex_AM_Fn_t)bench_h_ping, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, "ping"},           \
    {BENCH_H_PONG, (gex_AM_Fn_t)bench_h_pong, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, "pong"}

/* us per round trip over iters round trips (every rank calls it: barriers around) */
static double bench_am_rtt(const bench_job_t *j, long iters) {
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    if (j->me == 0) {
        for (long i = 0; i < iters; i++) {
            long want = bench_pongs + 1;
            gex_AM_RequestShort0(j->tm, 1, BENCH_H_PING, 0);
            while (bench_pongs < want) gasnet_AMPoll();
        }
    }
    double us = (double)(bench_now_ns() - t0) / (double)iters / 1000.0;
    bench_barrier(j);
    return us;
}

#endif
