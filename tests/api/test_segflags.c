/* tests/api/test_segflags.c: the segment-disposition flags on every gex_RMA_* call.
 * Each case is one call with one SELF flag (none, UNKNOWN, SOME, BOUND, OFFSET) and one
 * PEER flag (the same five), to myself and to my right neighbor: OFFSET arguments are byte
 * offsets from the base of the bound segment and must reach exactly the bytes they name;
 * UNKNOWN locals live on the stack, "none" locals on the heap, SOME/BOUND/OFFSET locals in
 * my segment. PutNB/PutNBI also run with GEX_FLAG_LC_COPY_YES and _NO (hints: same data).
 * Every case checks its data and the guard bytes around it, through RMA at once and with
 * plain loads by the segment's owner after a barrier; then the first and last bytes of the
 * segment through OFFSET; last, AMs with OFFSET flags (source and Long destination, a Long
 * reply). Layer: tests (public API only). Run with 1, 2, 4 ranks, and with
 * GASNET_RMA_NBRHD_BYPASS=0 (the AM-based reference protocol). */
#include "test_util.h"

#define SLOT 128 /* bytes per case in each region: guards around up to 100 bytes of data */
#define WAIT_SECS 60

enum op { PUT_B, PUT_NB, PUT_NBI, GET_B, GET_NB, GET_NBI, PUTV_B, PUTV_NB, PUTV_NBI, GETV, NOPS };
static const char *const op_name[NOPS] = { "gex_RMA_PutBlocking", "gex_RMA_PutNB", "gex_RMA_PutNBI",
                                           "gex_RMA_GetBlocking", "gex_RMA_GetNB", "gex_RMA_GetNBI",
                                           "gex_RMA_PutBlockingVal", "gex_RMA_PutNBVal", "gex_RMA_PutNBIVal",
                                           "gex_RMA_GetBlockingVal" };
static const gex_Flags_t self_fl[5] = { 0, GEX_FLAG_SELF_SEG_UNKNOWN, GEX_FLAG_SELF_SEG_SOME, GEX_FLAG_SELF_SEG_BOUND,
                                        GEX_FLAG_SELF_SEG_OFFSET };
static const gex_Flags_t peer_fl[5] = { 0, GEX_FLAG_PEER_SEG_UNKNOWN, GEX_FLAG_PEER_SEG_SOME, GEX_FLAG_PEER_SEG_BOUND,
                                        GEX_FLAG_PEER_SEG_OFFSET };
static const char *const self_nm[5] = { "-", "SELF_UNKNOWN", "SELF_SOME", "SELF_BOUND", "SELF_OFFSET" };
static const char *const peer_nm[5] = { "-", "PEER_UNKNOWN", "PEER_SOME", "PEER_BOUND", "PEER_OFFSET" };

typedef struct {
    int kind;       /* 0: to myself, 1: to my right neighbor */
    enum op op;
    int self, peer; /* indexes into self_fl / peer_fl */
    gex_Flags_t lc_copy;
    size_t n, mis;  /* bytes moved; where they start in the slot */
} tcase_t;

static tcase_t *cases;
static size_t ncases;
static uint8_t *myseg, *seg_right;
static uintptr_t mysegsz, segsz_right;
static gex_Rank_t right, left;
static size_t regA, regB, regL; /* offsets: written by myself, by my left neighbor, my local buffers */
static uint8_t *heapbuf, *verify;

static int is_put(enum op o) {
    return o == PUT_B || o == PUT_NB || o == PUT_NBI || o == PUTV_B || o == PUTV_NB || o == PUTV_NBI;
}
static int is_val(enum op o) { return o >= PUTV_B; }

static void add(int kind, enum op o, int self, int peer, gex_Flags_t lcc) {
    tcase_t *c = &cases[ncases];
    c->kind = kind, c->op = o, c->self = self, c->peer = peer, c->lc_copy = lcc;
    c->n = is_val(o) ? 1 + ncases % 8 : 1 + (ncases * 7) % 100;
    c->mis = 8 + ncases % 13;
    ncases++;
}
static void make_cases(void) {
    cases = (tcase_t *)calloc(2 * 400, sizeof(tcase_t));
    CHECK(cases);
    for (int kind = 0; kind < 2; kind++) {
        for (int o = PUT_B; o <= GET_NBI; o++)
            for (int s = 0; s < 5; s++)
                for (int p = 0; p < 5; p++) add(kind, (enum op)o, s, p, 0);
        for (int o = PUT_NB; o <= PUT_NBI; o++)
            for (int y = 0; y < 2; y++)
                for (int s = 0; s < 5; s++)
                    for (int p = 0; p < 5; p++)
                        add(kind, (enum op)o, s, p, y ? GEX_FLAG_LC_COPY_YES : GEX_FLAG_LC_COPY_NO);
        for (int o = PUTV_B; o <= GETV; o++) /* no local address: SELF_SEG_UNKNOWN at most */
            for (int s = 0; s < 2; s++)
                for (int p = 0; p < 5; p++) add(kind, (enum op)o, s, p, 0);
    }
}

static uint64_t seed_of(gex_Rank_t writer, size_t k) {
    return test_mix64(0x5E6F1A65ull ^ ((uint64_t)writer << 40) ^ k);
}
static gex_Rank_t kind_rank(int kind) { return kind ? right : test_rank; }
static size_t kind_off(int kind) { return kind ? regB : regA; }
static uint8_t *kind_seg(int kind) { return kind ? seg_right : myseg; }

static void value_bytes(gex_RMA_Value_t v, size_t n, uint8_t *out) {
    for (size_t i = 0; i < n; i++) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        out[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
#else
        out[i] = (uint8_t)(v >> (8 * i));
#endif
    }
}
static gex_RMA_Value_t bytes_value(const uint8_t *b, size_t n) {
    gex_RMA_Value_t v = 0;
    for (size_t i = 0; i < n; i++) {
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        v = (v << 8) | b[i];
#else
        v |= (gex_RMA_Value_t)b[i] << (8 * i);
#endif
    }
    return v;
}

/* The remote slot of case k written by `writer`, as it must look afterwards: a put leaves
 * its data inside guards; a get leaves the pattern it read, untouched. */
static void expected_slot(gex_Rank_t writer, size_t k, uint8_t *img) {
    const tcase_t *c = &cases[k];
    test_pat_fill(img, SLOT, seed_of(writer, k));
    if (!is_put(c->op)) return;
    if (is_val(c->op)) {
        value_bytes(test_mix64(seed_of(writer, k) + 2), c->n, img + c->mis);
    } else { /* the source slot's bytes at the same place */
        uint8_t src[SLOT];
        test_pat_fill(src, SLOT, seed_of(writer, k) + 1);
        memcpy(img + c->mis, src + c->mis, c->n);
    }
}

static void run_case(size_t k) {
    const tcase_t *c = &cases[k];
    const gex_Rank_t r = kind_rank(c->kind);
    const gex_Flags_t flags = self_fl[c->self] | peer_fl[c->peer] | c->lc_copy;
    const uint64_t seed = seed_of(test_rank, k);
    const char *lcc = c->lc_copy == GEX_FLAG_LC_COPY_YES ? " LC_COPY_YES" : c->lc_copy ? " LC_COPY_NO" : "";
    char what[256];
    snprintf(what, sizeof what, "case %zu: %s of %zu bytes to rank %u, flags %s %s%s (0x%x)", k, op_name[c->op], c->n,
             (unsigned)r, self_nm[c->self], peer_nm[c->peer], lcc, (unsigned)flags);
    /* remote slot: real address, and what the call is given */
    const size_t roff = kind_off(c->kind) + k * SLOT;
    uint8_t *rslot = kind_seg(c->kind) + roff;
    void *rarg = peer_fl[c->peer] == GEX_FLAG_PEER_SEG_OFFSET ? (void *)(uintptr_t)(roff + c->mis) : rslot + c->mis;
    /* local buffer: stack for UNKNOWN, heap for no flag, my segment for SOME/BOUND/OFFSET */
    uint8_t stackbuf[SLOT];
    const size_t loff = regL + k * SLOT;
    uint8_t *lslot = c->self == 1 ? stackbuf : c->self == 0 ? heapbuf : myseg + loff;
    void *larg = self_fl[c->self] == GEX_FLAG_SELF_SEG_OFFSET ? (void *)(uintptr_t)(loff + c->mis) : lslot + c->mis;

    /* the remote slot starts as the guard/source pattern, the local one as something else */
    test_pat_fill(verify, SLOT, seed);
    CHECK_EQ(gex_RMA_PutBlocking(test_tm, r, rslot, verify, SLOT, 0), 0);
    test_pat_fill(lslot, SLOT, seed + 1);
    const gex_RMA_Value_t v = test_mix64(seed + 2);
    gex_Event_t ev = GEX_EVENT_INVALID, lc = GEX_EVENT_NO_OP;
    gex_RMA_Value_t got = 0;
    switch (c->op) {
    case PUT_B: CHECKF(gex_RMA_PutBlocking(test_tm, r, rarg, larg, c->n, flags) == 0, "%s", what); break;
    case PUT_NB: {
        gex_Event_t *lco = k % 3 == 0 ? GEX_EVENT_NOW : k % 3 == 1 ? GEX_EVENT_DEFER : &lc;
        ev = gex_RMA_PutNB(test_tm, r, rarg, larg, c->n, lco, flags);
        CHECKF(ev != GEX_EVENT_NO_OP, "%s returned GEX_EVENT_NO_OP", what);
        if (lco == &lc) gex_Event_Wait(lc);
        break;
    }
    case PUT_NBI: {
        gex_Event_t *lco = k % 3 == 0 ? GEX_EVENT_NOW : k % 3 == 1 ? GEX_EVENT_DEFER : GEX_EVENT_GROUP;
        CHECKF(gex_RMA_PutNBI(test_tm, r, rarg, larg, c->n, lco, flags) == 0, "%s", what);
        gex_NBI_Wait(lco == GEX_EVENT_GROUP ? GEX_EC_ALL : GEX_EC_PUT, 0);
        break;
    }
    case GET_B: CHECKF(gex_RMA_GetBlocking(test_tm, larg, r, rarg, c->n, flags) == 0, "%s", what); break;
    case GET_NB:
        ev = gex_RMA_GetNB(test_tm, larg, r, rarg, c->n, flags);
        CHECKF(ev != GEX_EVENT_NO_OP, "%s returned GEX_EVENT_NO_OP", what);
        break;
    case GET_NBI:
        CHECKF(gex_RMA_GetNBI(test_tm, larg, r, rarg, c->n, flags) == 0, "%s", what);
        gex_NBI_Wait(GEX_EC_GET, 0);
        break;
    case PUTV_B: CHECKF(gex_RMA_PutBlockingVal(test_tm, r, rarg, v, c->n, flags) == 0, "%s", what); break;
    case PUTV_NB:
        ev = gex_RMA_PutNBVal(test_tm, r, rarg, v, c->n, flags);
        CHECKF(ev != GEX_EVENT_NO_OP, "%s returned GEX_EVENT_NO_OP", what);
        break;
    case PUTV_NBI:
        CHECKF(gex_RMA_PutNBIVal(test_tm, r, rarg, v, c->n, flags) == 0, "%s", what);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    case GETV: got = gex_RMA_GetBlockingVal(test_tm, r, rarg, c->n, flags); break;
    case NOPS: break;
    }
    TEST_POLL_UNTIL(gex_Event_Test(ev) == 0, WAIT_SECS, "%s: event never completed", what);

    /* the local side: a get's destination holds exactly the n bytes read; a put's source is untouched */
    uint8_t want[SLOT];
    test_pat_fill(want, SLOT, seed + 1);
    if (c->op == GET_B || c->op == GET_NB || c->op == GET_NBI) {
        uint8_t src[SLOT];
        test_pat_fill(src, SLOT, seed);
        memcpy(want + c->mis, src + c->mis, c->n);
    }
    for (size_t i = 0; i < SLOT; i++)
        CHECKF(lslot[i] == want[i], "%s: local byte %zu (data at %zu..%zu) is 0x%02x, expected 0x%02x", what, i, c->mis,
               c->mis + c->n - 1, lslot[i], want[i]);
    if (c->op == GETV) {
        uint8_t src[SLOT];
        test_pat_fill(src, SLOT, seed);
        CHECKF(got == bytes_value(src + c->mis, c->n), "%s: returned 0x%llx, expected 0x%llx", what,
               (unsigned long long)got, (unsigned long long)bytes_value(src + c->mis, c->n));
    }
    /* the remote side, read back with plain addresses and no flags */
    uint8_t img[SLOT];
    expected_slot(test_rank, k, img);
    CHECK_EQ(gex_RMA_GetBlocking(test_tm, verify, r, rslot, SLOT, 0), 0);
    for (size_t i = 0; i < SLOT; i++)
        CHECKF(verify[i] == img[i], "%s: remote byte %zu (data at %zu..%zu) is 0x%02x, expected 0x%02x", what, i,
               c->mis, c->mis + c->n - 1, verify[i], img[i]);
}

/* the ends of the segment through OFFSET: byte 0 of my own, the last 8 bytes of my right neighbor's */
static gex_RMA_Value_t edge_val(gex_Rank_t writer, int end) { return test_mix64(0xED6E0000ull + writer * 2 + end); }
static void edges(void) {
    CHECK_EQ(gex_RMA_PutBlockingVal(test_tm, test_rank, (void *)0, edge_val(test_rank, 0), 8,
                                    GEX_FLAG_PEER_SEG_OFFSET), 0);
    void *last = (void *)(uintptr_t)(segsz_right - 8);
    gex_Event_t ev = gex_RMA_PutNBVal(test_tm, right, last, edge_val(test_rank, 1), 8, GEX_FLAG_PEER_SEG_OFFSET);
    gex_Event_Wait(ev);
    CHECK_EQ(gex_RMA_GetBlockingVal(test_tm, test_rank, (void *)0, 8, GEX_FLAG_PEER_SEG_OFFSET),
             edge_val(test_rank, 0));
    CHECK_EQ(gex_RMA_GetBlockingVal(test_tm, right, last, 8, GEX_FLAG_PEER_SEG_OFFSET), edge_val(test_rank, 1));
    uint64_t w = 0;
    CHECK_EQ(gex_RMA_GetBlocking(test_tm, &w, right, last, 8, GEX_FLAG_PEER_SEG_OFFSET | GEX_FLAG_SELF_SEG_UNKNOWN), 0);
    CHECK_EQ(w, edge_val(test_rank, 1));
}

/* ---- the flags on AMs: a Long from SELF_SEG_OFFSET to PEER_SEG_OFFSET, a Medium from
 * SELF_SEG_OFFSET, and a Long reply to PEER_SEG_OFFSET; handlers check address and data */
enum { H_AMLONG = 200, H_AMMED, H_AMREP, H_AMACK };
#define AM_N 100
static size_t am_off; /* in every segment: where AM payloads land (past the RMA regions) */
static volatile int am_acks;
static void am_long_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed) {
    CHECK(buf == myseg + am_off);
    CHECK_EQ(n, (size_t)AM_N);
    CHECK_PAT(buf, n, (uint32_t)seed, "Long with PEER_SEG_OFFSET");
    gex_AM_ReplyShort0(t, H_AMACK, 0);
}
static void am_med_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed) {
    CHECK_EQ(n, (size_t)AM_N);
    CHECK_PAT(buf, n, (uint32_t)seed, "Medium from SELF_SEG_OFFSET");
    uint8_t rep[AM_N];
    test_pat_fill(rep, AM_N, (uint32_t)seed + 1);
    gex_AM_ReplyLong1(t, H_AMREP, rep, AM_N, (void *)(uintptr_t)(am_off + AM_N), GEX_EVENT_NOW,
                      GEX_FLAG_PEER_SEG_OFFSET, seed + 1);
}
static void am_rep_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed) {
    (void)t;
    CHECK(buf == myseg + am_off + AM_N);
    CHECK_PAT(buf, n, (uint32_t)seed, "Long reply with PEER_SEG_OFFSET");
    am_acks++;
}
static void am_ack_handler(gex_Token_t t) { (void)t; am_acks++; }

static void am_cases(void) {
    uint8_t *src = myseg + regL; /* the local-buffer region: free again */
    uint32_t seed = 0xA0000000u + test_rank * 16;
    test_pat_fill(src, AM_N, seed);
    gex_AM_RequestLong1(test_tm, right, H_AMLONG, (void *)(uintptr_t)regL, AM_N, (void *)(uintptr_t)am_off,
                        GEX_EVENT_NOW, GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_OFFSET, (gex_AM_Arg_t)seed);
    TEST_POLL_UNTIL(am_acks == 1, WAIT_SECS, "no acknowledgement of the Long with OFFSET flags");
    test_pat_fill(src, AM_N, seed + 2);
    gex_AM_RequestMedium1(test_tm, right, H_AMMED, (void *)(uintptr_t)regL, AM_N, GEX_EVENT_NOW,
                          GEX_FLAG_SELF_SEG_OFFSET, (gex_AM_Arg_t)(seed + 2));
    TEST_POLL_UNTIL(am_acks == 2, WAIT_SECS, "no Long reply to the Medium with SELF_SEG_OFFSET");
}

int main(int argc, char **argv) {
    test_init("test_segflags", &argc, &argv);
    gex_AM_Entry_t tab[] = {
        {H_AMLONG, (gex_AM_Fn_t)am_long_handler, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "am_long"},
        {H_AMMED, (gex_AM_Fn_t)am_med_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "am_med"},
        {H_AMREP, (gex_AM_Fn_t)am_rep_handler, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 1, NULL, "am_rep"},
        {H_AMACK, (gex_AM_Fn_t)am_ack_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "am_ack"},
    };
    CHECK_EQ(gex_EP_RegisterHandlers(test_ep, tab, sizeof tab / sizeof tab[0]), GASNET_OK);
    right = (test_rank + 1) % test_size;
    left = (test_rank + test_size - 1) % test_size;
    make_cases();
    const size_t per = (ncases * SLOT + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE;
    regA = GASNET_PAGESIZE; /* page 0: the edge values */
    regB = regA + per;
    regL = regB + per;
    /* sizes differ by rank, so segments sit at different addresses and an offset
     * translated against the wrong rank's base lands somewhere else */
    am_off = regL + per + 64;
    gex_Segment_t seg = test_attach(regL + per + GASNET_PAGESIZE * (1 + (test_rank % 3)));
    myseg = (uint8_t *)gex_Segment_QueryAddr(seg);
    mysegsz = gex_Segment_QuerySize(seg);
    void *own = NULL;
    CHECK_EQ(gex_Segment_QueryBound(test_tm, right, &own, NULL, &segsz_right), 0);
    seg_right = (uint8_t *)own;
    CHECK(segsz_right >= regL + per + GASNET_PAGESIZE);
    heapbuf = (uint8_t *)malloc(SLOT);
    verify = (uint8_t *)malloc(SLOT);
    CHECK(heapbuf && verify);
    test_barrier();

    for (size_t k = 0; k < ncases; k++) run_case(k);
    edges();
    test_barrier();
    /* plain loads by the owner: region A written by me, region B by my left neighbor */
    uint8_t img[SLOT];
    for (size_t k = 0; k < ncases; k++) {
        const gex_Rank_t writer = cases[k].kind ? left : test_rank;
        expected_slot(writer, k, img);
        const uint8_t *mine = myseg + (cases[k].kind ? regB : regA) + k * SLOT;
        for (size_t i = 0; i < SLOT; i++)
            CHECKF(mine[i] == img[i], "case %zu (%s from rank %u, %s %s): byte %zu of my segment's slot is 0x%02x, "
                   "expected 0x%02x", k, op_name[cases[k].op], (unsigned)writer, self_nm[cases[k].self],
                   peer_nm[cases[k].peer], i, mine[i], img[i]);
    }
    uint64_t e;
    memcpy(&e, myseg, 8);
    CHECK_EQ(e, edge_val(test_rank, 0));
    memcpy(&e, myseg + mysegsz - 8, 8);
    CHECK_EQ(e, edge_val(left, 1));
    test_barrier(); /* the local-buffer regions are free */
    am_cases();
    const char *bypass = getenv("GASNET_RMA_NBRHD_BYPASS");
    test_finish("%zu flag combinations on 10 calls, segment ends by OFFSET, AMs with OFFSET flags, "
                "GASNET_RMA_NBRHD_BYPASS=%s", ncases,
                bypass ? bypass : "(default)");
    return 0;
}
