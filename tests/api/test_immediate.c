/* tests/api/test_immediate.c: GEX_FLAG_IMMEDIATE when resources really are short.
 * Rank 0 (the sender) fills the queues to rank 1 (the target; rank 0 itself in a
 * 1-rank job) while the target does not poll: it waits in sigtimedwait() for a signal,
 * so nothing it was sent can be consumed.  Then:
 *   1. Short and large-Medium requests with IMMEDIATE are accepted until the queues are
 *      full, and then refused (non-zero) instead of blocking; Prepare calls with
 *      IMMEDIATE return GEX_AM_SRCDESC_NO_OP (library and client buffers, small and
 *      large); RMA calls with IMMEDIATE return GEX_EVENT_NO_OP / non-zero when they
 *      would need an AM (GASNET_RMA_NBRHD_BYPASS=0, or a target outside the
 *      neighborhood) and succeed when they are load/store.
 *      The target then polls and must run exactly the accepted requests, once each;
 *      refused RMA must have left its memory untouched.  With room again, an IMMEDIATE
 *      Prepare succeeds.
 *   2. Replies: the sender sends requests whose handlers reply with a large Medium with
 *      IMMEDIATE, and stops polling; replies beyond the depth of its reply queue (a
 *      network conduit: its reply window) are refused in the handler, and exactly the
 *      accepted ones arrive.
 * Counts travel in the value of the waking signal (sigqueue), since the AM queues are
 * full when they are sent.  With 1 rank, an AM to itself runs before the call returns
 * (no queue to fill): IMMEDIATE requests are then all accepted and each runs at once.
 * Layer: tests (public API + POSIX signals).  1, 2, 4 ranks. */
#include "test_util.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>
#if defined(GASNET_PAR)
#  include <pthread.h>
#  define SIGMASK pthread_sigmask
#else
#  define SIGMASK sigprocmask
#endif

#define WAIT_SECS 60
#define BIG 1000 /* a Medium too large for a lane slot: it takes the shared queues */
#define LIMIT 100000
enum { H_SHORT = 200, H_MED, H_COUNTS, H_ECHO, H_REP };

static volatile long got_short, got_med, got_rep, rep_ok, rep_refused, counts_short = -1, counts_med = -1;
static uint8_t big[BIG];

static void short_handler(gex_Token_t t, gex_AM_Arg_t a) { (void)t, (void)a; got_short++; }
static void med_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed) {
    (void)t;
    CHECK_PAT(buf, n, (uint64_t)(uint32_t)seed, "Medium request of %zu bytes", n);
    got_med++;
}
static void counts_handler(gex_Token_t t, gex_AM_Arg_t s, gex_AM_Arg_t m) { (void)t; counts_short = s, counts_med = m; }
static void echo_handler(gex_Token_t t) {
    if (gex_AM_ReplyMedium1(t, H_REP, big, BIG, GEX_EVENT_NOW, GEX_FLAG_IMMEDIATE, 7) == 0)
        rep_ok++;
    else
        rep_refused++;
}
static void rep_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed) {
    (void)t;
    CHECK_EQ(n, (size_t)BIG);
    CHECK_PAT(buf, n, (uint64_t)(uint32_t)seed, "Medium reply");
    got_rep++;
}

/* wait for SIGUSR1 without polling; returns the value it carries */
static int wait_signal(void) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    struct timespec ts = {WAIT_SECS, 0};
    siginfo_t si;
    int s = sigtimedwait(&set, &si, &ts);
    CHECKF(s == SIGUSR1, "no SIGUSR1 within %d s", WAIT_SECS);
    return si.si_value.sival_int;
}
static void send_signal(pid_t pid, int value) {
    union sigval v;
    v.sival_int = value;
    CHECK_EQ(sigqueue(pid, SIGUSR1, v), 0);
}

int main(int argc, char **argv) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    SIGMASK(SIG_BLOCK, &set, NULL); /* before the ranks start: SIGUSR1 is only ever taken by sigtimedwait */
    test_init("test_immediate", &argc, &argv);
    gex_AM_Entry_t tab[] = {
        {H_SHORT, (gex_AM_Fn_t)short_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "short"},
        {H_MED, (gex_AM_Fn_t)med_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "med"},
        {H_COUNTS, (gex_AM_Fn_t)counts_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "counts"},
        {H_ECHO, (gex_AM_Fn_t)echo_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "echo"},
        {H_REP, (gex_AM_Fn_t)rep_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "rep"},
    };
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, sizeof tab / sizeof tab[0]), GASNET_OK);
    test_attach(GASNET_PAGESIZE);
    const char *bp = getenv("GASNET_RMA_NBRHD_BYPASS");
    const int bypass_off = bp && (bp[0] == '0' || bp[0] == 'n' || bp[0] == 'N');
    int rma_by_am = bypass_off, network_peer = 0;
    const char *dp = getenv("GASNET_PSHM_NETWORK_DEPTH");
    long depth = 2, want = dp ? atol(dp) : 32;
    while (depth < want) depth <<= 1; /* the queues' depth is rounded up to a power of two */
    test_pat_fill(big, BIG, 7);

    void *own = NULL;
    CHECK_EQ(gex_Segment_QueryBound(test_tm, test_rank, &own, NULL, NULL), 0);
    uint64_t *mine = (uint64_t *)own; /* [0]: my pid; [1]: target of the refused RMA */
    mine[0] = (uint64_t)getpid();
    mine[1] = 0x1111;
    test_barrier();
    const gex_Rank_t S = 0, T = test_size > 1 ? 1 : 0;
    { /* a target outside the neighborhood (a network conduit) is reached by AMs too */
        gex_RankInfo_t *nb;
        gex_Rank_t nbn, i;
        gex_System_QueryNbrhdInfo(&nb, &nbn, NULL);
        gex_Rank_t other = test_rank == S ? T : S; /* (the relation is symmetric) */
        for (i = 0; i < nbn && nb[i].gex_jobrank != other; i++) {}
#if GASNETC_NATIVE_PUT && GASNETC_NATIVE_GET
        /* unless the conduit reaches it by RDMA, without its help (ofi: GASNET_OFI_RMA=0
         * turns that off; the test assumes a provider with FI_RMA) */
        const char *nr = getenv("GASNET_" GASNETC_NAME_UPPER "_RMA");
        int native = !(nr && (nr[0] == '0' || nr[0] == 'n' || nr[0] == 'N'));
#  if GASNET_CONDUIT_IBV
        /* ibv with datagrams (GASNET_IBV_UD, the default): a small put or get to a peer
         * without an RC queue pair goes by AMs, and that queue pair cannot be made while
         * the target does not poll (docs/ibv-conduit.md, "Scale: datagrams for AMs") */
        const char *ud = getenv("GASNET_IBV_UD");
        if (!(ud && (ud[0] == '0' || ud[0] == 'n' || ud[0] == 'N'))) native = 0;
#  endif
#else
        const int native = 0;
#endif
        network_peer = i == nbn;
        if (network_peer && !native) rma_by_am = 1;
    }
    void *tseg = NULL;
    CHECK_EQ(gex_Segment_QueryBound(test_tm, T, &tseg, NULL, NULL), 0);
    uint64_t tpid = 0, spid = 0;
    CHECK_EQ(gex_RMA_GetBlocking(test_tm, &tpid, T, tseg, 8, 0), 0);
    void *sseg = NULL;
    CHECK_EQ(gex_Segment_QueryBound(test_tm, S, &sseg, NULL, NULL), 0);
    CHECK_EQ(gex_RMA_GetBlocking(test_tm, &spid, S, sseg, 8, 0), 0);
    test_barrier();

    if (T == S) { /* one rank: an AM to itself runs before the call returns, so IMMEDIATE
                   * never finds a queue full; check that instead */
        for (long k = 0; k < 1000; k++) {
            CHECK_EQ(gex_AM_RequestShort1(test_tm, T, H_SHORT, GEX_FLAG_IMMEDIATE, (gex_AM_Arg_t)k), 0);
            CHECKF(got_short == k + 1, "Short IMMEDIATE to itself: %ld handlers ran after %ld calls", got_short, k + 1);
            CHECK_EQ(gex_AM_RequestMedium1(test_tm, T, H_MED, big, BIG, GEX_EVENT_NOW, GEX_FLAG_IMMEDIATE, 7), 0);
            CHECK_EQ(got_med, k + 1);
        }
        test_finish("1 rank: 1000 Short and 1000 Medium IMMEDIATE requests to itself accepted, each run at once");
    }
    /* The target may still be polling in the barrier when the sender leaves it; the
     * sender starts only once the target has stopped: T signals S, then waits itself. */
    /* ---- 1. requests ---- */
    long k_short = 0, k_med = 0;
    if (T != S && test_rank == T) {
        send_signal((pid_t)spid, 0);
        CHECK_EQ(wait_signal(), 1);
    }
    if (T != S && test_rank == S) CHECK_EQ(wait_signal(), 0);
    if (test_rank == S) {
        for (; k_short < LIMIT; k_short++)
            if (gex_AM_RequestShort1(test_tm, T, H_SHORT, GEX_FLAG_IMMEDIATE, (gex_AM_Arg_t)k_short)) break;
        CHECKF(k_short < LIMIT && k_short > 0, "Short IMMEDIATE: %ld accepted before a refusal", k_short);
        for (; k_med < LIMIT; k_med++)
            if (gex_AM_RequestMedium1(test_tm, T, H_MED, big, BIG, GEX_EVENT_NOW, GEX_FLAG_IMMEDIATE, 7)) break;
        /* (none when the Shorts took the same queue: GASNET_PSHM_LANES_MAX=0) */
        CHECKF(k_med < LIMIT, "Medium IMMEDIATE: %ld accepted before a refusal", k_med);
        /* the same again refuses again, and so do Prepares, small and large, either buffer */
        CHECK(gex_AM_RequestShort1(test_tm, T, H_SHORT, GEX_FLAG_IMMEDIATE, 0) != 0);
        CHECK(gex_AM_RequestMedium1(test_tm, T, H_MED, big, BIG, GEX_EVENT_NOW, GEX_FLAG_IMMEDIATE, 7) != 0);
        CHECK(gex_AM_PrepareRequestMedium(test_tm, T, NULL, 16, 16, NULL, GEX_FLAG_IMMEDIATE, 1) == GEX_AM_SRCDESC_NO_OP);
        CHECK(gex_AM_PrepareRequestMedium(test_tm, T, NULL, BIG, BIG, NULL, GEX_FLAG_IMMEDIATE, 1) ==
              GEX_AM_SRCDESC_NO_OP);
        CHECK(gex_AM_PrepareRequestMedium(test_tm, T, big, BIG, BIG, GEX_EVENT_NOW, GEX_FLAG_IMMEDIATE, 1) ==
              GEX_AM_SRCDESC_NO_OP);
        CHECK(gex_AM_PrepareRequestLong(test_tm, T, NULL, 64, 64, tseg, NULL, GEX_FLAG_IMMEDIATE, 1) ==
              GEX_AM_SRCDESC_NO_OP);
        /* RMA: refused when it needs an AM, done at once when it is a load/store */
        uint64_t v = 0x2222, back = 0;
        void *dst = (uint64_t *)tseg + 1;
        if (rma_by_am) {
            CHECK(gex_RMA_PutNB(test_tm, T, dst, &v, 8, GEX_EVENT_NOW, GEX_FLAG_IMMEDIATE) == GEX_EVENT_NO_OP);
            CHECK(gex_RMA_PutNBI(test_tm, T, dst, &v, 8, GEX_EVENT_NOW, GEX_FLAG_IMMEDIATE) != 0);
            CHECK(gex_RMA_PutBlocking(test_tm, T, dst, &v, 8, GEX_FLAG_IMMEDIATE) != 0);
            CHECK(gex_RMA_GetNB(test_tm, &back, T, dst, 8, GEX_FLAG_IMMEDIATE) == GEX_EVENT_NO_OP);
            CHECK(gex_RMA_GetNBI(test_tm, &back, T, dst, 8, GEX_FLAG_IMMEDIATE) != 0);
            CHECK(gex_RMA_GetBlocking(test_tm, &back, T, dst, 8, GEX_FLAG_IMMEDIATE) != 0);
            CHECK_EQ(back, (uint64_t)0); /* nothing was read either */
        } else {
            gex_Event_t ev = gex_RMA_PutNB(test_tm, T, dst, &v, 8, GEX_EVENT_NOW, GEX_FLAG_IMMEDIATE);
            CHECK(ev != GEX_EVENT_NO_OP);
            gex_Event_Wait(ev);
            CHECK_EQ(gex_RMA_GetBlocking(test_tm, &back, T, dst, 8, GEX_FLAG_IMMEDIATE), 0);
            CHECK_EQ(back, v);
        }
        if (T != S) send_signal((pid_t)tpid, 1);
        /* blocking now: waits for room as the target drains */
        gex_AM_RequestShort2(test_tm, T, H_COUNTS, 0, (gex_AM_Arg_t)k_short, (gex_AM_Arg_t)k_med);
    }
    if (test_rank == T) {
        TEST_POLL_UNTIL(counts_short >= 0, WAIT_SECS, "the counts never arrived");
        TEST_POLL_UNTIL(got_short == counts_short && got_med == counts_med, WAIT_SECS,
                        "target ran %ld Short and %ld Medium handlers, sender had %ld and %ld accepted", got_short,
                        got_med, counts_short, counts_med);
        CHECK_EQ(mine[1], (uint64_t)(rma_by_am ? 0x1111 : 0x2222));
    }
    test_barrier();
    if (test_rank == S) { /* room again: an IMMEDIATE Prepare succeeds */
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(test_tm, T, NULL, BIG, BIG, NULL, GEX_FLAG_IMMEDIATE, 1);
        CHECK(sd != GEX_AM_SRCDESC_NO_OP);
        memcpy(gex_AM_SrcDescAddr(sd), big, BIG);
        gex_AM_CommitRequestMedium1(sd, H_MED, BIG, 7);
    }
    if (test_rank == T) TEST_POLL_UNTIL(got_med == counts_med + 1, WAIT_SECS, "the Medium after the refusals");
    test_barrier(); /* anything delivered twice would have run by now */
    if (test_rank == T) CHECK(got_short == counts_short && got_med == counts_med + 1);

    /* ---- 2. replies ---- */
    long ok = 0;
    if (T != S && test_rank == T) send_signal((pid_t)spid, 0);
    if (T != S && test_rank == S) CHECK_EQ(wait_signal(), 0);
    if (test_rank == S) {
        long k_echo = 0;
        for (; k_echo < LIMIT; k_echo++)
            if (gex_AM_RequestShort0(test_tm, T, H_ECHO, GEX_FLAG_IMMEDIATE)) break;
        CHECKF(k_echo < LIMIT && k_echo > 0, "echo IMMEDIATE: %ld accepted", k_echo);
        if (T != S) {
            send_signal((pid_t)tpid, (int)k_echo);
            ok = wait_signal(); /* not polling: replies stay in my queue */
            if (network_peer && !bypass_off) /* a network peer: its reply window is the conduit's */
                CHECKF(ok > 0 && ok <= k_echo, "%ld of %ld replies accepted", ok, k_echo);
            else
                CHECKF(ok == (k_echo < depth ? k_echo : depth),
                       "%ld of %ld replies accepted into a reply queue of depth %ld", ok, k_echo, depth);
        } else {
            TEST_POLL_UNTIL(rep_ok + rep_refused == k_echo, WAIT_SECS, "echo handlers ran %ld of %ld times",
                            rep_ok + rep_refused, k_echo);
            ok = rep_ok;
        }
        TEST_POLL_UNTIL(got_rep == ok, WAIT_SECS, "%ld replies arrived, %ld were accepted", got_rep, ok);
    } else if (test_rank == T) {
        long k_echo = wait_signal();
        TEST_POLL_UNTIL(rep_ok + rep_refused == k_echo, WAIT_SECS, "echo handlers ran %ld of %ld times",
                        rep_ok + rep_refused, k_echo);
        send_signal((pid_t)spid, (int)rep_ok);
    }
    test_barrier(); /* a reply delivered twice would have arrived by now */
    if (test_rank == S) CHECK_EQ(got_rep, ok);
    test_finish("queues filled and refused, every accepted AM ran once (%s RMA)", rma_by_am ? "AM-based" : "load/store");
    return 0;
}
