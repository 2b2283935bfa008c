/* gasneti_am.c: Active Message injection (the gasneti_AM_* entry points behind the
 * public macros), the same-host/network choice, and delivery to handlers with tokens.
 * Layer: core. Payload length and argument count are checked in every build (one
 * comparison each); everything else about the arguments only in debug builds. */
#include "conduit_contract.h"
#include "gasneti_deliver.h"

#include <sched.h>
#include <string.h>

GASNETI_THREADLOCAL gex_Token_t gasneti_cur_token;

static const char *const catname[3][2] = {{"gex_AM_ReplyShort", "gex_AM_RequestShort"},
                                          {"gex_AM_ReplyMedium", "gex_AM_RequestMedium"},
                                          {"gex_AM_ReplyLong", "gex_AM_RequestLong"}};

GASNETI_COLD static void bad_length(const gasneti_am_msg_t *m, size_t limit) {
    gasneti_fatalerror("%s: payload of %zu bytes exceeds the maximum of %zu for this call",
                       catname[m->category][m->is_req], m->nbytes, limit);
}
GASNETI_COLD GASNETI_NORETURN static unsigned bad_nargs(unsigned category, unsigned is_req, unsigned nargs) {
    gasneti_fatalerror("%s: %u handler arguments exceed gex_AM_MaxArgs()=%d", catname[category][is_req], nargs,
                       GASNETI_MAX_ARGS);
}
/* The argument count as a message stores it (a byte), checked in every build first, so
 * that no count wraps before the check. */
#define NARGS(n, cat, req) ((uint8_t)(GASNETI_UNLIKELY((n) > GASNETI_MAX_ARGS) ? bad_nargs(cat, req, n) : (n)))

#if GASNETI_DEBUG
static void debug_check_send(const gasneti_am_msg_t *m, gex_TM_t tm, gex_Rank_t rank, gex_Event_t *lc_opt) {
    const char *call = catname[m->category][m->is_req];
    if (!gasneti_init_done) gasneti_fatalerror("%s called before gex_Client_Init", call);
    if (m->is_req) GASNETI_CHECK_NOT_IN_HANDLER(call); /* the rank was checked where it was translated */
    if (m->handler == 0) gasneti_fatalerror("%s: handler index 0 is not a valid handler", call);
    if (m->category != GASNETI_AM_SHORT) {
        if (lc_opt == GEX_EVENT_DEFER) gasneti_fatalerror("%s: lc_opt GEX_EVENT_DEFER is not allowed for AMs", call);
        if (!m->is_req && lc_opt == GEX_EVENT_GROUP)
            gasneti_fatalerror("%s: lc_opt GEX_EVENT_GROUP is not allowed for replies", call);
        if (!lc_opt) gasneti_fatalerror("%s: lc_opt is NULL", call);
    }
    if (m->category == GASNETI_AM_LONG && m->nbytes) {
        const gasneti_peerseg_t *s = gasneti_peerseg_of(m->jobrank, m->dst_ep);
        uintptr_t d = (uintptr_t)m->dest_addr, b = (uintptr_t)s->_owner_addr;
        if (!s->_size || d < b || d + m->nbytes > b + s->_size)
            gasneti_fatalerror("%s: destination [%p, %p) is outside the segment of rank %u [%p, %p)", call,
                               m->dest_addr, (void *)(d + m->nbytes), (unsigned)m->jobrank, s->_owner_addr,
                               (void *)(b + s->_size));
    }
}
#  define DEBUG_CHECK_SEND(m, tm, rank, lc) debug_check_send(m, tm, rank, lc)
#else
#  define DEBUG_CHECK_SEND(m, tm, rank, lc) ((void)0)
#endif

static inline void check_lengths(const gasneti_am_msg_t *m) {
    if (m->category != GASNETI_AM_SHORT) {
        size_t limit = m->category == GASNETI_AM_MEDIUM ? gasneti_am_max_medium : gasneti_am_max_long;
        if (GASNETI_UNLIKELY(m->nbytes > limit)) bad_length(m, limit);
    }
}

/* Does m fit in a PSHM lane slot (gasneti_pshm_lanes.c)? */
#define LANE_FITS(m) ((m)->category != GASNETI_AM_MEDIUM || (m)->nbytes <= GASNETI_LANE_INLINE)

/* An AM a process sends to itself runs before the call returns, as in the released
 * library (clients spin, without polling, on a flag that a loopback AM sets): a Medium
 * payload is copied first to a buffer of the library's (the handler may write to it), a
 * Long one to its destination; a request handler's reply to itself runs nested in it. */
GASNETI_COLD static int loopback(const gasneti_am_msg_t *m, gex_Event_t *lc_opt) {
    static GASNETI_THREADLOCAL void *medium_buf[2]; /* [is_req]: a reply runs inside its request's handler */
    void *buf = NULL;
    if (m->category == GASNETI_AM_MEDIUM) {
        if (!medium_buf[m->is_req] && !(medium_buf[m->is_req] = malloc(gasneti_am_max_medium + 1)))
            gasneti_fatalerror("%s: out of memory for a payload to this process", catname[m->category][m->is_req]);
        buf = medium_buf[m->is_req];
        if (m->nbytes) memcpy(buf, m->src, m->nbytes);
    } else if (m->category == GASNETI_AM_LONG) {
        buf = m->dest_addr;
        if (m->nbytes && buf != m->src) memmove(buf, m->src, m->nbytes);
    }
    gasneti_lc_done_at_once(lc_opt);
    gasneti_deliver(gasneti_mynode, m->category, m->is_req, m->nargs, m->handler, m->args, buf, m->nbytes, NULL,
                    m->dst_ep, m->src_ep);
    return GASNET_OK;
}

/* gasneti_am_send's body, inline in the entry points, so that a Short (category known,
 * no payload, no local completion) to a network peer is a few comparisons and the
 * conduit's call: no call of the generic path, nor of gasneti_am_send_network. */
GASNETI_ALWAYS_INLINE int am_send(const gasneti_am_msg_t *m, gex_Event_t *lc_opt) {
    check_lengths(m);
    GASNETI_TRACE_OP((m->is_req ? GASNETI_TK_AMREQ_SHORT : GASNETI_TK_AMREP_SHORT) + m->category, m->jobrank, m->nbytes,
                     m->handler);
    if (GASNETI_UNLIKELY(m->jobrank == gasneti_mynode)) return loopback(m, lc_opt);
    int32_t idx = gasneti_nbrhd_index[m->jobrank];
    if (GASNETC_NBRHD_ONLY || idx >= 0) {
        /* PSHM copies the payload before returning: locally complete at once */
        int rc = m->is_req && gasneti_lanes_on && LANE_FITS(m) ? gasneti_lanes_request(m, idx) : gasneti_pshm_am_send(m);
        if (!rc) gasneti_lc_done_at_once(lc_opt);
        return rc;
    }
#if GASNETC_FRAGMENTS
    /* a piece is never below the NET size: the conduit's hook is asked only above it */
    if (GASNETI_UNLIKELY(m->category == GASNETI_AM_LONG
                             ? m->nbytes > GASNETC_NET_LONG && m->nbytes > GASNETI_LONG_PIECE(m)
                             : m->nbytes > GASNETC_NET_MEDIUM && m->nbytes > GASNETI_MEDIUM_PIECE(m)))
        return gasneti_frag_send(m, lc_opt);
#endif
    if (m->category == GASNETI_AM_SHORT) return gasnetc_am_send(m, NULL);
    return gasneti_am_send_network(m, lc_opt);
}
int gasneti_am_send(const gasneti_am_msg_t *m, gex_Event_t *lc_opt) { return am_send(m, lc_opt); }

#if GASNETI_DEBUG
/* Flags an AM injection accepts: IMMEDIATE; for Medium and Long the segment disposition
 * of the source (SELF_SEG_*), the LC_COPY hints and ENABLE_LEAF_LC (accepted, no effect:
 * local completion is reported through lc_opt); for Long that of the destination too. */
static void check_am_flags(const gasneti_am_msg_t *m) {
    const char *call = catname[m->category][m->is_req];
    gex_Flags_t ok = GEX_FLAG_IMMEDIATE;
    if (m->category != GASNETI_AM_SHORT)
        ok |= GASNETI_FLAG_SELF_SEG_ALL | GEX_FLAG_LC_COPY_YES | GEX_FLAG_LC_COPY_NO | GEX_FLAG_ENABLE_LEAF_LC;
    if (m->category == GASNETI_AM_LONG) ok |= GASNETI_FLAG_PEER_SEG_ALL;
    if (m->flags & ~ok)
        gasneti_fatalerror("%s: flags 0x%x: bits 0x%x are not flags this call accepts", call, (unsigned)m->flags,
                           (unsigned)(m->flags & ~ok));
    if ((m->flags & (GEX_FLAG_LC_COPY_YES | GEX_FLAG_LC_COPY_NO)) == (GEX_FLAG_LC_COPY_YES | GEX_FLAG_LC_COPY_NO))
        gasneti_fatalerror("%s: flags 0x%x: GEX_FLAG_LC_COPY_YES and GEX_FLAG_LC_COPY_NO are mutually exclusive", call,
                           (unsigned)m->flags);
    gasneti_check_seg_flags(gasneti_peerseg_of(gasneti_mynode, m->src_ep), gasneti_peerseg_of(m->jobrank, m->dst_ep),
                            m->jobrank, m->flags, m->src, m->nbytes, m->dest_addr, m->nbytes,
                            m->category == GASNETI_AM_LONG, call);
}
#endif

/* *_SEG_OFFSET: the source and (Long) destination are offsets into the bound segments;
 * checked as given, then made addresses for everything below. */
static inline void seg_flags(gasneti_am_msg_t *m) {
#if GASNETI_DEBUG
    check_am_flags(m);
#endif
    if (m->category != GASNETI_AM_SHORT && GASNETI_UNLIKELY(m->flags & GASNETI_FLAG_SEG_OFFSET)) {
        if (m->flags & GEX_FLAG_SELF_SEG_OFFSET)
            m->src = gasneti_seg_offset_addr(gasneti_peerseg_of(gasneti_mynode, m->src_ep), m->src);
        if (m->flags & GEX_FLAG_PEER_SEG_OFFSET)
            m->dest_addr = gasneti_seg_offset_addr(gasneti_peerseg_of(m->jobrank, m->dst_ep), m->dest_addr);
    }
}

/* the endpoints of a request to team member `rank` */
#define SET_REQ_EPS(m, tm, rank) ((m)->dst_ep = (uint8_t)gasneti_tm_epidx(tm, rank), (m)->src_ep = (uint8_t)(tm)->_ep->_index)
/* a reply with `token` (checked in debug builds): its destination and endpoints, and the
 * token marked replied */
static inline void set_reply(gasneti_am_msg_t *m, gex_Token_t token) {
#if GASNETI_DEBUG
    gasneti_check_reply_token(token, catname[m->category][0]);
#endif
    token->replied = 1;
    m->jobrank = token->srcrank;
    m->dst_ep = token->src_ep;
    m->src_ep = (uint8_t)token->ep->_index;
}

GASNETI_ALWAYS_INLINE int am_request(gex_TM_t tm, gex_Rank_t rank, gasneti_am_msg_t *m, gex_Event_t *lc_opt) {
    SET_REQ_EPS(m, tm, rank);
    seg_flags(m);
    DEBUG_CHECK_SEND(m, tm, rank, lc_opt);
    return am_send(m, lc_opt);
}
int gasneti_am_request(gex_TM_t tm, gex_Rank_t rank, gasneti_am_msg_t *m, gex_Event_t *lc_opt) {
    return am_request(tm, rank, m, lc_opt);
}

/* A negotiated-payload request whose payload the client wrote into the same-host slot
 * claimed at Prepare (gasneti_am_prepare.c): the checks of a request, then publish. */
int gasneti_am_commit_claimed(gex_TM_t tm, gex_Rank_t rank, gasneti_am_msg_t *m, const gasneti_pshm_claim_t *c) {
    SET_REQ_EPS(m, tm, rank);
    seg_flags(m);
    DEBUG_CHECK_SEND(m, tm, rank, GEX_EVENT_NOW);
    check_lengths(m);
    gasneti_claim_commit(c, m);
    return GASNET_OK;
}

#if GASNETC_AM_PREPARE
/* A negotiated-payload request or reply whose payload the client wrote into the
 * conduit's own send memory (gasnetc_am_prepare): the checks of a request or reply, then
 * the conduit sends it around the payload. Never declines: prepare reserved the room. */
int gasneti_am_commit_net(gex_TM_t tm, gex_Rank_t rank, gex_Token_t token, gasneti_am_msg_t *m, gasneti_am_prep_t *h) {
    if (m->is_req)
        SET_REQ_EPS(m, tm, rank);
    else
        set_reply(m, token);
    seg_flags(m);
    DEBUG_CHECK_SEND(m, m->is_req ? tm : NULL, rank, GEX_EVENT_NOW);
    check_lengths(m);
    GASNETI_TRACE_OP((m->is_req ? GASNETI_TK_AMREQ_SHORT : GASNETI_TK_AMREP_SHORT) + m->category, m->jobrank, m->nbytes,
                     m->handler);
    gasnetc_am_commit(m, h);
    return GASNET_OK;
}
#endif

#if GASNETI_DEBUG
void gasneti_check_reply_token(gex_Token_t token, const char *call) {
    if (!token || token != gasneti_cur_token)
        gasneti_fatalerror("%s: called outside the handler that received this token", call);
    if (!token->is_req) gasneti_fatalerror("%s: called from a reply handler (replies may not send)", call);
    if (token->replied) gasneti_fatalerror("%s: a request handler may reply at most once", call);
    if (gasneti_hsls_held)
        gasneti_fatalerror("%s called while holding a handler-safe lock, where the spec forbids it", call);
    if (gasneti_prepare_pending)
        gasneti_fatalerror("%s called between %s and its Commit, where the spec forbids it", call,
                           gasneti_prepare_pending);
}
#endif

GASNETI_ALWAYS_INLINE int am_reply(gex_Token_t token, gasneti_am_msg_t *m, gex_Event_t *lc_opt) {
    set_reply(m, token);
    seg_flags(m);
    DEBUG_CHECK_SEND(m, NULL, 0, lc_opt);
    if (token->lane && LANE_FITS(m)) { /* into the request's own slot: always room */
        check_lengths(m);
        GASNETI_TRACE_OP(GASNETI_TK_AMREP_SHORT + m->category, m->jobrank, m->nbytes, m->handler);
        gasneti_lanes_reply(token->lane, m);
        gasneti_lc_done_at_once(lc_opt);
        return GASNET_OK;
    }
    int rc = am_send(m, lc_opt);
    if (rc) token->replied = 0; /* declined (IMMEDIATE): no reply was sent, one may still be */
    return rc;
}
int gasneti_am_reply(gex_Token_t token, gasneti_am_msg_t *m, gex_Event_t *lc_opt) { return am_reply(token, m, lc_opt); }

/* Would sending m (from a request handler with `token` when a reply) have to wait for
 * room? Read-only and racy by design (for GEX_FLAG_IMMEDIATE on Prepare calls): another
 * thread may take the room found. Network peers: the conduit says. */
int gasneti_am_would_block(const gasneti_am_msg_t *m, gex_Token_t token) {
    if (!m->is_req && token->lane && LANE_FITS(m)) return 0;
    int32_t idx = gasneti_nbrhd_index[m->jobrank];
    if (!GASNETC_NBRHD_ONLY && idx < 0) return gasnetc_am_would_block(m);
    if (m->is_req && gasneti_lanes_on && LANE_FITS(m)) return !gasneti_lanes_have_room(idx);
    return !gasneti_pshm_have_room(m);
}

int gasneti_AM_RequestShortA(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, gex_Flags_t flags,
                             unsigned int nargs, const gex_AM_Arg_t *args) {
    uint8_t n8 = NARGS(nargs, GASNETI_AM_SHORT, 1);
    gasneti_am_msg_t m = {gasneti_tm_jobrank_checked(tm, rank, "gex_AM_RequestShort"), GASNETI_AM_SHORT, 1, n8, handler, flags, args,
                          NULL, 0, NULL};
    return am_request(tm, rank, &m, NULL);
}

int gasneti_AM_RequestMediumA(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, const void *src, size_t nbytes,
                              gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int nargs, const gex_AM_Arg_t *args) {
    uint8_t n8 = NARGS(nargs, GASNETI_AM_MEDIUM, 1);
    gasneti_am_msg_t m = {gasneti_tm_jobrank_checked(tm, rank, "gex_AM_RequestMedium"), GASNETI_AM_MEDIUM, 1, n8, handler, flags, args,
                          src, nbytes, NULL};
    return gasneti_am_request(tm, rank, &m, lc_opt);
}

int gasneti_AM_RequestLongA(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, const void *src, size_t nbytes,
                            void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int nargs,
                            const gex_AM_Arg_t *args) {
    uint8_t n8 = NARGS(nargs, GASNETI_AM_LONG, 1);
    gasneti_am_msg_t m = {gasneti_tm_jobrank_checked(tm, rank, "gex_AM_RequestLong"), GASNETI_AM_LONG, 1, n8, handler, flags, args,
                          src, nbytes, dest_addr};
    return gasneti_am_request(tm, rank, &m, lc_opt);
}

int gasneti_AM_ReplyShortA(gex_Token_t token, gex_AM_Index_t handler, gex_Flags_t flags, unsigned int nargs,
                           const gex_AM_Arg_t *args) {
    uint8_t n8 = NARGS(nargs, GASNETI_AM_SHORT, 0);
    gasneti_am_msg_t m = {0, GASNETI_AM_SHORT, 0, n8, handler, flags, args, NULL, 0, NULL};
    return am_reply(token, &m, NULL);
}

int gasneti_AM_ReplyMediumA(gex_Token_t token, gex_AM_Index_t handler, const void *src, size_t nbytes,
                            gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int nargs, const gex_AM_Arg_t *args) {
    uint8_t n8 = NARGS(nargs, GASNETI_AM_MEDIUM, 0);
    gasneti_am_msg_t m = {0, GASNETI_AM_MEDIUM, 0, n8, handler, flags, args, src, nbytes, NULL};
    return gasneti_am_reply(token, &m, lc_opt);
}

int gasneti_AM_ReplyLongA(gex_Token_t token, gex_AM_Index_t handler, const void *src, size_t nbytes, void *dest_addr,
                          gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int nargs, const gex_AM_Arg_t *args) {
    uint8_t n8 = NARGS(nargs, GASNETI_AM_LONG, 0);
    gasneti_am_msg_t m = {0, GASNETI_AM_LONG, 0, n8, handler, flags, args, src, nbytes, dest_addr};
    return gasneti_am_reply(token, &m, lc_opt);
}

/* ---- delivery errors (the dispatch itself is inline, in gasneti_deliver.h) ---- */
void gasneti_bad_delivery(gex_Rank_t src, unsigned category, unsigned is_req, unsigned nargs, unsigned handler,
                          const gex_AM_Entry_t *e) {
    const char *call = catname[category][is_req];
    if (!e->gex_fnptr)
        gasneti_fatalerror("%s from rank %u: handler index %u is not registered on rank %u", call, (unsigned)src,
                           handler, (unsigned)gasneti_mynode);
    gasneti_fatalerror("%s from rank %u with %u args for handler index %u (\"%s\"), which was registered with "
                       "flags 0x%x and %u args", call, (unsigned)src, nargs, handler, e->gex_name ? e->gex_name : "",
                       (unsigned)e->gex_flags, e->gex_nargs);
}

void gasneti_bad_endpoint(gex_Rank_t src, unsigned category, unsigned is_req, unsigned handler, unsigned dst_ep) {
    gasneti_fatalerror("%s from rank %u (handler index %u) to endpoint %u of rank %u, which has no such endpoint",
                       catname[category][is_req], (unsigned)src, handler, dst_ep, (unsigned)gasneti_mynode);
}

/* ---- progress ---- */
int gasneti_progress_needed; /* nonzero while the layer above needs its progress polled */
const struct gasneti_layer_s *gasneti_layer;

/* A poll of shared memory alone (smp-conduit) that found nothing ends with a spin hint
 * (a pause on x86): the caller is most likely waiting in a loop, and the pause leaves the
 * core's resources to a hyperthread sibling (possibly the very peer we wait for) and
 * spares the line we watch a storm of reads while its writer wants it. On our two-vCPU
 * test machine it took the AM Short round trip from about 170 ns to 120-140 ns when the
 * vCPUs are close (raw bounce about 55 ns), and changed nothing measurable when they are
 * far apart (raw bounce about 320 ns); it costs at most one pause (about 25 ns on AMD
 * Zen 4) of reaction time. A network conduit's poll is long already (its network's
 * progress engine: ucp_worker_progress alone takes about 15 ns, a system call far more),
 * so there the pause only adds to the time a message waits to be seen: ucx-conduit's AM
 * round trip over UCX's shared memory went from 0.43-0.46 us to 0.37-0.40 us without it
 * (raw UCP 0.26-0.31 us; bench_ucx, 2026-11-26).
 * A thread that keeps polling with nothing arriving gives up its CPU now and then, so
 * that a peer sharing the CPU (more processes or threads than cores) can run and send
 * what we wait for. The run of empty polls allowed is short when the host runs more of
 * the job's processes than it has CPUs, long otherwise (set in gasneti_pshm_init). */
unsigned gasneti_idle_polls_before_yield = 1024;
/* The state dump and the watchdog (gasneti_watchdog.c) ride on this: a pending dump costs
 * one load per poll; the watchdog's clock is read only when the CPU is given up. The
 * count of empty polls (low half) and of yields in this run (high half) are one word, so
 * that finding work resets both with one store. */
static GASNETI_THREADLOCAL uint64_t idle_polls;

/* the CPU given up after a run of empty polls (out of line: a poll stays short) */
GASNETI_NOINLINE GASNETI_COLD static void poll_yield(void) {
    idle_polls = ((idle_polls >> 32) + 1) << 32;
    gasneti_watchdog_idle((unsigned)(idle_polls >> 32));
    sched_yield();
}
GASNETI_ALWAYS_INLINE void poll_backoff(int n) {
    if (GASNETI_UNLIKELY(gasneti_dump_pending)) gasneti_dump_service();
    if (n) {
        idle_polls = 0;
    } else if ((uint32_t)++idle_polls < gasneti_idle_polls_before_yield) {
#if GASNETC_NBRHD_ONLY
        gasneti_spin_hint();
#endif
    } else {
        poll_yield();
    }
}
void gasneti_poll_backoff(int n) { poll_backoff(n); }

/* The back-off inline, and no call of gasneti_pshm_poll for a network conduit's process
 * alone in its neighborhood (PSHM off: nothing arrives there): about 20 instructions
 * fewer per poll there (issue 45, docs/ucx-conduit.md); the same or fewer elsewhere. */
int gasneti_AMPoll(void) {
    GASNETI_CHECK_NOT_IN_HANDLER("gasnet_AMPoll");
    int n = !GASNETC_NBRHD_ONLY && gasneti_nbrhd_size == 1 ? 0 : gasneti_pshm_poll(0);
    if (!GASNETC_NBRHD_ONLY) n += gasnetc_poll();
    if (__atomic_load_n(&gasneti_progress_needed, __ATOMIC_RELAXED) && gasneti_layer->progress)
        gasneti_layer->progress();
    poll_backoff(n);
    return GASNET_OK;
}

/* While sending a reply: drain only our reply queue (reply handlers never send), so a
 * request handler never waits on another request handler. */
int gasneti_poll_replies(void) { return gasneti_pshm_poll(1); }

/* No room to send now (a full queue or lane, no credit, no send slot, the provider
 * busy). A request from outside a handler polls everything; a reply, or anything sent
 * inside a handler, runs replies only, the neighbors' and the network's (gasnetc_poll
 * inside a handler defers requests), so a reply always goes out and no two ranks wait on
 * each other. Either way empty polls back off, so that the peer we wait for can run
 * when it shares our CPU: spinning without a yield cost a scheduler time slice per wait
 * (4 processes on 2 CPUs, ofi: 15 ms per test_barrier phase). */
static void wait_room(int is_req) {
    if (is_req && !gasneti_cur_token) {
        gasneti_AMPoll();
        return;
    }
    int n = gasneti_poll_replies();
    if (!GASNETC_NBRHD_ONLY) n += gasnetc_poll();
    poll_backoff(n);
}
/* marked as waits (gasneti_watchdog.h): the state dump says what this thread waits for */
void gasneti_wait_for_room(int is_req) {
    GASNETI_WAITING("an AM send", GASNETI_WAIT_ROOM, 0);
    wait_room(is_req);
}
void gasneti_wait_for_room_to(gex_Rank_t jobrank, int is_req) {
    GASNETI_WAITING("an AM send", GASNETI_WAIT_ROOM, (uintptr_t)jobrank + 1);
    wait_room(is_req);
}
