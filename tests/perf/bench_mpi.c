/* tests/perf/bench_mpi.c - mpi-conduit against plain MPI between the same two processes
 * (run by `make bench` through gasnetrun_mpi -n 2 with GASNET_SUPERNODE_MAXSIZE=1, so
 * every AM crosses MPI). Layer: tests (client code; MPI_COMM_WORLD for the baselines).
 *
 *   mpi_rtt           baseline: 8-byte MPI_Send / MPI_Recv ping-pong.
 *   am_short_rtt      gex_AM_RequestShort0, the handler replies with gex_AM_ReplyShort0,
 *                     the initiator polls. Target <= 1.2 x mpi_rtt.
 *   mpi_pingpong_1m_bw baseline: 1 MiB MPI_Send / MPI_Recv ping-pong, bytes moved one way
 *                     per second.
 *   put_1m_bw         64 gex_RMA_PutNBI of 1 MiB then gex_NBI_Wait.
 *                     Target >= 0.8 x mpi_pingpong_1m_bw.
 *   am_medium8k_rtt, am_medium16k_rtt, am_medium64k_rtt   Medium request of 8, 16 and 64 KiB,
 *                     Short reply (mpi-conduit sends a Medium above 8 KiB as a header
 *                     message and a payload message).
 *   am_medium64k_stream  MED_STREAM 64 KiB Medium requests back to back (GEX_EVENT_NOW),
 *                     the last one's handler replies.
 * Each figure is the best of BENCH_RUNS runs, raw and GASNet runs alternating. With
 * MPI_BENCH_ONLY=rtt, the round trips and their ratio alone (for many short alternated
 * runs of two builds: tests/perf/compare-builds, docs/mpi-conduit.md). */
#include "bench_medium.h"
#include "bench_pingpong.h"

#include <mpi.h>

#define RTT_ITERS 20000L
#define BW_BYTES (1u << 20)
#define PUT_COUNT 64
#define PP_ITERS 64
#define MED_ITERS 2000L
#define MED_STREAM 1024L


static double mpi_rtt(const bench_job_t *j) {
    char b[8] = {0};
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t t0 = bench_now_ns();
    for (long i = 0; i < RTT_ITERS; i++) {
        if (j->me == 0) {
            MPI_Send(b, 8, MPI_BYTE, 1, 7, MPI_COMM_WORLD);
            MPI_Recv(b, 8, MPI_BYTE, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (j->me == 1) {
            MPI_Recv(b, 8, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b, 8, MPI_BYTE, 0, 7, MPI_COMM_WORLD);
        }
    }
    return (double)(bench_now_ns() - t0) / RTT_ITERS / 1000.0; /* us */
}

static double mpi_bw(const bench_job_t *j, char *buf) {
    MPI_Barrier(MPI_COMM_WORLD);
    uint64_t t0 = bench_now_ns();
    for (long i = 0; i < PP_ITERS; i++) {
        if (j->me == 0) {
            MPI_Send(buf, BW_BYTES, MPI_BYTE, 1, 8, MPI_COMM_WORLD);
            MPI_Recv(buf, BW_BYTES, MPI_BYTE, 1, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (j->me == 1) {
            MPI_Recv(buf, BW_BYTES, MPI_BYTE, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, BW_BYTES, MPI_BYTE, 0, 8, MPI_COMM_WORLD);
        }
    }
    double s = (double)(bench_now_ns() - t0) * 1e-9;
    return 2.0 * PP_ITERS * BW_BYTES / s / 1e6; /* MB/s */
}

static double put_bw(const bench_job_t *j, char *buf) {
    bench_barrier(j);
    uint64_t t0 = bench_now_ns();
    if (j->me == 0) {
        for (int i = 0; i < PUT_COUNT; i++) gex_RMA_PutNBI(j->tm, 1, j->peer_seg, buf, BW_BYTES, GEX_EVENT_DEFER, 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
    }
    double s = (double)(bench_now_ns() - t0) * 1e-9;
    bench_barrier(j);
    return (double)PUT_COUNT * BW_BYTES / s / 1e6;
}

int main(int argc, char **argv) {
    gex_AM_Entry_t h[] = {BENCH_PINGPONG_HANDLERS, BENCH_MEDIUM_HANDLERS};
    bench_job_t j;
    bench_init(&j, &argc, &argv, "BENCH_MPI", 2 * BW_BYTES, h, sizeof h / sizeof h[0]);
    char *buf = malloc(BW_BYTES);
    if (!buf) bench_fail(&j, "out of memory");
    memset(buf, 1, BW_BYTES);
    double best_mrtt = 1e30, best_artt = 1e30, best_mbw = 0, best_pbw = 0;
    for (int r = 0; r < 3 * BENCH_RUNS; r++) {
        double a = mpi_rtt(&j), b = bench_am_rtt(&j, RTT_ITERS);
        if (a < best_mrtt) best_mrtt = a;
        if (b < best_artt) best_artt = b;
    }
    const char *only = getenv("MPI_BENCH_ONLY");
    if (only && !strcmp(only, "rtt")) {
        if (j.me == 0) {
            bench_print("mpi_rtt", best_mrtt, "us");
            bench_print("am_short_rtt", best_artt, "us");
            bench_ratio("am_short_rtt_vs_mpi", best_artt / best_mrtt, 1, 1.2);
        }
        free(buf);
        bench_finish(&j);
    }
    for (int r = 0; r < BENCH_RUNS; r++) {
        double a = mpi_bw(&j, buf), b = put_bw(&j, buf);
        if (a > best_mbw) best_mbw = a;
        if (b > best_pbw) best_pbw = b;
    }
    static const size_t med[3] = {8192, 16384, 65536};
    double best_med[3] = {1e30, 1e30, 1e30}, best_stream = 0;
    for (int r = 0; r < BENCH_RUNS; r++) {
        for (int k = 0; k < 3; k++) {
            double v = bench_am_medium_rtt(&j, buf, med[k], MED_ITERS);
            if (v < best_med[k]) best_med[k] = v;
        }
        double v = bench_am_medium_stream(&j, buf, 65536, MED_STREAM) / 1e6;
        if (v > best_stream) best_stream = v;
    }
    if (j.me == 0) {
        bench_print("mpi_rtt", best_mrtt, "us");
        bench_print("am_short_rtt", best_artt, "us");
        bench_ratio("am_short_rtt_vs_mpi", best_artt / best_mrtt, 1, 1.2);
        bench_print("mpi_pingpong_1m_bw", best_mbw, "MB/s");
        bench_print("put_1m_bw", best_pbw, "MB/s");
        bench_ratio("put_1m_bw_vs_mpi", best_pbw / best_mbw, 0, 0.8);
        bench_print("am_medium8k_rtt", best_med[0], "us");
        bench_print("am_medium16k_rtt", best_med[1], "us");
        bench_print("am_medium64k_rtt", best_med[2], "us");
        bench_print("am_medium64k_stream", best_stream, "MB/s");
    }
    free(buf);
    bench_finish(&j);
    return 0;
}
