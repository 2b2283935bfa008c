/* tests/api/test_segrma.c: RMA into segments other than the primordial one, checked
 * byte for byte. Every process creates endpoint 1, bound to a segment the library
 * allocates, and endpoint 2, bound to memory of its own made a segment of a host memory
 * kind (gex_MK_Create), publishes both (gex_EP_PublishBoundSegment), and through
 * gex_TM_Pair(primordial endpoint, e) writes its slot of endpoint e's segment of every
 * other process with gex_RMA_PutNB (a short part) and gex_RMA_PutNBI (a part over 64
 * KiB), checks what the others wrote into its own, then reads its slots back from every
 * other process with gex_RMA_GetNB and gex_RMA_GetNBI and checks them.
 * Rank 0 then prints how many puts and gets it made to each endpoint to processes
 * outside its neighbourhood ("test_segrma: rank 0 expects P puts and G gets to endpoint
 * E by the network"): a conduit with native RMA to every segment (ofi) makes exactly
 * those by fi_write/fi_read, which tests/api/test_segrma.sh compares with what the
 * conduit reports under GASNET_VERBOSEENV.
 * With the argument "flush N": instead, rank 0 makes N gex_RMA_PutNBI of 8 bytes into
 * endpoint 1 of rank 1 and one gex_NBI_Wait(GEX_EC_PUT), and rank 1 checks the last
 * value; nothing else puts (test_segrma.sh counts the flushes this takes).
 * With the argument "exit": rank 0 makes a gex_RMA_PutNBI into endpoint 1 of rank 1 and
 * calls gasnet_exit(7) without syncing it, while rank 1 computes without calling GASNet
 * (never polls); under GASNET_OFI_RMA_FLUSH=1 the exit's flush of that put must give up
 * at the exit timeout, and the job end with status 7 (test_segrma.sh times it).
 * With the argument "amo": instead, through an atomic domain (U64, FADD) on each
 * gex_TM_Pair(primordial endpoint, e), every process adds 1 AMO_REPS times to a word of
 * endpoint e's segment of every process (its own included) and checks the values fetched
 * and the sums; rank 0 prints how many operations it made ("test_segrma: rank 0 expects
 * A atomics by the network": a domain of network atomics sends every one, whatever the
 * target, through the conduit, which counts them under GASNET_VERBOSEENV). */
#include "test_util.h"

#include <gasnet_mk.h>
#include <gasnet_ratomic.h>
#include <unistd.h>

#define NEP 3
#define PART0 100     /* bytes by PutNB / GetNB */
#define PART1 70000   /* bytes by PutNBI / GetNBI */
#define SLOT ((PART0 + PART1 + 63) / 64 * 64)
#define AMO_REPS 200

static gex_EP_t eps[NEP];
static size_t seg_bytes;

static uint64_t seed(gex_Rank_t from, gex_Rank_t to, int e, int part) {
    return ((uint64_t)from << 40) ^ ((uint64_t)to << 20) ^ ((uint64_t)e << 8) ^ (uint64_t)part;
}

static uint8_t *my_seg(int e) { return gex_Segment_QueryAddr(gex_EP_QuerySegment(eps[e])); }

/* the address of endpoint e's segment of rank r, in r's address space */
static uint8_t *peer_seg(gex_TM_t pair, gex_Rank_t r) { return test_bound_seg(pair, r, seg_bytes); }

/* processes outside this one's neighbourhood */
static gex_Rank_t far_peers(void) {
    gex_RankInfo_t *info;
    gex_Rank_t n, me;
    gex_System_QueryNbrhdInfo(&info, &n, &me);
    return test_size - n;
}

static void puts_and_gets(int e, uint8_t *buf) {
    gex_TM_t pair = gex_TM_Pair(eps[0], (gex_EP_Index_t)e);
    gex_Rank_t n = test_size;
    gex_Event_t *ev = calloc(n, sizeof *ev);
    CHECK(ev != NULL);
    /* puts: my slot of every other process's segment */
    for (gex_Rank_t r = 0; r < n; r++) {
        if (r == test_rank) continue;
        uint8_t *dst = peer_seg(pair, r) + (size_t)test_rank * SLOT;
        uint8_t *src = buf + (size_t)r * SLOT;
        test_pat_fill(src, PART0, seed(test_rank, r, e, 0));
        test_pat_fill(src + PART0, PART1, seed(test_rank, r, e, 1));
        ev[r] = gex_RMA_PutNB(pair, r, dst, src, PART0, GEX_EVENT_DEFER, 0);
        CHECK(gex_RMA_PutNBI(pair, r, dst + PART0, src + PART0, PART1, GEX_EVENT_GROUP, 0) == 0);
    }
    for (gex_Rank_t r = 0; r < n; r++)
        if (r != test_rank) gex_Event_Wait(ev[r]);
    gex_NBI_Wait(GEX_EC_PUT | GEX_EC_LC, 0);
    test_barrier();
    /* what the others wrote here */
    for (gex_Rank_t r = 0; r < n; r++) {
        if (r == test_rank) continue;
        uint8_t *slot = my_seg(e) + (size_t)r * SLOT;
        CHECK_PAT(slot, PART0, seed(r, test_rank, e, 0), "endpoint %d: PutNB from rank %u", e, (unsigned)r);
        CHECK_PAT(slot + PART0, PART1, seed(r, test_rank, e, 1), "endpoint %d: PutNBI from rank %u", e, (unsigned)r);
    }
    /* gets: my slot back from every other process */
    memset(buf, 0, (size_t)n * SLOT);
    for (gex_Rank_t r = 0; r < n; r++) {
        if (r == test_rank) continue;
        uint8_t *src = peer_seg(pair, r) + (size_t)test_rank * SLOT, *dst = buf + (size_t)r * SLOT;
        ev[r] = gex_RMA_GetNB(pair, dst, r, src, PART0, 0);
        CHECK(gex_RMA_GetNBI(pair, dst + PART0, r, src + PART0, PART1, 0) == 0);
    }
    for (gex_Rank_t r = 0; r < n; r++)
        if (r != test_rank) gex_Event_Wait(ev[r]);
    gex_NBI_Wait(GEX_EC_GET, 0);
    for (gex_Rank_t r = 0; r < n; r++) {
        if (r == test_rank) continue;
        uint8_t *got = buf + (size_t)r * SLOT;
        CHECK_PAT(got, PART0, seed(test_rank, r, e, 0), "endpoint %d: GetNB from rank %u", e, (unsigned)r);
        CHECK_PAT(got + PART0, PART1, seed(test_rank, r, e, 1), "endpoint %d: GetNBI from rank %u", e, (unsigned)r);
    }
    free(ev);
    test_barrier();
}

/* N NBI puts and one sync, nothing else */
static void flush_burst(long n) {
    gex_TM_t pair = gex_TM_Pair(eps[0], 1);
    uint64_t *last = (uint64_t *)my_seg(1);
    test_barrier();
    if (test_rank == 0) {
        uint8_t *dst = peer_seg(pair, 1);
        for (long i = 1; i <= n; i++) {
            uint64_t v = (uint64_t)i;
            CHECK(gex_RMA_PutNBI(pair, 1, dst, &v, sizeof v, GEX_EVENT_NOW, 0) == 0);
        }
        gex_NBI_Wait(GEX_EC_PUT, 0);
    }
    test_barrier();
    if (test_rank == 1) CHECKF(*last == (uint64_t)n, "the last of %ld puts wrote %llu", n, (unsigned long long)*last);
    test_barrier();
    test_finish("%ld NBI puts into endpoint 1 of rank 1, one sync", n);
}

/* fetch-and-add on every process's created segments: the first word of each */
static void atomics(void) {
    gex_Rank_t n = test_size;
    for (int e = 1; e < NEP; e++) {
        gex_TM_t pair = gex_TM_Pair(eps[0], (gex_EP_Index_t)e);
        gex_AD_t ad;
        gex_AD_Create(&ad, pair, GEX_DT_U64, GEX_OP_FADD, 0);
        test_barrier();
        for (int i = 0; i < AMO_REPS; i++)
            for (gex_Rank_t k = 0; k < n; k++) {
                gex_Rank_t r = (test_rank + k) % n;
                uint64_t old = ~(uint64_t)0;
                gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, r, peer_seg(pair, r), GEX_OP_FADD, 1, 0, 0));
                CHECKF(old < (uint64_t)AMO_REPS * n, "endpoint %d of rank %u: fetch-and-add fetched %llu", e,
                       (unsigned)r, (unsigned long long)old);
            }
        test_barrier();
        uint64_t sum = *(volatile uint64_t *)my_seg(e);
        CHECKF(sum == (uint64_t)AMO_REPS * n, "endpoint %d: %llu after %u x %d fetch-and-adds of 1", e,
               (unsigned long long)sum, (unsigned)n, AMO_REPS);
        test_barrier();
        gex_AD_Destroy(ad);
    }
    if (test_rank == 0)
        printf("test_segrma: rank 0 expects %u atomics by the network\n", (unsigned)(AMO_REPS * n * (NEP - 1)));
    test_finish("%d fetch-and-adds by every process into %d created segments of every process", AMO_REPS, NEP - 1);
}

/* a put left unsynced at gasnet_exit, its target never polling */
static void exit_unflushed(void) {
    gex_TM_t pair = gex_TM_Pair(eps[0], 1);
    test_barrier();
    if (test_rank == 0) {
        static uint64_t v = 42; /* DEFER: even local completion may need the target's progress */
        CHECK(gex_RMA_PutNBI(pair, 1, peer_seg(pair, 1), &v, sizeof v, GEX_EVENT_DEFER, 0) == 0);
        test_sleep_ms(200); /* rank 1 is in its loop */
        printf("test_segrma: rank 0 exits with a put unsynced\n");
        fflush(stdout);
        gasnet_exit(7);
    }
    if (test_rank == 1) { /* no GASNet call: ended by rank 0's exit */
        volatile uint64_t x = 1;
        for (double t0 = test_now(); test_now() - t0 < 60;)
            for (int i = 0; i < 100000; i++) x = x * 6364136223846793005ull + 1;
        fprintf(stderr, "test_segrma: rank 1 still alive after 60 s\n");
        _exit(99);
    }
    for (;;) test_sleep_ms(1000); /* the others: ended by the exit too */
}

int main(int argc, char **argv) {
    test_init("test_segrma", &argc, &argv);
    long burst = -1;
    int at_exit = argc == 2 && !strcmp(argv[1], "exit"), amo = argc == 2 && !strcmp(argv[1], "amo");
    if (argc > 2 && !strcmp(argv[1], "flush")) burst = atol(argv[2]);
    CHECKF(argc == 1 || burst > 0 || at_exit || amo, "usage: test_segrma [flush N | exit | amo]");
    seg_bytes = ((size_t)test_size * SLOT + 4095) & ~(size_t)4095;
    test_attach(seg_bytes);
    gex_MK_t kind = GEX_MK_INVALID;
    gex_MK_Create_args_t mkargs;
    memset(&mkargs, 0, sizeof mkargs);
    mkargs.gex_class = GEX_MK_CLASS_HOST;
    CHECK_EQ(gex_MK_Create(&kind, test_client, &mkargs, 0), GASNET_OK);
    eps[0] = test_ep;
    void *mine = NULL;
    CHECK(posix_memalign(&mine, 4096, seg_bytes) == 0);
    for (int e = 1; e < NEP; e++) {
        gex_Segment_t s;
        CHECK_EQ(gex_EP_Create(&eps[e], test_client, GEX_EP_CAPABILITY_RMA, 0), GASNET_OK);
        CHECK_EQ(gex_EP_QueryIndex(eps[e]), e);
        CHECK_EQ(gex_Segment_Create(&s, test_client, e == 2 ? mine : NULL, seg_bytes, e == 2 ? kind : GEX_MK_HOST, 0),
                 GASNET_OK);
        CHECK_EQ(gex_EP_BindSegment(eps[e], s, 0), GASNET_OK);
        memset(gex_Segment_QueryAddr(s), 0, seg_bytes);
    }
    CHECK_EQ(gex_EP_PublishBoundSegment(test_tm, eps + 1, NEP - 1, 0), GASNET_OK);
    if (burst > 0) {
        CHECKF(test_size >= 2, "flush N needs 2 processes or more");
        flush_burst(burst);
    }
    if (at_exit) {
        CHECKF(test_size >= 2, "exit needs 2 processes or more");
        exit_unflushed();
    }
    if (amo) {
        atomics();
        return 0;
    }
    uint8_t *buf = malloc((size_t)test_size * SLOT);
    CHECK(buf != NULL);
    for (int e = 1; e < NEP; e++) puts_and_gets(e, buf);
    free(buf);
    if (test_rank == 0)
        for (int e = 1; e < NEP; e++)
            printf("test_segrma: rank 0 expects %u puts and %u gets to endpoint %d by the network\n",
                   2 * (unsigned)far_peers(), 2 * (unsigned)far_peers(), e);
    test_finish("PutNB, PutNBI, GetNB, GetNBI into %d created segments of every other process", NEP - 1);
    return 0;
}
