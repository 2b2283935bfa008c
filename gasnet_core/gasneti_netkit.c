/* gasneti_netkit.c: the out-of-line part of the conduit toolkit (gasneti_netkit.h):
 * replies-only waiting, the peers a flush must reach, and the error reports that name a
 * peer. Layer: core, for network conduits; compiled into every library (smp never calls
 * it). */
#include "gasneti_netkit.h"

GASNETI_THREADLOCAL int gasneti_replies_only;

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
