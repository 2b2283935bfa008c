/* tests/perf/bench_prepare.h - Medium round trips with a fixed payload against the same
 * with a negotiated one (gex_AM_PrepareRequestMedium with client_buf NULL, least = most =
 * n, then gex_AM_CommitRequestMedium1), shared by bench_am (smp) and bench_npam (network
 * conduits). In both forms the client writes an 8-byte sequence number into the payload,
 * which the handler checks with the length, and replies with a Short; rank 0 waits for
 * each reply. Register BENCH_PREPARE_HANDLERS (indices BENCH_H_SEQ, BENCH_H_SEQACK); after
 * the runs, bench_prepare_errors on rank 1 counts the Mediums that arrived wrong.
 * Layer: tests. */
#ifndef BENCH_PREPARE_H
#define BENCH_PREPARE_H

#include "bench_util.h"

enum { BENCH_H_SEQ = 220, BENCH_H_SEQACK };
static atomic_uint_fast64_t bench_prepare_requests, bench_prepare_replies, bench_prepare_errors;
static size_t bench_prepare_bytes; /* the Medium size of the current run */

static void bench_h_seq(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq) {
    uint64_t got;
    memcpy(&got, buf, sizeof got);
    if (nbytes != bench_prepare_bytes || got != (uint64_t)(uint32_t)seq)
        atomic_fetch_add_explicit(&bench_prepare_errors, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&bench_prepare_requests, 1, memory_order_release);
    gex_AM_ReplyShort0(t, BENCH_H_SEQACK, 0);
}
static void bench_h_seqack(gex_Token_t t) {
    (void)t;
    atomic_fetch_add_explicit(&bench_prepare_replies, 1, memory_order_release);
}
#define BENCH_PREPARE_HANDLERS                                                                                     \
    {BENCH_H_SEQ, (gex_AM_Fn_t)bench_h_seq, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL, "seq"},            \
    {BENCH_H_SEQACK, (gex_AM_Fn_t)bench_h_seqack, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, "seqack"}

/* ns per round trip (on rank 0; 0 elsewhere) of iters Medium requests of `bytes` after
 * warmup untimed ones, fixed payload from buf (bytes long) or prepared (every rank calls
 * it: barriers around) */
static double bench_prepare_rtt_run(const bench_job_t *j, size_t bytes, int prepare, long warmup, long iters,
                                    uint8_t *buf) {
    uint64_t t0 = 0, t1 = 0;
    uint64_t goal = atomic_load(&bench_prepare_requests) + (uint64_t)(warmup + iters);
    bench_prepare_bytes = bytes;
    bench_barrier(j);
    if (j->me == 0) {
        uint64_t want = atomic_load(&bench_prepare_replies);
        for (long i = 0; i < warmup + iters; i++) {
            if (i == warmup) t0 = bench_now_ns();
            uint64_t seq = (uint32_t)i;
            if (prepare) {
                gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(j->tm, 1, NULL, bytes, bytes, NULL, 0, 1);
                if (gex_AM_SrcDescSize(sd) != bytes) bench_fail(j, "gex_AM_PrepareRequestMedium: wrong size");
                memcpy(gex_AM_SrcDescAddr(sd), &seq, sizeof seq);
                gex_AM_CommitRequestMedium1(sd, BENCH_H_SEQ, bytes, (gex_AM_Arg_t)seq);
            } else {
                memcpy(buf, &seq, sizeof seq);
                gex_AM_RequestMedium1(j->tm, 1, BENCH_H_SEQ, buf, bytes, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)seq);
            }
            want++;
            GASNET_BLOCKUNTIL(atomic_load_explicit(&bench_prepare_replies, memory_order_acquire) == want);
        }
        t1 = bench_now_ns();
    } else if (j->me == 1) {
        GASNET_BLOCKUNTIL(atomic_load_explicit(&bench_prepare_requests, memory_order_acquire) == goal);
    }
    bench_barrier(j);
    return j->me == 0 ? (double)(t1 - t0) / (double)iters : 0.0;
}

#endif
