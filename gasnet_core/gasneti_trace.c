/* gasneti_trace.c: tracing (--enable-trace) and statistics (--enable-stats).
 * Layer: core. Compiled to nothing unless GASNETI_TRACE or GASNETI_STATS is set (the
 * hooks in the headers are then empty macros: no cost at all).
 *
 * Trace: GASNET_TRACEFILE names the file ('%' becomes the rank; "stderr" / "-" and
 * "stdout" are those streams); unset means no trace. One line per event:
 *     <rank> <seconds since init> <KIND> key=value ...
 * GASNET_TRACEMASK picks event groups by letter (default: all): A Active Messages sent
 * and handled, P puts, G gets, B barriers, W waits, R remote atomics, M memory (segment
 * attach), U client messages (GASNETT_TRACE_PRINTF), I information (start, end).
 * Records of puts, gets, barriers and segments (what gasnet_trace reports) end with
 *     [local=0|1] thread=T [internal=1] src=FILE:LINE
 * local: the peer is this process or a neighbor (shared memory); thread: the calling
 * thread, numbered from 0 in the order threads first trace; internal: the library's own
 * call; src: the source line of the API call (GASNETI_TRACE_SRC in the public headers'
 * wrapper macros), "?" when unknown (the last field: a path may hold spaces). A barrier
 * wait (gasnet_barrier_wait, gasnet_barrier, gex_Coll_BarrierBlocking, gex_Event_Wait on
 * the event of a barrier of the primordial team) is
 *     BARRIER_WAIT ns=<time in the wait> span_ns=<since the notify> thread=T [internal=1]
 *                  nsrc=<the notify's FILE:LINE> src=<the wait's FILE:LINE>
 * Stats: GASNET_STATSFILE likewise; at exit, one line per kind of operation seen, with
 * its count and the total, least and largest size in bytes (and for waits and barriers
 * the time spent), selected by GASNET_STATSMASK (same letters). */
#include "gasneti_internal.h"

#if GASNETI_TRACE || GASNETI_STATS

#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>

static const struct {
    const char *name;
    char group;
} kinds[GASNETI_TK_COUNT] = {
    [GASNETI_TK_AMREQ_SHORT] = {"AMREQUEST_SHORT", 'A'},  [GASNETI_TK_AMREQ_MEDIUM] = {"AMREQUEST_MEDIUM", 'A'},
    [GASNETI_TK_AMREQ_LONG] = {"AMREQUEST_LONG", 'A'},    [GASNETI_TK_AMREP_SHORT] = {"AMREPLY_SHORT", 'A'},
    [GASNETI_TK_AMREP_MEDIUM] = {"AMREPLY_MEDIUM", 'A'},  [GASNETI_TK_AMREP_LONG] = {"AMREPLY_LONG", 'A'},
    [GASNETI_TK_AMRUN_REQ] = {"AMHANDLER_REQUEST", 'A'},  [GASNETI_TK_AMRUN_REP] = {"AMHANDLER_REPLY", 'A'},
    [GASNETI_TK_PUT_BLOCKING] = {"PUT_BLOCKING", 'P'},    [GASNETI_TK_PUT_NB] = {"PUT_NB", 'P'},
    [GASNETI_TK_PUT_NBI] = {"PUT_NBI", 'P'},              [GASNETI_TK_GET_BLOCKING] = {"GET_BLOCKING", 'G'},
    [GASNETI_TK_GET_NB] = {"GET_NB", 'G'},                [GASNETI_TK_GET_NBI] = {"GET_NBI", 'G'},
    [GASNETI_TK_BARRIER_NOTIFY] = {"BARRIER_NOTIFY", 'B'}, [GASNETI_TK_BARRIER_WAIT] = {"BARRIER_WAIT", 'B'},
    [GASNETI_TK_WAIT] = {"WAIT_SYNC", 'W'},               [GASNETI_TK_AMO] = {"ATOMIC", 'R'},
    [GASNETI_TK_SEGMENT] = {"SEGMENT_ATTACH", 'M'},
};
#define GROUPS "ABGIMPRUW"

/* this thread's number, the source line of its current API call, its last notify */
static unsigned nthreads;
static __thread unsigned my_thread1; /* number + 1; 0: not yet numbered */
static __thread struct {
    const char *file;
    int line, internal;
} src;
static __thread struct {
    uint64_t ns;
    const char *file;
    int line;
} notify;

void gasneti_trace_setsrc(const char *file, int line, int internal) {
    src.file = file, src.line = line, src.internal = internal;
}

static unsigned my_thread(void) {
    if (!my_thread1) my_thread1 = __atomic_add_fetch(&nthreads, 1, __ATOMIC_RELAXED);
    return my_thread1 - 1;
}

/* " thread=T [internal=1] src=FILE:LINE" of the current call (lock held) */
static void put_src(FILE *f, const char *file, int line, int internal) {
    fprintf(f, " thread=%u%s", my_thread(), internal ? " internal=1" : "");
    if (file) fprintf(f, " src=%s:%d", file, line);
    else fputs(" src=?", f);
}

static FILE *trace_f, *stats_f;
static char trace_mask[32] = GROUPS, stats_mask[32] = GROUPS;
static struct timespec t_start;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uint64_t n, bytes, least, most, ns;
} st[GASNETI_TK_COUNT];

static double since_start(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)(ts.tv_sec - t_start.tv_sec) + (double)(ts.tv_nsec - t_start.tv_nsec) * 1e-9;
}

uint64_t gasneti_trace_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* a file named by variable var, '%' replaced by the rank */
static FILE *open_out(const char *var) {
    const char *v = gasneti_getenv(var);
    if (!v || !*v) return NULL;
    if (!strcmp(v, "-") || !strcmp(v, "stderr")) return stderr;
    if (!strcmp(v, "stdout")) return stdout;
    char path[1024];
    size_t o = 0;
    for (const char *p = v; *p && o < sizeof(path) - 16; p++) {
        if (*p == '%') o += (size_t)snprintf(path + o, sizeof(path) - o, "%u", (unsigned)gasneti_mynode);
        else path[o++] = *p;
    }
    path[o] = 0;
    FILE *f = fopen(path, "w");
    if (!f) gasneti_launch_error("%s=%s: cannot write %s", var, v, path);
    return f;
}

static void read_mask(const char *var, char *mask) {
    const char *v = gasneti_getenv_dflt(var, mask);
    if (!v || !*v) return;
    for (const char *p = v; *p; p++)
        if (!strchr(GROUPS, *p)) gasneti_launch_error("%s=%s: '%c' is not a group (A B G I M P R U W)", var, v, *p);
    snprintf(mask, 32, "%s", v);
}

static int tracing(char group) { return trace_f && strchr(trace_mask, group); }

void gasneti_trace_init(void) {
    clock_gettime(CLOCK_MONOTONIC, &t_start);
#if GASNETI_TRACE
    trace_f = open_out("GASNET_TRACEFILE");
    read_mask("GASNET_TRACEMASK", trace_mask);
#endif
#if GASNETI_STATS
    stats_f = open_out("GASNET_STATSFILE");
    read_mask("GASNET_STATSMASK", stats_mask);
#endif
    for (int k = 0; k < GASNETI_TK_COUNT; k++) st[k].least = UINT64_MAX;
    if (tracing('I')) {
        pthread_mutex_lock(&lock);
        fprintf(trace_f, "%u %.6f INFO start rank=%u ranks=%u config=%s\n", (unsigned)gasneti_mynode, 0.0,
                (unsigned)gasneti_mynode, (unsigned)gasneti_nodes, GASNET_CONFIG_STRING);
        fflush(trace_f);
        pthread_mutex_unlock(&lock);
    }
}

void gasneti_trace_op(int kind, gex_Rank_t peer, size_t bytes, unsigned handler) {
    if (kind == GASNETI_TK_BARRIER_NOTIFY) notify.ns = gasneti_trace_now_ns(), notify.file = src.file, notify.line = src.line;
    if (!trace_f && !stats_f) return;
    pthread_mutex_lock(&lock);
    if (stats_f) {
        st[kind].n++;
        st[kind].bytes += bytes;
        if (bytes < st[kind].least) st[kind].least = bytes;
        if (bytes > st[kind].most) st[kind].most = bytes;
    }
    if (tracing(kinds[kind].group)) {
        fprintf(trace_f, "%u %.6f %s peer=%u bytes=%zu", (unsigned)gasneti_mynode, since_start(), kinds[kind].name,
                (unsigned)peer, bytes);
        char g = kinds[kind].group;
        if (g == 'A') fprintf(trace_f, " handler=%u", handler);
        if (g == 'P' || g == 'G')
            fprintf(trace_f, " local=%d", peer == gasneti_mynode || (gasneti_nbrhd_index && gasneti_nbrhd_index[peer] >= 0));
        if (g == 'P' || g == 'G' || g == 'B' || g == 'M') put_src(trace_f, src.file, src.line, src.internal);
        fputc('\n', trace_f);
    }
    pthread_mutex_unlock(&lock);
}

gasneti_trace_mark_t gasneti_trace_mark(void) {
    gasneti_trace_mark_t m = {gasneti_trace_now_ns(), src.file, src.line, src.internal};
    return m;
}

/* a barrier wait that began at *m (its own source line) and ends now */
void gasneti_trace_barrier_wait(const gasneti_trace_mark_t *m) {
    uint64_t now = gasneti_trace_now_ns(), ns = now - m->t0;
    if (!trace_f && !stats_f) return;
    pthread_mutex_lock(&lock);
    if (stats_f) {
        st[GASNETI_TK_BARRIER_WAIT].n++;
        st[GASNETI_TK_BARRIER_WAIT].ns += ns;
    }
    if (tracing('B')) {
        fprintf(trace_f, "%u %.6f BARRIER_WAIT ns=%llu span_ns=%llu", (unsigned)gasneti_mynode, since_start(),
                (unsigned long long)ns, (unsigned long long)(notify.ns ? now - notify.ns : ns));
        fprintf(trace_f, " thread=%u%s", my_thread(), m->internal ? " internal=1" : "");
        if (notify.file) fprintf(trace_f, " nsrc=%s:%d", notify.file, notify.line);
        else fputs(" nsrc=?", trace_f);
        if (m->file) fprintf(trace_f, " src=%s:%d\n", m->file, m->line);
        else fputs(" src=?\n", trace_f);
    }
    notify.ns = 0;
    pthread_mutex_unlock(&lock);
}

void gasneti_trace_time(int kind, uint64_t ns) {
    if (!trace_f && !stats_f) return;
    pthread_mutex_lock(&lock);
    if (stats_f) {
        st[kind].n++;
        st[kind].ns += ns;
    }
    if (tracing(kinds[kind].group))
        fprintf(trace_f, "%u %.6f %s ns=%llu\n", (unsigned)gasneti_mynode, since_start(), kinds[kind].name,
                (unsigned long long)ns);
    pthread_mutex_unlock(&lock);
}

/* GASNETT_TRACE_PRINTF (U) and GASNETT_STATS_PRINTF (a line in the statistics file) */
void gasneti_trace_printf(int to_stats, const char *fmt, ...) {
    FILE *f = to_stats ? stats_f : (trace_f && strchr(trace_mask, 'U') ? trace_f : NULL);
    if (!f) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&lock);
    fprintf(f, "%u %.6f USER %s\n", (unsigned)gasneti_mynode, since_start(), msg);
    pthread_mutex_unlock(&lock);
}


/* the STATS block: a header line and one STAT line per kind seen (lock held) */
static void stats_write(int reset) {
    fprintf(stats_f, "%u STATS rank=%u ranks=%u seconds=%.6f config=%s\n", (unsigned)gasneti_mynode,
            (unsigned)gasneti_mynode, (unsigned)gasneti_nodes, since_start(), GASNET_CONFIG_STRING);
    for (int k = 0; k < GASNETI_TK_COUNT; k++) {
        if (!st[k].n || !strchr(stats_mask, kinds[k].group)) continue;
        if (k == GASNETI_TK_WAIT || k == GASNETI_TK_BARRIER_WAIT)
            fprintf(stats_f, "%u STAT %s count=%llu seconds=%.6f\n", (unsigned)gasneti_mynode, kinds[k].name,
                    (unsigned long long)st[k].n, (double)st[k].ns * 1e-9);
        else
            fprintf(stats_f, "%u STAT %s count=%llu bytes=%llu least=%llu most=%llu\n", (unsigned)gasneti_mynode,
                    kinds[k].name, (unsigned long long)st[k].n, (unsigned long long)st[k].bytes,
                    (unsigned long long)st[k].least, (unsigned long long)st[k].most);
    }
    if (reset) {
        memset(st, 0, sizeof st);
        for (int k = 0; k < GASNETI_TK_COUNT; k++) st[k].least = UINT64_MAX;
    }
    fflush(stats_f);
}

/* GASNETT_STATS_DUMP(reset): a STATS block now, then (reset) counting from zero */
void gasneti_stats_dump(int reset) {
    pthread_mutex_lock(&lock);
    if (stats_f) stats_write(reset);
    pthread_mutex_unlock(&lock);
}

/* at exit (every way out that runs gasneti_trace_fini: gasnet_exit, a return from main,
 * a fatal error) */
void gasneti_trace_fini(void) {
    pthread_mutex_lock(&lock);
    if (stats_f) {
        stats_write(0);
        if (stats_f != stderr && stats_f != stdout) fclose(stats_f);
        else fflush(stats_f);
        stats_f = NULL;
    }
    if (trace_f) {
        if (strchr(trace_mask, 'I'))
            fprintf(trace_f, "%u %.6f INFO end\n", (unsigned)gasneti_mynode, since_start());
        if (trace_f != stderr && trace_f != stdout) fclose(trace_f);
        else fflush(trace_f);
        trace_f = NULL;
    }
    pthread_mutex_unlock(&lock);
}

#else
typedef int gasneti_trace_empty_unit; /* ISO C wants something in a translation unit */
#endif
