/* gasnete_legacy.c: the GASNet-1 calls (gasnet.h) that are extended-layer services:
 * gasnet_memset, gasnet_memset_nb and gasnet_memset_nbi, built on gex_RMA_Put*.
 * Layer: extended (the rest of the GASNet-1 API is the core's: gasneti_legacy.c). */
#include "gasnete_internal.h"

#include <gasnet.h>
#include <string.h>

/* memset: puts of a local buffer filled with the value, in pieces. With nbi, each piece
 * is an NBI put; otherwise each is an NB put and the event of the last is returned,
 * the others having been waited for. Sources are reusable at return (GEX_EVENT_NOW). */
static gex_Event_t memset_puts(gasnet_node_t node, void *dest, int val, size_t nbytes, int nbi) {
    char buf[4096];
    memset(buf, val, sizeof(buf));
    gex_Event_t last = GEX_EVENT_INVALID;
    for (size_t off = 0; off < nbytes; off += sizeof(buf)) {
        size_t c = nbytes - off < sizeof(buf) ? nbytes - off : sizeof(buf);
        if (nbi) {
            gex_RMA_PutNBI(gasneti_tm0, node, (char *)dest + off, buf, c, GEX_EVENT_NOW, 0);
        } else {
            gex_Event_Wait(last);
            last = gex_RMA_PutNB(gasneti_tm0, node, (char *)dest + off, buf, c, GEX_EVENT_NOW, 0);
        }
    }
    return last;
}

void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes) {
    memset_puts(node, dest, val, nbytes, 1);
}

gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes) {
    return memset_puts(node, dest, val, nbytes, 0);
}

void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes) {
    gex_Event_Wait(memset_puts(node, dest, val, nbytes, 0));
}
