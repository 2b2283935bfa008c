/* conduit_contract.h: THE contract between the conduit-independent core and a conduit.
 * Layer: core <-> conduit. Every conduit implements exactly what is declared here, as
 * plain functions bound at compile time (one conduit per library; no vtables on the
 * message path). A conduit never includes gasnet_extended/ headers.
 *
 * What the core does for every conduit, so a conduit need not:
 *   - objects, handler tables, AM dispatch (gasneti_am_deliver), token rules;
 *   - same-host peers (PSHM): AMs between processes of one neighborhood go through
 *     shared-memory queues and never reach gasnetc_am_send; RMA to them is load/store;
 *   - segments: allocation in shared memory, exchange of addresses and of the
 *     conduit's keys, max-size policy;
 *   - exit coordination on top of the bootstrap's abort/exit hooks;
 *   - the reference extended layer (RMA over AMs, events, barriers).
 */
#ifndef GASNETI_CONDUIT_CONTRACT_H
#define GASNETI_CONDUIT_CONTRACT_H

#include "gasneti_internal.h"

/* ---------------------------------------------------------------------------------
 * Rules every conduit follows (issue 29; checked for udp, mpi and ofi)
 *   1. Handlers run only from gasnetc_poll (and the core's progress that calls it:
 *      gasnet_AMPoll, gasneti_wait_for_room, blocking calls), in the thread that polls;
 *      never from inside a network library's callback or progress thread. A conduit
 *      whose network completes things through callbacks records them there and delivers
 *      at its next poll.
 *   2. gasnetc_poll is re-entered from handlers: a request handler's reply may wait for
 *      room, and that waiting polls. Such a nested poll (gasneti_net_nested(): inside a
 *      handler, or in gasneti_net_wait_local) runs reply handlers only and keeps arrived
 *      requests for the next top-level poll (gasneti_defer_if / gasneti_defer_run), so a
 *      reply always goes out and no two ranks wait on each other. Receive buffers a
 *      handler runs in are not reused by the nested poll (udp: one buffer per level;
 *      mpi, ofi: a buffer is posted again only after its handlers returned).
 *   3. No lock of the conduit's is held while a handler runs (nor while the core's
 *      gasneti_frag_recv or gasneti_counter_done's waiter may run a handler): the
 *      conduit takes what arrived under its lock, releases it, then delivers. The queue
 *      of kept requests has its own lock, taken inside the conduit's or alone.
 *   4. No lock of the conduit's is held while waiting: a send without room releases it,
 *      then polls through gasneti_wait_for_room (gasneti_lock_room does both), which
 *      backs off like gasnet_AMPoll; other waiting loops pass what each poll found to
 *      gasneti_poll_backoff. Polling the network's progress engine with the lock held,
 *      without delivering (ofi re-posting a receive buffer), is not waiting.
 *   5. Errors of the network name the call, the peer's rank and host, and the network's
 *      own message (gasneti_peer_fail), and end the job.
 * The toolkit that implements most of this: gasneti_netkit.h (docs/conduit-toolkit.md).
 * --------------------------------------------------------------------------------- */

/* ---------------------------------------------------------------------------------
 * Knobs: <net>_conduit.h must define every one of these as 0 or 1 (or a number).
 * --------------------------------------------------------------------------------- */
#if !defined(GASNETC_NATIVE_PUT) || !defined(GASNETC_NATIVE_GET) || !defined(GASNETC_NATIVE_AMO)
#  error "every GASNETC_NATIVE_* knob in conduit_contract.h must be defined by the conduit"
#endif
#if !defined(GASNETC_NBRHD_ONLY)
#  error "GASNETC_NBRHD_ONLY must be defined by the conduit"
#endif
#if !defined(GASNETC_NAME) || !defined(GASNETC_NAME_UPPER)
#  error "GASNETC_NAME (\"smp\") and GASNETC_NAME_UPPER (\"SMP\") must be defined by the conduit"
#endif
/* GASNETC_NATIVE_PUT / _GET: 1 if the conduit moves RMA data to non-neighbors itself
 *   (gasnetc_put / gasnetc_get below exist, used for every target segment the conduit
 *   gave a key for: "Segments reached by RDMA"); 0 uses the AM-based reference.
 * GASNETC_NATIVE_AMO: 1 if gasnetc_amo_domain / gasnetc_amo exist (remote atomics by the
 *   network, chosen per atomic domain at creation; requires GASNETC_NATIVE_PUT).
 * GASNETC_NBRHD_ONLY: 1 if every peer is always a neighbor (no network at all);
 *   then gasnetc_am_send is never called.
 * GASNETC_MAX_MEDIUM / _LONG (optional; default 65536 and 4 MiB, what every conduit offers
 *   today): the largest Medium / Long payload the library offers clients (gex_AM_Max*;
 *   Medium at least 65536 on every conduit), the same to every peer. A conduit defines
 *   them only where its network makes them different.
 * GASNETC_NET_MEDIUM / _LONG (optional; default: the MAX values): the largest payload one
 *   network message of the conduit carries. Where smaller than MAX, the core splits a
 *   bigger AM into pieces (gasneti_frag.c), each sent by gasnetc_am_send with msg->frag
 *   set, and runs the handler once every piece has arrived.
 * GASNETC_LONG_PIECE_AT_RUN_TIME (optional, default 0): 1 if the conduit takes some Longs
 *   bigger than GASNETC_NET_LONG in one gasnetc_am_send (their payload moved by RDMA, say,
 *   rather than inside a message); it then provides gasnetc_long_piece(msg), the largest
 *   piece of that Long it takes (GASNETC_NET_LONG up to GASNETC_MAX_LONG), which the core
 *   uses in place of GASNETC_NET_LONG. */
#ifndef GASNETC_MAX_MEDIUM
#  define GASNETC_MAX_MEDIUM 65536
#endif
#ifndef GASNETC_MAX_LONG
#  define GASNETC_MAX_LONG (4u << 20)
#endif
#ifndef GASNETC_NET_MEDIUM
#  define GASNETC_NET_MEDIUM GASNETC_MAX_MEDIUM
#endif
#ifndef GASNETC_NET_LONG
#  define GASNETC_NET_LONG GASNETC_MAX_LONG
#endif
#define GASNETC_FRAGMENTS (GASNETC_NET_MEDIUM < GASNETC_MAX_MEDIUM || GASNETC_NET_LONG < GASNETC_MAX_LONG)
#ifndef GASNETC_LONG_PIECE_AT_RUN_TIME
#  define GASNETC_LONG_PIECE_AT_RUN_TIME 0
#endif
#if GASNETC_LONG_PIECE_AT_RUN_TIME
extern size_t gasnetc_long_piece(const gasneti_am_msg_t *msg);
#  define GASNETI_LONG_PIECE(msg) gasnetc_long_piece(msg)
#else
#  define GASNETI_LONG_PIECE(msg) ((size_t)GASNETC_NET_LONG)
#endif

/* Big Mediums apart from the message (optional).
 * GASNETC_MEDIUM_PIECE_AT_RUN_TIME (default 0): 1 if the conduit takes some Mediums bigger
 *   than GASNETC_NET_MEDIUM (the payload its receive buffers hold) in one gasnetc_am_send,
 *   moving the payload by rendezvous or RDMA rather than inside the message; it then
 *   provides gasnetc_medium_piece(msg), the largest piece of that Medium it takes
 *   (GASNETC_NET_MEDIUM up to GASNETC_MAX_MEDIUM; the core splits what is bigger, as
 *   without the hook). The core may ask with a made-up msg (category, jobrank, is_req and
 *   nbytes set) to size the Medium replies it asks a peer for: the answer must not
 *   depend on the direction. On the target, the conduit receives such a payload into a
 *   buffer of GASNETC_MAX_MEDIUM bytes from gasneti_bigmed_get() (the core's pool, any
 *   thread, no lock), hands it to gasneti_am_deliver as the Medium's payload (contiguous,
 *   aligned for any type) and gives it back with gasneti_bigmed_put() once the handler
 *   has returned. */
#ifndef GASNETC_MEDIUM_PIECE_AT_RUN_TIME
#  define GASNETC_MEDIUM_PIECE_AT_RUN_TIME 0
#endif
#if GASNETC_MEDIUM_PIECE_AT_RUN_TIME
#  if !(GASNETC_NET_MEDIUM < GASNETC_MAX_MEDIUM)
#    error "GASNETC_MEDIUM_PIECE_AT_RUN_TIME is for a conduit whose GASNETC_NET_MEDIUM is below GASNETC_MAX_MEDIUM"
#  endif
extern size_t gasnetc_medium_piece(const gasneti_am_msg_t *msg);
#  define GASNETI_MEDIUM_PIECE(msg) gasnetc_medium_piece(msg)
#else
#  define GASNETI_MEDIUM_PIECE(msg) ((size_t)GASNETC_NET_MEDIUM)
#endif
/* The largest Medium to or from non-neighbor jr that the core never splits (the extended
 * layer sizes its AM-based transfers by it). */
static inline size_t gasneti_medium_unsplit(gex_Rank_t jr) {
    gasneti_am_msg_t probe = {.jobrank = jr, .category = GASNETI_AM_MEDIUM, .nbytes = GASNETC_MAX_MEDIUM};
    size_t piece = GASNETI_MEDIUM_PIECE(&probe);
    (void)probe;
    return piece < gasneti_am_max_medium ? piece : gasneti_am_max_medium;
}

/* ---------------------------------------------------------------------------------
 * Bootstrap: how the job was started. Provided by the conduit (or a shared spawner in
 * other/); used by the core before AMs work (host discovery, PSHM set-up, segment
 * exchange, exit). Chosen once at start-up, hence function pointers.
 * --------------------------------------------------------------------------------- */
/* primordial-team barriers this rank has started (gasnete_barrier.c counts them) */
extern uint32_t gasneti_barriers_started;
struct gasneti_bootstrap_s {
    const char *name;
    /* Collective over all ranks: returns when every rank has entered. */
    void (*barrier)(void);
    /* Allgather: rank r's len bytes at src land at dst + r*len on every rank. */
    void (*exchange)(const void *src, size_t len, void *dst);
    /* Root's len bytes at buf land in buf on every rank. */
    void (*broadcast)(void *buf, size_t len, gex_Rank_t root);
    /* This rank is leaving with `code`. `collective` is 1 when every rank is known to
     * be exiting (no one needs to be killed), 0 when the rest of the job must be ended
     * with the same code (gasnet_exit on one rank, a fatal error, a signal).
     * Returns; the caller then leaves the process. */
    void (*exit_notify)(int code, int collective);
    /* Poll for peers' exit state: returns 1 when every rank is exiting. */
    int (*all_exiting)(void);
    /* The code the job is ending with, once the launcher has asked this rank to leave
     * (by SIGQUIT); 1 if no rank gave one. */
    int (*abort_code)(void);
    /* A string unique to this job, usable in shared-memory object names. */
    const char *jobid;
    /* Optional (NULL if none): called last as the process leaves after a collective
     * exit, once the network is shut down (an external launcher's finalize). */
    void (*fini)(void);
    /* Optional (NULL if the bootstrap cannot tell): the code of a rank that has begun a
     * normal exit (gasnet_exit or a return from main), -1 while none has; *barriers is
     * the fewest primordial barriers any such rank had started (gasneti_barriers_started
     * when it called exit_notify(code, 1)), as far as this rank knows yet. A rank blocked
     * in a barrier such a rank never started then joins the exit at once
     * (gasneti_join_peer_exit). Cheap: called from wait loops. */
    int (*peer_exiting)(uint32_t *barriers);

    /* ---- variable-length exchange and out-of-band messages (conduits that connect
     * lazily or whose addresses differ in size per rank: UCX worker addresses, packed
     * rkeys, RC queue-pair numbers). docs/bootstrap.md describes their use. Conduits call
     * them through gasneti_boot_exchange_v/gasneti_boot_send/gasneti_boot_recv below,
     * which check the arguments and fail naming the bootstrap if it lacks one. ---- */
    /* Collective allgather of different sizes: this rank gives len bytes at src; returns
     * one malloc'd block (the caller frees it; never NULL) with every rank's bytes in rank
     * order, rank r's at lens[0] + ... + lens[r-1]; lens (gasneti_nodes entries) gets each
     * rank's length. Any length, 0 included, up to 1 GiB in all. Every bootstrap has it. */
    void *(*exchange_v)(const void *src, size_t len, size_t *lens);
    /* Optional (NULL if the bootstrap cannot): a message of len bytes (at most
     * GASNETI_BOOT_MSG_MAX) to rank dest, any time after gasnetc_bootstrap_init, while
     * AMs run. Does not wait for dest to receive it (it may wait for room in the
     * transport). Messages from one rank to another arrive in the order sent; any thread
     * may send (the bootstrap serializes). May be sent to oneself. */
    void (*p2p_send)(gex_Rank_t dest, const void *buf, size_t len);
    /* The oldest message that has arrived for this rank (any sender), taken once: a
     * malloc'd copy the caller frees, its length in *len and sender in *src. If none
     * has arrived: NULL at once when block is 0 (cheap enough for gasnetc_poll), or
     * waits for one when block is 1. Any thread may call it. */
    void *(*p2p_recv)(gex_Rank_t *src, size_t *len, int block);
};
/* the largest out-of-band message (p2p_send) every bootstrap carries */
#define GASNETI_BOOT_MSG_MAX ((size_t)65536)
/* The calls conduits use (gasneti_bootstrap.c): gasneti_boot's members after the checks
 * (a rank out of range, a message too large, a bootstrap without p2p: a fatal error
 * naming the bootstrap and the call). */
extern void *gasneti_boot_exchange_v(const void *src, size_t len, size_t *lens);
extern void gasneti_boot_send(gex_Rank_t dest, const void *buf, size_t len);
extern void *gasneti_boot_recv(gex_Rank_t *src, size_t *len, int block);
/* exchange_v for a bootstrap that has only exchange: the lengths, then every rank's
 * bytes padded to the longest (costs nranks * longest bytes on every rank) */
extern void *gasneti_boot_exchange_v_padded(void (*exchange)(const void *, size_t, void *), const void *src,
                                            size_t len, size_t *lens);
/* A queue of arrived out-of-band messages (thread-safe), for bootstraps whose transport
 * delivers them before p2p_recv asks: put copies one in; take is p2p_recv's contract. */
extern void gasneti_boot_msgq_put(gex_Rank_t src, const void *buf, size_t len);
extern void *gasneti_boot_msgq_take(gex_Rank_t *src, size_t *len, int block);

/* ---------------------------------------------------------------------------------
 * Start-up and shut-down
 * --------------------------------------------------------------------------------- */
/* Join (or start) the job: fill gasneti_mynode / gasneti_nodes and return the
 * bootstrap. May fork (smp) or connect to a launcher (udp, ...). argc/argv may be NULL.
 * Errors in the launch (bad GASNET_* values, missing launcher) end the process with a
 * one-line message and non-zero status; nothing is returned to the client. */
extern gasneti_bootstrap_t *gasnetc_bootstrap_init(int *argc, char ***argv);

/* Bring up the network after PSHM is ready: endpoints, address exchange over the
 * bootstrap, connections to non-neighbors. GASNET_OK or a GASNET_ERR_* after printing
 * the network's own reason. */
extern int gasnetc_network_init(gasneti_bootstrap_t *boot);

/* Shut the network down; called once, on every exit path, before the process leaves.
 * Must not block for more than a few milliseconds. */
extern void gasnetc_network_fini(void);

/* ---------------------------------------------------------------------------------
 * Segments reached by RDMA: registration and keys (present when GASNETC_SEGKEY_MAX > 0)
 * ---------------------------------------------------------------------------------
 * GASNETC_SEGKEY_MAX (optional, default 0; gasneti_internal.h): the most bytes of the key
 * blob the conduit gives for one segment of its process, which the core publishes with
 * the segment so that peers' RDMA can reach it. 0: no segment is reached by RDMA and the
 * core calls none of the functions below. Who calls what, when:
 *   gasnetc_segment_register(seg, key)  the core, for every segment of this process
 *     whose memory the network may reach: the primordial one in gex_Segment_Attach (on
 *     every rank, collectively, once it is mapped), and each host-memory segment in
 *     gex_Segment_Create, the library's memory or the client's (a device kind's never).
 *     seg->_addr, _size and _id (0: the primordial one) are set. The conduit registers
 *     [_addr, _addr + _size), may keep its registration in seg->_creg, writes the key
 *     blob (at most GASNETC_SEGKEY_MAX bytes) at key and returns its length; 0: no key
 *     (no RDMA now, or registration refused): peers reach the segment by AMs.
 *   gasnetc_segment_deregister(seg)  the core, in gex_Segment_Destroy, for a segment
 *     whose registration returned a key. Segments alive at exit (the primordial one,
 *     bound ones) the conduit closes itself in gasnetc_network_fini.
 *   The core carries the blob: in gex_Segment_Attach's exchange (every rank's primordial
 *     segment) and in gex_EP_PublishBoundSegment's record (gasneti_segpub_t), next to
 *     the address and size.
 *   gasnetc_segkey_unpack(owner, ep, blob, len)  the core, once per key it receives,
 *     for (owner, ep): owner's endpoint ep's bound segment (owner may be this process
 *     or a neighbour), at attach (ep 0) and at publish; a (owner, ep) pair never gets a
 *     second key (an endpoint binds once and its segment lives while bound). Returns the
 *     conduit's handle (a remote key unpacked once, say), which the core keeps in
 *     gasneti_peerseg_t._rkey for the life of the process (never released: the
 *     process ends with them), or NULL: not reachable by RDMA.
 *   gasnetc_put / gasnetc_get / gasnetc_amo are then called with
 *     that handle, for any endpoint, whenever the target is not a load/store neighbour
 *     and its bound segment has one (gasnet_extended/gasnete_rma.c). */
#if GASNETC_SEGKEY_MAX
extern size_t gasnetc_segment_register(gex_Segment_t seg, void *key);
extern void gasnetc_segment_deregister(gex_Segment_t seg);
extern const void *gasnetc_segkey_unpack(gex_Rank_t owner, gex_EP_Index_t ep, const void *blob, size_t len);
#endif

/* ---------------------------------------------------------------------------------
 * Active Messages to non-neighbors (never called when GASNETC_NBRHD_ONLY)
 * --------------------------------------------------------------------------------- */
/* Send one AM (request or reply, any category; msg->jobrank is the destination).
 * Short: nargs args. Medium: nbytes <= GASNETI_MEDIUM_PIECE(msg) bytes from msg->src,
 * handed to the handler in a buffer aligned for any type. Long: nbytes <=
 * GASNETI_LONG_PIECE(msg) bytes written at msg->dest_addr in the target's segment before
 * the handler runs.
 * msg->frag, when not NULL: 12 bytes the conduit carries with the AM and hands to
 * gasneti_am_deliver in gasneti_am_recv_t.frag (NULL otherwise).
 * Local completion: if lc is NULL, the source may be reused when this returns;
 * otherwise the conduit calls gasneti_counter_done(lc) exactly once when it may be
 * (possibly before returning). The core increments lc before the call.
 * Resources: if none are free, call gasneti_wait_for_room(msg->is_req) until there are
 * (it polls, only replies when msg->is_req is 0 or inside a handler, so a reply can
 * always make progress, and its empty polls back off as gasnet_AMPoll's do); any other
 * waiting loop of the conduit passes what each of its polls found to
 * gasneti_poll_backoff. With GEX_FLAG_IMMEDIATE in msg->flags return
 * GASNETI_AM_WOULD_BLOCK instead, having sent nothing.
 * Returns GASNET_OK or GASNETI_AM_WOULD_BLOCK. Every AM is delivered exactly once. */
extern int gasnetc_am_send(const gasneti_am_msg_t *msg, gasneti_counter_t *lc);

/* Would gasnetc_am_send(msg) have to wait for resources now? Read-only and racy by
 * design (another thread may take what was free): for GEX_FLAG_IMMEDIATE on Prepare
 * calls, which must refuse before the client writes a payload. msg->nbytes may exceed
 * GASNETC_NET_*: the answer is then for the first piece. */
extern int gasnetc_am_would_block(const gasneti_am_msg_t *msg);

/* Make progress: deliver arrived AMs through gasneti_am_deliver, complete sends.
 * Returns the number of messages delivered. Must not block. */
extern int gasnetc_poll(void);

/* ---------------------------------------------------------------------------------
 * Optional: the conduit's lines in the state dump (issue 46; gasneti_watchdog.c).
 * A conduit registers them once, in gasnetc_network_init; both are called from a poll of
 * the thread that prints the dump, holding no lock of the conduit's, and should read its
 * state without taking locks (the numbers may be racy: a dump is a snapshot). Both write
 * text without a newline.
 *   peer(jr, buf, len): about non-neighbor jr: what is outstanding with it (requests sent
 *     and not yet acknowledged, credits held and owed, sends queued, RMA in flight, the
 *     connection's state when not the usual one); returns 1 if anything is (the peer is
 *     then listed), 0 if not (only counted).
 *   lines(line): the conduit's own lines (endpoint or queue-pair state, windows, pools),
 *     one call of line(printf format, ...) each.
 * Credit conduits may use gasneti_credit_diag (gasneti_credit.h) for the credit part. */
typedef struct {
    int (*peer)(gex_Rank_t jr, char *buf, size_t len);
    void (*lines)(void (*line)(const char *fmt, ...));
} gasneti_diag_conduit_t;
extern void gasneti_diag_register(const gasneti_diag_conduit_t *hooks);

/* ---------------------------------------------------------------------------------
 * Optional: negotiated-payload AMs in the conduit's own send memory (issue 29)
 * GASNETC_AM_PREPARE (default 0): 1 if the conduit offers a Prepare with the library's
 * buffer (client_buf NULL) to a non-neighbor a buffer inside its own (registered) send
 * memory, where the message is then built around the payload the client wrote, so the
 * Commit sends without copying it (gasneti_am_prepare.c calls these; ofi, ucx and ibv).
 *   gasnetc_am_prepare(msg, least, most, &size, &h): msg has jobrank, category, is_req,
 *     nargs and flags (not the endpoints nor the handler: given at Commit). Returns
 *     where the client writes its payload (aligned for any type) and sets size (least <=
 *     size <= most) and the handle h, having reserved everything the message needs (so
 *     the Commit never declines); or NULL: not this one (too small to pay, no room with
 *     GEX_FLAG_IMMEDIATE, ...), and the core uses its library buffer as without the hook.
 *     Without GEX_FLAG_IMMEDIATE it may wait for room, as gasnetc_am_send does.
 *   gasnetc_am_commit(msg, &h): send the prepared message; msg is complete (msg->src is
 *     the buffer prepare returned, msg->nbytes <= size). Locally complete on return.
 *   gasnetc_am_cancel(&h): give back what prepare reserved; nothing is sent.
 * --------------------------------------------------------------------------------- */
#ifndef GASNETC_AM_PREPARE
#  define GASNETC_AM_PREPARE 0
#endif
typedef struct {
    intptr_t h; /* the conduit's (a send slot's index, say) */
} gasneti_am_prep_t;
#if GASNETC_AM_PREPARE
extern void *gasnetc_am_prepare(const gasneti_am_msg_t *msg, size_t least, size_t most, size_t *size,
                                gasneti_am_prep_t *h);
extern void gasnetc_am_commit(const gasneti_am_msg_t *msg, gasneti_am_prep_t *h);
extern void gasnetc_am_cancel(gasneti_am_prep_t *h);
/* (core, gasneti_am.c: a Commit's checks, then gasnetc_am_commit) */
extern int gasneti_am_commit_net(gex_TM_t tm, gex_Rank_t rank, gex_Token_t token, gasneti_am_msg_t *m,
                                 gasneti_am_prep_t *h);
#endif

/* ---------------------------------------------------------------------------------
 * Optional native RDMA and atomics, present exactly when their knob is 1.
 * The extended layer chooses between these and the AM reference in one place
 * (gasnet_extended/gasnete_rma.c). Completion is signalled through the counters:
 * gasneti_counter_done(rc) once data is in place remotely (put) or locally (get),
 * gasneti_counter_done(lc) once the put's source may be reused (lc may be NULL,
 * meaning the call returns only when the source may be reused).
 * --------------------------------------------------------------------------------- */
#if GASNETC_NATIVE_PUT || GASNETC_NATIVE_GET
/* 1 once the conduit found at run time that it can do RDMA to every non-neighbor (set
 * collectively in gasnetc_network_init, the same on every rank); 0: the AM reference
 * serves every peer, as if the knobs were 0 (a provider without RDMA, or a knob of the
 * conduit's turned it off), and no segment gets a key. */
extern int gasnetc_rma_native;
#endif
#if (GASNETC_NATIVE_PUT || GASNETC_NATIVE_GET) && !GASNETC_SEGKEY_MAX
#  error "native RMA reaches segments through their keys: GASNETC_SEGKEY_MAX must be > 0"
#endif
/* rkey: the target segment's handle from gasnetc_segkey_unpack (never NULL here); dest
 * or src lies in that segment, in its owner's address space. Each returns 0 (started),
 * 1 (GEX_FLAG_IMMEDIATE and no room now: nothing started), or GASNETC_RMA_BY_AM: nothing
 * started, this operation is to go by the AM reference, as to a segment without a key
 * (the conduit has no native path to this peer yet, and will not wait for one: ibv
 * before a peer's RC queue pair is up). */
#define GASNETC_RMA_BY_AM 2
#if GASNETC_NATIVE_PUT
extern int gasnetc_put(gex_Rank_t jobrank, const void *rkey, void *dest, const void *src, size_t nbytes,
                       gasneti_counter_t *lc, gasneti_counter_t *rc, gex_Flags_t flags);
#endif
#if GASNETC_NATIVE_GET
extern int gasnetc_get(void *dest, gex_Rank_t jobrank, const void *rkey, void *src, size_t nbytes,
                       gasneti_counter_t *rc, gex_Flags_t flags);
#endif
#if GASNETC_NATIVE_AMO
/* 1 if the network can perform every operation of `ops` (GEX_OP_* bits) on `dt` on every
 * segment with a key (gasnetc_segkey_unpack), the caller's own and its neighbors'
 * included (then gasnete_ratomic.c sends every operation of that atomic domain on such a
 * segment through gasnetc_amo, so that all of them are atomic with respect to each
 * other); 0: the domain uses CPU atomics and AMs. Decided from the provider and the conduit's knobs
 * only, so the same on every rank; 0 whenever gasnetc_rma_native is 0. */
extern int gasnetc_amo_domain(gex_DT_t dt, gex_OP_t ops);
/* One operation `op` (a single GEX_OP_* of a domain gasnetc_amo_domain accepted) on the
 * dt at tgt in a segment of jobrank (this process or a neighbor too) whose key is rkey
 * (gasnetc_segkey_unpack's handle: the primordial segment's or a bound one's).
 * operand1/operand2 as in gex_AD_OpNB (read before the call returns); result: where a
 * fetching op's old value goes (NULL for a non-fetching op), valid until completion.
 * gasneti_counter_done(rc) once the operation is performed at the target and the result
 * is in place (the caller incremented rc). Returns 0, or 1 having started nothing when
 * GEX_FLAG_IMMEDIATE is in flags and the network has no room now. */
extern int gasnetc_amo(gex_Rank_t jobrank, const void *rkey, void *tgt, gex_DT_t dt, gex_OP_t op, const void *operand1,
                       const void *operand2, void *result, gasneti_counter_t *rc, gex_Flags_t flags);
#endif

/* ---------------------------------------------------------------------------------
 * Remote completion of puts by a flush (optional; present when GASNETC_RMA_FLUSH is 1)
 * ---------------------------------------------------------------------------------
 * GASNETC_RMA_FLUSH (optional, default 0; requires GASNETC_NATIVE_PUT): 1 if the
 * conduit may finish puts remotely only once asked to (a network whose put completes
 * locally and whose remote completion costs a round trip, UCX's flush). While
 * gasnetc_rma_flush_on is 1 (decided in gasnetc_network_init, the same on every rank),
 * gasnetc_put signals rc when the put is locally complete, as it signals lc; the data
 * is in place at the target only once a gasnetc_rma_flush called after that signal has
 * returned. The core (gasneti_event.c, for gasnete_rma.c's puts) numbers such puts and
 * calls gasnetc_rma_flush lazily, once for everything issued before it, when a client
 * syncs them: an NB put's event (Wait or Test), gex_NBI_Wait/Test with GEX_EC_PUT, the
 * event of an access region with puts, and a normal exit (gasnet_exit or a return from
 * main, before the exit is announced to the other ranks). 1000 NBI puts and one sync
 * cost one flush.
 *   gasnetc_rma_flush(): every put whose rc was signalled before the call is complete at
 *     its target when it returns. Polls while it waits (gasnetc_poll); never called in
 *     a handler; may be called by several threads at once. At a normal exit it gives up
 *     once gasneti_exit_overdue() (a target that never polls holds the exit no longer
 *     than GASNET_EXITTIMEOUT); what it waited for may complete later, so that must not
 *     live on its stack. */
#ifndef GASNETC_RMA_FLUSH
#  define GASNETC_RMA_FLUSH 0
#endif
#if GASNETC_RMA_FLUSH
#  if !GASNETC_NATIVE_PUT
#    error "GASNETC_RMA_FLUSH requires GASNETC_NATIVE_PUT"
#  endif
extern int gasnetc_rma_flush_on;
extern void gasnetc_rma_flush(void);
#endif

#endif
