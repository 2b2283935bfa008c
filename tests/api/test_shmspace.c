/* test_shmspace.c: segments in a file-backed shared-memory directory (GASNET_PSHM_DIR)
 * of limited size: attaches the size given in argv[1] (or the reported maximum if 0),
 * checks the limits are consistent, fills each right neighbor's segment with a pattern
 * and checks its own. Driven by test_shmspace.sh, which also checks the refusals.
 * Layer: tests (api). */
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* byte i of rank r's pattern: differs between any two offsets of a page (and beyond), so
 * pages mapped onto the wrong part of the backing file cannot pass */
static unsigned char pat(uintptr_t i, gex_Rank_t r) {
    return (unsigned char)((i ^ (i >> 8) ^ (i >> 16) ^ (i >> 24)) * 31 + r);
}

int main(int argc, char **argv) {
    gex_Client_t cl;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    if (gex_Client_Init(&cl, &ep, &tm, "TESTSHM", &argc, &argv, 0) != GASNET_OK) {
        printf("FAIL: gex_Client_Init\n");
        return 1;
    }
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
    if (gex_Segment_Attach(&seg, tm, want) != GASNET_OK) {
        printf("FAIL: rank %u: gex_Segment_Attach of %lu bytes\n", (unsigned)me, (unsigned long)want);
        return 1;
    }
    void *peer;
    uintptr_t psize;
    if (gex_Segment_QueryBound(tm, (me + 1) % n, &peer, NULL, &psize) || psize < want) {
        printf("FAIL: rank %u: no usable segment at rank %u\n", (unsigned)me, (unsigned)((me + 1) % n));
        return 1;
    }
    unsigned char *buf = malloc(want);
    if (!buf) {
        printf("FAIL: rank %u: malloc\n", (unsigned)me);
        return 1;
    }
    for (uintptr_t i = 0; i < want; i++) buf[i] = pat(i, me);
    gex_RMA_PutBlocking(tm, (me + 1) % n, peer, buf, want, 0);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    unsigned char *mine = gex_Segment_QueryAddr(seg);
    gex_Rank_t left = (me + n - 1) % n;
    for (uintptr_t i = 0; i < want; i++)
        if (mine[i] != pat(i, left)) {
            printf("FAIL: rank %u: byte %lu is %u, expected %u\n", (unsigned)me, (unsigned long)i, mine[i],
                   pat(i, left));
            return 1;
        }
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    printf("rank %u ok\n", (unsigned)me);
    free(buf);
    return 0;
}
