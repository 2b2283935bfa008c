/* gasnet.h: the legacy GASNet-1 API (spec: gasnet-1-spec-v1.8.1), built on gasnetex.h.
 * Layer: public. Present: init/attach, job queries, segment info, AMs, HSLs,
 * blocking/NB/NBI put and get with their syncs, memset, no-interrupt sections, the value
 * forms, access regions; the barriers, segment limits, wait mode, gasnet_seginfo_t and the
 * thread-info macros are in gasnetex.h (the released one has them too). The GASNet-1 VIS prototype
 * (gasnet_{put,get}{v,i,s}) is in gasnet_vis.h with the gex_VIS_* calls. */
#ifndef GASNET_H
#define GASNET_H
#define _GASNET_H 1 /* the released header's guard, which clients test to tell which headers they have */

#include <gasnetex.h>

GASNETI_BEGIN_EXTERNC

/* ---- init and job queries ---- */
typedef struct {
    gasnet_handler_t index;
    void (*fnptr)();
} gasnet_handlerentry_t;

extern int gasneti_legacy_init(int *linkconfig, const struct gasneti_layer_s *layer, int *argc, char ***argv);
#define gasnet_init(argc, argv) gasneti_legacy_init(&GASNETI_LINKCONFIG, &gasnete_layer, argc, argv)
extern int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize, uintptr_t minheapoffset);
#if GASNETI_TRACE /* the caller's source line for gasnet_trace (see gasnete_rma_api.h) */
#  define gasnet_attach(...) (GASNETI_TRACE_SRC(), gasnet_attach(__VA_ARGS__))
#endif
extern void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                                   gex_Segment_t *segment_p);
extern int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries);
typedef struct {
    gasnet_node_t host;      /* the host the node runs on, an index from 0 */
    gasnet_node_t supernode; /* its shared-memory neighborhood, an index from 0 */
    intptr_t offset;         /* add to its segment addresses for ours (0: not load/store reachable) */
} gasnet_nodeinfo_t;
extern int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries);
extern char *gasnet_getenv(const char *name);
GASNETI_ALWAYS_INLINE gasnet_node_t gasnet_mynode(void) { return gasneti_mynode; }
GASNETI_ALWAYS_INLINE gasnet_node_t gasnet_nodes(void) { return gasneti_nodes; }

/* no-interrupt sections: handlers only run inside GASNet calls here, so these are no-ops */
#define gasnet_hold_interrupts() ((void)0)
#define gasnet_resume_interrupts() ((void)0)

/* ---- Active Messages ---- */
#define gasnet_AMMaxArgs() ((size_t)gex_AM_MaxArgs())
#define gasnet_AMMaxMedium() gex_AM_LUBRequestMedium()
#define gasnet_AMMaxLongRequest() gex_AM_LUBRequestLong()
#define gasnet_AMMaxLongReply() gex_AM_LUBReplyLong()
extern int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex);

/* ---- put and get (non-bulk sources are reusable at return, as for bulk here) ---- */
#define gasnet_put(node, dest, src, nbytes) ((void)gex_RMA_PutBlocking(gasneti_tm0, node, dest, src, nbytes, 0))
#define gasnet_put_bulk gasnet_put
#define gasnet_get(dest, node, src, nbytes) ((void)gex_RMA_GetBlocking(gasneti_tm0, dest, node, src, nbytes, 0))
#define gasnet_get_bulk gasnet_get
#define gasnet_put_nb(node, dest, src, nbytes) \
    gex_RMA_PutNB(gasneti_tm0, node, dest, src, nbytes, GEX_EVENT_NOW, 0)
#define gasnet_put_nb_bulk(node, dest, src, nbytes) \
    gex_RMA_PutNB(gasneti_tm0, node, dest, src, nbytes, GEX_EVENT_DEFER, 0)
#define gasnet_get_nb(dest, node, src, nbytes) gex_RMA_GetNB(gasneti_tm0, dest, node, src, nbytes, 0)
#define gasnet_get_nb_bulk gasnet_get_nb
#define gasnet_put_nbi(node, dest, src, nbytes) \
    ((void)gex_RMA_PutNBI(gasneti_tm0, node, dest, src, nbytes, GEX_EVENT_NOW, 0))
#define gasnet_put_nbi_bulk(node, dest, src, nbytes) \
    ((void)gex_RMA_PutNBI(gasneti_tm0, node, dest, src, nbytes, GEX_EVENT_DEFER, 0))
#define gasnet_get_nbi(dest, node, src, nbytes) ((void)gex_RMA_GetNBI(gasneti_tm0, dest, node, src, nbytes, 0))
#define gasnet_get_nbi_bulk gasnet_get_nbi
/* value forms (3.4.1-3.4.3): the low-order nbytes of a gasnet_register_value_t */
#define gasnet_put_val(node, dest, value, nbytes) \
    ((void)gex_RMA_PutBlockingVal(gasneti_tm0, node, dest, value, nbytes, 0))
#define gasnet_put_nb_val(node, dest, value, nbytes) gex_RMA_PutNBVal(gasneti_tm0, node, dest, value, nbytes, 0)
#define gasnet_put_nbi_val(node, dest, value, nbytes) \
    ((void)gex_RMA_PutNBIVal(gasneti_tm0, node, dest, value, nbytes, 0))
#define gasnet_get_val(node, src, nbytes) gex_RMA_GetBlockingVal(gasneti_tm0, node, src, nbytes, 0)
/* A non-blocking value get fetches at once and its handle is the value itself (the spec
 * allows any opaque type; there is no invalid value and no try form): correct on every
 * conduit, but it does not overlap the fetch with other work. */
typedef gasnet_register_value_t gasnet_valget_handle_t;
#define gasnet_get_nb_val(node, src, nbytes) ((gasnet_valget_handle_t)gasnet_get_val(node, src, nbytes))
#define gasnet_wait_syncnb_valget(handle) ((gasnet_register_value_t)(handle))
/* implicit access regions (3.3.6.1) */
#define gasnet_begin_nbi_accessregion() gex_NBI_BeginAccessRegion(0)
#define gasnet_end_nbi_accessregion() gex_NBI_EndAccessRegion(0)
extern void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes);
extern gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes);
extern void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes);

/* ---- synchronization (the try forms poll, unlike gex_Event_Test) ---- */
#define gasnet_wait_syncnb(h) gex_Event_Wait(h)
#define gasnet_wait_syncnb_all(h, n) gex_Event_WaitAll(h, n, 0)
#define gasnet_wait_syncnb_some(h, n) gex_Event_WaitSome(h, n, 0)
#define gasnet_wait_syncnbi_gets() gex_NBI_Wait(GEX_EC_GET, 0)
#define gasnet_wait_syncnbi_puts() gex_NBI_Wait(GEX_EC_PUT, 0)
#define gasnet_wait_syncnbi_all() gex_NBI_Wait(GEX_EC_ALL, 0)
#define gasnet_try_syncnb(h) (gasneti_AMPoll(), gex_Event_Test(h) ? GASNET_ERR_NOT_READY : GASNET_OK)
#define gasnet_try_syncnb_all(h, n) (gasneti_AMPoll(), gex_Event_TestAll(h, n, 0) ? GASNET_ERR_NOT_READY : GASNET_OK)
#define gasnet_try_syncnb_some(h, n) (gasneti_AMPoll(), gex_Event_TestSome(h, n, 0) ? GASNET_ERR_NOT_READY : GASNET_OK)
#define gasnet_try_syncnbi_gets() (gasneti_AMPoll(), gex_NBI_Test(GEX_EC_GET, 0) ? GASNET_ERR_NOT_READY : GASNET_OK)
#define gasnet_try_syncnbi_puts() (gasneti_AMPoll(), gex_NBI_Test(GEX_EC_PUT, 0) ? GASNET_ERR_NOT_READY : GASNET_OK)
#define gasnet_try_syncnbi_all() (gasneti_AMPoll(), gex_NBI_Test(GEX_EC_ALL, 0) ? GASNET_ERR_NOT_READY : GASNET_OK)

GASNETI_END_EXTERNC

#include "gasneti_legacy_am.h"
#endif
