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
 * Each figure is the best of BENCH_RUNS runs, raw and GASNet runs alternating. */
#include "bench_pingpong.h"

#include <mpi.h>

#define RTT_ITERS 20000L
#define BW_BYTES (1u << 20)
#define PUT_COUNT 64
#define PP_ITERS 64


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
    gex_AM_Entry_t h[] = {BENCH_PINGPONG_HANDLERS};
    bench_job_t j;
    bench_init(&j, &argc, &argv, "BENCH_MPI", 2 * BW_BYTES, h, 2);
    char *buf = malloc(BW_BYTES);
    if (!buf) bench_fail(&j, "out of memory");
    memset(buf, 1, BW_BYTES);
    double best_mrtt = 1e30, best_artt = 1e30, best_mbw = 0, best_pbw = 0;
    for (int r = 0; r < 3 * BENCH_RUNS; r++) {
        double a = mpi_rtt(&j), b = bench_am_rtt(&j, RTT_ITERS);
        if (a < best_mrtt) best_mrtt = a;
        if (b < best_artt) best_artt = b;
    }
    for (int r = 0; r < BENCH_RUNS; r++) {
        double a = mpi_bw(&j, buf), b = put_bw(&j, buf);
        if (a > best_mbw) best_mbw = a;
        if (b > best_pbw) best_pbw = b;
    }
    if (j.me == 0) {
        bench_print("mpi_rtt", best_mrtt, "us");
        bench_print("am_short_rtt", best_artt, "us");
        bench_ratio("am_short_rtt_vs_mpi", best_artt / best_mrtt, 1, 1.2);
        bench_print("mpi_pingpong_1m_bw", best_mbw, "MB/s");
        bench_print("put_1m_bw", best_pbw, "MB/s");
        bench_ratio("put_1m_bw_vs_mpi", best_pbw / best_mbw, 0, 0.8);
    }
    free(buf);
    bench_finish(&j);
    return 0;
}
