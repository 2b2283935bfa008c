/* gasneti_hsl.c: handler-safe locks in debug builds, which check their use (double
 * lock, unlock of a free lock, destroy of a held lock) and track whether the thread holds
 * any, so calls the spec forbids under an HSL are caught. Release builds inline them.
 * Layer: core. */
#include "gasneti_internal.h"

#if GASNETI_DEBUG
GASNETI_THREADLOCAL int gasneti_hsls_held;

void gex_HSL_Init(gex_HSL_t *hsl) {
#  if GASNETI_LOCKS
    pthread_mutex_init(&hsl->_lock, NULL);
#  endif
    hsl->_owned = 0;
}

void gex_HSL_Destroy(gex_HSL_t *hsl) {
    if (hsl->_owned) gasneti_fatalerror("gex_HSL_Destroy: the lock is held");
#  if GASNETI_LOCKS
    pthread_mutex_destroy(&hsl->_lock);
#  endif
}

void gex_HSL_Lock(gex_HSL_t *hsl) {
#  if GASNETI_LOCKS
    pthread_mutex_lock(&hsl->_lock);
#  else
    if (hsl->_owned) gasneti_fatalerror("gex_HSL_Lock: the lock is already held (HSLs are not recursive)");
#  endif
    hsl->_owned = 1;
    gasneti_hsls_held++;
}

void gex_HSL_Unlock(gex_HSL_t *hsl) {
    if (!hsl->_owned) gasneti_fatalerror("gex_HSL_Unlock: the lock is not held");
    hsl->_owned = 0;
    gasneti_hsls_held--;
#  if GASNETI_LOCKS
    pthread_mutex_unlock(&hsl->_lock);
#  endif
}

int gex_HSL_Trylock(gex_HSL_t *hsl) {
#  if GASNETI_LOCKS
    if (pthread_mutex_trylock(&hsl->_lock)) return GASNET_ERR_NOT_READY;
#  else
    if (hsl->_owned) return GASNET_ERR_NOT_READY;
#  endif
    hsl->_owned = 1;
    gasneti_hsls_held++;
    return GASNET_OK;
}
#endif
