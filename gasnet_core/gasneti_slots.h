/* gasneti_slots.h: the send-slot pool of a network conduit: a fixed number of slots, each
 * with a 64-byte aligned buffer made (and, where the network needs registered memory,
 * registered) at its first use and grown when a longer message needs it, and a free list.
 * A conduit keeps what its network attaches to a send (a context, a counter) in an array
 * of its own indexed like the pool. Part of the conduit toolkit (gasneti_netkit.h).
 * Layer: core, for network conduits. Every function expects the conduit's lock held,
 * except gasneti_slots_peek (racy by design, for gasnetc_am_would_block). */
#ifndef GASNETI_SLOTS_H
#define GASNETI_SLOTS_H

#include "gasneti_internal.h"

typedef struct {
    uint8_t *buf;
    size_t cap;
    void *reg; /* the registration's cookie (reg_fn's), or NULL */
} gasneti_slot_t;
typedef struct {
    gasneti_slot_t *slot;
    int *free_list;
    int n, nfree;
    int made; /* slots with a buffer (the pool's growth: buffers are made at first use) */
    size_t min; /* a buffer is at least this long */
    /* optional (NULL: none): register a new buffer, returning the cookie; release one */
    void *(*reg_fn)(void *buf, size_t len);
    void (*dereg_fn)(void *cookie);
} gasneti_slots_t;

/* n bytes, 64-byte aligned, or the job ends ("<conduit>-conduit: out of memory for
 * <what>"); free() releases it (gasneti_netkit.c) */
extern void *gasneti_net_malloc(size_t n, const char *what);

extern void gasneti_slots_init(gasneti_slots_t *p, int n, size_t min, void *(*reg_fn)(void *, size_t),
                               void (*dereg_fn)(void *));
/* every registration released (at shut-down, sends drained; the buffers stay until exit) */
extern void gasneti_slots_fini(gasneti_slots_t *p);
extern void gasneti_slots_grow(gasneti_slots_t *p, int i, size_t len) GASNETI_COLD;

/* a free slot's index, or -1 */
GASNETI_ALWAYS_INLINE int gasneti_slots_get(gasneti_slots_t *p) { return p->nfree ? p->free_list[--p->nfree] : -1; }
GASNETI_ALWAYS_INLINE void gasneti_slots_put(gasneti_slots_t *p, int i) { p->free_list[p->nfree++] = i; }
GASNETI_ALWAYS_INLINE int gasneti_slots_avail(const gasneti_slots_t *p) { return p->nfree; }
GASNETI_ALWAYS_INLINE int gasneti_slots_made(const gasneti_slots_t *p) { return p->made; }
GASNETI_ALWAYS_INLINE int gasneti_slots_peek(const gasneti_slots_t *p) { return __atomic_load_n(&p->nfree, __ATOMIC_RELAXED); }
/* slot i's buffer, at least len bytes long */
GASNETI_ALWAYS_INLINE uint8_t *gasneti_slots_buf(gasneti_slots_t *p, int i, size_t len) {
    if (GASNETI_UNLIKELY(p->slot[i].cap < len)) gasneti_slots_grow(p, i, len);
    return p->slot[i].buf;
}

#endif
