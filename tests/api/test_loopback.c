/* tests/api/test_loopback.c: an AM a process sends to itself has run when the call
 * returns (as in the released library: clients spin on a flag a loopback AM sets without
 * polling). Every rank, to itself, through its own team rank: Short, Medium and Long
 * requests with 0 and 3 arguments, each handler replying (Short, Medium, Long) to itself;
 * after each call, with no poll in between, the request and its reply have both run,
 * with the right arguments and payload; a Medium handler may write to its buffer without
 * touching the sender's source; a Long payload is at its destination; lc_opt=&event is
 * complete at once. The same for Prepare/Commit (Medium in the library's buffer, small and
 * large, its handler replying by Prepare/Commit; Long from the client's buffer). Then an AM
 * to a peer still works (a round trip to rank+1).
 * Layer: tests (public API only). */
#include "test_util.h"

enum { H_SHORT = 200, H_SHORT3, H_MED, H_LONG, H_REP_SHORT, H_REP_MED, H_REP_LONG, H_PEER, H_PEER_REP };
static volatile int req_ran, rep_ran, peer_replies, prepared_reply;
static volatile gex_AM_Arg_t got_args[4];
static volatile size_t got_bytes;
static uint8_t *seg;
static const size_t NB = 1000;

static uint8_t pat(size_t i, int salt) { return (uint8_t)(i * 31 + salt); }
static int payload_ok(const uint8_t *p, size_t n, int salt) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != pat(i, salt)) return 0;
    return 1;
}

static void reply_with(gex_Token_t t, int kind) {
    static uint8_t src[1000];
    for (size_t i = 0; i < NB; i++) src[i] = pat(i, 7);
    switch (kind) {
    case 0: CHECK_EQ(gex_AM_ReplyShort1(t, H_REP_SHORT, 0, 41), 0); break;
    case 3: { /* a negotiated-payload Medium reply, in the library's buffer */
        gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, NB, NB, NULL, 0, 1);
        CHECK(sd != GEX_AM_SRCDESC_NO_OP);
        CHECK(gex_AM_SrcDescSize(sd) >= NB);
        memcpy(gex_AM_SrcDescAddr(sd), src, NB);
        gex_AM_CommitReplyMedium1(sd, H_REP_MED, NB, 42);
        break;
    }
    case 1: CHECK_EQ(gex_AM_ReplyMedium1(t, H_REP_MED, src, NB, GEX_EVENT_NOW, 0, 42), 0); break;
    default: CHECK_EQ(gex_AM_ReplyLong1(t, H_REP_LONG, src, NB, seg + 4096, GEX_EVENT_NOW, 0, 43), 0); break;
    }
}
static void note_args(unsigned n, gex_AM_Arg_t a, gex_AM_Arg_t b, gex_AM_Arg_t c) {
    got_args[0] = (gex_AM_Arg_t)n, got_args[1] = a, got_args[2] = b, got_args[3] = c;
}
static void h_short0(gex_Token_t t) { note_args(0, 0, 0, 0); req_ran++; reply_with(t, 0); }
static void h_short3(gex_Token_t t, gex_AM_Arg_t a, gex_AM_Arg_t b, gex_AM_Arg_t c) {
    note_args(3, a, b, c); req_ran++; reply_with(t, 1);
}
static void h_med3(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a, gex_AM_Arg_t b, gex_AM_Arg_t c) {
    note_args(3, a, b, c);
    CHECK(payload_ok(buf, n, 1));
    memset(buf, 0xEE, n); /* the library's buffer: the sender's source must not change */
    got_bytes = n; req_ran++; reply_with(t, prepared_reply ? 3 : 2);
}
static void h_long3(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a, gex_AM_Arg_t b, gex_AM_Arg_t c) {
    note_args(3, a, b, c);
    CHECK(buf == seg + 64);
    CHECK(payload_ok(buf, n, 2));
    got_bytes = n; req_ran++; reply_with(t, 0);
}
static void h_rep_short(gex_Token_t t, gex_AM_Arg_t a) { (void)t; CHECK_EQ(a, 41); rep_ran++; }
static void h_rep_med(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a) {
    (void)t; CHECK_EQ(a, 42); CHECK_EQ(n, NB); CHECK(payload_ok(buf, n, 7)); rep_ran++;
}
static void h_rep_long(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a) {
    (void)t; CHECK_EQ(a, 43); CHECK(buf == seg + 4096); CHECK(payload_ok(buf, n, 7)); rep_ran++;
}
static void h_peer(gex_Token_t t) { CHECK_EQ(gex_AM_ReplyShort0(t, H_PEER_REP, 0), 0); }
static void h_peer_rep(gex_Token_t t) { (void)t; peer_replies++; }

/* after one call to self: the request and its reply ran, with these values, no poll */
static void expect(const char *what, unsigned nargs, gex_AM_Arg_t a, gex_AM_Arg_t b, gex_AM_Arg_t c) {
    CHECKF(req_ran == 1, "%s to self: the handler had not run when the call returned", what);
    CHECKF(rep_ran == 1, "%s to self: its reply had not run when the call returned", what);
    CHECKF(got_args[0] == (gex_AM_Arg_t)nargs && got_args[1] == a && got_args[2] == b && got_args[3] == c,
           "%s to self: wrong arguments", what);
    req_ran = rep_ran = 0;
}

int main(int argc, char **argv) {
    test_init("test_loopback", &argc, &argv);
    gex_AM_Entry_t tab[] = {
        {H_SHORT, (gex_AM_Fn_t)h_short0, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "short0"},
        {H_SHORT3, (gex_AM_Fn_t)h_short3, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 3, NULL, "short3"},
        {H_MED, (gex_AM_Fn_t)h_med3, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 3, NULL, "med3"},
        {H_LONG, (gex_AM_Fn_t)h_long3, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 3, NULL, "long3"},
        {H_REP_SHORT, (gex_AM_Fn_t)h_rep_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "rep_short"},
        {H_REP_MED, (gex_AM_Fn_t)h_rep_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "rep_med"},
        {H_REP_LONG, (gex_AM_Fn_t)h_rep_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 1, NULL, "rep_long"},
        {H_PEER, (gex_AM_Fn_t)h_peer, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "peer"},
        {H_PEER_REP, (gex_AM_Fn_t)h_peer_rep, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "peer_rep"},
    };
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, sizeof tab / sizeof tab[0]), GASNET_OK);
    gex_Segment_t s = test_attach(GASNET_PAGESIZE * 4);
    seg = gex_Segment_QueryAddr(s);
    test_barrier();
    const gex_Rank_t me = test_rank;
    static uint8_t src[1000];

    CHECK_EQ(gex_AM_RequestShort0(test_tm, me, H_SHORT, 0), 0);
    expect("RequestShort0 (reply Short)", 0, 0, 0, 0);
    CHECK_EQ(gex_AM_RequestShort3(test_tm, me, H_SHORT3, 0, 5, -6, 7), 0);
    expect("RequestShort3 (reply Medium)", 3, 5, -6, 7);

    for (size_t i = 0; i < NB; i++) src[i] = pat(i, 1);
    gex_Event_t lc = GEX_EVENT_INVALID;
    CHECK_EQ(gex_AM_RequestMedium3(test_tm, me, H_MED, src, NB, &lc, 0, 8, 9, 10), 0);
    expect("RequestMedium3 (reply Long)", 3, 8, 9, 10);
    CHECK_EQ(got_bytes, NB);
    CHECK(payload_ok(src, NB, 1)); /* the handler wrote to its own copy */
    CHECK_EQ(gex_Event_Test(lc), GASNET_OK);

    for (size_t i = 0; i < NB; i++) src[i] = pat(i, 2);
    CHECK_EQ(gex_AM_RequestLong3(test_tm, me, H_LONG, src, NB, seg + 64, GEX_EVENT_NOW, 0, 11, 12, 13), 0);
    expect("RequestLong3 (reply Short)", 3, 11, 12, 13);
    CHECK_EQ(got_bytes, NB);
    /* from the segment to a place in it that overlaps the source */
    memcpy(seg + 32, src, NB);
    CHECK_EQ(gex_AM_RequestLong3(test_tm, me, H_LONG, seg + 32, NB, seg + 64, GEX_EVENT_NOW, 0, 1, 2, 3), 0);
    expect("RequestLong3 from an overlapping source", 3, 1, 2, 3);

    /* negotiated payload (Prepare/Commit) to self: the library's buffer, small (a lane slot's
     * size, the fast path to a neighbor) and large, replying by Prepare/Commit too; then a
     * Long from the client's buffer */
    const size_t sizes[2] = {64, NB};
    prepared_reply = 1;
    for (int k = 0; k < 2; k++) {
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(test_tm, me, NULL, sizes[k], sizes[k], NULL, 0, 3);
        CHECK(sd != GEX_AM_SRCDESC_NO_OP);
        CHECK(gex_AM_SrcDescSize(sd) >= sizes[k]);
        uint8_t *p = gex_AM_SrcDescAddr(sd);
        for (size_t i = 0; i < sizes[k]; i++) p[i] = pat(i, 1);
        gex_AM_CommitRequestMedium3(sd, H_MED, sizes[k], 21, 22, (gex_AM_Arg_t)k);
        expect(k ? "Prepare/CommitRequestMedium3 of 1000 bytes (reply by Prepare)"
                 : "Prepare/CommitRequestMedium3 of 64 bytes (reply by Prepare)",
               3, 21, 22, (gex_AM_Arg_t)k);
        CHECK_EQ(got_bytes, sizes[k]);
    }
    prepared_reply = 0;
    for (size_t i = 0; i < NB; i++) src[i] = pat(i, 2);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestLong(test_tm, me, src, NB, NB, seg + 64, GEX_EVENT_NOW, 0, 3);
    CHECK(sd != GEX_AM_SRCDESC_NO_OP);
    gex_AM_CommitRequestLong3(sd, H_LONG, NB, seg + 64, 31, 32, 33);
    expect("Prepare/CommitRequestLong3 from the client's buffer", 3, 31, 32, 33);
    CHECK_EQ(got_bytes, NB);

    if (test_size > 1) { /* the network/PSHM path is unchanged */
        gex_Rank_t peer = (me + 1) % test_size;
        CHECK_EQ(gex_AM_RequestShort0(test_tm, peer, H_PEER, 0), 0);
        TEST_POLL_UNTIL(peer_replies == 1, 30, "no reply from rank %u", (unsigned)peer);
    }
    test_barrier();
    test_finish("requests to self and their replies ran before each call returned");
    return 0;
}
