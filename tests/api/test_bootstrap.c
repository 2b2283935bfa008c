/* tests/api/test_bootstrap.c: the bootstrap's variable-length exchange and out-of-band
 * messages (conduit_contract.h: gasneti_boot_exchange_v, gasneti_boot_send,
 * gasneti_boot_recv), on whichever bootstrap started the job (smp's fork, udp's and ofi's
 * launcher with any spawner, the mpi and pmi spawners' plugins, mpi-conduit's own).
 *   exchange_v: rank r gives a rank-dependent length (0 bytes on some ranks, more than
 *     64 KiB on others, small ones between), twice; every rank gets every length and
 *     every byte exactly; an exchange where every rank gives 0 bytes returns a block.
 *   p2p: every rank sends every rank (itself too) ROUNDS messages of sizes that depend on
 *     sender, receiver and round (0 and GASNETI_BOOT_MSG_MAX among them) while AM round
 *     trips to the next rank flow; every message arrives once, in order per sender,
 *     exact; nothing more arrives after; then a ring of blocking receives. In a PAR
 *     build a second thread sends half of the messages (to the odd ranks) meanwhile.
 *   `test_bootstrap baddest`: rank 0 sends to rank gasneti_nodes (one past the last):
 *     the job must end with a message saying the rank is out of range
 *     (tests/api/test_bootstrap.sh checks it).
 * Every bootstrap must have p2p (the pmi spawner's over its own TCP connections).
 * Layer: tests (calls the core's bootstrap entry points: an internal header). */
#include "test_util.h"
#include "conduit_contract.h"

#if defined(GASNET_PAR)
#include <pthread.h>
#endif

#define ROUNDS 4
enum { H_PING = 200, H_PONG };
static volatile unsigned pongs;
static void h_ping(gex_Token_t t) { CHECK_EQ(gex_AM_ReplyShort0(t, H_PONG, 0), 0); }
static void h_pong(gex_Token_t t) { (void)t; pongs++; }

static size_t xlen(gex_Rank_t r, int round) {
    switch ((r + (gex_Rank_t)round) % 4) {
        case 0: return 0;
        case 1: return 70000 + 13 * r; /* more than 64 KiB */
        default: return 1 + 7 * r + (size_t)round;
    }
}
static uint64_t xseed(gex_Rank_t r, int round) { return 0xE0000 + r * 16 + (uint64_t)round; }

static void check_exchange_v(int round) {
    size_t len = xlen(test_rank, round);
    uint8_t *mine = malloc(len + 1);
    test_pat_fill(mine, len, xseed(test_rank, round));
    size_t *lens = calloc(test_size, sizeof(size_t));
    uint8_t *all = gasneti_boot_exchange_v(mine, len, lens);
    CHECK(all != NULL);
    size_t off = 0;
    for (gex_Rank_t r = 0; r < test_size; r++) {
        CHECKF(lens[r] == xlen(r, round), "exchange_v round %d: rank %u's length %zu, expected %zu", round,
               (unsigned)r, lens[r], xlen(r, round));
        CHECK_PAT(all + off, lens[r], xseed(r, round), "exchange_v round %d, rank %u's bytes", round, (unsigned)r);
        off += lens[r];
    }
    free(all);
    free(mine);
    free(lens);
}

/* message k from src to dst: its size and pattern */
static size_t msize(gex_Rank_t src, gex_Rank_t dst, int k) {
    if (k == 0) return (src + dst) % 2 ? 0 : GASNETI_BOOT_MSG_MAX;
    return (src * 977 + dst * 131 + (size_t)k * 4099) % 5000;
}
static uint64_t mseed(gex_Rank_t src, gex_Rank_t dst, int k) { return ((uint64_t)src << 40) | ((uint64_t)dst << 20) | (uint64_t)k; }

static void send_all(int parity) { /* to the ranks of this parity (-1: every rank) */
    uint8_t *buf = malloc(GASNETI_BOOT_MSG_MAX);
    for (int k = 0; k < ROUNDS; k++)
        for (gex_Rank_t d = 0; d < test_size; d++) {
            if (parity >= 0 && (int)(d % 2) != parity) continue;
            size_t n = msize(test_rank, d, k);
            test_pat_fill(buf, n, mseed(test_rank, d, k));
            gasneti_boot_send(d, buf, n);
        }
    free(buf);
}

#if defined(GASNET_PAR)
static void *sender_thread(void *arg) {
    (void)arg;
    send_all(1);
    return NULL;
}
#endif

static int *next_k; /* [test_size]: the next round expected from each sender */

static int take_one(int block) {
    gex_Rank_t src = GEX_RANK_INVALID;
    size_t n = 0;
    uint8_t *m = gasneti_boot_recv(&src, &n, block);
    if (!m) return 0;
    CHECKF(src < test_size, "a message from rank %u", (unsigned)src);
    int k = next_k[src]++;
    CHECKF(k < ROUNDS, "more than %d messages from rank %u", ROUNDS, (unsigned)src);
    CHECKF(n == msize(src, test_rank, k), "message %d from rank %u: %zu bytes, expected %zu (out of order?)", k,
           (unsigned)src, n, msize(src, test_rank, k));
    CHECK_PAT(m, n, mseed(src, test_rank, k), "message %d from rank %u", k, (unsigned)src);
    free(m);
    return 1;
}

static void check_p2p(void) {
    next_k = calloc(test_size, sizeof(int));
    gex_Rank_t peer = (test_rank + 1) % test_size;
#if defined(GASNET_PAR)
    pthread_t t;
    CHECK(pthread_create(&t, NULL, sender_thread, NULL) == 0);
    send_all(0);
#else
    send_all(-1);
#endif
    unsigned got = 0, want = (unsigned)test_size * ROUNDS, pings = 0;
    double t0 = test_now();
    while (got < want || pongs < pings) {
        got += (unsigned)take_one(0);
        if (pings < 1000 && pings - pongs < 8) {
            CHECK_EQ(gex_AM_RequestShort0(test_tm, peer, H_PING, 0), 0);
            pings++;
        }
        gasnet_AMPoll();
        CHECKF(test_now() - t0 < 60, "p2p: %u of %u messages after 60 s (AM replies %u of %u)", got, want,
               (unsigned)pongs, pings);
    }
#if defined(GASNET_PAR)
    pthread_join(t, NULL);
#endif
    test_barrier();
    test_sleep_ms(100);
    CHECKF(!take_one(0), "a message arrived after all %u were taken", want);
    test_barrier();
    /* blocking: a ring, each rank waits for its predecessor's one message */
    uint8_t word[8];
    test_pat_fill(word, sizeof(word), mseed(test_rank, peer, 99));
    gasneti_boot_send(peer, word, sizeof(word));
    gex_Rank_t src = GEX_RANK_INVALID;
    size_t n = 0;
    uint8_t *m = gasneti_boot_recv(&src, &n, 1);
    CHECK(m != NULL);
    CHECKF(src == (test_rank + test_size - 1) % test_size && n == sizeof(word), "blocking receive: %zu bytes from %u",
           n, (unsigned)src);
    CHECK_PAT(m, n, mseed(src, test_rank, 99), "the blocking receive's message");
    free(m);
    free(next_k);
    CHECKF(pings == pongs && pings > 0, "AM round trips %u of %u", (unsigned)pongs, pings);
}

int main(int argc, char **argv) {
    test_init("test_bootstrap", &argc, &argv);
    gex_AM_Entry_t h[] = {{H_PING, (gex_AM_Fn_t)h_ping, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, "ping"},
                          {H_PONG, (gex_AM_Fn_t)h_pong, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, "pong"}};
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, h, 2), GASNET_OK);
    test_barrier();
    if (argc > 1 && !strcmp(argv[1], "baddest")) {
        if (test_rank == 0) {
            printf("BADVALUE=%u\n", (unsigned)test_size);
            fflush(stdout);
            gasneti_boot_send(test_size, "x", 1);
            test_fail(__FILE__, __LINE__, "baddest", "a message to rank %u was accepted", (unsigned)test_size);
        }
        test_barrier();
        return 0;
    }
    for (int round = 0; round < 2; round++) check_exchange_v(round);
    size_t lens1[1], *lens = test_size > 1 ? calloc(test_size, sizeof(size_t)) : lens1;
    void *none = gasneti_boot_exchange_v(NULL, 0, lens);
    CHECK(none != NULL);
    for (gex_Rank_t r = 0; r < test_size; r++) CHECK_EQ(lens[r], 0);
    free(none);
    if (lens != lens1) free(lens);
    CHECKF(gasneti_boot->p2p_send && gasneti_boot->p2p_recv, "the %s bootstrap has no p2p", gasneti_boot->name);
    check_p2p();
    test_finish("exchange_v (0 to %u bytes per rank) and 4 p2p messages per pair while AMs flow, over %s",
                70000 + 13 * (unsigned)(test_size - 1), gasneti_boot->name);
}
