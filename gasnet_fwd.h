/* gasnet_fwd.h: the simple GASNet-EX types and constants, for a client's own headers
 * that must name them without including gasnetex.h (spec "The gasnet_fwd.h header").
 * Layer: public. Only typedefs of scalar and handle types, and #define constants whose
 * names begin GEX_ or _GEX_; it needs no threading mode, no gasnet_config.h and no
 * library, and compiles as C and C++. gasnetex.h includes it: the values here are the
 * library's own. Handles are pointers to structures only the library completes.
 * The integer constants (GEX_FLAG_*, GEX_EC_*, GEX_TI_*, GEX_DT_*, GEX_OP_*,
 * GEX_EP_CAPABILITY_*, GEX_RANK_INVALID, GEX_EP_INDEX_INVALID) are plain unsigned literals,
 * as the released headers make them, so that `#if` can compare them; their type, unsigned
 * int, is the uint32_t of their gex_ types (tests/api/test_released_api_hdr.c checks).
 * The handle constants (GEX_EVENT_*, GEX_*_INVALID of handles, GEX_MK_HOST) stay casts. */
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

#define GEX_RANK_INVALID 0xFFFFFFFFU
#define GEX_EP_INDEX_INVALID 0xFFFFFFFFU

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
#define GEX_FLAG_IMMEDIATE 0x1U
#define GEX_FLAG_LC_COPY_YES 0x2U
#define GEX_FLAG_LC_COPY_NO 0x4U
#define GEX_FLAG_SELF_SEG_UNKNOWN 0x8U
#define GEX_FLAG_SELF_SEG_SOME 0x10U
#define GEX_FLAG_SELF_SEG_BOUND 0x20U
#define GEX_FLAG_SELF_SEG_OFFSET 0x40U
#define GEX_FLAG_PEER_SEG_UNKNOWN 0x80U
#define GEX_FLAG_PEER_SEG_SOME 0x100U
#define GEX_FLAG_PEER_SEG_BOUND 0x200U
#define GEX_FLAG_PEER_SEG_OFFSET 0x400U
#define GEX_FLAG_AM_PREPARE_LEAST_CLIENT 0x800U
#define GEX_FLAG_AM_PREPARE_LEAST_ALLOC 0x1000U
#define GEX_FLAG_RANK_IS_JOBRANK 0x2000U /* also accepted by gex_TM_Create */
#define GEX_FLAG_AD_MY_RANK 0x4000U
#define GEX_FLAG_AD_MY_NBRHD 0x8000U
#define GEX_FLAG_AD_ACQ 0x10000U
#define GEX_FLAG_AD_REL 0x20000U
#define GEX_FLAG_ENABLE_LEAF_LC 0x40000U
/* assertions about the peer of an RMA call (spec v0.14): not this process; not a
 * process of this neighborhood (which implies the first) */
#define GEX_FLAG_PEER_NEVER_SELF 0x80000U
#define GEX_FLAG_PEER_NEVER_NBRHD 0x100000U

/* ---- flags of object-creation calls (another set of calls: bits repeat the ones above;
 * the one both sets share, GEX_FLAG_RANK_IS_JOBRANK of gex_TM_Create, is distinct from
 * the others gex_TM_Create takes) ---- */
#define GEX_FLAG_USES_GASNET1 0x1U
#define GEX_FLAG_AD_FAVOR_MY_RANK 0x2U
#define GEX_FLAG_AD_FAVOR_MY_NBRHD 0x4U
#define GEX_FLAG_AD_FAVOR_REMOTE 0x8U
#define GEX_FLAG_TM_SCRATCH_SIZE_MIN 0x10U
#define GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED 0x20U
#define GEX_FLAG_TM_SYMMETRIC_SCRATCH 0x40U
#define GEX_FLAG_TM_LOCAL_SCRATCH 0x80U
#define GEX_FLAG_TM_GLOBAL_SCRATCH 0x100U
#define GEX_FLAG_TM_NO_SCRATCH 0x200U
#define GEX_FLAG_GLOBALLY_QUIESCED 0x400U
#define GEX_FLAG_SCRATCH_SEG_OFFSET 0x800U
#define GEX_FLAG_HINT_ACCEL_AD 0x1000U
#define GEX_FLAG_HINT_ACCEL_COLL 0x2000U
#define GEX_FLAG_HINT_ACCEL_ALL (GEX_FLAG_HINT_ACCEL_AD | GEX_FLAG_HINT_ACCEL_COLL)
/* gex_Client_Init: the client starts the library's progress threads itself (spec v0.18;
 * there are none here: gex_System_QueryProgressThreads answers 0) */
#define GEX_FLAG_DEFER_THREADS 0x4000U

/* ---- handler registration flags (gex_AM_Entry_t.gex_flags) ---- */
#define GEX_FLAG_AM_SHORT 0x1U
#define GEX_FLAG_AM_MEDIUM 0x2U
#define GEX_FLAG_AM_LONG 0x4U
#define GEX_FLAG_AM_MEDLONG (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#define GEX_FLAG_AM_REQUEST 0x8U
#define GEX_FLAG_AM_REPLY 0x10U
#define GEX_FLAG_AM_REQREP (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)

/* ---- endpoint capabilities ---- */
#define GEX_EP_CAPABILITY_RMA 0x1U
#define GEX_EP_CAPABILITY_AM 0x2U
#define GEX_EP_CAPABILITY_VIS 0x4U
#define GEX_EP_CAPABILITY_COLL 0x8U
#define GEX_EP_CAPABILITY_AD 0x10U
#define GEX_EP_CAPABILITY_ALL 0x1FU

/* ---- event categories and token-info bits ---- */
#define GEX_EC_GET 0x1U
#define GEX_EC_PUT 0x2U
#define GEX_EC_AM 0x4U
#define GEX_EC_LC 0x8U
#define GEX_EC_RMW 0x10U
#define GEX_EC_ALL 0x1FU

#define GEX_TI_SRCRANK 0x1U
#define GEX_TI_EP 0x2U
#define GEX_TI_ENTRY 0x4U
#define GEX_TI_IS_REQ 0x8U
#define GEX_TI_IS_LONG 0x10U
#define GEX_TI_ALL 0x1FU

/* ---- data types and operations (shared by atomics and reductions) ---- */
#define GEX_DT_I32 0x1U
#define GEX_DT_U32 0x2U
#define GEX_DT_I64 0x4U
#define GEX_DT_U64 0x8U
#define GEX_DT_FLT 0x10U
#define GEX_DT_DBL 0x20U
#define GEX_DT_USER 0x40U

/* non-fetching ops in the low half, their fetching twins 16 bits up */
#define GEX_OP_SET 0x1U
#define GEX_OP_CAS 0x2U
#define GEX_OP_ADD 0x4U
#define GEX_OP_SUB 0x8U
#define GEX_OP_MULT 0x10U
#define GEX_OP_MIN 0x20U
#define GEX_OP_MAX 0x40U
#define GEX_OP_AND 0x80U
#define GEX_OP_OR 0x100U
#define GEX_OP_XOR 0x200U
#define GEX_OP_INC 0x400U
#define GEX_OP_DEC 0x800U
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
#define GEX_OP_GET 0x1000U
#define GEX_OP_USER 0x2000U
#define GEX_OP_USER_NC 0x4000U
#define GEX_OP_TO_FETCHING(op) ((gex_OP_t)(((op) & 0xfff) ? ((op) << 16) : (op)))
#define GEX_OP_TO_NONFETCHING(op) ((gex_OP_t)(((op) & 0x0fff0000u) ? ((op) >> 16) : (op)))

#endif
