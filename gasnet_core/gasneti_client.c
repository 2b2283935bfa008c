/* gasneti_client.c: gex_Client_Init and the primordial objects (client, endpoint, team),
 * host/neighborhood discovery, and the gex_System_* and gex_TM_* queries.
 * Layer: core. */
#include "conduit_contract.h"

#include <string.h>
#include <unistd.h>

/* the link-config symbol: a client of another mode/debug/segment setting fails to link */
int GASNETI_LINKCONFIG = 1;
/* the conduit's name, found by launch scripts with `strings` */
const char gasneti_ident_conduit[] = "$GASNetConduitName: " GASNETC_NAME_UPPER " $";
const char gasneti_ident_config[] = "$GASNetConfig: " GASNETC_NAME "-" GASNETI_CONFIG_MODE_STR " $";

gex_Rank_t gasneti_mynode = GEX_RANK_INVALID, gasneti_nodes = 0;
gasneti_bootstrap_t *gasneti_boot;
gex_Rank_t gasneti_nbrhd_size, gasneti_nbrhd_myidx, *gasneti_nbrhd_ranks;
gex_Rank_t gasneti_host_size, gasneti_host_myidx, *gasneti_host_ranks;
gex_Rank_t gasneti_nbrhd_set_size, gasneti_nbrhd_set_rank, gasneti_host_set_size, gasneti_host_set_rank;
int32_t *gasneti_nbrhd_index;
gex_Client_t gasneti_client0;
gex_AM_Entry_t *gasneti_handler_table;
gex_TM_t gasneti_tm0;
int gasneti_init_done, gasneti_attach_done;
gasneti_peerseg_t *gasneti_peerseg;
int gasneti_rma_bypass = 1;

static void *xcalloc(size_t n, size_t sz) {
    void *p = calloc(n ? n : 1, sz);
    if (!p) gasneti_fatalerror("out of memory allocating %zu bytes", n * sz);
    return p;
}

/* Host discovery: ranks with the same host name and boot id share a host. The
 * neighborhood is the host, split into groups of GASNET_SUPERNODE_MAXSIZE. */
typedef struct {
    char name[120];
    uint64_t bootid;
} hostkey_t;

static uint64_t boot_id_hash(void) {
    uint64_t h = 1469598103934665603ull;
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        int c;
        while ((c = fgetc(f)) != EOF) h = (h ^ (uint64_t)c) * 1099511628211ull;
        fclose(f);
    }
    return h;
}

gex_Rank_t *gasneti_rank_host, *gasneti_rank_nbrhd;
static char (*host_names)[sizeof(((hostkey_t *)0)->name)]; /* per host-set index */

/* for conduits' error reports (gasneti_netkit.h) */
const char *gasneti_host_name(gex_Rank_t r) {
    return host_names && r < gasneti_nodes ? host_names[gasneti_rank_host[r]] : "?";
}

static void discover_hosts(void) {
    hostkey_t me, *all = xcalloc(gasneti_nodes, sizeof(hostkey_t));
    memset(&me, 0, sizeof(me));
    gethostname(me.name, sizeof(me.name) - 1);
    me.bootid = boot_id_hash();
    gasneti_boot->exchange(&me, sizeof(me), all);

    gex_Rank_t *hostof = xcalloc(gasneti_nodes, sizeof(gex_Rank_t)); /* host-set index per rank */
    gex_Rank_t nhosts = 0;
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) {
        gex_Rank_t q;
        for (q = 0; q < r; q++)
            if (!memcmp(&all[q], &all[r], sizeof(hostkey_t))) break;
        hostof[r] = (q < r) ? hostof[q] : nhosts++;
    }
    gasneti_host_set_size = nhosts;
    gasneti_host_set_rank = hostof[gasneti_mynode];
    gasneti_host_ranks = xcalloc(gasneti_nodes, sizeof(gex_Rank_t));
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++)
        if (hostof[r] == gasneti_host_set_rank) {
            if (r == gasneti_mynode) gasneti_host_myidx = gasneti_host_size;
            gasneti_host_ranks[gasneti_host_size++] = r;
        }

    int64_t maxsz = gasneti_getenv_int("GASNET_SUPERNODE_MAXSIZE", 0);
    if (maxsz < 0) gasneti_launch_error("GASNET_SUPERNODE_MAXSIZE=%lld: must be >= 0", (long long)maxsz);
    if (GASNETC_NBRHD_ONLY) maxsz = 0; /* no network to fall back on: the host is one neighborhood */
    gex_Rank_t per = (maxsz == 0 || maxsz > (int64_t)gasneti_host_size) ? gasneti_host_size : (gex_Rank_t)maxsz;
    gex_Rank_t first = gasneti_host_myidx / per * per;
    gasneti_nbrhd_size = (first + per <= gasneti_host_size) ? per : gasneti_host_size - first;
    gasneti_nbrhd_myidx = gasneti_host_myidx - first;
    gasneti_nbrhd_ranks = gasneti_host_ranks + first;
    gasneti_nbrhd_index = xcalloc(gasneti_nodes, sizeof(int32_t));
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) gasneti_nbrhd_index[r] = -1;
    for (gex_Rank_t i = 0; i < gasneti_nbrhd_size; i++) gasneti_nbrhd_index[gasneti_nbrhd_ranks[i]] = (int32_t)i;

    /* neighborhood-set rank: count neighborhoods on earlier hosts plus earlier ones on mine */
    gex_Rank_t nb_before = 0, nb_total = 0;
    for (gex_Rank_t h = 0; h < nhosts; h++) {
        gex_Rank_t cnt = 0;
        for (gex_Rank_t r = 0; r < gasneti_nodes; r++) cnt += (hostof[r] == h);
        gex_Rank_t p = (maxsz == 0 || maxsz > (int64_t)cnt) ? cnt : (gex_Rank_t)maxsz;
        gex_Rank_t nb = (cnt + p - 1) / p;
        if (h < gasneti_host_set_rank) nb_before += nb;
        nb_total += nb;
    }
    gasneti_nbrhd_set_size = nb_total;
    gasneti_nbrhd_set_rank = nb_before + gasneti_host_myidx / per;

    /* every rank's host and neighborhood (gasnet_getNodeInfo): ranks of a host in order,
     * cut into neighborhoods of `per` as each host cuts its own */
    gasneti_rank_host = hostof;
    gasneti_rank_nbrhd = xcalloc(gasneti_nodes, sizeof(gex_Rank_t));
    gex_Rank_t first_nb = 0;
    for (gex_Rank_t h = 0; h < nhosts; h++) {
        gex_Rank_t cnt = 0;
        for (gex_Rank_t r = 0; r < gasneti_nodes; r++) cnt += (hostof[r] == h);
        gex_Rank_t p = (maxsz == 0 || maxsz > (int64_t)cnt) ? cnt : (gex_Rank_t)maxsz, i = 0;
        for (gex_Rank_t r = 0; r < gasneti_nodes; r++)
            if (hostof[r] == h) gasneti_rank_nbrhd[r] = first_nb + i++ / p;
        first_nb += (cnt + p - 1) / p;
    }
    host_names = xcalloc(nhosts, sizeof(*host_names));
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) memcpy(host_names[hostof[r]], all[r].name, sizeof(*host_names));
    free(all);
}

/* the configuration, findable in a linked executable: ident(1) / strings | grep GASNetConfig */
static const char config_ident[] __attribute__((used)) = "$GASNetConfig: " GASNET_CONFIG_STRING " $";
const char *gasnet_config_string(void) { return GASNET_CONFIG_STRING; }


int gasneti_Client_Init(int *linkconfig, const struct gasneti_layer_s *layer, gex_Client_t *client_p, gex_EP_t *ep_p,
                        gex_TM_t *tm_p, const char *clientName, int *argc, char ***argv, gex_Flags_t flags) {
    (void)linkconfig;
    if (gasneti_init_done) gasneti_fatalerror("gex_Client_Init: this release supports one client per process");
    gasneti_layer = layer;
    if (!client_p || !ep_p || !tm_p) gasneti_fatalerror("gex_Client_Init: client_p, ep_p and tm_p must not be NULL");
    /* any non-empty name, as the released library takes (the v0.8 text's [A-Z][A-Z0-9_]+
     * would refuse UPC++'s "upcxx" and GASNet's own tests' names) */
    if (!clientName || !*clientName)
        gasneti_fatalerror("gex_Client_Init: clientName is %s: give the client a name", clientName ? "empty" : "NULL");
    if (flags & ~(GEX_FLAG_USES_GASNET1 | GEX_FLAG_DEFER_THREADS))
        gasneti_fatalerror("gex_Client_Init: flags 0x%x: only GEX_FLAG_USES_GASNET1 and GEX_FLAG_DEFER_THREADS are "
                           "allowed", (unsigned)flags);

    gasneti_boot = gasnetc_bootstrap_init(argc, argv);
    gasneti_exit_init();
    gasneti_watchdog_init();
    gasneti_trace_init();
    discover_hosts();
    gasneti_rma_bypass = gasneti_getenv_yesno("GASNET_RMA_NBRHD_BYPASS", 1);
    gasneti_pshm_init();
    gasneti_segment_limits_init(); /* after PSHM: the queues' share of shared memory is known */
    if (!GASNETC_NBRHD_ONLY && gasnetc_network_init(gasneti_boot) != GASNET_OK)
        gasneti_fatalerror("gex_Client_Init: the %s network could not be initialized", GASNETC_NAME);

    gex_Client_t client = xcalloc(1, sizeof(*client));
    gex_EP_t ep = xcalloc(1, sizeof(*ep));
    gex_TM_t tm = xcalloc(1, sizeof(*tm));
    client->_name = strdup(clientName);
    client->_flags = flags;
    client->_ep0 = ep;
    client->_tm0 = tm;
    ep->_client = client;
    ep->_index = 0;
    ep->_caps = GEX_EP_CAPABILITY_ALL;
    ep->_handlers = xcalloc(256, sizeof(gex_AM_Entry_t));
    gasneti_handlers_init(ep);
    gasneti_handler_table = ep->_handlers;
    tm->_ep = ep;
    tm->_rank = gasneti_mynode;
    tm->_size = gasneti_nodes;
    gasneti_peerseg = xcalloc(gasneti_nodes, sizeof(gasneti_peerseg_t));
    for (gex_Rank_t r = 0; r < gasneti_nodes; r++) gasneti_peerseg[r]._nbr_delta = GASNETI_NOT_NBR;
    gasneti_nbr_none = xcalloc(gasneti_nodes, sizeof(intptr_t));
    tm->_nbr = gasneti_nbr_none;
    gasneti_client0 = client;
    gasneti_tm0 = tm;
    gasneti_ep_init0(ep);
    gasneti_init_done = 1;

    gasneti_boot->barrier();
    *client_p = client;
    *ep_p = ep;
    *tm_p = tm;
    return GASNET_OK;
}

gex_Rank_t gex_System_QueryJobRank(void) { return gasneti_mynode; }
gex_Rank_t gex_System_QueryJobSize(void) { return gasneti_nodes; }

/* Client threads: thread state is thread-local and made on first use, so nothing counts
 * threads; the limit reported is the configured one (--with-max-pthreads-per-node). */
uint64_t gex_System_QueryMaxThreads(void) { return GASNETI_THREADS ? (uint64_t)GASNETI_MAX_THREADS : 1; }

/* No thread of the library runs handlers: they run inside the client's own calls. */
int gex_System_QueryHiddenAMConcurrencyLevel(void) { return GASNET_HIDDEN_AM_CONCURRENCY_LEVEL; }

/* The library starts no progress threads, so a client that deferred them has none to
 * start: a count of 0 (and *info_p NULL). The errors are those the spec lists. */
int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                    const gex_ProgressThreadInfo_t **info_p, gex_Flags_t flags) {
    const char *call = "gex_System_QueryProgressThreads";
    GASNETI_CHECK_INIT(call);
    if (!count_p || !info_p || flags || client != gasneti_client0)
        return gasneti_error_return(GASNET_ERR_BAD_ARG, call, "%s",
                                    !count_p || !info_p ? "count_p and info_p must not be NULL"
                                    : flags             ? "flags must be 0"
                                                        : "client is not the client of this process");
    if (!(client->_flags & GEX_FLAG_DEFER_THREADS))
        return gasneti_error_return(GASNET_ERR_RESOURCE, call,
                                    "the client did not pass GEX_FLAG_DEFER_THREADS to gex_Client_Init");
    *count_p = 0;
    *info_p = NULL;
    return GASNET_OK;
}

void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *count_p, gex_Rank_t *myidx_p) {
    GASNETI_CHECK_INIT("gex_System_QueryNbrhdInfo");
    if (info_p) *info_p = (gex_RankInfo_t *)gasneti_nbrhd_ranks; /* layout: one gex_Rank_t */
    if (count_p) *count_p = gasneti_nbrhd_size;
    if (myidx_p) *myidx_p = gasneti_nbrhd_myidx;
}

void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *count_p, gex_Rank_t *myidx_p) {
    GASNETI_CHECK_INIT("gex_System_QueryHostInfo");
    if (info_p) *info_p = (gex_RankInfo_t *)gasneti_host_ranks;
    if (count_p) *count_p = gasneti_host_size;
    if (myidx_p) *myidx_p = gasneti_host_myidx;
}

void gex_System_QueryMyPosition(gex_Rank_t *nb_size, gex_Rank_t *nb_rank, gex_Rank_t *h_size, gex_Rank_t *h_rank) {
    GASNETI_CHECK_INIT("gex_System_QueryMyPosition");
    if (nb_size) *nb_size = gasneti_nbrhd_set_size;
    if (nb_rank) *nb_rank = gasneti_nbrhd_set_rank;
    if (h_size) *h_size = gasneti_host_set_size;
    if (h_rank) *h_rank = gasneti_host_set_rank;
}

void gasneti_bad_rank(gex_TM_t tm, gex_Rank_t rank, const char *call) {
    gasneti_fatalerror("%s: rank %u is out of range (team size %u)", call, (unsigned)rank,
                       (unsigned)tm->_size);
}

gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank) {
    return gasneti_tm_jobrank_checked(tm, rank, "gex_TM_TranslateRankToJobrank");
}

gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags) {
    gex_Rank_t jr = gasneti_tm_jobrank_checked(tm, rank, "gex_TM_TranslateRankToEP");
    if (flags) gasneti_fatalerror("gex_TM_TranslateRankToEP: flags must be 0 (got 0x%x)", (unsigned)flags);
    gex_EP_Location_t loc = {jr, gasneti_tm_epidx(tm, rank)};
    return loc;
}

/* the first team rank on that process (a team may hold several of its endpoints) */
gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank) {
    if (!tm->_jobranks) return jobrank < tm->_size ? jobrank : GEX_RANK_INVALID;
    for (gex_Rank_t r = 0; r < tm->_size; r++)
        if (tm->_jobranks[r] == jobrank) return r;
    return GEX_RANK_INVALID;
}
