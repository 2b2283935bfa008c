/* gasneti_mpi_p2p.h: out-of-band messages over MPI (the bootstrap's p2p_send/p2p_recv),
 * shared by mpi-conduit's bootstrap (mpi_boot.c) and the mpi spawner's plugin
 * (gasneti_spawn_mpi.c). Layer: other (spawners); plain MPI, no library internals.
 *
 * Each message is one MPI_Isend of a private copy on the caller's communicator (a
 * duplicate used for nothing else, so MPI's order per sender and tag is the order sent);
 * the copies are freed as later calls find their sends complete. A poll completes what
 * it can and takes at most one arrived message (MPI_Iprobe, then MPI_Recv).
 * The caller serializes the calls with its other MPI calls (its lock). */
#ifndef GASNETI_MPI_P2P_H
#define GASNETI_MPI_P2P_H

#include <mpi.h>
#include <stddef.h>

/* MPI_SUCCESS or the error code of the call that failed */
extern int gasneti_mpi_p2p_send(MPI_Comm comm, int dest, const void *buf, size_t len);
/* *msg: a malloc'd message (NULL if none has arrived), its sender and length */
extern int gasneti_mpi_p2p_poll(MPI_Comm comm, void **msg, int *src, size_t *len);

#endif
