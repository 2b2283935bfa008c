/* udp_conduit.h: udp-conduit's limits and capability knobs (see conduit_contract.h).
 * Layer: udp-conduit (installed). AMs to non-neighbors travel as UDP datagrams with
 * udp-conduit's own reliability (udp_am.c); neighbors use the core's PSHM. udp has no
 * RDMA: RMA to non-neighbors is the extended layer's AM-based reference protocol. */
#ifndef UDP_CONDUIT_H
#define UDP_CONDUIT_H

#define GASNET_CONDUIT_UDP 1
#define GASNET_UDP_CONDUIT 1 /* the released implementation's other spelling (implementation_defined.md) */
#define GASNET_CONDUIT_NAME UDP
#define GASNET_CONDUIT_NAME_STR "UDP"
#define GASNETC_NAME "udp"
#define GASNETC_NAME_UPPER "UDP"

#define GASNETC_NBRHD_ONLY 0
#define GASNETC_NATIVE_PUT 0
#define GASNETC_NATIVE_GET 0
#define GASNETC_NATIVE_AMO 0
/* Clients see the contract's GASNETC_MAX_MEDIUM / _LONG: the core fragments what is larger
 * than one datagram carries (GASNETC_NET_MEDIUM / _LONG) and reassembles it at the target. */
/* The payload of one datagram: 65,507 bytes is the most UDP over IPv4 carries; the rest
 * is our header (udp_am.c). Bigger payloads are split by the core (gasneti_frag.c). */
#define GASNETC_NET_MEDIUM 65024
#define GASNETC_NET_LONG 65024

#define GASNET_PSHM 1

/* the shared launcher (other/gasneti_spawn.h): its name, and whether GASNET_SSH_SERVERS
 * alone selects the ssh spawner (udp: no, GASNET_SPAWNFN does) */
#define GASNETC_LAUNCHER "amudprun"
#define GASNETC_SPAWN_HOSTLIST_SSH 0

#endif
