/* mpi_conduit.h: mpi-conduit's limits and capability knobs (see conduit_contract.h).
 * Layer: mpi-conduit (installed). AMs to non-neighbors travel as non-blocking MPI
 * point-to-point messages on a private communicator (mpi_am.c); neighbors use the core's
 * PSHM. No native RDMA: RMA to non-neighbors is the extended layer's AM-based reference,
 * whose Long payloads mpi-conduit sends straight from the source to the destination. */
#ifndef MPI_CONDUIT_H
#define MPI_CONDUIT_H

#define GASNET_CONDUIT_MPI 1
#define GASNET_MPI_CONDUIT 1 /* the released implementation's other spelling (implementation_defined.md) */
#define GASNET_CONDUIT_NAME MPI
#define GASNET_CONDUIT_NAME_STR "MPI"
#define GASNETC_NAME "mpi"
#define GASNETC_NAME_UPPER "MPI"

#define GASNETC_NBRHD_ONLY 0
#define GASNETC_NATIVE_PUT 0
#define GASNETC_NATIVE_GET 0
#define GASNETC_NATIVE_AMO 0
/* One MPI message carries a Medium of up to 8 KiB with its header (the receive buffers are
 * that big); a bigger Medium's payload travels as its own MPI message, received into a
 * buffer of the core's pool (GASNETC_MEDIUM_PIECE_AT_RUN_TIME: gasnetc_medium_piece says so,
 * unless GASNET_MPI_MEDIUM_SEPARATE=0 has the core split it into 8 KiB pieces). A Long
 * payload above 8 KiB travels as its own MPI message too, of at most 1 MiB, received in
 * place: bigger Longs are split by the core (gasneti_frag.c). */
#define GASNETC_NET_MEDIUM 8192
#define GASNETC_NET_LONG (1u << 20)
#define GASNETC_MEDIUM_PIECE_AT_RUN_TIME 1

#define GASNET_PSHM 1

#endif
