/* gasneti_env.c: environment variables (with GASNET_VERBOSEENV reporting), error names,
 * fatal errors, warnings, and the messages of non-fatal error returns (VerboseErrors).
 * Layer: core. */
#include "gasneti_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int verboseenv = -1;

static int verbose_env(void) {
    if (verboseenv < 0) {
        const char *v = getenv("GASNET_VERBOSEENV");
        verboseenv = v && *v && strcmp(v, "0") && strcasecmp(v, "no");
    }
    /* rank 0 reports; so does the launching process before any rank exists */
    return verboseenv && (gasneti_mynode == 0 || gasneti_mynode == GEX_RANK_INVALID);
}

/* GASNET_VERBOSEENV: each variable once, the first time it is read, with its value and
 * whether that is the default (the list of names said is kept here, under a lock: PAR
 * threads may read variables too) */
static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
static char **env_said;
static size_t env_nsaid;

static void env_report(const char *name, const char *value, const char *dflt) {
    if (!verbose_env()) return;
    pthread_mutex_lock(&env_lock);
    for (size_t i = 0; i < env_nsaid; i++)
        if (!strcmp(env_said[i], name)) {
            pthread_mutex_unlock(&env_lock);
            return;
        }
    char **grown = realloc(env_said, (env_nsaid + 1) * sizeof(char *));
    if (grown) {
        env_said = grown;
        env_said[env_nsaid++] = strdup(name);
    }
    pthread_mutex_unlock(&env_lock);
    if (value && *value)
        fprintf(stderr, "ENV parameter: %-32s = %-16s (set)\n", name, value);
    else if (dflt)
        fprintf(stderr, "ENV parameter: %-32s = %-16s (default)\n", name, dflt);
    else
        fprintf(stderr, "ENV parameter: %-32s   (not set)\n", name);
}

const char *gasneti_getenv(const char *name) {
    const char *v = getenv(name);
    env_report(name, v, NULL);
    return v;
}

/* the same, reporting dflt_text as what an unset variable means */
const char *gasneti_getenv_dflt(const char *name, const char *dflt_text) {
    const char *v = getenv(name);
    env_report(name, v, dflt_text);
    return v;
}

int64_t gasneti_getenv_int(const char *name, int64_t dflt) {
    const char *v = getenv(name);
    char d[32];
    snprintf(d, sizeof(d), "%lld", (long long)dflt);
    env_report(name, v, d);
    if (!v || !*v) return dflt;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 0);
    while (*end == ' ') end++;
    if (errno || *end) gasneti_launch_error("%s=%s: not an integer", name, v);
    return x;
}

int gasneti_getenv_yesno(const char *name, int dflt) {
    const char *v = getenv(name);
    env_report(name, v, dflt ? "yes" : "no");
    if (!v || !*v) return dflt;
    if (!strcasecmp(v, "1") || !strcasecmp(v, "y") || !strcasecmp(v, "yes")) return 1;
    if (!strcasecmp(v, "0") || !strcasecmp(v, "n") || !strcasecmp(v, "no")) return 0;
    gasneti_launch_error("%s=%s: expected 1/yes or 0/no", name, v);
}

/* gex_System_{Get,Set}VerboseErrors: whether the non-fatal error returns that go
 * through gasneti_error_return say why on stderr (on by default, as the spec says) */
static int verbose_errors = 1;
int gex_System_GetVerboseErrors(void) { return __atomic_load_n(&verbose_errors, __ATOMIC_RELAXED); }
/* (values other than 0 and 1 are reserved by the spec: any non-zero one enables) */
void gex_System_SetVerboseErrors(int enable) { __atomic_store_n(&verbose_errors, enable != 0, __ATOMIC_RELAXED); }

int gasneti_error_return(int code, const char *call, const char *fmt, ...) {
    if (!gex_System_GetVerboseErrors()) return code;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (gasneti_init_done)
        fprintf(stderr, "GASNet (rank %u): %s returns %s: %s\n", (unsigned)gasneti_mynode, call,
                gasnet_ErrorName(code), msg);
    else
        fprintf(stderr, "GASNet: %s returns %s: %s\n", call, gasnet_ErrorName(code), msg);
    fflush(stderr);
    return code;
}

const char *gasnet_ErrorName(int errval) {
    switch (errval) {
    case GASNET_OK: return "GASNET_OK";
    case GASNET_ERR_NOT_INIT: return "GASNET_ERR_NOT_INIT";
    case GASNET_ERR_RESOURCE: return "GASNET_ERR_RESOURCE";
    case GASNET_ERR_BAD_ARG: return "GASNET_ERR_BAD_ARG";
    case GASNET_ERR_NOT_READY: return "GASNET_ERR_NOT_READY";
    case GASNET_ERR_BARRIER_MISMATCH: return "GASNET_ERR_BARRIER_MISMATCH";
    default: return "*unknown*";
    }
}

const char *gasnet_ErrorDesc(int errval) {
    switch (errval) {
    case GASNET_OK: return "No error";
    case GASNET_ERR_NOT_INIT: return "GASNet message layer not initialized";
    case GASNET_ERR_RESOURCE: return "Problem with requested resource";
    case GASNET_ERR_BAD_ARG: return "Bad argument to function call";
    case GASNET_ERR_NOT_READY: return "Non-blocking operation not complete";
    case GASNET_ERR_BARRIER_MISMATCH: return "Barrier id's mismatched";
    default: return "no description available";
    }
}

static void vreport(const char *kind, const char *fmt, va_list ap) {
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (gasneti_init_done)
        fprintf(stderr, "*** %s (rank %u of %u): %s\n", kind, (unsigned)gasneti_mynode, (unsigned)gasneti_nodes, msg);
    else
        fprintf(stderr, "*** %s: %s\n", kind, msg);
    fflush(stderr);
}

void gasneti_fatalerror(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport("FATAL ERROR", fmt, ap);
    va_end(ap);
    gasneti_maybe_backtrace();
    gasneti_exit_now(1);
}

/* Mistakes in how the job was launched or configured: one line, exit status 1. */
GASNETI_NORETURN static void launch_error(int print, const char *fmt, va_list ap) {
    char msg[1024];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    if (print) {
        fprintf(stderr, "GASNet: %s\n", msg);
        fflush(stderr);
    } else if (gasneti_boot && gasneti_nodes > 1) {
        /* the reporting rank sees the same setting and says so: leaving at once could get
         * the job torn down before it has, and the user would see no reason at all */
        gasneti_sleep_ns(2000000000L);
    }
    if (gasneti_boot) gasneti_exit_now(1);
    _exit(1);
}

/* Every rank sees the same environment: only rank 0 (or the launching process) prints. */
void gasneti_launch_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    launch_error(gasneti_mynode == 0 || gasneti_mynode == GEX_RANK_INVALID, fmt, ap);
}

/* A problem of one host: the caller makes sure one rank per host calls this. */
void gasneti_host_launch_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    launch_error(1, fmt, ap);
}

void gasneti_host_launch_error_others(void) {
    gasneti_sleep_ns(2000000000L);
    gasneti_exit_now(1);
    _exit(1);
}

void gasneti_warning(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport("WARNING", fmt, ap);
    va_end(ap);
}

void gasneti_sleep_ns(long ns) {
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    nanosleep(&ts, NULL);
}
