/* gasnete_internal.h: declarations shared by the reference extended layer's files.
 * Layer: extended, internal. Built only against conduit_contract.h and the core. */
#ifndef GASNETE_INTERNAL_H
#define GASNETE_INTERNAL_H

#include "conduit_contract.h"

struct gasneti_event_s {
    gasneti_counter_t pending; /* operations not yet complete */
    struct gasneti_event_s *next;
};

/* NBI counters, indexed by the bit number of the GEX_EC_* category */
#define GASNETE_NBI_NCAT 5
enum { GASNETE_NBI_GET = 0, GASNETE_NBI_PUT = 1, GASNETE_NBI_AM = 2, GASNETE_NBI_LC = 3, GASNETE_NBI_RMW = 4 };

typedef struct {
    gex_Event_t free_events;
    gasneti_counter_t nbi[GASNETE_NBI_NCAT];
} gasnete_threaddata_t;
extern GASNETI_THREADLOCAL gasnete_threaddata_t gasnete_td;

extern gex_Event_t gasnete_event_new(int pending);

/* AM-based reference RMA: moves [src, src+n) and decrements *done once complete.
 * Returns nonzero only if IMMEDIATE is in flags and nothing was started. */
extern int gasnete_amrma_put(gex_Rank_t jobrank, void *dest, const void *src, size_t n, gasneti_counter_t *done,
                             gex_Flags_t flags);
extern int gasnete_amrma_get(void *dest, gex_Rank_t jobrank, void *src, size_t n, gasneti_counter_t *done,
                             gex_Flags_t flags);

/* pointers travel in two 32-bit handler arguments */
#define GASNETE_HI(p) ((gex_AM_Arg_t)(uint32_t)((uint64_t)(uintptr_t)(p) >> 32))
#define GASNETE_LO(p) ((gex_AM_Arg_t)(uint32_t)(uintptr_t)(p))
#define GASNETE_PTR(hi, lo) ((void *)(uintptr_t)(((uint64_t)(uint32_t)(hi) << 32) | (uint32_t)(lo)))

#endif
