/* ucx_init.c: ucx-conduit's network start-up and shut-down: the UCP context (features
 * AM, RMA, 32- and 64-bit atomics, UCX_* variables read by ucp_config_read) and the one
 * worker, the exchange of worker addresses over the bootstrap (variable length), one
 * endpoint per rank, endpoint errors, the pool of operations in flight, and the one place
 * that reports a failed UCX call. Layer: ucx-conduit (the network half of
 * conduit_contract.h: init; AMs are ucx_am.c, job start the shared spawner in other/).
 *
 * Endpoints: created at start-up for every rank, from the addresses the bootstrap's
 * exchange_v brought (UCX then wires each up on its first use). Non-neighbors carry AMs
 * and RMA; this process's own and its neighbors' carry only atomics (a native atomic
 * domain sends every operation through UCX, ucx_amo.c) and unpack their rkeys. Creating
 * one costs a few hundred bytes and no message until used; an endpoint made lazily at the
 * first contact would save that for peers never reached, at the cost of a test on every
 * send: not done yet (docs/ucx-conduit.md).
 * Errors: endpoints to other hosts use UCP_ERR_HANDLING_MODE_PEER, so that a peer that
 * dies fails our operations to it and calls ep_error (from ucp_worker_progress) rather
 * than hanging or aborting inside UCX; the poll then reports it, naming the rank, its
 * host and UCX's status (gasnetc_ucx_fail). Endpoints to this host's processes (PSHM off
 * or a neighborhood smaller than the host) use UCP_ERR_HANDLING_MODE_NONE: UCX's shared-
 * memory transports refuse the peer mode (UCX 1.13 then picks tcp over loopback, 20x
 * slower), and a process of this host that dies is reported by the launcher, which ends
 * the job (its spawner watches every local process). */
#include "conduit_contract.h"
#include "ucx_internal.h"

#include <string.h>
#include <time.h>
#if __has_include(<ucs/debug/log_def.h>)
#    include <ucs/debug/log_def.h> /* to keep a refused endpoint mode quiet (connect_all) */
#    define HAVE_UCS_LOG_HANDLER 1
#else
#    define HAVE_UCS_LOG_HANDLER 0
#endif

gasneti_netlock_t gasnetc_ucx_lock = GASNETI_NETLOCK_INIT;
ucp_context_h gasnetc_ucx_ctx;
ucp_worker_h gasnetc_ucx_worker;
ucp_ep_h *gasnetc_ucx_ep;
int gasnetc_ucx_up;
int gasnetc_ucx_verbose;
size_t gasnetc_ucx_max_am_header;
volatile int gasnetc_ucx_ep_failed;
int gasnetc_ucx_progressing;

static int shutting_down;      /* gasnetc_network_fini has begun */
static int err_mode_none;      /* endpoints without peer-failure handling: 1 UCX refused it, 2 GASNET_UCX_PEER_FAILURE=0 */
static gex_Rank_t n_mode_none; /* how many UCX refused it (their transports cannot tell) */
static gex_Rank_t n_same_host; /* endpoints to this host's ranks (no peer-failure mode: connect_all) */
static gex_Rank_t failed_rank; /* the first endpoint error (ep_error) */
static ucs_status_t failed_status;
static gasnetc_ucx_op_t *free_ops; /* (lock held) */

/* ---------------------------------------------------------------------------------
 * Errors
 * --------------------------------------------------------------------------------- */
int gasnetc_ucx_ignorable(ucs_status_t st) {
    return st == UCS_ERR_CANCELED || gasneti_exiting || __atomic_load_n(&shutting_down, __ATOMIC_RELAXED);
}

/* an error of a connection rather than of our call */
static int connection_error(ucs_status_t st) {
    return st == UCS_ERR_CONNECTION_RESET || st == UCS_ERR_NOT_CONNECTED || st == UCS_ERR_UNREACHABLE ||
           st == UCS_ERR_IO_ERROR || st == UCS_ERR_TIMED_OUT || UCS_IS_LINK_ERROR(st) || UCS_IS_ENDPOINT_ERROR(st);
}

void gasnetc_ucx_fail(const char *call, ucs_status_t st, gex_Rank_t peer) {
    if (connection_error(st) && peer != GEX_RANK_INVALID) {
        /* the peer may have died or ended the job: its launcher reports that in one line
         * and asks this process to leave (SIGQUIT ends it inside this wait); only a
         * connection lost otherwise is ours to report */
        for (int i = 0; i < 300 && !gasneti_exiting; i++)
            gasneti_sleep_ns(10 * 1000 * 1000);
    }
    char why[160];
    snprintf(why, sizeof(why), "%s (UCX status %d)", ucs_status_string(st), (int)st);
    gasneti_peer_fail(call, why, peer);
}

/* from ucp_worker_progress (lock held): a peer's endpoint failed; the poll reports it */
static void ep_error(void *arg, ucp_ep_h ep, ucs_status_t st) {
    (void)ep;
    if (gasnetc_ucx_ignorable(st) || gasnetc_ucx_ep_failed) return;
    failed_rank = (gex_Rank_t)(uintptr_t)arg;
    failed_status = st;
    gasnetc_ucx_ep_failed = 1;
}

void gasnetc_ucx_report_ep_failure(void) {
    if (gasnetc_ucx_ignorable(failed_status)) return;
    gasnetc_ucx_fail("the connection (UCX endpoint)", failed_status, failed_rank);
}

/* ---------------------------------------------------------------------------------
 * Operations in flight
 * --------------------------------------------------------------------------------- */
gasnetc_ucx_op_t *gasnetc_ucx_op_get(gex_Rank_t peer, const char *call) {
    gasnetc_ucx_op_t *o = free_ops;
    if (o)
        free_ops = o->next;
    else if (!(o = malloc(sizeof(*o))))
        gasneti_fatalerror("ucx-conduit: out of memory for an operation");
    o->lc = o->rc = NULL;
    o->call = call;
    o->peer = peer;
    o->slot = -1;
    o->result = NULL;
    return o;
}

void gasnetc_ucx_op_put(gasnetc_ucx_op_t *o) {
    o->next = free_ops;
    free_ops = o;
}

void gasnetc_ucx_op_complete(gasnetc_ucx_op_t *o) {
    if (o->result) memcpy(o->result, &o->bounce, o->size);
    if (o->lc) gasneti_counter_done(o->lc);
    if (o->rc) gasneti_counter_done(o->rc);
    if (o->slot >= 0) gasnetc_ucx_slot_done(o->slot);
    gasnetc_ucx_op_put(o);
}

void gasnetc_ucx_op_done(void *request, ucs_status_t st, void *user_data) {
    gasnetc_ucx_op_t *o = user_data;
    if (GASNETI_UNLIKELY(st != UCS_OK) && !gasnetc_ucx_ignorable(st)) gasnetc_ucx_fail(o->call, st, o->peer);
    gasnetc_ucx_op_complete(o);
    ucp_request_free(request);
}

/* ---------------------------------------------------------------------------------
 * Start-up
 * --------------------------------------------------------------------------------- */
int gasnetc_ucx_atomics_wanted(void) {
    return gasneti_getenv_yesno("GASNET_UCX_RMA", 1) && gasneti_getenv_yesno("GASNET_UCX_ATOMICS", 1);
}

static void open_context(void) {
    ucp_config_t *cfg;
    ucs_status_t st = ucp_config_read(NULL, NULL, &cfg); /* UCX_* from the environment */
    if (st != UCS_OK) gasnetc_ucx_fail("ucp_config_read (a UCX_* variable?)", st, GEX_RANK_INVALID);
    ucp_params_t p;
    memset(&p, 0, sizeof(p));
    p.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS | UCP_PARAM_FIELD_ESTIMATED_NUM_PPN |
                   UCP_PARAM_FIELD_NAME;
    p.features = UCP_FEATURE_AM;
    if (gasneti_getenv_yesno("GASNET_UCX_RMA", 1)) p.features |= UCP_FEATURE_RMA;
    if (gasnetc_ucx_atomics_wanted()) p.features |= UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64;
    p.estimated_num_eps = gasneti_nodes;
    p.estimated_num_ppn = gasneti_nbrhd_size;
    p.name = "gasnet-ucx";
    st = ucp_init(&p, cfg, &gasnetc_ucx_ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK) gasnetc_ucx_fail("ucp_init (UCX_TLS, UCX_NET_DEVICES?)", st, GEX_RANK_INVALID);
}

static void open_worker(void) {
    ucp_worker_params_t wp;
    memset(&wp, 0, sizeof(wp));
    wp.field_mask =
        UCP_WORKER_PARAM_FIELD_THREAD_MODE | UCP_WORKER_PARAM_FIELD_AM_ALIGNMENT | UCP_WORKER_PARAM_FIELD_FLAGS;
    wp.thread_mode = GASNETI_LOCKS ? UCS_THREAD_MODE_SERIALIZED : UCS_THREAD_MODE_SINGLE;
    wp.am_alignment = 16;                           /* a Medium's payload is at a 16-byte offset in the message */
    wp.flags = UCP_WORKER_FLAG_IGNORE_REQUEST_LEAK; /* at exit: what peers never completed */
    ucs_status_t st = ucp_worker_create(gasnetc_ucx_ctx, &wp, &gasnetc_ucx_worker);
    if (st != UCS_OK) gasnetc_ucx_fail("ucp_worker_create", st, GEX_RANK_INVALID);
    ucp_worker_attr_t wa;
    memset(&wa, 0, sizeof(wa));
    wa.field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER;
    st = ucp_worker_query(gasnetc_ucx_worker, &wa);
    if (st != UCS_OK) gasnetc_ucx_fail("ucp_worker_query", st, GEX_RANK_INVALID);
    gasnetc_ucx_max_am_header = wa.max_am_header;
}

static ucs_status_t create_ep(gex_Rank_t r, const void *addr, int mode) {
    ucp_ep_params_t ep;
    memset(&ep, 0, sizeof(ep));
    ep.field_mask =
        UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
    ep.address = addr;
    ep.err_mode = mode;
    ep.err_handler.cb = ep_error;
    ep.err_handler.arg = (void *)(uintptr_t)r;
    return ucp_ep_create(gasnetc_ucx_worker, &ep, &gasnetc_ucx_ep[r]);
}

#if HAVE_UCS_LOG_HANDLER
/* UCX's log while we ask for an endpoint mode it may refuse: its error messages are ours to
 * report (or not: we fall back), the rest goes on to UCX's own handler */
static ucs_log_func_rc_t quiet_errors(const char *file, unsigned line, const char *function, ucs_log_level_t level,
                                      const ucs_log_component_config_t *conf, const char *message, va_list ap) {
    (void)file, (void)line, (void)function, (void)conf, (void)message, (void)ap;
    return level <= UCS_LOG_LEVEL_ERROR ? UCS_LOG_FUNC_RC_STOP : UCS_LOG_FUNC_RC_CONTINUE;
}
#endif

/* an endpoint with UCP_ERR_HANDLING_MODE_PEER, else (transports without it: UCX_TLS=sm,
 * say) without error handling (each peer's transports decide for it) */
static ucs_status_t create_ep_peer_or_none(gex_Rank_t r, const void *addr) {
    if (err_mode_none == 2) return create_ep(r, addr, UCP_ERR_HANDLING_MODE_NONE);
#if HAVE_UCS_LOG_HANDLER
    ucs_log_push_handler(quiet_errors);
#endif
    ucs_status_t st = create_ep(r, addr, UCP_ERR_HANDLING_MODE_PEER);
#if HAVE_UCS_LOG_HANDLER
    ucs_log_pop_handler();
#endif
    if (st != UCS_ERR_UNSUPPORTED && st != UCS_ERR_UNREACHABLE) return st;
    err_mode_none = 1;
    n_mode_none++;
    return create_ep(r, addr, UCP_ERR_HANDLING_MODE_NONE);
}

/* r runs on this host (gasneti_host_ranks: this host's ranks, ascending) */
static int same_host(gex_Rank_t r) {
    for (gex_Rank_t i = 0; i < gasneti_host_size; i++)
        if (gasneti_host_ranks[i] == r) return 1;
    return 0;
}

/* every rank's worker address, over the bootstrap, and an endpoint to each */
static void connect_all(void) {
    if (!gasneti_getenv_yesno("GASNET_UCX_PEER_FAILURE", 1)) err_mode_none = 2;
    ucp_address_t *mine;
    size_t mylen;
    ucs_status_t st = ucp_worker_get_address(gasnetc_ucx_worker, &mine, &mylen);
    if (st != UCS_OK) gasnetc_ucx_fail("ucp_worker_get_address", st, GEX_RANK_INVALID);
    size_t *lens = malloc(gasneti_nodes * sizeof(size_t));
    gasnetc_ucx_ep = calloc(gasneti_nodes, sizeof(ucp_ep_h));
    if (!lens || !gasnetc_ucx_ep)
        gasneti_fatalerror("ucx-conduit: out of memory for %u peers", (unsigned)gasneti_nodes);
    uint8_t *all = gasneti_boot_exchange_v(mine, mylen, lens);
    ucp_worker_release_address(gasnetc_ucx_worker, mine);
    size_t off = 0;
    for (gex_Rank_t r = 0; r < gasneti_nodes; off += lens[r++]) {
        if (!lens[r])
            gasneti_fatalerror("ucx-conduit: rank %u (host %s) published no worker address", (unsigned)r,
                               gasneti_host_name(r));
        if (same_host(r)) { /* UCX's shared memory, or self */
            st = create_ep(r, all + off, UCP_ERR_HANDLING_MODE_NONE);
            n_same_host++;
        } else {
            st = create_ep_peer_or_none(r, all + off);
        }
        if (st != UCS_OK) gasnetc_ucx_fail("ucp_ep_create", st, r);
    }
    free(all);
    free(lens);
}

/* GASNET_VERBOSEENV (rank 0): the transports of the endpoint to the first peer that is
 * not a neighbor, one line, from ucp_ep_print_info's lanes ("lane[0]: 2:tcp/lo.0 ... am")
 * with the roles of each */
static void say_transports(void) {
    gex_Rank_t peer = GEX_RANK_INVALID;
    for (gex_Rank_t r = 0; r < gasneti_nodes && peer == GEX_RANK_INVALID; r++)
        if (gasneti_nbrhd_index[r] < 0) peer = r;
    char *info = NULL, line[1024] = "";
    size_t n = 0, used = 0;
    FILE *f = open_memstream(&info, &n);
    if (f && peer != GEX_RANK_INVALID) {
        ucp_ep_print_info(gasnetc_ucx_ep[peer], f);
        fclose(f);
        for (char *save = NULL, *l = strtok_r(info, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
            char *lane = strstr(l, "lane[");
            if (!lane) continue;
            char *tl = strchr(lane, ':'), *end;
            if (!tl) continue;
            for (tl++; *tl == ' '; tl++) {
            }
            if ((end = strchr(tl, ':')) && end - tl < 4) tl = end + 1; /* "2:tcp/lo.0": the resource's index */
            char *arrow = strstr(tl, "->"), *roles = arrow ? strchr(arrow, ' ') : NULL;
            if (roles) roles = strchr(roles + 1, ' ');
            size_t tlen = strcspn(tl, " ");
            used += (size_t)snprintf(line + used, used < sizeof(line) ? sizeof(line) - used : 0, "%s%.*s (%s)",
                                     used ? ", " : "", (int)tlen, tl, roles ? roles + 1 : "?");
            if (used >= sizeof(line)) break;
        }
    } else if (f) {
        fclose(f);
    }
    free(info);
    const char *tls = getenv("UCX_TLS");
    char errs[128];
    if (err_mode_none == 2) snprintf(errs, sizeof(errs), "no peer-failure handling (GASNET_UCX_PEER_FAILURE=0)");
    else if (n_mode_none)
        snprintf(errs, sizeof(errs), "no peer-failure handling to %u of %u ranks (UCX refused it for their transports)",
                 (unsigned)n_mode_none, (unsigned)gasneti_nodes);
    else if (n_same_host == gasneti_nodes)
        snprintf(errs, sizeof(errs), "every rank on this host: no peer-failure handling (the launcher reports one)");
    else snprintf(errs, sizeof(errs), "peer failures reported (UCP_ERR_HANDLING_MODE_PEER) but by this host's %u ranks",
                  (unsigned)n_same_host);
    fprintf(stderr,
            "ucx-conduit: UCX %s, UCX_TLS=%s; endpoint to rank %u: %s; %s worker, %s; AM header up to %zu "
            "bytes\n",
            ucp_get_version_string(), tls ? tls : "(unset: UCX's choice)", (unsigned)peer,
            line[0] ? line : "(no lanes reported)", GASNETI_LOCKS ? "serialized (our lock)" : "single-thread", errs,
            gasnetc_ucx_max_am_header);
}

int gasnetc_network_init(gasneti_bootstrap_t *boot) {
    if (gasneti_nbrhd_size == gasneti_nodes) return GASNET_OK; /* every peer a neighbor: PSHM only */
    gasnetc_ucx_verbose = gasneti_mynode == 0 && gasneti_getenv_yesno("GASNET_VERBOSEENV", 0);
    open_context();
    open_worker();
    gasnetc_ucx_am_init(); /* the AM handlers, before any peer may send */
    connect_all();
    gasnetc_ucx_rma_init();
    if (gasnetc_ucx_verbose) say_transports();
    __atomic_store_n(&gasnetc_ucx_up, 1, __ATOMIC_RELEASE);
    boot->barrier(); /* every rank's handlers are set before anyone sends */
    return GASNET_OK;
}

/* ---------------------------------------------------------------------------------
 * Shut-down: called on every exit path, possibly with the lock held by a thread that
 * will never release it (a fatal error): then nothing is closed, the process leaves
 * anyway. Endpoints are closed without waiting for peers (UCP_EP_CLOSE_FLAG_FORCE; peers
 * are exiting too, or the job is ending), so this takes no network round trip.
 * --------------------------------------------------------------------------------- */
void gasnetc_network_fini(void) {
    if (!__atomic_load_n(&gasnetc_ucx_up, __ATOMIC_ACQUIRE)) return;
    if (gasnetc_ucx_verbose) {
        gasnetc_ucx_am_say();
        gasnetc_ucx_rma_say();
        gasnetc_ucx_amo_say();
    }
    __atomic_store_n(&shutting_down, 1, __ATOMIC_RELAXED);
    if (!UCX_TRYLOCK()) return;
    if (gasnetc_ucx_progressing) { /* a fatal error inside one of our callbacks (SEQ) */
        UCX_UNLOCK();
        return;
    }
    __atomic_store_n(&gasnetc_ucx_up, 0, __ATOMIC_RELEASE);
    gasnetc_ucx_progress(); /* what is in flight has a last chance */
    gasnetc_ucx_am_fini();
    gasnetc_ucx_rma_fini_rkeys();
    ucp_request_param_t p;
    memset(&p, 0, sizeof(p));
    p.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    p.flags = UCP_EP_CLOSE_FLAG_FORCE;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
        if (!gasnetc_ucx_ep[r]) continue;
        ucs_status_ptr_t req = ucp_ep_close_nbx(gasnetc_ucx_ep[r], &p);
        if (UCS_PTR_IS_PTR(req)) ucp_request_free(req);
        gasnetc_ucx_ep[r] = NULL;
    }
    gasnetc_ucx_rma_fini();
    ucp_worker_destroy(gasnetc_ucx_worker);
    ucp_cleanup(gasnetc_ucx_ctx);
    UCX_UNLOCK();
}
