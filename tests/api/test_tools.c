/* tests/api/test_tools.c: the GASNet tools of gasnet_tools.h: timers against
 * clock_gettime, every atomic op of every atomic type under 4 threads with exact totals,
 * CAS loops, mutex/cond/rwlock under contention, thread keys, environment parsing with
 * size suffixes and defaults, checksums, format_number, system queries, checked
 * allocation, the no-op trace macros and the gasnett_backtrace_user hook.
 * Built twice: against a conduit library (with gasnetex.h, each rank runs the checks) and,
 * with -DTEST_TOOLS_STANDALONE, as tests/unit/test_tools_lite, which includes only
 * gasnet_tools.h and links only libgasnet_tools-par.a; that build also checks that bad
 * input is a fatal error (in a forked child). Layer: tests. */
#ifdef TEST_TOOLS_STANDALONE
#  include <gasnet_tools.h>
#  include <stdarg.h>
#  include <stdio.h>
#  include <stdlib.h>
#  include <string.h>
#  include <fcntl.h>
#  include <sys/resource.h>
#  include <sys/wait.h>
#  define TEST_MODE "tools-only"
static void test_fail(const char *file, int line, const char *what, const char *fmt, ...) GASNETT_NORETURN;
static void test_fail(const char *file, int line, const char *what, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "test_tools_lite: FAILED check `%s` at %s:%d%s%s\n", what, file, line, msg[0] ? ": " : "", msg);
    exit(1);
}
#  define CHECK(cond) do { if (!(cond)) test_fail(__FILE__, __LINE__, #cond, "%s", ""); } while (0)
#  define CHECKF(cond, ...) do { if (!(cond)) test_fail(__FILE__, __LINE__, #cond, __VA_ARGS__); } while (0)
#  define CHECK_EQ(a, b) do {                                                                  \
        unsigned long long _ta = (unsigned long long)(a), _tb = (unsigned long long)(b);         \
        if (_ta != _tb) test_fail(__FILE__, __LINE__, #a " == " #b, "%llu != %llu", _ta, _tb); \
    } while (0)
#else
#  include "test_util.h"
#endif
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <strings.h>
#include <sys/resource.h>
#include <unistd.h>

#if GASNETT_PAGESIZE % 4096 != 0 || GASNETT_CACHE_LINE_BYTES < 32
#  error "GASNETT_PAGESIZE / GASNETT_CACHE_LINE_BYTES must be usable in #if"
#endif
#if (1 << GASNETT_PAGESHIFT) != GASNETT_PAGESIZE
#  error "GASNETT_PAGESHIFT must be log2(GASNETT_PAGESIZE)"
#endif
#if GASNETT_SPEC_VERSION_MAJOR != 1 || GASNETT_SPEC_VERSION_MINOR != 20
#  error "the tools follow README-tools 1.20"
#endif
#if GASNETT_RELEASE_VERSION_MAJOR < 2000 || GASNETT_RELEASE_VERSION_MINOR > 99 || GASNETT_RELEASE_VERSION_PATCH > 99
#  error "GASNETT_RELEASE_VERSION_*: a year, then two numbers below 100"
#endif
#if !defined(PRIuSZ) || !defined(PRIdSZ) || !defined(PRIxSZ) || !defined(MIN) || !defined(MAX)
#  error "the released headers give every client PRIuSZ, PRIdSZ, PRIxSZ, MIN and MAX"
#endif
#ifndef gasneti_builtin_unreachable
#  error "gasneti_builtin_unreachable() (a released name newer UPC++ requires)"
#endif
#if !GASNETT_SET_AFFINITY_SUPPORT
#  error "GASNETT_SET_AFFINITY_SUPPORT must be 1 on Linux"
#endif
/* the feature knobs, as GCC and Clang have them */
#if !(GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE && GASNETT_USE_GCC_ATTRIBUTE_NOINLINE && GASNETT_USE_GCC_ATTRIBUTE_MALLOC && \
      GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT && GASNETT_USE_GCC_ATTRIBUTE_USED &&                                  \
      GASNETT_USE_GCC_ATTRIBUTE_MAYALIAS && GASNETT_USE_GCC_ATTRIBUTE_NORETURN && GASNETT_USE_GCC_ATTRIBUTE_PURE &&       \
      GASNETT_USE_GCC_ATTRIBUTE_CONST && GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED && GASNETT_USE_GCC_ATTRIBUTE_FORMAT &&     \
      GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR && GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR_ARG &&                       \
      GASNETT_USE_BUILTIN_CONSTANT_P && GASNETT_USE_BUILTIN_PREFETCH && GASNETT_USE_BUILTIN_EXPECT &&                    \
      GASNETT_USE_BUILTIN_UNREACHABLE && GASNETT_USE_RESTRICT_ON_TYPEDEFS && GASNETT_USE_PRAGMA_GCC_DIAGNOSTIC)
#  error "a GASNETT_USE_* knob is 0 for GCC / Clang"
#endif
#if GASNETT_USE_BUILTIN_ASSUME != defined(__clang__) || GASNETT_USE_ASSUME || GASNETT_USE_CXX11_ATTRIBUTE_FALLTHROUGH || \
    GASNETT_USE_CXX11_ATTRIBUTE_CLANG__FALLTHROUGH
#  error "__builtin_assume is Clang's; __assume and the C++ attributes are not C's"
#endif

#define NT 4
#define NOPS 20000

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void check_timers(void) {
    gasnett_tick_t prev = gasnett_ticks_now();
    for (int i = 0; i < 100000; i++) {
        gasnett_tick_t t = gasnett_ticks_now();
        CHECKF(t >= prev, "ticks went back: %llu after %llu", (unsigned long long)t, (unsigned long long)prev);
        prev = t;
    }
    /* calibration: a 30 ms sleep measured by ticks and by clock_gettime agree within 1 ms */
    uint64_t c0 = mono_ns();
    gasnett_tick_t t0 = gasnett_ticks_now();
    gasnett_nsleep(30000000u);
    gasnett_tick_t t1 = gasnett_ticks_now();
    uint64_t c1 = mono_ns();
    uint64_t tns = gasnett_ticks_to_ns(t1 - t0), cns = c1 - c0;
    CHECKF(tns >= 30000000u, "gasnett_nsleep(30 ms) took %llu ns", (unsigned long long)tns);
    CHECKF(tns <= cns && cns - tns < 1000000u, "ticks %llu ns vs clock_gettime %llu ns", (unsigned long long)tns,
           (unsigned long long)cns);
    CHECK_EQ(gasnett_ticks_to_us(t1 - t0), tns / 1000);
    double sec = gasnett_ticks_to_sec(t1 - t0);
    CHECKF(sec > 0.0299 && sec < 1.0, "ticks_to_sec %g", sec);
    double g = gasnett_tick_granularityus(), o = gasnett_tick_overheadus();
    CHECKF(g > 0 && g < 1000, "granularity %g us", g);
    CHECKF(o > 0 && o < 100, "overhead %g us", o);
    CHECK(GASNETT_TICK_MIN < GASNETT_TICK_MAX);
    uint64_t w = gasnett_gettimeofday_us(), s = (uint64_t)time(NULL);
    CHECKF(w / 1000000u + 2 >= s && w / 1000000u <= s + 2, "gettimeofday_us %llu vs time %llu", (unsigned long long)w,
           (unsigned long long)s);
}

/* ---- atomics: one set of counters per type, all bumped by NT threads ---- */
#define ATOMIC_SET(T, V)                                                                     \
    struct {                                                                                 \
        T##_t inc, dec, addsub, cas, swp, dat, flag;                                         \
        V swapped_sum; /* under swap_lock */                                                 \
        T##_t one_zero_hits;                                                                 \
    }
static ATOMIC_SET(gasnett_atomic, uint32_t) a_plain;
static ATOMIC_SET(gasnett_atomic32, uint32_t) a_32;
static ATOMIC_SET(gasnett_atomic64, uint64_t) a_64;
static ATOMIC_SET(gasnett_strongatomic, uint32_t) a_strong;
static gasnett_mutex_t swap_lock = GASNETT_MUTEX_INITIALIZER;

/* ADDV: the amount added per add (64-bit adds cross 2^32); SWV(t, i): a distinct value */
#define ATOMIC_WORK(T, S, V, ADDV, tid)                                                      \
    do {                                                                                     \
        V _sum = 0;                                                                          \
        for (int i = 0; i < NOPS; i++) {                                                     \
            T##_increment(&S.inc, (i & 1) ? GASNETT_ATOMIC_NONE : GASNETT_ATOMIC_MB_PRE);      \
            if (T##_decrement_and_test(&S.dec, GASNETT_ATOMIC_ACQ_IF_TRUE))                    \
                T##_increment(&S.one_zero_hits, 0);                                          \
            T##_add(&S.addsub, (V)3 * (ADDV), GASNETT_ATOMIC_REL);                             \
            T##_subtract(&S.addsub, (V)2 * (ADDV), GASNETT_ATOMIC_ACQ);                        \
            V _o;                                                                            \
            do {                                                                             \
                _o = T##_read(&S.cas, 0);                                                    \
            } while (!T##_compare_and_swap(&S.cas, _o, _o + 1, GASNETT_ATOMIC_MB_POST));       \
            _sum += T##_swap(&S.swp, (V)((tid) * NOPS + i + 1), GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST); \
        }                                                                                    \
        gasnett_mutex_lock(&swap_lock);                                                      \
        S.swapped_sum += _sum;                                                               \
        gasnett_mutex_unlock(&swap_lock);                                                    \
    } while (0)

#define ATOMIC_PREP(T, S)                                                                    \
    do {                                                                                     \
        T##_set(&S.inc, 0, 0);                                                               \
        T##_set(&S.dec, NT * NOPS, GASNETT_ATOMIC_WMB_POST);                                 \
        T##_set(&S.addsub, 0, 0);                                                            \
        T##_set(&S.cas, 0, 0);                                                               \
        T##_set(&S.swp, 0, 0);                                                               \
        T##_set(&S.one_zero_hits, 0, 0);                                                     \
        S.swapped_sum = 0;                                                                   \
    } while (0)

#define ATOMIC_VERIFY(T, S, V, ADDV)                                                          \
    do {                                                                                     \
        CHECK_EQ(T##_read(&S.inc, 0), NT * NOPS);                                            \
        CHECK_EQ(T##_read(&S.dec, 0), 0);                                                    \
        CHECK_EQ(T##_read(&S.one_zero_hits, 0), 1);                                          \
        CHECK_EQ(T##_read(&S.addsub, GASNETT_ATOMIC_RMB_PRE), (V)NT * NOPS * (ADDV));          \
        CHECK_EQ(T##_read(&S.cas, 0), NT * NOPS);                                            \
        /* every value swapped in came out exactly once, or is the final one */              \
        uint64_t _n = (uint64_t)NT * NOPS; /* sums wrap modulo the width of V */              \
        CHECK_EQ((V)(S.swapped_sum + T##_read(&S.swp, 0)), (V)(_n * (_n + 1) / 2));            \
    } while (0)

#define ATOMIC_SINGLE(T, V, SV)                                                              \
    do {                                                                                     \
        T##_t _x = T##_init(5);                                                              \
        CHECK_EQ(T##_read(&_x, 0), 5);                                                       \
        CHECK_EQ(T##_add(&_x, 10, 0), 15);                                                   \
        CHECK_EQ(T##_subtract(&_x, 20, 0), (V)-5);                                           \
        CHECK(T##_signed(T##_read(&_x, 0)) == (SV)-5);                                       \
        CHECK_EQ(T##_swap(&_x, 7, 0), (V)-5);                                                \
        CHECK(!T##_compare_and_swap(&_x, 6, 9, 0));                                          \
        CHECK_EQ(T##_read(&_x, 0), 7);                                                       \
        CHECK(T##_compare_and_swap(&_x, 7, 1, GASNETT_ATOMIC_ACQ_IF_FALSE));                  \
        CHECK(T##_decrement_and_test(&_x, 0));                                               \
        CHECK(!T##_decrement_and_test(&_x, 0));                                              \
        T##_increment(&_x, 0);                                                               \
        T##_increment(&_x, 0);                                                               \
        T##_decrement(&_x, 0);                                                               \
        CHECK_EQ(T##_read(&_x, 0), 0);                                                       \
    } while (0)

/* message passing through a REL set and an ACQ read */
static uint64_t mp_data[64];

/* ---- locks ---- */
static gasnett_mutex_t m_lock = GASNETT_MUTEX_INITIALIZER;
static long m_count;
static gasnett_mutex_t turn_lock = GASNETT_MUTEX_INITIALIZER;
static gasnett_cond_t turn_cond = GASNETT_COND_INITIALIZER;
static int turn;
#define ROUNDS 500
static gasnett_rwlock_t rw = GASNETT_RWLOCK_INITIALIZER;
static long rw_a, rw_b, rw_reads;
static GASNETT_THREADKEY_DEFINE(tkey);
static pthread_barrier_t phase;

static void *worker(void *arg) {
    int tid = (int)(intptr_t)arg;
    pthread_barrier_wait(&phase);
    ATOMIC_WORK(gasnett_atomic, a_plain, uint32_t, 1u, tid);
    ATOMIC_WORK(gasnett_atomic32, a_32, uint32_t, 1u, tid);
    ATOMIC_WORK(gasnett_atomic64, a_64, uint64_t, UINT64_C(1) << 33, tid);
    ATOMIC_WORK(gasnett_strongatomic, a_strong, uint32_t, 1u, tid);
    /* thread 0 publishes, the others wait for the flag and must see the data */
    if (tid == 0) {
        for (int i = 0; i < 64; i++) mp_data[i] = 1000u + (uint64_t)i;
        gasnett_atomic_set(&a_plain.flag, 1, GASNETT_ATOMIC_REL);
    } else {
        while (!gasnett_atomic_read(&a_plain.flag, GASNETT_ATOMIC_ACQ)) gasnett_spinloop_hint();
        for (int i = 0; i < 64; i++) CHECK_EQ(mp_data[i], 1000u + (uint64_t)i);
    }
    pthread_barrier_wait(&phase);

    /* mutex under contention; trylock either gets it or says EBUSY */
    for (int i = 0; i < NOPS; i++) {
        if ((i & 7) == 0) {
            int r;
            while ((r = gasnett_mutex_trylock(&m_lock)) != 0) CHECKF(r == EBUSY, "trylock returned %d", r);
        } else {
            CHECK_EQ(gasnett_mutex_lock(&m_lock), 0);
        }
        gasnett_mutex_assertlocked(&m_lock);
        m_count++;
        CHECK_EQ(gasnett_mutex_unlock(&m_lock), 0);
    }
    /* condition variable: the threads take turns in order */
    for (int r = 0; r < ROUNDS; r++) {
        gasnett_mutex_lock(&turn_lock);
        while (turn % NT != tid) gasnett_cond_wait(&turn_cond, &turn_lock);
        gasnett_mutex_assertlocked(&turn_lock);
        CHECK_EQ(turn, r * NT + tid);
        turn++;
        gasnett_cond_broadcast(&turn_cond);
        gasnett_mutex_unlock(&turn_lock);
    }
    /* rwlock: writers move a and b together, readers must never see them differ */
    for (int i = 0; i < NOPS / 4; i++) {
        if (i % 4 == tid % 4) {
            gasnett_rwlock_wrlock(&rw);
            gasnett_rwlock_assertwrlocked(&rw);
            rw_a++;
            gasnett_compiler_fence();
            rw_b++;
            gasnett_rwlock_unlock(&rw);
        } else {
            gasnett_rwlock_rdlock(&rw);
            gasnett_rwlock_assertrdlocked(&rw);
            CHECKF(rw_a == rw_b, "reader saw a=%ld b=%ld", rw_a, rw_b);
            __atomic_add_fetch(&rw_reads, 1, __ATOMIC_RELAXED);
            gasnett_rwlock_unlock(&rw);
        }
    }
    /* thread keys: each thread sees only its own value */
    long mine = 0;
    CHECK(gasnett_threadkey_get(tkey) == NULL);
    gasnett_threadkey_init(tkey);
    gasnett_threadkey_set(tkey, &mine);
    pthread_barrier_wait(&phase);
    for (int i = 0; i < 100; i++) {
        CHECK(gasnett_threadkey_get(tkey) == &mine);
        gasnett_sched_yield();
    }
    return NULL;
}

static void check_threads(void) {
    ATOMIC_SINGLE(gasnett_atomic, uint32_t, int32_t);
    ATOMIC_SINGLE(gasnett_atomic32, uint32_t, int32_t);
    ATOMIC_SINGLE(gasnett_atomic64, uint64_t, int64_t);
    ATOMIC_SINGLE(gasnett_strongatomic64, uint64_t, int64_t);
    CHECK(gasnett_atomic_signed(GASNETT_ATOMIC_MAX) == -1);
    CHECK(GASNETT_ATOMIC_SIGNED_MAX == 2147483647 && GASNETT_ATOMIC_SIGNED_MIN < 0);
    {
        gasnett_atomic_t neg = gasnett_atomic_init(0);
        gasnett_atomic_decrement(&neg, 0);
        CHECK(gasnett_atomic_signed(gasnett_atomic_read(&neg, 0)) == -1);
    }
    CHECK(GASNETT_HAVE_ATOMIC_CAS && GASNETT_HAVE_ATOMIC_ADD_SUB);
    ATOMIC_PREP(gasnett_atomic, a_plain);
    ATOMIC_PREP(gasnett_atomic32, a_32);
    ATOMIC_PREP(gasnett_atomic64, a_64);
    ATOMIC_PREP(gasnett_strongatomic, a_strong);
    gasnett_atomic_set(&a_plain.flag, 0, 0);
    gasnett_local_wmb();
    int dummy = 1;
    gasnett_threadkey_set(tkey, &dummy);

    pthread_t th[NT];
    CHECK_EQ(pthread_barrier_init(&phase, NULL, NT), 0);
    for (int t = 0; t < NT; t++) CHECK_EQ(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t), 0);
    for (int t = 0; t < NT; t++) CHECK_EQ(pthread_join(th[t], NULL), 0);
    pthread_barrier_destroy(&phase);
    gasnett_local_mb();
    gasnett_local_rmb();

    ATOMIC_VERIFY(gasnett_atomic, a_plain, uint32_t, 1u);
    ATOMIC_VERIFY(gasnett_atomic32, a_32, uint32_t, 1u);
    ATOMIC_VERIFY(gasnett_atomic64, a_64, uint64_t, UINT64_C(1) << 33);
    ATOMIC_VERIFY(gasnett_strongatomic, a_strong, uint32_t, 1u);
    CHECK_EQ(m_count, NT * NOPS);
    CHECK_EQ(turn, NT * ROUNDS);
    CHECK_EQ(rw_a, NT * (NOPS / 4) / 4);
    CHECK_EQ(rw_a, rw_b);
    CHECK_EQ(rw_reads + rw_a, NT * (NOPS / 4));
    CHECK(gasnett_threadkey_get(tkey) == &dummy);

    /* try forms against a held lock (from this thread: pthread reports EBUSY/EDEADLK) */
    gasnett_mutex_t m;
    CHECK_EQ(gasnett_mutex_init(&m), 0);
    gasnett_mutex_assertunlocked(&m);
    CHECK_EQ(gasnett_mutex_lock(&m), 0);
    gasnett_mutex_assertlocked(&m);
    CHECK_EQ(gasnett_mutex_unlock(&m), 0);
    CHECK_EQ(gasnett_mutex_destroy(&m), 0);
    gasnett_rwlock_t l;
    CHECK_EQ(gasnett_rwlock_init(&l), 0);
    CHECK_EQ(gasnett_rwlock_rdlock(&l), 0);
    CHECK_EQ(gasnett_rwlock_tryrdlock(&l), 0);
    CHECK(gasnett_rwlock_trywrlock(&l) != 0);
    gasnett_rwlock_unlock(&l);
    gasnett_rwlock_unlock(&l);
    CHECK_EQ(gasnett_rwlock_trywrlock(&l), 0);
    CHECK(gasnett_rwlock_tryrdlock(&l) != 0);
    gasnett_rwlock_unlock(&l);
    gasnett_rwlock_assertunlocked(&l);
    CHECK_EQ(gasnett_rwlock_destroy(&l), 0);
    gasnett_cond_t c;
    CHECK_EQ(gasnett_cond_init(&c), 0);
    CHECK_EQ(gasnett_cond_signal(&c), 0);
    CHECK_EQ(gasnett_cond_destroy(&c), 0);
}

/* the released tools API's types, which clients assign to char * */
_Static_assert(_Generic(gasnett_getenv("X"), char *: 1, default: 0), "gasnett_getenv must return char *");
_Static_assert(_Generic(gasnett_getenv_withdefault("X", "d"), char *: 1, default: 0),
               "gasnett_getenv_withdefault must return char *");

static void check_env(void) {
    static const struct {
        const char *text;
        uint64_t mult;
        int64_t want;
    } cases[] = {
        {"4K", 1, 4096}, {"2M", 1, 2097152}, {"3G", 1, INT64_C(3) << 30}, {"1T", 1, INT64_C(1) << 40},
        {"1.5K", 1, 1536}, {"8kb", 1, 8192}, {" 7 MB ", 1, 7 << 20}, {"10", 1024, 10240}, {"10", 1, 10},
        {"2G", 1024, INT64_C(2) << 30}, {"0x10", 0, 16}, {"-5", 0, -5}, {"123456789012", 0, INT64_C(123456789012)},
        /* a unit equal to the default one, with its B: what upcxx-run exports */
        {"128.0 MB", 1 << 20, INT64_C(128) << 20}, {"2MB", 1 << 20, INT64_C(2) << 20}, {"4 KB", 1024, 4096},
        {"100B", 1024, 100}, {"64 b", 1 << 20, 64},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_EQ(gasnett_setenv("TOOLTEST_INT", cases[i].text), 0);
        int64_t v = gasnett_getenv_int_withdefault("TOOLTEST_INT", 99, cases[i].mult);
        CHECKF(v == cases[i].want, "'%s' (x%llu) gave %lld, want %lld", cases[i].text,
               (unsigned long long)cases[i].mult, (long long)v, (long long)cases[i].want);
        CHECK_EQ(gasnett_parse_int(cases[i].text, cases[i].mult), cases[i].want);
    }
    CHECK_EQ(gasnett_unsetenv("TOOLTEST_INT"), 0);
    CHECK(gasnett_getenv("TOOLTEST_INT") == NULL);
    CHECK_EQ(gasnett_getenv_int_withdefault("TOOLTEST_INT", -42, 0), -42);
    CHECK_EQ(gasnett_getenv_int_withdefault("TOOLTEST_INT", 4096, 1), 4096);
    CHECK_EQ(gasnett_setenv("TOOLTEST_INT", ""), 0);
    CHECK_EQ(gasnett_getenv_int_withdefault("TOOLTEST_INT", 17, 1), 17);

    CHECK(strcmp(gasnett_getenv_withdefault("TOOLTEST_STR", "dflt"), "dflt") == 0);
    gasnett_setenv("TOOLTEST_STR", "given");
    CHECK(strcmp(gasnett_getenv_withdefault("TOOLTEST_STR", "dflt"), "given") == 0);
    CHECK(strcmp(gasnett_getenv("TOOLTEST_STR"), "given") == 0);

    CHECK_EQ(gasnett_getenv_yesno_withdefault("TOOLTEST_YN", 1), 1);
    CHECK_EQ(gasnett_getenv_yesno_withdefault("TOOLTEST_YN", 0), 0);
    const char *yes[] = {"1", "y", "YES"}, *no[] = {"0", "n", "No"};
    for (int i = 0; i < 3; i++) {
        gasnett_setenv("TOOLTEST_YN", yes[i]);
        CHECKF(gasnett_getenv_yesno_withdefault("TOOLTEST_YN", 0) == 1, "'%s'", yes[i]);
        gasnett_setenv("TOOLTEST_YN", no[i]);
        CHECKF(gasnett_getenv_yesno_withdefault("TOOLTEST_YN", 1) == 0, "'%s'", no[i]);
    }
    CHECK(gasnett_getenv_dbl_withdefault("TOOLTEST_DBL", 1.25) == 1.25);
    gasnett_setenv("TOOLTEST_DBL", "2.5e3");
    CHECK(gasnett_getenv_dbl_withdefault("TOOLTEST_DBL", 1.25) == 2500.0);
    /* the display functions print only under GASNET_VERBOSEENV; they must not crash */
    gasnett_envint_display("TOOLTEST_INT", 4096, 1, 1);
    gasnett_envstr_display("TOOLTEST_STR", "x", 0);
    gasnett_envdbl_display("TOOLTEST_DBL", 0.5, 1);
    (void)gasnett_verboseenv();
}

static void check_misc(void) {
    CHECK_EQ(gasnett_checksum("", 0), UINT64_C(0xcbf29ce484222325));
    CHECK_EQ(gasnett_checksum("a", 1), UINT64_C(0xaf63dc4c8601ec8c));
    CHECK_EQ(gasnett_checksum("foobar", 6), UINT64_C(0x85944171f73967e8));

    static const struct {
        int64_t v;
        int mem;
        const char *want;
    } fm[] = {{4096, 1, "4 KB"}, {INT64_C(3) << 30, 1, "3 GB"}, {1000, 1, "1000"}, {-2048, 1, "-2 KB"},
              {123, 0, "123"},   {1024, 0, "1024"},             {0, 1, "0"},       {INT64_C(5) << 40, 1, "5 TB"},
              {3 << 20, 1, "3 MB"}};
    for (size_t i = 0; i < sizeof fm / sizeof fm[0]; i++) {
        char buf[64];
        const char *s = gasnett_format_number(fm[i].v, buf, sizeof buf, fm[i].mem);
        CHECKF(s == buf && !strcmp(s, fm[i].want), "format_number(%lld, %d) = '%s', want '%s'", (long long)fm[i].v,
               fm[i].mem, s, fm[i].want);
    }

    CHECK_EQ(gasnett_cpu_count(), sysconf(_SC_NPROCESSORS_ONLN));
    CHECK(gasnett_getPhysMemSz(1) >= (UINT64_C(1) << 26));
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    CHECK(strcmp(gasnett_gethostname(), host) == 0);
    const char *exe = gasnett_exe_name();
    CHECKF(strstr(exe, "test_tools") != NULL, "exe name '%s'", exe);
    gasnett_set_affinity(0);
    char rel[64];
    snprintf(rel, sizeof rel, "%d.%d.%d", GASNETT_RELEASE_VERSION_MAJOR, GASNETT_RELEASE_VERSION_MINOR,
             GASNETT_RELEASE_VERSION_PATCH);
    CHECK(strcmp(gasnett_release_version_str(), rel) == 0);
    CHECK(strncmp(GASNETT_CONFIG_STRING, "RELEASE=", 8) == 0);
    CHECK(strstr(GASNETT_CONFIG_STRING, GASNETT_SYSTEM_TUPLE) != NULL);
    CHECK(GASNETT_SPEC_VERSION_MAJOR == 1 && GASNETT_SPEC_VERSION_MINOR == 20);
    CHECK(GASNETT_MAX_THREADS >= 1);
    CHECK(gasnett_performance_warning_str() != NULL);
    CHECK(strlen(GASNETT_CURRENT_FUNCTION) > 0);
    char fmtbuf[32];
    snprintf(fmtbuf, sizeof fmtbuf, "%" PRIuPTR ",%" PRIi64, (uintptr_t)7, (int64_t)-3);
    CHECK(strcmp(fmtbuf, "7,-3") == 0);

    /* checked allocation */
    char *p = (char *)gasnett_debug_malloc(100);
    memset(p, 'x', 100);
    p = (char *)gasnett_debug_realloc(p, 1000);
    for (int i = 0; i < 100; i++) CHECK(p[i] == 'x');
    int *z = (int *)gasnett_debug_calloc(50, sizeof(int));
    for (int i = 0; i < 50; i++) CHECK_EQ(z[i], 0);
    char *d = gasnett_debug_strdup("hello");
    char *dn = gasnett_debug_strndup("hello", 3);
    CHECK(strcmp(d, "hello") == 0 && strcmp(dn, "hel") == 0);
    gasnett_debug_memcheck(p);
    gasnett_debug_memcheck_all();
    gasnett_debug_free(p);
    gasnett_debug_free(z);
    gasnett_debug_free(d);
    gasnett_debug_free(dn);
    gasnett_debug_free(NULL);

    /* the trace/stats macros are no-ops that still parse their arguments */
    GASNETT_TRACE_PRINTF("never printed %d", 1);
    GASNETT_STATS_PRINTF("never printed %s", "x");
    CHECK(!GASNETT_TRACE_ENABLED);
    int e = (GASNETT_TRACE_SETSOURCELINE(__FILE__, __LINE__), 5);
    CHECK_EQ(e, 5);
    GASNETT_TRACE_SETMASK("AM");
    CHECK(strlen(GASNETT_TRACE_GETMASK()) == 0); /* no tracing in this build */
    gasnett_flush_streams();
}

/* the client's backtrace hook overrides the library's weak default */
static int user_bt_calls;
static int user_bt(int fd) {
    user_bt_calls++;
    return dprintf(fd, "USER-BACKTRACE\n") > 0 ? 0 : -1;
}
gasnett_backtrace_type_t gasnett_backtrace_user = {"USER", user_bt, 1};

static void check_backtrace(void) {
    int fds[2];
    CHECK_EQ(pipe(fds), 0);
    gasnett_backtrace_init("test_tools");
    CHECK_EQ(gasnett_print_backtrace(fds[1]), 0);
    close(fds[1]);
    char buf[64] = "";
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    CHECK(n > 0 && strstr(buf, "USER-BACKTRACE") != NULL);
    CHECK_EQ(user_bt_calls, 1);
}

/* ---- the rest of the released tools API (README-tools 1.20) ---- */
GASNETT_FORMAT_PRINTF(fmt_into, 2, 3, static int fmt_into(char *buf, const char *fmt, ...));
static int fmt_into(char *buf, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, 64, fmt, ap);
    va_end(ap);
    return n;
}
GASNETT_FORMAT_PRINTF_FUNCPTR(fmt_fp, 2, 3, static int (*fmt_fp)(char *buf, const char *fmt, ...)) = fmt_into;
static int call_fmt(GASNETT_FORMAT_PRINTF_FUNCPTR(fp, 2, 3, int (*fp)(char *, const char *, ...)), char *buf) {
    return fp(buf, "<%s>", "arg");
}
GASNETT_MALLOC extern void *test_alloc(size_t n);
GASNETT_MALLOCP(test_alloc)
GASNETT_PURE extern int test_pure(const int *p);
GASNETT_PUREP(test_pure)
GASNETT_CONST extern int test_const(int x);
GASNETT_CONSTP(test_const)
GASNETT_DEPRECATED extern int test_deprecated(int x); /* never called: a call would warn */
GASNETT_EXTERNC int test_externc(int x);
extern void test_noreturn(int code) GASNETT_NORETURN;
GASNETT_NORETURNP(test_noreturn)
void *test_alloc(size_t n) { return malloc(n); }
int test_pure(const int *p) { return *p + 1; }
int test_const(int x) { return x * 3; }
int test_deprecated(int x) { return x; }
int test_externc(int x) { return -x; }
void test_noreturn(int code) { _exit(code); }
_Static_assert(_Generic(gasnett_format_number(0, NULL, 0, 0), char *: 1, default: 0), "format_number returns char *");
_Static_assert(_Generic(gasnett_nsleep(0), int: 1, default: 0), "gasnett_nsleep returns int");
_Static_assert(_Generic(gasnett_set_affinity(0), int: 1, default: 0), "gasnett_set_affinity returns int");

/* never reached with a valid x: the compiler must accept no return after it (-Wreturn-type) */
static int parity(unsigned x) {
    switch (x & 1u) {
    case 0: return 0;
    case 1: return 1;
    default: gasnett_unreachable();
    }
}

static volatile int sig_seen;
static gasnett_strongatomic_t sig_count = gasnett_strongatomic_init(0);
static void on_usr1(int sig) {
    sig_seen = sig;
}
static void on_usr1_count(int sig) {
    (void)sig;
    gasnett_strongatomic_increment(&sig_count, 0); /* strong atomics: safe in a handler */
}

static volatile int freeze_flag;
static volatile int freeze_done;
static void *freezer(void *arg) {
    (void)arg;
    gasnett_freezeForDebuggerNow(&freeze_flag, "freeze_flag");
    freeze_done = 1;
    return NULL;
}

static void check_annotations(void) {
    char buf[64];
    CHECK_EQ(fmt_into(buf, "%d-%s", 7, "x"), 3);
    CHECK(strcmp(buf, "7-x") == 0);
    CHECK_EQ(fmt_fp(buf, "%u", 42u), 2);
    CHECK(strcmp(buf, "42") == 0);
    CHECK_EQ(call_fmt(fmt_into, buf), 5);
    CHECK(strcmp(buf, "<arg>") == 0);
    int three = 3;
    void *p = test_alloc(8);
    CHECK(p != NULL);
    free(p);
    CHECK_EQ(test_pure(&three), 4);
    CHECK_EQ(test_const(three), 9);
    CHECK(test_externc(5) == -5);
    int k = 0;
    GASNETT_UNUSED_ARGS1(k++);
    GASNETT_UNUSED_ARGS2(k++, k++);
    GASNETT_UNUSED_ARGS3(k++, k++, k++);
    GASNETT_UNUSED_ARGS4(k++, k++, k++, k++);
    GASNETT_UNUSED_ARGS5(k++, k++, k++, k++, k++);
    GASNETT_UNUSED_ARGS6(k++, k++, k++, k++, k++, k++);
    GASNETT_UNUSED_ARGS7(k++, k++, k++, k++, k++, k++, k++);
    GASNETT_UNUSED_ARGS8(k++, k++, k++, k++, k++, k++, k++, k++);
    CHECK_EQ(k, 36); /* each argument evaluated exactly once */
#define SECOND_OF_3(x, y, z) (GASNETT_UNUSED_ARGS2(x, z), (y))
    CHECK_EQ(SECOND_OF_3(k++, 11, k++), 11);
    CHECK_EQ(k, 38);
    volatile int v = 1;
    CHECK(gasnett_constant_p(3) == 1);
    CHECK(gasnett_constant_p(v) == 0);
    gasnett_assume(k == 38);
    CHECK_EQ(parity(5u), 1);
    if_pf(k != 38) CHECK(0);
    if_pt(k == 38) k++;
    CHECK_EQ(k, 39);
    int *GASNETT_RESTRICT rp = &three;
    CHECK_EQ(*rp, 3);
}

static void check_released(void) {
    /* zero bytes */
    CHECK_EQ(gasnett_count0s_uint32_t(0), 4);
    CHECK_EQ(gasnett_count0s_uint32_t(0x00ff00ffu), 2);
    CHECK_EQ(gasnett_count0s_uint32_t(0x01020304u), 0);
    CHECK_EQ(gasnett_count0s_uint32_t(0x80000001u), 2);
    CHECK_EQ(gasnett_count0s_uint64_t(0), 8);
    CHECK_EQ(gasnett_count0s_uint64_t(UINT64_C(0xff00000000000000)), 7);
    CHECK_EQ(gasnett_count0s_uint64_t(UINT64_C(0x0100010001000100)), 4);
    CHECK_EQ(gasnett_count0s_uint64_t(UINT64_MAX), 0);
    CHECK_EQ(gasnett_count0s_uintptr_t(0), sizeof(uintptr_t));
    CHECK_EQ(gasnett_count0s_uintptr_t(UINTPTR_MAX), 0);
    static unsigned char src[1031], dst[1040];
    size_t want = 0;
    for (size_t i = 0; i < sizeof src; i++) {
        src[i] = (unsigned char)((i * 7) % 5 == 0 ? 0 : (i % 251) + 1);
        want += src[i] == 0;
    }
    for (size_t off = 0; off < 9; off++) { /* every alignment, every tail length */
        size_t n = sizeof src - off, w = 0;
        for (size_t i = off; i < sizeof src; i++) w += src[i] == 0;
        CHECK_EQ(gasnett_count0s(src + off, n), w);
        memset(dst, 0xee, sizeof dst);
        CHECK_EQ(gasnett_count0s_copy(dst + (off * 3) % 8, src + off, n), w);
        CHECK(memcmp(dst + (off * 3) % 8, src + off, n) == 0);
        CHECK(dst[(off * 3) % 8 + n] == 0xee);
    }
    CHECK_EQ(gasnett_count0s(src, sizeof src), want);
    CHECK_EQ(gasnett_count0s(src, 0), 0);
    CHECK_EQ(gasnett_count0s_copy(dst, src, 0), 0);
    CHECK_EQ(gasnett_isLittleEndian(), __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);

    /* versions */
    /* the released formula: MAJOR * 1000000 + MINOR * 10000 + PATCH (2025.8.0 is 2025080000) */
    CHECK_EQ(gasnett_release_version(), (uint64_t)GASNETT_RELEASE_VERSION_MAJOR * 1000000 +
                                            GASNETT_RELEASE_VERSION_MINOR * 10000 + GASNETT_RELEASE_VERSION_PATCH);
    CHECK_EQ(gasnett_release_version() / 1000000, GASNETT_RELEASE_VERSION_MAJOR);

    /* what the released headers give every client: size_t formats, MIN and MAX */
    {
        char fmt[64];
        size_t big = (size_t)-1;
        ssize_t neg = -42;
        snprintf(fmt, sizeof fmt, "%" PRIuSZ " %" PRIdSZ " %" PRIxSZ, big, neg, (size_t)0xbeef);
        char want_fmt[64];
        snprintf(want_fmt, sizeof want_fmt, "%llu -42 beef", (unsigned long long)big);
        CHECKF(strcmp(fmt, want_fmt) == 0, "PRIuSZ/PRIdSZ/PRIxSZ gave '%s', want '%s'", fmt, want_fmt);
        int k = 3;
        CHECK_EQ(MIN(k, 5), 3);
        CHECK_EQ(MAX(k, 5), 5);
        CHECK_EQ(MIN(-1.5, 2.0) == -1.5, 1);
        CHECK_EQ(MAX((size_t)7, (size_t)2), 7);
        if (k != 3) gasneti_builtin_unreachable(); /* the released name; compiles in C and C++ */
    }
    char rel[64];
    snprintf(rel, sizeof rel, "%d.%d.%d", GASNETT_RELEASE_VERSION_MAJOR, GASNETT_RELEASE_VERSION_MINOR,
             GASNETT_RELEASE_VERSION_PATCH);
    CHECK(strcmp(gasnett_release_version_str(), rel) == 0);

    /* the location, from malloc */
    int line = __LINE__ + 1;
    char *loc = gasnett_current_loc;
    char want_loc[256];
    snprintf(want_loc, sizeof want_loc, "check_released() at %s:%d", __FILE__, line);
    CHECKF(strcmp(loc, want_loc) == 0, "gasnett_current_loc = '%s', want '%s'", loc, want_loc);
    free(loc);

    /* rlimits: a lowered soft limit comes back up to the hard one, unless the variable says no */
    struct rlimit orig, rl;
    CHECK_EQ(getrlimit(RLIMIT_NOFILE, &orig), 0);
    if (orig.rlim_max != RLIM_INFINITY && orig.rlim_max > 256) {
        rl = orig;
        rl.rlim_cur = orig.rlim_max - 1; /* still above every descriptor this process has */
        CHECK_EQ(setrlimit(RLIMIT_NOFILE, &rl), 0);
        gasnett_setenv("GASNET_MAXIMIZE_RLIMIT_NOFILE", "0");
        CHECK(gasnett_maximize_rlimit(RLIMIT_NOFILE, "RLIMIT_NOFILE") != 0);
        CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
        CHECK_EQ(rl.rlim_cur, orig.rlim_max - 1);
        gasnett_unsetenv("GASNET_MAXIMIZE_RLIMIT_NOFILE");
        CHECK(gasnett_maximize_rlimit(RLIMIT_NOFILE, "RLIMIT_NOFILE") != 0);
        CHECK_EQ(getrlimit(RLIMIT_NOFILE, &rl), 0);
        CHECK_EQ(rl.rlim_cur, orig.rlim_max);
        CHECK_EQ(setrlimit(RLIMIT_NOFILE, &orig), 0);
    } else {
        CHECK(gasnett_maximize_rlimit(RLIMIT_NOFILE, "RLIMIT_NOFILE") != 0);
    }
    CHECK(gasnett_maximize_rlimits() != 0);
    CHECK_EQ(getrlimit(RLIMIT_CPU, &rl), 0);
    CHECK_EQ(rl.rlim_cur, rl.rlim_max);
    CHECK_EQ(getrlimit(RLIMIT_DATA, &rl), 0);
    CHECK_EQ(rl.rlim_cur, rl.rlim_max);

    /* signal handlers: each call returns the one before */
    gasnett_sighandlerfn_t first = gasnett_reghandler(SIGUSR1, on_usr1);
    CHECK(first != SIG_ERR);
    CHECK(gasnett_reghandler(SIGUSR1, on_usr1_count) == on_usr1);
    for (int i = 0; i < 3; i++) raise(SIGUSR1);
    CHECK_EQ(gasnett_strongatomic_read(&sig_count, 0), 3);
    CHECK(gasnett_reghandler(SIGUSR1, on_usr1) == on_usr1_count);
    raise(SIGUSR1);
    CHECK_EQ(sig_seen, SIGUSR1);
    CHECK(gasnett_reghandler(SIGUSR1, SIG_IGN) == on_usr1);
    raise(SIGUSR1); /* ignored */
    CHECK(gasnett_reghandler(SIGUSR1, first) == SIG_IGN);
    CHECK(gasnett_reghandler(-1, SIG_IGN) == SIG_ERR);
#ifdef GASNETT_STRONGATOMIC_NOT_SIGNALSAFE
    CHECK(!__atomic_always_lock_free(sizeof(uint32_t), 0));
#else
    CHECK(__atomic_always_lock_free(sizeof(uint32_t), 0));
#endif
#ifdef GASNETT_STRONGATOMIC64_NOT_SIGNALSAFE
    CHECK(!__atomic_always_lock_free(sizeof(uint64_t), 0));
#else
    CHECK(__atomic_always_lock_free(sizeof(uint64_t), 0));
#endif
#if defined(GASNETT_STRONGATOMIC32_NOT_SIGNALSAFE) != defined(GASNETT_STRONGATOMIC_NOT_SIGNALSAFE)
    CHECK(!"the 32-bit strong atomics are the default ones");
#endif

    /* affinity: bound to one CPU of those allowed, then the old mask back */
    cpu_set_t before, after;
    CHECK_EQ(sched_getaffinity(0, sizeof before, &before), 0);
    CHECK_EQ(gasnett_set_affinity(CPU_COUNT(&before) + 1), 0); /* taken modulo the count */
    CHECK_EQ(sched_getaffinity(0, sizeof after, &after), 0);
    CHECK_EQ(CPU_COUNT(&after), 1);
    CPU_AND(&after, &after, &before);
    CHECK_EQ(CPU_COUNT(&after), 1);
    CHECK_EQ(sched_setaffinity(0, sizeof before, &before), 0);
    CHECK_EQ(gasnett_nsleep(0), 0);
    CHECK_EQ(gasnett_nsleep(1000), 0);

    /* the mutex that cannot be destroyed while held says so, and nothing else happens */
    gasnett_mutex_t m = GASNETT_MUTEX_INITIALIZER;
    CHECK_EQ(gasnett_mutex_lock(&m), 0);
    CHECK_EQ(gasnett_mutex_destroy_ignoreerr(&m), EBUSY);
    CHECK_EQ(gasnett_mutex_unlock(&m), 0);
    CHECK_EQ(gasnett_mutex_destroy_ignoreerr(&m), 0);

    /* fences, in any threading: they must compile and return */
    gasnett_weak_mb();
    gasnett_weak_rmb();
    gasnett_weak_wmb();
    GASNETT_STATS_DUMP(0); /* no statistics in this build: nothing */

    /* the strong atomics of every width, one by one */
    ATOMIC_SINGLE(gasnett_strongatomic, uint32_t, int32_t);
    ATOMIC_SINGLE(gasnett_strongatomic32, uint32_t, int32_t);
    CHECK(GASNETT_HAVE_STRONGATOMIC_CAS && GASNETT_HAVE_STRONGATOMIC_ADD_SUB);

    /* freeze: the thread waits until the flag is cleared (as a debugger would), having
     * said how to attach on stderr (caught in a pipe here) */
    int efds[2], saved_err = dup(2);
    CHECK(saved_err >= 0);
    CHECK_EQ(pipe(efds), 0);
    fflush(stderr);
    CHECK_EQ(dup2(efds[1], 2), 2);
    close(efds[1]);
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, freezer, NULL), 0);
    for (int i = 0; i < 2000 && !freeze_flag; i++) gasnett_nsleep(1000000);
    int flag_seen = freeze_flag;
    gasnett_nsleep(120000000);
    int done_early = freeze_done;
    freeze_flag = 0;
    int joined = pthread_join(th, NULL);
    fflush(stderr);
    CHECK_EQ(dup2(saved_err, 2), 2);
    close(saved_err);
    char said[512];
    ssize_t nsaid = read(efds[0], said, sizeof said - 1);
    close(efds[0]);
    said[nsaid > 0 ? nsaid : 0] = 0;
    CHECK_EQ(flag_seen, 1);
    CHECK_EQ(done_early, 0);
    CHECK_EQ(joined, 0);
    CHECK_EQ(freeze_done, 1);
    CHECKF(strstr(said, "set var freeze_flag = 0") != NULL, "the freeze said: %s", said);

    /* the backtrace that fatal errors print: only with GASNET_BACKTRACE set */
    CHECK(gasnett_print_backtrace_ifenabled != NULL);
    FILE *tf = tmpfile(); /* not a pipe: a backtrace of every thread by gdb may not fit */
    CHECK(tf != NULL);
    const char *bt = getenv("GASNET_BACKTRACE");
    int bt_on = bt && (!strcmp(bt, "1") || !strcasecmp(bt, "y") || !strcasecmp(bt, "yes"));
    int r = gasnett_print_backtrace_ifenabled(fileno(tf));
    char out[64] = "";
    ssize_t got = pread(fileno(tf), out, sizeof out - 1, 0);
    fclose(tf);
    if (bt_on) CHECKF(r == 0 && got > 0, "GASNET_BACKTRACE=%s: returned %d, %zd bytes", bt, r, got);
    else CHECKF(r != 0 && got == 0, "no GASNET_BACKTRACE: returned %d, %zd bytes", r, got);
}

#ifdef TEST_TOOLS_STANDALONE
/* child runs fn, which must die of a fatal error whose message contains want */
static void expect_fatal(void (*fn)(void), const char *want) {
    int fds[2];
    CHECK_EQ(pipe(fds), 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        struct rlimit nocore = {0, 0}; /* the abort is expected: leave no core file */
        setrlimit(RLIMIT_CORE, &nocore);
        dup2(fds[1], 2);
        fn();
        _exit(0);
    }
    close(fds[1]);
    char buf[2048];
    size_t got = 0;
    ssize_t n;
    while (got < sizeof buf - 1 && (n = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0) got += (size_t)n;
    buf[got] = 0;
    close(fds[0]);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECKF(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "status 0x%x, stderr: %s", st, buf);
    CHECKF(strstr(buf, want) != NULL, "stderr lacks '%s': %s", want, buf);
}
static void bad_suffix(void) {
    gasnett_setenv("TOOLTEST_BAD", "12Q");
    (void)gasnett_getenv_int_withdefault("TOOLTEST_BAD", 0, 1);
}
static void bad_int(void) {
    (void)gasnett_parse_int("4K", 0);
}
static void bad_yesno(void) {
    gasnett_setenv("TOOLTEST_BAD", "maybe");
    (void)gasnett_getenv_yesno_withdefault("TOOLTEST_BAD", 0);
}
static void overrun(void) {
    char *p = (char *)gasnett_debug_malloc(16);
    p[16] = 1;
    gasnett_debug_free(p);
}
static void double_free(void) {
    char *p = (char *)gasnett_debug_malloc(16);
    char *q = (char *)gasnett_debug_malloc(16); /* keeps p's memory from being reused at once */
    gasnett_debug_free(p);
    gasnett_debug_free(p);
    gasnett_debug_free(q);
}
static void fatal_pos(void) {
    gasnett_fatalerror("boom %d", 42);
}
static int assume_arg = 1; /* not volatile: reading it has no side effect */
static void false_assume(void) {
    gasnett_assume(assume_arg == 2);
}
static void not_reached(void) {
    if (assume_arg) gasnett_unreachable();
}
static int my_bt(int fd) {
    return dprintf(fd, "MY-BACKTRACE-HOOK\n") > 0 ? 0 : 1;
}
static void fatal_with_my_bt(void) {
    gasnett_print_backtrace_ifenabled = my_bt;
    gasnett_fatalerror_nopos("with my hook");
}
/* in a child: stdout's buffer written out, the three streams and their descriptors
 * closed, then status 0 */
static void check_close_streams(void) {
    int fds[2];
    CHECK_EQ(pipe(fds), 0);
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]), close(fds[1]);
        setvbuf(stdout, NULL, _IOFBF, 0);
        printf("buffered until the close");
        gasnett_close_streams();
        int closed = fcntl(0, F_GETFD) == -1 && fcntl(1, F_GETFD) == -1 && fcntl(2, F_GETFD) == -1;
        _exit(closed ? 0 : 3);
    }
    close(fds[1]);
    char out[64] = "";
    ssize_t got = read(fds[0], out, sizeof out - 1);
    close(fds[0]);
    int st;
    CHECK(waitpid(pid, &st, 0) == pid);
    CHECKF(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status 0x%x (3: a stream still open)", st);
    CHECKF(got > 0 && strcmp(out, "buffered until the close") == 0, "the child wrote '%s'", out);
}
/* the default of gasnett_print_backtrace_ifenabled follows GASNET_BACKTRACE */
static void check_bt_ifenabled(void) {
    for (int on = 0; on < 2; on++) {
        if (on) gasnett_setenv("GASNET_BACKTRACE", "1");
        else gasnett_unsetenv("GASNET_BACKTRACE");
        int fds[2];
        CHECK_EQ(pipe(fds), 0);
        int calls = user_bt_calls, r = gasnett_print_backtrace_ifenabled(fds[1]);
        close(fds[1]);
        char out[64] = "";
        ssize_t got = read(fds[0], out, sizeof out - 1);
        close(fds[0]);
        if (on) CHECKF(r == 0 && strstr(out, "USER-BACKTRACE") && user_bt_calls == calls + 1, "returned %d: %s", r, out);
        else CHECKF(r != 0 && got == 0 && user_bt_calls == calls, "returned %d, %zd bytes", r, got);
    }
    gasnett_unsetenv("GASNET_BACKTRACE");
}
static void check_fatal(void) {
    expect_fatal(bad_suffix, "12Q");
    expect_fatal(bad_int, "'4K' is not an integer");
    expect_fatal(bad_yesno, "TOOLTEST_BAD='maybe'");
    expect_fatal(fatal_pos, "boom 42");
    expect_fatal(fatal_with_my_bt, "MY-BACKTRACE-HOOK");
    check_close_streams();
    check_bt_ifenabled();
    if (GASNETT_DEBUG) {
        expect_fatal(false_assume, "gasnett_assume(assume_arg == 2) is false");
        expect_fatal(not_reached, "gasnett_unreachable() reached");
        expect_fatal(overrun, "written past its end");
        expect_fatal(double_free, "gasnett_debug_free");
    }
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    check_timers();
    check_threads();
    check_env();
    check_misc();
    check_backtrace();
    check_annotations();
    check_released();
    check_fatal();
    printf("test_tools_lite: PASS [%s, %s] timers, atomics x4 threads, locks, keys, env, checksum, released names, "
           "fatal errors\n",
           TEST_MODE, GASNETT_CONFIG_STRING);
    return 0;
}
#else
int main(int argc, char **argv) {
    test_init("test_tools", &argc, &argv);
    check_timers();
    check_threads();
    check_env();
    check_misc();
    check_backtrace();
    check_annotations();
    check_released();
    test_finish("timers, atomics x4 threads, locks, keys, env, checksum, format_number, released names");
    return 0;
}
#endif
