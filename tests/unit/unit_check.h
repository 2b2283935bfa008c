/* tests/unit/unit_check.h - the counting check of the unit tests that run as a job of the
 * library (test_core_am, test_event_leaf): CHECK counts every check and prints a failed one
 * with its condition and place, prefixed by unit_who (the test sets it: name, rank);
 * unit_end prints the totals and ends the job with status 1 if any check failed (a test
 * that runs no job, test_netlock, uses CHECK and prints its own totals).
 * Layer: tests (unit). */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H

#include <gasnet.h>
#include <stdio.h>

static int unit_failures, unit_checks;
static char unit_who[96] = "unit test";

#define CHECK(cond)                                                                                  \
    do {                                                                                             \
        unit_checks++;                                                                               \
        if (!(cond)) {                                                                               \
            unit_failures++;                                                                         \
            fprintf(stderr, "%s: FAILED check `%s` at %s:%d\n", unit_who, #cond, __FILE__, __LINE__); \
        }                                                                                            \
    } while (0)

/* the totals (detail: what passed, after "PASS N checks"; may be ""), then gasnet_exit */
static void unit_end(const char *detail) {
    if (unit_failures) {
        printf("%s: %d of %d checks FAILED\n", unit_who, unit_failures, unit_checks);
        gasnet_exit(1);
    }
    printf("%s: PASS %d checks%s\n", unit_who, unit_checks, detail);
    gasnet_exit(0);
}

#endif
