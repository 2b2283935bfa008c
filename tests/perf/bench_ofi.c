/* tests/perf/bench_ofi.c - ofi-conduit against libfabric's own fi_pingpong on the same
 * provider (run by `make bench` through gasnetrun_ofi -n 2 with GASNET_SUPERNODE_MAXSIZE=1,
 * so every AM crosses libfabric). Layer: tests (client code).
 * The baseline figures come from fi_pingpong -e rdm, run by tests/perf/run-bench just
 * before this program on the same provider (FI_PROVIDER), in the environment:
 *   OFI_PP_RTT_US   8-byte round trip, us: twice fi_pingpong's "usec/xfer", which is
 *                   one-way (its elapsed time / (2 x iterations), checked by timing it)
 *   OFI_PP_1M_BW    1 MiB ping-pong bandwidth, MB/s (its MB/sec column)
 * Without them no ratio is printed (the figures alone are).
 *   am_short_rtt      gex_AM_RequestShort0, replied with gex_AM_ReplyShort0, the
 *                     initiator polls. Target <= 1.3 x the fi_pingpong round trip.
 *   put_8_lat, get_8_lat  blocking 8-byte gex_RMA_PutBlocking / GetBlocking (fi_write /
 *                     fi_read where the provider has FI_RMA), us per operation.
 *   put_1m_bw         64 gex_RMA_PutNBI of 1 MiB then gex_NBI_Wait, MB/s.
 *   long_64k_bw, long_1m_bw  BENCH_LONG_COUNT gex_AM_RequestLong0 of 64 KiB / 1 MiB, each into
 *                     its own place in the peer's segment (which the peer zeroes first,
 *                     so a payload that did not arrive is seen), local completion by
 *                     gex_NBI_Wait, until every handler has run (each acknowledges with a
 *                     Short reply), MB/s; the handler checks three words. Long payloads of
 *                     GASNET_OFI_LONG_RDMA_MIN bytes or more go by fi_write (0: none do).
 *   fadd_8_lat        a blocking 64-bit fetch-and-add (gex_AD_OpNB, then wait) on the
 *                     peer's segment, us per operation: fi_fetch_atomic where the
 *                     provider offers it (GASNET_OFI_ATOMICS=0: by AMs); the final value
 *                     is checked.
 *   fadd_8_lat_bound  the same into a created, bound, published segment (after each
 *                     fadd_8_lat). Target: <= 1.3 x fadd_8_lat.
 *   put_8_contended   every rank at once: CONT_ITERS blocking 8-byte puts, to each other
 *                     rank in turn, then a barrier; us per put (rank 0's time over
 *                     CONT_ITERS). Each rank then checks that it holds, from each other
 *                     rank, the last value that rank put to it. With 2 processes it is
 *                     printed beside the others. With more (run-bench: 4 on this host,
 *                     more processes than CPUs on a 2-CPU machine) it is the only figure,
 *                     and its ratio to the 2-process figure (OFI_PUT_CONTENDED_N2_US,
 *                     from run-bench) has a target: a wait that spins without yielding
 *                     to a target that waits for our CPU costs a scheduler time slice
 *                     (ms) per put, see gasneti_poll_backoff.
 *   am_medium1k_rtt, am_medium8k_rtt, am_medium64k_rtt   a Medium request of 1, 8 and
 *                     64 KiB, replied with a Short (bench_medium.h), us per round trip.
 *   am_medium8k_stream  MED_STREAM 8 KiB Medium requests back to back (GEX_EVENT_NOW), the
 *                     last one's handler replies, MB/s: the receive buffers and send slots
 *                     under load (they start small and grow, ofi_am.c).
 * With OFI_BENCH_ONLY=rtt, am_short_rtt alone (run-bench alternates such runs with
 * fi_pingpong's, see there); with OFI_BENCH_ONLY=medium, the Medium figures alone.
 * Each figure is the best of BENCH_RUNS runs. */
#include "bench_medium.h"
#include "bench_netrma.h"

#define RTT_ITERS 20000L
#define LAT_ITERS 5000L
#define CONT_ITERS 2000L
#define MED_ITERS 2000L
#define MED_STREAM 2000L
#define CONT_OFF 64 /* put_8_contended's slots, one word per rank (over the bulk area's
                     * start: each figure has the segment to itself between barriers) */
#define CONT_TARGET 20.0 /* the 4-process figure over the 2-process one */

/* the rank that put number i of rank src goes to (each other rank in turn) */
static gex_Rank_t cont_target(gex_Rank_t src, long i, gex_Rank_t n) {
    return (gex_Rank_t)((src + 1 + (gex_Rank_t)(i % (long)(n - 1))) % n);
}
static uint64_t cont_value(gex_Rank_t src, long i) { return ((uint64_t)(src + 1) << 32) | (uint64_t)i; }

/* the Medium figures (every rank calls it) */
static void mediums(const bench_job_t *j) {
    static const size_t len[] = {1024, 8192, 65536};
    static const char *name[] = {"am_medium1k_rtt", "am_medium8k_rtt", "am_medium64k_rtt"};
    double best[3] = {1e30, 1e30, 1e30}, stream = 0;
    char *buf = calloc(1, 65536);
    if (!buf) bench_fail(j, "out of memory");
    for (int r = 0; r < BENCH_RUNS; r++) {
        for (int k = 0; k < 3; k++) {
            double v = bench_am_medium_rtt(j, buf, len[k], MED_ITERS);
            if (v < best[k]) best[k] = v;
        }
        double s = bench_am_medium_stream(j, buf, 8192, MED_STREAM) / 1e6;
        if (s > stream) stream = s;
    }
    if (j->me == 0) {
        for (int k = 0; k < 3; k++) bench_print(name[k], best[k], "us");
        bench_print("am_medium8k_stream", stream, "MB/s");
    }
    free(buf);
}

static double put_contended(const bench_job_t *j, void *const *segs) {
    volatile uint64_t *slot = (volatile uint64_t *)((char *)j->my_seg + CONT_OFF);
    for (gex_Rank_t r = 0; r < j->nranks; r++) slot[r] = 0;
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    for (long i = 0; i < CONT_ITERS; i++) {
        gex_Rank_t r = cont_target(j->me, i, j->nranks);
        uint64_t v = cont_value(j->me, i);
        gex_RMA_PutBlocking(j->tm, r, (char *)segs[r] + CONT_OFF + 8 * (size_t)j->me, &v, 8, 0);
    }
    bench_barrier(j);
    double us = (double)(bench_now_ns() - t0) / CONT_ITERS / 1000.0;
    for (gex_Rank_t s = 0; s < j->nranks; s++) {
        if (s == j->me) continue;
        long last = CONT_ITERS - 1;
        while (cont_target(s, last, j->nranks) != j->me) last--;
        if (slot[s] != cont_value(s, last)) bench_fail(j, "put_8_contended: a rank's last put is not in place");
    }
    return us;
}

int main(int argc, char **argv) {
    gex_AM_Entry_t h[] = {BENCH_PINGPONG_HANDLERS,
                          BENCH_NETRMA_HANDLERS, BENCH_MEDIUM_HANDLERS};
    bench_job_t j;
    bench_init(&j, &argc, &argv, "BENCH_OFI", 64 + (size_t)BENCH_LONG_COUNT * BENCH_BW_BYTES, h, 6);
    const char *only = getenv("OFI_BENCH_ONLY");
    if (only && !strcmp(only, "medium")) { /* the Medium figures alone */
        mediums(&j);
        bench_finish(&j);
    }
    if (only && !strcmp(only, "rtt")) { /* am_short_rtt alone */
        double best = 1e30;
        for (int r = 0; r < BENCH_RUNS; r++) {
            double a = bench_am_rtt(&j, RTT_ITERS);
            if (a < best) best = a;
        }
        if (j.me == 0) bench_print("am_short_rtt", best, "us");
        bench_finish(&j);
    }
    void **segs = malloc(j.nranks * sizeof(*segs));
    if (!segs) bench_fail(&j, "out of memory");
    for (gex_Rank_t r = 0; r < j.nranks; r++)
        if (gex_Segment_QueryBound(j.tm, r, &segs[r], NULL, NULL) != 0) bench_fail(&j, "gex_Segment_QueryBound failed");
    if (j.nranks > 2) { /* put_8_contended alone */
        double best = 1e30, n2 = bench_env_figure("OFI_PUT_CONTENDED_N2_US");
        for (int r = 0; r < BENCH_RUNS; r++) {
            double c = put_contended(&j, segs);
            if (c < best) best = c;
        }
        if (j.me == 0) {
            char name[64];
            snprintf(name, sizeof name, "put_8_contended_n%u", (unsigned)j.nranks);
            bench_print(name, best, "us");
            if (n2) {
                snprintf(name, sizeof name, "put_8_contended_n%u_vs_n2", (unsigned)j.nranks);
                bench_ratio(name, best / n2, 1, CONT_TARGET);
            } else {
                printf("# no 2-process figure (OFI_PUT_CONTENDED_N2_US): no ratio\n");
            }
        }
        free(segs);
        bench_finish(&j);
    }
    uint64_t *buf = malloc(BENCH_BW_BYTES);
    if (!buf) bench_fail(&j, "out of memory");
    for (size_t i = 0; i < BENCH_BW_BYTES / 8; i++) buf[i] = bench_pattern(i);
    gex_AD_t ad;
    gex_AD_Create(&ad, j.tm, GEX_DT_U64, GEX_OP_FADD, 0);
    uint64_t *bound_word;
    gex_AD_t bound_ad = bench_bound_ad(&j, &bound_word);
    double best_fadd_bound = 1e30;
    double best_rtt = 1e30, best_put = 1e30, best_get = 1e30, best_bw = 0, best_fadd = 1e30, best_l64 = 0, best_l1m = 0;
    double best_cont = 1e30;
    for (int r = 0; r < BENCH_RUNS; r++) {
        double a = bench_am_rtt(&j, RTT_ITERS), p = bench_rma_lat(&j, 0, LAT_ITERS),
               g = bench_rma_lat(&j, 1, LAT_ITERS), b = bench_put_bw(&j, buf, 64);
        double f = bench_fadd_lat(&j, ad, LAT_ITERS), l64 = bench_long_bw(&j, (char *)buf, 65536, 64);
        double l1m = bench_long_bw(&j, (char *)buf, BENCH_BW_BYTES, 64);
        double c = put_contended(&j, segs);
        if (c < best_cont) best_cont = c;
        if (l64 > best_l64) best_l64 = l64;
        if (l1m > best_l1m) best_l1m = l1m;
        if (f < best_fadd) best_fadd = f;
        double fb = bench_fadd_lat_at(&j, bound_ad, bound_word, LAT_ITERS);
        if (fb < best_fadd_bound) best_fadd_bound = fb;
        if (a < best_rtt) best_rtt = a;
        if (p < best_put) best_put = p;
        if (g < best_get) best_get = g;
        if (b > best_bw) best_bw = b;
    }
    mediums(&j);
    if (j.me == 0) {
        const char *prov = getenv("FI_PROVIDER");
        double pp_rtt = bench_env_figure("OFI_PP_RTT_US"), pp_bw = bench_env_figure("OFI_PP_1M_BW");
        printf("# provider: %s\n", prov ? prov : "(libfabric's default)");
        if (pp_rtt) bench_print("fi_pingpong_8_rtt", pp_rtt, "us");
        bench_print("am_short_rtt", best_rtt, "us");
        if (pp_rtt) bench_ratio("am_short_rtt_vs_fi_pingpong", best_rtt / pp_rtt, 1, 1.3);
        else printf("# no fi_pingpong figure (OFI_PP_RTT_US): no ratio here\n");
        bench_print("put_8_lat", best_put, "us");
        bench_print("get_8_lat", best_get, "us");
        if (pp_bw) bench_print("fi_pingpong_1m_bw", pp_bw, "MB/s");
        bench_print("put_1m_bw", best_bw, "MB/s");
        bench_print("long_64k_bw", best_l64, "MB/s");
        bench_print("long_1m_bw", best_l1m, "MB/s");
        bench_print("fadd_8_lat", best_fadd, "us");
        bench_print("fadd_8_lat_bound", best_fadd_bound, "us");
        bench_ratio("fadd_8_lat_bound_vs_primordial", best_fadd_bound / best_fadd, 1, 1.3);
        bench_print("put_8_contended", best_cont, "us");
    }
    free(segs);
    gex_AD_Destroy(ad);
    gex_AD_Destroy(bound_ad);
    free(buf);
    bench_finish(&j);
    return 0;
}
