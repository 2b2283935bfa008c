/* gasneti_launch_tree.c: the tree of a scalable job start and one node's part of the
 * bootstrap collectives over it (gasneti_launch_tree.h: the design). No I/O: the node's
 * owner moves the messages. Layer: other (launchers); plain libc. */
#include "gasneti_launch_tree.h"

#include <stdlib.h>
#include <string.h>

int gasneti_tree_shape(gasneti_tree_shape_t *s, int nranks, int nservers, int degree) {
    if (nranks < 1 || nservers < 1) return -1;
    s->nranks = nranks;
    s->nhosts = nservers < nranks ? nservers : nranks;
    s->degree = degree > 0 ? degree : GASNETI_TREE_DEFAULT_DEGREE;
    return 0;
}

int gasneti_tree_nchildren(const gasneti_tree_shape_t *s, int node) {
    long first = (long)s->degree * node + 1, last = first + s->degree - 1, maxnode = s->nhosts;
    if (first > maxnode) return 0;
    return (int)((last < maxnode ? last : maxnode) - first + 1);
}

int gasneti_tree_depth(const gasneti_tree_shape_t *s) {
    int d = 0;
    for (int node = s->nhosts; node; node = gasneti_tree_parent(s, node)) d++; /* the last node is the deepest */
    return d;
}

static int awaited_of(const gasneti_tree_coll_t *c) {
    return gasneti_tree_nlocal_of_node(c->shape, c->node) + gasneti_tree_nchildren(c->shape, c->node);
}

void gasneti_tree_coll_init(gasneti_tree_coll_t *c, const gasneti_tree_shape_t *s, int node, gasneti_tree_io_t io) {
    memset(c, 0, sizeof(*c));
    c->shape = s;
    c->node = node;
    c->io = io;
    c->awaited = awaited_of(c);
}

void gasneti_tree_coll_fini(gasneti_tree_coll_t *c) {
    free(c->recs);
    c->recs = NULL;
}

static int add_bytes(gasneti_tree_coll_t *c, const void *data, size_t len) {
    if (c->nrecs_bytes + len > c->cap) {
        size_t cap = 2 * (c->nrecs_bytes + len) + 64;
        uint8_t *p = realloc(c->recs, cap);
        if (!p) return -1;
        c->recs = p;
        c->cap = cap;
    }
    if (len) memcpy(c->recs + c->nrecs_bytes, data, len);
    c->nrecs_bytes += len;
    return 0;
}

/* The result down to the node's children and its own ranks. */
static void send_down(gasneti_tree_coll_t *c, const void *all, size_t len) {
    int nch = gasneti_tree_nchildren(c->shape, c->node), nl = gasneti_tree_nlocal_of_node(c->shape, c->node);
    for (int i = 0; i < nch; i++) c->io.send(c->io.ctx, gasneti_tree_child(c->shape, c->node, i), GASNETI_TREE_DOWN, all, len);
    for (int i = 0; i < nl; i++) c->io.deliver(c->io.ctx, i, all, len);
}

/* At the root, every record is in: the contributions in rank order, sent down. */
static int root_done(gasneti_tree_coll_t *c) {
    int n = c->shape->nranks;
    size_t *at = calloc((size_t)n, sizeof(size_t)), total = 0; /* at[r]: offset of r's record + 1 */
    if (!at) return -1;
    for (size_t off = 0; off < c->nrecs_bytes;) {
        uint32_t hdr[2];
        memcpy(hdr, c->recs + off, 8);
        at[hdr[0]] = off + 1;
        total += hdr[1];
        off += 8 + hdr[1];
    }
    uint8_t *all = malloc(total ? total : 1), *p = all;
    if (!all) {
        free(at);
        return -1;
    }
    for (int r = 0; r < n; r++) {
        if (!at[r]) continue;
        uint32_t l;
        memcpy(&l, c->recs + at[r] - 1 + 4, 4);
        memcpy(p, c->recs + at[r] - 1 + 8, l);
        p += l;
    }
    free(at);
    c->nrecs_bytes = 0;
    send_down(c, all, total);
    free(all);
    return 0;
}

/* One more piece of this collective has come: when it is the last, pass the subtree's
 * records up (or, at the root, the result down), and get ready for the next one. */
static int one_more(gasneti_tree_coll_t *c) {
    if (--c->awaited) return 0;
    c->awaited = awaited_of(c);
    if (!c->node) return root_done(c);
    c->io.send(c->io.ctx, gasneti_tree_parent(c->shape, c->node), GASNETI_TREE_UP, c->recs, c->nrecs_bytes);
    c->nrecs_bytes = 0;
    return 0;
}

int gasneti_tree_contribute(gasneti_tree_coll_t *c, int local_index, const void *data, size_t len) {
    if (len) {
        uint32_t hdr[2] = {(uint32_t)gasneti_tree_local_rank(c->shape, c->node - 1, local_index), (uint32_t)len};
        if (add_bytes(c, hdr, 8) || add_bytes(c, data, len)) return -1;
    }
    return one_more(c);
}

/* the records of an UP message: each (rank < nranks, len fits) */
static int records_ok(const gasneti_tree_shape_t *s, const uint8_t *d, size_t len) {
    for (size_t off = 0; off < len;) {
        uint32_t hdr[2];
        if (len - off < 8) return 0;
        memcpy(hdr, d + off, 8);
        if (hdr[0] >= (uint32_t)s->nranks || len - off - 8 < hdr[1]) return 0;
        off += 8 + hdr[1];
    }
    return 1;
}

int gasneti_tree_on_msg(gasneti_tree_coll_t *c, int type, const void *data, size_t len) {
    if (type == GASNETI_TREE_DOWN) {
        if (!c->node) return -1; /* nothing comes down to the root */
        send_down(c, data, len);
        return 0;
    }
    if (type != GASNETI_TREE_UP || !records_ok(c->shape, data, len)) return -1;
    if (add_bytes(c, data, len)) return -1;
    return one_more(c);
}
