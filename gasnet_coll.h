/* gasnet_coll.h: collectives over teams (spec "Collectives"): gex_Coll_BroadcastNB,
 * gex_Coll_ReduceToOneNB, gex_Coll_ReduceToAllNB (gex_Coll_BarrierNB is in gasnetex.h).
 * Layer: public. Implemented in gasnet_extended/gasnete_coll.c; see docs/teams.md. The
 * GASNet-1 prototype gasnet_coll_* interface is superseded by these and not provided. */
#ifndef GASNET_COLL_H
#define GASNET_COLL_H
#include <gasnetex.h>

GASNETI_BEGIN_EXTERNC

typedef void (*gex_Coll_ReduceFn_t)(const void *arg1, void *arg2_and_out, size_t count, const void *cdata);

extern gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src, size_t nbytes,
                                        gex_Flags_t flags);
extern gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src, gex_DT_t dt,
                                          size_t dt_sz, size_t dt_cnt, gex_OP_t op, gex_Coll_ReduceFn_t user_op,
                                          void *user_cdata, gex_Flags_t flags);
extern gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt, size_t dt_sz,
                                          size_t dt_cnt, gex_OP_t op, gex_Coll_ReduceFn_t user_op,
                                          void *user_cdata, gex_Flags_t flags);

GASNETI_END_EXTERNC

#endif
