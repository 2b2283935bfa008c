/* tests/perf/bench_netrma.h - the RMA, atomic and Long figures the network conduits'
 * benchmarks share (bench_ofi, bench_ucx), between two ranks, every rank calling each
 * (barriers around; rank 0 measures): blocking 8-byte put/get and fetch-and-add latency, 1 MiB
 * NBI put bandwidth, and Long bandwidth with every payload checked by its handler. Register
 * BENCH_NETRMA_HANDLERS (indices BENCH_H_LONG, BENCH_H_LONG_ACK) beside
 * BENCH_PINGPONG_HANDLERS. The bulk figures use the peer's segment from byte `off` on:
 * BENCH_BW_BYTES for puts, BENCH_LONG_COUNT x n for Longs. Layer: tests. */
#ifndef BENCH_NETRMA_H
#define BENCH_NETRMA_H

#include "bench_pingpong.h"

#include <gasnet_ratomic.h>

#define BENCH_BW_BYTES (1u << 20)
#define BENCH_PUT_COUNT 64
#define BENCH_LONG_COUNT 64
enum { BENCH_H_LONG = BENCH_H_PONG + 1, BENCH_H_LONG_ACK };

static volatile long bench_long_acks, bench_long_bad;
static uint64_t bench_last_put; /* the value bench_rma_lat's puts left in the peer's segment */
/* the words of the payloads the bulk figures send */
static uint64_t bench_pattern(size_t i) { return (uint64_t)i * 0x9e3779b97f4a7c15u ^ 0x5a5a5a5a5a5a5a5au; }

static void bench_h_long(gex_Token_t t, void *buf, size_t n) {
    const uint64_t *w = buf;
    size_t last = n / 8 - 1;
    if (w[0] != bench_pattern(0) || w[last / 2] != bench_pattern(last / 2) || w[last] != bench_pattern(last))
        bench_long_bad++;
    gex_AM_ReplyShort0(t, BENCH_H_LONG_ACK, 0);
}
static void bench_h_long_ack(gex_Token_t t) {
    (void)t;
    bench_long_acks++;
}
#define BENCH_NETRMA_HANDLERS                                                                                      \
    {BENCH_H_LONG, (gex_AM_Fn_t)bench_h_long, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 0, NULL, "long"},            \
    {BENCH_H_LONG_ACK, (gex_AM_Fn_t)bench_h_long_ack, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, "ack"}

/* us per blocking 8-byte put (get=0) or get (get=1) to the start of the peer's segment,
 * over iters operations; the gets read back the last put's value, so put first */
static double bench_rma_lat(const bench_job_t *j, int get, long iters) {
    uint64_t v = 42, w = 0;
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    if (j->me == 0) {
        for (long i = 0; i < iters; i++) {
            if (get) {
                gex_RMA_GetBlocking(j->tm, &w, 1, j->peer_seg, 8, 0);
            } else {
                v = bench_last_put = (uint64_t)i;
                gex_RMA_PutBlocking(j->tm, 1, j->peer_seg, &v, 8, 0);
            }
        }
        if (get && w != bench_last_put) bench_fail(j, "get_8_lat: the value read back is not the last one put");
    }
    double us = (double)(bench_now_ns() - t0) / iters / 1000.0;
    bench_barrier(j);
    return us;
}
/* us per blocking 64-bit fetch-and-add on rank 1's word at target (in the segment ad's
 * team reaches), over iters; the fetched values must count up by one */
static double bench_fadd_lat_at(const bench_job_t *j, gex_AD_t ad, uint64_t *target, long iters) {
    uint64_t old = 0;
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    if (j->me == 0) {
        uint64_t first = 0;
        for (long i = 0; i < iters; i++) {
            gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, 1, target, GEX_OP_FADD, 1, 0, 0));
            if (!i) first = old;
        }
        if (old != first + (uint64_t)iters - 1) bench_fail(j, "fadd_8_lat: the fetched values do not count up by one");
    }
    double us = (double)(bench_now_ns() - t0) / iters / 1000.0;
    bench_barrier(j);
    return us;
}
/* the same on the peer's primordial segment (byte 8) */
static double bench_fadd_lat(const bench_job_t *j, gex_AD_t ad, long iters) {
    return bench_fadd_lat_at(j, ad, (uint64_t *)((char *)j->peer_seg + 8), iters);
}

/* A created segment (4 KiB, the library's), bound to a new endpoint 1 and published on
 * j's team: an atomic domain (U64, FADD) on gex_TM_Pair(primordial endpoint, 1), and the
 * peer's word at byte 8 of it in *target_p. fadd_8_lat_bound: the fetch-and-add there
 * (issue 45: the network's atomics on every bound segment, <= 1.3x the primordial one). */
static gex_AD_t bench_bound_ad(const bench_job_t *j, uint64_t **target_p) {
    gex_EP_t ep;
    gex_Segment_t seg;
    if (gex_EP_Create(&ep, j->client, GEX_EP_CAPABILITY_RMA, 0) != GASNET_OK) bench_fail(j, "gex_EP_Create failed");
    if (gex_Segment_Create(&seg, j->client, NULL, 4096, GEX_MK_HOST, 0) != GASNET_OK)
        bench_fail(j, "gex_Segment_Create failed");
    if (gex_EP_BindSegment(ep, seg, 0) != GASNET_OK) bench_fail(j, "gex_EP_BindSegment failed");
    memset(gex_Segment_QueryAddr(seg), 0, 4096);
    if (gex_EP_PublishBoundSegment(j->tm, &ep, 1, 0) != GASNET_OK) bench_fail(j, "gex_EP_PublishBoundSegment failed");
    gex_TM_t pair = gex_TM_Pair(j->ep, 1);
    void *peer = NULL;
    if (j->peer != GEX_RANK_INVALID && gex_Segment_QueryBound(pair, j->peer, &peer, NULL, NULL) != 0)
        bench_fail(j, "gex_Segment_QueryBound(peer's endpoint 1) failed");
    *target_p = (uint64_t *)((char *)peer + 8);
    gex_AD_t ad;
    gex_AD_Create(&ad, pair, GEX_DT_U64, GEX_OP_FADD, 0);
    bench_barrier(j);
    return ad;
}


/* MB/s of BENCH_PUT_COUNT gex_RMA_PutNBI of BENCH_BW_BYTES then gex_NBI_Wait */
static double bench_put_bw(const bench_job_t *j, const void *buf, size_t off) {
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    if (j->me == 0) {
        for (int i = 0; i < BENCH_PUT_COUNT; i++)
            gex_RMA_PutNBI(j->tm, 1, (char *)j->peer_seg + off, (void *)buf, BENCH_BW_BYTES, GEX_EVENT_DEFER, 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
    }
    double s = (double)(bench_now_ns() - t0) * 1e-9;
    bench_barrier(j);
    return (double)BENCH_PUT_COUNT * BENCH_BW_BYTES / s / 1e6;
}

/* MB/s of BENCH_LONG_COUNT gex_AM_RequestLong0 of n bytes (buf: bench_pattern's words),
 * each into its own place of the peer's segment (zeroed first, so that a payload that did
 * not arrive is seen), until every handler has checked its payload and acknowledged */
static double bench_long_bw(const bench_job_t *j, const char *buf, size_t n, size_t off) {
    if (j->me == 1) memset((char *)j->my_seg + off, 0, BENCH_LONG_COUNT * n);
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    if (j->me == 0) {
        long want = bench_long_acks + BENCH_LONG_COUNT;
        for (int i = 0; i < BENCH_LONG_COUNT; i++)
            gex_AM_RequestLong0(j->tm, 1, BENCH_H_LONG, (void *)buf, n, (char *)j->peer_seg + off + i * n,
                                GEX_EVENT_GROUP, 0);
        gex_NBI_Wait(GEX_EC_AM, 0);
        while (bench_long_acks < want)
            gasnet_AMPoll();
    }
    double s = (double)(bench_now_ns() - t0) * 1e-9;
    bench_barrier(j);
    if (bench_long_bad) bench_fail(j, "long_bw: a Long handler found its payload wrong");
    return (double)BENCH_LONG_COUNT * n / s / 1e6;
}

/* a baseline figure from the environment (set by run-bench), 0 when unset or not > 0 */
static double bench_env_figure(const char *name) {
    const char *v = getenv(name);
    char *end;
    double d = v && *v ? strtod(v, &end) : 0;
    return v && *v && !*end && d > 0 ? d : 0;
}

#endif
