/* tests/unit/test_segsize.c: the GASNET_MAX_SEGSIZE parser, gasneti_parse_segsize(),
 * called directly (single process, no job).  Forms: absolute sizes with optional units
 * K/M/G/T (with or without B, any case), "/P" (per process, the default) and "/H" (per host,
 * divided among the processes on the host), and a bare fraction of the host's physical
 * memory, divided among the processes on the host.  Results are not page-rounded.
 * Malformed input returns -1 and leaves *out alone.
 * Layer: tests (unit; links the library, uses an internal header). */
#include <gasnetex.h>
#include "gasneti_internal.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static int failures, checks;

#define KB ((uint64_t)1 << 10)
#define MB ((uint64_t)1 << 20)
#define GB ((uint64_t)1 << 30)
#define TB ((uint64_t)1 << 40)
#define SENTINEL ((uint64_t)0xDEADBEEFCAFEF00Dull)

/* tol: allowed difference (fractions of memory are not exact in binary) */
static void ok(const char *s, uint64_t physmem, unsigned procs, uint64_t want, uint64_t tol) {
    uint64_t out = SENTINEL;
    int rc = gasneti_parse_segsize(s, physmem, procs, &out);
    checks++;
    uint64_t diff = out > want ? out - want : want - out;
    if (rc != 0 || diff > tol) {
        fprintf(stderr, "test_segsize: FAILED gasneti_parse_segsize(\"%s\", physmem=%" PRIu64 ", procs=%u): "
                        "returned %d, value %" PRIu64 ", expected 0 and %" PRIu64 "\n",
                s, physmem, procs, rc, out, want);
        failures++;
    }
}
static void bad(const char *s) {
    uint64_t out = SENTINEL;
    int rc = gasneti_parse_segsize(s, 16 * GB, 4, &out);
    checks++;
    if (rc != -1 || out != SENTINEL) {
        fprintf(stderr, "test_segsize: FAILED gasneti_parse_segsize(\"%s\"): returned %d and wrote %" PRIu64
                        ", expected -1 and no output\n", s, rc, out);
        failures++;
    }
}

int main(void) {
    const uint64_t mem = 16 * GB;
    /* the forms from the issue */
    ok("512MB", mem, 4, 512 * MB, 0);
    ok("0.5GB", mem, 4, 512 * MB, 0);
    ok("128.0MB/P", mem, 4, 128 * MB, 0);
    ok("2GB/H", mem, 4, 2 * GB / 4, 0);
    ok("2GB/H", mem, 1, 2 * GB, 0);
    ok("3GB/H", mem, 3, GB, 0);
    ok("0.85", mem, 4, (uint64_t)(0.85 * (double)mem / 4), 1);
    ok("0.85", mem, 1, (uint64_t)(0.85 * (double)mem), 1);
    ok("0.5", 8 * GB, 2, 2 * GB, 1);
    ok("0.25", 24105 * MB, 1, (uint64_t)(0.25 * (double)(24105 * MB)), 1);
    /* plain integers are bytes */
    ok("1024", mem, 4, 1024, 0);
    ok("4096", mem, 1, 4096, 0);
    ok("123456789", mem, 8, 123456789, 0);
    /* units: K M G T, with or without B, in any case */
    ok("1K", mem, 4, KB, 0);
    ok("1KB", mem, 4, KB, 0);
    ok("1kb", mem, 4, KB, 0);
    ok("1k", mem, 4, KB, 0);
    ok("1Kb", mem, 4, KB, 0);
    ok("64M", mem, 4, 64 * MB, 0);
    ok("64mb", mem, 4, 64 * MB, 0);
    ok("3G", mem, 4, 3 * GB, 0);
    ok("3g", mem, 4, 3 * GB, 0);
    ok("1T", mem, 4, TB, 0);
    ok("1TB", mem, 4, TB, 0);
    ok("2tb", mem, 4, 2 * TB, 0);
    ok("1.5GB", mem, 4, 3 * GB / 2, 0);
    ok("0.25MB", mem, 4, 256 * KB, 0);
    ok("512MB/P", mem, 4, 512 * MB, 0);
    ok("100000GB", mem, 4, 100000 * GB, 0); /* parses; the caller decides it is too big */
    /* malformed */
    bad("abc");
    bad("");
    bad("-5MB");
    bad("1.5.5GB");
    bad("10XB");
    bad("MB");
    bad("12MBB");
    bad("5GB/X");

    if (failures) {
        fprintf(stderr, "test_segsize: %d of %d checks failed\n", failures, checks);
        return 1;
    }
    printf("test_segsize: PASS %d checks\n", checks);
    return 0;
}
