/* gasneti_deferq.c: the requests a network conduit received while only replies could run
 * (inside a handler, or while a reply waits for resources), kept as copies and run at the
 * next top-level poll: so a reply can always make progress and no two ranks wait on each
 * other. Part of the conduit toolkit (gasneti_wire.h declares it). Layer: core, for
 * conduits. The queue has its own lock (PAR, PARSYNC), taken inside the conduit's or
 * without it; gasneti_defer_nonempty is read without it. */
#include "gasneti_slots.h"
#include "gasneti_wire.h"

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

typedef struct deferred_s {
    struct deferred_s *next;
    gex_Rank_t src;
    size_t len;
    uint8_t pad[64 - 2 * sizeof(void *) - sizeof(size_t)];
    uint8_t data[];
} deferred_t;
_Static_assert(sizeof(deferred_t) == 64, "deferred_t: data 64-byte aligned");

static deferred_t *head, **tail = &head;
int gasneti_defer_nonempty;

void gasneti_defer_push(gex_Rank_t src, const void *msg, size_t len) {
    deferred_t *d = gasneti_net_malloc(sizeof(*d) + len, "a request kept for later");
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

static deferred_t *pop(void) {
    DLOCK();
    deferred_t *d = head;
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

int gasneti_defer_replay(size_t pre) {
    int n = 0;
    for (deferred_t *d; (d = pop()); n++) {
        gasneti_wire_deliver(d->data, pre, d->len, d->src, 1);
        free(d);
    }
    return n;
}

static GASNETI_THREADLOCAL uint8_t *scratch;

void *gasneti_wire_realign(const void *payload, size_t nbytes) {
    if (!scratch) scratch = gasneti_net_malloc(GASNETC_NET_MEDIUM, "a Medium's aligned copy");
    memcpy(scratch, payload, nbytes);
    return scratch;
}
