/* gasnett_tools.c: the out-of-line GASNet tools of gasnet_tools.h (environment, system
 * queries, timer calibration, fatal errors, backtraces, checked allocation).
 * Layer: tools. Compiled into every conduit library and, alone, into the standalone
 * libgasnet_tools-seq.a / -par.a, so it uses nothing of the core: only gasnet_tools.h and
 * the system. Public names are gasnett_*, file-local ones static. */
#ifndef _GNU_SOURCE
#  define _GNU_SOURCE 1 /* sched_setaffinity, CPU_* */
#endif
#include "gasnet_tools.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <execinfo.h>
#include <limits.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <unistd.h>

GASNETT_IDENT(gasnett_IdentString_ToolsConfig, "$GASNetToolsConfig: " GASNETT_CONFIG_STRING " $");

/* ---- errors ---- */
static void vfatal(const char *pos_func, const char *file, int line, const char *fmt, va_list ap) GASNETT_NORETURN;
static void vfatal(const char *pos_func, const char *file, int line, const char *fmt, va_list ap) {
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fflush(stdout);
    if (pos_func)
        fprintf(stderr, "*** FATAL ERROR (pid %d): %s\n    at %s() %s:%d\n", (int)getpid(), msg, pos_func, file, line);
    else
        fprintf(stderr, "*** FATAL ERROR (pid %d): %s\n", (int)getpid(), msg);
    fflush(stderr);
    if (gasnett_print_backtrace_ifenabled) (void)gasnett_print_backtrace_ifenabled(2);
    gasnett_freezeForDebuggerErr();
    signal(SIGABRT, SIG_DFL);
    abort();
}

void gasnett_fatalerror_at(const char *func, const char *file, int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfatal(func ? func : "?", file, line, fmt, ap);
}

void gasnett_fatalerror_nopos(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfatal(NULL, NULL, 0, fmt, ap);
}

void gasnett_lock_assert_failed(const char *what, const void *lock) {
    gasnett_fatalerror_nopos("%s(%p): the calling thread does not hold the lock as asserted", what, lock);
}

void gasnett_killmyprocess(int exitcode) {
    gasnett_flush_streams();
    _exit(exitcode);
}

void gasnett_flush_streams(void) {
    fflush(NULL);
}

void gasnett_close_streams(void) {
    fflush(NULL);
    fclose(stdin);
    fclose(stdout);
    fclose(stderr);
}

char *gasnett_current_loc_at(const char *func, const char *file, int line) {
    size_t n = strlen(func) + strlen(file) + 32;
    char *s = (char *)malloc(n);
    if (!s) gasnett_fatalerror_nopos("gasnett_current_loc: out of memory");
    snprintf(s, n, "%s() at %s:%d", func, file, line);
    return s;
}

void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname) {
    *flag = 1;
    gasnett_local_mb();
    fprintf(stderr, "*** process %d on %s frozen for a debugger: gdb -p %d, then `set var %s = 0`\n", (int)getpid(),
            gasnett_gethostname(), (int)getpid(), flagsymname);
    fflush(stderr);
    while (*flag) gasnett_nsleep(50000000u);
}

/* set to 0 from a debugger to release a process frozen by GASNET_FREEZE_ON_ERROR */
volatile int gasnett_frozen = 0;

/* KEY is 1/y/yes (any case). Lenient on purpose, unlike gasnett_getenv_yesno_withdefault:
 * it runs on the way to a fatal error, where a bad value must not raise another. */
static int env_says_yes(const char *key) {
    const char *v = getenv(key);
    return v && (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "y"));
}

void gasnett_freezeForDebuggerErr(void) {
    if (!env_says_yes("GASNET_FREEZE_ON_ERROR")) return;
    gasnett_freezeForDebuggerNow(&gasnett_frozen, "gasnett_frozen");
}

gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fp;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sigtocatch, &sa, &old)) return SIG_ERR;
    return old.sa_handler;
}

/* ---- backtraces ---- */
__attribute__((weak)) gasnett_backtrace_type_t gasnett_backtrace_user = {NULL, NULL, 0};
static const char *backtrace_exename;

void gasnett_backtrace_init(const char *exename) {
    backtrace_exename = exename;
}

/* `addr2line -f -i -C -e file 0xoff`: pairs of lines, function then file:line, the
 * innermost first and then each function it was inlined into, in out; -1 if addr2line
 * could not be run (not installed, say) */
static int addr2line(const char *file, uintptr_t off, char *out, size_t outsz) {
    int p[2];
    if (pipe(p)) return -1;
    char hex[32];
    snprintf(hex, sizeof hex, "0x%lx", (unsigned long)off);
    pid_t c = fork();
    if (c < 0) {
        close(p[0]), close(p[1]);
        return -1;
    }
    if (c == 0) {
        dup2(p[1], 1);
        close(p[0]), close(p[1]);
        execlp("addr2line", "addr2line", "-f", "-i", "-C", "-e", file, hex, (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    size_t got = 0;
    ssize_t r;
    while (got < outsz - 1 && ((r = read(p[0], out + got, outsz - 1 - got)) > 0 || (r < 0 && errno == EINTR)))
        if (r > 0) got += (size_t)r;
    out[got] = 0;
    close(p[0]);
    int st = 0;
    while (waitpid(c, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 && strchr(out, '\n') ? 0 : -1;
}

/* Named frames of the calling thread without a debugger: each return address is found in
 * the object that holds it (dladdr: the program or a shared library), and addr2line
 * (binutils) names the function and the source line from the object's symbols and debug
 * information, static and inlined functions included (backtrace_symbols names only
 * exported ones). A frame is "#i  function at file:line (object+0xoffset)", followed by
 * "    inlined in function at file:line" for each function the code was inlined into.
 * Returns -1, having printed nothing, when addr2line cannot be run. */
int gasneti_backtrace_addr2line(int fd) {
    void *frames[64];
    int n = backtrace(frames, 64);
    if (n <= 0) return -1;
    Dl_info mi;
    const void *main_base = dladdr((void *)getauxval(AT_PHDR), &mi) ? mi.dli_fbase : NULL;
    char self[PATH_MAX]; /* the program's own file (dladdr gives only its argv[0]) */
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    self[sl > 0 ? sl : 0] = 0;
    const size_t each = 2048;
    char *text = malloc((size_t)n * each);
    if (!text) return -1;
    for (int i = 0; i < n; i++) {
        char *line = text + (size_t)i * each;
        size_t used = 0;
        uintptr_t pc = (uintptr_t)frames[i] - (i > 0); /* a return address: the call is just before */
        Dl_info di;
        if (!dladdr((void *)pc, &di) || !di.dli_fbase) {
            snprintf(line, each, "#%-2d %p\n", i, frames[i]);
            continue;
        }
        const ElfW(Ehdr) *eh = di.dli_fbase;
        uintptr_t off = pc - (eh->e_type == ET_DYN ? (uintptr_t)di.dli_fbase : 0);
        const char *file = di.dli_fbase == main_base && *self ? self : di.dli_fname;
        const char *base = strrchr(file, '/');
        base = base ? base + 1 : file;
        char out[1536];
        if (addr2line(file, off, out, sizeof out)) {
            free(text);
            return -1;
        }
        char *save = NULL, *func = strtok_r(out, "\n", &save);
        for (int k = 0; func; k++, func = strtok_r(NULL, "\n", &save)) {
            char *loc = strtok_r(NULL, "\n", &save);
            if (!strcmp(func, "??") && di.dli_sname && !k) func = (char *)di.dli_sname;
            int known = loc && strncmp(loc, "??", 2);
            int w = k ? snprintf(line + used, each - used, "    inlined in %.200s%s%.300s\n", func, known ? " at " : "",
                                 known ? loc : "")
                      : snprintf(line + used, each - used, "#%-2d %.200s%s%.300s (%.100s+0x%lx)\n", i, func,
                                 known ? " at " : "", known ? loc : "", base, (unsigned long)off);
            if (w < 0 || (size_t)w >= each - used) break;
            used += (size_t)w;
        }
    }
    for (int i = 0; i < n; i++) dprintf(fd, "%s", text + (size_t)i * each);
    free(text);
    return 0;
}

/* the default of gasnett_print_backtrace_ifenabled (the conduit library's core installs
 * its own, which can use gdb, at initialization: docs/diagnostics.md) */
int gasneti_tools_backtrace_ifenabled(int fd) {
    if (!env_says_yes("GASNET_BACKTRACE")) return 1;
    return gasnett_print_backtrace(fd);
}
int (*gasnett_print_backtrace_ifenabled)(int fd) = gasneti_tools_backtrace_ifenabled;

int gasnett_print_backtrace(int fd) {
    if (gasnett_backtrace_user.fnp && gasnett_backtrace_user.fnp(fd) == 0) return 0;
    const char *exe = backtrace_exename ? backtrace_exename : gasnett_exe_name();
    dprintf(fd, "backtrace of process %d (%s), by addr2line:\n", (int)getpid(), exe);
    if (gasneti_backtrace_addr2line(fd) == 0) return 0;
    void *frames[64];
    int n = backtrace(frames, 64);
    if (n <= 0) return -1;
    dprintf(fd, "(addr2line could not be run) backtrace of process %d (%s), by glibc backtrace_symbols:\n",
            (int)getpid(), exe);
    backtrace_symbols_fd(frames, n, fd);
    return 0;
}

/* ---- timers ---- */
static double tick_granularity_us, tick_overhead_us;
static pthread_once_t tick_once = PTHREAD_ONCE_INIT;

static void tick_calibrate(void) {
    gasnett_tick_t min_step = GASNETT_TICK_MAX;
    for (int i = 0; i < 1000; i++) {
        gasnett_tick_t a = gasnett_ticks_now(), b;
        while ((b = gasnett_ticks_now()) == a) {
        }
        if (b - a < min_step) min_step = b - a;
    }
    enum { N = 20000 };
    gasnett_tick_t start = gasnett_ticks_now();
    for (int i = 0; i < N; i++) (void)gasnett_ticks_now();
    tick_granularity_us = (double)gasnett_ticks_to_ns(min_step) / 1000.0;
    tick_overhead_us = (double)gasnett_ticks_to_ns(gasnett_ticks_now() - start) / 1000.0 / N;
}

double gasnett_tick_granularityus(void) {
    pthread_once(&tick_once, tick_calibrate);
    return tick_granularity_us;
}

double gasnett_tick_overheadus(void) {
    pthread_once(&tick_once, tick_calibrate);
    return tick_overhead_us;
}

uint64_t gasnett_gettimeofday_us(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

/* ---- environment ---- */
static int yes_word(const char *v) {
    return !strcmp(v, "1") || !strcasecmp(v, "y") || !strcasecmp(v, "yes");
}
static int no_word(const char *v) {
    return !strcmp(v, "0") || !strcasecmp(v, "n") || !strcasecmp(v, "no");
}

int gasnett_verboseenv(void) {
    const char *v = getenv("GASNET_VERBOSEENV");
    return v && yes_word(v);
}

char *gasnett_getenv(const char *key) {
    return getenv(key);
}

int gasnett_setenv(const char *key, const char *val) {
    return setenv(key, val, 1);
}

int gasnett_unsetenv(const char *key) {
    return unsetenv(key);
}

void gasnett_envstr_display(const char *key, const char *val, int is_dflt) {
    if (!gasnett_verboseenv()) return;
    fprintf(stderr, "ENV parameter: %s = %s%s\n", key, val ? val : "(not set)", is_dflt ? "   (default)" : "");
    fflush(stderr);
}

void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size) {
    char buf[64];
    if (gasnett_verboseenv()) gasnett_envstr_display(key, gasnett_format_number(val, buf, sizeof buf, is_mem_size), is_dflt);
}

void gasnett_envdbl_display(const char *key, double val, int is_dflt) {
    char buf[64];
    snprintf(buf, sizeof buf, "%g", val);
    gasnett_envstr_display(key, buf, is_dflt);
}

char *gasnett_getenv_withdefault(const char *key, const char *dflt) {
    char *v = getenv(key);
    gasnett_envstr_display(key, v ? v : dflt, v == NULL);
    return v ? v : (char *)dflt; /* the released API's type: the caller must not write to it */
}

int gasnett_getenv_yesno_withdefault(const char *key, int dflt) {
    const char *v = getenv(key);
    int r = dflt != 0;
    if (v && *v) {
        if (yes_word(v)) r = 1;
        else if (no_word(v)) r = 0;
        else gasnett_fatalerror_nopos("gasnett_getenv_yesno_withdefault: %s='%s' is neither 1/y/yes nor 0/n/no", key, v);
    }
    gasnett_envstr_display(key, r ? "YES" : "NO", !(v && *v));
    return r;
}

/* "N" (times mem_size_multiplier when nonzero) or, when mem_size_multiplier is nonzero,
 * "N.F" with an optional suffix K/M/G/T (powers of 1024, optionally followed by B), or B
 * alone (bytes). */
int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier) {
    const char *s = str ? str : "";
    char *end;
    while (*s == ' ' || *s == '\t') s++;
    if (!mem_size_multiplier) {
        errno = 0;
        long long x = strtoll(s, &end, 0);
        while (*end == ' ' || *end == '\t') end++;
        if (errno || end == s || *end) gasnett_fatalerror_nopos("gasnett_parse_int: '%s' is not an integer", s);
        return x;
    }
    errno = 0;
    double d = strtod(s, &end);
    if (errno || end == s) gasnett_fatalerror_nopos("gasnett_parse_int: '%s' is not a size", s);
    while (*end == ' ' || *end == '\t') end++;
    double unit = (double)mem_size_multiplier;
    int letter = 1;
    switch (*end) {
    case 'k': case 'K': unit = 1024.0; break;
    case 'm': case 'M': unit = 1024.0 * 1024; break;
    case 'g': case 'G': unit = 1024.0 * 1024 * 1024; break;
    case 't': case 'T': unit = 1024.0 * 1024 * 1024 * 1024; break;
    default: letter = 0; break;
    }
    end += letter;
    /* "MB" after a letter (even the default unit's: upcxx-run exports "128.0 MB" with a
     * multiplier of 1 MiB); "B" alone is bytes */
    if (*end == 'b' || *end == 'B') {
        if (!letter) unit = 1.0;
        end++;
    }
    while (*end == ' ' || *end == '\t') end++;
    double r = d * unit;
    if (*end || !(fabs(r) < 9.2e18)) gasnett_fatalerror_nopos("gasnett_parse_int: '%s' is not a size", s);
    return (int64_t)llround(r);
}

int64_t gasnett_getenv_int_withdefault(const char *key, int64_t dflt, uint64_t mem_size_multiplier) {
    const char *v = getenv(key);
    int64_t r = dflt;
    if (v && *v) {
        const char *s = v;
        while (*s == ' ') s++;
        /* parse errors name the variable, not only the text */
        if (!*s) gasnett_fatalerror_nopos("gasnett_getenv_int_withdefault: %s='%s' is not a number", key, v);
        r = gasnett_parse_int(v, mem_size_multiplier);
    }
    gasnett_envint_display(key, r, !(v && *v), mem_size_multiplier != 0);
    return r;
}

double gasnett_getenv_dbl_withdefault(const char *key, double dflt) {
    const char *v = getenv(key);
    double r = dflt;
    if (v && *v) {
        char *end;
        errno = 0;
        r = strtod(v, &end);
        while (*end == ' ') end++;
        if (errno || end == v || *end)
            gasnett_fatalerror_nopos("gasnett_getenv_dbl_withdefault: %s='%s' is not a number", key, v);
    }
    gasnett_envdbl_display(key, r, !(v && *v));
    return r;
}

/* ---- system ---- */
int gasnett_cpu_count(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

uint64_t gasnett_getPhysMemSz(int failureIsFatal) {
    long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psz > 0) return (uint64_t)pages * (uint64_t)psz;
    if (failureIsFatal) gasnett_fatalerror_nopos("gasnett_getPhysMemSz: sysconf cannot tell: %s", strerror(errno));
    return 0;
}

static char hostname_buf[256];
static pthread_once_t hostname_once = PTHREAD_ONCE_INIT;
static void hostname_init(void) {
    if (gethostname(hostname_buf, sizeof hostname_buf - 1)) strcpy(hostname_buf, "unknown-host");
}
const char *gasnett_gethostname(void) {
    pthread_once(&hostname_once, hostname_init);
    return hostname_buf;
}

static char exe_buf[PATH_MAX];
static pthread_once_t exe_once = PTHREAD_ONCE_INIT;
static void exe_init(void) {
    ssize_t n = readlink("/proc/self/exe", exe_buf, sizeof exe_buf - 1);
    if (n <= 0) strcpy(exe_buf, "unknown-executable");
    else exe_buf[n] = 0;
}
const char *gasnett_exe_name(void) {
    pthread_once(&exe_once, exe_init);
    return exe_buf;
}

/* sleeps the whole time, a signal or not */
int gasnett_nsleep(uint64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000u), (long)(ns % 1000000000u)};
    while (ns && nanosleep(&ts, &ts) && errno == EINTR) {
    }
    return 0;
}

/* binds the calling thread to the (rank mod n)-th CPU it may run on */
int gasnett_set_affinity(int rank) {
    cpu_set_t allowed, one;
    if (sched_getaffinity(0, sizeof allowed, &allowed)) return -1;
    int n = CPU_COUNT(&allowed);
    if (n <= 0) return -1;
    int want = (int)((rank < 0 ? -(long)rank : (long)rank) % n);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed)) continue;
        if (want-- == 0) {
            CPU_ZERO(&one);
            CPU_SET(cpu, &one);
            return sched_setaffinity(0, sizeof one, &one) ? -1 : 0;
        }
    }
    return -1;
}

int gasnett_maximize_rlimit(int res, const char *lim_desc) {
    char key[128];
    snprintf(key, sizeof key, "GASNET_MAXIMIZE_%s", lim_desc);
    if (!gasnett_getenv_yesno_withdefault(key, 1)) return 1; /* not wanted: still a success */
    struct rlimit rl;
    if (getrlimit(res, &rl)) return 0;
    if (rl.rlim_cur == rl.rlim_max) return 1;
    rl.rlim_cur = rl.rlim_max;
    return setrlimit(res, &rl) == 0;
}

int gasnett_maximize_rlimits(void) {
    static const struct {
        int res;
        const char *desc;
    } lims[] = {{RLIMIT_CPU, "RLIMIT_CPU"},     {RLIMIT_DATA, "RLIMIT_DATA"}, {RLIMIT_STACK, "RLIMIT_STACK"},
                {RLIMIT_AS, "RLIMIT_AS"},       {RLIMIT_RSS, "RLIMIT_RSS"},   {RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK"}};
    int ok = 1;
    for (size_t i = 0; i < sizeof lims / sizeof lims[0]; i++)
        if (!gasnett_maximize_rlimit(lims[i].res, lims[i].desc)) ok = 0;
    return ok;
}

/* memory sizes that are an exact multiple of 1024^k print as "N KB"/"N MB"/"N GB"/"N TB";
 * everything else as the plain decimal */
char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size) {
    static const char *const units[] = {"KB", "MB", "GB", "TB"};
    int u = -1;
    int64_t v = val;
    while (is_mem_size && v != 0 && u < 3 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    if (u >= 0) snprintf(buf, bufsz, "%" PRId64 " %s", v, units[u]);
    else snprintf(buf, bufsz, "%" PRId64, val);
    return buf;
}

/* 64-bit FNV-1a: a well-known function, so clients can compare against other tools */
uint64_t gasnett_checksum(const void *p, int numbytes) {
    const unsigned char *b = (const unsigned char *)p;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (int i = 0; i < numbytes; i++) h = (h ^ b[i]) * UINT64_C(0x100000001b3);
    return h;
}

/* zero bytes a word at a time where the pointer allows */
size_t gasnett_count0s(const void *p, size_t numbytes) {
    const unsigned char *b = (const unsigned char *)p;
    size_t n = 0;
    for (; numbytes && ((uintptr_t)b & 7); numbytes--) n += *b++ == 0;
    for (; numbytes >= 8; numbytes -= 8, b += 8) {
        uint64_t w;
        memcpy(&w, b, 8);
        n += (size_t)gasnett_count0s_uint64_t(w);
    }
    for (; numbytes; numbytes--) n += *b++ == 0;
    return n;
}

size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src, size_t numbytes) {
    const unsigned char *s = (const unsigned char *)src;
    unsigned char *d = (unsigned char *)dst;
    size_t n = 0;
    for (; numbytes >= 8; numbytes -= 8, s += 8, d += 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        memcpy(d, &w, 8);
        n += (size_t)gasnett_count0s_uint64_t(w);
    }
    for (; numbytes; numbytes--) n += (*d++ = *s++) == 0;
    return n;
}

const char *gasnett_performance_warning_str(void) {
    return GASNETT_DEBUG ? "    built with --enable-debug: argument and lock checks slow every call\n" : "";
}

const char *gasnett_release_version_str(void) {
    return _GASNETT_RELEASE_STR;
}

uint64_t gasnett_release_version(void) {
    return (uint64_t)GASNETT_RELEASE_VERSION_MAJOR * 1000000u + (uint64_t)GASNETT_RELEASE_VERSION_MINOR * 10000u +
           (uint64_t)GASNETT_RELEASE_VERSION_PATCH;
}

/* ---- checked allocation ----
 * Debug builds put a header (magic, size, where allocated, list links) before each block
 * and a guard word after it; blocks are on one list so memcheck_all can walk them. */
#if GASNETT_DEBUG
#  define DMEM_LIVE UINT64_C(0x6761736e65746d4c) /* "gasnetmL" */
#  define DMEM_FREED UINT64_C(0x6761736e65746d46)
#  define DMEM_GUARD UINT64_C(0xa5c3e1f00f1e3c5a)
typedef struct dmem_hdr {
    uint64_t magic;
    size_t size;
    const char *file;
    int line;
    struct dmem_hdr *prev, *next;
} __attribute__((aligned(16))) dmem_hdr_t;
static dmem_hdr_t *dmem_list;
static pthread_mutex_t dmem_lock = PTHREAD_MUTEX_INITIALIZER;

static void dmem_check(const dmem_hdr_t *h, const char *call, const char *file, int line) {
    uint64_t guard;
    if (h->magic == DMEM_FREED)
        gasnett_fatalerror_nopos("%s(%p) at %s:%d: the block was already freed", call, (const void *)(h + 1), file, line);
    if (h->magic != DMEM_LIVE)
        gasnett_fatalerror_nopos("%s(%p) at %s:%d: not a gasnett_debug_malloc block, or its header is overwritten",
                                 call, (const void *)(h + 1), file, line);
    memcpy(&guard, (const char *)(h + 1) + h->size, sizeof guard);
    if (guard != DMEM_GUARD)
        gasnett_fatalerror_nopos("%s(%p) at %s:%d: written past its end (%zu bytes, allocated at %s:%d)", call,
                                 (const void *)(h + 1), file, line, h->size, h->file, h->line);
}

void *gasnett_debug_malloc_at(size_t sz, const char *file, int line) {
    uint64_t guard = DMEM_GUARD;
    dmem_hdr_t *h = (dmem_hdr_t *)malloc(sizeof *h + sz + sizeof guard);
    if (!h) gasnett_fatalerror_nopos("gasnett_debug_malloc(%zu) at %s:%d: out of memory", sz, file, line);
    h->magic = DMEM_LIVE;
    h->size = sz;
    h->file = file;
    h->line = line;
    memcpy((char *)(h + 1) + sz, &guard, sizeof guard);
    memset(h + 1, 0xCD, sz); /* catches use of uninitialized memory */
    pthread_mutex_lock(&dmem_lock);
    h->prev = NULL;
    h->next = dmem_list;
    if (dmem_list) dmem_list->prev = h;
    dmem_list = h;
    pthread_mutex_unlock(&dmem_lock);
    return h + 1;
}

void gasnett_debug_free_at(void *p, const char *file, int line) {
    if (!p) return;
    dmem_hdr_t *h = (dmem_hdr_t *)p - 1;
    pthread_mutex_lock(&dmem_lock);
    dmem_check(h, "gasnett_debug_free", file, line);
    if (h->prev) h->prev->next = h->next;
    else dmem_list = h->next;
    if (h->next) h->next->prev = h->prev;
    h->magic = DMEM_FREED;
    pthread_mutex_unlock(&dmem_lock);
    memset(p, 0xDB, h->size);
    free(h);
}

void gasnett_debug_memcheck_at(const void *p, const char *file, int line) {
    if (!p) return;
    pthread_mutex_lock(&dmem_lock);
    dmem_check((const dmem_hdr_t *)p - 1, "gasnett_debug_memcheck", file, line);
    pthread_mutex_unlock(&dmem_lock);
}

void gasnett_debug_memcheck_all_at(const char *file, int line) {
    pthread_mutex_lock(&dmem_lock);
    for (const dmem_hdr_t *h = dmem_list; h; h = h->next) dmem_check(h, "gasnett_debug_memcheck_all", file, line);
    pthread_mutex_unlock(&dmem_lock);
}

void *gasnett_debug_realloc_at(void *p, size_t sz, const char *file, int line) {
    void *q = gasnett_debug_malloc_at(sz, file, line);
    if (p) {
        const dmem_hdr_t *h = (const dmem_hdr_t *)p - 1;
        gasnett_debug_memcheck_at(p, file, line);
        memcpy(q, p, h->size < sz ? h->size : sz);
        gasnett_debug_free_at(p, file, line);
    }
    return q;
}
#else
void *gasnett_debug_malloc_at(size_t sz, const char *file, int line) {
    void *p = malloc(sz ? sz : 1);
    if (!p) gasnett_fatalerror_nopos("gasnett_debug_malloc(%zu) at %s:%d: out of memory", sz, file, line);
    return p;
}
void gasnett_debug_free_at(void *p, const char *file, int line) {
    (void)file;
    (void)line;
    free(p);
}
void gasnett_debug_memcheck_at(const void *p, const char *file, int line) {
    (void)p;
    (void)file;
    (void)line;
}
void gasnett_debug_memcheck_all_at(const char *file, int line) {
    (void)file;
    (void)line;
}
void *gasnett_debug_realloc_at(void *p, size_t sz, const char *file, int line) {
    void *q = realloc(p, sz ? sz : 1);
    if (!q) gasnett_fatalerror_nopos("gasnett_debug_realloc(%zu) at %s:%d: out of memory", sz, file, line);
    return q;
}
#endif

void *gasnett_debug_calloc_at(size_t n, size_t sz, const char *file, int line) {
    if (sz && n > SIZE_MAX / sz)
        gasnett_fatalerror_nopos("gasnett_debug_calloc(%zu, %zu) at %s:%d: size overflows", n, sz, file, line);
    void *p = gasnett_debug_malloc_at(n * sz, file, line);
    memset(p, 0, n * sz);
    return p;
}

char *gasnett_debug_strdup_at(const char *s, const char *file, int line) {
    size_t n = strlen(s) + 1;
    return (char *)memcpy(gasnett_debug_malloc_at(n, file, line), s, n);
}

char *gasnett_debug_strndup_at(const char *s, size_t n, const char *file, int line) {
    size_t len = strnlen(s, n);
    char *r = (char *)gasnett_debug_malloc_at(len + 1, file, line);
    memcpy(r, s, len);
    r[len] = 0;
    return r;
}
