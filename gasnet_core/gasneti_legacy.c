/* gasneti_legacy.c: the out-of-line parts of the GASNet-1 API (gasnet.h): two-step
 * init/attach over gex_Client_Init/gex_Segment_Attach, segment and node info.
 * Layer: core (gasnet_memset*, built on RMA, are the extended layer's: gasnete_legacy.c). */
#include "conduit_contract.h"

#include <gasnet.h>
#include <string.h>

static gex_Client_t legacy_client;
static gex_EP_t legacy_ep;
static gex_TM_t legacy_tm;
static gex_Segment_t legacy_seg;

int gasneti_legacy_init(int *linkconfig, const struct gasneti_layer_s *layer, int *argc, char ***argv) {
    if (gasneti_init_done) gasneti_fatalerror("gasnet_init: called more than once");
    return gasneti_Client_Init(linkconfig, layer, &legacy_client, &legacy_ep, &legacy_tm, "GASNET1", argc, argv,
                               GEX_FLAG_USES_GASNET1);
}

int(gasnet_attach)(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize, uintptr_t minheapoffset) {
    (void)minheapoffset;
    if (!gasneti_init_done) gasneti_fatalerror("gasnet_attach: called before gasnet_init");
    if (segsize % GASNET_PAGESIZE)
        gasneti_fatalerror("gasnet_attach: segsize %zu is not a multiple of GASNET_PAGESIZE (%d)", (size_t)segsize,
                           GASNET_PAGESIZE);
    if (numentries < 0 || (numentries && !table)) gasneti_fatalerror("gasnet_attach: bad handler table");
    gex_AM_Entry_t *ex = calloc(numentries ? (size_t)numentries : 1, sizeof(gex_AM_Entry_t));
    for (int i = 0; i < numentries; i++) {
        ex[i].gex_index = table[i].index;
        ex[i].gex_fnptr = (gex_AM_Fn_t)table[i].fnptr;
        ex[i].gex_flags = GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQREP;
        ex[i].gex_nargs = GASNETI_NARGS_ANY;
    }
    gasneti_register_handlers(legacy_ep, ex, (size_t)numentries, 1);
    for (int i = 0; i < numentries; i++) table[i].index = ex[i].gex_index; /* assigned ones are written back */
    free(ex);
    (gex_Segment_Attach)(&legacy_seg, legacy_tm, segsize ? segsize : GASNET_PAGESIZE);
    return GASNET_OK;
}

void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p, gex_Segment_t *seg_p) {
    if (!gasneti_init_done) gasneti_fatalerror("gasnet_QueryGexObjects: called before initialization");
    if (client_p) *client_p = gasneti_client0;
    if (ep_p) *ep_p = gasneti_client0->_ep0;
    if (tm_p) *tm_p = gasneti_tm0;
    if (seg_p) *seg_p = gasneti_client0->_ep0->_segment;
}

int gasnet_getSegmentInfo(gasnet_seginfo_t *table, int numentries) {
    if (!gasneti_attach_done) return GASNET_ERR_NOT_INIT;
    if (numentries < 0 || (numentries && !table)) return GASNET_ERR_BAD_ARG;
    for (int i = 0; i < numentries && (gex_Rank_t)i < gasneti_nodes; i++) {
        table[i].addr = gasneti_peerseg[i]._owner_addr;
        table[i].size = gasneti_peerseg[i]._size;
    }
    return GASNET_OK;
}

/* GASNet-1 (as GASNet releases provide it): per node, the host it runs on and its
 * shared-memory neighborhood ("supernode"), both as indices from 0, and the offset to add
 * to its segment addresses to reach them here (0 when it is not a load/store peer) */
int gasnet_getNodeInfo(gasnet_nodeinfo_t *table, int numentries) {
    if (!gasneti_init_done) return GASNET_ERR_NOT_INIT;
    if (numentries < 0 || (numentries && !table)) return GASNET_ERR_BAD_ARG;
    for (int i = 0; i < numentries && (gex_Rank_t)i < gasneti_nodes; i++) {
        table[i].host = gasneti_rank_host[i];
        table[i].supernode = gasneti_rank_nbrhd[i];
        intptr_t d = gasneti_attach_done ? gasneti_peerseg[i]._nbr_delta : GASNETI_NOT_NBR;
        table[i].offset = d == GASNETI_NOT_NBR ? 0 : d;
    }
    return GASNET_OK;
}

char *gasnet_getenv(const char *name) { return (char *)gasneti_getenv(name); }

int gasnet_set_waitmode(int wait_mode) {
    if (wait_mode != GASNET_WAIT_SPIN && wait_mode != GASNET_WAIT_BLOCK && wait_mode != GASNET_WAIT_SPINBLOCK)
        return gasneti_error_return(GASNET_ERR_BAD_ARG, "gasnet_set_waitmode", "%d is not a GASNET_WAIT_* mode",
                                    wait_mode);
    return GASNET_OK; /* advisory: waits always poll */
}

int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex) {
    if (!token || !srcindex) return GASNET_ERR_BAD_ARG;
    *srcindex = token->srcrank;
    return GASNET_OK;
}
