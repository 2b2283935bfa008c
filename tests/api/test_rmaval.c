/* tests/api/test_rmaval.c: the value-based RMA calls gex_RMA_{PutBlocking,PutNB,PutNBI}Val
 * and gex_RMA_GetBlockingVal for every nbytes from 1 to 8 (1, 2, 4, 8 as native integers of
 * that width, the others as the low-order bytes in host byte order), aligned and unaligned,
 * to every rank including itself. Each (round, sender, target, call, size) writes its own
 * value into its own slot, so a lost, misplaced or wrong-width write shows: values are read
 * back with GetBlockingVal, then checked with plain loads after a barrier, slot guards too.
 * Layer: tests (public API only). Run with 1, 2, 4 ranks, and with GASNET_RMA_NBRHD_BYPASS=0. */
#include "test_util.h"

#define NCALLS 4  /* PutBlockingVal, PutNBVal, PutNBIVal, PutNBVal with IMMEDIATE */
#define NSIZES 8  /* nbytes 1..8 */
#define SLOT 32   /* bytes per (sender, call, size): guards around an 8-byte value */
#define ROUNDS 3
#define WAIT_SECS 60

static const char *const call_name[NCALLS] = { "gex_RMA_PutBlockingVal", "gex_RMA_PutNBVal", "gex_RMA_PutNBIVal",
                                               "gex_RMA_PutNBVal(IMMEDIATE)" };
static uint8_t *myseg;
static size_t region; /* bytes written by one sender into each target */
static uint8_t **segbase; /* every rank's segment base (owner address) */
static long n_puts, n_gets;

_Static_assert(sizeof(gex_RMA_Value_t) == 8 && SIZEOF_GEX_RMA_VALUE_T == 8, "the test assumes 8-byte values");

static size_t slot_off(gex_Rank_t sender, int call, size_t n) {
    return (size_t)sender * region + ((size_t)call * NSIZES + (n - 1)) * SLOT;
}
/* where the value starts in its slot: aligned for some, not for others */
static size_t val_mis(gex_Rank_t sender, int call, size_t n, int round) {
    return 8 + ((size_t)sender + (size_t)call + n + (size_t)round) % 4 * ((n & 1) ? 1 : n / 2);
}
static gex_RMA_Value_t val_of(int round, gex_Rank_t sender, gex_Rank_t target, int call, size_t n) {
    return test_mix64(0x7A1000ull ^ ((uint64_t)round << 56) ^ ((uint64_t)sender << 40) ^ ((uint64_t)target << 24) ^
                      ((uint64_t)call << 8) ^ n);
}
static uint64_t guard_seed(int round, gex_Rank_t target) { return 0x6A7D0000ull + (uint64_t)round * 1000 + target; }

static gex_RMA_Value_t low_bits(gex_RMA_Value_t v, size_t n) { return n == 8 ? v : v & ((1ull << (8 * n)) - 1); }

/* the n bytes a value of width n occupies in memory, computed by shifts (not by the library's method) */
static void value_bytes(gex_RMA_Value_t v, size_t n, uint8_t *out) {
    for (size_t i = 0; i < n; i++) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        out[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
#else
        out[i] = (uint8_t)(v >> (8 * i));
#endif
    }
}
/* the value that n bytes in memory hold, read the other way round: typed loads for 1, 2, 4, 8 */
static gex_RMA_Value_t typed_load(const uint8_t *p, size_t n) {
    uint8_t b[8];
    switch (n) {
    case 1: return *p;
    case 2: { uint16_t t; memcpy(&t, p, 2); return t; }
    case 4: { uint32_t t; memcpy(&t, p, 4); return t; }
    case 8: { uint64_t t; memcpy(&t, p, 8); return t; }
    }
    gex_RMA_Value_t v = 0;
    memcpy(b, p, n);
    for (size_t i = 0; i < n; i++) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = (v << 8) | b[i];
#else
        v |= (gex_RMA_Value_t)b[i] << (8 * i);
#endif
    }
    return v;
}

/* everything sender wrote into target's segment in this round, as it must look */
static void expected_region(int round, gex_Rank_t sender, gex_Rank_t target, uint8_t *img) {
    test_pat_fill(img, region, guard_seed(round, target) + (uint64_t)sender * 7919);
    for (int c = 0; c < NCALLS; c++)
        for (size_t n = 1; n <= NSIZES; n++)
            value_bytes(low_bits(val_of(round, sender, target, c, n), n), n,
                        img + slot_off(0, c, n) + val_mis(sender, c, n, round));
}

static void put_round(int round, gex_Rank_t t) {
    gex_Event_t evs[2 * NSIZES];
    int nev = 0;
    for (int c = 0; c < NCALLS; c++) {
        for (size_t n = 1; n <= NSIZES; n++) {
            uint8_t *dst = segbase[t] + slot_off(test_rank, c, n) + val_mis(test_rank, c, n, round);
            gex_RMA_Value_t v = val_of(round, test_rank, t, c, n); /* high bytes beyond n must be ignored */
            switch (c) {
            case 0:
                CHECKF(gex_RMA_PutBlockingVal(test_tm, t, dst, v, n, 0) == 0, "%s of %zu bytes to rank %u",
                       call_name[c], n, (unsigned)t);
                break;
            case 1: {
                gex_Event_t ev = gex_RMA_PutNBVal(test_tm, t, dst, v, n, 0);
                CHECKF(ev != GEX_EVENT_NO_OP, "%s of %zu bytes to rank %u returned GEX_EVENT_NO_OP without IMMEDIATE",
                       call_name[c], n, (unsigned)t);
                evs[nev++] = ev;
                break;
            }
            case 2:
                CHECKF(gex_RMA_PutNBIVal(test_tm, t, dst, v, n, 0) == 0, "%s of %zu bytes to rank %u", call_name[c],
                       n, (unsigned)t);
                break;
            case 3: {
                /* IMMEDIATE may decline (GEX_EVENT_NO_OP); then nothing was written and we retry without it */
                gex_Event_t ev = gex_RMA_PutNBVal(test_tm, t, dst, v, n, GEX_FLAG_IMMEDIATE);
                if (ev == GEX_EVENT_NO_OP) ev = gex_RMA_PutNBVal(test_tm, t, dst, v, n, 0);
                CHECK(ev != GEX_EVENT_NO_OP);
                evs[nev++] = ev;
                break;
            }
            }
            n_puts++;
        }
    }
    /* the value lived on our stack: it was copied before the calls returned, so scribbling
     * over our own copies now changes nothing. Sync half the events one by one. */
    for (int i = 0; i < nev / 2; i++) {
        if (i & 1) gex_Event_Wait(evs[i]);
        else TEST_POLL_UNTIL(gex_Event_Test(evs[i]) == 0, WAIT_SECS, "gex_RMA_PutNBVal event %d to rank %u", i,
                             (unsigned)t);
    }
    gex_Event_WaitAll(evs + nev / 2, (size_t)(nev - nev / 2), 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    CHECK_EQ(gex_NBI_Test(GEX_EC_ALL, 0), 0);
}

/* read back what I wrote with GetBlockingVal: every width at every slot */
static void get_round(int round, gex_Rank_t t, const uint8_t *img) {
    for (int c = 0; c < NCALLS; c++) {
        for (size_t n = 1; n <= NSIZES; n++) {
            const size_t off = slot_off(test_rank, c, n) + val_mis(test_rank, c, n, round);
            gex_RMA_Value_t want = low_bits(val_of(round, test_rank, t, c, n), n);
            gex_RMA_Value_t got = gex_RMA_GetBlockingVal(test_tm, t, segbase[t] + off, n, 0);
            CHECKF(got == want, "round %d: rank %u's value written by %s (%zu bytes, slot offset %zu) read back "
                   "as 0x%llx, expected 0x%llx", round, (unsigned)t, call_name[c], n, off,
                   (unsigned long long)got, (unsigned long long)want);
            /* other widths over the same bytes (guards included) see what plain memory holds */
            size_t m = 1 + (n + (size_t)c) % 8, at = off - 8 + (n % 8);
            const uint8_t *ip = img + (at - slot_off(test_rank, 0, 1));
            got = gex_RMA_GetBlockingVal(test_tm, t, segbase[t] + at, m, c == 3 ? GEX_FLAG_IMMEDIATE : 0);
            CHECKF(got == typed_load(ip, m), "round %d: %zu-byte GetBlockingVal at offset %zu of rank %u gave 0x%llx, "
                   "memory holds 0x%llx", round, m, at, (unsigned)t, (unsigned long long)got,
                   (unsigned long long)typed_load(ip, m));
            CHECKF(got == low_bits(got, m), "GetBlockingVal of %zu bytes did not zero-extend: 0x%llx", m,
                   (unsigned long long)got);
            n_gets += 2;
        }
    }
}

int main(int argc, char **argv) {
    test_init("test_rmaval", &argc, &argv);
    region = (size_t)NCALLS * NSIZES * SLOT;
    gex_Segment_t seg = test_attach((uintptr_t)test_size * region + GASNET_PAGESIZE);
    myseg = (uint8_t *)gex_Segment_QueryAddr(seg);
    segbase = (uint8_t **)calloc(test_size, sizeof(uint8_t *));
    uint8_t *img = (uint8_t *)malloc(region);
    CHECK(segbase && img);
    for (gex_Rank_t r = 0; r < test_size; r++) {
        void *own = NULL;
        CHECK_EQ(gex_Segment_QueryBound(test_tm, r, &own, NULL, NULL), 0);
        segbase[r] = (uint8_t *)own;
    }
    /* native integers of each width carry the low-order bytes (a sanity check of value_bytes) */
    {
        uint8_t b[8];
        value_bytes(0x0102030405060708ull, 4, b);
        uint32_t t;
        memcpy(&t, b, 4);
        CHECK_EQ(t, 0x05060708u);
    }

    for (int round = 0; round < ROUNDS; round++) {
        /* my segment: every sender's region filled with the guard pattern of this round */
        for (gex_Rank_t s = 0; s < test_size; s++)
            test_pat_fill(myseg + (size_t)s * region, region, guard_seed(round, test_rank) + (uint64_t)s * 7919);
        test_barrier();
        for (gex_Rank_t k = 0; k < test_size; k++) {
            gex_Rank_t t = (test_rank + k + (gex_Rank_t)round) % test_size; /* self first in round 0 */
            put_round(round, t);
            expected_region(round, test_rank, t, img);
            get_round(round, t, img);
        }
        test_barrier();
        /* plain loads: every sender's region in my segment, values and guards */
        for (gex_Rank_t s = 0; s < test_size; s++) {
            expected_region(round, s, test_rank, img);
            const uint8_t *mine = myseg + (size_t)s * region;
            for (size_t i = 0; i < region; i++) {
                if (mine[i] == img[i]) continue;
                int c = (int)(i / (NSIZES * SLOT));
                size_t n = i / SLOT % NSIZES + 1;
                CHECKF(0, "round %d: byte %zu of the slot for %s of %zu bytes from rank %u is 0x%02x, expected 0x%02x"
                       " (the value starts at slot byte %zu)", round, i % SLOT, call_name[c], n, (unsigned)s,
                       mine[i], img[i], val_mis(s, c, n, round));
            }
            for (int c = 0; c < NCALLS; c++)
                for (size_t n = 1; n <= NSIZES; n++) {
                    const uint8_t *p = mine + slot_off(0, c, n) + val_mis(s, c, n, round);
                    CHECK_EQ(typed_load(p, n), low_bits(val_of(round, s, test_rank, c, n), n));
                }
        }
        test_barrier(); /* before the next round refills */
    }
    const char *bypass = getenv("GASNET_RMA_NBRHD_BYPASS");
    test_finish("%ld value puts and %ld value gets of 1..8 bytes, %d rounds, GASNET_RMA_NBRHD_BYPASS=%s", n_puts,
                n_gets, ROUNDS, bypass ? bypass : "(default)");
    return 0;
}
