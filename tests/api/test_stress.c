/* tests/api/test_stress.c: every rank floods every other with AMs of random categories
 * and sizes while also doing puts and gets; every payload is checked, nothing may
 * deadlock. Per target, COUNT AMs (default 10,000; argv[1] overrides): Shorts (1, 4 or
 * 16 arguments, each checked), Mediums of 0 to gex_AM_LUBRequestMedium() bytes, Longs of 0
 * to 256 KiB (the biggest ones take mpi-conduit's separate-payload path) to one of
 * LSLOTS slots per sender in the target's segment; a slot is reused only after the
 * target's reply (naming the slot) says its handler checked the bytes. Every 64 AMs, a put of a random
 * size to the sender's own area of the target's segment, then a get of it back, both
 * compared. At the end each sender's count per target (a last Short) must equal what
 * arrived. Layer: tests (public API only).  Meant for 4 ranks, PSHM on and off. */
#include "test_util.h"

#include <string.h>

#define WAIT_SECS 240
#define LSLOTS 8
#define LMAX (256 * 1024)
#define PMAX (128 * 1024)
enum { H_SHORT = 200, H_MED, H_LONG, H_LACK, H_DONE };

static uint8_t *seg;
static uint8_t **peer_seg; /* [rank]: its segment, as it names it */
static size_t per_sender; /* bytes of one sender's area in a segment */
static long *arrived;     /* [sender] */
static long *expect;      /* [sender]: -1 until its done message */
static long *lacks;       /* [target]: Long acknowledgements back */
static volatile uint8_t *busy; /* [target * LSLOTS + slot]: a Long there is not yet checked */
static gex_HSL_t lock = GEX_HSL_INITIALIZER;

static uint64_t seed(gex_Rank_t from, uint32_t num) { return test_mix64(((uint64_t)from << 32) | num); }
static uint8_t *area(gex_Rank_t sender) { return seg + (size_t)sender * per_sender; }

static void count(gex_Rank_t from) {
    gex_HSL_Lock(&lock);
    arrived[from]++;
    gex_HSL_Unlock(&lock);
}
static gex_Rank_t src_of(gex_Token_t t) {
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    return ti.gex_srcrank;
}

/* Shorts of every argument count: arg0 the number, the others derived from it */
#define SHORT_BODY(nargs, ...)                                                            \
    do {                                                                                  \
        gex_AM_Arg_t a[] = {__VA_ARGS__};                                                 \
        gex_Rank_t from = src_of(t);                                                      \
        for (int i = 1; i < (nargs); i++)                                                 \
            CHECK_EQ((uint32_t)a[i], (uint32_t)(seed(from, (uint32_t)a[0]) >> i));        \
        count(from);                                                                      \
    } while (0)
static void sh1(gex_Token_t t, gex_AM_Arg_t a0) { SHORT_BODY(1, a0); }
static void sh4(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3) {
    SHORT_BODY(4, a0, a1, a2, a3);
}
static void sh16(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3,
                 gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8,
                 gex_AM_Arg_t a9, gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13,
                 gex_AM_Arg_t a14, gex_AM_Arg_t a15) {
    SHORT_BODY(16, a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15);
}
static void med_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t num, gex_AM_Arg_t len) {
    gex_Rank_t from = src_of(t);
    CHECK_EQ(n, (uint32_t)len);
    CHECK_PAT(buf, n, seed(from, (uint32_t)num), "Medium %d of %zu bytes from rank %u", (int)num, n, (unsigned)from);
    count(from);
}
static void long_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t num, gex_AM_Arg_t slot) {
    gex_Rank_t from = src_of(t);
    CHECK(buf == area(from) + (size_t)slot * LMAX);
    CHECK_PAT(buf, n, seed(from, (uint32_t)num), "Long %d of %zu bytes from rank %u", (int)num, n, (unsigned)from);
    count(from);
    gex_AM_ReplyShort1(t, H_LACK, 0, slot);
}
static void lack_handler(gex_Token_t t, gex_AM_Arg_t slot) {
    gex_Rank_t from = src_of(t);
    gex_HSL_Lock(&lock);
    lacks[from]++;
    busy[from * LSLOTS + (unsigned)slot] = 0;
    gex_HSL_Unlock(&lock);
}
static void done_handler(gex_Token_t t, gex_AM_Arg_t n) {
    gex_Rank_t from = src_of(t);
    gex_HSL_Lock(&lock);
    expect[from] = n;
    gex_HSL_Unlock(&lock);
}

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return n ? (uint32_t)(rng % n) : 0;
}

int main(int argc, char **argv) {
    test_init("test_stress", &argc, &argv);
    long total = argc > 1 ? atol(argv[1]) : 10000;
    CHECK(total > 0);
    gex_AM_Entry_t h[] = {
        {H_SHORT, (gex_AM_Fn_t)sh1, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, "sh1"},
        {H_SHORT + 10, (gex_AM_Fn_t)sh4, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 4, NULL, "sh4"},
        {H_SHORT + 11, (gex_AM_Fn_t)sh16, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 16, NULL, "sh16"},
        {H_MED, (gex_AM_Fn_t)med_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 2, NULL, "med"},
        {H_LONG, (gex_AM_Fn_t)long_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 2, NULL, "long"},
        {H_LACK, (gex_AM_Fn_t)lack_handler, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 1, NULL, "lack"},
        {H_DONE, (gex_AM_Fn_t)done_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, "done"},
    };
    CHECK(gex_EP_RegisterHandlers(test_ep, h, sizeof(h) / sizeof(h[0])) == GASNET_OK);
    gex_Rank_t n = test_size, me = test_rank;
    per_sender = (size_t)LSLOTS * LMAX + PMAX;
    gex_Segment_t s = test_attach(per_sender * n);
    seg = gex_Segment_QueryAddr(s);
    peer_seg = calloc(n, sizeof(uint8_t *));
    CHECK(peer_seg != NULL);
    for (gex_Rank_t r = 0; r < n; r++) {
        void *a = NULL;
        CHECK(gex_Segment_QueryBound(test_tm, r, &a, NULL, NULL) == 0);
        peer_seg[r] = a;
    }
    arrived = calloc(n, sizeof(long));
    expect = malloc(n * sizeof(long));
    lacks = calloc(n, sizeof(long));
    busy = calloc((size_t)n * LSLOTS, 1);
    CHECK(busy != NULL);
    long *sent = calloc(n, sizeof(long)), *longs = calloc(n, sizeof(long));
    size_t medmax = gex_AM_LUBRequestMedium();
    CHECK(medmax >= 65536);
    uint8_t *buf = malloc(LMAX > medmax ? LMAX : medmax), *pbuf = malloc(PMAX), *gbuf = malloc(PMAX);
    CHECK(buf && pbuf && gbuf && arrived && expect && lacks && sent && longs);
    for (gex_Rank_t r = 0; r < n; r++) expect[r] = -1;
    rng ^= test_mix64(me + 1);
    test_barrier();
    double t0 = test_now();
    long puts = 0;
    for (long i = 0; i < total; i++) {
        for (gex_Rank_t k = 1; k < n; k++) {
            gex_Rank_t tgt = (me + k) % n;
            uint32_t num = (uint32_t)sent[tgt];
            uint64_t sd = seed(me, num);
            uint32_t kind = rnd(10);
            if (kind < 3) {
                uint32_t a[16];
                for (int j = 1; j < 16; j++) a[j] = (uint32_t)(sd >> j);
                if (kind == 0) gex_AM_RequestShort1(test_tm, tgt, H_SHORT, 0, num);
                else if (kind == 1) gex_AM_RequestShort4(test_tm, tgt, H_SHORT + 10, 0, num, a[1], a[2], a[3]);
                else
                    gex_AM_RequestShort16(test_tm, tgt, H_SHORT + 11, 0, num, a[1], a[2], a[3], a[4], a[5], a[6],
                                          a[7], a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
            } else if (kind < 7) {
                size_t len = rnd(16) ? rnd(2048) : rnd((uint32_t)medmax + 1);
                test_pat_fill(buf, len, sd);
                gex_AM_RequestMedium2(test_tm, tgt, H_MED, buf, len, GEX_EVENT_NOW, 0, num, (gex_AM_Arg_t)len);
            } else {
                size_t len = rnd(16) ? rnd(16384) : rnd(LMAX + 1);
                uint32_t slot = (uint32_t)(longs[tgt] % LSLOTS);
                /* the slot's previous Long has been checked by the target (AMs may arrive in
                 * any order: the acknowledgement names the slot) */
                TEST_POLL_UNTIL(!busy[tgt * LSLOTS + slot], WAIT_SECS, "Long ack from rank %u", (unsigned)tgt);
                busy[tgt * LSLOTS + slot] = 1;
                test_pat_fill(buf, len, sd);
                gex_AM_RequestLong2(test_tm, tgt, H_LONG, buf, len, peer_seg[tgt] + (size_t)me * per_sender + (size_t)slot * LMAX, GEX_EVENT_NOW, 0,
                                    num, slot);
                longs[tgt]++;
            }
            sent[tgt]++;
            if ((i & 63) == (int)k) { /* a put and a get back of my area at the target */
                size_t len = 1 + rnd(PMAX);
                uint8_t *dst = peer_seg[tgt] + (size_t)me * per_sender + (size_t)LSLOTS * LMAX;
                test_pat_fill(pbuf, len, sd ^ 0xabcdefull);
                gex_RMA_PutBlocking(test_tm, tgt, dst, pbuf, len, 0);
                memset(gbuf, 0, len);
                gex_RMA_GetBlocking(test_tm, gbuf, tgt, dst, len, 0);
                CHECKF(!memcmp(gbuf, pbuf, len), "put/get of %zu bytes to rank %u", len, (unsigned)tgt);
                puts++;
            }
        }
    }
    for (gex_Rank_t k = 1; k < n; k++) {
        gex_Rank_t tgt = (me + k) % n;
        gex_AM_RequestShort1(test_tm, tgt, H_DONE, 0, (gex_AM_Arg_t)sent[tgt]);
    }
    for (gex_Rank_t k = 1; k < n; k++) {
        gex_Rank_t from = (me + k) % n;
        TEST_POLL_UNTIL(expect[from] >= 0 && arrived[from] == expect[from] && lacks[from] == longs[from], WAIT_SECS,
                        "from rank %u: %ld of %ld AMs arrived", (unsigned)from, arrived[from], expect[from]);
    }
    double dt = test_now() - t0;
    test_finish("%ld AMs to each of %u peers, %ld put/get pairs per rank, %.1f s", total, (unsigned)(n - 1), puts, dt);
    return 0;
}
