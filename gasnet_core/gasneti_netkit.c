/* gasneti_netkit.c: the out-of-line part of the conduit toolkit (gasneti_netkit.h):
 * replies-only waiting, the peers a flush must reach, and the error reports that name a
 * peer. Layer: core, for network conduits; compiled into every library (smp never calls
 * it). */
#include "gasneti_netkit.h"

#if GASNETI_LOCKS && defined(__linux__)
#  include <linux/futex.h>
#  include <sys/syscall.h>
#  include <unistd.h>
#endif

GASNETI_THREADLOCAL int gasneti_replies_only;

#if GASNETI_LOCKS && defined(__linux__)
/* the conduit's lock, taken (gasneti_netlock's slow half): a short spin, as the holder
 * usually gives it back within a network call, then marked as waited for (2) and slept on */
void gasneti_netlock_wait(gasneti_netlock_t *l) {
    for (int i = 0; i < 64; i++) {
        gasnett_spinloop_hint();
        if (__atomic_load_n(&l->state, __ATOMIC_RELAXED) == 0 && gasneti_nettrylock(l)) return;
    }
    while (__atomic_exchange_n(&l->state, 2, __ATOMIC_ACQUIRE) != 0)
        syscall(SYS_futex, &l->state, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
}
/* given back with waiters: one of them wakes (and takes it marked 2, so the next
 * unlock wakes another if there is one) */
void gasneti_netlock_wake(gasneti_netlock_t *l) { syscall(SYS_futex, &l->state, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0); }
#endif

void *gasneti_net_malloc(size_t n, const char *what) {
    void *p;
    if (posix_memalign(&p, 64, n ? n : 1))
        gasneti_fatalerror("%s-conduit: out of memory for %s (%zu bytes)", GASNETC_NAME, what, n);
    return p;
}

void gasneti_net_wait_local(gasneti_counter_t *c) {
    gasneti_replies_only++;
    while (gasneti_atomic_read(c) != 0) gasneti_wait_for_room(0);
    gasneti_replies_only--;
}

void gasneti_dirty_init(gasneti_dirty_t *d) {
    d->marked = gasneti_net_malloc(gasneti_nodes, "the peers put to");
    memset(d->marked, 0, gasneti_nodes);
    d->list = gasneti_net_malloc(gasneti_nodes * sizeof(gex_Rank_t), "the peers put to");
    d->n = 0;
}

size_t gasneti_dirty_take(gasneti_dirty_t *d, gex_Rank_t *out) {
    size_t n = d->n;
    for (size_t i = 0; i < n; i++) {
        out[i] = d->list[i];
        d->marked[out[i]] = 0;
    }
    d->n = 0;
    return n;
}

void gasneti_peer_fail(const char *call, const char *net_errstr, gex_Rank_t peer) {
    if (peer != GEX_RANK_INVALID)
        gasneti_fatalerror("%s-conduit: %s with rank %u (host %s) failed: %s", GASNETC_NAME, call, (unsigned)peer,
                           gasneti_host_name(peer), net_errstr);
    gasneti_fatalerror("%s-conduit: %s failed: %s", GASNETC_NAME, call, net_errstr);
}

void gasneti_wire_bad(const char *why, gex_Rank_t src) {
    gasneti_fatalerror("%s-conduit: a malformed message from rank %u (host %s): %s", GASNETC_NAME, (unsigned)src,
                       gasneti_host_name(src), why);
}
