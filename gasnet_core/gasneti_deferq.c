/* gasneti_deferq.c: the requests a network conduit received while only replies could run
 * (inside a handler, or while a reply waits for resources), kept as copies and run at the
 * next top-level poll: so a reply can always make progress and no two ranks wait on each
 * other. Shared by the network conduits (udp, mpi, ofi). Layer: core, for conduits.
 * The queue has its own lock (PAR, PARSYNC); gasneti_defer_pending() is read without it. */
#include "gasneti_deliver.h"

#include <string.h>
#if GASNETI_LOCKS
#  include <pthread.h>
static pthread_mutex_t dlock = PTHREAD_MUTEX_INITIALIZER;
#  define DLOCK() pthread_mutex_lock(&dlock)
#  define DUNLOCK() pthread_mutex_unlock(&dlock)
#else
#  define DLOCK() ((void)0)
#  define DUNLOCK() ((void)0)
#endif

static gasneti_deferred_t *head, **tail = &head;
int gasneti_defer_nonempty;

void gasneti_defer_push(gex_Rank_t src, const void *msg, size_t len) {
    gasneti_deferred_t *d;
    if (posix_memalign((void **)&d, 64, sizeof(*d) + (len ? len : 1)))
        gasneti_fatalerror("%s-conduit: out of memory keeping a request of %zu bytes", GASNETC_NAME, len);
    d->next = NULL;
    d->src = src;
    d->len = len;
    memcpy(d->data, msg, len);
    DLOCK();
    *tail = d;
    tail = &d->next;
    __atomic_store_n(&gasneti_defer_nonempty, 1, __ATOMIC_RELAXED);
    DUNLOCK();
}

gasneti_deferred_t *gasneti_defer_pop(void) {
    DLOCK();
    gasneti_deferred_t *d = head;
    if (d) {
        head = d->next;
        if (!head) {
            tail = &head;
            __atomic_store_n(&gasneti_defer_nonempty, 0, __ATOMIC_RELAXED);
        }
    }
    DUNLOCK();
    return d;
}
