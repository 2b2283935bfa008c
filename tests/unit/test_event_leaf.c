/* tests/unit/test_event_leaf.c: the life of local-completion leaves and of access-region
 * events when local completion comes after the initiating call returns. smp never does
 * that (its puts finish with the source before returning), so this drives the core's
 * event builders and counters (gasneti_event.h) the way a conduit with asynchronous local
 * completion would (conduit_contract.h), and checks the results through the public calls:
 * a leaf survives its own sync and is recycled with its root, a root is not complete
 * before its leaf, queries return the same event, regions redirect the NBI counters.
 * Single process. Layer: tests (unit; links the library, uses gasneti_event.h). */
#include <gasnetex.h>
#include "gasneti_event.h"

#include <stdio.h>
#include <stdlib.h>

#include "unit_check.h"

/* An NB put whose conduit holds both counters when the call returns (lc may be NULL). */
static gex_Event_t started_put(gex_Event_t *lc_opt, gex_Flags_t flags, gasneti_counter_t **lc_p) {
    gex_Event_t ev = gasneti_put_event(lc_opt, flags, lc_p);
    gasneti_counter_add(&ev->pending); /* remote completion, outstanding */
    if (*lc_p) gasneti_counter_add(*lc_p);
    return gasneti_put_event_started(ev, lc_opt);
}

static void test_put_leaf(void) {
    /* lc_opt=&event: the leaf is what lc receives */
    gasneti_counter_t *lc;
    gex_Event_t lcev = GEX_EVENT_NO_OP;
    gex_Event_t root = started_put(&lcev, 0, &lc);
    CHECK(lc != NULL && lc != &root->pending);
    CHECK(lcev != GEX_EVENT_INVALID && lcev != GEX_EVENT_NO_OP);
    CHECK(gex_Event_QueryLeaf(root, GEX_EC_LC) == lcev);
    CHECK(gex_Event_QueryLeaf(root, GEX_EC_LC) == lcev);
    CHECK(gex_Event_QueryLeaf(root, GEX_EC_PUT) == root);
    CHECK(gex_Event_Test(lcev) != 0);
    CHECK(gex_Event_Test(root) != 0);
    /* remote completion first: the root still waits for its leaf */
    gasneti_counter_done(&root->pending);
    CHECK(gex_Event_Test(root) != 0);
    gex_Event_t arr[2] = {root, GEX_EVENT_INVALID};
    CHECK(gex_Event_TestSome(arr, 2, 0) != 0);
    CHECK(arr[0] == root);
    gasneti_counter_done(lc);
    /* the leaf syncs, again and again, and stays the root's */
    CHECK(gex_Event_Test(lcev) == 0);
    CHECK(gex_Event_Test(lcev) == 0);
    gex_Event_Wait(lcev);
    CHECK(lcev->live);
    CHECK(gex_Event_QueryLeaf(root, GEX_EC_LC) == lcev);
    CHECK(gex_Event_Test(root) == 0); /* recycles both */
    CHECK(!root->live && !lcev->live);

    /* DEFER + GEX_FLAG_ENABLE_LEAF_LC: a leaf too, reached only through the query */
    root = started_put(GEX_EVENT_DEFER, GEX_FLAG_ENABLE_LEAF_LC, &lc);
    gex_Event_t leaf = gex_Event_QueryLeaf(root, GEX_EC_LC);
    CHECK(leaf != GEX_EVENT_INVALID && lc == &leaf->pending);
    gasneti_counter_done(lc);
    gex_Event_t both[2] = {leaf, root};
    CHECK(gex_Event_TestAll(both, 2, 0) != 0); /* the root is not complete */
    CHECK(both[0] == GEX_EVENT_INVALID && both[1] == root && leaf->live);
    gasneti_counter_done(&root->pending);
    gex_Event_WaitAll(both, 2, 0);
    CHECK(both[1] == GEX_EVENT_INVALID && !root->live && !leaf->live);

    /* DEFER without the flag: local completion is counted in the root itself */
    root = started_put(GEX_EVENT_DEFER, 0, &lc);
    CHECK(lc == &root->pending && !root->leaf);
    gasneti_counter_done(&root->pending);
    CHECK(gex_Event_Test(root) != 0);
    gasneti_counter_done(lc);
    CHECK(gex_Event_Test(root) == 0);

    /* NOW with the flag: complete at return, the leaf query answers INVALID */
    root = started_put(GEX_EVENT_NOW, GEX_FLAG_ENABLE_LEAF_LC, &lc);
    CHECK(lc == NULL && gex_Event_QueryLeaf(root, GEX_EC_LC) == GEX_EVENT_INVALID);
    gasneti_counter_done(&root->pending);
    gex_Event_Wait(root);

    /* a leaf complete before the call returns is not kept: lc receives INVALID */
    lcev = GEX_EVENT_NO_OP;
    root = gasneti_put_event(&lcev, 0, &lc);
    gasneti_counter_add(&root->pending);
    gex_Event_t early = root->leaf;
    root = gasneti_put_event_started(root, &lcev);
    CHECK(lcev == GEX_EVENT_INVALID && !root->leaf && !early->live);
    CHECK(gex_Event_QueryLeaf(root, GEX_EC_LC) == GEX_EVENT_INVALID);
    gasneti_counter_done(&root->pending);
    CHECK(gex_Event_Test(root) == 0);
}

static void test_region(void) {
    gasneti_counter_t *own_put = gasneti_nbi_counter(GASNETI_NBI_PUT);
    CHECK(own_put == &gasneti_td.nbi[GASNETI_NBI_PUT]);
    /* operations outstanding in every counter a region redirects */
    gex_NBI_BeginAccessRegion(0);
    gasneti_counter_t *c[GASNETI_NBI_NCAT];
    for (int i = 0; i < GASNETI_NBI_NCAT; i++) {
        c[i] = gasneti_nbi_counter(i);
        CHECK(c[i] != &gasneti_td.nbi[i]);
        gasneti_counter_add(c[i]);
    }
    gex_Event_t ev = gex_NBI_EndAccessRegion(0);
    for (int i = 0; i < GASNETI_NBI_NCAT; i++)
        CHECK(gasneti_nbi_counter(i) == &gasneti_td.nbi[i]);
    CHECK(ev != GEX_EVENT_INVALID);
    CHECK(gex_NBI_Test(GEX_EC_ALL, 0) == 0); /* none of it is the thread's */
    gex_Event_t leaf = gex_Event_QueryLeaf(ev, GEX_EC_LC);
    CHECK(leaf != GEX_EVENT_INVALID && leaf == gex_Event_QueryLeaf(ev, GEX_EC_LC));
    CHECK(c[GASNETI_NBI_LC] == &leaf->pending);
    for (int i = 0; i < GASNETI_NBI_NCAT; i++)
        if (i != GASNETI_NBI_LC) gasneti_counter_done(c[i]);
    CHECK(gex_Event_Test(leaf) != 0);
    CHECK(gex_Event_Test(ev) != 0); /* its leaf is not complete */
    gasneti_counter_done(c[GASNETI_NBI_LC]);
    CHECK(gex_Event_Test(leaf) == 0 && leaf->live);
    CHECK(gex_Event_Test(ev) == 0);
    CHECK(!leaf->live && !ev->live);

    /* LC complete by End: the leaf query answers INVALID; the root is still real */
    gex_NBI_BeginAccessRegion(0);
    gasneti_counter_add(gasneti_nbi_counter(GASNETI_NBI_GET));
    gasneti_counter_t *g = gasneti_nbi_counter(GASNETI_NBI_GET);
    ev = gex_NBI_EndAccessRegion(0);
    CHECK(ev != GEX_EVENT_INVALID && gex_Event_QueryLeaf(ev, GEX_EC_LC) == GEX_EVENT_INVALID);
    gasneti_counter_done(g);
    gex_Event_Wait(ev);

    /* everything complete by End: INVALID */
    gex_NBI_BeginAccessRegion(0);
    gasneti_counter_t *p = gasneti_nbi_counter(GASNETI_NBI_PUT);
    gasneti_counter_add(p);
    gasneti_counter_done(p);
    CHECK(gex_NBI_EndAccessRegion(0) == GEX_EVENT_INVALID);
}

int main(int argc, char **argv) {
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    snprintf(unit_who, sizeof unit_who, "test_event_leaf");
    if (gex_Client_Init(&client, &ep, &tm, "TEST_EVENT_LEAF", &argc, &argv, 0) != GASNET_OK) {
        fprintf(stderr, "test_event_leaf: gex_Client_Init failed\n");
        return 1;
    }
    test_put_leaf();
    test_region();
    unit_end("");
    return 0;
}
