/* smp_core.c: smp-conduit's side of conduit_contract.h. smp has no network
 * (GASNETC_NBRHD_ONLY): the core's PSHM queues carry every AM and segments are mapped
 * by every rank, so the network entry points have nothing to do.
 * Layer: smp-conduit. Job start and the bootstrap are in smp_spawn.c. */
#include "conduit_contract.h"

int gasnetc_network_init(gasneti_bootstrap_t *boot) {
    (void)boot;
    return GASNET_OK;
}

void gasnetc_network_fini(void) {}

int gasnetc_poll(void) { return 0; }

int gasnetc_am_would_block(const gasneti_am_msg_t *msg) {
    (void)msg;
    return 0;
}

int gasnetc_am_send(const gasneti_am_msg_t *msg, gasneti_counter_t *lc) {
    (void)lc;
    gasneti_fatalerror("smp-conduit: AM to rank %u, which is not in this host's neighborhood "
                       "(smp jobs run on one host only)", (unsigned)msg->jobrank);
}
