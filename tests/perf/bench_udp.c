/* tests/perf/bench_udp.c - udp-conduit against raw UDP between the same two processes
 * (run by `make bench` through amudprun -np 2 with GASNET_SUPERNODE_MAXSIZE=1, so every
 * message crosses the loopback network).
 * Layer: tests (client code; raw sockets only for the baselines).
 *
 *   raw_udp_rtt       baseline: 8-byte ping-pong between two non-blocking UDP sockets on
 *                     127.0.0.1, each side busy-polling recv().
 *   am_short_rtt      gex_AM_RequestShort0, the handler replies with gex_AM_ReplyShort0,
 *                     the initiator polls. Target <= 1.3 x raw_udp_rtt.
 *   amo_fadd_rtt      gex_AD_OpNB_U64 FADD on the peer's segment, waited for (a remote
 *                     atomic is one AM round trip). Target <= 1.2 x am_short_rtt.
 *   am_medium8k_rtt, am_medium64k_rtt   8 KiB and 64 KiB Medium request, Short reply (a
 *                     64 KiB Medium is two datagrams, reassembled by the core).
 *   am_medium64k_stream  MED_STREAM 64 KiB Medium requests back to back (GEX_EVENT_NOW),
 *                     the last one's handler replies: the core's reassembly at full rate.
 *   raw_udp_stream_bw baseline: 64 x 1 MiB sent as 65000-byte datagrams from one socket to
 *                     the other; the receiver acknowledges every 256 KiB and the sender
 *                     keeps at most half the receive buffer unacknowledged (the least flow
 *                     control that loses nothing).
 *   put_1m_bw         64 gex_RMA_PutNBI of 1 MiB then gex_NBI_Wait.
 *                     Target >= 0.7 x raw_udp_stream_bw.
 *   raw_udp_send_rate baseline: 8-byte datagrams sent as fast as sendto() takes them
 *                     (the receiver drains; datagrams may be lost, only sending counts).
 *   am_short_flood    one-way Short requests; the last one's handler replies. Printed
 *                     beside the raw send rate, no target.
 * With the argument "lossy" (run-bench starts it under other/udp_fault_shim.c with 10%
 * loss) only put_1m_bw is measured, as put_1m_bw_lossy; run-bench prints its fraction of
 * the loss-free figure. With the argument "medium" only the three Medium figures are
 * measured. Each figure is the best of BENCH_RUNS runs; the round trips of 3 x BENCH_RUNS
 * alternating raw and AM runs (the Medium ones of 3 x BENCH_RUNS runs). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_medium.h"

#include <gasnet_ratomic.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

enum { H_PING = 200, H_PONG, H_FLOOD = 203, H_PORT, H_DONE };

#define RTT_ITERS 20000L
#define MED_ITERS 2000L
#define MED_STREAM 1024L
#define PUT_BYTES (1u << 20)
#define PUT_COUNT 64
#define DGRAM 65000
#define STREAM_ACK_EVERY (256u << 10)
#define FLOOD_MSGS 200000L

static atomic_uint_fast64_t g_requests, g_replies, g_done;
static atomic_int g_peer_port;
static uint64_t g_flood_last;

static void h_ping(gex_Token_t t) {
    atomic_fetch_add_explicit(&g_requests, 1, memory_order_relaxed);
    gex_AM_ReplyShort0(t, H_PONG, 0);
}
static void h_pong(gex_Token_t t) {
    (void)t;
    atomic_fetch_add_explicit(&g_replies, 1, memory_order_relaxed);
}
static void h_flood(gex_Token_t t) {
    uint64_t n = atomic_fetch_add_explicit(&g_requests, 1, memory_order_relaxed) + 1;
    if (n == g_flood_last) gex_AM_ReplyShort0(t, H_PONG, 0);
}
static void h_port(gex_Token_t t, gex_AM_Arg_t port) {
    (void)t;
    atomic_store(&g_peer_port, (int)port);
}
static void h_done(gex_Token_t t) {
    (void)t;
    atomic_fetch_add_explicit(&g_done, 1, memory_order_relaxed);
}

static gex_AM_Entry_t g_table[] = {
    {H_PING, (gex_AM_Fn_t)h_ping, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, "ping"},
    {H_PONG, (gex_AM_Fn_t)h_pong, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, "pong"},
    {H_FLOOD, (gex_AM_Fn_t)h_flood, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, "flood"},
    {H_PORT, (gex_AM_Fn_t)h_port, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, "port"},
    {H_DONE, (gex_AM_Fn_t)h_done, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, "done"},
    BENCH_MEDIUM_HANDLERS,
};

static bench_job_t J;
static int g_sock = -1;
static struct sockaddr_in g_peer_addr;
static int g_rcvbuf;
static char *g_buf;

/* ---- raw UDP ---- */
static void raw_open(void) {
    g_sock = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    if (g_sock < 0 || bind(g_sock, (struct sockaddr *)&a, sizeof(a)) || getsockname(g_sock, (struct sockaddr *)&a, &al))
        bench_fail(&J, "raw UDP socket");
    int big = 8 << 20; /* as the conduit asks for its own socket */
    if (setsockopt(g_sock, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
        setsockopt(g_sock, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
    big = 4 << 20;
    if (setsockopt(g_sock, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)))
        setsockopt(g_sock, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
    socklen_t ol = sizeof(g_rcvbuf);
    getsockopt(g_sock, SOL_SOCKET, SO_RCVBUF, &g_rcvbuf, &ol);
    gex_AM_RequestShort1(J.tm, J.peer, H_PORT, 0, (gex_AM_Arg_t)ntohs(a.sin_port));
    GASNET_BLOCKUNTIL(atomic_load(&g_peer_port) != 0);
    g_peer_addr = (struct sockaddr_in){.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                                       .sin_port = htons((uint16_t)atomic_load(&g_peer_port))};
}
static void raw_send(const void *p, size_t n) {
    while (sendto(g_sock, p, n, MSG_DONTWAIT, (struct sockaddr *)&g_peer_addr, sizeof(g_peer_addr)) < 0)
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS) bench_fail(&J, "raw sendto failed");
}
/* busy-polls; gives up after 5 s (a lost datagram) */
static ssize_t raw_recv(void *p, size_t n) {
    uint64_t t0 = 0;
    for (unsigned spin = 0;; spin++) {
        ssize_t r = recv(g_sock, p, n, MSG_DONTWAIT);
        if (r >= 0) return r;
        if ((spin & 1023) == 1023) {
            uint64_t t = bench_now_ns();
            if (!t0) t0 = t;
            else if (t - t0 > 5000000000ull) bench_fail(&J, "raw UDP baseline: a datagram was lost");
        }
    }
}

static double raw_rtt(void) {
    uint64_t v = 0;
    bench_barrier(&J);
    uint64_t t0 = bench_now_ns();
    for (long i = 0; i < RTT_ITERS; i++) {
        if (J.me == 0) {
            raw_send(&v, 8);
            raw_recv(&v, 8);
        } else {
            raw_recv(&v, 8);
            raw_send(&v, 8);
        }
    }
    return (double)(bench_now_ns() - t0) / RTT_ITERS / 1000.0;
}

static double am_rtt(void) {
    long iters = RTT_ITERS;
    bench_barrier(&J);
    uint64_t base = atomic_load(&g_requests), t0 = bench_now_ns();
    if (J.me == 0) {
        for (long i = 0; i < iters; i++) {
            uint64_t want = atomic_load(&g_replies) + 1;
            gex_AM_RequestShort0(J.tm, J.peer, H_PING, 0);
            GASNET_BLOCKUNTIL(atomic_load_explicit(&g_replies, memory_order_relaxed) >= want);
        }
    } else {
        GASNET_BLOCKUNTIL(atomic_load_explicit(&g_requests, memory_order_relaxed) >= base + (uint64_t)iters);
    }
    return (double)(bench_now_ns() - t0) / (double)iters / 1000.0;
}

static double best_of(double (*f)(void), int at_most) {
    double best = at_most ? 1e300 : 0;
    for (int r = 0; r < BENCH_RUNS; r++) {
        double v = f();
        if (at_most ? v < best : v > best) best = v;
    }
    return best;
}
static double medium64k_stream(void) { return bench_am_medium_stream(&J, g_buf, 65536, MED_STREAM) / 1048576.0; }
static void medium_figures(void) {
    double m8 = 1e300, m64 = 1e300;
    for (int r = 0; r < 3 * BENCH_RUNS; r++) {
        double v = bench_am_medium_rtt(&J, g_buf, 8192, MED_ITERS);
        if (v < m8) m8 = v;
        v = bench_am_medium_rtt(&J, g_buf, 65536, MED_ITERS);
        if (v < m64) m64 = v;
    }
    double stream = best_of(medium64k_stream, 0);
    if (J.me == 0) {
        bench_print("am_medium8k_rtt", m8, "us");
        bench_print("am_medium64k_rtt", m64, "us");
        bench_print("am_medium64k_stream", stream, "MiB/s");
    }
}

static gex_AD_t g_ad;
static double amo_rtt(void) {
    bench_barrier(&J);
    uint64_t t0 = bench_now_ns(), v = 0;
    if (J.me == 0) {
        for (long i = 0; i < RTT_ITERS; i++)
            gex_Event_Wait(gex_AD_OpNB_U64(g_ad, &v, J.peer, J.peer_seg, GEX_OP_FADD, 1, 0, 0));
        if (v + 1 < (uint64_t)RTT_ITERS) bench_fail(&J, "FADD fetched a wrong value");
    }
    double us = (double)(bench_now_ns() - t0) / RTT_ITERS / 1000.0;
    bench_barrier(&J); /* rank 1 polls in the barrier, serving the atomics */
    return us;
}

static double raw_stream_bw(void) {
    size_t total = (size_t)PUT_BYTES * PUT_COUNT, window = (size_t)g_rcvbuf / 2;
    if (window > STREAM_ACK_EVERY * 4) window = STREAM_ACK_EVERY * 4;
    if (window < 2 * DGRAM) window = 2 * DGRAM;
    uint64_t acked = 0;
    bench_barrier(&J);
    uint64_t t0 = bench_now_ns();
    if (J.me == 0) {
        size_t sent = 0;
        while (sent < total) {
            while (sent - acked + DGRAM > window) raw_recv(&acked, 8);
            size_t n = total - sent < DGRAM ? total - sent : DGRAM;
            raw_send(g_buf, n);
            sent += n;
        }
        while (acked < total) raw_recv(&acked, 8);
    } else {
        uint64_t got = 0, next_ack = STREAM_ACK_EVERY;
        while (got < total) {
            got += (uint64_t)raw_recv(g_buf, DGRAM);
            if (got >= next_ack || got == total) {
                raw_send(&got, 8);
                next_ack = got + STREAM_ACK_EVERY;
            }
        }
    }
    return (double)total / ((double)(bench_now_ns() - t0) / 1e9) / 1048576.0;
}

static double put_bw(void) {
    bench_barrier(&J);
    uint64_t t0 = bench_now_ns();
    if (J.me == 0) {
        for (int i = 0; i < PUT_COUNT; i++)
            gex_RMA_PutNBI(J.tm, J.peer, J.peer_seg, g_buf, PUT_BYTES, GEX_EVENT_DEFER, 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
    }
    double mbs = (double)PUT_BYTES * PUT_COUNT / ((double)(bench_now_ns() - t0) / 1e9) / 1048576.0;
    bench_barrier(&J);
    return mbs;
}

static double raw_send_rate(void) {
    uint64_t v = 0, before = atomic_load(&g_done);
    bench_barrier(&J);
    uint64_t t0 = bench_now_ns();
    double rate = 0;
    if (J.me == 0) {
        for (long i = 0; i < FLOOD_MSGS; i++) raw_send(&v, 8);
        rate = FLOOD_MSGS / ((double)(bench_now_ns() - t0) / 1e9);
        gex_AM_RequestShort0(J.tm, J.peer, H_DONE, 0);
    } else {
        while (atomic_load(&g_done) == before) { /* drain until the sender is done */
            while (recv(g_sock, &v, 8, MSG_DONTWAIT) > 0) {
            }
            gasnet_AMPoll();
        }
        while (recv(g_sock, &v, 8, MSG_DONTWAIT) > 0) {
        }
    }
    bench_barrier(&J);
    return rate;
}

static double am_flood_rate(void) {
    bench_barrier(&J);
    g_flood_last = atomic_load(&g_requests) + FLOOD_MSGS;
    bench_barrier(&J);
    uint64_t t0 = bench_now_ns();
    double rate = 0;
    if (J.me == 0) {
        uint64_t want = atomic_load(&g_replies) + 1;
        for (long i = 0; i < FLOOD_MSGS; i++) gex_AM_RequestShort0(J.tm, J.peer, H_FLOOD, 0);
        GASNET_BLOCKUNTIL(atomic_load(&g_replies) >= want);
        rate = FLOOD_MSGS / ((double)(bench_now_ns() - t0) / 1e9);
    } else {
        GASNET_BLOCKUNTIL(atomic_load(&g_requests) >= g_flood_last);
    }
    bench_barrier(&J);
    return rate;
}


int main(int argc, char **argv) {
    bench_init(&J, &argc, &argv, "BENCH_UDP", 2 * PUT_BYTES, g_table, sizeof g_table / sizeof g_table[0]);
    int lossy = argc > 1 && !strcmp(argv[1], "lossy"), medium = argc > 1 && !strcmp(argv[1], "medium");
    g_buf = calloc(1, PUT_BYTES);
    if (!g_buf) bench_fail(&J, "out of memory");
    if (J.peer == GEX_RANK_INVALID) { /* ranks beyond 2 only join the barriers */
        bench_finish(&J);
    }
    if (lossy) {
        double bw = best_of(put_bw, 0);
        if (J.me == 0) bench_print("put_1m_bw_lossy", bw, "MiB/s");
        bench_finish(&J);
    }
    if (medium) {
        medium_figures();
        bench_finish(&J);
    }
    raw_open();

    gex_AD_Create(&g_ad, J.tm, GEX_DT_U64, GEX_OP_FADD, GEX_FLAG_AD_FAVOR_REMOTE);
    double raw = 1e300, am = 1e300, amo = 1e300;
    for (int r = 0; r < 3 * BENCH_RUNS; r++) {
        double v = raw_rtt();
        if (v < raw) raw = v;
        v = am_rtt();
        if (v < am) am = v;
        memset(J.my_seg, 0, 8);
        v = amo_rtt();
        if (v < amo) amo = v;
    }
    medium_figures();
    double rawbw = best_of(raw_stream_bw, 0), putbw = best_of(put_bw, 0);
    double rawrate = best_of(raw_send_rate, 0), amrate = best_of(am_flood_rate, 0);
    if (J.me == 0) {
        bench_print("raw_udp_rtt", raw, "us");
        bench_print("am_short_rtt", am, "us");
        bench_ratio("am_short_rtt_vs_raw_udp", am / raw, 1, 1.3);
        bench_print("amo_fadd_rtt", amo, "us");
        bench_ratio("amo_fadd_rtt_vs_am_short_rtt", amo / am, 1, 1.2);
        bench_print("raw_udp_stream_bw", rawbw, "MiB/s");
        bench_print("put_1m_bw", putbw, "MiB/s");
        bench_ratio("put_1m_bw_vs_raw_udp", putbw / rawbw, 0, 0.7);
        bench_print("raw_udp_send_rate", rawrate / 1e6, "Mmsg/s");
        bench_print("am_short_flood", amrate / 1e6, "Mmsg/s");
        printf("# am_short_flood / raw_udp_send_rate = %.3f (printed, no target)\n", amrate / rawrate);
    }
    close(g_sock);
    bench_finish(&J);
    return 0;
}
