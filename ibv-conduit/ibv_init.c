/* ibv_init.c: ibv-conduit's network start-up and shut-down: the device and port, the
 * GID of a RoCE port, the protection domain, the one completion queue and the shared
 * receive queue (made for the most receive buffers; ibv_am.c posts few and grows them,
 * and the completion queue with them); the device's asynchronous events (the SRQ's
 * limit, read by the poll); the reporters of failed verbs calls and completions; memory
 * registration with the memory-lock limit in its message. The SRQ is made as deep as the
 * buffers posted at first where the device can resize it (IBV_DEVICE_SRQ_RESIZE: rxe
 * can), so that its ring does not follow the job's size. Layer: ibv-conduit (the
 * network half of conduit_contract.h: init and fini; QPs are ibv_connect.c, AMs
 * ibv_am.c, RMA ibv_rma.c; job start the shared spawner in other/).
 *
 * The port: every active port of every device (InfiniBand or Ethernet link layer), or
 * those GASNET_IBV_PORTS lists ("mlx5_0:1+mlx5_1:1", "mlx5_0" for all its ports; '+' or
 * ','), in that order. One port per process: the first active one, or, when the
 * candidates are on several devices, the device nearest the process's CPUs
 * (gasnet_core/gasneti_nic.c: hwloc; the processes of a host spread over equally near
 * ones). No active port: the job ends saying so, naming what was found.
 * Addressing: an InfiniBand port by its LID (GASNET_IBV_GID_INDEX adds a GRH with that
 * GID); a RoCE port by a GID of its table: RoCE v2 with an IPv4-mapped address first,
 * then any RoCE v2, then an IPv4-mapped RoCE v1 one, then the first valid one
 * (GASNET_IBV_GID_INDEX chooses). */
#include "conduit_contract.h"
#include "gasneti_nic.h"
#include "ibv_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>

gasneti_netlock_t gasnetc_ibv_lock = GASNETI_NETLOCK_INIT;
gasnetc_ibv_port_t gasnetc_ibv_port;
struct ibv_context *gasnetc_ibv_ctx;
struct ibv_pd *gasnetc_ibv_pd;
struct ibv_cq *gasnetc_ibv_cq;
struct ibv_srq *gasnetc_ibv_srq;
int gasnetc_ibv_up, gasnetc_ibv_verbose;
int gasnetc_ibv_srq_depth, gasnetc_ibv_srq_start; /* receive buffers at most, at first (ibv_am.c) */
int gasnetc_ibv_srq_resize; /* the SRQ was made for srq_start and grows with the buffers */

#define CQ_SENDS 4096 /* send work requests in flight over every QP (the CQ's share) */

/* ---------------------------------------------------------------------------------
 * Errors
 * --------------------------------------------------------------------------------- */
void gasnetc_ibv_fail(const char *call, int err, gex_Rank_t peer) {
    char why[256];
    snprintf(why, sizeof(why), "%s (errno %d; device %s port %u)", strerror(err), err,
             gasnetc_ibv_port.dev[0] ? gasnetc_ibv_port.dev : "none chosen yet", (unsigned)gasnetc_ibv_port.port);
    gasneti_peer_fail(call, why, peer);
}

/* The device's asynchronous events, read without waiting (the fd is non-blocking from
 * network init): by the poll, for the SRQ's limit (gasnetc_ibv_async_poll), and on a
 * flushed completion. What the poll reads besides the SRQ's limit is kept (the first
 * ASYNC_KEPT) for the report of a flushed completion. Lock held. */
#define ASYNC_KEPT 8
static struct {
    enum ibv_event_type type;
    struct ibv_qp *qp; /* a queue pair's event: its QP, else NULL */
} kept[ASYNC_KEPT];
static int nkept;

static int qp_event(enum ibv_event_type t) {
    return (t >= IBV_EVENT_QP_FATAL && t <= IBV_EVENT_PATH_MIG_ERR) || t == IBV_EVENT_QP_LAST_WQE_REACHED;
}

/* the next event, acknowledged: 0 if there is none; the SRQ's limit counted in *srq */
static int next_event(enum ibv_event_type *type, struct ibv_qp **qp, int *srq) {
    struct ibv_async_event ev;
    while (ibv_get_async_event(gasnetc_ibv_ctx, &ev) == 0) {
        *type = ev.event_type;
        *qp = qp_event(ev.event_type) ? ev.element.qp : NULL;
        ibv_ack_async_event(&ev);
        if (*type != IBV_EVENT_SRQ_LIMIT_REACHED) return 1;
        ++*srq;
    }
    return 0;
}

int gasnetc_ibv_async_poll(void) {
    enum ibv_event_type t;
    struct ibv_qp *qp;
    int srq = 0;
    while (next_event(&t, &qp, &srq))
        if (nkept < ASYNC_KEPT) kept[nkept].type = t, kept[nkept++].qp = qp;
    return srq;
}

/* A flushed work request only says that its QP went to error before: as a responder (a
 * request of the peer's it could not serve, which no completion of ours reports) or on
 * the peer's side. What the device reported meanwhile (the events the poll kept, then
 * those not read yet), appended to buf. */
static void say_event(char *buf, size_t len, int *n, enum ibv_event_type t, struct ibv_qp *qp) {
    size_t at = strlen(buf);
    char with[64] = "";
    for (gex_Rank_t r = 0; qp && gasnetc_ibv_peers && r < gasneti_nodes; r++)
        if (gasnetc_ibv_peers[r].qp == qp) snprintf(with, sizeof(with), " with rank %u", (unsigned)r);
    snprintf(buf + at, len - at, "%s%s %s%s", (*n)++ ? "; " : "; before it the device reported: ",
             ibv_event_type_str(t), qp_event(t) ? "the queue pair" : "the device", with);
}
static void async_events(char *buf, size_t len) {
    enum ibv_event_type t;
    struct ibv_qp *qp;
    int n = 0, srq = 0;
    for (int k = 0; k < nkept; k++) say_event(buf, len, &n, kept[k].type, kept[k].qp);
    while (next_event(&t, &qp, &srq)) say_event(buf, len, &n, t, qp);
    if (!n) {
        size_t at = strlen(buf);
        snprintf(buf + at, len - at, "; the device reported no event before it (the queue pair's peer may have "
                                     "failed first: see its message)");
    }
}

void gasnetc_ibv_wc_fail(const struct ibv_wc *wc, const char *what, gex_Rank_t peer) {
    /* a peer that has left during the exit (its QP gone: retries exhausted, or ours
     * flushed as we close): nothing to report */
    if (gasneti_exiting || !__atomic_load_n(&gasnetc_ibv_up, __ATOMIC_ACQUIRE)) return;
    char why[512];
    snprintf(why, sizeof(why), "%s (status %d, vendor error 0x%x; device %s port %u)%s", ibv_wc_status_str(wc->status),
             (int)wc->status, wc->vendor_err, gasnetc_ibv_port.dev, (unsigned)gasnetc_ibv_port.port,
             wc->status == IBV_WC_RETRY_EXC_ERR ? ": the peer did not answer (gone, or unreachable)" : "");
    if (wc->status == IBV_WC_WR_FLUSH_ERR) async_events(why, sizeof(why));
    gasneti_peer_fail(what, why, peer);
}

struct ibv_mr *gasnetc_ibv_try_reg(void *buf, size_t len, int access) {
    return ibv_reg_mr(gasnetc_ibv_pd, buf, len ? len : 1, access);
}

int gasnetc_ibv_post_recvs(int *list, int *n, const gasnetc_ibv_chunk_t *chunk, int per, size_t stride, size_t off,
                           uint32_t len, unsigned tag, struct ibv_srq *srq, struct ibv_qp *qp, const char *what) {
    struct ibv_recv_wr wr[32], *bad;
    struct ibv_sge sge[32];
    int posted = 0;
    while (*n) {
        int k, b = *n < 32 ? *n : 32;
        for (k = 0; k < b; k++) {
            int i = list[--*n];
            const gasnetc_ibv_chunk_t *c = &chunk[i / per];
            sge[k] = (struct ibv_sge){(uintptr_t)(c->buf + (size_t)(i % per) * stride + off), len, c->mr->lkey};
            wr[k].wr_id = ((uint64_t)i << 4) | tag;
            wr[k].sg_list = &sge[k];
            wr[k].num_sge = 1;
            wr[k].next = k + 1 < b ? &wr[k + 1] : NULL;
        }
        int rc = srq ? ibv_post_srq_recv(srq, wr, &bad) : ibv_post_recv(qp, wr, &bad);
        if (rc) gasnetc_ibv_fail(what, rc, GEX_RANK_INVALID);
        posted += b;
    }
    return posted;
}

struct ibv_qp *gasnetc_ibv_make_qp(enum ibv_qp_type type, struct ibv_srq *srq, uint32_t sq_depth,
                                   uint32_t want_inline, uint32_t *got_inline, const char *what, gex_Rank_t peer) {
    struct ibv_qp_init_attr a;
    memset(&a, 0, sizeof(a));
    a.send_cq = a.recv_cq = gasnetc_ibv_cq;
    a.srq = srq;
    a.qp_type = type;
    a.cap.max_send_wr = sq_depth;
    a.cap.max_send_sge = 1;
    a.cap.max_inline_data = want_inline;
    struct ibv_qp *qp = ibv_create_qp(gasnetc_ibv_pd, &a);
    if (!qp) { /* a device with less inline data (or none) */
        a.cap.max_inline_data = 0;
        qp = ibv_create_qp(gasnetc_ibv_pd, &a);
    }
    if (!qp) gasnetc_ibv_fail(what, errno, peer);
    *got_inline = a.cap.max_inline_data; /* (ibv_create_qp says what it gave) */
    return qp;
}

struct ibv_mr *gasnetc_ibv_reg(void *buf, size_t len, int access, const char *what) {
    struct ibv_mr *mr = gasnetc_ibv_try_reg(buf, len, access);
    if (mr) return mr;
    int err = errno;
    char call[512];
    if (err == ENOMEM || err == EPERM || err == EAGAIN) {
        struct rlimit rl;
        char lim[64] = "unknown";
        if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
            if (rl.rlim_cur == RLIM_INFINITY) snprintf(lim, sizeof(lim), "unlimited");
            else snprintf(lim, sizeof(lim), "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
        }
        snprintf(call, sizeof(call),
                 "ibv_reg_mr of %s (%zu bytes): the memory this process may lock is too small (ulimit -l: %s). Raise "
                 "it for the job's processes (`ulimit -l unlimited`, or memlock in /etc/security/limits.conf or "
                 "the batch system's settings), or make the segment smaller (GASNET_MAX_SEGSIZE)",
                 what, len, lim);
    } else {
        snprintf(call, sizeof(call), "ibv_reg_mr of %s (%zu bytes)", what, len);
    }
    gasnetc_ibv_fail(call, err, GEX_RANK_INVALID);
}

/* ---------------------------------------------------------------------------------
 * The port
 * --------------------------------------------------------------------------------- */
typedef struct {
    int dev;      /* index in the device list */
    uint8_t port;
} cand_t;

/* GASNET_IBV_PORTS names device d's port p (0: every port) */
static int listed(const char *spec, const char *dev, unsigned port) {
    if (!spec || !*spec) return 1;
    char *s = strdup(spec), *save = NULL;
    int yes = 0;
    for (char *tok = strtok_r(s, "+, ", &save); tok && !yes; tok = strtok_r(NULL, "+, ", &save)) {
        char *colon = strchr(tok, ':');
        unsigned want = 0;
        if (colon) {
            *colon = 0;
            want = (unsigned)strtoul(colon + 1, NULL, 10);
        }
        yes = !strcmp(tok, dev) && (!want || !port || want == port);
    }
    free(s);
    return yes;
}

static const char *port_state(enum ibv_port_state s) {
    switch (s) {
        case IBV_PORT_DOWN: return "down";
        case IBV_PORT_INIT: return "initializing";
        case IBV_PORT_ARMED: return "armed";
        case IBV_PORT_ACTIVE: return "active";
        default: return "not active";
    }
}

static int ipv4_mapped(const union ibv_gid *g) {
    static const uint8_t pre[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    return !memcmp(g->raw, pre, 12);
}

/* the GID of a RoCE port (see the top); GASNET_IBV_GID_INDEX overrides */
static void choose_gid(struct ibv_port_attr *pa) {
    gasnetc_ibv_port_t *p = &gasnetc_ibv_port;
    int64_t want = gasneti_getenv_int("GASNET_IBV_GID_INDEX", -1);
    if (want >= 0) {
        if (want >= pa->gid_tbl_len)
            gasneti_launch_error("GASNET_IBV_GID_INDEX=%lld: port %u of %s has %d GIDs", (long long)want,
                                 (unsigned)p->port, p->dev, pa->gid_tbl_len);
        if (ibv_query_gid(gasnetc_ibv_ctx, p->port, (int)want, &p->gid))
            gasnetc_ibv_fail("ibv_query_gid (GASNET_IBV_GID_INDEX)", errno, GEX_RANK_INVALID);
        p->gid_index = (int)want;
        p->gid_how = "GASNET_IBV_GID_INDEX";
        return;
    }
    if (!p->roce) return; /* InfiniBand: by LID */
    int n = pa->gid_tbl_len > 0 ? pa->gid_tbl_len : 1;
    struct ibv_gid_entry *e = calloc((size_t)n, sizeof(*e));
    if (!e) gasneti_fatalerror("ibv-conduit: out of memory for a GID table");
    ssize_t got = ibv_query_gid_table(gasnetc_ibv_ctx, e, (size_t)n, 0);
    if (got < 0) { /* an older kernel: one entry at a time */
        got = 0;
        for (int i = 0; i < n; i++)
            if (ibv_query_gid_ex(gasnetc_ibv_ctx, p->port, (uint32_t)i, &e[got], 0) == 0) got++;
    }
    static const char *hows[] = {"RoCE v2, IPv4-mapped", "RoCE v2", "RoCE v1, IPv4-mapped", "the first valid one"};
    int best = -1, rank = 4;
    for (ssize_t i = 0; i < got; i++) {
        if (e[i].port_num != p->port) continue;
        int v2 = e[i].gid_type == IBV_GID_TYPE_ROCE_V2, v4 = ipv4_mapped(&e[i].gid);
        int r = v2 && v4 ? 0 : v2 ? 1 : v4 ? 2 : 3;
        if (r < rank || (r == rank && best >= 0 && e[i].gid_index < e[best].gid_index)) rank = r, best = (int)i;
    }
    if (best < 0)
        gasneti_fatalerror("ibv-conduit: port %u of %s (RoCE) has no valid GID: give its interface an address, or "
                           "set GASNET_IBV_GID_INDEX", (unsigned)p->port, p->dev);
    p->gid = e[best].gid;
    p->gid_index = (int)e[best].gid_index;
    p->gid_how = hows[rank];
    free(e);
}

/* The port (see the top): opens its device into gasnetc_ibv_ctx. */
static void choose_port(void) {
    const char *spec = gasneti_getenv("GASNET_IBV_PORTS");
    int ndev = 0;
    struct ibv_device **devs = ibv_get_device_list(&ndev);
    if (!devs || ndev == 0)
        gasneti_fatalerror("ibv-conduit: no active port: no InfiniBand or RoCE device on host %s (ibv_get_device_list "
                           "found none%s%s). This job needs the network: its ranks are not all on one host, or "
                           "GASNET_SUPERNODE_MAXSIZE is set",
                           gasneti_host_name(gasneti_mynode), devs ? "" : ": ", devs ? "" : strerror(errno));
    cand_t *c = calloc((size_t)ndev * 8 + 1, sizeof(cand_t));
    const char **names = calloc((size_t)ndev + 1, sizeof(char *));
    char seen[1024] = "";
    int nc = 0, nnames = 0;
    for (int d = 0; d < ndev; d++) {
        const char *name = ibv_get_device_name(devs[d]);
        if (!listed(spec, name, 0)) continue;
        struct ibv_context *ctx = ibv_open_device(devs[d]);
        struct ibv_device_attr da;
        if (!ctx || ibv_query_device(ctx, &da)) {
            snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s%s (cannot open: %s)", *seen ? ", " : "",
                     name, strerror(errno));
            if (ctx) ibv_close_device(ctx);
            continue;
        }
        int first = nc;
        for (unsigned p = 1; p <= da.phys_port_cnt && nc < ndev * 8; p++) {
            struct ibv_port_attr pa;
            if (!listed(spec, name, p) || ibv_query_port(ctx, (uint8_t)p, &pa)) continue;
            snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen), "%s%s:%u %s", *seen ? ", " : "", name, p,
                     port_state(pa.state));
            if (pa.state == IBV_PORT_ACTIVE &&
                (pa.link_layer == IBV_LINK_LAYER_INFINIBAND || pa.link_layer == IBV_LINK_LAYER_ETHERNET ||
                 pa.link_layer == IBV_LINK_LAYER_UNSPECIFIED))
                c[nc++] = (cand_t){d, (uint8_t)p};
        }
        if (nc > first) names[nnames++] = name;
        ibv_close_device(ctx);
    }
    if (nc == 0)
        gasneti_fatalerror("ibv-conduit: no active port on host %s%s%s: found %s", gasneti_host_name(gasneti_mynode),
                           spec ? " among GASNET_IBV_PORTS=" : "", spec ? spec : "", *seen ? seen : "no device");
    const char *how;
    int pick = gasneti_nic_nearest(names, nnames, &how), chosen = 0;
    for (int i = 0; i < nc; i++)
        if (!strcmp(ibv_get_device_name(devs[c[i].dev]), names[pick])) {
            chosen = i;
            break;
        }
    gasnetc_ibv_port_t *p = &gasnetc_ibv_port;
    snprintf(p->dev, sizeof(p->dev), "%s", names[pick]);
    p->port = c[chosen].port;
    p->how = how;
    gasnetc_ibv_ctx = ibv_open_device(devs[c[chosen].dev]);
    if (!gasnetc_ibv_ctx) gasnetc_ibv_fail("ibv_open_device", errno, GEX_RANK_INVALID);
    ibv_free_device_list(devs);
    free(c);
    free(names);
    struct ibv_device_attr da;
    struct ibv_port_attr pa;
    if (ibv_query_device(gasnetc_ibv_ctx, &da)) gasnetc_ibv_fail("ibv_query_device", errno, GEX_RANK_INVALID);
    if (ibv_query_port(gasnetc_ibv_ctx, p->port, &pa)) gasnetc_ibv_fail("ibv_query_port", errno, GEX_RANK_INVALID);
    p->roce = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
    p->lid = pa.lid;
    p->mtu = pa.active_mtu;
    p->max_msg = pa.max_msg_sz ? pa.max_msg_sz : (1u << 30);
    if (p->max_msg > (1u << 30)) p->max_msg = 1u << 30;
    p->rd_atomic = da.max_qp_rd_atom < da.max_qp_init_rd_atom ? da.max_qp_rd_atom : da.max_qp_init_rd_atom;
    if (p->rd_atomic > 16) p->rd_atomic = 16;
    if (p->rd_atomic < 1) p->rd_atomic = 1;
    p->atomics = da.atomic_cap != IBV_ATOMIC_NONE;
    p->gid_index = -1;
    p->gid_how = "none (InfiniBand: by LID)";
    choose_gid(&pa);
}

/* ---------------------------------------------------------------------------------
 * Start-up and shut-down
 * --------------------------------------------------------------------------------- */
static void say_port(void) {
    gasnetc_ibv_port_t *p = &gasnetc_ibv_port;
    char gid[64] = "";
    if (p->gid_index >= 0) {
        const uint8_t *g = p->gid.raw;
        if (ipv4_mapped(&p->gid)) snprintf(gid, sizeof(gid), " %u.%u.%u.%u", g[12], g[13], g[14], g[15]);
    }
    struct rlimit rl;
    char lim[64] = "unknown";
    if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
        if (rl.rlim_cur == RLIM_INFINITY) snprintf(lim, sizeof(lim), "unlimited");
        else snprintf(lim, sizeof(lim), "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
    }
    char atomics_why[256];
    snprintf(atomics_why, sizeof(atomics_why), "by CPU and AMs (%s)", gasnetc_ibv_atomics_off ? gasnetc_ibv_atomics_off : "");
    fprintf(stderr,
            "ibv-conduit: device %s port %u (%s), %s, MTU %d; GID index %d%s (%s); %s connections; atomics %s; "
            "inline up to %u bytes; %d receive buffers posted, up to %d under load (the SRQ %s); locked memory limit %s; ACK timeout "
            "%.0f ms, %d retries\n",
            p->dev, (unsigned)p->port, p->how, p->roce ? "RoCE" : "InfiniBand", 128 << (int)p->mtu, p->gid_index, gid,
            p->gid_how, gasnetc_ibv_lazy ? "lazy (on first contact)" : "eager (at start-up)",
            !p->atomics ? "by CPU and AMs (the HCA has none)"
            : !gasneti_getenv_yesno("GASNET_IBV_ATOMICS", 1) ? "by CPU and AMs (GASNET_IBV_ATOMICS=0)"
            : gasnetc_ibv_atomics_off                        ? atomics_why
                                                             : "by the HCA (64-bit, per domain)",
            (unsigned)gasnetc_ibv_inline, gasnetc_ibv_srq_start, gasnetc_ibv_srq_depth,
            gasnetc_ibv_srq_resize ? "resized with them" : "made at that depth: the device does not resize SRQs", lim, 4.096e-3 * (double)(1u << gasnetc_ibv_qp_timeout),
            gasnetc_ibv_qp_retries);
}

int gasnetc_network_init(gasneti_bootstrap_t *boot) {
    if (gasneti_nbrhd_size == gasneti_nodes) return GASNET_OK; /* every peer a neighbor: PSHM only */
    gasnetc_ibv_verbose = gasneti_mynode == 0 && gasneti_getenv_yesno("GASNET_VERBOSEENV", 0);
    choose_port();
    gasnetc_ibv_pd = ibv_alloc_pd(gasnetc_ibv_ctx);
    if (!gasnetc_ibv_pd) gasnetc_ibv_fail("ibv_alloc_pd", errno, GEX_RANK_INVALID);
    struct ibv_device_attr da;
    if (ibv_query_device(gasnetc_ibv_ctx, &da)) gasnetc_ibv_fail("ibv_query_device", errno, GEX_RANK_INVALID);
    /* receive buffers, at most: room for every network peer's requests and the replies to
     * ours; ibv_am.c posts GASNETC_IBV_RB_START at first and more under load (the SRQ's
     * limit event), resizing the SRQ with them where the device can */
    long far = (long)gasneti_nodes - (long)gasneti_nbrhd_size;
    long depth = 2 * 32 * far + 64;
    if (depth < 256) depth = 256;
    if (depth > 4096) depth = 4096;
    if (depth > da.max_srq_wr) depth = da.max_srq_wr;
    gasnetc_ibv_srq_depth = (int)depth;
    gasnetc_ibv_srq_start = depth < GASNETC_IBV_RB_START ? (int)depth : GASNETC_IBV_RB_START;
    /* the completion queue: the sends' share and the receive buffers posted (it grows
     * with them, ibv_am.c) */
    long sends = CQ_SENDS;
    if (sends > (long)da.max_cqe - depth) sends = (long)da.max_cqe - depth;
    gasnetc_ibv_sq_max = (int)sends;
    if (gasnetc_ibv_sq_max < 64)
        gasneti_fatalerror("ibv-conduit: device %s's completion queues hold at most %d entries: too few",
                           gasnetc_ibv_port.dev, da.max_cqe);
    gasnetc_ibv_cq = ibv_create_cq(gasnetc_ibv_ctx, gasnetc_ibv_srq_start + gasnetc_ibv_sq_max + gasnetc_ibv_ud_cq_share(),
                                   NULL, NULL, 0);
    if (!gasnetc_ibv_cq) gasnetc_ibv_fail("ibv_create_cq", errno, GEX_RANK_INVALID);
    /* the SRQ: as deep as the buffers posted at first where the device resizes SRQs
     * (ibv_am.c makes it deeper as they grow), else at its whole depth at once */
    gasnetc_ibv_srq_resize = (da.device_cap_flags & IBV_DEVICE_SRQ_RESIZE) != 0;
    struct ibv_srq_init_attr sa;
    memset(&sa, 0, sizeof(sa));
    sa.attr.max_wr = (uint32_t)(gasnetc_ibv_srq_resize ? gasnetc_ibv_srq_start : depth);
    sa.attr.max_sge = 1;
    gasnetc_ibv_srq = ibv_create_srq(gasnetc_ibv_pd, &sa);
    if (!gasnetc_ibv_srq) gasnetc_ibv_fail("ibv_create_srq", errno, GEX_RANK_INVALID);
    /* the device's events (the SRQ's limit) are read by the poll, which must not wait */
    int fl = fcntl(gasnetc_ibv_ctx->async_fd, F_GETFL);
    if (fl < 0 || fcntl(gasnetc_ibv_ctx->async_fd, F_SETFL, fl | O_NONBLOCK) < 0)
        gasnetc_ibv_fail("fcntl (the device's event channel, O_NONBLOCK)", errno, GEX_RANK_INVALID);
    gasnetc_ibv_rma_init();
    gasnetc_ibv_am_init(); /* receive buffers posted before any QP connects */
    gasnetc_ibv_ud_init(boot);
    gasnetc_ibv_connect_init(boot);
    gasnetc_ibv_atomics_probe(boot);
    if (gasnetc_ibv_verbose) say_port();
    __atomic_store_n(&gasnetc_ibv_up, 1, __ATOMIC_RELEASE);
    boot->barrier(); /* every rank's QPs are ready before anyone sends */
    return GASNET_OK;
}

/* Called on every exit path, possibly with the lock held by a thread that will never
 * release it (a fatal error): then nothing is closed, the process leaves anyway. */
void gasnetc_network_fini(void) {
    if (!__atomic_load_n(&gasnetc_ibv_up, __ATOMIC_ACQUIRE)) return;
    if (gasnetc_ibv_verbose) {
        gasnetc_ibv_am_say();
        gasnetc_ibv_rma_say();
    }
    if (!gasnetc_ibv_am_fini()) return;
    gasnetc_ibv_connect_fini();
    gasnetc_ibv_ud_fini();
    ibv_destroy_srq(gasnetc_ibv_srq);
    gasnetc_ibv_am_free();
    gasnetc_ibv_ud_free();
    gasnetc_ibv_rma_fini();
    ibv_destroy_cq(gasnetc_ibv_cq);
    ibv_dealloc_pd(gasnetc_ibv_pd);
    ibv_close_device(gasnetc_ibv_ctx);
}
