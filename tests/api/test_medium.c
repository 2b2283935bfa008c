/* tests/api/test_medium.c: the guaranteed Medium size (issue 10): gex_AM_LUB*Medium and
 * gex_AM_Max*Medium are at least 65,536 bytes, and Mediums of 1, 4,096, 8,191, 8,192,
 * 8,193, 16,384, 65,023, 65,025, 65,535 and 65,536 bytes (and the reported maximum, if
 * larger) arrive intact as requests and as replies (sent from the request handler), with
 * every rank sending to rank 0 at once, several messages in flight each, so that messages
 * of different senders interleave at the target; in PAR builds NTHREADS threads of each
 * rank send at once, so that the pieces of split Mediums of one sender interleave too.
 * Each payload has a pattern unique to (sender, thread, round, size); rank 0's request handler checks it and replies with a Medium of
 * the same size and a derived pattern, which the sender's reply handler checks.  The sizes
 * sit at, below and above one network message where a conduit's is smaller than 64 KiB:
 * 8 KiB on mpi (bigger payloads travel apart from the message; tests/api/test_mpimedium.sh
 * counts them), 65,024 bytes on udp (bigger ones are split by the core, gasneti_frag.c).
 * An oversize Medium is refused (tests/api/test_badarg.sh, mode medium-size, in every
 * build).  Layer: tests (public API only).  Run with 1, 2, 4 ranks. */
#include "test_util.h"
#if defined(GASNET_PAR)
#  include <pthread.h>
#  define NTHREADS 3
#else
#  define NTHREADS 1
#endif

#define ROUNDS 20
#define WAIT_SECS 120
#define GUARANTEED ((size_t)65536)
enum { H_REQ = 200, H_REP };

static size_t sizes[12];
static int nsizes;
static long replies[NTHREADS], requests; /* handlers may run on any thread: atomic */

static uint32_t seed_of(gex_Rank_t from, int th, int round, int k) {
    return ((uint32_t)from << 20) ^ ((uint32_t)th << 16) ^ ((uint32_t)round << 8) ^ (uint32_t)k;
}

static void req_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed, gex_AM_Arg_t k, gex_AM_Arg_t th) {
    CHECKF(k >= 0 && k < nsizes && n == sizes[k], "request of %zu bytes, size index %d", n, (int)k);
    CHECK_PAT(buf, n, (uint32_t)seed, "request Medium of %zu bytes", n);
    __atomic_fetch_add(&requests, 1, __ATOMIC_RELAXED);
    /* reply from the request's own payload, re-patterned: the buffer is ours until return */
    test_pat_fill(buf, n, (uint32_t)seed + 1);
    gex_AM_ReplyMedium3(t, H_REP, buf, n, GEX_EVENT_NOW, 0, seed + 1, k, th);
}
static void rep_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed, gex_AM_Arg_t k, gex_AM_Arg_t th) {
    (void)t;
    CHECKF(k >= 0 && k < nsizes && n == sizes[k] && th >= 0 && th < NTHREADS, "reply of %zu bytes, size index %d",
           n, (int)k);
    CHECK_PAT(buf, n, (uint32_t)seed, "reply Medium of %zu bytes", n);
    __atomic_fetch_add(&replies[th], 1, __ATOMIC_RELEASE);
}

/* one sender thread: one Medium of each size per round to rank 0 without waiting, so up
 * to nsizes messages per thread are in flight at once; returns how many it sent */
static void *sender(void *arg) {
    int th = (int)(intptr_t)arg;
    uint8_t *bufs[12];
    for (int k = 0; k < nsizes; k++) {
        bufs[k] = (uint8_t *)malloc(sizes[k]);
        CHECK(bufs[k]);
    }
    long sent = 0;
#define GOT __atomic_load_n(&replies[th], __ATOMIC_ACQUIRE)
    for (int round = 0; round < ROUNDS; round++) {
        for (int k = 0; k < nsizes; k++) {
            uint32_t seed = seed_of(test_rank, th, round, k);
            test_pat_fill(bufs[k], sizes[k], seed);
            gex_AM_RequestMedium3(test_tm, 0, H_REQ, bufs[k], sizes[k], GEX_EVENT_NOW, 0, (gex_AM_Arg_t)seed, k, th);
            sent++;
        }
        if (round % 4 == 3) TEST_POLL_UNTIL(GOT == sent, WAIT_SECS, "thread %d: %ld of %ld replies", th, GOT, sent);
    }
    TEST_POLL_UNTIL(GOT == sent, WAIT_SECS, "thread %d: %ld of %ld replies", th, GOT, sent);
#undef GOT
    for (int k = 0; k < nsizes; k++) free(bufs[k]);
    return (void *)(intptr_t)sent;
}

int main(int argc, char **argv) {
    test_init("test_medium", &argc, &argv);
    gex_AM_Entry_t tab[] = {
        {H_REQ, (gex_AM_Fn_t)req_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 3, NULL, "req"},
        {H_REP, (gex_AM_Fn_t)rep_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 3, NULL, "rep"},
    };
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, sizeof tab / sizeof tab[0]), GASNET_OK);
    test_attach(GASNET_PAGESIZE);

    size_t lub_req = gex_AM_LUBRequestMedium(), lub_rep = gex_AM_LUBReplyMedium();
    size_t max_req = gex_AM_MaxRequestMedium(test_tm, 0, GEX_EVENT_NOW, 0, 3);
    size_t max_rep = gex_AM_MaxReplyMedium(test_tm, 0, GEX_EVENT_NOW, 0, 3);
    size_t max_any = gex_AM_MaxRequestMedium(test_tm, GEX_RANK_INVALID, NULL, 0, gex_AM_MaxArgs());
    CHECKF(lub_req >= GUARANTEED && lub_rep >= GUARANTEED, "LUB Medium %zu / %zu < 65536", lub_req, lub_rep);
    CHECKF(max_req >= GUARANTEED && max_rep >= GUARANTEED && max_any >= GUARANTEED,
           "Max Medium %zu / %zu / %zu < 65536", max_req, max_rep, max_any);
    CHECK(max_req >= lub_req && max_rep >= lub_rep);

    const size_t fixed[] = {1, 4096, 8191, 8192, 8193, 16384, 65023, 65025, 65535, 65536};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) sizes[nsizes++] = fixed[i];
    size_t top = max_req < max_rep ? max_req : max_rep;
    if (top > GUARANTEED) sizes[nsizes++] = top;

    test_barrier();
    /* every rank (rank 0 too) sends from NTHREADS threads at once */
    long sent = 0;
#if NTHREADS > 1
    pthread_t tid[NTHREADS];
    for (int th = 1; th < NTHREADS; th++) CHECK_EQ(pthread_create(&tid[th], NULL, sender, (void *)(intptr_t)th), 0);
#endif
    sent += (long)(intptr_t)sender((void *)(intptr_t)0);
#if NTHREADS > 1
    for (int th = 1; th < NTHREADS; th++) {
        void *r;
        CHECK_EQ(pthread_join(tid[th], &r), 0);
        sent += (long)(intptr_t)r;
    }
#endif
    test_barrier();
    if (test_rank == 0)
        CHECKF(requests == (long)test_size * sent, "rank 0 handled %ld requests, expected %ld", requests,
               (long)test_size * sent);
    test_finish("Mediums of %d sizes up to %zu bytes, %d ranks of %d thread(s) to one, requests and replies checked",
                nsizes, sizes[nsizes - 1], (int)test_size, NTHREADS);
    return 0;
}
