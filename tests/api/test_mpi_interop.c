/* tests/api/test_mpi_interop.c: a client that uses MPI itself (mpi-conduit only).
 * It calls MPI_Init_thread before gex_Client_Init (so MPI is the client's: GASNet must
 * use it and not finalize it), then in every round mixes MPI_Allreduce and point-to-point
 * MPI messages on MPI_COMM_WORLD (with small tags, which GASNet uses on its own
 * communicator) with GASNet AMs and puts, and checks both: the sums, the MPI messages,
 * every AM payload and every put. At the end the client calls MPI_Finalize itself and
 * returns from main; the job must end with status 0.
 * Layer: tests (public API and MPI).  1, 2, 4 ranks, seq and par, PSHM on and off. */
#include "test_util.h"

#include <mpi.h>

#define ROUNDS 50
#define MEDBYTES 4096
#define PUTBYTES 65536
enum { H_MED = 200 };

static volatile int med_arrived;
static uint8_t *seg;

static void med_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t round, gex_AM_Arg_t from) {
    (void)t;
    CHECK_EQ(n, MEDBYTES);
    CHECK_PAT(buf, n, ((uint64_t)from << 32) | (uint32_t)round, "Medium of round %d from rank %d", (int)round,
              (int)from);
    med_arrived++;
}

int main(int argc, char **argv) {
#if defined(GASNET_PAR)
    int want = MPI_THREAD_SERIALIZED;
#else
    int want = MPI_THREAD_FUNNELED;
#endif
    int provided = -1, mrank = -1, msize = -1, fin = 1;
    CHECK(MPI_Init_thread(&argc, &argv, want, &provided) == MPI_SUCCESS);
    CHECKF(provided >= want, "MPI gave thread level %d, asked %d", provided, want);
    MPI_Comm_rank(MPI_COMM_WORLD, &mrank);
    MPI_Comm_size(MPI_COMM_WORLD, &msize);

    test_init("test_mpi_interop", &argc, &argv);
    CHECK_EQ(test_rank, mrank); /* GASNet's ranks are MPI_COMM_WORLD's */
    CHECK_EQ(test_size, msize);
    gex_AM_Entry_t h[] = {{H_MED, (gex_AM_Fn_t)med_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 2, NULL, "med"}};
    CHECK(gex_EP_RegisterHandlers(test_ep, h, 1) == GASNET_OK);
    gex_Segment_t s = test_attach((uintptr_t)PUTBYTES * test_size);
    seg = gex_Segment_QueryAddr(s);
    uint8_t *src = malloc(PUTBYTES);
    CHECK(src != NULL);
    int n = (int)test_size, me = (int)test_rank;
    int next = (me + 1) % n, prev = (me + n - 1) % n;
    void *next_seg = NULL; /* the next rank's segment, as it names it */
    CHECK(gex_Segment_QueryBound(test_tm, (gex_Rank_t)next, &next_seg, NULL, NULL) == 0);

    for (int round = 0; round < ROUNDS; round++) {
        /* MPI collectives between GASNet operations */
        long mine = (long)me * 1000 + round, sum = -1;
        CHECK(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS);
        CHECK_EQ(sum, (long)n * (n - 1) / 2 * 1000 + (long)n * round);
        /* an AM and a put to the next rank */
        test_pat_fill(src, MEDBYTES, ((uint64_t)me << 32) | (uint32_t)round);
        gex_AM_RequestMedium2(test_tm, (gex_Rank_t)next, H_MED, src, MEDBYTES, GEX_EVENT_NOW, 0, round, me);
        test_pat_fill(src, PUTBYTES, ((uint64_t)me << 32) ^ (0x5000u + (uint32_t)round));
        gex_RMA_PutBlocking(test_tm, (gex_Rank_t)next, (uint8_t *)next_seg + (size_t)me * PUTBYTES, src, PUTBYTES, 0);
        /* every rank's put is complete before anyone blocks in MPI: a rank waiting in
         * MPI_Wait does not serve the GASNet traffic of others (docs/mpi-conduit.md).
         * The barrier does not order AMs, and with one rank it completes without a poll:
         * wait (polling) for this round's Medium too. */
        test_barrier();
        GASNET_BLOCKUNTIL(med_arrived >= round + 1);
        /* MPI point-to-point on the client's communicator, with the tags GASNet uses on its own */
        int out[2] = {me, round}, in[2] = {-1, -1};
        for (int tag = 1; tag <= 2; tag++) {
            MPI_Request r;
            MPI_Irecv(in, 2, MPI_INT, prev, tag, MPI_COMM_WORLD, &r);
            CHECK(MPI_Send(out, 2, MPI_INT, next, tag, MPI_COMM_WORLD) == MPI_SUCCESS);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            CHECK_EQ(in[0], prev);
            CHECK_EQ(in[1], round);
        }
        CHECK_EQ(med_arrived, round + 1);
        CHECK_PAT(seg + (size_t)prev * PUTBYTES, PUTBYTES, ((uint64_t)prev << 32) ^ (0x5000u + (uint32_t)round),
                  "put of round %d from rank %d", round, prev);
        CHECK(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    }
    MPI_Finalized(&fin);
    CHECK(!fin); /* GASNet did not finalize the client's MPI */
    test_barrier();
    if (me == 0) printf("test_mpi_interop: PASS [%s, %d ranks] %d rounds of MPI_Allreduce, MPI messages, AMs and puts\n",
                        TEST_MODE, n, ROUNDS);
    fflush(stdout);
    free(src);
    CHECK(MPI_Finalize() == MPI_SUCCESS);
    return 0;
}
