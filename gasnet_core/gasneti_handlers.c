/* gasneti_handlers.c: handler tables (gex_EP_RegisterHandlers and the library's own
 * handlers), token queries and AM payload limits.
 * Layer: core. */
#include "conduit_contract.h"

#include <string.h>

size_t gasneti_am_max_medium = GASNETC_MAX_MEDIUM;
size_t gasneti_am_max_long = GASNETC_MAX_LONG;

/* Library handlers live below GEX_AM_INDEX_BASE, registered on every endpoint. */
void gasneti_handlers_init(gex_EP_t ep) {
    if (!gasneti_layer || !gasneti_layer->handlers) return;
    for (const gex_AM_Entry_t *e = gasneti_layer->handlers; e->gex_fnptr; e++) {
        gasneti_assert(e->gex_index > 0 && e->gex_index < GEX_AM_INDEX_BASE);
        ep->_handlers[e->gex_index] = *e;
    }
}

static void check_entry(const gex_AM_Entry_t *e, size_t i, int legacy) {
    gex_Flags_t cat = e->gex_flags & (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG);
    gex_Flags_t dir = e->gex_flags & GEX_FLAG_AM_REQREP;
    if (!e->gex_fnptr) gasneti_fatalerror("gex_EP_RegisterHandlers: table[%zu].gex_fnptr is NULL", i);
    if (legacy) return; /* gasnet_attach: any category and argument count */
    if (e->gex_nargs > GASNETI_MAX_ARGS)
        gasneti_fatalerror("gex_EP_RegisterHandlers: table[%zu] (\"%s\") gex_nargs=%u exceeds gex_AM_MaxArgs()=%d", i,
                           e->gex_name ? e->gex_name : "", e->gex_nargs, GASNETI_MAX_ARGS);
    if (GASNETI_DEBUG) {
        if (!(cat == GEX_FLAG_AM_SHORT || cat == GEX_FLAG_AM_MEDIUM || cat == GEX_FLAG_AM_LONG ||
              cat == GEX_FLAG_AM_MEDLONG) || !dir)
            gasneti_fatalerror("gex_EP_RegisterHandlers: table[%zu] (\"%s\") gex_flags=0x%x must name one AM category"
                               " (SHORT, MEDIUM, LONG or MEDLONG) and REQUEST, REPLY or REQREP",
                               i, e->gex_name ? e->gex_name : "", (unsigned)e->gex_flags);
    }
}

int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries) {
    return gasneti_register_handlers(ep, table, numentries, 0);
}

/* legacy: entries from gasnet_attach, with gex_nargs GASNETI_NARGS_ANY */
int gasneti_register_handlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries, int legacy) {
    GASNETI_CHECK_INIT("gex_EP_RegisterHandlers");
    GASNETI_CHECK_NOT_IN_HANDLER("gex_EP_RegisterHandlers");
    gex_AM_Entry_t *h = ep->_handlers;
    /* fixed indices first */
    for (size_t i = 0; i < numentries; i++) {
        check_entry(&table[i], i, legacy);
        unsigned idx = table[i].gex_index;
        if (idx == 0) continue;
        if (idx < GEX_AM_INDEX_BASE)
            gasneti_fatalerror("gex_EP_RegisterHandlers: table[%zu].gex_index=%u is below GEX_AM_INDEX_BASE (%d)", i,
                               idx, GEX_AM_INDEX_BASE);
        if (h[idx].gex_fnptr)
            gasneti_fatalerror("gex_EP_RegisterHandlers: table[%zu].gex_index=%u is already registered", i, idx);
        h[idx] = table[i];
    }
    /* then each index-0 entry, in table order, gets the highest free index */
    for (size_t i = 0; i < numentries; i++) {
        if (table[i].gex_index != 0) continue;
        unsigned idx = 255;
        while (idx >= GEX_AM_INDEX_BASE && h[idx].gex_fnptr) idx--;
        if (idx < GEX_AM_INDEX_BASE)
            gasneti_fatalerror("gex_EP_RegisterHandlers: no free handler index for table[%zu] (all %d in use)", i,
                               256 - GEX_AM_INDEX_BASE);
        table[i].gex_index = (gex_AM_Index_t)idx;
        h[idx] = table[i];
    }
    return GASNET_OK;
}

gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask) {
    (void)mask;
    if (GASNETI_DEBUG && !token) gasneti_fatalerror("gex_Token_Info: token is NULL");
    info->gex_srcrank = token->srcrank;
    info->gex_ep = token->ep;
    info->gex_entry = token->entry;
    info->gex_is_req = token->is_req;
    info->gex_is_long = token->is_long;
    return GEX_TI_ALL;
}

/* ---- limits: identical for every pair of ranks, independent of numargs and lc_opt ---- */
size_t gex_AM_LUBRequestMedium(void) { return gasneti_am_max_medium; }
size_t gex_AM_LUBReplyMedium(void) { return gasneti_am_max_medium; }
size_t gex_AM_LUBRequestLong(void) { return gasneti_am_max_long; }
size_t gex_AM_LUBReplyLong(void) { return gasneti_am_max_long; }

static void check_limit_args(gex_TM_t tm, gex_Rank_t rank, unsigned numargs, const char *call) {
    if (numargs > GASNETI_MAX_ARGS)
        gasneti_fatalerror("%s: numargs=%u exceeds gex_AM_MaxArgs()=%d", call, numargs, GASNETI_MAX_ARGS);
    if (tm && rank != GEX_RANK_INVALID && rank >= tm->_size) gasneti_bad_rank(tm, rank, call);
}
#define GASNETI_MAXFN(name, value)                                                                     \
    size_t name(gex_TM_t tm, gex_Rank_t rank, const gex_Event_t *lc_opt, gex_Flags_t flags, unsigned n) { \
        (void)lc_opt, (void)flags;                                                                     \
        check_limit_args(tm, rank, n, #name);                                                          \
        return value;                                                                                  \
    }
GASNETI_MAXFN(gex_AM_MaxRequestMedium, gasneti_am_max_medium)
GASNETI_MAXFN(gex_AM_MaxReplyMedium, gasneti_am_max_medium)
GASNETI_MAXFN(gex_AM_MaxRequestLong, gasneti_am_max_long)
GASNETI_MAXFN(gex_AM_MaxReplyLong, gasneti_am_max_long)

size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags, unsigned n) {
    (void)token, (void)lc_opt, (void)flags;
    check_limit_args(NULL, 0, n, "gex_Token_MaxReplyMedium");
    return gasneti_am_max_medium;
}
size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags, unsigned n) {
    (void)token, (void)lc_opt, (void)flags;
    check_limit_args(NULL, 0, n, "gex_Token_MaxReplyLong");
    return gasneti_am_max_long;
}
