/* ibv_conduit.h: ibv-conduit's limits and capability knobs (see conduit_contract.h).
 * Layer: ibv-conduit (installed). AMs to non-neighbors travel as SENDs on reliable
 * connected (RC) queue pairs of InfiniBand verbs (InfiniBand or RoCE; ibv_am.c) into one
 * shared receive queue of buffers of GASNETC_NET_MEDIUM payload bytes; neighbors use the
 * core's PSHM. Bigger Mediums: the header alone, the receiver reads the payload from the
 * sender's registered bounce buffer by RDMA READ. Longs into a registered segment: RDMA
 * WRITE of the payload, then the header on the same queue pair. RMA to non-neighbors:
 * RDMA WRITE/READ into every registered segment (ibv_rma.c). Remote atomics: 64-bit
 * fetch-and-add and compare-and-swap of the HCA for atomic domains it can serve, else
 * CPU atomics and AMs. docs/ibv-conduit.md. */
#ifndef IBV_CONDUIT_H
#define IBV_CONDUIT_H

#define GASNET_CONDUIT_IBV 1
#define GASNET_IBV_CONDUIT 1 /* the released implementation's other spelling (implementation_defined.md) */
#define GASNET_CONDUIT_NAME IBV
#define GASNET_CONDUIT_NAME_STR "IBV"
#define GASNETC_NAME "ibv"
#define GASNETC_NAME_UPPER "IBV"

#define GASNETC_NBRHD_ONLY 0
#define GASNETC_NATIVE_PUT 1 /* RDMA WRITE (ibv_rma.c) */
#define GASNETC_NATIVE_GET 1 /* RDMA READ */
#define GASNETC_NATIVE_AMO 1 /* 64-bit HCA atomics, per atomic domain (gasnetc_amo_domain) */
/* a segment's key: its rkey, base and size */
#define GASNETC_SEGKEY_MAX 24
/* One receive buffer holds a message with up to 4 KiB of payload. A Medium above that
 * goes whole, its payload read by the receiver (gasnetc_medium_piece); a Long above it
 * into a registered segment goes whole by RDMA WRITE (gasnetc_long_piece), else the core
 * splits it into 4 KiB pieces. */
#define GASNETC_NET_MEDIUM 4096
#define GASNETC_NET_LONG 4096
#define GASNETC_MEDIUM_PIECE_AT_RUN_TIME 1
#define GASNETC_LONG_PIECE_AT_RUN_TIME 1
/* A Prepare of a Medium to a non-neighbor with the library's buffer gets the memory it is
 * sent from: a registered send slot, the message built around the client's payload, or
 * above 4 KiB the buffer lent to the receiver, which reads it (ibv_am.c, ibv_bigmed.c) */
#define GASNETC_AM_PREPARE 1

#define GASNET_PSHM 1

/* the shared launcher (other/gasneti_spawn.h): its name, and GASNET_SSH_SERVERS alone
 * selects the ssh spawner */
#define GASNETC_LAUNCHER "gasnetrun_ibv"
#define GASNETC_SPAWN_HOSTLIST_SSH 1

#endif
