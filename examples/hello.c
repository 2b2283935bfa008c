/* examples/hello.c - the smallest GASNet-EX program: every rank says hello.
 *
 * Build against an installed tree (see README.md), e.g. with the makefile fragment:
 *   include $(PREFIX)/include/smp-conduit/smp-par.mak
 *   $(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) -c hello.c
 *   $(GASNET_LD) $(GASNET_LDFLAGS) -o hello hello.o $(GASNET_LIBS)
 * Run 4 processes on this host:  GASNET_PSHM_NODES=4 ./hello */
#include <gasnetex.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;

    /* Collective: creates the client, this process's endpoint and the team of all ranks. */
    if (gex_Client_Init(&client, &ep, &tm, "HELLO", &argc, &argv, 0) != GASNET_OK) {
        fprintf(stderr, "hello: gex_Client_Init failed\n");
        return 1;
    }
    /* Collective: every rank gets a segment (here one page) that the others can access. */
    if (gex_Segment_Attach(&seg, tm, GASNET_PAGESIZE) != GASNET_OK) {
        fprintf(stderr, "hello: gex_Segment_Attach failed\n");
        return 1;
    }

    printf("Hello from rank %u of %u\n", (unsigned)gex_TM_QueryRank(tm),
           (unsigned)gex_TM_QuerySize(tm));
    fflush(stdout);

    /* Wait until every rank has printed. */
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));

    /* Returning from main ends the job collectively (gasnet_exit(code) ends it at once). */
    return 0;
}
