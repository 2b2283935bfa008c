/* gasneti_netkit.c: the out-of-line part of the conduit toolkit (gasneti_netkit.h):
 * replies-only waiting and the error reports that name a peer. Layer: core, for network
 * conduits; compiled into every library (smp never calls it). */
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
