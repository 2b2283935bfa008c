/* tests/api/test_legacy.c: the GASNet-1 API of gasnet.h, as an old client uses it:
 * gasnet_init + gasnet_attach (fixed and 0 handler indices, segment), job queries,
 * gasnet_getSegmentInfo, every legacy AM family (Short/Medium/Long/LongAsync requests
 * and replies, numbered and unnumbered forms) with argument and payload checks,
 * gasnet_AMGetMsgSource, gasnet_put/get (blocking, nb, nbi) with their syncs, memset,
 * named barriers, gasnet_exit.
 * Layer: tests (api). Does not use test_util.h's init: it must go through gasnet_init. */
#include <gasnet.h>
/* the released headers' guards: a GASNet-1 client's helper headers test them to tell a
 * legacy client (gasnet.h) from a GASNet-EX one */
#if !defined(_GASNET_H) || !defined(_GASNETEX_H) || !defined(_GASNET_TOOLS_H)
#  error "gasnet.h must define _GASNET_H, _GASNETEX_H and _GASNET_TOOLS_H as the released headers do"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gasnet_node_t me, nn;
#define FAILF(...)                                                              \
    do {                                                                        \
        fprintf(stderr, "test_legacy: rank %u: FAILED: ", (unsigned)me);       \
        fprintf(stderr, __VA_ARGS__);                                           \
        fprintf(stderr, "\n");                                                  \
        gasnet_exit(1);                                                         \
    } while (0)
#define CHECK(c) do { if (!(c)) FAILF("check `%s` at line %d", #c, __LINE__); } while (0)

enum { H_SHORT = 201, H_MED = 202, H_LONG = 203, H_REPLY = 204 };
static volatile int replies, reply_sum;
static gasnet_seginfo_t *seginfo;
#define PAYLOAD 3000

static unsigned char pat(unsigned i, unsigned seed) { return (unsigned char)(i * 13 + seed * 7 + 1); }

static void check_payload(void *buf, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++)
        if (((unsigned char *)buf)[i] != pat((unsigned)i, seed)) FAILF("payload byte %zu wrong (seed %u)", i, seed);
}

static void reply_handler(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t a, gasnet_handlerarg_t b) {
    CHECK(n == PAYLOAD);
    check_payload(buf, n, (unsigned)b);
    reply_sum += a;
    replies++;
    (void)t;
}

static void short_handler(gasnet_token_t t, gasnet_handlerarg_t a, gasnet_handlerarg_t b, gasnet_handlerarg_t c) {
    gasnet_node_t src;
    CHECK(gasnet_AMGetMsgSource(t, &src) == GASNET_OK);
    CHECK(a == (gasnet_handlerarg_t)src && b == -7 && c == 0x7fffffff);
    static unsigned char buf[PAYLOAD];
    for (unsigned i = 0; i < PAYLOAD; i++) buf[i] = pat(i, 1);
    gasnet_AMReplyMedium2(t, H_REPLY, buf, PAYLOAD, 1, 1);
}

static void med_handler(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t seed) {
    CHECK(n == PAYLOAD);
    check_payload(buf, n, (unsigned)seed);
    gasnet_node_t src;
    gasnet_AMGetMsgSource(t, &src);
    /* reply with a Long into the requester's segment, then it checks there */
    static unsigned char out[PAYLOAD];
    for (unsigned i = 0; i < PAYLOAD; i++) out[i] = pat(i, 2);
    gasnet_AMReplyLong(t, H_REPLY, out, PAYLOAD, (char *)seginfo[src].addr + 4096, 2, 2);
}

static void long_handler(gasnet_token_t t, void *buf, size_t n, gasnet_handlerarg_t seed, gasnet_handlerarg_t off) {
    gasnet_node_t src;
    gasnet_AMGetMsgSource(t, &src);
    CHECK(buf == (char *)seginfo[me].addr + off);
    CHECK(n == PAYLOAD);
    check_payload(buf, n, (unsigned)seed);
    gasnet_AMReplyShort0(t, 255); /* the index gasnet_attach assigned (checked in main) */
}

static volatile int short_replies;
static void short_reply_handler(gasnet_token_t t) {
    (void)t;
    short_replies++;
}

int main(int argc, char **argv) {
    CHECK(gasnet_init(&argc, &argv) == GASNET_OK);
    me = gasnet_mynode();
    nn = gasnet_nodes();
    CHECK(me < nn && gasnet_getMaxLocalSegmentSize() >= 1 << 20);
    gasnet_handlerentry_t table[] = {{H_SHORT, (void (*)())short_handler},
                                     {H_MED, (void (*)())med_handler},
                                     {H_LONG, (void (*)())long_handler},
                                     {H_REPLY, (void (*)())reply_handler},
                                     {0, (void (*)())short_reply_handler}};
    CHECK(gasnet_attach(table, 5, 1 << 20, 0) == GASNET_OK);
    /* index 0 gets the highest free one: 255 */
    CHECK(table[4].index == 255);
    table[4].index = 0;
    seginfo = calloc(nn, sizeof(*seginfo));
    CHECK(gasnet_getSegmentInfo(seginfo, (int)nn) == GASNET_OK);
    CHECK(seginfo[me].size >= 1 << 20);
    gex_Client_t cl;
    gex_Segment_t seg;
    gasnet_QueryGexObjects(&cl, NULL, NULL, &seg);
    CHECK(gex_Segment_QueryAddr(seg) == seginfo[me].addr);
    /* every node's segment, as GASNet-EX's query of the primordial team gives it */
    gex_TM_t tm0 = GEX_TM_INVALID;
    gasnet_QueryGexObjects(NULL, NULL, &tm0, NULL);
    for (gasnet_node_t i = 0; i < nn; i++) {
        void *owner = NULL;
        uintptr_t size = 0;
        CHECK(seginfo[i].addr != NULL && seginfo[i].size >= 1 << 20);
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm0, i, &owner, NULL, &size, 0));
        CHECK(owner == seginfo[i].addr && size == seginfo[i].size);
    }
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    CHECK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) == GASNET_OK);

    gasnet_node_t peer = (me + 1) % nn;
    /* Short request (numbered) -> Medium reply */
    gasnet_AMRequestShort3(peer, H_SHORT, (gasnet_handlerarg_t)me, -7, 0x7fffffff);
    GASNET_BLOCKUNTIL(replies == 1);
    /* Medium request (unnumbered form) -> Long reply into my segment */
    static unsigned char buf[PAYLOAD];
    for (unsigned i = 0; i < PAYLOAD; i++) buf[i] = pat(i, 3);
    gasnet_AMRequestMedium(peer, H_MED, buf, PAYLOAD, 3);
    GASNET_BLOCKUNTIL(replies == 2);
    check_payload((char *)seginfo[me].addr + 4096, PAYLOAD, 2);
    /* Long and LongAsync requests -> Short replies to the auto-assigned index */
    for (unsigned i = 0; i < PAYLOAD; i++) buf[i] = pat(i, 4);
    gasnet_AMRequestLong2(peer, H_LONG, buf, PAYLOAD, (char *)seginfo[peer].addr + 8192, 4, 8192);
    GASNET_BLOCKUNTIL(short_replies == 1);
    /* a different pattern to a different place, so the Long's bytes cannot pass for these */
    static unsigned char abuf[PAYLOAD]; /* LongAsync: not reused before the reply */
    for (unsigned i = 0; i < PAYLOAD; i++) abuf[i] = pat(i, 5);
    gasnet_AMRequestLongAsync(peer, H_LONG, abuf, PAYLOAD, (char *)seginfo[peer].addr + 12288, 5, 12288);
    GASNET_BLOCKUNTIL(short_replies == 2);
    CHECK(reply_sum == 3);
    gasnet_barrier_notify(1, 0);
    CHECK(gasnet_barrier_wait(1, 0) == GASNET_OK);

    /* put/get: blocking, nb, nbi and memset, into the right neighbor's segment */
    char *rseg = (char *)seginfo[peer].addr;
    uint64_t v = 0x1122334455667788ull ^ me, w = 0;
    gasnet_put(peer, rseg + 16384, &v, sizeof v);
    gasnet_get(&w, peer, rseg + 16384, sizeof w);
    CHECK(w == v);
    gasnet_handle_t h = gasnet_put_nb_bulk(peer, rseg + 20000, buf, PAYLOAD);
    gasnet_wait_syncnb(h);
    static unsigned char back[PAYLOAD];
    h = gasnet_get_nb(back, peer, rseg + 20000, PAYLOAD);
    while (gasnet_try_syncnb(h) != GASNET_OK) {}
    check_payload(back, PAYLOAD, 4);
    memset(back, 0, sizeof back);
    gasnet_get_nbi_bulk(back, peer, rseg + 20000, PAYLOAD);
    gasnet_wait_syncnbi_gets();
    check_payload(back, PAYLOAD, 4);
    gasnet_memset(peer, rseg + 30000, 0x5a, 10000);
    gasnet_get_bulk(back, peer, rseg + 30000, PAYLOAD);
    for (unsigned i = 0; i < PAYLOAD; i++) CHECK(back[i] == 0x5a);
    /* value forms: 1, 2, 4 and 8 bytes, each a different value; read back both ways */
    char *vdst = rseg + 40000;
    gasnet_put_val(peer, vdst, 0xA5u ^ me, 1);
    gasnet_put_val(peer, vdst + 2, 0xBEEFu ^ me, 2);
    h = gasnet_put_nb_val(peer, vdst + 4, 0xCAFEF00Du ^ me, 4);
    gasnet_wait_syncnb(h);
    gasnet_put_nbi_val(peer, vdst + 8, 0x0123456789ABCDEFull ^ me, 8);
    gasnet_wait_syncnbi_puts();
    CHECK(gasnet_get_val(peer, vdst, 1) == (gasnet_register_value_t)((0xA5u ^ me) & 0xff));
    CHECK(gasnet_get_val(peer, vdst + 2, 2) == (gasnet_register_value_t)((0xBEEFu ^ me) & 0xffff));
    gasnet_valget_handle_t vh = gasnet_get_nb_val(peer, vdst + 4, 4);
    CHECK(gasnet_wait_syncnb_valget(vh) == (gasnet_register_value_t)(0xCAFEF00Du ^ me));
    CHECK(gasnet_get_val(peer, vdst + 8, 8) == (0x0123456789ABCDEFull ^ me));
    uint16_t u16;
    gasnet_get(&u16, peer, vdst + 2, 2);
    CHECK(u16 == (uint16_t)(0xBEEFu ^ me));
    /* an access region: NBI puts of the four quarters, synced only by its handle */
    for (unsigned i = 0; i < PAYLOAD; i++) buf[i] = pat(i, 6);
    gasnet_begin_nbi_accessregion();
    for (unsigned q = 0; q < 4; q++)
        gasnet_put_nbi_bulk(peer, rseg + 50000 + q * (PAYLOAD / 4), buf + q * (PAYLOAD / 4), PAYLOAD / 4);
    h = gasnet_end_nbi_accessregion();
    gasnet_wait_syncnb(h);
    memset(back, 0, sizeof back);
    gasnet_get_bulk(back, peer, rseg + 50000, PAYLOAD);
    check_payload(back, PAYLOAD, 6);
    /* named barriers: equal ids pass, different ids mismatch everywhere */
    gasnet_barrier_notify(77, 0);
    CHECK(gasnet_barrier_wait(77, 0) == GASNET_OK);
    if (nn > 1) {
        gasnet_barrier_notify((int)me, 0);
        CHECK(gasnet_barrier_wait((int)me, 0) == GASNET_ERR_BARRIER_MISMATCH);
    }
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS);
    if (me == 0) printf("test_legacy: PASS [%u ranks] legacy init/attach, AMs, put/get, value put/get, access region, memset, barriers\n", (unsigned)nn);
    gasnet_exit(0);
}
