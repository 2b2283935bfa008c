/* gasneti_am_api.h: public Active Message API: handler registration, limits, token
 * queries, injection entry points and polling.
 * Layer: core (installed, included by gasnetex.h). The numbered and variadic
 * injection macros are generated into gasneti_am_macros.h. */
#ifndef GASNETI_AM_API_H
#define GASNETI_AM_API_H

GASNETI_BEGIN_EXTERNC

extern int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries);

/* ---- limits ---- */
GASNETI_ALWAYS_INLINE unsigned int gex_AM_MaxArgs(void) { return GASNETI_MAX_ARGS; }
extern size_t gasneti_am_max_medium, gasneti_am_max_long; /* set at init, same on every rank */
extern size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                                    gex_Flags_t flags, unsigned int numargs);
extern size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                                  gex_Flags_t flags, unsigned int numargs);
extern size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                                      gex_Flags_t flags, unsigned int numargs);
extern size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                                    gex_Flags_t flags, unsigned int numargs);
extern size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags,
                                     unsigned int numargs);
extern size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags,
                                       unsigned int numargs);
extern size_t gex_AM_LUBRequestLong(void);
extern size_t gex_AM_LUBReplyLong(void);
extern size_t gex_AM_LUBRequestMedium(void);
extern size_t gex_AM_LUBReplyMedium(void);

extern gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask);
/* every field, for every token, on every conduit */
#define GASNET_SUPPORTS_TI_SRCRANK 1
#define GASNET_SUPPORTS_TI_EP 1
#define GASNET_SUPPORTS_TI_ENTRY 1
#define GASNET_SUPPORTS_TI_IS_REQ 1
#define GASNET_SUPPORTS_TI_IS_LONG 1

/* ---- injection: each generated numbered form calls one of these with its arguments
 * in an array (NULL when there are none) ---- */
extern int gasneti_AM_RequestShortA(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, gex_Flags_t flags,
                                    unsigned int nargs, const gex_AM_Arg_t *args);
extern int gasneti_AM_ReplyShortA(gex_Token_t token, gex_AM_Index_t handler, gex_Flags_t flags, unsigned int nargs,
                                  const gex_AM_Arg_t *args);
extern int gasneti_AM_RequestMediumA(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, const void *source_addr,
                                     size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int nargs,
                                     const gex_AM_Arg_t *args);
extern int gasneti_AM_ReplyMediumA(gex_Token_t token, gex_AM_Index_t handler, const void *source_addr, size_t nbytes,
                                   gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int nargs,
                                   const gex_AM_Arg_t *args);
extern int gasneti_AM_RequestLongA(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, const void *source_addr,
                                   size_t nbytes, void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,
                                   unsigned int nargs, const gex_AM_Arg_t *args);
extern int gasneti_AM_ReplyLongA(gex_Token_t token, gex_AM_Index_t handler, const void *source_addr, size_t nbytes,
                                 void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int nargs,
                                 const gex_AM_Arg_t *args);

/* ---- negotiated payload (gasneti_am_prepare.c): Prepare and Cancel here, Commit[0..16]
 * and Commit[0..16]_v2 generated ---- */
extern gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                                    size_t least_payload, size_t most_payload, gex_Event_t *lc_opt,
                                                    gex_Flags_t flags, unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf, size_t least_payload,
                                                  size_t most_payload, gex_Event_t *lc_opt, gex_Flags_t flags,
                                                  unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                                  size_t least_payload, size_t most_payload, void *dest_addr,
                                                  gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int numargs);
extern gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf, size_t least_payload,
                                                size_t most_payload, void *dest_addr, gex_Event_t *lc_opt,
                                                gex_Flags_t flags, unsigned int numargs);
/* the Commit entry points: commit_flags as gex_AM_Commit*_v2 takes them (0 for the
 * void gex_AM_Commit*), non-zero when GEX_FLAG_IMMEDIATE found no room (nothing sent,
 * the descriptor still pending) */
extern int gasneti_AM_CommitRequestMediumA(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                                           gex_Flags_t commit_flags, unsigned int nargs, const gex_AM_Arg_t *args);
extern int gasneti_AM_CommitReplyMediumA(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                                         gex_Flags_t commit_flags, unsigned int nargs, const gex_AM_Arg_t *args);
extern int gasneti_AM_CommitRequestLongA(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                                         void *dest_addr, gex_Flags_t commit_flags, unsigned int nargs,
                                         const gex_AM_Arg_t *args);
extern int gasneti_AM_CommitReplyLongA(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes,
                                       void *dest_addr, gex_Flags_t commit_flags, unsigned int nargs,
                                       const gex_AM_Arg_t *args);
/* Cancel a Prepare: nothing is sent, the descriptor is consumed; flags must be 0
 * (GASNET_ERR_BAD_ARG otherwise, the descriptor then still pending) */
extern int gex_AM_CancelRequestMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelReplyMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelRequestLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
extern int gex_AM_CancelReplyLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags);
/* the released feature macros of these two additions (their values are the dates of
 * the semantics they name) */
#define GASNET_SUPPORTS_AM_CANCEL 20240418L
#define GASNET_SUPPORTS_AM_COMMIT_V2 20240906L
/* GASNET_NATIVE_NP_ALLOC_{REQ,REP}_{MEDIUM,LONG} (the released hint: defined to 1 when a
 * Prepare with the library's buffer saves a copy over the fixed-payload call on the
 * conduit's transport, peers outside the neighborhood; undefined otherwise; docs/am.md):
 * Medium requests and replies of a conduit that builds messages around the payload in
 * its own send memory (GASNETC_AM_PREPARE); Medium requests where every peer is a
 * neighbor (GASNETC_NBRHD_ONLY: the shared-memory slot is written in place). Long
 * payloads are copied on every conduit: the _LONG ones stay undefined. */
#if (defined(GASNETC_AM_PREPARE) && GASNETC_AM_PREPARE) || (defined(GASNETC_NBRHD_ONLY) && GASNETC_NBRHD_ONLY)
#  define GASNET_NATIVE_NP_ALLOC_REQ_MEDIUM 1
#endif
#if defined(GASNETC_AM_PREPARE) && GASNETC_AM_PREPARE
#  define GASNET_NATIVE_NP_ALLOC_REP_MEDIUM 1
#endif
#if defined(GASNET_DEBUG) && GASNET_DEBUG
extern void gasneti_srcdesc_check(gex_AM_SrcDesc_t sd, const char *call);
#  define GASNETI_SRCDESC_CHECK(sd, call) gasneti_srcdesc_check(sd, call)
#else
#  define GASNETI_SRCDESC_CHECK(sd, call) ((void)0)
#endif
GASNETI_ALWAYS_INLINE void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t _sd) {
    GASNETI_SRCDESC_CHECK(_sd, "gex_AM_SrcDescAddr");
    return _sd->_addr;
}
GASNETI_ALWAYS_INLINE size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t _sd) {
    GASNETI_SRCDESC_CHECK(_sd, "gex_AM_SrcDescSize");
    return _sd->_size;
}

/* ---- progress ---- */
extern int gasneti_AMPoll(void);
#define gasnet_AMPoll() gasneti_AMPoll()
/* Poll until cond holds (cond is expected to change only in handlers). */
#define GASNET_BLOCKUNTIL(cond)          \
    do {                                 \
        while (!(cond)) gasneti_AMPoll(); \
    } while (0)

GASNETI_END_EXTERNC

#include "gasneti_am_macros.h"
#endif
