/* udp_internal.h: what the parts of udp-conduit share. Layer: udp-conduit, internal.
 *   other/gasneti_spawn_launch.c  the shared launcher (amudprun; self-spawn `prog N args`)
 *   other/gasneti_spawn_rank.c    a rank's side: gasnetc_bootstrap_init and the bootstrap
 *                                 collectives, exit and abort over the control connection
 *   udp_am.c                      Active Messages over UDP datagrams, with their own
 *                                 reliability; every datagram carries the job key
 *                                 (gasneti_spawn_key) */
#ifndef UDP_INTERNAL_H
#define UDP_INTERNAL_H

#include "gasneti_spawn.h"

#endif
