/* gasnet_fwd.h: the simple GASNet-EX types and constants, for a client's own headers
 * that must name them without including gasnetex.h (spec "The gasnet_fwd.h header").
 * Layer: public. Only typedefs of scalar and handle types, and #define constants whose
 * names begin GEX_ or _GEX_; it needs no threading mode, no gasnet_config.h and no
 * library, and compiles as C and C++. gasnetex.h includes it: the values here are the
 * library's own. Handles are pointers to structures only the library completes. */
#ifndef _GEX_FWD_H
#define _GEX_FWD_H

#include <stdint.h>

/* ---- scalar types ---- */
typedef uint32_t gex_Rank_t;
typedef uint32_t gex_Flags_t;
typedef uint8_t gex_AM_Index_t;
typedef int32_t gex_AM_Arg_t;
typedef uint32_t gex_EC_t;
typedef uint32_t gex_TI_t;
typedef uint32_t gex_DT_t;
typedef uint32_t gex_OP_t;
typedef uint32_t gex_EP_Index_t;
typedef uint32_t gex_EP_Capabilities_t;
typedef void *gex_Addr_t;

#define GEX_RANK_INVALID ((gex_Rank_t)0xFFFFFFFFu)
#define GEX_EP_INDEX_INVALID ((gex_EP_Index_t)0xFFFFFFFFu)

/* ---- handles ---- */
typedef struct gasneti_client_s *gex_Client_t;
typedef struct gasneti_ep_s *gex_EP_t;
typedef struct gasneti_tm_s *gex_TM_t;
typedef struct gasneti_segment_s *gex_Segment_t;
typedef struct gasneti_token_s *gex_Token_t;
typedef struct gasneti_event_s *gex_Event_t;
typedef struct gasneti_srcdesc_s *gex_AM_SrcDesc_t;
typedef struct gasneti_memkind_s *gex_MemKind_t;
typedef gex_MemKind_t gex_MK_t; /* the released name */

#define GEX_SEGMENT_INVALID ((gex_Segment_t)0)
#define GEX_TM_INVALID ((gex_TM_t)0)
#define GEX_EP_INVALID ((gex_EP_t)0)
#define GEX_CLIENT_INVALID ((gex_Client_t)0)
#define GEX_AM_SRCDESC_NO_OP ((gex_AM_SrcDesc_t)0)
#define GEX_EVENT_INVALID ((gex_Event_t)0)
#define GEX_EVENT_NO_OP ((gex_Event_t)(uintptr_t)1)
#define GEX_EVENT_NOW ((gex_Event_t *)(uintptr_t)1)
#define GEX_EVENT_DEFER ((gex_Event_t *)(uintptr_t)2)
#define GEX_EVENT_GROUP ((gex_Event_t *)(uintptr_t)3)
#define GEX_MEMKIND_HOST ((gex_MemKind_t)(uintptr_t)1)
#define GEX_MK_HOST GEX_MEMKIND_HOST
#define GEX_MK_INVALID ((gex_MK_t)0)

/* ---- flags of communication calls (one bit each, so debug builds can check
 * combinations; the released spec lets unrelated calls share bits) ---- */
#define GEX_FLAG_IMMEDIATE ((gex_Flags_t)1u << 0)
#define GEX_FLAG_LC_COPY_YES ((gex_Flags_t)1u << 1)
#define GEX_FLAG_LC_COPY_NO ((gex_Flags_t)1u << 2)
#define GEX_FLAG_SELF_SEG_UNKNOWN ((gex_Flags_t)1u << 3)
#define GEX_FLAG_SELF_SEG_SOME ((gex_Flags_t)1u << 4)
#define GEX_FLAG_SELF_SEG_BOUND ((gex_Flags_t)1u << 5)
#define GEX_FLAG_SELF_SEG_OFFSET ((gex_Flags_t)1u << 6)
#define GEX_FLAG_PEER_SEG_UNKNOWN ((gex_Flags_t)1u << 7)
#define GEX_FLAG_PEER_SEG_SOME ((gex_Flags_t)1u << 8)
#define GEX_FLAG_PEER_SEG_BOUND ((gex_Flags_t)1u << 9)
#define GEX_FLAG_PEER_SEG_OFFSET ((gex_Flags_t)1u << 10)
#define GEX_FLAG_AM_PREPARE_LEAST_CLIENT ((gex_Flags_t)1u << 11)
#define GEX_FLAG_AM_PREPARE_LEAST_ALLOC ((gex_Flags_t)1u << 12)
#define GEX_FLAG_RANK_IS_JOBRANK ((gex_Flags_t)1u << 13) /* also accepted by gex_TM_Create */
#define GEX_FLAG_AD_MY_RANK ((gex_Flags_t)1u << 14)
#define GEX_FLAG_AD_MY_NBRHD ((gex_Flags_t)1u << 15)
#define GEX_FLAG_AD_ACQ ((gex_Flags_t)1u << 16)
#define GEX_FLAG_AD_REL ((gex_Flags_t)1u << 17)
#define GEX_FLAG_ENABLE_LEAF_LC ((gex_Flags_t)1u << 18)
/* assertions about the peer of an RMA call (spec v0.14): not this process; not a
 * process of this neighborhood (which implies the first) */
#define GEX_FLAG_PEER_NEVER_SELF ((gex_Flags_t)1u << 19)
#define GEX_FLAG_PEER_NEVER_NBRHD ((gex_Flags_t)1u << 20)

/* ---- flags of object-creation calls (another set of calls: bits repeat the ones above;
 * the one both sets share, GEX_FLAG_RANK_IS_JOBRANK of gex_TM_Create, is distinct from
 * the others gex_TM_Create takes) ---- */
#define GEX_FLAG_USES_GASNET1 ((gex_Flags_t)1u << 0)
#define GEX_FLAG_AD_FAVOR_MY_RANK ((gex_Flags_t)1u << 1)
#define GEX_FLAG_AD_FAVOR_MY_NBRHD ((gex_Flags_t)1u << 2)
#define GEX_FLAG_AD_FAVOR_REMOTE ((gex_Flags_t)1u << 3)
#define GEX_FLAG_TM_SCRATCH_SIZE_MIN ((gex_Flags_t)1u << 4)
#define GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED ((gex_Flags_t)1u << 5)
#define GEX_FLAG_TM_SYMMETRIC_SCRATCH ((gex_Flags_t)1u << 6)
#define GEX_FLAG_TM_LOCAL_SCRATCH ((gex_Flags_t)1u << 7)
#define GEX_FLAG_TM_GLOBAL_SCRATCH ((gex_Flags_t)1u << 8)
#define GEX_FLAG_TM_NO_SCRATCH ((gex_Flags_t)1u << 9)
#define GEX_FLAG_GLOBALLY_QUIESCED ((gex_Flags_t)1u << 10)
#define GEX_FLAG_SCRATCH_SEG_OFFSET ((gex_Flags_t)1u << 11)
#define GEX_FLAG_HINT_ACCEL_AD ((gex_Flags_t)1u << 12)
#define GEX_FLAG_HINT_ACCEL_COLL ((gex_Flags_t)1u << 13)
#define GEX_FLAG_HINT_ACCEL_ALL (GEX_FLAG_HINT_ACCEL_AD | GEX_FLAG_HINT_ACCEL_COLL)
/* gex_Client_Init: the client starts the library's progress threads itself (spec v0.18;
 * there are none here: gex_System_QueryProgressThreads answers 0) */
#define GEX_FLAG_DEFER_THREADS ((gex_Flags_t)1u << 14)

/* ---- handler registration flags (gex_AM_Entry_t.gex_flags) ---- */
#define GEX_FLAG_AM_SHORT ((gex_Flags_t)1u << 0)
#define GEX_FLAG_AM_MEDIUM ((gex_Flags_t)1u << 1)
#define GEX_FLAG_AM_LONG ((gex_Flags_t)1u << 2)
#define GEX_FLAG_AM_MEDLONG (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#define GEX_FLAG_AM_REQUEST ((gex_Flags_t)1u << 3)
#define GEX_FLAG_AM_REPLY ((gex_Flags_t)1u << 4)
#define GEX_FLAG_AM_REQREP (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)

/* ---- endpoint capabilities ---- */
#define GEX_EP_CAPABILITY_RMA ((gex_EP_Capabilities_t)1u << 0)
#define GEX_EP_CAPABILITY_AM ((gex_EP_Capabilities_t)1u << 1)
#define GEX_EP_CAPABILITY_VIS ((gex_EP_Capabilities_t)1u << 2)
#define GEX_EP_CAPABILITY_COLL ((gex_EP_Capabilities_t)1u << 3)
#define GEX_EP_CAPABILITY_AD ((gex_EP_Capabilities_t)1u << 4)
#define GEX_EP_CAPABILITY_ALL ((gex_EP_Capabilities_t)0x1f)

/* ---- event categories and token-info bits ---- */
#define GEX_EC_GET ((gex_EC_t)1u << 0)
#define GEX_EC_PUT ((gex_EC_t)1u << 1)
#define GEX_EC_AM ((gex_EC_t)1u << 2)
#define GEX_EC_LC ((gex_EC_t)1u << 3)
#define GEX_EC_RMW ((gex_EC_t)1u << 4)
#define GEX_EC_ALL ((gex_EC_t)0x1f)

#define GEX_TI_SRCRANK ((gex_TI_t)1u << 0)
#define GEX_TI_EP ((gex_TI_t)1u << 1)
#define GEX_TI_ENTRY ((gex_TI_t)1u << 2)
#define GEX_TI_IS_REQ ((gex_TI_t)1u << 3)
#define GEX_TI_IS_LONG ((gex_TI_t)1u << 4)
#define GEX_TI_ALL ((gex_TI_t)0x1f)

/* ---- data types and operations (shared by atomics and reductions) ---- */
#define GEX_DT_I32 ((gex_DT_t)1u << 0)
#define GEX_DT_U32 ((gex_DT_t)1u << 1)
#define GEX_DT_I64 ((gex_DT_t)1u << 2)
#define GEX_DT_U64 ((gex_DT_t)1u << 3)
#define GEX_DT_FLT ((gex_DT_t)1u << 4)
#define GEX_DT_DBL ((gex_DT_t)1u << 5)
#define GEX_DT_USER ((gex_DT_t)1u << 6)

/* non-fetching ops in the low half, their fetching twins 16 bits up */
#define GEX_OP_SET ((gex_OP_t)1u << 0)
#define GEX_OP_CAS ((gex_OP_t)1u << 1)
#define GEX_OP_ADD ((gex_OP_t)1u << 2)
#define GEX_OP_SUB ((gex_OP_t)1u << 3)
#define GEX_OP_MULT ((gex_OP_t)1u << 4)
#define GEX_OP_MIN ((gex_OP_t)1u << 5)
#define GEX_OP_MAX ((gex_OP_t)1u << 6)
#define GEX_OP_AND ((gex_OP_t)1u << 7)
#define GEX_OP_OR ((gex_OP_t)1u << 8)
#define GEX_OP_XOR ((gex_OP_t)1u << 9)
#define GEX_OP_INC ((gex_OP_t)1u << 10)
#define GEX_OP_DEC ((gex_OP_t)1u << 11)
#define GEX_OP_SWAP (GEX_OP_SET << 16)
#define GEX_OP_FCAS (GEX_OP_CAS << 16)
#define GEX_OP_CSWAP GEX_OP_FCAS
#define GEX_OP_FADD (GEX_OP_ADD << 16)
#define GEX_OP_FSUB (GEX_OP_SUB << 16)
#define GEX_OP_FMULT (GEX_OP_MULT << 16)
#define GEX_OP_FMIN (GEX_OP_MIN << 16)
#define GEX_OP_FMAX (GEX_OP_MAX << 16)
#define GEX_OP_FAND (GEX_OP_AND << 16)
#define GEX_OP_FOR (GEX_OP_OR << 16)
#define GEX_OP_FXOR (GEX_OP_XOR << 16)
#define GEX_OP_FINC (GEX_OP_INC << 16)
#define GEX_OP_FDEC (GEX_OP_DEC << 16)
#define GEX_OP_GET ((gex_OP_t)1u << 12)
#define GEX_OP_USER ((gex_OP_t)1u << 13)
#define GEX_OP_USER_NC ((gex_OP_t)1u << 14)
#define GEX_OP_TO_FETCHING(op) ((gex_OP_t)(((op) & 0xfff) ? ((op) << 16) : (op)))
#define GEX_OP_TO_NONFETCHING(op) ((gex_OP_t)(((op) & 0x0fff0000u) ? ((op) >> 16) : (op)))

#endif
