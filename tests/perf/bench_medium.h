/* tests/perf/bench_medium.h - the AM Medium figures of the network benchmarks (bench_udp,
 * bench_mpi): a round trip (rank 0 sends a Medium request of n bytes, the handler replies
 * with a Short) and a stream (count Medium requests of n bytes back to back, each with
 * GEX_EVENT_NOW; the handler of the last to arrive replies). Register
 * BENCH_MEDIUM_HANDLERS (indices BENCH_H_MED, BENCH_H_MEDACK). Layer: tests. */
#ifndef BENCH_MEDIUM_H
#define BENCH_MEDIUM_H

#include "bench_util.h"

enum { BENCH_H_MED = 210, BENCH_H_MEDACK };
static atomic_long bench_med_got, bench_med_acks;
static long bench_med_every; /* the handler replies to every this many Mediums */

static void bench_h_med(gex_Token_t t, void *buf, size_t n) {
    (void)buf, (void)n;
    if ((atomic_fetch_add(&bench_med_got, 1) + 1) % bench_med_every == 0) gex_AM_ReplyShort0(t, BENCH_H_MEDACK, 0);
}
static void bench_h_medack(gex_Token_t t) {
    (void)t;
    atomic_fetch_add(&bench_med_acks, 1);
}
#define BENCH_MEDIUM_HANDLERS                                                                                      \
    {BENCH_H_MED, (gex_AM_Fn_t)bench_h_med, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 0, NULL, "med"},             \
    {BENCH_H_MEDACK, (gex_AM_Fn_t)bench_h_medack, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, "medack"}

/* seconds for count Mediums of n bytes from rank 0 to rank 1 (buf: n bytes), with a reply
 * after every `every` of them (every rank calls it: barriers around) */
static double bench_am_medium_run(const bench_job_t *j, const void *buf, size_t n, long count, long every) {
    atomic_store(&bench_med_got, 0);
    bench_med_every = every;
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    if (j->me == 0) {
        long acks = atomic_load(&bench_med_acks);
        for (long i = 0; i < count; i++) {
            gex_AM_RequestMedium0(j->tm, 1, BENCH_H_MED, (void *)buf, n, GEX_EVENT_NOW, 0);
            if ((i + 1) % every == 0) GASNET_BLOCKUNTIL(atomic_load(&bench_med_acks) >= acks + (i + 1) / every);
        }
    }
    double s = (double)(bench_now_ns() - t0) * 1e-9;
    bench_barrier(j);
    return s;
}
/* us per round trip of a Medium request of n bytes and a Short reply */
static double bench_am_medium_rtt(const bench_job_t *j, const void *buf, size_t n, long iters) {
    return bench_am_medium_run(j, buf, n, iters, 1) / (double)iters * 1e6;
}
/* bytes per second of a stream of count Medium requests of n bytes */
static double bench_am_medium_stream(const bench_job_t *j, const void *buf, size_t n, long count) {
    return (double)n * (double)count / bench_am_medium_run(j, buf, n, count, count);
}

#endif
