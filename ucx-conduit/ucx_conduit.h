/* ucx_conduit.h: ucx-conduit's limits and capability knobs (see conduit_contract.h).
 * Layer: ucx-conduit (installed). AMs to non-neighbors travel as UCP Active Messages
 * (ucp_am_send_nbx, ucx_am.c) over whichever transports UCX chooses (UCX_TLS: tcp, sm,
 * rc, ud, ...); neighbors use the core's PSHM. RMA to non-neighbors: ucp_put_nbx /
 * ucp_get_nbx into every registered segment (ucx_rma.c), puts completed remotely by one
 * flush per synchronization; remote atomics: ucp_atomic_op_nbx for the atomic domains
 * UCX can do whole (ucx_amo.c), else CPU atomics and AMs (gasnete_ratomic.c). */
#ifndef UCX_CONDUIT_H
#define UCX_CONDUIT_H

#define GASNET_CONDUIT_UCX 1
#define GASNET_UCX_CONDUIT 1 /* the released implementation's other spelling (implementation_defined.md) */
#define GASNET_CONDUIT_NAME UCX
#define GASNET_CONDUIT_NAME_STR "UCX"
#define GASNETC_NAME "ucx"
#define GASNETC_NAME_UPPER "UCX"

#define GASNETC_NBRHD_ONLY 0
#define GASNETC_NATIVE_PUT 1 /* ucx_rma.c (gasnetc_rma_native: GASNET_UCX_RMA) */
#define GASNETC_NATIVE_GET 1
#define GASNETC_NATIVE_AMO 1 /* ucx_amo.c, per atomic domain (gasnetc_amo_domain) */
/* a segment's key: its base address (8 bytes) and UCX's packed rkey (ucp_rkey_pack: a
 * few dozen bytes per memory domain on tcp and shared memory; larger with InfiniBand
 * devices); a segment whose packed key is bigger is reached by AMs */
#define GASNETC_SEGKEY_MAX 512
/* puts complete locally; remotely by one flush of the endpoints put to, per sync */
#define GASNETC_RMA_FLUSH 1
/* One UCP Active Message carries a whole Medium, and a Long of up to 64 KiB inside the
 * message; a bigger Long (GASNET_UCX_LONG_APART, ucx_am.c) goes whole, its payload as the
 * AM's data straight from the source (UCX's eager or rendezvous protocol) and received at
 * its destination, its header and arguments in the AM's header (gasnetc_long_piece). */
#define GASNETC_NET_MEDIUM 65536
#define GASNETC_NET_LONG 65536
#define GASNETC_LONG_PIECE_AT_RUN_TIME 1
/* native Prepare/Commit of Mediums above 1 KiB (ucx_am.c) */
#define GASNETC_AM_PREPARE 1

#define GASNET_PSHM 1

/* the shared launcher (other/gasneti_spawn.h): its name, and GASNET_SSH_SERVERS alone
 * selects the ssh spawner */
#define GASNETC_LAUNCHER "gasnetrun_ucx"
#define GASNETC_SPAWN_HOSTLIST_SSH 1

#endif
