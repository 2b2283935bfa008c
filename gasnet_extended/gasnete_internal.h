/* gasnete_internal.h: declarations shared by the reference extended layer's files.
 * Layer: extended, internal. Built only against conduit_contract.h and the core. */
#ifndef GASNETE_INTERNAL_H
#define GASNETE_INTERNAL_H

#include "conduit_contract.h"
#include "gasneti_event.h" /* events, NBI counters, local completion (the core's) */

#include <string.h>

/* registered with the core in gasnete_layer (gasnete_amrma.c): barrier and collective
 * progress (gasnete_barrier.c), polled while gasneti_progress_needed; every put issued so
 * far complete at its target, at a normal exit (gasnete_rma.c) */
extern void gasnete_progress(void);
extern void gasnete_rma_quiesce(void);
/* the state dump's description of this layer's waits (gasnete_diag.c), and its parts: the
 * oldest primordial barrier (gasnete_barrier.c), the collective of an event (gasnete_coll.c;
 * 0 if ev is none's) */
extern void gasnete_describe(const gasneti_waitrec_t *w, char *buf, size_t len);
extern void gasnete_barrier_describe(char *buf, size_t len);
extern int gasnete_coll_describe(gex_Event_t ev, char *buf, size_t len);

/* AM-based reference RMA: moves [src, src+n) and decrements *done once complete.
 * Returns nonzero only if IMMEDIATE is in flags and nothing was started. */
extern int gasnete_amrma_put(gex_EP_Index_t ep, gex_Rank_t jobrank, void *dest, const void *src, size_t n, gasneti_counter_t *done,
                             gex_Flags_t flags);
extern int gasnete_amrma_get(void *dest, gex_Rank_t jobrank, void *src, size_t n, gasneti_counter_t *done,
                             gex_Flags_t flags);

/* remote atomics done by AM (gasnete_ratomic.c), registered with the handlers above */
extern void gasnete_amo_req_handler(gex_Token_t t, gex_AM_Arg_t ahi, gex_AM_Arg_t alo, gex_AM_Arg_t code,
                                    gex_AM_Arg_t a1hi, gex_AM_Arg_t a1lo, gex_AM_Arg_t a2hi, gex_AM_Arg_t a2lo,
                                    gex_AM_Arg_t rhi, gex_AM_Arg_t rlo, gex_AM_Arg_t dhi, gex_AM_Arg_t dlo);
extern void gasnete_amo_rep_handler(gex_Token_t t, gex_AM_Arg_t vhi, gex_AM_Arg_t vlo, gex_AM_Arg_t rhi,
                                    gex_AM_Arg_t rlo, gex_AM_Arg_t dhi, gex_AM_Arg_t dlo, gex_AM_Arg_t four);

/* VIS packets (gasnete_vis.c) */
extern void gasnete_vis_put_req_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t dhi, gex_AM_Arg_t dlo,
                                        gex_AM_Arg_t ihi, gex_AM_Arg_t ilo, gex_AM_Arg_t total);
extern void gasnete_vis_put_rep_handler(gex_Token_t t, gex_AM_Arg_t dhi, gex_AM_Arg_t dlo);
extern void gasnete_vis_get_req_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t dhi, gex_AM_Arg_t dlo);
extern void gasnete_vis_get_rep_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t dhi, gex_AM_Arg_t dlo);
extern void gasnete_vis_peer_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t hidx);

/* the built-in data types of atomics and reductions: size in bytes (0: not built-in) and name */
static inline size_t gasnete_dt_size(gex_DT_t dt) {
    switch (dt) {
    case GEX_DT_I32: case GEX_DT_U32: case GEX_DT_FLT: return 4;
    case GEX_DT_I64: case GEX_DT_U64: case GEX_DT_DBL: return 8;
    default: return 0;
    }
}
static inline const char *gasnete_dt_name(gex_DT_t dt) {
    switch (dt) {
    case GEX_DT_I32: return "GEX_DT_I32";
    case GEX_DT_U32: return "GEX_DT_U32";
    case GEX_DT_I64: return "GEX_DT_I64";
    case GEX_DT_U64: return "GEX_DT_U64";
    case GEX_DT_FLT: return "GEX_DT_FLT";
    case GEX_DT_DBL: return "GEX_DT_DBL";
    case GEX_DT_USER: return "GEX_DT_USER";
    default: return "an unknown data type";
    }
}

/* Layout of a process's collectives area (gasneti_pshm_coll_area): its first page holds the
 * shared-memory broadcast's slot headers (gasnete_coll.c), from GASNETE_SHM_REDUCE_OFF the
 * exchange words of the same-host small reductions (gasnete_coll.c), from
 * GASNETE_SHM_BARRIER_OFF those of the same-host barrier (gasnete_barrier.c); the
 * broadcast's slots follow the page. */
#define GASNETE_SHM_REDUCE_OFF ((size_t)2048)
#define GASNETE_SHM_REDUCE_CAP ((size_t)256) /* bytes a rank brings to one reduction, at most */
#define GASNETE_SHM_BARRIER_OFF ((size_t)3072)

/* Do all members of tm share this host's memory (every one has a collectives area here)?
 * Found once per team (gasnete_coll.c). */
extern int gasnete_coll_team_on_host(gex_TM_t tm);

/* ---- the same-host exchange: the primordial team's barrier and small reductions when
 * every rank is on this host. A user owns GASNETE_SHMX_BYTES(cap) bytes at `off` of every
 * collectives area: two arrival counts (in rank 0's area), then two data places of cap
 * bytes (in every area). Exchange s uses parity p = s % 2: a rank copies its data into its
 * own data[p], then adds one to count[p] (release); s is complete when count[p] reaches
 * (s / 2 + 1) * N, and each rank may then read every rank's data[p]. Counts only grow.
 * The user takes its exchanges one at a time, in the same order on every rank, and reads
 * exchange s before it arrives at s + 1; then no rank arrives at s + 2 (rewriting data[p])
 * before every rank has read s, since s + 1 cannot complete without every arrival. ---- */
#define GASNETE_SHMX_BYTES(cap) (128 + 2 * (size_t)(cap))
static inline uint64_t *gasnete_shmx_count(size_t off, uint32_t s) {
    return (uint64_t *)(gasneti_pshm_coll_area(0) + off + 64 * (s % 2));
}
static inline const uint8_t *gasnete_shmx_data(size_t off, size_t cap, uint32_t s, gex_Rank_t r) {
    return gasneti_pshm_coll_area(r) + off + 128 + (s % 2) * cap;
}
static inline void gasnete_shmx_arrive(size_t off, size_t cap, uint32_t s, const void *data, size_t len) {
    memcpy((uint8_t *)gasnete_shmx_data(off, cap, s, gasneti_mynode), data, len);
    __atomic_add_fetch(gasnete_shmx_count(off, s), 1, __ATOMIC_RELEASE);
}
static inline int gasnete_shmx_done(size_t off, uint32_t s) {
    return __atomic_load_n(gasnete_shmx_count(off, s), __ATOMIC_ACQUIRE) >= ((uint64_t)s / 2 + 1) * gasneti_nodes;
}

/* collectives and teams (gasnete_coll.c, gasnete_team.c) */
extern void gasnete_coll_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t team, gex_AM_Arg_t seq,
                                 gex_AM_Arg_t tag, gex_AM_Arg_t src, gex_AM_Arg_t off, gex_AM_Arg_t total);
extern void gasnete_coll_progress(void);
extern gex_Event_t gasnete_coll_barrier(gex_TM_t tm);
/* every member's nbytes from src, in team rank order, into dst (n * nbytes); src is read once
 * the operation runs, so it must stay valid until completion */
extern gex_Event_t gasnete_coll_gather_all(gex_TM_t tm, void *dst, const void *src, size_t nbytes);
/* frees a GASNet-1 team barrier left notified on a team being destroyed (gasnete_coll1.c) */
extern void gasnete_coll1_team_free(gex_TM_t tm);
/* The data movement of a GASNet-1 collective (gasnete_coll1.c) over tm, with each rank's
 * own addresses: BROADCAST nbytes from root's src to every dst; SCATTER block i (nbytes)
 * of root's src to rank i's dst; GATHER every src to block i of root's dst; GATHER_ALL
 * every src to block i of every dst; EXCHANGE block j of rank i's src to block i of rank
 * j's dst. sync adds a barrier before (nothing is read or written until every rank has
 * started) and/or after (complete once every rank's part is). The returned event
 * completes once this rank's part is done: a new event if ev is NULL, else ev, which then
 * stands for one more operation. call names the client's call in error messages. */
enum { GASNETE_COLL_BROADCAST, GASNETE_COLL_SCATTER, GASNETE_COLL_GATHER, GASNETE_COLL_GATHER_ALL, GASNETE_COLL_EXCHANGE };
#define GASNETE_COLL_BARRIER_BEFORE 1
#define GASNETE_COLL_BARRIER_AFTER 2
extern gex_Event_t gasnete_coll_move(gex_TM_t tm, int what, gex_Rank_t root, void *dst, const void *src,
                                     size_t nbytes, int sync, gex_Event_t ev, const char *call);

/* pointers travel in two 32-bit handler arguments */
#define GASNETE_HI(p) ((gex_AM_Arg_t)(uint32_t)((uint64_t)(uintptr_t)(p) >> 32))
#define GASNETE_LO(p) ((gex_AM_Arg_t)(uint32_t)(uintptr_t)(p))
#define GASNETE_PTR(hi, lo) ((void *)(uintptr_t)(((uint64_t)(uint32_t)(hi) << 32) | (uint32_t)(lo)))

#endif
