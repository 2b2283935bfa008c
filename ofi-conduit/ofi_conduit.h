/* ofi_conduit.h: ofi-conduit's limits and capability knobs (see conduit_contract.h).
 * Layer: ofi-conduit (installed). AMs to non-neighbors travel as libfabric messages
 * (fi_send/fi_inject on reliable-datagram endpoints, ofi_am.c) through whichever provider
 * libfabric offers (FI_PROVIDER chooses); neighbors use the core's PSHM. RMA to
 * non-neighbors: fi_write/fi_read into the registered segment when the provider has
 * FI_RMA (ofi_rma.c), else the extended layer's AM-based reference. Remote atomics:
 * fi_atomic & co. for atomic domains whose every operation the provider offers (FI_ATOMIC,
 * ofi_rma.c), else CPU atomics and AMs (gasnete_ratomic.c). */
#ifndef OFI_CONDUIT_H
#define OFI_CONDUIT_H

#define GASNET_CONDUIT_OFI 1
#define GASNET_OFI_CONDUIT 1 /* the released implementation's other spelling (implementation_defined.md) */
#define GASNET_CONDUIT_NAME OFI
#define GASNET_CONDUIT_NAME_STR "OFI"
#define GASNETC_NAME "ofi"
#define GASNETC_NAME_UPPER "OFI"

#define GASNETC_NBRHD_ONLY 0
#define GASNETC_NATIVE_PUT 1 /* ofi_rma.c, when the provider has FI_RMA (gasnetc_rma_native) */
#define GASNETC_NATIVE_GET 1
#define GASNETC_NATIVE_AMO 1 /* ofi_rma.c, per atomic domain (gasnetc_amo_domain) */
/* a segment's key: the fi_mr key, and the base where remote addresses are offsets */
#define GASNETC_SEGKEY_MAX 16
/* puts completed remotely by gasnetc_rma_flush under GASNET_OFI_RMA_FLUSH=1 (ofi_rma.c) */
#define GASNETC_RMA_FLUSH 1
/* One libfabric message carries a whole Medium, and a Long piece of up to 64 KiB (the
 * receive buffers are sized for that): the core splits bigger Longs (gasneti_frag.c).
 * Except that a big Long into the peer's registered segment goes whole, its payload by
 * fi_write and its header behind it (gasnetc_long_piece and the protocol: ofi_long.c). */
#define GASNETC_NET_MEDIUM 65536
#define GASNETC_NET_LONG 65536
#define GASNETC_LONG_PIECE_AT_RUN_TIME 1
/* A Prepare of a Medium to a non-neighbor with the library's buffer gets a send slot:
 * the message is built around the client's payload and sent from there (ofi_am.c) */
#define GASNETC_AM_PREPARE 1

#define GASNET_PSHM 1

/* the shared launcher (other/gasneti_spawn.h): its name, and GASNET_SSH_SERVERS alone
 * selects the ssh spawner */
#define GASNETC_LAUNCHER "gasnetrun_ofi"
#define GASNETC_SPAWN_HOSTLIST_SSH 1

#endif
