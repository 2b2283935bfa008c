/* tests/api/test_prepare.c: negotiated-payload Active Messages (gex_AM_Prepare* /
 * gex_AM_Commit*).  Every rank sends to every rank (itself included), one message at a
 * time: Medium and Long requests from a client buffer (lc_opt NOW, &event, GROUP) and
 * from a library buffer (least/most in several shapes, a Long's destination given at
 * Prepare or only at Commit), committed with fewer bytes than prepared, with 4 and 16
 * arguments, numbered and variadic forms.  Each request handler checks the payload and
 * arguments and answers in one of five ways (Short reply, negotiated Medium or Long reply
 * from a library or a client buffer), whose payloads the reply handlers check.  Also:
 * the Max* queries with GEX_FLAG_AM_PREPARE_LEAST_*, SrcDescAddr/Size rules, a prepared
 * message that is never sent beyond the prepared size.
 * Layer: tests (public API only).  Run with 1, 2, 4 ranks. */
#include "test_util.h"

#define WAIT_SECS 60
#define SLOT ((size_t)128 * 1024) /* per-sender region of a segment: Long payloads */
enum { H_REQ = 200, H_REP = 201, H_REP_SHORT = 202, H_REQ16 = 203 };
enum { R_SHORT, R_MED_LIB, R_MED_CLIENT, R_LONG_LIB, R_LONG_CLIENT, R_NMODES };

static uint8_t **peer_seg;  /* [rank]: base of rank's segment (its own address) */
static uint8_t *my_seg;
static size_t max_med, max_long;
static volatile long replies;
static volatile long requests_seen;
static uint8_t *handler_buf; /* a request handler's client buffer for replies */

/* seeds: one per message, so a payload from another message can not pass the check
 * (32 bits: a seed travels in one handler argument) */
static uint64_t seed_of(gex_Rank_t from, gex_Rank_t to, unsigned k) {
    return (uint32_t)(((uint32_t)from << 24) ^ ((uint32_t)to << 16) ^ k);
}

/* Request handler (Medium or Long): a0 = sender, a1 = seed, a2 = reply mode, a3 = nbytes */
static void req_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2,
                        gex_AM_Arg_t a3) {
    gex_Token_Info_t info;
    CHECK(gex_Token_Info(t, &info, GEX_TI_ALL) & GEX_TI_SRCRANK);
    CHECK_EQ(info.gex_srcrank, (gex_Rank_t)a0);
    CHECK_EQ(n, (size_t)(uint32_t)a3);
    CHECK_PAT(buf, n, (uint64_t)(uint32_t)a1, "request payload of %zu bytes from %d", n, (int)a0);
    if (info.gex_is_long) /* a Long lands in my segment, in the sender's region */
        CHECK(buf == my_seg + (size_t)a0 * SLOT);
    requests_seen++;
    uint64_t rseed = (uint64_t)(uint32_t)a1 + 1;
    size_t rn = n > max_med ? max_med : n;
    gex_AM_SrcDesc_t sd;
    switch (a2) {
    case R_SHORT:
        gex_AM_ReplyShort4(t, H_REP_SHORT, 0, (gex_AM_Arg_t)gex_TM_QueryRank(test_tm), (gex_AM_Arg_t)rseed, 0,
                           (gex_AM_Arg_t)n);
        break;
    case R_MED_LIB: /* library buffer, at least rn, as much as 2*rn */
        sd = gex_AM_PrepareReplyMedium(t, NULL, rn, 2 * rn, NULL, 0, 4);
        CHECK(sd != GEX_AM_SRCDESC_NO_OP);
        CHECK(gex_AM_SrcDescSize(sd) >= rn && gex_AM_SrcDescSize(sd) <= 2 * rn);
        CHECK(((uintptr_t)gex_AM_SrcDescAddr(sd) & 7) == 0);
        test_pat_fill(gex_AM_SrcDescAddr(sd), rn, rseed);
        gex_AM_CommitReplyMedium(sd, H_REP, rn, (gex_AM_Arg_t)test_rank, (gex_AM_Arg_t)rseed, 0, (gex_AM_Arg_t)rn);
        break;
    case R_MED_CLIENT: /* client buffer: exactly what was offered, or the maximum */
        test_pat_fill(handler_buf, rn, rseed);
        sd = gex_AM_PrepareReplyMedium(t, handler_buf, rn, rn, GEX_EVENT_NOW, 0, 4);
        CHECK(gex_AM_SrcDescAddr(sd) == handler_buf);
        CHECK_EQ(gex_AM_SrcDescSize(sd), rn);
        gex_AM_CommitReplyMedium4(sd, H_REP, rn, (gex_AM_Arg_t)test_rank, (gex_AM_Arg_t)rseed, 0, (gex_AM_Arg_t)rn);
        break;
    case R_LONG_LIB: /* into the requester's segment, reply region of this rank; dest only at Commit */
    case R_LONG_CLIENT: {
        void *dest = peer_seg[a0] + ((size_t)test_size + test_rank) * SLOT;
        if (a2 == R_LONG_LIB) {
            sd = gex_AM_PrepareReplyLong(t, NULL, n, n, NULL, NULL, 0, 4);
            CHECK_EQ(gex_AM_SrcDescSize(sd), n);
            test_pat_fill(gex_AM_SrcDescAddr(sd), n, rseed);
        } else {
            test_pat_fill(handler_buf, n, rseed);
            sd = gex_AM_PrepareReplyLong(t, handler_buf, 1, n, dest, GEX_EVENT_NOW, 0, 4);
            CHECK(gex_AM_SrcDescAddr(sd) == handler_buf);
            CHECK(gex_AM_SrcDescSize(sd) >= 1 && gex_AM_SrcDescSize(sd) <= n);
            CHECK_EQ(gex_AM_SrcDescSize(sd), n); /* n is within the Long maximum */
        }
        gex_AM_CommitReplyLong(sd, H_REP, n, dest, (gex_AM_Arg_t)test_rank, (gex_AM_Arg_t)rseed, 1, (gex_AM_Arg_t)n);
        break;
    }
    default: CHECKF(0, "bad reply mode %d", (int)a2);
    }
}

/* Reply handler (Medium or Long): a0 = replier, a1 = seed, a2 = is_long, a3 = nbytes */
static void rep_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2,
                        gex_AM_Arg_t a3) {
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_ALL);
    CHECK_EQ(info.gex_srcrank, (gex_Rank_t)a0);
    CHECK_EQ((int)info.gex_is_long, (int)a2);
    CHECK_EQ(info.gex_is_req, 0u);
    CHECK_EQ(n, (size_t)(uint32_t)a3);
    if (a2) CHECK(buf == my_seg + ((size_t)test_size + (size_t)a0) * SLOT);
    CHECK_PAT(buf, n, (uint64_t)(uint32_t)a1, "reply payload of %zu bytes from %d", n, (int)a0);
    replies++;
}

static void rep_short_handler(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2, gex_AM_Arg_t a3) {
    (void)t, (void)a0, (void)a1, (void)a2, (void)a3;
    replies++;
}

/* 16 arguments: a[i] == seed + i */
static void req16_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t a0, gex_AM_Arg_t a1, gex_AM_Arg_t a2,
                          gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5, gex_AM_Arg_t a6, gex_AM_Arg_t a7,
                          gex_AM_Arg_t a8, gex_AM_Arg_t a9, gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12,
                          gex_AM_Arg_t a13, gex_AM_Arg_t a14, gex_AM_Arg_t a15) {
    gex_AM_Arg_t a[16] = {a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15};
    for (int i = 0; i < 16; i++) CHECKF(a[i] == a0 + i, "argument %d is %d, expected %d", i, (int)a[i], (int)a0 + i);
    CHECK_EQ(n, (size_t)100);
    CHECK_PAT(buf, n, (uint64_t)(uint32_t)a0, "16-argument payload");
    requests_seen++;
    gex_AM_ReplyShort4(t, H_REP_SHORT, 0, 0, 0, 0, 0);
}

/* Send one request to `peer` and wait for its reply. */
static void await_reply(long before, const char *what, gex_Rank_t peer, size_t n) {
    TEST_POLL_UNTIL(replies == before + 1, WAIT_SECS, "no reply to %s of %zu bytes to rank %u", what, n,
                    (unsigned)peer);
}

enum { LC_NOW, LC_EVENT, LC_GROUP };

/* Medium request from a client buffer of exactly n bytes */
static void med_client(gex_Rank_t peer, size_t n, unsigned k, int lc, int rmode, uint8_t *buf) {
    uint64_t seed = seed_of(test_rank, peer, k);
    test_pat_fill(buf, n, seed);
    gex_Event_t ev = GEX_EVENT_INVALID;
    gex_Event_t *lc_opt = lc == LC_NOW ? GEX_EVENT_NOW : lc == LC_GROUP ? GEX_EVENT_GROUP : &ev;
    long before = replies;
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(test_tm, peer, buf, n, n, lc_opt, 0, 4);
    CHECK(sd != GEX_AM_SRCDESC_NO_OP);
    CHECK(gex_AM_SrcDescAddr(sd) == buf);
    CHECK_EQ(gex_AM_SrcDescSize(sd), n);
    gex_AM_CommitRequestMedium4(sd, H_REQ, n, (gex_AM_Arg_t)test_rank, (gex_AM_Arg_t)seed, rmode, (gex_AM_Arg_t)n);
    if (lc == LC_EVENT) gex_Event_Wait(ev);
    if (lc == LC_GROUP) gex_NBI_Wait(GEX_EC_AM, 0);
    memset(buf, 0xEE, n); /* locally complete: the payload must already be on its way */
    await_reply(before, "Medium (client buffer)", peer, n);
}

/* Medium request from the library's buffer: least..most, committed with `send` bytes */
static void med_lib(gex_Rank_t peer, size_t least, size_t most, size_t send, unsigned k, int rmode) {
    uint64_t seed = seed_of(test_rank, peer, k);
    long before = replies;
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(test_tm, peer, NULL, least, most, NULL, 0, 4);
    CHECK(sd != GEX_AM_SRCDESC_NO_OP);
    size_t got = gex_AM_SrcDescSize(sd);
    CHECKF(got >= least && got <= most && got <= max_med, "SrcDescSize %zu outside [%zu, %zu] (max %zu)", got, least,
           most, max_med);
    CHECK(((uintptr_t)gex_AM_SrcDescAddr(sd) & 7) == 0);
    if (send > got) send = got;
    test_pat_fill(gex_AM_SrcDescAddr(sd), got, seed); /* the whole buffer is writable */
    gex_AM_CommitRequestMedium(sd, H_REQ, send, (gex_AM_Arg_t)test_rank, (gex_AM_Arg_t)seed, rmode,
                               (gex_AM_Arg_t)send);
    await_reply(before, "Medium (library buffer)", peer, send);
}

/* Long request into peer's segment (region of this rank) */
static void long_req(gex_Rank_t peer, size_t n, unsigned k, int lib, int dest_at_prepare, int rmode, uint8_t *buf) {
    uint64_t seed = seed_of(test_rank, peer, k);
    void *dest = peer_seg[peer] + (size_t)test_rank * SLOT;
    gex_Event_t ev = GEX_EVENT_INVALID;
    long before = replies;
    gex_AM_SrcDesc_t sd;
    if (lib) {
        sd = gex_AM_PrepareRequestLong(test_tm, peer, NULL, n, n, dest_at_prepare ? dest : NULL, NULL, 0, 4);
        CHECK_EQ(gex_AM_SrcDescSize(sd), n);
        test_pat_fill(gex_AM_SrcDescAddr(sd), n, seed);
    } else {
        test_pat_fill(buf, n, seed);
        sd = gex_AM_PrepareRequestLong(test_tm, peer, buf, n, n, dest_at_prepare ? dest : NULL, &ev, 0, 4);
        CHECK(gex_AM_SrcDescAddr(sd) == buf);
        CHECK_EQ(gex_AM_SrcDescSize(sd), n);
    }
    gex_AM_CommitRequestLong4(sd, H_REQ, n, dest, (gex_AM_Arg_t)test_rank, (gex_AM_Arg_t)seed, rmode,
                              (gex_AM_Arg_t)n);
    if (!lib) {
        gex_Event_Wait(ev);
        memset(buf, 0xEE, n);
    }
    await_reply(before, lib ? "Long (library buffer)" : "Long (client buffer)", peer, n);
}

int main(int argc, char **argv) {
    test_init("test_prepare", &argc, &argv);
    gex_AM_Entry_t tab[] = {
        {H_REQ, (gex_AM_Fn_t)req_handler, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQUEST, 4, NULL, "req"},
        {H_REP, (gex_AM_Fn_t)rep_handler, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REPLY, 4, NULL, "rep"},
        {H_REP_SHORT, (gex_AM_Fn_t)rep_short_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 4, NULL, "rep_short"},
        {H_REQ16, (gex_AM_Fn_t)req16_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 16, NULL, "req16"},
    };
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, sizeof tab / sizeof tab[0]), GASNET_OK);
    test_attach(2 * (uintptr_t)test_size * SLOT);

    /* limits: the PREPARE_LEAST queries are at least 512 and a Prepare may ask for them */
    max_med = gex_AM_MaxRequestMedium(test_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 4);
    max_long = gex_AM_MaxRequestLong(test_tm, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 4);
    size_t least_client = gex_AM_MaxRequestMedium(test_tm, GEX_RANK_INVALID, NULL, GEX_FLAG_AM_PREPARE_LEAST_CLIENT, 4);
    size_t least_alloc = gex_AM_MaxRequestMedium(test_tm, GEX_RANK_INVALID, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 4);
    size_t least_long = gex_AM_MaxRequestLong(test_tm, GEX_RANK_INVALID, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 4);
    CHECK(max_med >= 512 && least_client >= 512 && least_alloc >= 512 && least_long >= 512);
    CHECK(least_client <= max_med && least_alloc <= max_med);
    CHECK(max_long >= SLOT); /* the Long cases below send up to SLOT bytes */
    CHECK(gex_AM_MaxReplyMedium(test_tm, GEX_RANK_INVALID, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 4) >= 512);

    peer_seg = (uint8_t **)calloc(test_size, sizeof(uint8_t *));
    uint8_t *buf = (uint8_t *)malloc(SLOT + 64);
    handler_buf = (uint8_t *)malloc(SLOT);
    CHECK(peer_seg && buf && handler_buf);
    for (gex_Rank_t r = 0; r < test_size; r++) {
        void *own = NULL;
        CHECK_EQ(gex_Segment_QueryBound(test_tm, r, &own, NULL, NULL), 0);
        peer_seg[r] = (uint8_t *)own;
    }
    my_seg = peer_seg[test_rank];
    test_barrier();

    const size_t med_sizes[] = {1, 100, 168, 169, 4096, 8192, 65535, 0 /* max */};
    const size_t long_sizes[] = {1, 4096, 65536, SLOT};
    unsigned k = 0;
    long sent = 0;
    for (gex_Rank_t i = 0; i < test_size; i++) {
        gex_Rank_t peer = (test_rank + i) % test_size;
        for (size_t s = 0; s < sizeof med_sizes / sizeof med_sizes[0]; s++) {
            size_t n = med_sizes[s] ? med_sizes[s] : max_med;
            if (n > max_med) continue;
            for (int lc = LC_NOW; lc <= LC_GROUP; lc++, k++, sent++) med_client(peer, n, k, lc, k % R_NMODES, buf + (s & 7));
            med_lib(peer, n, n, n, k, k % R_NMODES), k++, sent++;                         /* exact */
            med_lib(peer, 1, n, n, k, k % R_NMODES), k++, sent++;                         /* anything up to n */
            med_lib(peer, n, (size_t)-1, n, k, k % R_NMODES), k++, sent++;                /* at least n */
            if (n > 1) med_lib(peer, n, n, n / 2, k, k % R_NMODES), k++, sent++;          /* commit fewer */
        }
        for (size_t s = 0; s < sizeof long_sizes / sizeof long_sizes[0]; s++) {
            size_t n = long_sizes[s];
            for (int lib = 0; lib < 2; lib++)
                for (int dp = 0; dp < 2; dp++, k++, sent++) long_req(peer, n, k, lib, dp, k % R_NMODES, buf);
        }
        /* 16 arguments, numbered form */
        {
            long before = replies;
            gex_AM_Arg_t a0 = (gex_AM_Arg_t)(k++ * 32);
            gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(test_tm, peer, NULL, 100, 100, NULL, 0, 16);
            test_pat_fill(gex_AM_SrcDescAddr(sd), 100, (uint64_t)(uint32_t)a0);
            gex_AM_CommitRequestMedium16(sd, H_REQ16, 100, a0, a0 + 1, a0 + 2, a0 + 3, a0 + 4, a0 + 5, a0 + 6, a0 + 7,
                                         a0 + 8, a0 + 9, a0 + 10, a0 + 11, a0 + 12, a0 + 13, a0 + 14, a0 + 15);
            await_reply(before, "16-argument Medium", peer, 100);
            sent++;
        }
    }
    CHECK_EQ(replies, sent);
    /* everybody sent the same number to everybody: each rank saw test_size * (sent / test_size) */
    test_barrier();
    CHECK_EQ(requests_seen, sent);
    test_finish("%ld negotiated-payload requests and their replies checked", sent);
    return 0;
}
