/* tests/api/test_amcount.c: every AM arrives exactly once, also when the network loses,
 * duplicates and reorders datagrams (run under other/udp_fault_shim.c on udp).
 * Every rank sends its share of TOTAL (default 100,000; argv[1] overrides) AMs,
 * round-robin over every rank including itself, cycling through Short, Medium (small and
 * one network datagram or more) and Long, each numbered. The target marks each number in
 * a bitmap per sender: a number seen twice fails at once; at the end each sender's count
 * to each target (sent as a last Short) must equal the numbers marked, every one of them.
 * Payloads carry a pattern unique to (sender, number), checked on arrival.
 * Layer: tests (public API only).  1, 2, 4 ranks, seq and par. */
#include "test_util.h"

#include <string.h>

#define WAIT_SECS 240
#define BIGMED 65536 /* the guaranteed Medium: more than one udp datagram, split and reassembled by the core */
enum { H_SHORT = 200, H_MED, H_LONG, H_DONE };

static uint8_t **seen;     /* [sender][number / 8] */
static long *seen_count;   /* [sender] */
static long *expect_count; /* [sender]: -1 until its done message arrived */
static uint8_t *srcbuf;
static uint8_t *seg;
static size_t per_target_max;
static gex_HSL_t lock = GEX_HSL_INITIALIZER;

static uint64_t seed_of(gex_Rank_t from, uint32_t num) { return ((uint64_t)from << 32) | num; }

static void mark(gex_Token_t t, uint32_t num) {
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    gex_Rank_t src = ti.gex_srcrank;
    CHECKF(num < per_target_max, "AM number %u from rank %u out of range", num, (unsigned)src);
    gex_HSL_Lock(&lock);
    uint8_t bit = (uint8_t)(1u << (num & 7));
    int dup = (seen[src][num >> 3] & bit) != 0;
    seen[src][num >> 3] |= bit;
    seen_count[src]++;
    gex_HSL_Unlock(&lock);
    CHECKF(!dup, "AM number %u from rank %u arrived twice", num, (unsigned)src);
}

static void short_handler(gex_Token_t t, gex_AM_Arg_t num, gex_AM_Arg_t check) {
    CHECK_EQ((uint32_t)check, (uint32_t)test_mix64(num));
    mark(t, (uint32_t)num);
}
static void med_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t num, gex_AM_Arg_t from) {
    CHECK_PAT(buf, n, seed_of((gex_Rank_t)from, (uint32_t)num), "Medium %u of %zu bytes from %d", (unsigned)num, n,
              (int)from);
    mark(t, (uint32_t)num);
}
static void long_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t num, gex_AM_Arg_t from) {
    /* each sender writes its own slot of the target's segment; several Longs from one
     * sender may overwrite each other there before their handlers run, so only the
     * length and the place are checked, not the bytes */
    CHECK(buf == seg + (size_t)from * 4096);
    CHECK(n > 0 && n <= 4096);
    (void)num;
    mark(t, (uint32_t)num);
}
static void done_handler(gex_Token_t t, gex_AM_Arg_t from, gex_AM_Arg_t count) {
    (void)t;
    gex_HSL_Lock(&lock);
    expect_count[from] = count;
    gex_HSL_Unlock(&lock);
}

static int all_arrived(void) {
    int ok = 1;
    gex_HSL_Lock(&lock);
    for (gex_Rank_t r = 0; r < test_size; r++)
        if (expect_count[r] < 0 || seen_count[r] != expect_count[r]) ok = 0;
    gex_HSL_Unlock(&lock);
    return ok;
}

int main(int argc, char **argv) {
    test_init("test_amcount", &argc, &argv);
    long total = argc > 1 ? atol(argv[1]) : 100000;
    CHECKF(total > 0, "bad count %s", argv[1]);
    gex_AM_Entry_t tab[] = {
        {H_SHORT, (gex_AM_Fn_t)short_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "short"},
        {H_MED, (gex_AM_Fn_t)med_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "med"},
        {H_LONG, (gex_AM_Fn_t)long_handler, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "long"},
        {H_DONE, (gex_AM_Fn_t)done_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "done"},
    };
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, sizeof tab / sizeof tab[0]), GASNET_OK);
    test_attach((size_t)test_size * 4096);
    CHECK_EQ(gex_Segment_QueryBound(test_tm, test_rank, (void **)&seg, NULL, NULL), 0);

    long mine = total / test_size + (test_rank < total % test_size);
    per_target_max = (size_t)(mine / test_size + 2);
    seen = calloc(test_size, sizeof(*seen));
    seen_count = calloc(test_size, sizeof(long));
    expect_count = malloc(test_size * sizeof(long));
    long *sent_to = calloc(test_size, sizeof(long));
    uint8_t **peer_seg = calloc(test_size, sizeof(*peer_seg)); /* each target's segment, in its own addresses */
    CHECK(peer_seg);
    for (gex_Rank_t r = 0; r < test_size; r++)
        CHECK_EQ(gex_Segment_QueryBound(test_tm, r, (void **)&peer_seg[r], NULL, NULL), 0);
    srcbuf = malloc(BIGMED);
    CHECK(seen && seen_count && expect_count && sent_to && srcbuf);
    for (gex_Rank_t r = 0; r < test_size; r++) {
        seen[r] = calloc(per_target_max / 8 + 1, 1);
        CHECK(seen[r]);
        expect_count[r] = -1;
    }
    test_barrier();

    for (long i = 0; i < mine; i++) {
        gex_Rank_t to = (gex_Rank_t)((test_rank + i) % test_size);
        uint32_t num = (uint32_t)sent_to[to]++;
        switch (i % 8) {
            case 0: case 1: case 2: case 3:
                gex_AM_RequestShort2(test_tm, to, H_SHORT, 0, (gex_AM_Arg_t)num, (gex_AM_Arg_t)test_mix64(num));
                break;
            case 4: case 5: case 6: {
                size_t n = i % 8 == 6 && i % 64 == 6 ? BIGMED : 1 + (size_t)(test_mix64((uint64_t)i) % 1500);
                test_pat_fill(srcbuf, n, seed_of(test_rank, num));
                gex_AM_RequestMedium2(test_tm, to, H_MED, srcbuf, n, GEX_EVENT_NOW, 0, (gex_AM_Arg_t)num,
                                      (gex_AM_Arg_t)test_rank);
                break;
            }
            default: {
                size_t n = 1 + (size_t)(test_mix64((uint64_t)i) % 4096);
                test_pat_fill(srcbuf, n, seed_of(test_rank, num));
                gex_AM_RequestLong2(test_tm, to, H_LONG, srcbuf, n, peer_seg[to] + (size_t)test_rank * 4096, GEX_EVENT_NOW,
                                    0, (gex_AM_Arg_t)num, (gex_AM_Arg_t)test_rank);
                break;
            }
        }
        if (!(i & 63)) gasnet_AMPoll();
    }
    for (gex_Rank_t r = 0; r < test_size; r++)
        gex_AM_RequestShort2(test_tm, r, H_DONE, 0, (gex_AM_Arg_t)test_rank, (gex_AM_Arg_t)sent_to[r]);
    TEST_POLL_UNTIL(all_arrived(), WAIT_SECS, "not every AM arrived");
    test_barrier();
    /* a late duplicate would fail in mark(): give one a moment to show up */
    double t0 = test_now();
    while (test_now() - t0 < 0.2) gasnet_AMPoll();
    CHECK(all_arrived());
    test_finish("%ld AMs (Short, Medium up to %d bytes, Long) each arrived exactly once", total, BIGMED);
    return 0;
}
