/* gasneti_slots.c: the send-slot pool of the network conduits (gasneti_slots.h): set-up,
 * buffers made or grown, shut-down. Part of the conduit toolkit. Layer: core, for network
 * conduits. */
#include "gasneti_slots.h"

#include <stdlib.h>

void gasneti_slots_init(gasneti_slots_t *p, int n, size_t min, void *(*reg_fn)(void *, size_t),
                        void (*dereg_fn)(void *)) {
    p->slot = calloc((size_t)n, sizeof(gasneti_slot_t));
    p->free_list = calloc((size_t)n, sizeof(int));
    if (!p->slot || !p->free_list) gasneti_fatalerror("%s-conduit: out of memory for %d send slots", GASNETC_NAME, n);
    p->n = n;
    p->nfree = 0;
    p->made = 0;
    p->min = min;
    p->reg_fn = reg_fn;
    p->dereg_fn = dereg_fn;
    for (int i = 0; i < n; i++) p->free_list[p->nfree++] = n - 1 - i; /* slot 0 first */
}

void gasneti_slots_grow(gasneti_slots_t *p, int i, size_t len) {
    gasneti_slot_t *s = &p->slot[i];
    if (s->reg) p->dereg_fn(s->reg);
    if (!s->buf) p->made++;
    free(s->buf);
    size_t cap = len < p->min ? p->min : len;
    s->buf = gasneti_net_malloc(cap, "a send slot");
    s->cap = cap;
    s->reg = p->reg_fn ? p->reg_fn(s->buf, cap) : NULL;
}

void gasneti_slots_fini(gasneti_slots_t *p) {
    for (int i = 0; i < p->n; i++) {
        if (p->slot[i].reg) p->dereg_fn(p->slot[i].reg);
        p->slot[i].reg = NULL;
    }
}
