/* gasnet_trace.c: the installed program that summarises the trace files of a library built
 * with --enable-trace (gasnet_core/gasneti_trace.c writes them; docs/diagnostics.md has
 * both formats): per source line of the client's calls, the calls and the total, average,
 * least and largest bytes of puts, gets and segment attaches, and time of barrier waits.
 *   gasnet_trace [options] trace-file(s)
 * Several files (one per rank) make one report. Only libc: no library internals.
 * Layer: other (tools). */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum { SEC_PUT, SEC_GET, SEC_BARRIER, SEC_MEMORY, NSEC };
static const char *const sec_name[NSEC] = {"PUT", "GET", "BARRIER", "MEMORY"};
enum { SORT_TOTAL, SORT_AVG, SORT_MIN, SORT_MAX, SORT_CALLS, SORT_TYPE, SORT_SRC, NSORT };
static const char *const sort_name[NSORT] = {"TOTAL", "AVG", "MIN", "MAX", "CALLS", "TYPE", "SRC"};
enum { F_LOCAL, F_GLOBAL, F_WAIT, F_WAITNOTIFY, NFILTER };
static const char *const filter_name[NFILTER] = {"LOCAL", "GLOBAL", "WAIT", "WAITNOTIFY"};

static struct {
    int report[NSEC], sort, filter[NFILTER], peer, thread, internal, full;
} opt = {{1, 1, 1, 1}, SORT_TOTAL, {0}, 0, 0, 0, 0};

typedef struct {
    int sec;
    char type[24];
    char *src;         /* FILE:LINE as recorded */
    long peer, rank, thread; /* -1: not part of the line's key */
    uint64_t calls, total, least, most;
} line_t;

static line_t *lines;
static size_t nlines, cap_lines;
static size_t *hash; /* open addressing over lines: index + 1, 0 empty */
static size_t hash_cap;
static unsigned long long nrecords;
static long max_rank = -1, job_ranks = -1;

static void die(int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("gasnet_trace: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(status);
}

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n);
    if (!p) die(1, "out of memory");
    return p;
}

static uint64_t fnv(const void *p, size_t n, uint64_t h) {
    for (const unsigned char *c = p; n--; c++) h = (h ^ *c) * 1099511628211ull;
    return h;
}

static uint64_t key_hash(int sec, const char *type, const char *src, long peer, long rank, long thread) {
    uint64_t h = fnv(&sec, sizeof sec, 14695981039346656037ull);
    h = fnv(type, strlen(type), h);
    h = fnv(src, strlen(src), h);
    long k[3] = {peer, rank, thread};
    return fnv(k, sizeof k, h);
}

static void rehash(void) {
    hash_cap = hash_cap ? 2 * hash_cap : 1024;
    free(hash);
    hash = calloc(hash_cap, sizeof *hash);
    if (!hash) die(1, "out of memory");
    for (size_t i = 0; i < nlines; i++) {
        line_t *l = &lines[i];
        size_t h = key_hash(l->sec, l->type, l->src, l->peer, l->rank, l->thread) & (hash_cap - 1);
        while (hash[h]) h = (h + 1) & (hash_cap - 1);
        hash[h] = i + 1;
    }
}

/* add one value to the line of this key (made on first use) */
static void add(int sec, const char *type, const char *src, long peer, long rank, long thread, uint64_t v) {
    if (2 * (nlines + 1) > hash_cap) rehash();
    size_t h = key_hash(sec, type, src, peer, rank, thread) & (hash_cap - 1);
    for (; hash[h]; h = (h + 1) & (hash_cap - 1)) {
        line_t *l = &lines[hash[h] - 1];
        if (l->sec == sec && l->peer == peer && l->rank == rank && l->thread == thread && !strcmp(l->type, type) &&
            !strcmp(l->src, src))
            goto found;
    }
    if (nlines == cap_lines) lines = xrealloc(lines, (cap_lines = cap_lines ? 2 * cap_lines : 256) * sizeof *lines);
    line_t *n = &lines[nlines++];
    memset(n, 0, sizeof *n);
    n->sec = sec, n->peer = peer, n->rank = rank, n->thread = thread, n->least = UINT64_MAX;
    snprintf(n->type, sizeof n->type, "%s", type);
    n->src = strdup(src);
    if (!n->src) die(1, "out of memory");
    hash[h] = nlines;
found:;
    line_t *l = &lines[hash[h] - 1];
    l->calls++;
    l->total += v;
    if (v < l->least) l->least = v;
    if (v > l->most) l->most = v;
}

/* ---- reading the records ---- */
typedef struct {
    long peer, local, thread, internal;
    long long bytes, ns, span;
    const char *src, *nsrc;
} rec_t;

static int number(const char *s, long long *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 0) return -1;
    *out = v;
    return 0;
}

/* the key=value fields of a record (text after KIND), src= being the rest of the line and
 * nsrc= everything between it and src=; 0, or -1 if a field is malformed */
static int fields(char *p, rec_t *r) {
    memset(r, 0, sizeof *r);
    r->peer = r->local = r->thread = r->bytes = r->ns = r->span = -1;
    char *s = NULL;
    for (char *q = p; (q = strstr(q, "src=")); q++)
        if (q == p || q[-1] == ' ') s = q; /* the last " src=" (nsrc= does not match: 'n' precedes) */
    if (s) {
        r->src = s + 4;
        if (s > p) s[-1] = 0;
        else *p = 0;
    }
    char *n = strstr(p, "nsrc=");
    if (n && (n == p || n[-1] == ' ')) {
        r->nsrc = n + 5;
        *n = 0;
    }
    for (char *save = NULL, *w = strtok_r(p, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(w, '=');
        long long v;
        if (!eq) return -1;
        *eq = 0;
        if (number(eq + 1, &v)) continue; /* handler=, and fields of other kinds: not ours */
        if (!strcmp(w, "peer")) r->peer = (long)v;
        else if (!strcmp(w, "bytes")) r->bytes = v;
        else if (!strcmp(w, "local")) r->local = (long)v;
        else if (!strcmp(w, "thread")) r->thread = (long)v;
        else if (!strcmp(w, "internal")) r->internal = (long)v;
        else if (!strcmp(w, "ns")) r->ns = v;
        else if (!strcmp(w, "span_ns")) r->span = v;
    }
    return 0;
}

static void record(const char *file, unsigned long ln, long rank, const char *kind, char *rest) {
    int sec = -1;
    if (!strncmp(kind, "PUT_", 4)) sec = SEC_PUT;
    else if (!strncmp(kind, "GET_", 4)) sec = SEC_GET;
    else if (!strcmp(kind, "BARRIER_WAIT")) sec = SEC_BARRIER;
    else if (!strcmp(kind, "SEGMENT_ATTACH")) sec = SEC_MEMORY;
    if (sec < 0) return; /* AMs, waits, notifies, atomics, user lines: not reported */
    rec_t r;
    int bad = fields(rest, &r) || !r.src || r.thread < 0;
    if (sec == SEC_BARRIER) bad = bad || r.ns < 0 || r.span < 0 || !r.nsrc;
    else bad = bad || r.bytes < 0 || r.peer < 0 || (sec != SEC_MEMORY && r.local < 0);
    if (bad)
        die(1, "%s:%lu: a %s record without the fields this report needs (peer, bytes, local, thread, src; a trace "
               "of another version?)", file, ln, kind);
    if (r.internal && !opt.internal) return;
    long thr_rank = opt.thread ? rank : -1, thr = opt.thread ? r.thread : -1;
    if (sec == SEC_BARRIER) {
        if (!opt.filter[F_WAIT]) add(sec, "WAIT", r.src, -1, thr_rank, thr, (uint64_t)r.ns);
        if (!opt.filter[F_WAITNOTIFY]) add(sec, "WAITNOTIFY", r.nsrc, -1, thr_rank, thr, (uint64_t)r.span);
        return;
    }
    if (sec != SEC_MEMORY && opt.filter[r.local ? F_LOCAL : F_GLOBAL]) return;
    long peer = opt.peer && sec != SEC_MEMORY ? r.peer : -1;
    add(sec, sec == SEC_MEMORY ? "ATTACH" : kind + 4, r.src, peer, thr_rank, thr, (uint64_t)r.bytes);
}

static void read_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) die(1, "%s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t cap = 0;
    unsigned long ln = 0, mine = 0;
    ssize_t len;
    while ((len = getline(&buf, &cap, f)) >= 0) {
        ln++;
        while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = 0;
        if (!len) continue;
        char *save = NULL, *rk = strtok_r(buf, " ", &save), *tm = strtok_r(NULL, " ", &save),
             *kind = strtok_r(NULL, " ", &save), *rest = save ? save : (char *)"";
        long long rank;
        char *end = NULL;
        if (!rk || !tm || !kind || number(rk, &rank) || (strtod(tm, &end), !end || *end || end == tm))
            die(1, "%s:%lu: not a trace record (expected '<rank> <seconds> <KIND> ...'%s)", path, ln,
                tm && !strcmp(tm, "STATS") ? "; this is a statistics file" : "");
        for (const char *k = kind; *k; k++)
            if (!isupper((unsigned char)*k) && *k != '_')
                die(1, "%s:%lu: not a trace record (KIND '%s')", path, ln, kind);
        if (!strcmp(kind, "INFO") && !strncmp(rest, "start ", 6)) {
            const char *n = strstr(rest, " ranks=");
            if (n) job_ranks = atol(n + 7);
        }
        if (rank > max_rank) max_rank = (long)rank;
        mine++;
        nrecords++;
        record(path, ln, (long)rank, kind, rest);
    }
    free(buf);
    fclose(f);
    if (!mine) die(1, "%s: no trace records (an empty file, or not a trace)", path);
}

/* ---- the report ---- */
static int cmp_u64(uint64_t a, uint64_t b) { return a < b ? -1 : a > b; }

static int cmp_src(const char *a, const char *b) { /* by file, then line as a number */
    const char *ca = strrchr(a, ':'), *cb = strrchr(b, ':');
    size_t la = ca ? (size_t)(ca - a) : strlen(a), lb = cb ? (size_t)(cb - b) : strlen(b);
    int c = strncmp(a, b, la < lb ? la : lb);
    if (c) return c;
    if (la != lb) return la < lb ? -1 : 1;
    return (ca ? atol(ca + 1) : 0) < (cb ? atol(cb + 1) : 0) ? -1 : (ca ? atol(ca + 1) : 0) > (cb ? atol(cb + 1) : 0);
}

static int cmp_lines(const void *pa, const void *pb) {
    const line_t *a = pa, *b = pb;
    int c = 0;
    switch (opt.sort) { /* the figures largest first; TYPE and SRC in order */
    case SORT_TOTAL: c = -cmp_u64(a->total, b->total); break;
    case SORT_AVG: c = -cmp_u64(a->total * b->calls, b->total * a->calls); break;
    case SORT_MIN: c = -cmp_u64(a->least, b->least); break;
    case SORT_MAX: c = -cmp_u64(a->most, b->most); break;
    case SORT_CALLS: c = -cmp_u64(a->calls, b->calls); break;
    case SORT_TYPE: c = strcmp(a->type, b->type); break;
    }
    if (!c) c = cmp_src(a->src, b->src);
    if (!c) c = strcmp(a->type, b->type);
    if (!c) c = a->peer < b->peer ? -1 : a->peer > b->peer;
    if (!c) c = a->rank < b->rank ? -1 : a->rank > b->rank;
    if (!c) c = a->thread < b->thread ? -1 : a->thread > b->thread;
    return c;
}

static const char *shown_src(const char *src) {
    if (opt.full) return src;
    const char *slash = strrchr(src, '/');
    return slash ? slash + 1 : src;
}

static void fmt_value(char *out, size_t n, int sec, uint64_t v) {
    if (sec == SEC_BARRIER) snprintf(out, n, "%.3f", (double)v / 1000.0); /* ns -> us */
    else snprintf(out, n, "%llu", (unsigned long long)v);
}

static void section(FILE *o, int sec) {
    size_t n = 0, w = 6;
    for (size_t i = 0; i < nlines; i++)
        if (lines[i].sec == sec) {
            line_t t = lines[n]; /* this section's lines first */
            lines[n] = lines[i], lines[i] = t;
            size_t l = strlen(shown_src(lines[n].src));
            if (l > w) w = l;
            n++;
        }
    qsort(lines, n, sizeof *lines, cmp_lines);
    fprintf(o, "\n%s report (%s), sorted by %s\n", sec_name[sec], sec == SEC_BARRIER ? "microseconds" : "bytes",
            sort_name[opt.sort]);
    if (!n) {
        fprintf(o, "(none)\n");
        return;
    }
    fprintf(o, "%-*s %-10s%s%s %8s %14s %14s %14s %14s\n", (int)w, "source", "type", opt.peer ? "     peer" : "",
            opt.thread ? "   thread" : "", "calls", "total", "avg", "min", "max");
    for (size_t i = 0; i < n; i++) {
        const line_t *l = &lines[i];
        char tot[32], avg[32], lo[32], hi[32], peer[32] = "", thr[32] = "";
        fmt_value(tot, sizeof tot, sec, l->total);
        if (sec == SEC_BARRIER) snprintf(avg, sizeof avg, "%.3f", (double)l->total / 1000.0 / (double)l->calls);
        else snprintf(avg, sizeof avg, "%.1f", (double)l->total / (double)l->calls);
        fmt_value(lo, sizeof lo, sec, l->least);
        fmt_value(hi, sizeof hi, sec, l->most);
        if (opt.peer && l->peer < 0) snprintf(peer, sizeof peer, " %8s", "-");
        else if (opt.peer) snprintf(peer, sizeof peer, " %8ld", l->peer);
        if (opt.thread) {
            char rt[24];
            snprintf(rt, sizeof rt, "%ld.%ld", l->rank, l->thread);
            snprintf(thr, sizeof thr, " %8s", rt);
        }
        fprintf(o, "%-*s %-10s%s%s %8llu %14s %14s %14s %14s\n", (int)w, shown_src(l->src), l->type, peer, thr,
                (unsigned long long)l->calls, tot, avg, lo, hi);
    }
}

/* ---- the command line ---- */
static void usage(FILE *o) {
    fprintf(o,
            "usage: gasnet_trace [options] trace-file(s)\n"
            "Summarises the trace files of a library built with --enable-trace (one per rank: GASNET_TRACEFILE\n"
            "with %% for the rank); per source line of the calls: calls, total/avg/min/max bytes (time in\n"
            "microseconds for barriers).\n"
            "  -o FILE        write the report to FILE (default: standard output)\n"
            "  -report LIST   sections, comma-separated, of PUT,GET,BARRIER,MEMORY (default: all)\n"
            "  -sort KEY      order of each section's lines: TOTAL (default), AVG, MIN, MAX, CALLS (largest\n"
            "                 first), TYPE, SRC (file, then line)\n"
            "  -filter LIST   drop lines of these kinds, comma-separated: LOCAL (puts/gets to this process or a\n"
            "                 same-host neighbor), GLOBAL (to other processes), WAIT (barrier: time in the\n"
            "                 wait), WAITNOTIFY (barrier: time from the notify to the wait's end)\n"
            "  -[no]peer      a line per peer of puts and gets (default: no)\n"
            "  -[no]thread    a line per rank and thread, shown as RANK.THREAD (default: no)\n"
            "  -[no]internal  include the library's own calls (default: no)\n"
            "  -[no]full      full source paths (default: no: the file name alone)\n"
            "  -h             this help\n");
}

/* a comma list of names (any case) into flags[]; 0, or dies naming the bad word */
static void names(const char *opt_name, const char *list, const char *const *known, int nknown, int *flags) {
    char *copy = strdup(list), *save = NULL;
    for (int i = 0; i < nknown; i++) flags[i] = 0;
    int any = 0;
    for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save), any = 1) {
        int i = 0;
        while (i < nknown && strcasecmp(w, known[i])) i++;
        if (i == nknown) die(2, "%s %s: '%s' is not one of the names it takes (gasnet_trace -h)", opt_name, list, w);
        flags[i] = 1;
    }
    free(copy);
    if (!any) die(2, "%s: an empty list (gasnet_trace -h)", opt_name);
}

static int flag(const char *arg, const char *name, int *out) {
    if (arg[0] != '-') return 0;
    const char *a = arg + 1 + (arg[1] == '-');
    if (!strcmp(a, name)) return *out = 1, 1;
    if (!strncmp(a, "no", 2) && !strcmp(a + 2, name)) return *out = 0, 1;
    return 0;
}

int main(int argc, char **argv) {
    const char *outpath = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        const char *a = argv[i];
        int need = !strcmp(a, "-o") || !strcmp(a, "-report") || !strcmp(a, "-sort") || !strcmp(a, "-filter");
        if (need && i + 1 >= argc) die(2, "%s needs a value (gasnet_trace -h)", a);
        if (!strcmp(a, "-h") || !strcmp(a, "-help") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--")) {
            i++;
            break;
        } else if (!strcmp(a, "-o")) outpath = argv[++i];
        else if (!strcmp(a, "-report")) names(a, argv[++i], sec_name, NSEC, opt.report);
        else if (!strcmp(a, "-filter")) names(a, argv[++i], filter_name, NFILTER, opt.filter);
        else if (!strcmp(a, "-sort")) {
            int f[NSORT];
            const char *v = argv[++i];
            if (strchr(v, ',')) die(2, "-sort %s: one key (gasnet_trace -h)", v);
            names(a, v, sort_name, NSORT, f);
            for (opt.sort = 0; !f[opt.sort]; opt.sort++) {}
        } else if (!flag(a, "peer", &opt.peer) && !flag(a, "thread", &opt.thread) &&
                   !flag(a, "internal", &opt.internal) && !flag(a, "full", &opt.full))
            die(2, "unknown option %s (gasnet_trace -h)", a);
    }
    if (i >= argc) die(2, "no trace file given (gasnet_trace -h)");
    for (int k = i; k < argc; k++) read_file(argv[k]);
    FILE *o = stdout;
    if (outpath && !(o = fopen(outpath, "w"))) die(1, "-o %s: %s", outpath, strerror(errno));
    fprintf(o, "gasnet_trace: %d file%s, %llu records, ranks 0-%ld", argc - i, argc - i == 1 ? "" : "s", nrecords,
            max_rank);
    if (job_ranks > 0) fprintf(o, " (of a job of %ld)", job_ranks);
    fprintf(o, "%s%s\n", opt.internal ? ", with the library's internal calls" : "",
            opt.filter[F_LOCAL] || opt.filter[F_GLOBAL] ? (opt.filter[F_LOCAL] ? ", remote peers only" : ", local peers only") : "");
    for (int s = 0; s < NSEC; s++)
        if (opt.report[s]) section(o, s);
    if (fflush(o) || (o != stdout && fclose(o))) die(1, "%s: %s", outpath ? outpath : "stdout", strerror(errno));
    return 0;
}
