/* gasneti_sync.h: atomics, fences and handler-safe locks (gex_HSL_t / gasnet_hsl_t).
 * Layer: core (installed, included by gasnetex.h). In SEQ builds HSLs cost nothing
 * unless the library was configured --enable-debug, which checks their use. */
#ifndef GASNETI_SYNC_H
#define GASNETI_SYNC_H

#include "gasnet_tools.h"
#if GASNETI_LOCKS
#  include <pthread.h>
#endif

GASNETI_BEGIN_EXTERNC

/* ---- fences and atomics (GCC/Clang builtins: usable from C99 and C++11 alike) ---- */
#define gasneti_compiler_fence() __asm__ __volatile__("" ::: "memory")
#define gasneti_local_mb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define gasneti_local_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)
#define gasneti_local_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define gasneti_spin_hint() gasnett_spinloop_hint() /* gasnet_tools.h */

typedef struct {
    volatile int _v;
} gasneti_atomic_t;
#define gasneti_atomic_read(p) __atomic_load_n(&(p)->_v, __ATOMIC_ACQUIRE)
#define gasneti_atomic_set(p, x) __atomic_store_n(&(p)->_v, (x), __ATOMIC_RELEASE)
#define gasneti_atomic_add(p, x) __atomic_add_fetch(&(p)->_v, (x), __ATOMIC_ACQ_REL)
#define gasneti_atomic_increment(p) ((void)__atomic_add_fetch(&(p)->_v, 1, __ATOMIC_ACQ_REL))
#define gasneti_atomic_decrement(p) ((void)__atomic_sub_fetch(&(p)->_v, 1, __ATOMIC_ACQ_REL))
#define gasneti_atomic_cas(p, oldv, newv)                                                     \
    __extension__({                                                                         \
        int _o = (oldv);                                                                    \
        __atomic_compare_exchange_n(&(p)->_v, &_o, (newv), 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE); \
    })

/* ---- handler-safe locks ---- */
typedef struct {
#if GASNETI_LOCKS
    pthread_mutex_t _lock;
#endif
#if GASNETI_DEBUG
    volatile int _owned; /* 1 while held: debug builds check misuse */
#endif
    int _unused;
} gex_HSL_t;
typedef gex_HSL_t gasnet_hsl_t;

#if GASNETI_LOCKS && GASNETI_DEBUG
#  define GEX_HSL_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, 0, 0 }
#elif GASNETI_LOCKS
#  define GEX_HSL_INITIALIZER { PTHREAD_MUTEX_INITIALIZER, 0 }
#elif GASNETI_DEBUG
#  define GEX_HSL_INITIALIZER { 0, 0 }
#else
#  define GEX_HSL_INITIALIZER { 0 }
#endif
#define GASNET_HSL_INITIALIZER GEX_HSL_INITIALIZER

#if GASNETI_DEBUG
/* debug builds: out of line, checking double init/lock/unlock and handler context */
extern void gex_HSL_Init(gex_HSL_t *hsl);
extern void gex_HSL_Destroy(gex_HSL_t *hsl);
extern void gex_HSL_Lock(gex_HSL_t *hsl);
extern void gex_HSL_Unlock(gex_HSL_t *hsl);
extern int gex_HSL_Trylock(gex_HSL_t *hsl);
#else
GASNETI_ALWAYS_INLINE void gex_HSL_Init(gex_HSL_t *_hsl) {
#  if GASNETI_LOCKS
    pthread_mutex_init(&_hsl->_lock, NULL);
#  else
    (void)_hsl;
#  endif
}
GASNETI_ALWAYS_INLINE void gex_HSL_Destroy(gex_HSL_t *_hsl) {
#  if GASNETI_LOCKS
    pthread_mutex_destroy(&_hsl->_lock);
#  else
    (void)_hsl;
#  endif
}
GASNETI_ALWAYS_INLINE void gex_HSL_Lock(gex_HSL_t *_hsl) {
#  if GASNETI_LOCKS
    pthread_mutex_lock(&_hsl->_lock);
#  else
    (void)_hsl;
#  endif
}
GASNETI_ALWAYS_INLINE void gex_HSL_Unlock(gex_HSL_t *_hsl) {
#  if GASNETI_LOCKS
    pthread_mutex_unlock(&_hsl->_lock);
#  else
    (void)_hsl;
#  endif
}
GASNETI_ALWAYS_INLINE int gex_HSL_Trylock(gex_HSL_t *_hsl) {
#  if GASNETI_LOCKS
    return pthread_mutex_trylock(&_hsl->_lock) ? GASNET_ERR_NOT_READY : GASNET_OK;
#  else
    (void)_hsl;
    return GASNET_OK;
#  endif
}
#endif
#define gasnet_hsl_init gex_HSL_Init
#define gasnet_hsl_destroy gex_HSL_Destroy
#define gasnet_hsl_lock gex_HSL_Lock
#define gasnet_hsl_unlock gex_HSL_Unlock
#define gasnet_hsl_trylock gex_HSL_Trylock

GASNETI_END_EXTERNC
#endif
