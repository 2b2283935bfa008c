/* ofi_init.c: ofi-conduit's network start-up and shut-down: provider selection
 * (fi_getinfo), fabric, domain, the request and reply endpoint(s), their address vector and
 * completion queue, the exchange of endpoint names over the bootstrap, and the one place
 * that reports a failed libfabric call. Layer: ofi-conduit (the network half of
 * conduit_contract.h: init; AMs are ofi_am.c, job start the shared spawner in other/).
 *
 * Provider: libfabric itself honours FI_PROVIDER (e.g. "tcp;ofi_rxm", "shm", "sockets",
 * "udp;ofi_rxd"); of what it offers for reliable-datagram endpoints (FI_EP_RDM) with
 * messages (FI_MSG), in its own order of preference (fastest first), the first is used.
 * A job spanning hosts asks for FI_REMOTE_COMM too (shm only reaches this host).
 * FI_ATOMIC (native atomics; not with GASNET_OFI_ATOMICS=0 or GASNET_OFI_RMA=0), FI_RMA
 * (native RMA, ofi_rma.c) and FI_MULTI_RECV are asked for, and dropped in that order (one
 * more fi_getinfo each) when no provider offers them; then FI_TAGGED and manual progress
 * are asked of the chosen provider (select_provider). Of several domains (NICs) of that
 * provider, GASNET_OFI_DEVICE names one, else the one nearest the process's CPUs is used
 * (choose_domain). Memory registration: local buffers are registered where the provider
 * requires it (FI_MR_LOCAL). */
#include "conduit_contract.h"
#include "gasneti_nic.h"
#include "ofi_internal.h"

#include <dirent.h>
#include <string.h>
#include <unistd.h>

gasneti_netlock_t gasnetc_ofi_lock = GASNETI_NETLOCK_INIT;
struct fi_info *gasnetc_ofi_info;
struct fid_ep *gasnetc_ofi_ep[2];
struct fid_cq *gasnetc_ofi_cq;
fi_addr_t *gasnetc_ofi_addr;
size_t gasnetc_ofi_inject_size;
int gasnetc_ofi_multi_recv;
int gasnetc_ofi_tagged;
int gasnetc_ofi_push;
int gasnetc_ofi_mr_local;
int gasnetc_ofi_verbose;
int gasnetc_ofi_up;

static struct fid_fabric *fabric;
struct fid_domain *gasnetc_ofi_domain;
static struct fid_av *av;

#define NAME_MAX_LEN 112
typedef struct { /* what each rank publishes */
    uint32_t len[2];
    uint8_t name[2][NAME_MAX_LEN];
} endpoint_t;

void gasnetc_ofi_fail(const char *call, ssize_t rc, long peer) {
    char why[256];
    snprintf(why, sizeof(why), "%s (%zd; provider %s)", fi_strerror((int)-rc), rc,
             gasnetc_ofi_info ? gasnetc_ofi_info->fabric_attr->prov_name : "none chosen yet");
    gasneti_peer_fail(call, why, peer >= 0 ? (gex_Rank_t)peer : GEX_RANK_INVALID);
}

/* libfabric 1.17's udp;ofi_rxd crashes (SIGSEGV inside fi_cq_read) at the first
 * fetching atomic of test_ratomic: atomics by AMs there unless GASNET_OFI_ATOMICS=1.
 * Its RMA hangs: the target of fi_write/fi_read frees a receive entry twice, the free
 * list of its buffer pool becomes a cycle, and fi_cq_read walks it for ever (test_stress
 * with 4 ranks, 2 runs in 2, docs/ofi-conduit.md): RMA by AMs there unless
 * GASNET_OFI_RMA=1. Before a provider is chosen, both default to yes (what to ask for). */
static int not_rxd(void) {
    return !gasnetc_ofi_info || !strstr(gasnetc_ofi_info->fabric_attr->prov_name, "ofi_rxd");
}
int gasnetc_ofi_atomics_wanted(void) { return gasneti_getenv_yesno("GASNET_OFI_ATOMICS", not_rxd()); }
int gasnetc_ofi_rma_wanted(void) { return gasneti_getenv_yesno("GASNET_OFI_RMA", not_rxd()); }

/* Two of libfabric's defaults, read once when the library initializes (at the first
 * fi_getinfo), that fail jobs on verbs;ofi_rxm (found on soft-RoCE, docs/ofi-conduit.md);
 * either one the user sets is kept:
 * - FI_UNIVERSE_SIZE (the peers to plan for, default 256): ofi_rxm over verbs sizes a
 *   completion queue by it, (128 + 128) x 256 entries, more than soft-RoCE's 32767, and
 *   fi_enable fails. We set the job's endpoint count when it is smaller, never more.
 * - FI_MR_CACHE_MAX_COUNT: with the registration cache, overlapping registrations alive
 *   together (two transfers from one buffer, two small buffers on one page) get one key,
 *   and ofi_rxm with FI_ATOMIC refuses the second (-FI_ENOKEY). 0 turns the cache off:
 *   each registration is the provider's own, which is what FI_MR_LOCAL transfers of
 *   buffers out of the segment assume (ofi_rma.c); in-segment ones use the segment's.
 * And two of ofi_rxm's, for memory (issue 43; docs/memory.md): with them a process of
 * tcp;ofi_rxm holds 88 MB of private memory before its first message, with ours 7 MB.
 * - FI_OFI_RXM_MSG_RX_SIZE (default 4096 with its shared receive context): the bounce
 *   buffers posted at start-up, 4096 x 16 KiB. We post 128: more arriving at once wait
 *   in the kernel's socket buffers (TCP's own flow control), and our credits bound what
 *   one peer sends.
 * - FI_OFI_RXM_BUFFER_SIZE (default 16384): the size of every bounce buffer, and ofi_rxm
 *   grows each of its pools 1024 buffers at a time (touching them all): 17 MB per pool
 *   (receive, send, ...) at 16 KiB, 2 MB at 2 KiB. On tcp its eager limit is set to
 *   16 KiB (unset, it follows the buffer size), messages above the buffer size then
 *   placed straight into our receive buffers (with the limit at 2 KiB too, a stream of
 *   8 KiB Mediums went 10x slower);
 *   on verbs the two must be equal, so the limit follows where verbs may be chosen
 *   (FI_PROVIDER names it, or, unset, the host has an RDMA device). Either one set by
 *   the user leaves both alone. */
static int rdma_device_present(void) {
    DIR *d = opendir("/sys/class/infiniband");
    struct dirent *e;
    int found = 0;
    while (d && !found && (e = readdir(d))) found = e->d_name[0] != '.';
    if (d) closedir(d);
    return found;
}
/* FI_PROVIDER as the user set it (NULL: unset). Libfabric loads only the providers it
 * names, so a single tcp one (FI_PROVIDER="tcp;ofi_rxm") gets ",udp" added for the datagram
 * endpoint (ofi_dgram.c; not with GASNET_OFI_DGRAM=0), and the RDM endpoint's provider is
 * then asked for by that name (select_provider): the same choice as the user's. */
static const char *user_provider;
static int provider_widened;
static const char *fi_provider(void) { return provider_widened ? user_provider : getenv("FI_PROVIDER"); }
static void widen_provider(void) {
    const char *fp = getenv("FI_PROVIDER");
    if (!fp || !*fp || !strstr(fp, "tcp") || strchr(fp, ',') || strchr(fp, '^') || !gasneti_getenv_yesno("GASNET_OFI_DGRAM", 1))
        return;
    size_t len = strlen(fp) + 8;
    char *both = malloc(len);
    user_provider = strdup(fp);
    if (!both || !user_provider) return;
    snprintf(both, len, "%s,udp", fp);
    setenv("FI_PROVIDER", both, 1);
    free(both);
    provider_widened = 1;
}
static void library_defaults(void) {
    char n[24];
    size_t eps = 2 * (size_t)gasneti_nodes; /* at most two endpoints per rank */
    snprintf(n, sizeof(n), "%zu", eps);
    if (eps < 256) setenv("FI_UNIVERSE_SIZE", n, 0);
    setenv("FI_MR_CACHE_MAX_COUNT", "0", 0);
    setenv("FI_OFI_RXM_MSG_RX_SIZE", "128", 0);
    if (!getenv("FI_OFI_RXM_BUFFER_SIZE") && !getenv("FI_OFI_RXM_EAGER_LIMIT")) {
        const char *fp = getenv("FI_PROVIDER");
        setenv("FI_OFI_RXM_BUFFER_SIZE", "2048", 1);
        int verbs = fp ? strstr(fp, "verbs") != NULL : rdma_device_present();
        setenv("FI_OFI_RXM_EAGER_LIMIT", verbs ? "2048" : "16384", 1); /* unset, it follows the buffer size */
    }
    widen_provider();
}

/* fi_getinfo for hints; ENODATA: none */
static int query(struct fi_info *hints, struct fi_info **list) {
    return fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, list);
}

/* The domain (NIC) to use among the offers (libfabric's order) of the first one's
 * provider: the one GASNET_OFI_DEVICE names; else, when that provider offers several
 * domains on the first offer's fabric (NICs on one network), the one nearest this
 * process's CPUs (gasnet_core/gasneti_nic.c: hwloc; the processes of a host spread over
 * equally near ones); else the first offer. */
static const char *domain_how = "the first offered";
static struct fi_info *choose_domain(struct fi_info *list) {
    const char *want = gasneti_getenv("GASNET_OFI_DEVICE"), *prov = list->fabric_attr->prov_name;
    char offered[512] = "";
    if (want && *want) {
        for (struct fi_info *i = list; i; i = i->next) {
            if (strcmp(i->fabric_attr->prov_name, prov)) continue;
            if (!strcmp(i->domain_attr->name, want)) {
                domain_how = "GASNET_OFI_DEVICE";
                return i;
            }
            if (!strstr(offered, i->domain_attr->name))
                snprintf(offered + strlen(offered), sizeof(offered) - strlen(offered), "%s%s", *offered ? " " : "",
                         i->domain_attr->name);
        }
        gasneti_launch_error("GASNET_OFI_DEVICE=%s: provider %s offers no such domain (it offers: %s)", want, prov, offered);
    }
    struct fi_info *firsts[32];
    const char *names[32];
    int n = 0;
    for (struct fi_info *i = list; i && n < 32; i = i->next) {
        if (strcmp(i->fabric_attr->prov_name, prov) || strcmp(i->fabric_attr->name, list->fabric_attr->name)) continue;
        int seen = 0;
        for (int k = 0; k < n && !seen; k++) seen = !strcmp(names[k], i->domain_attr->name);
        if (!seen) firsts[n] = i, names[n++] = i->domain_attr->name;
    }
    if (n <= 1) return list;
    return firsts[gasneti_nic_nearest(names, n, &domain_how)];
}

/* The provider: the first libfabric offers for our needs (FI_PROVIDER filters), then, for
 * that provider, fabric and domain only, what makes it faster where it has it: FI_TAGGED
 * (one endpoint, ofi_internal.h; not with GASNET_OFI_TAGGED=0) and manual progress
 * (sockets offers both kinds; with automatic progress its thread takes 7 ms per AM round
 * trip here, against 40 us when our polls drive it; gasnetc_ofi_push then). Asked
 * afterwards so that neither changes which provider is chosen. */
static struct fi_info *select_provider(int *noffers) {
    library_defaults();
    struct fi_info *hints = fi_allocinfo(), *list = NULL;
    if (!hints) gasneti_fatalerror("ofi-conduit: fi_allocinfo: out of memory");
    hints->ep_attr->type = FI_EP_RDM;
    if (provider_widened) hints->fabric_attr->prov_name = strdup(user_provider);
    hints->caps = FI_MSG | FI_RMA | FI_MULTI_RECV | (gasneti_host_set_size > 1 ? FI_REMOTE_COMM : 0);
    /* atomics only when they may be used: otherwise the provider is asked exactly what it
     * was before native atomics */
    if (gasnetc_ofi_rma_wanted() && gasnetc_ofi_atomics_wanted())
        hints->caps |= FI_ATOMIC;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->threading = FI_THREAD_DOMAIN;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    int rc = query(hints, &list);
    if (rc == -FI_ENODATA && (hints->caps & FI_ATOMIC)) { /* none with atomics: atomics by CPU and AMs */
        hints->caps &= ~(uint64_t)FI_ATOMIC;
        rc = query(hints, &list);
    }
    if (rc == -FI_ENODATA) { /* none with RDMA: RMA by AMs */
        hints->caps &= ~(uint64_t)FI_RMA;
        rc = query(hints, &list);
    }
    if (rc == -FI_ENODATA) { /* none with multi-receive: one message per receive buffer */
        hints->caps &= ~(uint64_t)FI_MULTI_RECV;
        rc = query(hints, &list);
    }
    if (rc) {
        const char *fp = fi_provider();
        gasneti_fatalerror("ofi-conduit: fi_getinfo found no provider with reliable-datagram endpoints (FI_EP_RDM) and "
                           "messages (FI_MSG)%s%s%s: %s (`fi_info -t FI_EP_RDM -c FI_MSG` lists what libfabric offers)",
                           fp ? " among FI_PROVIDER=" : "", fp ? fp : "", fp ? "" : "", fi_strerror(-rc));
    }
    *noffers = 0;
    for (struct fi_info *i = list; i; i = i->next) (*noffers)++;
    struct fi_info *pick = choose_domain(list);
    free(hints->fabric_attr->prov_name);
    hints->fabric_attr->prov_name = strdup(pick->fabric_attr->prov_name);
    hints->fabric_attr->name = strdup(pick->fabric_attr->name);
    hints->domain_attr->name = strdup(pick->domain_attr->name);
    /* in turn: tagged and manual, tagged, manual (what the provider does not already) */
    int want_manual = list->domain_attr->data_progress != FI_PROGRESS_MANUAL, done = 0;
    uint64_t caps = hints->caps;
    for (int t = gasneti_getenv_yesno("GASNET_OFI_TAGGED", 1); t >= 0 && !done; t--) {
        for (int m = want_manual; m >= 0 && !done && (t || m); m--) {
            struct fi_info *better = NULL;
            hints->caps = t ? caps | FI_TAGGED : caps;
            hints->domain_attr->data_progress = m ? FI_PROGRESS_MANUAL : FI_PROGRESS_UNSPEC;
            if (query(hints, &better) == 0) {
                fi_freeinfo(list);
                list = better;
                gasnetc_ofi_tagged = t;
                gasnetc_ofi_push = m;
                done = 1;
            }
        }
    }
    if (gasneti_getenv_yesno("GASNET_OFI_RMA_FLUSH", 0)) { /* reads ordered after writes, for the flush (ofi_rma.c) */
        if (!done) hints->caps = caps, hints->domain_attr->data_progress = FI_PROGRESS_UNSPEC;
        hints->tx_attr->msg_order |= FI_ORDER_RMA_RAW;
        hints->rx_attr->msg_order |= FI_ORDER_RMA_RAW;
        struct fi_info *better = NULL;
        /* and the sizes it holds for: as large as may be, else one 64 KiB piece */
        for (int i = 0; i < 2 && !better; i++) {
            hints->ep_attr->max_order_raw_size = i ? 65536 : SIZE_MAX;
            if (query(hints, &better)) better = NULL;
        }
        if (better) {
            fi_freeinfo(list);
            list = better;
        }
    }
    fi_freeinfo(hints);
    struct fi_info *mine = fi_dupinfo(list);
    fi_freeinfo(list);
    return mine;
}

static void open_endpoint(int ch, const char *jobid) {
    struct fi_info *info = gasnetc_ofi_info;
    int rc = fi_endpoint(gasnetc_ofi_domain, info, &gasnetc_ofi_ep[ch], NULL);
    if (rc) gasnetc_ofi_fail("fi_endpoint", rc, -1);
    if (!strcmp(info->fabric_attr->prov_name, "shm")) {
        /* shm names its shared-memory object after the endpoint: a name of this job, so
         * that the launcher removes it if the process is killed before closing it */
        char name[96];
        snprintf(name, sizeof(name), "gasnet-%s-ofi-%u-%d", jobid, (unsigned)gasneti_mynode, ch);
        if ((rc = fi_setname(&gasnetc_ofi_ep[ch]->fid, name, strlen(name) + 1)))
            gasnetc_ofi_fail("fi_setname", rc, -1);
    }
    if ((rc = fi_ep_bind(gasnetc_ofi_ep[ch], &av->fid, 0))) gasnetc_ofi_fail("fi_ep_bind (address vector)", rc, -1);
    if ((rc = fi_ep_bind(gasnetc_ofi_ep[ch], &gasnetc_ofi_cq->fid, FI_TRANSMIT | FI_RECV)))
        gasnetc_ofi_fail("fi_ep_bind (completion queue)", rc, -1);
    /* before fi_enable, except shm (libfabric 1.17's shm crashes then; it reads it later) */
    int shm = !strcmp(info->fabric_attr->prov_name, "shm");
    for (int pass = 0; pass < 2; pass++) {
        if (gasnetc_ofi_multi_recv && pass == shm) {
            size_t min = 65536 + 1024; /* room for the largest message (ofi_am.c) */
            rc = fi_setopt(&gasnetc_ofi_ep[ch]->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof(min));
            if (rc) gasnetc_ofi_fail("fi_setopt(FI_OPT_MIN_MULTI_RECV)", rc, -1);
        }
        if (pass == 0 && (rc = fi_enable(gasnetc_ofi_ep[ch]))) gasnetc_ofi_fail("fi_enable", rc, -1);
    }
}

/* every rank's endpoint names, over the bootstrap, into the address vector */
static void exchange_names(gasneti_bootstrap_t *boot) {
    endpoint_t me, *all = calloc(gasneti_nodes, sizeof(endpoint_t));
    gasnetc_ofi_addr = calloc(2 * (size_t)gasneti_nodes, sizeof(fi_addr_t));
    if (!all || !gasnetc_ofi_addr) gasneti_fatalerror("ofi-conduit: out of memory for %u peers", (unsigned)gasneti_nodes);
    memset(&me, 0, sizeof(me));
    int neps = gasnetc_ofi_tagged ? 1 : 2;
    for (int ch = 0; ch < neps; ch++) {
        size_t len = NAME_MAX_LEN;
        int rc = fi_getname(&gasnetc_ofi_ep[ch]->fid, me.name[ch], &len);
        if (rc == -FI_ETOOSMALL)
            gasneti_fatalerror("ofi-conduit: the endpoint name of provider %s takes %zu bytes, more than %d",
                               gasnetc_ofi_info->fabric_attr->prov_name, len, NAME_MAX_LEN);
        if (rc) gasnetc_ofi_fail("fi_getname", rc, -1);
        me.len[ch] = (uint32_t)len;
    }
    boot->exchange(&me, sizeof(me), all);
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
        for (int ch = 0; ch < neps; ch++) { /* one at a time: FI_AV_TABLE numbers them in order */
            int rc = fi_av_insert(av, all[r].name[ch], 1, &GASNETC_OFI_PEER(r, ch), 0, NULL);
            if (rc != 1) gasnetc_ofi_fail("fi_av_insert", rc < 0 ? rc : -FI_EINVAL, (long)r);
        }
        if (neps == 1) GASNETC_OFI_PEER(r, GASNETC_CH_REP) = GASNETC_OFI_PEER(r, GASNETC_CH_REQ);
    }
    free(all);
}

static void say_provider(int noffers) {
    struct fi_info *i = gasnetc_ofi_info;
    const char *fp = fi_provider();
    fprintf(stderr,
            "ofi-conduit: provider %s (fabric %s, domain %s: %s): %s%s%s, the first of %d offer(s) of FI_EP_RDM with "
            "FI_MSG; RDMA %s, atomics %s, multi-receive %s, %s, inject up to %zu bytes, %s progress%s\n",
            i->fabric_attr->prov_name, i->fabric_attr->name, i->domain_attr->name, domain_how,
            fp ? "FI_PROVIDER=" : "FI_PROVIDER unset", fp ? fp : "", "", noffers,
            !(i->caps & FI_RMA)        ? "no (RMA by AMs)"
            : gasnetc_ofi_rma_wanted() ? "yes (fi_write/fi_read)"
            : not_rxd()                ? "off (GASNET_OFI_RMA=0)"
                                       : "off on ofi_rxd (GASNET_OFI_RMA=1 turns it on)",
            !(i->caps & FI_ATOMIC) || !(i->caps & FI_RMA) || !gasnetc_ofi_rma_wanted()
                ? "no (CPU and AMs)"
                : gasnetc_ofi_atomics_wanted() ? "yes (fi_atomic, per domain)"
                : not_rxd()                    ? "off (GASNET_OFI_ATOMICS=0)"
                                               : "off on ofi_rxd (GASNET_OFI_ATOMICS=1 turns them on)",
            gasnetc_ofi_multi_recv ? "yes" : "no",
            gasnetc_ofi_tagged                             ? "one endpoint (replies tagged)"
            : gasneti_getenv_yesno("GASNET_OFI_TAGGED", 1) ? "two endpoints (no FI_TAGGED)"
                                                           : "two endpoints (GASNET_OFI_TAGGED=0)",
            gasnetc_ofi_inject_size,
            i->domain_attr->data_progress == FI_PROGRESS_AUTO ? "automatic" : "manual (polled)",
            gasnetc_ofi_mr_local ? ", local buffers registered (FI_MR_LOCAL)" : "");
}

int gasnetc_ofi_try_reg_local(void *buf, size_t len, struct fid_mr **m) {
    /* keys of our choosing (without FI_MR_PROV_KEY) must differ from the segment's
     * (rank + 1, ofi_rma.c) and from each other within the domain */
    static uint64_t next_key = (uint64_t)1 << 40;
    *m = NULL;
    return fi_mr_reg(gasnetc_ofi_domain, buf, len ? len : 1, FI_SEND | FI_RECV | FI_READ | FI_WRITE, 0,
                     __atomic_fetch_add(&next_key, 1, __ATOMIC_RELAXED), 0, m, NULL);
}

struct fid_mr *gasnetc_ofi_reg_local(void *buf, size_t len, const char *what) {
    struct fid_mr *m;
    int rc = gasnetc_ofi_try_reg_local(buf, len, &m);
    if (rc) {
        char call[160];
        snprintf(call, sizeof(call), "fi_mr_reg (%s, %zu bytes, FI_MR_LOCAL%s)", what, len,
                 rc == -FI_ENOKEY ? "; with libfabric's registration cache on, FI_MR_CACHE_MAX_COUNT=0 may help" : "");
        gasnetc_ofi_fail(call, rc, -1);
    }
    return m;
}

int gasnetc_network_init(gasneti_bootstrap_t *boot) {
    if (gasneti_nbrhd_size == gasneti_nodes) return GASNET_OK; /* every peer a neighbor: PSHM only */
    int noffers = 0;
    gasnetc_ofi_info = select_provider(&noffers);
    struct fi_info *info = gasnetc_ofi_info;
    /* libfabric 1.17's utility layers mishandle 64 KiB messages into multi-receive
     * buffers: ofi_rxm corrupts and then stalls them under load (test_rma, 4 ranks),
     * ofi_rxd reports truncation (test_am): not used there by default */
    const char *pn = info->fabric_attr->prov_name;
    int layered = strstr(pn, "ofi_rxm") || strstr(pn, "ofi_rxd");
    gasnetc_ofi_multi_recv = (info->caps & FI_MULTI_RECV) != 0 && gasneti_getenv_yesno("GASNET_OFI_MULTI_RECV", !layered);
    gasnetc_ofi_inject_size = info->tx_attr->inject_size;
    gasnetc_ofi_mr_local = (info->domain_attr->mr_mode & FI_MR_LOCAL) || (info->mode & FI_LOCAL_MR) ||
                           gasneti_getenv_yesno("GASNET_OFI_MR_LOCAL", 0);
    gasnetc_ofi_verbose = gasneti_mynode == 0 && gasneti_getenv_yesno("GASNET_VERBOSEENV", 0);
    if (gasnetc_ofi_verbose) say_provider(noffers);
    int rc = fi_fabric(info->fabric_attr, &fabric, NULL);
    if (rc) gasnetc_ofi_fail("fi_fabric", rc, -1);
    if ((rc = fi_domain(fabric, info, &gasnetc_ofi_domain, NULL))) gasnetc_ofi_fail("fi_domain", rc, -1);
    struct fi_av_attr av_attr;
    memset(&av_attr, 0, sizeof(av_attr));
    av_attr.type = FI_AV_TABLE;
    av_attr.count = (gasnetc_ofi_tagged ? 1 : 2) * (size_t)gasneti_nodes;
    if ((rc = fi_av_open(gasnetc_ofi_domain, &av_attr, &av, NULL))) gasnetc_ofi_fail("fi_av_open", rc, -1);
    struct fi_cq_attr cq_attr;
    memset(&cq_attr, 0, sizeof(cq_attr));
    cq_attr.format = FI_CQ_FORMAT_DATA;
    cq_attr.wait_obj = FI_WAIT_NONE;
    cq_attr.size = 4096;
    if ((rc = fi_cq_open(gasnetc_ofi_domain, &cq_attr, &gasnetc_ofi_cq, NULL))) gasnetc_ofi_fail("fi_cq_open", rc, -1);
    open_endpoint(GASNETC_CH_REQ, boot->jobid);
    if (gasnetc_ofi_tagged) gasnetc_ofi_ep[GASNETC_CH_REP] = gasnetc_ofi_ep[GASNETC_CH_REQ];
    else open_endpoint(GASNETC_CH_REP, boot->jobid);
    exchange_names(boot);
    gasnetc_ofi_dg_init(boot);
    if (gasnetc_ofi_verbose) gasnetc_ofi_dg_say_provider();
    gasnetc_ofi_rma_init();
    gasnetc_ofi_long_init();
    gasnetc_ofi_am_init();
    boot->barrier(); /* every rank's receives are posted before anyone sends */
    return GASNET_OK;
}

/* Called on every exit path, possibly with the lock held by a thread that will never
 * release it (a fatal error): then nothing is closed, the process leaves anyway. */
void gasnetc_network_fini(void) {
    if (!__atomic_load_n(&gasnetc_ofi_up, __ATOMIC_ACQUIRE)) return;
    if (gasnetc_ofi_verbose) {
        gasnetc_ofi_long_say();
        gasnetc_ofi_am_say_prepared();
        gasnetc_ofi_am_say_pools();
        gasnetc_ofi_dg_say();
        gasnetc_ofi_rma_say();
        if (gasnetc_ofi_mr_local) gasnetc_ofi_rma_say_regs();
    }
    if (!gasnetc_ofi_am_fini()) return;
    gasnetc_ofi_dg_fini();
    gasnetc_ofi_rma_fini();
    fi_close(&av->fid);
    fi_close(&gasnetc_ofi_domain->fid);
    fi_close(&fabric->fid);
}
