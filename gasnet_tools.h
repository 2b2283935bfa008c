/* gasnet_tools.h: the GASNet tools (gasnett_*), the portable toolkit shared by clients and
 * the library: timers, fences, atomics, locks, thread keys, environment and system
 * queries, compiler-portability macros, checksums, checked allocation.
 * Layer: public. Usable alone (link libgasnet_tools-seq.a or -par.a, see
 * include/gasnet_tools-{seq,par}.mak) or through gasnetex.h / gasnet.h (the conduit
 * library contains the same functions). A client that defines GASNETT_LITE_MODE gets only
 * the header-only part (everything inline or a macro) and needs no library.
 * The threading of a standalone client: -DGASNETT_THREAD_SAFE or -DGASNETT_THREAD_SINGLE;
 * without either, GASNET_PAR/GASNET_PARSYNC/_REENTRANT select thread-safe. Locks are real
 * pthread locks either way. Reference: docs/tools.md. */
#ifndef GASNET_TOOLS_H
#define GASNET_TOOLS_H
#define _GASNET_TOOLS_H 1 /* the released header's guard, which clients test to tell which headers they have */

#include <gasnet_config.h>
#include <gasnet_portable_platform.h> /* PLATFORM_*: the released tools header gives them too */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* ---- versions and configuration ---- */
#ifndef GASNETT_SPEC_VERSION_MAJOR
#  define GASNETT_SPEC_VERSION_MAJOR 1
#  define GASNETT_SPEC_VERSION_MINOR 20
#endif
/* this library's own release numbers (configure.ac), not those of the released GASNet:
 * gasnett_release_version() gives MAJOR * 1000000 + MINOR * 10000 + PATCH, as the released
 * library's does */
#define GASNETT_RELEASE_VERSION_MAJOR GASNET_RELEASE_VERSION_MAJOR
#define GASNETT_RELEASE_VERSION_MINOR GASNET_RELEASE_VERSION_MINOR
#define GASNETT_RELEASE_VERSION_PATCH GASNET_RELEASE_VERSION_PATCH
#define GASNETT_MAX_THREADS GASNETI_MAX_THREADS

/* ---- names the released headers give every client (gasnetex.h includes this header) ----
 * printf conversions for size_t (PRIuSZ, PRIxSZ) and its signed counterpart (PRIdSZ),
 * used as <inttypes.h>'s are: printf("%" PRIuSZ "\n", sz). MIN and MAX unless the client
 * or a system header has them; spelled as glibc's <sys/param.h> spells them, so that
 * header may still come later (an identical redefinition is no error). Both evaluate an
 * argument twice. */
#ifndef PRIuSZ
#  define PRIuSZ "zu"
#endif
#ifndef PRIdSZ
#  define PRIdSZ "zd"
#endif
#ifndef PRIxSZ
#  define PRIxSZ "zx"
#endif
#ifndef MIN
#  define MIN(a,b) (((a)<(b))?(a):(b))
#endif
#ifndef MAX
#  define MAX(a,b) (((a)>(b))?(a):(b))
#endif

#if defined(GASNETT_THREAD_SAFE) && defined(GASNETT_THREAD_SINGLE)
#  error "define at most one of GASNETT_THREAD_SAFE and GASNETT_THREAD_SINGLE"
#endif
#if !defined(GASNETT_THREAD_SAFE) && !defined(GASNETT_THREAD_SINGLE)
#  if defined(GASNET_PAR) || defined(GASNET_PARSYNC) || defined(_REENTRANT)
#    define GASNETT_THREAD_SAFE 1
#  else
#    define GASNETT_THREAD_SINGLE 1
#  endif
#endif
#if defined(GASNET_DEBUG) && GASNET_DEBUG
#  define GASNETT_DEBUG 1
#else
#  define GASNETT_DEBUG 0
#endif

#define _GASNETT_STR(x) #x
#define GASNETT_STRINGIFY(x) _GASNETT_STR(x)
#if defined(__x86_64__)
#  define _GASNETT_CPU "x86_64"
#elif defined(__aarch64__)
#  define _GASNETT_CPU "aarch64"
#elif defined(__powerpc64__)
#  define _GASNETT_CPU "powerpc64"
#else
#  define _GASNETT_CPU "unknown"
#endif
/* cpu-vendor-os of the build, from the compiler's predefined macros */
#define GASNETT_SYSTEM_TUPLE _GASNETT_CPU "-pc-linux-gnu"
#define _GASNETT_RELEASE_STR                                                  \
    GASNETT_STRINGIFY(GASNET_RELEASE_VERSION_MAJOR) "." GASNETT_STRINGIFY(    \
        GASNET_RELEASE_VERSION_MINOR) "." GASNETT_STRINGIFY(GASNET_RELEASE_VERSION_PATCH)
#if defined(GASNETT_THREAD_SAFE)
#  define _GASNETT_THREAD_STR "threadsafe"
#else
#  define _GASNETT_THREAD_STR "threadsingle"
#endif
#if GASNETT_DEBUG
#  define _GASNETT_DEBUG_STR "debug"
#else
#  define _GASNETT_DEBUG_STR "nodebug"
#endif
#define GASNETT_CONFIG_STRING                                                              \
    "RELEASE=" _GASNETT_RELEASE_STR ",SPEC=" GASNETT_STRINGIFY(GASNETT_SPEC_VERSION_MAJOR) "." \
    GASNETT_STRINGIFY(GASNETT_SPEC_VERSION_MINOR) "," _GASNETT_THREAD_STR "," _GASNETT_DEBUG_STR \
    ",notrace,nostats,TIMER=clock_gettime,ATOMICS=compiler,SYSTEM=" GASNETT_SYSTEM_TUPLE

/* ---- compiler portability (GCC and Clang, C99 and C++11) ----
 * Each annotation follows a GASNETT_USE_* knob: 1 when the compiler in use has the feature,
 * 0 when not. A client may define a knob (0 or 1) before the include to override it;
 * with 0 the annotation expands to its plain form (usually nothing). */
#ifdef __has_builtin
#  define _GASNETT_HAS_BUILTIN(x) __has_builtin(x)
#else
#  define _GASNETT_HAS_BUILTIN(x) 0
#endif
#if defined(__GNUC__) /* GCC, Clang and the compilers that claim to be GNU C */
#  define _GASNETT_GNUC 1
#else
#  define _GASNETT_GNUC 0
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE
#  define GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_NOINLINE
#  define GASNETT_USE_GCC_ATTRIBUTE_NOINLINE _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_MALLOC
#  define GASNETT_USE_GCC_ATTRIBUTE_MALLOC _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT
#  define GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_USED
#  define GASNETT_USE_GCC_ATTRIBUTE_USED _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_MAYALIAS
#  define GASNETT_USE_GCC_ATTRIBUTE_MAYALIAS _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_NORETURN
#  define GASNETT_USE_GCC_ATTRIBUTE_NORETURN _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_PURE
#  define GASNETT_USE_GCC_ATTRIBUTE_PURE _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_CONST
#  define GASNETT_USE_GCC_ATTRIBUTE_CONST _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED
#  define GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_FORMAT
#  define GASNETT_USE_GCC_ATTRIBUTE_FORMAT _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR
#  define GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR_ARG
#  define GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR_ARG _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_BUILTIN_CONSTANT_P
#  define GASNETT_USE_BUILTIN_CONSTANT_P _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_BUILTIN_PREFETCH
#  define GASNETT_USE_BUILTIN_PREFETCH _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_BUILTIN_EXPECT
#  define GASNETT_USE_BUILTIN_EXPECT _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_BUILTIN_UNREACHABLE
#  define GASNETT_USE_BUILTIN_UNREACHABLE _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_BUILTIN_ASSUME /* Clang has it, GCC does not */
#  if _GASNETT_HAS_BUILTIN(__builtin_assume)
#    define GASNETT_USE_BUILTIN_ASSUME 1
#  else
#    define GASNETT_USE_BUILTIN_ASSUME 0
#  endif
#endif
#ifndef GASNETT_USE_ASSUME /* __assume(): Microsoft and Intel compilers only */
#  define GASNETT_USE_ASSUME 0
#endif
#ifndef GASNETT_USE_CXX11_ATTRIBUTE_FALLTHROUGH /* [[fallthrough]] is C++17 */
#  if defined(__cplusplus) && __cplusplus >= 201703L
#    define GASNETT_USE_CXX11_ATTRIBUTE_FALLTHROUGH 1
#  else
#    define GASNETT_USE_CXX11_ATTRIBUTE_FALLTHROUGH 0
#  endif
#endif
#ifndef GASNETT_USE_CXX11_ATTRIBUTE_CLANG__FALLTHROUGH
#  if defined(__cplusplus) && defined(__clang__)
#    define GASNETT_USE_CXX11_ATTRIBUTE_CLANG__FALLTHROUGH 1
#  else
#    define GASNETT_USE_CXX11_ATTRIBUTE_CLANG__FALLTHROUGH 0
#  endif
#endif
#ifndef GASNETT_USE_RESTRICT /* the keyword GASNETT_RESTRICT stands for (C and C++) */
#  if _GASNETT_GNUC
#    define GASNETT_USE_RESTRICT __restrict__
#  else
#    define GASNETT_USE_RESTRICT
#  endif
#endif
#ifndef GASNETT_USE_RESTRICT_ON_TYPEDEFS
#  define GASNETT_USE_RESTRICT_ON_TYPEDEFS _GASNETT_GNUC
#endif
#ifndef GASNETT_USE_PRAGMA_GCC_DIAGNOSTIC
#  define GASNETT_USE_PRAGMA_GCC_DIAGNOSTIC _GASNETT_GNUC
#endif

#ifdef __cplusplus
#  define GASNETT_BEGIN_EXTERNC extern "C" {
#  define GASNETT_END_EXTERNC }
#  define GASNETT_EXTERNC extern "C"
#else
#  define GASNETT_BEGIN_EXTERNC
#  define GASNETT_END_EXTERNC
#  define GASNETT_EXTERNC extern
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_ALWAYSINLINE
#  define GASNETT_INLINE(fn) static inline __attribute__((__always_inline__))
#else
#  define GASNETT_INLINE(fn) static inline
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_NOINLINE
#  define GASNETT_NEVER_INLINE(fn, declarator) __attribute__((__noinline__)) declarator
#else
#  define GASNETT_NEVER_INLINE(fn, declarator) declarator
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_NORETURN
#  define GASNETT_NORETURN __attribute__((__noreturn__))
#else
#  define GASNETT_NORETURN
#endif
#if GASNETT_USE_BUILTIN_EXPECT
#  define GASNETT_PREDICT_TRUE(x) __builtin_expect(!!(x), 1)
#  define GASNETT_PREDICT_FALSE(x) __builtin_expect(!!(x), 0)
#else
#  define GASNETT_PREDICT_TRUE(x) (!!(x))
#  define GASNETT_PREDICT_FALSE(x) (!!(x))
#endif
#define GASNETT_LIKELY GASNETT_PREDICT_TRUE
#define GASNETT_UNLIKELY GASNETT_PREDICT_FALSE
/* _STRINGIFY(x): x expanded, then made a string literal (the released gasnetex.h and tools
 * header both give it; left alone when a client has its own) */
#ifndef _STRINGIFY
#  define _GASNETT_STRINGIFY_HELPER(x) #x
#  define _STRINGIFY(x) _GASNETT_STRINGIFY_HELPER(x)
#endif
#ifndef if_pf
#  define if_pf(cond) if (GASNETT_PREDICT_FALSE(cond))
#endif
#ifndef if_pt
#  define if_pt(cond) if (GASNETT_PREDICT_TRUE(cond))
#endif
#if _GASNETT_GNUC
#  define GASNETT_UNUSED __attribute__((__unused__))
#  define GASNETT_COLD __attribute__((__cold__))
#  define GASNETT_HOT __attribute__((__hot__))
#else
#  define GASNETT_UNUSED
#  define GASNETT_COLD
#  define GASNETT_HOT
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_USED
#  define GASNETT_USED __attribute__((__used__))
#else
#  define GASNETT_USED
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_PURE
#  define GASNETT_PURE __attribute__((__pure__))
#else
#  define GASNETT_PURE
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_CONST
#  define GASNETT_CONST __attribute__((__const__))
#else
#  define GASNETT_CONST
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_MALLOC
#  define GASNETT_MALLOC __attribute__((__malloc__))
#else
#  define GASNETT_MALLOC
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_DEPRECATED
#  define GASNETT_DEPRECATED __attribute__((__deprecated__))
#else
#  define GASNETT_DEPRECATED
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_WARNUNUSEDRESULT
#  define GASNETT_WARN_UNUSED_RESULT __attribute__((__warn_unused_result__))
#else
#  define GASNETT_WARN_UNUSED_RESULT
#endif
/* The pragma forms of the annotations above (for compilers that take the function's name
 * in a #pragma, after its declaration): nothing for GCC and Clang, whose attributes do it. */
#define GASNETT_NORETURNP(fnname)
#define GASNETT_MALLOCP(fnname)
#define GASNETT_PUREP(fnname)
#define GASNETT_CONSTP(fnname)
/* printf-like checking of a declaration (the released 4-argument form; the seed had 2):
 *   GASNETT_FORMAT_PRINTF(log_msg, 2, 3, extern void log_msg(int lvl, const char *fmt, ...));
 * fmtarg and firstvararg count the parameters from 1. The _FUNCPTR form is the same for
 * a declaration of a function pointer (a variable, a member or a parameter). */
#if GASNETT_USE_GCC_ATTRIBUTE_FORMAT
#  define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator) \
    __attribute__((__format__(__printf__, fmtarg, firstvararg))) declarator
#else
#  define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator) declarator
#endif
#if GASNETT_USE_GCC_ATTRIBUTE_FORMAT_FUNCPTR
#  define GASNETT_FORMAT_PRINTF_FUNCPTR(fnname, fmtarg, firstvararg, declarator) \
    __attribute__((__format__(__printf__, fmtarg, firstvararg))) declarator
#else
#  define GASNETT_FORMAT_PRINTF_FUNCPTR(fnname, fmtarg, firstvararg, declarator) declarator
#endif
#if GASNETT_USE_CXX11_ATTRIBUTE_FALLTHROUGH
#  define GASNETT_FALLTHROUGH [[fallthrough]];
#elif GASNETT_USE_CXX11_ATTRIBUTE_CLANG__FALLTHROUGH
#  define GASNETT_FALLTHROUGH [[clang::fallthrough]];
#elif (defined(__GNUC__) && __GNUC__ >= 7) || defined(__clang__)
#  define GASNETT_FALLTHROUGH __attribute__((__fallthrough__));
#else
#  define GASNETT_FALLTHROUGH
#endif
#define GASNETT_RESTRICT GASNETT_USE_RESTRICT
#define GASNETT_CURRENT_FUNCTION __func__
/* evaluate each argument once for its side effects, and use none of them:
 *   #define SECOND_OF_2(x, y) (GASNETT_UNUSED_ARGS1(x), (y)) */
#define GASNETT_UNUSED_ARGS1(a1) ((void)(a1))
#define GASNETT_UNUSED_ARGS2(a1, a2) ((void)(a1), (void)(a2))
#define GASNETT_UNUSED_ARGS3(a1, a2, a3) ((void)(a1), (void)(a2), (void)(a3))
#define GASNETT_UNUSED_ARGS4(a1, a2, a3, a4) ((void)(a1), (void)(a2), (void)(a3), (void)(a4))
#define GASNETT_UNUSED_ARGS5(a1, a2, a3, a4, a5) (GASNETT_UNUSED_ARGS4(a1, a2, a3, a4), (void)(a5))
#define GASNETT_UNUSED_ARGS6(a1, a2, a3, a4, a5, a6) (GASNETT_UNUSED_ARGS4(a1, a2, a3, a4), (void)(a5), (void)(a6))
#define GASNETT_UNUSED_ARGS7(a1, a2, a3, a4, a5, a6, a7) \
    (GASNETT_UNUSED_ARGS4(a1, a2, a3, a4), GASNETT_UNUSED_ARGS3(a5, a6, a7))
#define GASNETT_UNUSED_ARGS8(a1, a2, a3, a4, a5, a6, a7, a8) \
    (GASNETT_UNUSED_ARGS4(a1, a2, a3, a4), GASNETT_UNUSED_ARGS4(a5, a6, a7, a8))
#if GASNETT_USE_BUILTIN_CONSTANT_P
#  define gasnett_constant_p(expr) __builtin_constant_p(expr)
#else
#  define gasnett_constant_p(expr) 0
#endif
/* gasnett_unreachable(): this point is never reached. gasnett_assume(cond): cond always
 * holds here (it must have no side effects; it may or may not be evaluated). Debug builds
 * check both and end the process with a message when they are wrong; other builds tell
 * the optimizer. */
GASNETT_NORETURN static inline void _gasnett_annotation_failed(const char *_what, const char *_file, int _line) {
    fprintf(stderr, "*** FATAL ERROR: %s at %s:%d\n", _what, _file, _line);
    fflush(stderr);
    abort();
}
#if GASNETT_DEBUG
#  define gasnett_unreachable() _gasnett_annotation_failed("gasnett_unreachable() reached", __FILE__, __LINE__)
#  define gasnett_assume(cond) \
    (GASNETT_PREDICT_TRUE(cond) ? (void)0 : _gasnett_annotation_failed("gasnett_assume(" #cond ") is false", __FILE__, __LINE__))
#elif GASNETT_USE_BUILTIN_UNREACHABLE
#  define gasnett_unreachable() __builtin_unreachable()
#else
#  define gasnett_unreachable() ((void)0)
#endif
/* gasneti_builtin_unreachable(): the compiler's own "not reached" (no check, in every
 * build), or abort() where the compiler has none. The released headers give this name to
 * their clients (UPC++ 2021.9 and later require it); our own code uses gasnett_unreachable. */
#if GASNETT_USE_BUILTIN_UNREACHABLE
#  define gasneti_builtin_unreachable() __builtin_unreachable()
#else
#  define gasneti_builtin_unreachable() abort()
#endif
#if !GASNETT_DEBUG
#  if GASNETT_USE_BUILTIN_ASSUME
#    define gasnett_assume(cond) __builtin_assume(cond)
#  elif GASNETT_USE_ASSUME
#    define gasnett_assume(cond) __assume(cond)
#  elif GASNETT_USE_BUILTIN_UNREACHABLE
#    define gasnett_assume(cond) (GASNETT_PREDICT_TRUE(cond) ? (void)0 : __builtin_unreachable())
#  else
#    define gasnett_assume(cond) ((void)0)
#  endif
#endif
/* a string that `strings` / `ident` find in the object: GASNETT_IDENT(name, "$Key: value $") */
#define GASNETT_IDENT(identName, identText) static const char identName[] GASNETT_USED = identText
/* usable in #if: the smallest page and the usual cache line of the supported CPUs */
#define GASNETT_PAGESIZE 4096
#define GASNETT_PAGESHIFT 12 /* log2(GASNETT_PAGESIZE) */
#if defined(__powerpc64__) || (defined(__aarch64__) && defined(__APPLE__))
#  define GASNETT_CACHE_LINE_BYTES 128
#else
#  define GASNETT_CACHE_LINE_BYTES 64
#endif

/* ---- timers: ticks are nanoseconds of CLOCK_MONOTONIC ---- */
typedef uint64_t gasnett_tick_t;
#define GASNETT_TICK_MIN ((gasnett_tick_t)0)
#define GASNETT_TICK_MAX ((gasnett_tick_t)UINT64_MAX)
static inline gasnett_tick_t gasnett_ticks_now(void) {
    struct timespec _ts;
    clock_gettime(CLOCK_MONOTONIC, &_ts);
    return (gasnett_tick_t)_ts.tv_sec * 1000000000u + (gasnett_tick_t)_ts.tv_nsec;
}
#define gasnett_ticks_to_ns(t) ((uint64_t)(t))
#define gasnett_ticks_to_us(t) ((uint64_t)(t) / 1000u)
#define gasnett_ticks_to_sec(t) ((double)(t) * 1e-9)
#define gasnett_ticks_to_ms(t) ((uint64_t)(t) / 1000000u)

/* ---- memory fences ---- */
#define gasnett_compiler_fence() __asm__ __volatile__("" ::: "memory")
#define gasnett_local_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gasnett_local_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define gasnett_local_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
/* the same, but nothing at all for a thread-single client */
#if defined(GASNETT_THREAD_SAFE)
#  define gasnett_weak_mb() gasnett_local_mb()
#  define gasnett_weak_wmb() gasnett_local_wmb()
#  define gasnett_weak_rmb() gasnett_local_rmb()
#else
#  define gasnett_weak_mb() ((void)0)
#  define gasnett_weak_wmb() ((void)0)
#  define gasnett_weak_rmb() ((void)0)
#endif
/* In a loop that waits for another CPU: lets a hyperthread sibling run, and spares the
 * watched line a storm of reads while its writer wants it. */
#if defined(__x86_64__) || defined(__i386__)
#  define gasnett_spinloop_hint() __builtin_ia32_pause()
#elif defined(__aarch64__)
#  define gasnett_spinloop_hint() __asm__ __volatile__("yield" ::: "memory")
#else
#  define gasnett_spinloop_hint() gasnett_compiler_fence()
#endif

/* ---- atomics ----
 * Every operation is sequentially consistent by itself; the fence flags add full fences
 * before/after it. The flags are nearly always constants, so the tests compile away. */
#define GASNETT_ATOMIC_NONE 0x00
#define GASNETT_ATOMIC_RMB_PRE 0x01
#define GASNETT_ATOMIC_WMB_PRE 0x02
#define GASNETT_ATOMIC_RMB_POST 0x04
#define GASNETT_ATOMIC_WMB_POST 0x08
#define GASNETT_ATOMIC_RMB_POST_IF_TRUE 0x10
#define GASNETT_ATOMIC_RMB_POST_IF_FALSE 0x20
#define GASNETT_ATOMIC_MB_PRE (GASNETT_ATOMIC_RMB_PRE | GASNETT_ATOMIC_WMB_PRE)
#define GASNETT_ATOMIC_MB_POST (GASNETT_ATOMIC_RMB_POST | GASNETT_ATOMIC_WMB_POST)
#define GASNETT_ATOMIC_REL GASNETT_ATOMIC_WMB_PRE
#define GASNETT_ATOMIC_ACQ GASNETT_ATOMIC_RMB_POST
#define GASNETT_ATOMIC_ACQ_IF_TRUE GASNETT_ATOMIC_RMB_POST_IF_TRUE
#define GASNETT_ATOMIC_ACQ_IF_FALSE GASNETT_ATOMIC_RMB_POST_IF_FALSE
#define GASNETT_HAVE_ATOMIC_CAS 1
#define GASNETT_HAVE_ATOMIC_ADD_SUB 1
#define GASNETT_HAVE_STRONGATOMIC_CAS 1
#define GASNETT_HAVE_STRONGATOMIC_ADD_SUB 1
/* Defined (to 1) only where an atomic type is not lock-free, hence not safe against
 * signal handlers: on none of the supported 64-bit CPUs. */
#if !defined(__GCC_ATOMIC_INT_LOCK_FREE) || __GCC_ATOMIC_INT_LOCK_FREE != 2
#  define GASNETT_STRONGATOMIC_NOT_SIGNALSAFE 1
#  define GASNETT_STRONGATOMIC32_NOT_SIGNALSAFE 1
#endif
#if !defined(__GCC_ATOMIC_LLONG_LOCK_FREE) || __GCC_ATOMIC_LLONG_LOCK_FREE != 2
#  define GASNETT_STRONGATOMIC64_NOT_SIGNALSAFE 1
#endif

static inline void _gasnett_atomic_pre(int _f) {
    if (_f & GASNETT_ATOMIC_MB_PRE) __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
static inline void _gasnett_atomic_post(int _f) {
    if (_f & GASNETT_ATOMIC_MB_POST) __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
static inline int _gasnett_atomic_post_bool(int _f, int _r) {
    if ((_f & GASNETT_ATOMIC_MB_POST) || ((_f & GASNETT_ATOMIC_RMB_POST_IF_TRUE) && _r) ||
        ((_f & GASNETT_ATOMIC_RMB_POST_IF_FALSE) && !_r))
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return _r;
}

/* One family of operations per type: NAME_t holding a VAL (unsigned) with SVAL the signed
 * view. add/subtract return the new value, swap the old one, compare_and_swap nonzero
 * on success, decrement_and_test nonzero when the new value is 0. */
#define _GASNETT_ATOMIC_DEFINE(name, val, sval)                                                      \
    typedef struct { volatile val _v; } name##_t;                                                   \
    static inline val name##_read(const name##_t *_p, int _f) {                                      \
        _gasnett_atomic_pre(_f);                                                                   \
        val _r = __atomic_load_n(&_p->_v, __ATOMIC_SEQ_CST);                                       \
        _gasnett_atomic_post(_f);                                                                  \
        return _r;                                                                                 \
    }                                                                                              \
    static inline void name##_set(name##_t *_p, val _x, int _f) {                                    \
        _gasnett_atomic_pre(_f);                                                                   \
        __atomic_store_n(&_p->_v, _x, __ATOMIC_SEQ_CST);                                           \
        _gasnett_atomic_post(_f);                                                                  \
    }                                                                                              \
    static inline val name##_add(name##_t *_p, val _x, int _f) {                                     \
        _gasnett_atomic_pre(_f);                                                                   \
        val _r = __atomic_add_fetch(&_p->_v, _x, __ATOMIC_SEQ_CST);                                \
        _gasnett_atomic_post(_f);                                                                  \
        return _r;                                                                                 \
    }                                                                                              \
    static inline val name##_subtract(name##_t *_p, val _x, int _f) {                                \
        _gasnett_atomic_pre(_f);                                                                   \
        val _r = __atomic_sub_fetch(&_p->_v, _x, __ATOMIC_SEQ_CST);                                \
        _gasnett_atomic_post(_f);                                                                  \
        return _r;                                                                                 \
    }                                                                                              \
    static inline void name##_increment(name##_t *_p, int _f) { (void)name##_add(_p, 1, _f); }       \
    static inline void name##_decrement(name##_t *_p, int _f) { (void)name##_subtract(_p, 1, _f); }  \
    static inline int name##_decrement_and_test(name##_t *_p, int _f) {                              \
        _gasnett_atomic_pre(_f);                                                                   \
        int _r = __atomic_sub_fetch(&_p->_v, 1, __ATOMIC_SEQ_CST) == 0;                            \
        return _gasnett_atomic_post_bool(_f, _r);                                                  \
    }                                                                                              \
    static inline int name##_compare_and_swap(name##_t *_p, val _o, val _n, int _f) {                \
        _gasnett_atomic_pre(_f);                                                                   \
        int _r = __atomic_compare_exchange_n(&_p->_v, &_o, _n, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        return _gasnett_atomic_post_bool(_f, _r);                                                  \
    }                                                                                              \
    static inline val name##_swap(name##_t *_p, val _x, int _f) {                                    \
        _gasnett_atomic_pre(_f);                                                                   \
        val _r = __atomic_exchange_n(&_p->_v, _x, __ATOMIC_SEQ_CST);                               \
        _gasnett_atomic_post(_f);                                                                  \
        return _r;                                                                                 \
    }                                                                                              \
    static inline sval name##_signed(val _x) { return (sval)_x; }

GASNETT_BEGIN_EXTERNC
typedef uint32_t gasnett_atomic_val_t;
typedef int32_t gasnett_atomic_sval_t;
typedef uint32_t gasnett_atomic32_val_t; /* not in the GASNet names, but spares a cast */
typedef uint64_t gasnett_atomic64_val_t;
_GASNETT_ATOMIC_DEFINE(gasnett_atomic, uint32_t, int32_t)
_GASNETT_ATOMIC_DEFINE(gasnett_atomic32, uint32_t, int32_t)
_GASNETT_ATOMIC_DEFINE(gasnett_atomic64, uint64_t, int64_t)
/* "strong" atomics (valid between processes and against signal handlers): ours already are */
_GASNETT_ATOMIC_DEFINE(gasnett_strongatomic, uint32_t, int32_t)
_GASNETT_ATOMIC_DEFINE(gasnett_strongatomic32, uint32_t, int32_t)
_GASNETT_ATOMIC_DEFINE(gasnett_strongatomic64, uint64_t, int64_t)
GASNETT_END_EXTERNC
#undef _GASNETT_ATOMIC_DEFINE
#define gasnett_atomic_init(v) {(v)}
#define gasnett_atomic32_init(v) {(v)}
#define gasnett_atomic64_init(v) {(v)}
#define gasnett_strongatomic_init(v) {(v)}
#define gasnett_strongatomic32_init(v) {(v)}
#define gasnett_strongatomic64_init(v) {(v)}
#define GASNETT_ATOMIC_MAX ((gasnett_atomic_val_t)UINT32_MAX)
#define GASNETT_ATOMIC_SIGNED_MIN ((gasnett_atomic_sval_t)INT32_MIN)
#define gasnett_atomic_signed(v) ((gasnett_atomic_sval_t)(v)) /* an atomic's value, as signed */
#define GASNETT_ATOMIC_SIGNED_MAX ((gasnett_atomic_sval_t)INT32_MAX)

/* ---- mutexes, condition variables, read/write locks (always pthreads) ----
 * Debug builds record the writer/owner so the assert macros can check it; release builds
 * store nothing extra and the asserts are empty. */
#if GASNETT_DEBUG
typedef struct {
    pthread_mutex_t _m;
    volatile uintptr_t _owner; /* pthread_self() of the holder, 0 when free */
} gasnett_mutex_t;
#  define GASNETT_MUTEX_INITIALIZER {PTHREAD_MUTEX_INITIALIZER, 0}
typedef struct {
    pthread_rwlock_t _l;
    volatile uintptr_t _writer;
} gasnett_rwlock_t;
#  define GASNETT_RWLOCK_INITIALIZER {PTHREAD_RWLOCK_INITIALIZER, 0}
#  define _GASNETT_SELF() ((uintptr_t)pthread_self())
#  define _GASNETT_OWNER_SET(lk, fld, v) ((lk)->fld = (v))
#else
typedef struct {
    pthread_mutex_t _m;
} gasnett_mutex_t;
#  define GASNETT_MUTEX_INITIALIZER {PTHREAD_MUTEX_INITIALIZER}
typedef struct {
    pthread_rwlock_t _l;
} gasnett_rwlock_t;
#  define GASNETT_RWLOCK_INITIALIZER {PTHREAD_RWLOCK_INITIALIZER}
#  define _GASNETT_OWNER_SET(lk, fld, v) ((void)0)
#endif
typedef struct {
    pthread_cond_t _c;
} gasnett_cond_t;
#define GASNETT_COND_INITIALIZER {PTHREAD_COND_INITIALIZER}

GASNETT_BEGIN_EXTERNC
#if GASNETT_DEBUG && !defined(GASNETT_LITE_MODE)
extern void gasnett_lock_assert_failed(const char *what, const void *lock) GASNETT_NORETURN;
#  define gasnett_mutex_assertlocked(pl) \
    ((pl)->_owner == _GASNETT_SELF() ? (void)0 : gasnett_lock_assert_failed("gasnett_mutex_assertlocked", (pl)))
#  define gasnett_mutex_assertunlocked(pl) \
    ((pl)->_owner != _GASNETT_SELF() ? (void)0 : gasnett_lock_assert_failed("gasnett_mutex_assertunlocked", (pl)))
#  define gasnett_rwlock_assertwrlocked(pl) \
    ((pl)->_writer == _GASNETT_SELF() ? (void)0 : gasnett_lock_assert_failed("gasnett_rwlock_assertwrlocked", (pl)))
#  define gasnett_rwlock_assertunlocked(pl) \
    ((pl)->_writer != _GASNETT_SELF() ? (void)0 : gasnett_lock_assert_failed("gasnett_rwlock_assertunlocked", (pl)))
#else
#  define gasnett_mutex_assertlocked(pl) ((void)(pl))
#  define gasnett_mutex_assertunlocked(pl) ((void)(pl))
#  define gasnett_rwlock_assertwrlocked(pl) ((void)(pl))
#  define gasnett_rwlock_assertunlocked(pl) ((void)(pl))
#endif
/* readers are not recorded: these two check nothing */
#define gasnett_rwlock_assertrdlocked(pl) ((void)(pl))
#define gasnett_rwlock_assertlocked(pl) ((void)(pl))

static inline int gasnett_mutex_init(gasnett_mutex_t *_p) {
    _GASNETT_OWNER_SET(_p, _owner, 0);
    return pthread_mutex_init(&_p->_m, NULL);
}
static inline int gasnett_mutex_destroy(gasnett_mutex_t *_p) { return pthread_mutex_destroy(&_p->_m); }
/* no check at all: the error (EBUSY for a held mutex) is only returned */
static inline int gasnett_mutex_destroy_ignoreerr(gasnett_mutex_t *_p) { return pthread_mutex_destroy(&_p->_m); }
static inline int gasnett_mutex_lock(gasnett_mutex_t *_p) {
    int _r = pthread_mutex_lock(&_p->_m);
    _GASNETT_OWNER_SET(_p, _owner, _GASNETT_SELF());
    return _r;
}
/* 0 when acquired, EBUSY when held elsewhere */
static inline int gasnett_mutex_trylock(gasnett_mutex_t *_p) {
    int _r = pthread_mutex_trylock(&_p->_m);
    if (!_r) _GASNETT_OWNER_SET(_p, _owner, _GASNETT_SELF());
    return _r;
}
static inline int gasnett_mutex_unlock(gasnett_mutex_t *_p) {
    _GASNETT_OWNER_SET(_p, _owner, 0);
    return pthread_mutex_unlock(&_p->_m);
}
static inline int gasnett_cond_init(gasnett_cond_t *_c) { return pthread_cond_init(&_c->_c, NULL); }
static inline int gasnett_cond_destroy(gasnett_cond_t *_c) { return pthread_cond_destroy(&_c->_c); }
static inline int gasnett_cond_signal(gasnett_cond_t *_c) { return pthread_cond_signal(&_c->_c); }
static inline int gasnett_cond_broadcast(gasnett_cond_t *_c) { return pthread_cond_broadcast(&_c->_c); }
static inline int gasnett_cond_wait(gasnett_cond_t *_c, gasnett_mutex_t *_p) {
    _GASNETT_OWNER_SET(_p, _owner, 0);
    int _r = pthread_cond_wait(&_c->_c, &_p->_m);
    _GASNETT_OWNER_SET(_p, _owner, _GASNETT_SELF());
    return _r;
}
static inline int gasnett_rwlock_init(gasnett_rwlock_t *_l) {
    _GASNETT_OWNER_SET(_l, _writer, 0);
    return pthread_rwlock_init(&_l->_l, NULL);
}
static inline int gasnett_rwlock_destroy(gasnett_rwlock_t *_l) { return pthread_rwlock_destroy(&_l->_l); }
static inline int gasnett_rwlock_rdlock(gasnett_rwlock_t *_l) { return pthread_rwlock_rdlock(&_l->_l); }
static inline int gasnett_rwlock_tryrdlock(gasnett_rwlock_t *_l) { return pthread_rwlock_tryrdlock(&_l->_l); }
static inline int gasnett_rwlock_wrlock(gasnett_rwlock_t *_l) {
    int _r = pthread_rwlock_wrlock(&_l->_l);
    _GASNETT_OWNER_SET(_l, _writer, _GASNETT_SELF());
    return _r;
}
static inline int gasnett_rwlock_trywrlock(gasnett_rwlock_t *_l) {
    int _r = pthread_rwlock_trywrlock(&_l->_l);
    if (!_r) _GASNETT_OWNER_SET(_l, _writer, _GASNETT_SELF());
    return _r;
}
static inline int gasnett_rwlock_unlock(gasnett_rwlock_t *_l) {
#if GASNETT_DEBUG
    if (_l->_writer == _GASNETT_SELF()) _l->_writer = 0;
#endif
    return pthread_rwlock_unlock(&_l->_l);
}
GASNETT_END_EXTERNC

/* ---- thread keys: one void * per thread (compiler thread-local storage) ---- */
#define GASNETT_THREADKEY_DEFINE(key) __thread void *key
#define GASNETT_THREADKEY_DECLARE(key) extern __thread void *key
#define gasnett_threadkey_init(key) ((void)0)
#define gasnett_threadkey_get(key) ((void *)(key))
#define gasnett_threadkey_set(key, val) ((void)((key) = (void *)(val)))
#define gasnett_threadkey_get_noinit(key) gasnett_threadkey_get(key)
#define gasnett_threadkey_set_noinit(key, val) gasnett_threadkey_set(key, val)

static inline void gasnett_sched_yield(void) { (void)sched_yield(); }

/* ---- byte order, zero bytes ---- */
static inline int gasnett_isLittleEndian(void) {
    const uint32_t _x = 1;
    return *(const unsigned char *)&_x == 1; /* a char may alias anything, in C and C++ */
}
/* the number of bytes equal to 0 in the value's representation: a byte's top bit ends up
 * set iff the byte was 0, then those bits are counted */
#if _GASNETT_GNUC
#  define _GASNETT_POPCOUNT64(x) __builtin_popcountll(x)
#else
static inline int _GASNETT_POPCOUNT64(uint64_t _x) {
    int _n = 0;
    for (; _x; _x &= _x - 1) _n++;
    return _n;
}
#endif
static inline int gasnett_count0s_uint64_t(uint64_t _x) {
    const uint64_t _low7 = UINT64_C(0x7f7f7f7f7f7f7f7f);
    return _GASNETT_POPCOUNT64(~(((_x & _low7) + _low7) | _x | _low7));
}
static inline int gasnett_count0s_uint32_t(uint32_t _x) {
    const uint32_t _low7 = 0x7f7f7f7fu;
    return _GASNETT_POPCOUNT64((uint32_t) ~(((_x & _low7) + _low7) | _x | _low7));
}
static inline int gasnett_count0s_uintptr_t(uintptr_t _x) {
    return sizeof(uintptr_t) == 8 ? gasnett_count0s_uint64_t((uint64_t)_x) : gasnett_count0s_uint32_t((uint32_t)_x);
}

/* ---- tracing and statistics: no-ops here ----
 * The arguments are still type-checked (inside `0 &&`), never evaluated. gasnetex.h
 * connects the PRINTF forms to the library's trace and statistics files when it was
 * configured with --enable-trace / --enable-stats. */
#define GASNETT_TRACE_ENABLED 0
#define GASNETT_STATS_ENABLED 0
#define GASNETT_TRACE_PRINTF(...) ((void)(0 && printf(__VA_ARGS__)))
#define GASNETT_TRACE_PRINTF_FORCE(...) ((void)(0 && printf(__VA_ARGS__)))
#define GASNETT_STATS_PRINTF(...) ((void)(0 && printf(__VA_ARGS__)))
#define GASNETT_STATS_PRINTF_FORCE(...) ((void)(0 && printf(__VA_ARGS__)))
#define GASNETT_TRACE_GETMASK() ("")
#define GASNETT_TRACE_SETMASK(mask) ((void)(mask))
#define GASNETT_STATS_GETMASK() ("")
#define GASNETT_STATS_SETMASK(mask) ((void)(mask))
#define GASNETT_STATS_DUMP(reset) ((void)(reset))
#define GASNETT_TRACE_GET_TRACELOCAL() (0)
#define GASNETT_TRACE_SET_TRACELOCAL(val) ((void)(val))
#define GASNETT_TRACE_SETSOURCELINE(file, line) ((void)(file), (void)(line))
#define GASNETT_TRACE_GETSOURCELINE(pfile, pline) ((void)(*(pfile) = ""), (void)(*(pline) = 0))
#define GASNETT_TRACE_FREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_UNFREEZESOURCELINE() ((void)0)

/* ---- the library part (libgasnet_tools-*.a, or the conduit library) ---- */
#ifndef GASNETT_LITE_MODE
GASNETT_BEGIN_EXTERNC
/* timers */
extern double gasnett_tick_granularityus(void); /* smallest nonzero tick step seen, in us */
extern double gasnett_tick_overheadus(void);    /* cost of one gasnett_ticks_now(), in us */
extern uint64_t gasnett_gettimeofday_us(void);  /* wall clock, us since the epoch */
/* environment; the _withdefault forms report under GASNET_VERBOSEENV */
/* char *, as in the released tools API (clients assign them to char *); not to be written */
extern char *gasnett_getenv(const char *key);
extern char *gasnett_getenv_withdefault(const char *key, const char *dflt);
extern int gasnett_getenv_yesno_withdefault(const char *key, int dflt);
extern int64_t gasnett_getenv_int_withdefault(const char *key, int64_t dflt, uint64_t mem_size_multiplier);
extern double gasnett_getenv_dbl_withdefault(const char *key, double dflt);
extern int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier);
extern int gasnett_verboseenv(void);
extern void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size);
extern void gasnett_envstr_display(const char *key, const char *val, int is_dflt);
extern void gasnett_envdbl_display(const char *key, double val, int is_dflt);
extern int gasnett_setenv(const char *key, const char *val);
extern int gasnett_unsetenv(const char *key);
/* system */
extern int gasnett_cpu_count(void);
extern uint64_t gasnett_getPhysMemSz(int failureIsFatal);
extern const char *gasnett_gethostname(void);
extern const char *gasnett_exe_name(void);
extern int gasnett_nsleep(uint64_t ns); /* 0 */
#define GASNETT_SET_AFFINITY_SUPPORT 1
extern int gasnett_set_affinity(int rank); /* deprecated; 0 when bound */
extern char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size);
extern uint64_t gasnett_checksum(const void *p, int numbytes);
extern size_t gasnett_count0s(const void *p, size_t numbytes);
extern size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src, size_t numbytes);
extern const char *gasnett_performance_warning_str(void);
extern const char *gasnett_release_version_str(void);
extern uint64_t gasnett_release_version(void); /* MAJOR * 1000000 + MINOR * 10000 + PATCH */
/* soft limit raised to the hard one unless GASNET_MAXIMIZE_<desc> is false; nonzero on
 * success. The plural: CPU time and the memory limits (DATA, STACK, AS, RSS, MEMLOCK). */
extern int gasnett_maximize_rlimit(int res, const char *lim_desc);
extern int gasnett_maximize_rlimits(void);
typedef void (*gasnett_sighandlerfn_t)(int);
/* installs fp (or SIG_DFL / SIG_IGN) for the signal; the previous handler, SIG_ERR on error */
extern gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp);
/* errors and debugging */
GASNETT_FORMAT_PRINTF(gasnett_fatalerror_at, 4, 5,
                      extern void gasnett_fatalerror_at(const char *func, const char *file, int line, const char *fmt,
                                                        ...) GASNETT_NORETURN);
GASNETT_NORETURNP(gasnett_fatalerror_at)
GASNETT_FORMAT_PRINTF(gasnett_fatalerror_nopos, 1, 2,
                      extern void gasnett_fatalerror_nopos(const char *fmt, ...) GASNETT_NORETURN);
GASNETT_NORETURNP(gasnett_fatalerror_nopos)
#define gasnett_fatalerror(...) gasnett_fatalerror_at(GASNETT_CURRENT_FUNCTION, __FILE__, __LINE__, __VA_ARGS__)
extern void gasnett_killmyprocess(int exitcode) GASNETT_NORETURN;
GASNETT_NORETURNP(gasnett_killmyprocess)
extern void gasnett_flush_streams(void);
extern void gasnett_close_streams(void); /* fclose of stdin, stdout and stderr */
/* "func() at file:line", from malloc (the caller frees it) */
extern char *gasnett_current_loc_at(const char *func, const char *file, int line);
#define gasnett_current_loc gasnett_current_loc_at(GASNETT_CURRENT_FUNCTION, __FILE__, __LINE__)
/* sets *flag to 1, says how to attach, and waits until a debugger sets it to 0 */
extern void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname);
extern void gasnett_freezeForDebuggerErr(void);
extern void gasnett_backtrace_init(const char *exename);
extern int gasnett_print_backtrace(int fd);
/* what fatal errors call: by default a backtrace to fd when GASNET_BACKTRACE is set (0),
 * else nothing (nonzero). A client may point it at its own function. */
extern int (*gasnett_print_backtrace_ifenabled)(int fd);
/* A client may define its own backtrace method: gasnett_print_backtrace tries it first.
 * The library holds a weak empty default (fnp == NULL). */
typedef struct {
    const char *name;
    int (*fnp)(int fd); /* prints a backtrace of the calling thread to fd, 0 on success */
    int threadsupport;
} gasnett_backtrace_type_t;
extern gasnett_backtrace_type_t gasnett_backtrace_user;
/* formatting helpers (docs/tools.md): each writes one NUL-terminated line into buf and
 * returns its length (strlen); a NULL buf writes nothing and returns the same length, so
 * a caller may size its buffer first. A _bufsz call gives a size that holds the text for
 * any input of that shape. These two take plain C types; those taking gex types
 * (gasnett_format_dt, _op, _ti, _memveclist, _putvgetv, _putigeti, _putsgets) are
 * declared once gasnetex.h is included (the end of this file), and are in the conduit
 * libraries, not in libgasnet_tools. */
extern size_t gasnett_format_addrlist_bufsz(size_t count);
extern size_t gasnett_format_addrlist(char *buf, size_t count, void *const *list, size_t len);
extern size_t gasnett_format_strides_bufsz(size_t count);
extern size_t gasnett_format_strides(char *buf, size_t count, const size_t *list);
/* checked allocation: debug builds keep guards around each block and check them at free
 * and memcheck; release builds are malloc/free that abort on exhaustion */
extern void *gasnett_debug_malloc_at(size_t sz, const char *file, int line) GASNETT_MALLOC;
extern void *gasnett_debug_calloc_at(size_t n, size_t sz, const char *file, int line) GASNETT_MALLOC;
extern void *gasnett_debug_realloc_at(void *p, size_t sz, const char *file, int line);
extern char *gasnett_debug_strdup_at(const char *s, const char *file, int line) GASNETT_MALLOC;
extern char *gasnett_debug_strndup_at(const char *s, size_t n, const char *file, int line) GASNETT_MALLOC;
extern void gasnett_debug_free_at(void *p, const char *file, int line);
extern void gasnett_debug_memcheck_at(const void *p, const char *file, int line);
extern void gasnett_debug_memcheck_all_at(const char *file, int line);
#define gasnett_debug_malloc(sz) gasnett_debug_malloc_at((sz), __FILE__, __LINE__)
#define gasnett_debug_calloc(n, sz) gasnett_debug_calloc_at((n), (sz), __FILE__, __LINE__)
#define gasnett_debug_realloc(p, sz) gasnett_debug_realloc_at((p), (sz), __FILE__, __LINE__)
#define gasnett_debug_strdup(s) gasnett_debug_strdup_at((s), __FILE__, __LINE__)
#define gasnett_debug_strndup(s, n) gasnett_debug_strndup_at((s), (n), __FILE__, __LINE__)
#define gasnett_debug_free(p) gasnett_debug_free_at((p), __FILE__, __LINE__)
#define gasnett_debug_memcheck(p) gasnett_debug_memcheck_at((p), __FILE__, __LINE__)
#define gasnett_debug_memcheck_one() gasnett_debug_memcheck_all_at(__FILE__, __LINE__)
#define gasnett_debug_memcheck_all() gasnett_debug_memcheck_all_at(__FILE__, __LINE__)
GASNETT_END_EXTERNC
#endif /* GASNETT_LITE_MODE */

#endif /* GASNET_TOOLS_H */

/* ---- the formatting helpers that take gex types ----
 * Outside the include guard: declared as soon as gasnetex.h's types are known, whether
 * the client included gasnet_tools.h before or after gasnetex.h (gasnetex.h includes this
 * header after its types). Same rules as gasnett_format_addrlist above. */
#if defined(GASNETI_TYPES_H) && !defined(GASNETT_LITE_MODE) && !defined(_GASNETT_FORMAT_GEX_DECLARED)
#define _GASNETT_FORMAT_GEX_DECLARED 1
GASNETT_BEGIN_EXTERNC
/* the name of a data type, an operation, or the set of token-info fields ('|' between
 * names; bits without a name as 0x..; "0" for none) */
extern size_t gasnett_format_dt(char *buf, gex_DT_t dt);
extern size_t gasnett_format_op(char *buf, gex_OP_t op);
extern size_t gasnett_format_ti(char *buf, gex_TI_t ti);
extern size_t gasnett_format_memveclist_bufsz(size_t count);
extern size_t gasnett_format_memveclist(char *buf, size_t count, gex_Memvec_t const *list);
/* the arguments of gex_VIS_Vector{Put,Get}*, gex_VIS_Indexed{Put,Get}*, gex_VIS_Strided{Put,Get}* */
extern size_t gasnett_format_putvgetv_bufsz(size_t dstcount, size_t srccount);
extern size_t gasnett_format_putvgetv(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                                      gex_Memvec_t const dstlist[], size_t srccount, gex_Memvec_t const srclist[]);
extern size_t gasnett_format_putigeti_bufsz(size_t dstcount, size_t srccount);
extern size_t gasnett_format_putigeti(char *buf, gex_TM_t tm, gex_Rank_t rank, size_t dstcount, void *const dstlist[],
                                      size_t dstlen, size_t srccount, void *const srclist[], size_t srclen);
extern size_t gasnett_format_putsgets_bufsz(size_t stridelevels);
/* pstats: accepted for the released signature, not used (may be NULL) */
extern size_t gasnett_format_putsgets(char *buf, void *pstats, gex_TM_t tm, gex_Rank_t rank, void *dstaddr,
                                      const ptrdiff_t dststrides[], void *srcaddr, const ptrdiff_t srcstrides[],
                                      size_t elemsz, const size_t count[], size_t stridelevels);
GASNETT_END_EXTERNC
#endif
