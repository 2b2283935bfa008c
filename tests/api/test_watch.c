/* tests/api/test_watch.c: a job that stalls on purpose, for tests/api/test_watch.sh, which
 * sends the state-dump signal (to a rank or to the launcher), or sets the watchdog, and
 * checks what the ranks print (issue 46; docs/diagnostics.md, "A stalled job").
 *   test_watch MODE DIR
 * Every rank writes its pid to DIR/pid.R. The rank that stalls the others (the "late"
 * one) stays outside the library (no call, no poll) until DIR/go exists or 60 s passed;
 * the others write DIR/ready.R just before they block. Before that, every pair of ranks
 * has exchanged an AM each way (set_up): a message to a peer not yet contacted may wait
 * in the sender (ucx: UCX's wire-up of the endpoint) until the sender's next poll, and a
 * late rank that left with one waiting would stall the set-up instead of the scenario.
 *   barrier  rank N-1 is late; the others wait in gex_Coll_BarrierBlocking; then it joins
 *   am       rank 1 is late; rank 0 sends AM Short requests to it until it blocks for room
 *            (its lanes or queue, the credits or the window are full); the total is
 *            checked on rank 1 once it polls again
 *   nbi      rank 1 is late; rank 0 starts a get from it (run with RMA by AMs, so that
 *            rank 1 must handle it) and waits in gex_NBI_Wait; the data is checked
 *   sleepy   rank N-1 sleeps 60 s outside the library and then fails; the others wait in
 *            a barrier (the watchdog with GASNET_WATCHDOG_ABORT=1 ends the job first)
 * Layer: tests (public API only). */
#include "test_util.h"
#include <sys/stat.h>
#include <unistd.h>

#define NREQ 20000 /* more than any conduit's lanes, queue, credits or window */
static const char *dir;
static volatile unsigned long got;

static void note(const char *what) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.%u", dir, what, (unsigned)test_rank);
    FILE *f = fopen(path, "w");
    CHECKF(f, "cannot write %s", path);
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
}

/* outside the library until the driver says go (or secs pass) */
static void stay_away(double secs) {
    char path[4096];
    struct stat st;
    snprintf(path, sizeof(path), "%s/go", dir);
    double t0 = test_now();
    while (stat(path, &st) != 0) {
        CHECKF(test_now() - t0 < secs, "no %s within %.0f s", path, secs);
        usleep(10000);
    }
}

static void on_req(gex_Token_t t) {
    (void)t;
    got++;
}

static volatile unsigned long pongs;
static void on_ping(gex_Token_t t) { gex_AM_ReplyShort0(t, 202, 0); }
static void on_pong(gex_Token_t t) {
    (void)t;
    pongs++;
}

/* Before anyone stalls: every rank here, and every pair's first messages (a request and
 * its reply each way) delivered, so that nothing a rank sent before it stalls still waits
 * in it for its own progress (ucx: the first message to a peer waits in UCX for the
 * endpoint's wire-up, which needs the sender to poll again; a late rank leaving with its
 * last set-up barrier message held so stalled the others in the set-up, seen under load).
 * Then a barrier: the late rank leaves it only once every rank has all its replies, and
 * its own barrier messages go over endpoints already wired. Polled, not blocking, so
 * that a rank slow to start on a loaded machine is not a stall the watchdog (1 s in the
 * watchdog scenarios) reports before the one staged below. */
static void set_up(void) {
    for (gex_Rank_t r = 0; r < test_size; r++)
        if (r != test_rank) gex_AM_RequestShort0(test_tm, r, 201, 0);
    TEST_POLL_UNTIL(pongs == test_size - 1, 60, "%lu of %u replies to the set-up's requests", (unsigned long)pongs,
                    (unsigned)test_size - 1);
    gex_Event_t ev = gex_Coll_BarrierNB(test_tm, 0);
    while (gex_Event_Test(ev) != GASNET_OK) gasnet_AMPoll();
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    dir = argc > 2 ? argv[2] : ".";
    test_init("test_watch", &argc, &argv);
    gex_AM_Entry_t h[] = {{200, (gex_AM_Fn_t)on_req, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "on_req"},
                          {201, (gex_AM_Fn_t)on_ping, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "on_ping"},
                          {202, (gex_AM_Fn_t)on_pong, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "on_pong"}};
    CHECK(gex_EP_RegisterHandlers(test_ep, h, 3) == GASNET_OK);
    gex_Segment_t seg = test_attach(1 << 16);
    uint64_t *mine = gex_Segment_QueryAddr(seg);
    for (int i = 0; i < 1024; i++) mine[i] = (uint64_t)test_rank << 32 | (unsigned)i;
    CHECKF(test_size >= 2, "test_watch needs 2 ranks or more (got %u)", (unsigned)test_size);
    note("pid");
    set_up();

    const gex_Rank_t late = !strcmp(mode, "barrier") || !strcmp(mode, "sleepy") ? test_size - 1 : 1;
    if (!strcmp(mode, "barrier") || !strcmp(mode, "sleepy")) {
        note("ready");
        if (test_rank == late) stay_away(60);
        gex_Coll_BarrierBlocking(test_tm, 0);
        CHECKF(strcmp(mode, "sleepy"), "the watchdog did not end the job");
    } else if (!strcmp(mode, "am")) {
        note("ready");
        if (test_rank == late) stay_away(60);
        if (test_rank == 0)
            for (int i = 0; i < NREQ; i++) gex_AM_RequestShort0(test_tm, late, 200, 0);
        test_barrier();
        if (test_rank == late) TEST_POLL_UNTIL(got == NREQ, 60, "rank %u got %lu of %d requests", (unsigned)late,
                                               (unsigned long)got, NREQ);
    } else if (!strcmp(mode, "nbi")) {
        uint64_t buf[1024];
        note("ready");
        if (test_rank == late) stay_away(60);
        if (test_rank == 0) {
            char path[4096];
            struct stat st;
            snprintf(path, sizeof(path), "%s/ready.%u", dir, (unsigned)late);
            double t0 = test_now();
            while (stat(path, &st) != 0) { /* it polls no more (it may still be in the barrier above) */
                CHECKF(test_now() - t0 < 60, "no %s within 60 s", path);
                gasnet_AMPoll(); /* (UCX may need our progress to finish the barrier's sends) */
                usleep(1000);
            }
            void *theirs = (uint8_t *)test_bound_seg(test_tm, late, 1 << 16);
            gex_RMA_GetNBI(test_tm, buf, late, theirs, sizeof(buf), 0);
            gex_NBI_Wait(GEX_EC_GET, 0);
            for (int i = 0; i < 1024; i++)
                CHECKF(buf[i] == ((uint64_t)late << 32 | (unsigned)i), "word %d of the get: 0x%llx", i,
                       (unsigned long long)buf[i]);
        }
    } else {
        CHECKF(0, "unknown mode '%s' (barrier, am, nbi, sleepy)", mode);
    }
    test_finish("%s", mode);
    return 0;
}
