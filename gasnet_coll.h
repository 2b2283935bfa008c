/* gasnet_coll.h: collectives over teams (spec "Collectives"): gex_Coll_BroadcastNB,
 * gex_Coll_ReduceToOneNB, gex_Coll_ReduceToAllNB (gex_Coll_BarrierNB is in gasnetex.h),
 * and the GASNet-1 prototype collectives gasnet_coll_* (broadcast, scatter, gather,
 * gather_all, exchange, blocking and _nb, with their handle syncs), which the released
 * GASNet-EX dropped and GASNet-1 clients still call, and the GASNet-1 team barrier and
 * tuning dumps, which it kept.
 * Layer: public. Implemented in gasnet_extended/gasnete_coll.c and gasnete_coll1.c; see
 * docs/teams.md and docs/coll1.md. */
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

/* ---- the GASNet-1 collectives (docs/coll1.md) ---- */
/* a team: GASNET_TEAM_ALL (the primordial team, after gasnet_attach or gex_Client_Init)
 * or any gex_TM_t team that collectives may use */
typedef gex_TM_t gasnet_team_handle_t;
#define GASNET_TEAM_ALL ((gasnet_team_handle_t)gasneti_tm0)
typedef uint32_t gasnet_image_t; /* a rank of the team (one image per process) */
typedef gex_Event_t gasnet_coll_handle_t;
#define GASNET_COLL_INVALID_HANDLE ((gasnet_coll_handle_t)0)

/* flags: exactly one IN_*, exactly one OUT_* and exactly one of SINGLE and LOCAL */
#define GASNET_COLL_IN_NOSYNC (1 << 0)
#define GASNET_COLL_IN_MYSYNC (1 << 1)
#define GASNET_COLL_IN_ALLSYNC (1 << 2)
#define GASNET_COLL_OUT_NOSYNC (1 << 3)
#define GASNET_COLL_OUT_MYSYNC (1 << 4)
#define GASNET_COLL_OUT_ALLSYNC (1 << 5)
#define GASNET_COLL_SINGLE (1 << 6)
#define GASNET_COLL_LOCAL (1 << 7)
#define GASNET_COLL_AGGREGATE (1 << 8)
#define GASNET_COLL_DST_IN_SEGMENT (1 << 9)
#define GASNET_COLL_SRC_IN_SEGMENT (1 << 10)

extern gasnet_coll_handle_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                                     void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                                   void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_gather_nb(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                                                  void *src, size_t nbytes, int flags);
extern gasnet_coll_handle_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                                                      int flags);
extern gasnet_coll_handle_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                                                    int flags);
extern void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage, void *src,
                                  size_t nbytes, int flags);
extern void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage, void *src,
                                size_t nbytes, int flags);
extern void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst, void *src,
                               size_t nbytes, int flags);
extern void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes, int flags);
extern void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes, int flags);

extern void gasnet_coll_wait_sync(gasnet_coll_handle_t handle);
extern int gasnet_coll_try_sync(gasnet_coll_handle_t handle); /* GASNET_OK or GASNET_ERR_NOT_READY */
extern void gasnet_coll_wait_sync_all(gasnet_coll_handle_t *handles, size_t numhandles);
extern int gasnet_coll_try_sync_all(gasnet_coll_handle_t *handles, size_t numhandles);
extern void gasnet_coll_wait_sync_some(gasnet_coll_handle_t *handles, size_t numhandles);
extern int gasnet_coll_try_sync_some(gasnet_coll_handle_t *handles, size_t numhandles);

/* the GASNet-1 barrier on a team (gasnet_barrier_* on GASNET_TEAM_ALL; flags and return
 * codes as there) and the collectives' tuning-state and profile dumps (docs/coll1.md) */
extern void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags);
extern int gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags);
extern void gasnet_coll_dumpTuningState(char *filename, gasnet_team_handle_t team);
extern void gasnet_coll_dumpProfile(char *filename, gasnet_team_handle_t team);

GASNETI_END_EXTERNC

#endif
