/* tests/api/test_launch.c: what a launcher handed to each process, for
 * tests/api/test_launcher.sh to compare with what it gave the launcher.
 * Every rank prints, one line each and prefixed "rank R:", its argument count, every
 * argument after argv[0] and the variables TEST_FWD and TEST_FWD2 as hex bytes (so spaces,
 * quotes and empty strings are unambiguous; "unset" for a missing variable), then
 * exchanges an AM with every other rank and says "rank R: done".
 * TEST_HOLD_SECS=S keeps the job polling for S seconds before its final barrier (so the
 * driver can act on a running job); TEST_EXIT_CODE=C makes the last rank call
 * gasnet_exit(C) after the barrier (every process must leave with C).
 * Layer: tests (public API only). */
#include "test_util.h"

#include <string.h>

static void print_hex(const char *what, const char *s) {
    printf("rank %u: %s ", (unsigned)test_rank, what);
    if (!s) {
        printf("unset\n");
        return;
    }
    printf("x"); /* an empty value still has a word */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) printf("%02x", *p);
    printf("\n");
}

static volatile int pings;
static void ping_handler(gex_Token_t t) {
    (void)t;
    __atomic_add_fetch(&pings, 1, __ATOMIC_RELAXED);
}

int main(int argc, char **argv) {
    test_init("test_launch", &argc, &argv);
    gex_AM_Entry_t tab[] = {{200, (gex_AM_Fn_t)ping_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "ping"}};
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, 1), GASNET_OK);

    char what[32];
    printf("rank %u: argc %d\n", (unsigned)test_rank, argc);
    for (int i = 1; i < argc; i++) {
        snprintf(what, sizeof(what), "arg%d", i);
        print_hex(what, argv[i]);
    }
    print_hex("TEST_FWD", getenv("TEST_FWD"));
    print_hex("TEST_FWD2", getenv("TEST_FWD2"));
    fflush(stdout);

    test_barrier();
    for (gex_Rank_t r = 0; r < test_size; r++) gex_AM_RequestShort0(test_tm, r, 200, 0);
    TEST_POLL_UNTIL(__atomic_load_n(&pings, __ATOMIC_RELAXED) == (int)test_size, 60, "got %d of %u pings", pings,
                    (unsigned)test_size);
    const char *hold = getenv("TEST_HOLD_SECS");
    if (hold && *hold) {
        double t0 = test_now(), secs = atof(hold);
        while (test_now() - t0 < secs) {
            gasnet_AMPoll();
            test_sleep_ms(1);
        }
    }
    test_barrier();
    printf("rank %u: done\n", (unsigned)test_rank);
    fflush(stdout);
    const char *code = getenv("TEST_EXIT_CODE");
    if (code && *code) {
        if (test_rank == test_size - 1) gasnet_exit(atoi(code));
        for (;;) { /* the others wait to be ended by it */
            gasnet_AMPoll();
            test_sleep_ms(1);
        }
    }
    gasnet_exit(0);
    return 0;
}
