/* tests/perf/bench_mem.c - the private memory of a rank that has contacted every other
 * rank: built for each conduit (bench_mem_<conduit>), run by tests/perf/run-mem-bench with
 * jobs of 2, 8 and 16 processes and shared memory off (GASNET_SUPERNODE_MAXSIZE=1), which
 * derives the per-peer slope and the fixed part. Layer: tests (client code; the public API
 * and /proc/self/smaps only).
 *
 * What is counted ("private"): the sum of Private_Dirty over the mappings of
 * /proc/self/smaps, except those that overlap the segment (its pages are the client's,
 * whatever the conduit): the pages this process wrote and no other maps (heap, stacks,
 * anonymous mappings, its copies of libraries' data). Pages mapped by another process too
 * (a shared-memory object another rank maps) are Shared_* there, so not counted. Not
 * counted either: Private_Clean, file pages (libraries' text) that no other process
 * happens to map at the moment of the reading. Which those are depends on the timing of
 * the job's start and on which code paths only one rank ran: in a 2-process job they came
 * to 0-230 KiB more on the mean from run to run (ofi, 2026-11-27), which moved the
 * per-peer slope between the 2- and the 16-process job by up to 15 KiB.
 * BENCH_MEM_CLEAN=1 counts them too (the figures of docs/memory.md before 2026-11-27).
 * Three readings on every rank:
 *   before   at the start of main, before gex_Client_Init (the program and its libraries)
 *   init     after gex_Client_Init, gex_Segment_Attach and a barrier
 *   contact  after this rank sent every other rank a Medium request (256 bytes, answered
 *            by a Short reply), put 8 bytes to it and got 8 bytes from it, all completed,
 *            and a barrier (every rank's contacts done, so incoming state exists too)
 * Rank 0 prints, over the ranks, the mean and the maximum of each reading, in KiB:
 *   MEM <conduit> <nranks> <what> mean <KiB> max <KiB>
 * with what = before, init, contact, added (contact - before). The checks that make it
 * fail: every reply arrived, every get read what the peer put in place.
 * BENCH_MEM_DUMP=K: rank 0 also lists on stderr, at "contact", each mapping holding at
 * least K KiB of private memory (where it goes); BENCH_MEM_RANKS=1: rank 0 prints every
 * rank's readings. */
#include "bench_util.h"

#include <stdio.h>

#ifndef BENCH_CONDUIT
#define BENCH_CONDUIT "unknown"
#endif
#define SEG_SIZE (1u << 20)
#define MED_BYTES 256
enum { H_MED = 200, H_ACK };
enum { R_BEFORE, R_INIT, R_CONTACT, NREAD };

static atomic_uint_fast64_t g_acks;
static void h_med(gex_Token_t t, void *buf, size_t n) {
    (void)buf;
    (void)n;
    gex_AM_ReplyShort0(t, H_ACK, 0);
}
static void h_ack(gex_Token_t t) {
    (void)t;
    atomic_fetch_add_explicit(&g_acks, 1, memory_order_relaxed);
}
static gex_AM_Entry_t g_table[] = {
    {H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 0, NULL, "h_med"},
    {H_ACK, (gex_AM_Fn_t)h_ack, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, "h_ack"},
};

/* private KiB of this process, the mappings overlapping [skip, skip+skip_len) left out;
 * -1 if /proc/self/smaps cannot be read */
static long private_kib(uintptr_t skip, uintptr_t skip_len, int dump) {
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    static char line[512], head[512];
    long total = 0, here = 0;
    int skipping = 0, clean_too = getenv("BENCH_MEM_CLEAN") != NULL;
    for (int more = 1; more;) {
        more = fgets(line, sizeof(line), f) != NULL;
        unsigned long lo, hi, kib;
        char name[32];
        if (!more || sscanf(line, "%lx-%lx ", &lo, &hi) == 2) { /* a mapping's first line */
            if (dump && here >= dump) fprintf(stderr, "# bench_mem rank %u: %ld KiB private in %s", (unsigned)gex_System_QueryJobRank(), here, head);
            if (more) snprintf(head, sizeof(head), "%s", line);
            here = 0;
            skipping = more && skip_len && lo < skip + skip_len && hi > skip;
            continue;
        }
        if (!skipping && sscanf(line, "%31[A-Za-z_]: %lu kB", name, &kib) == 2 &&
            ((clean_too && !strcmp(name, "Private_Clean")) || !strcmp(name, "Private_Dirty")))
            total += (long)kib, here += (long)kib;
    }
    fclose(f);
    return total;
}

int main(int argc, char **argv) {
    long mine[NREAD];
    mine[R_BEFORE] = private_kib(0, 0, 0);
    bench_job_t j;
    bench_init(&j, &argc, &argv, "bench_mem", SEG_SIZE, g_table, sizeof(g_table) / sizeof(g_table[0]));
    if (mine[R_BEFORE] < 0) bench_fail(&j, "cannot read /proc/self/smaps");
    uintptr_t seg = (uintptr_t)j.my_seg, seglen = gex_Segment_QuerySize(j.seg);
    /* the segment: [0, 8) what peers get from here, then where their puts land (8 bytes
     * each), then rank 0 gathers the readings */
    uint64_t *mark = j.my_seg;
    *mark = 0xC0FFEE00u + j.me;
    size_t put_off = 64, gather_off = put_off + 8 * (size_t)j.nranks;
    if (gather_off + sizeof(long) * NREAD * j.nranks > seglen) bench_fail(&j, "the segment is too small for the job");
    bench_barrier(&j);
    mine[R_INIT] = private_kib(seg, seglen, 0);

    static uint8_t payload[MED_BYTES];
    uint64_t *got = calloc(j.nranks, sizeof(uint64_t));
    if (!got) bench_fail(&j, "out of memory");
    uint64_t src = j.me;
    for (gex_Rank_t k = 1; k < j.nranks; k++) { /* me+1 first: not everyone at rank 0 at once */
        gex_Rank_t p = (j.me + k) % j.nranks;
        void *pseg;
        if (gex_Segment_QueryBound(j.tm, p, &pseg, NULL, NULL)) bench_fail(&j, "gex_Segment_QueryBound failed");
        gex_AM_RequestMedium0(j.tm, p, H_MED, payload, sizeof(payload), GEX_EVENT_NOW, 0);
        gex_RMA_PutBlocking(j.tm, p, (uint8_t *)pseg + put_off + 8 * (size_t)j.me, &src, 8, 0);
        gex_RMA_GetNBI(j.tm, &got[p], p, pseg, 8, 0);
    }
    gex_NBI_Wait(GEX_EC_ALL, 0);
    while (atomic_load_explicit(&g_acks, memory_order_relaxed) < j.nranks - 1) gasnet_AMPoll();
    for (gex_Rank_t p = 0; p < j.nranks; p++)
        if (p != j.me && got[p] != 0xC0FFEE00u + p) bench_fail(&j, "a get read the wrong value");
    bench_barrier(&j);
    for (gex_Rank_t p = 0; p < j.nranks; p++)
        if (p != j.me && ((uint64_t *)((uint8_t *)j.my_seg + put_off))[p] != p)
            bench_fail(&j, "a put did not land");
    const char *dump = getenv("BENCH_MEM_DUMP");
    mine[R_CONTACT] = private_kib(seg, seglen, dump && j.me == 0 ? (atoi(dump) > 0 ? atoi(dump) : 1) : 0);

    void *seg0;
    if (gex_Segment_QueryBound(j.tm, 0, &seg0, NULL, NULL)) bench_fail(&j, "gex_Segment_QueryBound(0) failed");
    gex_RMA_PutBlocking(j.tm, 0, (uint8_t *)seg0 + gather_off + sizeof(mine) * j.me, mine, sizeof(mine), 0);
    bench_barrier(&j);
    if (j.me == 0) {
        const long(*all)[NREAD] = (const void *)((uint8_t *)j.my_seg + gather_off);
        static const char *what[] = {"before", "init", "contact", "added"};
        for (int w = 0; w <= NREAD; w++) {
            double sum = 0, max = 0;
            for (gex_Rank_t r = 0; r < j.nranks; r++) {
                double v = w < NREAD ? all[r][w] : all[r][R_CONTACT] - all[r][R_BEFORE];
                sum += v;
                if (r == 0 || v > max) max = v;
            }
            printf("MEM %s %u %s mean %.0f max %.0f\n", BENCH_CONDUIT, (unsigned)j.nranks, what[w], sum / j.nranks, max);
        }
        if (getenv("BENCH_MEM_RANKS")) /* every rank's readings */
            for (gex_Rank_t r = 0; r < j.nranks; r++)
                printf("# rank %u: before %ld init %ld contact %ld KiB\n", (unsigned)r, all[r][R_BEFORE], all[r][R_INIT],
                       all[r][R_CONTACT]);
        fflush(stdout);
    }
    free(got);
    bench_finish(&j);
    return 0;
}
