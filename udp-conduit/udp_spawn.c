/* udp_spawn.c: PLACEHOLDER (being written): a rank's side of the udp job start. */
#include "conduit_contract.h"
#include "udp_internal.h"
uint64_t gasnetc_udp_key;
struct sockaddr_storage gasnetc_udp_ctrl_addr;
socklen_t gasnetc_udp_ctrl_addrlen;
gasneti_bootstrap_t *gasnetc_bootstrap_init(int *argc, char ***argv) {
    (void)argc, (void)argv;
    gasneti_launch_error("udp-conduit: job start not written yet");
}
