/* tests/perf/bench_am.c - Active Message benchmarks on 2 processes (run by `make bench`).
 * Layer: tests (client code).
 *
 *   am_short_rtt   gex_AM_RequestShort0 to rank 1, whose handler replies with
 *                  gex_AM_ReplyShort0; rank 0 waits with GASNET_BLOCKUNTIL.
 *   raw_flag_rtt   baseline: the same two processes bounce a counter through two
 *                  cache-line-separated flags (one written by each) in a
 *                  MAP_SHARED|MAP_ANONYMOUS mapping made before gex_Client_Init (so every
 *                  rank inherits it), with no library call.
 *   raw_toggle_rtt baseline: the same, with one flag that each side advances in turn.
 *   raw_toggle_pause_rtt  baseline: the toggle again, with a pause (the spin hint the
 *                  library's idle poll uses) in each wait; on a virtual machine whose
 *                  two vCPUs share a core, that can be the fastest of the three.
 *                  The ratio is taken against the fastest of the raw figures.
 *   am_floor_rtt   reference, not a target: the least an AM round trip can cost, measured
 *                  with a minimal AM protocol written here without the library (one
 *                  64-byte slot in the same mapping, one store publishes a request or a
 *                  reply with its handler index, the receiver calls the handler through a
 *                  table of function pointers with a token, the request handler replies,
 *                  a pause in each empty poll). No checks, no queues, no other peers. Its
 *                  ratio to the raw figure shows what any AM implementation can reach in
 *                  the machine's current state.
 *   am_medium8k_rtt, am_medium64k_rtt  8 KiB and 64 KiB Medium request, Short reply.
 *   am_short_flood    one-way Short requests; the last one's handler replies.
 *   am_med<N>_fixed_rtt / am_med<N>_prepare_rtt  Medium request of N bytes (64: a lane
 *                  slot; 4096: the shared queues), Short reply; the client writes an
 *                  8-byte sequence number into the payload each time, into its own buffer
 *                  for gex_AM_RequestMedium, into the library's buffer between
 *                  gex_AM_PrepareRequestMedium(client_buf NULL) and gex_AM_CommitRequestMedium.
 *                  Target: prepare <= 1.05 x fixed (alternating runs, best of each).
 * Raw and AM runs alternate. The round trips are the best of 5 x BENCH_RUNS short runs
 * (15 by default): on a virtual machine the latency between the two vCPUs changes from
 * one moment to the next, and many short alternating runs let both the baseline and
 * the library meet the same conditions. The other figures are the best of BENCH_RUNS. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* clock_gettime, MAP_ANONYMOUS, posix_memalign under -std=c11 */
#endif
#include "bench_prepare.h"

#include <sys/mman.h>

enum { H_PING = 200, H_PONG, H_MED, H_FLOOD };

#define RTT_WARMUP 4000L
#define RTT_ITERS 40000L
#define RTT_RUNS (5 * BENCH_RUNS)
#define MED_BYTES 65536u
#define MED_WARMUP 500L
#define MED_ITERS 5000L
#define FLOOD_MSGS 500000L
#define RTT_TARGET 1.3

typedef struct {
    _Alignas(64) atomic_uint_fast64_t ping; /* written by rank 0 */
    _Alignas(64) atomic_uint_fast64_t pong; /* written by rank 1 */
    _Alignas(64) atomic_uint_fast64_t toggle; /* odd: rank 0 wrote it, even: rank 1 */
    _Alignas(64) atomic_uint_fast64_t toggle_pause; /* the same, for the run with pauses */
    _Alignas(64) atomic_uint_fast64_t floor_word; /* (seq << 32) | handler index, for am_floor_rtt */
    _Alignas(64) atomic_uint_fast64_t nonce;
} raw_flags_t;

static raw_flags_t *g_raw;
static uint64_t g_raw_seq, g_raw_toggle, g_raw_toggle_pause; /* round trips so far; same on both ranks */

static atomic_uint_fast64_t g_requests, g_replies, g_med_errors;
static uint64_t g_flood_last; /* g_requests value at which the flood handler replies */

static void h_ping(gex_Token_t t) {
    atomic_fetch_add_explicit(&g_requests, 1, memory_order_relaxed);
    gex_AM_ReplyShort0(t, H_PONG, 0);
}

static void h_pong(gex_Token_t t) {
    (void)t;
    atomic_fetch_add_explicit(&g_replies, 1, memory_order_relaxed);
}

static size_t g_med_bytes = MED_BYTES; /* the Medium size of the current am_rtt_run */
static void h_med(gex_Token_t t, void *buf, size_t nbytes) {
    const unsigned char *b = buf;
    if (nbytes != g_med_bytes || b[0] != 0x5a || b[nbytes / 2] != 0x33 || b[nbytes - 1] != 0xa5)
        atomic_fetch_add_explicit(&g_med_errors, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&g_requests, 1, memory_order_relaxed);
    gex_AM_ReplyShort0(t, H_PONG, 0);
}

static void h_flood(gex_Token_t t) {
    uint64_t n = atomic_fetch_add_explicit(&g_requests, 1, memory_order_relaxed) + 1;
    if (n == g_flood_last) gex_AM_ReplyShort0(t, H_PONG, 0);
}

static gex_AM_Entry_t g_handlers[] = {
    {H_PING, (gex_AM_Fn_t)h_ping, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "h_ping"},
    {H_PONG, (gex_AM_Fn_t)h_pong, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "h_pong"},
    {H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "h_med"},
    {H_FLOOD, (gex_AM_Fn_t)h_flood, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "h_flood"},
    BENCH_PREPARE_HANDLERS,
};

/* One timed run of a raw baseline; returns ns per round trip on rank 0. Round trip i:
 * rank 0 stores step*i-(step-1) to `out` and waits for step*i on `in`; rank 1 waits for
 * the first and answers with the second. Two flags: out=ping, in=pong, step 1. One
 * toggled flag: out=in=toggle, step 2 (odd: rank 0 wrote it, even: rank 1). `*done`
 * counts round trips so far, the same on both ranks. Each wait spins on the flag, with
 * gasnett_spinloop_hint() in the loop when `pause`. */
#define RAW_WAIT(flag, value, pause)                                              \
    do {                                                                          \
        if (pause)                                                                \
            while (atomic_load_explicit(flag, memory_order_acquire) != (value)) gasnett_spinloop_hint(); \
        else                                                                      \
            while (atomic_load_explicit(flag, memory_order_acquire) != (value)) {} \
    } while (0)
static double raw_bounce_run(const bench_job_t *j, long iters, atomic_uint_fast64_t *out,
                             atomic_uint_fast64_t *in, uint64_t step, uint64_t *done, int pause) {
    uint64_t base = *done, t0 = 0, t1 = 0;
    *done += RTT_WARMUP + iters;
    bench_barrier(j);
    if (j->me == 0) {
        for (uint64_t i = base + 1; i <= *done; i++) {
            if (i == base + RTT_WARMUP + 1) t0 = bench_now_ns();
            atomic_store_explicit(out, step * i - (step - 1), memory_order_release);
            RAW_WAIT(in, step * i, pause);
        }
        t1 = bench_now_ns();
    } else if (j->me == 1) {
        for (uint64_t i = base + 1; i <= *done; i++) {
            RAW_WAIT(out, step * i - (step - 1), pause);
            atomic_store_explicit(in, step * i, memory_order_release);
        }
    }
    bench_barrier(j);
    return j->me == 0 ? (double)(t1 - t0) / (double)iters : 0.0;
}

/* The minimal AM protocol of am_floor_rtt. Request number i has sequence 2i-1 and its
 * reply 2i; the slot word holds (sequence << 32) | handler index, and only the receiver
 * of a message reads it. The handlers count as h_ping and h_pong do. */
typedef struct {
    uint64_t seq; /* of the message being handled */
    int replied;
} floor_token_t;
typedef void (*floor_fn_t)(floor_token_t *);
static floor_fn_t g_floor_table[256]; /* filled at run time, so calls stay indirect */
static uint64_t g_floor_seq;           /* last sequence number used; same on both ranks */

__attribute__((noinline)) static void floor_reply(floor_token_t *t, unsigned handler) {
    t->replied = 1;
    atomic_store_explicit(&g_raw->floor_word, (t->seq + 1) << 32 | handler, memory_order_release);
}
static void floor_ping(floor_token_t *t) {
    atomic_fetch_add_explicit(&g_requests, 1, memory_order_relaxed);
    floor_reply(t, H_PONG);
}
static void floor_pong(floor_token_t *t) {
    (void)t;
    atomic_fetch_add_explicit(&g_replies, 1, memory_order_relaxed);
}
/* One poll: run the handler of the message with sequence `want` if it has arrived. */
__attribute__((noinline)) static int floor_poll(uint64_t want) {
    uint64_t w = atomic_load_explicit(&g_raw->floor_word, memory_order_acquire);
    if (w >> 32 == want) {
        floor_token_t t = {want, 0};
        g_floor_table[w & 0xff](&t);
        return 1;
    }
    gasnett_spinloop_hint();
    return 0;
}
static double floor_run(const bench_job_t *j, long iters) {
    uint64_t t0 = 0, t1 = 0, base = g_floor_seq;
    g_floor_seq += 2 * (uint64_t)(RTT_WARMUP + iters);
    g_floor_table[H_PING] = floor_ping, g_floor_table[H_PONG] = floor_pong;
    bench_barrier(j);
    if (j->me == 0) {
        uint64_t want = atomic_load(&g_replies);
        for (long i = 1; i <= RTT_WARMUP + iters; i++) {
            if (i == RTT_WARMUP + 1) t0 = bench_now_ns();
            uint64_t seq = base + 2 * (uint64_t)i - 1;
            atomic_store_explicit(&g_raw->floor_word, seq << 32 | H_PING, memory_order_release);
            want++;
            while (atomic_load_explicit(&g_replies, memory_order_acquire) != want) floor_poll(seq + 1);
        }
        t1 = bench_now_ns();
    } else if (j->me == 1) {
        for (long i = 1; i <= RTT_WARMUP + iters; i++)
            while (!floor_poll(base + 2 * (uint64_t)i - 1)) {}
    }
    bench_barrier(j);
    return j->me == 0 ? (double)(t1 - t0) / (double)iters : 0.0;
}

/* One timed run of request/reply round trips (Short, or Medium of g_med_bytes). */
static double am_rtt_run(const bench_job_t *j, long warmup, long iters, const void *medbuf) {
    uint64_t t0 = 0, t1 = 0;
    const size_t medbytes = g_med_bytes;
    uint64_t req_goal = atomic_load(&g_requests) + (uint64_t)(warmup + iters);
    bench_barrier(j);
    if (j->me == 0) {
        uint64_t want = atomic_load(&g_replies);
        for (long i = 0; i < warmup + iters; i++) {
            if (i == warmup) t0 = bench_now_ns();
            if (medbuf)
                gex_AM_RequestMedium0(j->tm, 1, H_MED, medbuf, medbytes, GEX_EVENT_NOW, 0);
            else
                gex_AM_RequestShort0(j->tm, 1, H_PING, 0);
            want++;
            GASNET_BLOCKUNTIL(atomic_load_explicit(&g_replies, memory_order_acquire) == want);
        }
        t1 = bench_now_ns();
    } else if (j->me == 1) {
        GASNET_BLOCKUNTIL(atomic_load_explicit(&g_requests, memory_order_acquire) == req_goal);
    }
    bench_barrier(j);
    return j->me == 0 ? (double)(t1 - t0) / (double)iters : 0.0;
}

/* One run of the one-way flood; returns messages per second on rank 0. */
static double flood_run(const bench_job_t *j, long msgs) {
    uint64_t t0 = 0, t1 = 0;
    g_flood_last = atomic_load(&g_requests) + (uint64_t)msgs;
    bench_barrier(j);
    if (j->me == 0) {
        uint64_t want = atomic_load(&g_replies) + 1;
        t0 = bench_now_ns();
        for (long i = 0; i < msgs; i++) gex_AM_RequestShort0(j->tm, 1, H_FLOOD, 0);
        GASNET_BLOCKUNTIL(atomic_load_explicit(&g_replies, memory_order_acquire) == want);
        t1 = bench_now_ns();
    } else if (j->me == 1) {
        GASNET_BLOCKUNTIL(atomic_load_explicit(&g_requests, memory_order_acquire) == g_flood_last);
    }
    bench_barrier(j);
    return j->me == 0 ? (double)msgs * 1e9 / (double)(t1 - t0) : 0.0;
}

/* The raw mapping must really be shared by ranks 0 and 1 (they are forked after it was
 * made); rank 0 publishes a nonce there and rank 1 compares it with the one it gets
 * through the library. */
static void check_raw_shared(const bench_job_t *j) {
    uint64_t nonce = bench_now_ns() ^ 0x9e3779b97f4a7c15u;
    if (j->me == 0) {
        atomic_store(&g_raw->nonce, nonce);
        memcpy(j->my_seg, &nonce, sizeof nonce);
    }
    bench_barrier(j);
    if (j->me == 1) {
        uint64_t got = 0;
        gex_RMA_GetBlocking(j->tm, &got, 0, j->peer_seg, sizeof got, 0);
        if (got != atomic_load(&g_raw->nonce))
            bench_fail(j, "the MAP_SHARED baseline mapping is not shared between ranks 0 and 1 "
                          "(ranks are not forked from the process that called main)");
    }
    bench_barrier(j);
}

int main(int argc, char **argv) {
    g_raw = mmap(NULL, sizeof(raw_flags_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                 -1, 0);
    if (g_raw == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    bench_job_t job, *j = &job;
    bench_init(j, &argc, &argv, "BENCH_AM", 1u << 20, g_handlers,
               sizeof g_handlers / sizeof g_handlers[0]);
    check_raw_shared(j);
    if (j->me == 0) {
        size_t maxmed = gex_AM_MaxRequestMedium(j->tm, 1, GEX_EVENT_NOW, 0, 0);
        printf("# bench_am (%s): %u processes; round trips best of %d runs, others best of %d;"
               " max request medium %zu\n", BENCH_MODE, (unsigned)j->nranks, RTT_RUNS, BENCH_RUNS,
               maxmed);
        if (maxmed < MED_BYTES) bench_fail(j, "gex_AM_MaxRequestMedium() < 65536");
    }

    double raw = 1e30, tog = 1e30, togp = 1e30, flr = 1e30, am = 1e30, med = 1e30, rate = 0.0;
    for (int r = 0; r < RTT_RUNS; r++) {
        double a = raw_bounce_run(j, RTT_ITERS, &g_raw->ping, &g_raw->pong, 1, &g_raw_seq, 0);
        double t = raw_bounce_run(j, RTT_ITERS, &g_raw->toggle, &g_raw->toggle, 2, &g_raw_toggle, 0);
        double p = raw_bounce_run(j, RTT_ITERS, &g_raw->toggle_pause, &g_raw->toggle_pause, 2,
                                  &g_raw_toggle_pause, 1);
        double f = floor_run(j, RTT_ITERS);
        double b = am_rtt_run(j, RTT_WARMUP, RTT_ITERS, NULL);
        if (a < raw) raw = a;
        if (f < flr) flr = f;
        if (t < tog) tog = t;
        if (p < togp) togp = p;
        if (b < am) am = b;
    }
    double best_raw = raw < tog ? raw : tog;
    if (togp < best_raw) best_raw = togp;
    unsigned char *medbuf = malloc(MED_BYTES);
    if (!medbuf) bench_fail(j, "malloc");
    double med8k = 1e30;
    for (int r = 0; r < BENCH_RUNS; r++) {
        for (size_t bytes = 8192; bytes <= MED_BYTES; bytes *= 8) { /* 8 KiB, then 64 KiB */
            memset(medbuf, 0x11, bytes);
            medbuf[0] = 0x5a, medbuf[bytes / 2] = 0x33, medbuf[bytes - 1] = 0xa5;
            g_med_bytes = bytes;
            double m = am_rtt_run(j, MED_WARMUP, MED_ITERS, medbuf);
            double *best = bytes == MED_BYTES ? &med : &med8k;
            if (m < *best) *best = m;
        }
    }
    static const size_t seq_sizes[2] = {64, 4096};
    double fixed[2] = {1e30, 1e30}, prep[2] = {1e30, 1e30};
    for (int r = 0; r < RTT_RUNS; r++)
        for (int s = 0; s < 2; s++) {
            double f = bench_prepare_rtt_run(j, seq_sizes[s], 0, RTT_WARMUP / 4, RTT_ITERS / 4, medbuf);
            double p = bench_prepare_rtt_run(j, seq_sizes[s], 1, RTT_WARMUP / 4, RTT_ITERS / 4, medbuf);
            if (f < fixed[s]) fixed[s] = f;
            if (p < prep[s]) prep[s] = p;
        }
    (void)flood_run(j, FLOOD_MSGS / 10); /* warm-up */
    for (int r = 0; r < BENCH_RUNS; r++) {
        double f = flood_run(j, FLOOD_MSGS);
        if (f > rate) rate = f;
    }
    if (j->me == 1 && atomic_load(&g_med_errors) + atomic_load(&bench_prepare_errors) != 0)
        bench_fail(j, "AM Medium payload arrived corrupted, with a wrong sequence number or length");
    if (j->me == 0) {
        bench_print("raw_flag_rtt", raw, "ns");
        bench_print("raw_toggle_rtt", tog, "ns");
        bench_print("raw_toggle_pause_rtt", togp, "ns");
        bench_print("am_floor_rtt", flr, "ns");
        bench_print("am_floor_vs_raw", flr / best_raw, "x");
        bench_print("am_short_rtt", am, "ns");
        bench_ratio("am_short_rtt_vs_raw", am / best_raw, 1, RTT_TARGET);
        bench_print("am_medium8k_rtt", med8k, "ns");
        bench_print("am_medium64k_rtt", med, "ns");
        bench_print("am_short_flood", rate, "msgs/s");
        for (int s = 0; s < 2; s++) {
            char name[64];
            snprintf(name, sizeof name, "am_med%zu_fixed_rtt", seq_sizes[s]);
            bench_print(name, fixed[s], "ns");
            snprintf(name, sizeof name, "am_med%zu_prepare_rtt", seq_sizes[s]);
            bench_print(name, prep[s], "ns");
            snprintf(name, sizeof name, "am_med%zu_prepare_vs_fixed", seq_sizes[s]);
            bench_ratio(name, prep[s] / fixed[s], 1, 1.05);
        }
    }
    free(medbuf);
    munmap(g_raw, sizeof(raw_flags_t));
    bench_finish(j);
    return 0;
}
