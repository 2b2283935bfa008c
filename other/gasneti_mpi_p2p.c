/* gasneti_mpi_p2p.c: out-of-band messages over MPI (gasneti_mpi_p2p.h), compiled into
 * mpi-conduit's libraries and into the mpi spawner's plugin. Layer: other (spawners). */
#include "gasneti_mpi_p2p.h"

#include <stdlib.h>
#include <string.h>

#define P2P_TAG 0x6770 /* on the caller's private communicator */

typedef struct {
    MPI_Request req;
    void *copy;
} pending_t;
static pending_t *pend;
static int npend, cap;

/* free the copies of the sends that have completed */
static int reap_sends(void) {
    for (int i = npend - 1; i >= 0; i--) {
        int done = 0, rc = MPI_Test(&pend[i].req, &done, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS) return rc;
        if (!done) continue;
        free(pend[i].copy);
        pend[i] = pend[--npend];
    }
    return MPI_SUCCESS;
}

int gasneti_mpi_p2p_send(MPI_Comm comm, int dest, const void *buf, size_t len) {
    int rc = reap_sends();
    if (rc != MPI_SUCCESS) return rc;
    if (npend == cap) {
        pending_t *p = realloc(pend, sizeof(*p) * (size_t)(cap ? 2 * cap : 16));
        if (!p) return MPI_ERR_NO_MEM;
        pend = p;
        cap = cap ? 2 * cap : 16;
    }
    void *copy = malloc(len ? len : 1);
    if (!copy) return MPI_ERR_NO_MEM;
    if (len) memcpy(copy, buf, len);
    rc = MPI_Isend(copy, (int)len, MPI_BYTE, dest, P2P_TAG, comm, &pend[npend].req);
    if (rc != MPI_SUCCESS) {
        free(copy);
        return rc;
    }
    pend[npend++].copy = copy;
    return MPI_SUCCESS;
}

int gasneti_mpi_p2p_poll(MPI_Comm comm, void **msg, int *src, size_t *len) {
    *msg = NULL;
    int rc = reap_sends(), flag = 0, count = 0;
    MPI_Status st;
    if (rc == MPI_SUCCESS) rc = MPI_Iprobe(MPI_ANY_SOURCE, P2P_TAG, comm, &flag, &st);
    if (rc != MPI_SUCCESS || !flag) return rc;
    MPI_Get_count(&st, MPI_BYTE, &count);
    void *m = malloc(count ? (size_t)count : 1);
    if (!m) return MPI_ERR_NO_MEM;
    rc = MPI_Recv(m, count, MPI_BYTE, st.MPI_SOURCE, P2P_TAG, comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
        free(m);
        return rc;
    }
    *msg = m;
    *src = st.MPI_SOURCE;
    *len = (size_t)count;
    return MPI_SUCCESS;
}
