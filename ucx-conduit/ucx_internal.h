/* ucx_internal.h: what the parts of ucx-conduit share. Layer: ucx-conduit, internal.
 *   ucx_init.c   the UCP context and worker, the exchange of worker addresses over the
 *                bootstrap, one endpoint per rank, endpoint errors, shut-down, the
 *                operation pool and the one error reporter.
 *   ucx_am.c     Active Messages over ucp_am_send_nbx / the worker's AM handlers; the poll.
 *   ucx_rma.c    segments (ucp_mem_map, packed rkeys), ucp_put_nbx / ucp_get_nbx, the flush.
 *   ucx_amo.c    remote atomics by ucp_atomic_op_nbx.
 *   other/gasneti_spawn_*.c  job start (gasnetrun_ucx), bootstrap collectives, exit.
 * Threads: every UCX call of the conduit after start-up is made holding gasnetc_ucx_lock
 * (PAR and PARSYNC; nothing in SEQ), so the worker is created UCS_THREAD_MODE_SERIALIZED
 * there (SINGLE in SEQ): UCX's own multi-thread mode would add a lock of its own to every
 * call we already serialize. UCX runs our callbacks (AM arrivals, completions, endpoint
 * errors) only inside ucp_worker_progress, which we call with the lock held; they record
 * and never run a handler. */
#ifndef UCX_INTERNAL_H
#define UCX_INTERNAL_H

#include <ucp/api/ucp.h>

#include "gasneti_netkit.h"
#include "gasneti_spawn.h"

extern gasneti_netlock_t gasnetc_ucx_lock;
#define UCX_LOCK() gasneti_netlock(&gasnetc_ucx_lock)
#define UCX_UNLOCK() gasneti_netunlock(&gasnetc_ucx_lock)
#define UCX_TRYLOCK() gasneti_nettrylock(&gasnetc_ucx_lock)

extern ucp_context_h gasnetc_ucx_ctx;
extern ucp_worker_h gasnetc_ucx_worker;
extern ucp_ep_h *gasnetc_ucx_ep;         /* [gasneti_nodes]: every rank's, this one's and neighbors' included */
extern int gasnetc_ucx_up;               /* the network is up (some peer is not a neighbor) */
extern int gasnetc_ucx_verbose;          /* GASNET_VERBOSEENV on rank 0: what the conduit did, at exit */
extern size_t gasnetc_ucx_max_am_header; /* the worker's (UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER) */

/* A UCX call about peer (GEX_RANK_INVALID: none) failed with st: gasneti_peer_fail with
 * ucs_status_string's text; ends the job. An error of a connection (the peer died, or
 * its endpoint failed) first gives the launcher a moment to end the job itself (it names
 * a killed rank in one line, and ends the others quietly): only if it does not is the
 * UCX error reported. While the process is exiting, errors of connections are ignored
 * (gasnetc_ucx_fail is not called for them: gasnetc_ucx_ignorable). */
GASNETI_NORETURN GASNETI_COLD extern void gasnetc_ucx_fail(const char *call, ucs_status_t st, gex_Rank_t peer);
/* a failed completion we may let pass: the process is exiting or shutting the network
 * down (its peers go away), or the operation was cancelled */
extern int gasnetc_ucx_ignorable(ucs_status_t st);
/* the result of a UCX call returning a request or a status (lock held): 0 completed,
 * 1 pending (a request, its callback will run), or fatal */
static inline int gasnetc_ucx_started(ucs_status_ptr_t p, const char *call, gex_Rank_t peer) {
    if (p == NULL) return 0;
    if (GASNETI_UNLIKELY(UCS_PTR_IS_ERR(p))) {
        if (gasnetc_ucx_ignorable(UCS_PTR_STATUS(p))) return 0;
        gasnetc_ucx_fail(call, UCS_PTR_STATUS(p), peer);
    }
    return 1;
}
/* ucp_worker_progress, counted: a fatal error raised inside one of our callbacks must
 * not tear the worker down under UCX's feet (gasnetc_network_fini looks) */
extern int gasnetc_ucx_progressing;
static inline unsigned gasnetc_ucx_progress(void) {
    gasnetc_ucx_progressing++;
    unsigned n = ucp_worker_progress(gasnetc_ucx_worker);
    gasnetc_ucx_progressing--;
    return n;
}
/* endpoint errors the callback recorded (ucx_init.c), reported from the poll */
extern volatile int gasnetc_ucx_ep_failed;
extern void gasnetc_ucx_report_ep_failure(void) GASNETI_COLD;

/* ---- operations in flight: what a completion callback must do (ucx_init.c's pool;
 * lock held for get/put and in the callback). Given to UCX as the request's user_data. */
typedef struct gasnetc_ucx_op_s {
    struct gasnetc_ucx_op_s *next;
    gasneti_counter_t *lc, *rc; /* signalled at completion (NULL: none) */
    const char *call;           /* for the error report */
    gex_Rank_t peer;
    int slot;     /* an AM's send slot to give back (ucx_am.c), or -1 */
    void *result; /* atomics: where the fetched value goes, size bytes */
    uint32_t size;
    uint64_t operand, bounce; /* atomics: the operand; the reply buffer (CAS's new value in, old out) */
    uint64_t hdr[16];         /* an AM's header sent with its payload apart (ucx_am.c) */
} gasnetc_ucx_op_t;
extern gasnetc_ucx_op_t *gasnetc_ucx_op_get(gex_Rank_t peer, const char *call);
extern void gasnetc_ucx_op_put(gasnetc_ucx_op_t *o);
/* the completion callback of every send-like operation given an op as user_data:
 * result copied, counters signalled, slot given back (ucx_am.c), request freed */
extern void gasnetc_ucx_op_done(void *request, ucs_status_t st, void *user_data);
/* the same work for an operation that completed at once (no request) */
extern void gasnetc_ucx_op_complete(gasnetc_ucx_op_t *o);
/* request parameters for an op: its callback, user data and flags */
static inline void gasnetc_ucx_op_param(ucp_request_param_t *p, gasnetc_ucx_op_t *o) {
    p->op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
    p->cb.send = gasnetc_ucx_op_done;
    p->user_data = o;
}

/* ucx_am.c: handlers, slots, credits (before the barrier that lets peers send); what
 * the AMs did (stderr); shut-down of the AM state (the lock held); a send slot's end */
extern void gasnetc_ucx_am_init(void);
extern void gasnetc_ucx_am_say(void);
extern void gasnetc_ucx_am_fini(void);
extern void gasnetc_ucx_slot_done(int slot);
/* ucx_rma.c: the RMA settings (from gasnetc_network_init), what native RMA did (stderr),
 * at shut-down (lock held) the unpacked rkeys (before the endpoints close) and the
 * mappings of segments still alive (before the worker goes) */
extern void gasnetc_ucx_rma_init(void);
extern void gasnetc_ucx_rma_say(void);
extern void gasnetc_ucx_rma_fini_rkeys(void);
extern void gasnetc_ucx_rma_fini(void);
/* native atomics wanted: GASNET_UCX_ATOMICS (default yes) with native RMA */
extern int gasnetc_ucx_atomics_wanted(void);
/* ucx_amo.c: what native atomics did (stderr) */
extern void gasnetc_ucx_amo_say(void);

/* a packed-rkey peer segment, unpacked (gasnetc_segkey_unpack): the core's _rkey */
typedef struct gasnetc_ucx_rkey_s {
    ucp_rkey_h rkey;
    gex_EP_Index_t ep;
    struct gasnetc_ucx_rkey_s *next; /* every one unpacked, destroyed at shut-down */
} gasnetc_ucx_rkey_t;

#endif
