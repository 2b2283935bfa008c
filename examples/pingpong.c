/* examples/pingpong.c - Active Message ping-pong and 8-byte put/get latency.
 *
 * Rank 0 sends a Short AM request to rank 1, whose handler replies; rank 0 waits for the
 * reply and repeats. Then rank 0 times 8-byte blocking puts and gets to rank 1's segment.
 * With more than 2 ranks, the others only take part in the barriers.
 * Build as examples/hello.c; run:  GASNET_PSHM_NODES=4 ./pingpong [iterations] */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <gasnet.h> /* gasnetex.h plus gasnet_AMPoll, GASNET_BLOCKUNTIL, gasnet_exit */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define H_PING 201 /* fixed handler indices (GEX_AM_INDEX_BASE .. 255) */
#define H_PONG 202

static volatile unsigned long pongs; /* changed only by the reply handler */

static void ping_handler(gex_Token_t token) { gex_AM_ReplyShort0(token, H_PONG, 0); }
static void pong_handler(gex_Token_t token) { (void)token; pongs++; }

static double now_us(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void barrier(gex_TM_t tm) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

int main(int argc, char **argv) {
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    gex_AM_Entry_t handlers[] = {
        {H_PING, (gex_AM_Fn_t)ping_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "ping"},
        {H_PONG, (gex_AM_Fn_t)pong_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "pong"},
    };

    if (gex_Client_Init(&client, &ep, &tm, "PINGPONG", &argc, &argv, GEX_FLAG_USES_GASNET1) != GASNET_OK)
        return 1;
    long iters = argc > 1 ? atol(argv[1]) : 10000;
    if (iters < 1) iters = 1;
    if (gex_EP_RegisterHandlers(ep, handlers, sizeof handlers / sizeof handlers[0]) != GASNET_OK ||
        gex_Segment_Attach(&seg, tm, GASNET_PAGESIZE) != GASNET_OK) {
        fprintf(stderr, "pingpong: set-up failed\n");
        gasnet_exit(1);
    }
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    if (n < 2) {
        printf("pingpong needs at least 2 ranks (GASNET_PSHM_NODES=2)\n");
        gasnet_exit(0);
    }
    void *peer_seg = NULL; /* rank 1's segment, as rank 1 sees it: the address RMA takes */
    if (me == 0 && gex_Segment_QueryBound(tm, 1, &peer_seg, NULL, NULL) != 0) gasnet_exit(1);
    barrier(tm); /* handlers are registered everywhere */

    if (me == 0) {
        double t0 = 0;
        for (long i = -iters / 10; i < iters; i++) { /* the first tenth warms up */
            if (i == 0) t0 = now_us();
            unsigned long want = pongs + 1;
            gex_AM_RequestShort0(tm, 1, H_PING, 0);
            GASNET_BLOCKUNTIL(pongs == want);
        }
        printf("AM Short ping-pong: %.3f us average round trip (%ld iterations, %u ranks)\n",
               (now_us() - t0) / iters, iters, (unsigned)n);

        /* 8-byte puts and gets to 64 different words of rank 1's segment */
        uint64_t *words = peer_seg, mirror[64] = {0}, sum = 0, expect = 0;
        t0 = now_us();
        for (long i = 0; i < iters; i++) {
            uint64_t value = (uint64_t)i;
            gex_RMA_PutBlocking(tm, 1, &words[i % 64], &value, sizeof value, 0);
        }
        double put_us = (now_us() - t0) / iters;
        for (long i = 0; i < iters; i++) mirror[i % 64] = (uint64_t)i; /* what the puts left */
        t0 = now_us();
        for (long i = 0; i < iters; i++) {
            uint64_t value;
            gex_RMA_GetBlocking(tm, &value, 1, &words[i % 64], sizeof value, 0);
            sum += value;
        }
        double get_us = (now_us() - t0) / iters;
        for (long i = 0; i < iters; i++) expect += mirror[i % 64];
        if (sum != expect) {
            fprintf(stderr, "pingpong: the gets read wrong values\n");
            gasnet_exit(1);
        }
        printf("8-byte put: %.1f ns, 8-byte get: %.1f ns average latency\n", put_us * 1e3, get_us * 1e3);
        fflush(stdout);
    }
    barrier(tm); /* rank 1 serves the pings while it waits here: waiting polls */
    gasnet_exit(0);
    return 0;
}
