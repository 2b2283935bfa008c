/* gasnet_tools.h: the portable toolkit shared by clients and the library: timers,
 * memory fences and atomics. Usable with or without gasnetex.h.
 * Layer: public. This release has the subset below; the rest of the GASNet tools API
 * (threads, thread keys, the standalone tools library) is not available yet. */
#ifndef GASNET_TOOLS_H
#define GASNET_TOOLS_H

#include <stdint.h>
#include <time.h>

#ifndef GASNETT_SPEC_VERSION_MAJOR
#  define GASNETT_SPEC_VERSION_MAJOR 1
#  define GASNETT_SPEC_VERSION_MINOR 14
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

/* ---- fences ---- */
#define gasnett_compiler_fence() __asm__ __volatile__("" ::: "memory")
#define gasnett_local_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gasnett_local_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define gasnett_local_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
/* In a loop that waits for another CPU: lets a hyperthread sibling run, and spares the
 * watched line a storm of reads while its writer wants it. */
#if defined(__x86_64__) || defined(__i386__)
#  define gasnett_spinloop_hint() __builtin_ia32_pause()
#elif defined(__aarch64__)
#  define gasnett_spinloop_hint() __asm__ __volatile__("yield" ::: "memory")
#else
#  define gasnett_spinloop_hint() gasnett_compiler_fence()
#endif

/* ---- atomics (sequentially consistent) ---- */
typedef uint32_t gasnett_atomic_val_t;
typedef int32_t gasnett_atomic_sval_t;
typedef struct {
    volatile gasnett_atomic_val_t _v;
} gasnett_atomic_t;
#define GASNETT_HAVE_ATOMIC_CAS 1
#define GASNETT_HAVE_ATOMIC_ADD_SUB 1
#define GASNETT_ATOMIC_NONE 0
#define gasnett_atomic_init(v) {(v)}
#define gasnett_atomic_read(p, f) __atomic_load_n(&(p)->_v, __ATOMIC_SEQ_CST)
#define gasnett_atomic_set(p, v, f) __atomic_store_n(&(p)->_v, (v), __ATOMIC_SEQ_CST)
#define gasnett_atomic_increment(p, f) ((void)__atomic_add_fetch(&(p)->_v, 1, __ATOMIC_SEQ_CST))
#define gasnett_atomic_decrement(p, f) ((void)__atomic_sub_fetch(&(p)->_v, 1, __ATOMIC_SEQ_CST))
#define gasnett_atomic_decrement_and_test(p, f) (__atomic_sub_fetch(&(p)->_v, 1, __ATOMIC_SEQ_CST) == 0)
#define gasnett_atomic_add(p, v, f) __atomic_add_fetch(&(p)->_v, (v), __ATOMIC_SEQ_CST)
#define gasnett_atomic_subtract(p, v, f) __atomic_sub_fetch(&(p)->_v, (v), __ATOMIC_SEQ_CST)

#endif
