/* tests/api/test_threads.c: many client threads communicating at once (PAR builds; a
 * SEQ build runs the same rounds on one thread).  Each of NTHREADS threads per process,
 * for ROUNDS rounds, with a peer that changes every round (itself included):
 *   - fixed-payload and negotiated-payload Medium requests with a pattern unique to
 *     (rank, thread, round), checked in the handler, acknowledged by a Short reply to the
 *     sending thread's counter;
 *   - a Long request into the thread's own region of the peer's segment, checked there;
 *   - NB put of a block into that region, NB get back, compared byte by byte;
 *   - an NBI access region of puts of several pieces and then gets of them, synced
 *     through the region's event, compared byte by byte; NBI puts/gets synced by
 *     gex_NBI_Wait too.
 * Every thread writes only its own region of every segment, so any corruption is the
 * library's.  Run with GASNET_RMA_NBRHD_BYPASS=0 as well (RMA through AMs, polled by all
 * threads at once).  Clean under ThreadSanitizer: `make check-tsan`.
 * Layer: tests (public API only).  Run with 1, 2, 4 ranks. */
#include "test_util.h"
#if defined(GASNET_PAR)
#  include <pthread.h>
#  define NTHREADS 4
#else
#  define NTHREADS 1
#endif

#define ROUNDS 200
#define REG ((size_t)32768) /* per (sender rank, thread) region of each segment */
#define MEDSZ 1000
#define PIECES 4
#define WAIT_SECS 120
enum { H_MED = 200, H_LONG, H_ACK };

static uint8_t **peer_seg;
static uint8_t *my_seg;
static gasnett_atomic_t acks[NTHREADS];
static gasnett_atomic_t handled;

static uint32_t seed_of(gex_Rank_t r, int t, int round, int what) {
    return ((uint32_t)r << 20) ^ ((uint32_t)t << 16) ^ ((uint32_t)round << 4) ^ (uint32_t)what;
}

/* a0 = sender rank, a1 = sender thread, a2 = seed */
static void med_handler(gex_Token_t tok, void *buf, size_t n, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2) {
    CHECK_PAT(buf, n, (uint64_t)(uint32_t)a2, "Medium of %zu bytes from rank %d thread %d", n, (int)a0, (int)a1);
    gasnett_atomic_increment(&handled, 0);
    gex_AM_ReplyShort1(tok, H_ACK, 0, a1);
}
static void long_handler(gex_Token_t tok, void *buf, size_t n, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2) {
    CHECK(buf == my_seg + ((size_t)a0 * NTHREADS + (size_t)a1) * REG);
    CHECK_PAT(buf, n, (uint64_t)(uint32_t)a2, "Long of %zu bytes from rank %d thread %d", n, (int)a0, (int)a1);
    gasnett_atomic_increment(&handled, 0);
    gex_AM_ReplyShort1(tok, H_ACK, 0, a1);
}
static void ack_handler(gex_Token_t tok, gex_AM_Arg_t t) {
    (void)tok;
    gasnett_atomic_increment(&acks[t], 0);
}

static void *thread_main(void *arg) {
    int t = (int)(intptr_t)arg;
    uint8_t *src = (uint8_t *)malloc(REG), *back = (uint8_t *)malloc(REG), *med = (uint8_t *)malloc(MEDSZ);
    CHECK(src && back && med);
    long sent = 0;
    for (int round = 0; round < ROUNDS; round++) {
        gex_Rank_t peer = (gex_Rank_t)((test_rank + round + t) % test_size);
        uint8_t *region = peer_seg[peer] + ((size_t)test_rank * NTHREADS + (size_t)t) * REG;
        /* AMs: fixed Medium, negotiated Medium, Long into my region of the peer */
        uint32_t s1 = seed_of(test_rank, t, round, 1), s2 = seed_of(test_rank, t, round, 2);
        uint32_t s3 = seed_of(test_rank, t, round, 3);
        test_pat_fill(med, MEDSZ, s1);
        gex_AM_RequestMedium3(test_tm, peer, H_MED, med, MEDSZ, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)test_rank, t,
                              (gex_AM_Arg_t)s1);
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(test_tm, peer, NULL, MEDSZ, MEDSZ, NULL, 0, 3);
        test_pat_fill(gex_AM_SrcDescAddr(sd), MEDSZ, s2);
        gex_AM_CommitRequestMedium3(sd, H_MED, MEDSZ, (gex_AM_Arg_t)test_rank, t, (gex_AM_Arg_t)s2);
        size_t ln = 1 + (size_t)(round * 977) % (REG - 1);
        test_pat_fill(src, ln, s3);
        gex_AM_RequestLong3(test_tm, peer, H_LONG, src, ln, region, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)test_rank, t,
                            (gex_AM_Arg_t)s3);
        sent += 3;
        /* the Long's handler must have run before the region is overwritten by RMA */
        TEST_POLL_UNTIL(gasnett_atomic_read(&acks[t], 0) == (gasnett_atomic_val_t)sent, WAIT_SECS,
                        "thread %d: %ld of %ld acknowledgements", t, (long)gasnett_atomic_read(&acks[t], 0), sent);

        /* NB put and get of one block */
        uint32_t s4 = seed_of(test_rank, t, round, 4);
        size_t bn = REG / 2 + (size_t)round * 13;
        test_pat_fill(src, bn, s4);
        gex_Event_t ev = gex_RMA_PutNB(test_tm, peer, region, src, bn, GEX_EVENT_DEFER, 0);
        gex_Event_Wait(ev);
        memset(back, 0, bn);
        ev = gex_RMA_GetNB(test_tm, back, peer, region, bn, 0);
        gex_Event_Wait(ev);
        CHECK_PAT(back, bn, s4, "thread %d round %d: NB get of %zu bytes from rank %u", t, round, bn, (unsigned)peer);

        /* an access region: PIECES NBI puts, synced by the region's event, then gets */
        uint32_t s5 = seed_of(test_rank, t, round, 5);
        test_pat_fill(src, REG, s5);
        size_t piece = REG / PIECES;
        gex_NBI_BeginAccessRegion(0);
        for (int p = 0; p < PIECES; p++)
            gex_RMA_PutNBI(test_tm, peer, region + p * piece, src + p * piece, piece, GEX_EVENT_DEFER, 0);
        ev = gex_NBI_EndAccessRegion(0);
        gex_Event_Wait(ev);
        memset(back, 0, REG);
        gex_NBI_BeginAccessRegion(0);
        for (int p = PIECES - 1; p >= 0; p--) gex_RMA_GetNBI(test_tm, back + p * piece, peer, region + p * piece, piece, 0);
        ev = gex_NBI_EndAccessRegion(0);
        gex_Event_Wait(ev);
        CHECK_PAT(back, REG, s5, "thread %d round %d: access-region gets from rank %u", t, round, (unsigned)peer);

        /* plain NBI, synced by gex_NBI_Wait */
        uint32_t s6 = seed_of(test_rank, t, round, 6);
        test_pat_fill(src, piece, s6);
        gex_RMA_PutNBI(test_tm, peer, region, src, piece, GEX_EVENT_GROUP, 0);
        gex_NBI_Wait(GEX_EC_PUT | GEX_EC_LC, 0);
        memset(back, 0, piece);
        gex_RMA_GetNBI(test_tm, back, peer, region, piece, 0);
        gex_NBI_Wait(GEX_EC_GET, 0);
        CHECK_PAT(back, piece, s6, "thread %d round %d: NBI get from rank %u", t, round, (unsigned)peer);
    }
    free(src), free(back), free(med);
    return NULL;
}

int main(int argc, char **argv) {
    test_init("test_threads", &argc, &argv);
    gex_AM_Entry_t tab[] = {
        {H_MED, (gex_AM_Fn_t)med_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 3, NULL, "med"},
        {H_LONG, (gex_AM_Fn_t)long_handler, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 3, NULL, "long"},
        {H_ACK, (gex_AM_Fn_t)ack_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "ack"},
    };
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, sizeof tab / sizeof tab[0]), GASNET_OK);
    test_attach((uintptr_t)test_size * NTHREADS * REG);
    peer_seg = (uint8_t **)calloc(test_size, sizeof(uint8_t *));
    CHECK(peer_seg);
    for (gex_Rank_t r = 0; r < test_size; r++) {
        void *own = NULL;
        CHECK_EQ(gex_Segment_QueryBound(test_tm, r, &own, NULL, NULL), 0);
        peer_seg[r] = (uint8_t *)own;
    }
    my_seg = peer_seg[test_rank];
    for (int t = 0; t < NTHREADS; t++) gasnett_atomic_set(&acks[t], 0, 0);
    gasnett_atomic_set(&handled, 0, 0);
    test_barrier();
#if defined(GASNET_PAR)
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) CHECK_EQ(pthread_create(&th[t], NULL, thread_main, (void *)(intptr_t)t), 0);
    for (int t = 0; t < NTHREADS; t++) CHECK_EQ(pthread_join(th[t], NULL), 0);
#else
    thread_main((void *)(intptr_t)0);
#endif
    test_barrier(); /* every request of every rank was acknowledged, so handled */
    /* each rank sent 3 AMs per thread per round, spread over peers; in total each rank
     * handled what the others addressed to it: count the peers that picked me */
    long want = 0;
    for (gex_Rank_t r = 0; r < test_size; r++)
        for (int t = 0; t < NTHREADS; t++)
            for (int round = 0; round < ROUNDS; round++)
                if ((r + (gex_Rank_t)round + (gex_Rank_t)t) % test_size == test_rank) want += 3;
    CHECK_EQ((long)gasnett_atomic_read(&handled, 0), want);
    test_finish("%d threads x %d rounds of AMs, NB, NBI and access regions checked", NTHREADS, ROUNDS);
    return 0;
}
