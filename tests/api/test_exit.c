/* tests/api/test_exit.c: job termination, driven by tests/api/test_exit.sh, which checks
 * the job's status, the timing and that no process survives.
 *   exit7    rank N-1 calls gasnet_exit(7) after a barrier; the others compute forever
 *            without calling GASNet.  Expect status 7, everything gone within 5 s.
 *   kill     rank N-1 raises SIGKILL; even ranks wait in a barrier, odd ranks compute.
 *            Expect a non-zero status within 10 s.
 *   return0  every rank returns 0 from main after a barrier.  Expect status 0.
 *   return3  every rank returns 3 from main after a barrier.  Expect status 3.
 *   stagger  rank 0 returns at once, the others 1 s later, each after printing a line.
 *            Expect status 0 and every line.
 *   straggler  every rank but N-1 calls gasnet_exit(0) after a barrier; rank N-1 waits in
 *            a barrier the others never enter.  Expect status 0 at once (within 8 s on mpi).
 *   signal   each rank writes its pid to DIR/rank<r>.pid and polls; the driver signals one.
 * Usage: test_exit MODE [DIR] [marker...]   (extra arguments are ignored)
 * Layer: tests (public API only). */
#include "test_util.h"
#include <signal.h>
#include <unistd.h>

static long long realtime_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* computes for at most 'secs' without any GASNet call, then fails */
static void compute_forever(double secs, const char *why) {
    volatile uint64_t x = test_rank;
    double t0 = test_now();
    while (test_now() - t0 < secs)
        for (int i = 0; i < 100000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    fprintf(stderr, "test_exit: rank %u still alive after %.0f s (%s)\n", (unsigned)test_rank, secs, why);
    fflush(stderr);
    _exit(99);
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    test_init("test_exit", &argc, &argv);
    test_barrier();

    if (!strcmp(mode, "exit7")) {
        printf("rank %u ready\n", (unsigned)test_rank);
        fflush(stdout);
        test_barrier();
        if (test_rank == test_size - 1) {
            test_sleep_ms(200); /* let the others get into their loop */
            printf("EXIT_AT %lld\n", realtime_ns());
            fflush(stdout);
            gasnet_exit(7);
            fprintf(stderr, "test_exit: gasnet_exit returned\n");
            _exit(98);
        }
        compute_forever(60, "gasnet_exit(7) on another rank did not end this one");
    } else if (!strcmp(mode, "kill")) {
        test_barrier();
        if (test_rank == test_size - 1) {
            test_sleep_ms(200);
            printf("KILL_AT %lld\n", realtime_ns());
            fflush(stdout);
            raise(SIGKILL);
            _exit(97);
        }
        if (test_rank % 2 == 0) {
            gex_Event_t ev = gex_Coll_BarrierNB(test_tm, 0); /* never completes: rank N-1 is gone */
            double t0 = test_now();
            while (gex_Event_Test(ev) != 0) {
                gasnet_AMPoll();
                if (test_now() - t0 > 60) break;
            }
            fprintf(stderr, "test_exit: rank %u left a barrier that a killed rank never entered\n", (unsigned)test_rank);
            _exit(96);
        }
        compute_forever(60, "a killed peer did not end this rank");
    } else if (!strcmp(mode, "straggler")) {
        test_barrier();
        if (test_rank == test_size - 1 && test_size > 1) {
            gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS); /* the others never come */
            gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
            fprintf(stderr, "test_exit: rank %u left a barrier the others never entered\n", (unsigned)test_rank);
            _exit(96);
        }
        test_sleep_ms(200); /* let rank N-1 get into its barrier */
        if (test_rank == 0) {
            printf("EXIT_AT %lld\n", realtime_ns());
            fflush(stdout);
        }
        gasnet_exit(0);
        fprintf(stderr, "test_exit: gasnet_exit returned\n");
        _exit(98);
    } else if (!strcmp(mode, "return0") || !strcmp(mode, "return3")) {
        test_barrier();
        printf("rank %u returning\n", (unsigned)test_rank);
        fflush(stdout);
        return mode[6] == '3' ? 3 : 0;
    } else if (!strcmp(mode, "stagger")) {
        test_barrier();
        if (test_rank != 0) test_sleep_ms(1000);
        printf("rank %u done\n", (unsigned)test_rank);
        fflush(stdout);
        return 0;
    } else if (!strcmp(mode, "signal")) {
        CHECKF(argc > 2, "usage: test_exit signal DIR");
        char path[4096], tmp[4200];
        snprintf(path, sizeof path, "%s/rank%u.pid", argv[2], (unsigned)test_rank);
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        FILE *f = fopen(tmp, "w");
        CHECKF(f != NULL, "cannot write %s", tmp);
        fprintf(f, "%ld\n", (long)getpid());
        CHECK(fclose(f) == 0);
        CHECK(rename(tmp, path) == 0);
        double t0 = test_now();
        while (test_now() - t0 < 60) {
            gasnet_AMPoll();
            test_sleep_ms(5);
        }
        fprintf(stderr, "test_exit: rank %u still alive after 60 s (signal mode)\n", (unsigned)test_rank);
        _exit(99);
    }
    CHECKF(0, "unknown mode \"%s\"", mode);
    return 1;
}
