/* test_shmspace.c: segments in a file-backed shared-memory directory (GASNET_PSHM_DIR)
 * of limited size: attaches the size given in argv[1] (or the reported maximum if 0),
 * checks the limits are consistent, fills each right neighbor's segment with a pattern
 * and checks its own. Driven by test_shmspace.sh, which also checks the refusals.
 * Layer: tests (api). */
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    gex_Client_t cl;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    gex_Client_Init(&cl, &ep, &tm, "TESTSHM", &argc, &argv, 0);
    if (argc < 2) {
        fprintf(stderr, "usage: %s SIZE\n", argv[0]);
        return 2;
    }
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    uintptr_t maxl = gasnet_getMaxLocalSegmentSize(), maxg = gasnet_getMaxGlobalSegmentSize();
    if (!maxl || maxg > maxl || maxl % GASNET_PAGESIZE) {
        printf("FAIL: rank %u: max local %lu, global %lu\n", (unsigned)me, (unsigned long)maxl, (unsigned long)maxg);
        return 1;
    }
    uintptr_t want = strtoull(argv[1], NULL, 0);
    if (!want) want = maxl;
    if (me == 0) printf("MAXLOCAL=%lu\n", (unsigned long)maxl);
    gex_Segment_Attach(&seg, tm, want);
    void *peer;
    uintptr_t psize;
    if (gex_Segment_QueryBound(tm, (me + 1) % n, &peer, NULL, &psize) || psize < want) {
        printf("FAIL: rank %u: no usable segment at rank %u\n", (unsigned)me, (unsigned)((me + 1) % n));
        return 1;
    }
    unsigned char *buf = malloc(want);
    for (uintptr_t i = 0; i < want; i++) buf[i] = (unsigned char)(i * 31 + me);
    gex_RMA_PutBlocking(tm, (me + 1) % n, peer, buf, want, 0);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    unsigned char *mine = gex_Segment_QueryAddr(seg);
    gex_Rank_t left = (me + n - 1) % n;
    for (uintptr_t i = 0; i < want; i++)
        if (mine[i] != (unsigned char)(i * 31 + left)) {
            printf("FAIL: rank %u: byte %lu is %u, expected %u\n", (unsigned)me, (unsigned long)i, mine[i],
                   (unsigned char)(i * 31 + left));
            return 1;
        }
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    printf("rank %u ok\n", (unsigned)me);
    free(buf);
    return 0;
}
