/* ofi_internal.h: what the parts of ofi-conduit share. Layer: ofi-conduit, internal.
 *   ofi_init.c   provider selection (fi_getinfo), fabric, domain, the endpoint(s),
 *                address vector and completion queue; address exchange over the
 *                bootstrap; shut-down; the one error reporter.
 *   ofi_am.c     Active Messages over fi_send/fi_inject into pre-posted receive buffers;
 *                the completion queue's poll.
 *   ofi_long.c   Longs whose payload goes by fi_write, the header following.
 *   ofi_dgram.c  a datagram endpoint (udp) for the AMs that fit one, to peers without a
 *                connection (the toolkit's reliable-datagram protocol, gasneti_rdgram.h).
 *   ofi_rma.c    native RMA: fi_write/fi_read into every registered segment (one fid_mr
 *                each, the key published by the core); the flush mode; native atomics
 *                (fi_atomic, fi_fetch_atomic, fi_compare_atomic) on the primordial one.
 *   other/gasneti_spawn_*.c  job start (gasnetrun_ofi), bootstrap collectives, exit.
 * Every libfabric call of the conduit after start-up is made holding gasnetc_ofi_lock
 * (PAR and PARSYNC), so the domain is opened with FI_THREAD_DOMAIN. */
#ifndef OFI_INTERNAL_H
#define OFI_INTERNAL_H

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>

#include "gasneti_netkit.h"
#include "gasneti_spawn.h"

extern gasneti_netlock_t gasnetc_ofi_lock;
#define OFI_LOCK() gasneti_netlock(&gasnetc_ofi_lock)
#define OFI_UNLOCK() gasneti_netunlock(&gasnetc_ofi_lock)
#define OFI_TRYLOCK() gasneti_nettrylock(&gasnetc_ofi_lock)

/* Requests and replies have separate receive buffers (a flood of requests never takes
 * the buffers replies need): channel 0 carries requests, channel 1 replies (and credit
 * messages). Where the provider has FI_TAGGED (gasnetc_ofi_tagged), both channels are one
 * endpoint: requests are untagged messages, replies tagged with GASNETC_OFI_TAG_REPLY, and
 * each kind has its own posted receives (untagged receives never match tagged messages).
 * Otherwise each channel is an endpoint of its own. One endpoint is one connection per
 * pair of processes on connection-based providers (tcp;ofi_rxm), where a reply then also
 * acknowledges its request, and one fewer endpoint to progress in every poll: the AM
 * round trip on tcp;ofi_rxm went from about 31 to 22 us (docs/ofi-conduit.md).
 * Channel ch of rank r is gasnetc_ofi_ep[ch] here and GASNETC_OFI_PEER(r, ch) in the AV. */
enum { GASNETC_CH_REQ = 0, GASNETC_CH_REP = 1 };
#define GASNETC_OFI_TAG_REPLY 1
extern struct fi_info *gasnetc_ofi_info;
extern struct fid_domain *gasnetc_ofi_domain;
extern struct fid_ep *gasnetc_ofi_ep[2]; /* the same endpoint twice with gasnetc_ofi_tagged */
extern struct fid_cq *gasnetc_ofi_cq;    /* every endpoint's sends and receives */
extern fi_addr_t *gasnetc_ofi_addr;      /* [2 * gasneti_nodes] */
#define GASNETC_OFI_PEER(rank, ch) gasnetc_ofi_addr[2 * (size_t)(rank) + (ch)]
extern int gasnetc_ofi_tagged; /* one endpoint, replies tagged (GASNET_OFI_TAGGED=0: two endpoints) */
/* The provider's progress is manual because we asked for it (its default is automatic:
 * sockets). Each AM sent is then pushed on by one progress call, so that it leaves
 * although the sender may not poll again for a while, as it would have with the
 * provider's own thread (ofi_am.c). */
extern int gasnetc_ofi_push;
/* native atomics wanted (once RMA is native and the provider has FI_ATOMIC):
 * GASNET_OFI_ATOMICS, by default yes except on ofi_rxd (ofi_init.c) */
extern int gasnetc_ofi_atomics_wanted(void);
/* native RMA wanted (once the provider has FI_RMA): GASNET_OFI_RMA, by default yes except
 * on ofi_rxd (ofi_init.c) */
extern int gasnetc_ofi_rma_wanted(void);
extern size_t gasnetc_ofi_inject_size; /* fi_inject up to this many bytes */
extern int gasnetc_ofi_multi_recv;     /* FI_MULTI_RECV buffers, else one message per buffer */
extern int gasnetc_ofi_up;             /* endpoints enabled (some peer is not a neighbor) */
/* Local buffers of transfers need a registration (FI_MR_LOCAL: the provider requires it,
 * or GASNET_OFI_MR_LOCAL=1, which exercises the path on providers that do not) */
extern int gasnetc_ofi_mr_local;
/* GASNET_VERBOSEENV on rank 0: what the conduit did is reported at exit */
extern int gasnetc_ofi_verbose;
/* register [buf, buf+len) for local use by send, receive, RMA and atomics (what: for the
 * error report); fi_close it when done */
extern struct fid_mr *gasnetc_ofi_reg_local(void *buf, size_t len, const char *what);
/* the same, the error returned (0: done) rather than fatal */
extern int gasnetc_ofi_try_reg_local(void *buf, size_t len, struct fid_mr **m);

/* A libfabric call failed: gasneti_peer_fail with fi_strerror's text and the provider
 * (peer < 0: none); ends the job. */
GASNETI_NORETURN GASNETI_COLD extern void gasnetc_ofi_fail(const char *call, ssize_t rc, long peer);

/* [p, p+n) lies within [base, base+size) (no overflow) */
static inline int gasnetc_ofi_in_range(uint64_t base, uint64_t size, const void *p, size_t n) {
    uint64_t b = (uint64_t)(uintptr_t)p;
    return b >= base && b - base <= size && n <= size - (b - base);
}

/* ofi_am.c: post the receive buffers (endpoints enabled); drain, close the endpoints and
 * the completion queue at the end (0: not done, another thread holds the lock) */
extern void gasnetc_ofi_am_init(void);
extern int gasnetc_ofi_am_fini(void);
/* ofi_am.c: how many Mediums this process sent from a slot its Prepare handed out; how
 * far its receive buffers and send slots grew (stderr) */
extern void gasnetc_ofi_am_say_prepared(void);
extern void gasnetc_ofi_am_say_pools(void);
/* ofi_rma.c: the RMA settings (native or not, flush mode; from gasnetc_network_init), a
 * completion of an fi_write/fi_read (lock held), the peer of one (error reports), what
 * native RMA did (GASNET_VERBOSEENV: stderr), and closing the registrations */
extern void gasnetc_ofi_rma_init(void);
extern void gasnetc_ofi_rma_done(void *context);
extern long gasnetc_ofi_rma_peer(void *context);
extern void gasnetc_ofi_rma_say(void);
extern void gasnetc_ofi_rma_fini(void);
/* ofi_rma.c, FI_MR_LOCAL: how many registrations for one transfer this process made, and
 * how many it still holds (stderr) */
extern void gasnetc_ofi_rma_say_regs(void);
/* ---- Long payloads by fi_write: the protocol is ofi_long.c's (see there) ---- */
typedef struct gasnetc_ofi_long_s gasnetc_ofi_long_t; /* one such Long in flight */
#define GASNETC_OFI_HDR_MAX 128 /* the largest message of a Long without its payload (ofi_am.c) */
/* ofi_long.c: its settings (after gasnetc_ofi_rma_init); does Long m go that way (big
 * enough, into the target's registered segment)? send it so (gasnetc_am_send's result);
 * a piece of its write completed (lock held); send what waits (lock held, while
 * gasnetc_ofi_long_queued); how many Longs went each way (stderr; the inline ones counted
 * by ofi_am.c when gasnetc_ofi_verbose) */
extern void gasnetc_ofi_long_init(void);
extern int gasnetc_ofi_long_by_write(const gasneti_am_msg_t *m);
extern int gasnetc_ofi_long_send(const gasneti_am_msg_t *m, gasneti_counter_t *lc);
extern void gasnetc_ofi_long_written(gasnetc_ofi_long_t *w);
extern void gasnetc_ofi_long_send_queued(void);
extern int gasnetc_ofi_long_queued;
extern size_t gasnetc_ofi_longs_inline;
extern void gasnetc_ofi_long_say(void);
/* ofi_am.c, for ofi_long.c: take a request credit for m (0, or GASNETI_AM_WOULD_BLOCK with
 * GEX_FLAG_IMMEDIATE and none free), give one back; build m's message without its
 * payload, flagged GASNETI_WIRE_ELSEWHERE (its length, at most GASNETC_OFI_HDR_MAX);
 * send a built message (lock held; -FI_EAGAIN: no room now) */
extern int gasnetc_ofi_am_credit(const gasneti_am_msg_t *m);
extern void gasnetc_ofi_am_uncredit(gex_Rank_t r);
extern uint32_t gasnetc_ofi_am_build_written(void *buf, const gasneti_am_msg_t *m);
extern ssize_t gasnetc_ofi_am_send_built(int is_req, gex_Rank_t dest, void *msg, uint32_t len);
/* ofi_rma.c, for ofi_long.c: write a Long's payload in gasnetc_ofi_rma_npieces(nbytes)
 * pieces, each one's completion calling gasnetc_ofi_long_written(wl); 1 if refused for
 * GEX_FLAG_IMMEDIATE, nothing written */
extern size_t gasnetc_ofi_rma_npieces(size_t nbytes);
extern int gasnetc_ofi_rma_write_long(gex_Rank_t jr, const void *rkey, const void *src, void *dest, size_t nbytes,
                                      gasnetc_ofi_long_t *wl, gex_Flags_t flags);

/* ---- datagrams for AMs to peers without a connection: ofi_dgram.c (see there) ---- */
extern int gasnetc_ofi_dg_on;        /* the datagram endpoint is in use */
extern uint32_t gasnetc_ofi_dg_max;  /* the largest message (prefix and AM) one carries */
extern uint8_t *gasnetc_ofi_dg_conn; /* [gasneti_nodes] (with dg_on): 1 once r is reached by the RDM endpoint */
extern int gasnetc_ofi_dg_follow;    /* traffic by the RDM endpoint marks the peer (not with SWITCH=never) */
/* r has a connection now (traffic by the RDM endpoint, either way): everything to it goes that way */
GASNETI_ALWAYS_INLINE void gasnetc_ofi_dg_mark(gex_Rank_t r) { /* (with or without the lock: a flag set once) */
    if (gasnetc_ofi_dg_on && gasnetc_ofi_dg_follow && !__atomic_load_n(&gasnetc_ofi_dg_conn[r], __ATOMIC_RELAXED))
        __atomic_store_n(&gasnetc_ofi_dg_conn[r], 1, __ATOMIC_RELAXED);
}
/* Polls read the datagrams' completion queue (a system call on udp) each time while
 * datagrams are in flight or arrived in the last HOT_POLLS (gasnetc_ofi_dg_hot > 0), else
 * one poll in GASNETC_OFI_DG_IDLE_EVERY: a busy peer over the RDM endpoint pays little
 * for them, a datagram to an idle process waits a few polls at most. */
extern int gasnetc_ofi_dg_hot;
#define GASNETC_OFI_DG_IDLE_EVERY 32
/* AMs to r go as datagrams when they fit */
GASNETI_ALWAYS_INLINE int gasnetc_ofi_dg_to(gex_Rank_t r) {
    return gasnetc_ofi_dg_on && !__atomic_load_n(&gasnetc_ofi_dg_conn[r], __ATOMIC_RELAXED);
}
typedef struct { /* a datagram's AM to deliver (gasnetc_ofi_dg_poll) */
    const uint8_t *msg;
    size_t len;
    int is_req, idx;
} gasnetc_ofi_dgmsg_t;
/* start-up (after the RDM endpoint's, every rank: an exchange) and shut-down; the provider
 * line and the counts (GASNET_VERBOSEENV) */
extern void gasnetc_ofi_dg_init(gasneti_bootstrap_t *boot);
extern void gasnetc_ofi_dg_fini(void);
extern void gasnetc_ofi_dg_say_provider(void);
extern void gasnetc_ofi_dg_say(void);
/* lock held: room for a datagram to r (window and slot); racy look (would_block) */
extern int gasnetc_ofi_dg_room(gex_Rank_t r);
extern int gasnetc_ofi_dg_peek(gex_Rank_t r);
/* lock held, room said yes: a send slot (*slot) with room for a message of len bytes,
 * where it is built; send it (len bytes) to r, numbered and kept until acknowledged */
extern uint8_t *gasnetc_ofi_dg_slot(int *slot, uint32_t len);
extern void gasnetc_ofi_dg_send(gex_Rank_t r, int slot, uint32_t len);
/* lock held: datagrams arrived, up to max AMs to deliver into out (the others handled);
 * acknowledgements and resends; a delivered one's buffer back (gasnetc_ofi_dg_release) */
extern int gasnetc_ofi_dg_poll(gasnetc_ofi_dgmsg_t *out, int max);
extern void gasnetc_ofi_dg_release(int idx);
/* lock held, at shut-down: nothing unacknowledged; read acknowledgements, resend */
extern int gasnetc_ofi_dg_idle(void);
extern void gasnetc_ofi_dg_drain(void);

#endif
