/* mpi_internal.h: what the two parts of mpi-conduit share. Layer: mpi-conduit, internal.
 *   mpi_boot.c  job start (MPI_Init_thread unless the client did it), the bootstrap
 *               collectives and exit over MPI, MPI_Finalize or MPI_Abort at the end.
 *   mpi_am.c    Active Messages over non-blocking point-to-point MPI.
 * Every MPI call of the conduit is made holding gasnetc_mpi_lock (PAR and PARSYNC), so
 * MPI_THREAD_SERIALIZED is enough for the library itself (GASNET_MPI_THREAD). */
#ifndef MPI_INTERNAL_H
#define MPI_INTERNAL_H

#include <mpi.h>

#include "gasneti_netkit.h"

extern gasneti_netlock_t gasnetc_mpi_lock;
#define MPI_LOCK() gasneti_netlock(&gasnetc_mpi_lock)
#define MPI_UNLOCK() gasneti_netunlock(&gasnetc_mpi_lock)

/* MPI_COMM_WORLD duplicated for the AMs (mpi_am.c), so client traffic never matches
 * ours: one for the AMs (requests and replies, told apart by their tag), one for the
 * payloads that travel apart */
enum { GASNETC_COMM_AM, GASNETC_COMM_DATA, GASNETC_NCOMMS };
extern MPI_Comm gasnetc_am_comm[GASNETC_NCOMMS];

/* mpi_am.c: cancel the pre-posted receives and wait (briefly) for sends; called once,
 * before MPI_Finalize (ours, or the client's: an attribute of MPI_COMM_SELF) */
extern void gasnetc_am_quiesce(void);
/* mpi_boot.c: MPI_Finalize when it is ours and every rank is exiting (network_fini) */
extern void gasnetc_mpi_finalize(void);

#endif
