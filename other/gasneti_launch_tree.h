/* gasneti_launch_tree.h: the shape of a scalable job start and the bootstrap collectives
 * over it, written without any I/O so that the same code runs in a launcher and in a unit
 * test over an in-process transport (tests/unit/test_launch_tree.c). Layer: other
 * (launchers), internal; plain libc. The design and its measured figures: docs/bootstrap.md
 * ("Start-up that scales").
 *
 * The job's nranks ranks are placed on nhosts hosts round robin, as the ssh spawner does
 * (rank r on host r % nhosts). The tree's nodes: node 0 is the launcher, node 1 + h the
 * agent of host h (one process per host, which forks that host's ranks). Node i's parent
 * is (i - 1) / degree and its children degree * i + 1 ... degree * i + degree: each node
 * starts (ssh) and holds at most `degree` children, plus its parent and its own ranks.
 * degree is GASNET_SSH_OUT_DEGREE (GASNETI_TREE_DEFAULT_DEGREE when unset).
 *
 * A collective (exchange: every rank's contribution to every rank in rank order; barrier:
 * an exchange of nothing; broadcast: an exchange to which only the root gives bytes) goes
 * up the tree as one UP message per node, carrying the (rank, length, bytes) records of
 * the non-empty contributions of its subtree, and comes down as one DOWN message per node
 * carrying the result (the contributions concatenated in rank order). So it takes
 * 2 * depth tree hops (+ 2 between a rank and its agent), depth = O(log_degree nhosts),
 * and each node handles O(degree + local ranks) messages; a barrier moves O(degree) bytes
 * per node, a broadcast of len bytes O(len). */
#ifndef GASNETI_LAUNCH_TREE_H
#define GASNETI_LAUNCH_TREE_H

#include <stddef.h>
#include <stdint.h>

#define GASNETI_TREE_DEFAULT_DEGREE 32

typedef struct {
    int nranks, nhosts, degree; /* nhosts <= nranks, degree >= 1 */
} gasneti_tree_shape_t;

/* The shape of nranks ranks on nservers hosts (only the first nranks hosts when there are
 * more hosts than ranks); degree <= 0 means the default. 0, or -1 on bad arguments. */
int gasneti_tree_shape(gasneti_tree_shape_t *s, int nranks, int nservers, int degree);
static inline int gasneti_tree_nnodes(const gasneti_tree_shape_t *s) { return s->nhosts + 1; }
static inline int gasneti_tree_host_of(const gasneti_tree_shape_t *s, int rank) { return rank % s->nhosts; }
/* the ranks of host h: h, h + nhosts, h + 2 * nhosts, ... */
static inline int gasneti_tree_nlocal(const gasneti_tree_shape_t *s, int h) {
    return s->nranks / s->nhosts + (h < s->nranks % s->nhosts);
}
static inline int gasneti_tree_local_rank(const gasneti_tree_shape_t *s, int h, int i) { return h + i * s->nhosts; }
/* node 0 is the launcher (no host, no ranks); node 1 + h the agent of host h */
static inline int gasneti_tree_parent(const gasneti_tree_shape_t *s, int node) {
    return node ? (node - 1) / s->degree : -1;
}
int gasneti_tree_nchildren(const gasneti_tree_shape_t *s, int node);
static inline int gasneti_tree_child(const gasneti_tree_shape_t *s, int node, int i) {
    return s->degree * node + 1 + i;
}
static inline int gasneti_tree_nlocal_of_node(const gasneti_tree_shape_t *s, int node) {
    return node ? gasneti_tree_nlocal(s, node - 1) : 0;
}
/* the tree hops from the launcher to the deepest agent */
int gasneti_tree_depth(const gasneti_tree_shape_t *s);

/* ---- the collectives: one node's part ----
 * The node's owner moves the messages; the engine says what to send through the
 * callbacks (which copy what they need before returning). */
enum { GASNETI_TREE_UP = 1, GASNETI_TREE_DOWN = 2 };
typedef struct {
    void *ctx;
    /* a tree message (GASNETI_TREE_UP to the parent, GASNETI_TREE_DOWN to a child) */
    void (*send)(void *ctx, int to_node, int type, const void *data, size_t len);
    /* the collective's result to the node's i-th local rank */
    void (*deliver)(void *ctx, int local_index, const void *data, size_t len);
} gasneti_tree_io_t;

typedef struct {
    const gasneti_tree_shape_t *shape;
    int node;
    gasneti_tree_io_t io;
    int awaited; /* local contributions and children's UPs still to come in this collective */
    uint8_t *recs; /* the subtree's records so far: uint32 rank, uint32 len, bytes, ... */
    size_t nrecs_bytes, cap;
} gasneti_tree_coll_t;

void gasneti_tree_coll_init(gasneti_tree_coll_t *c, const gasneti_tree_shape_t *s, int node, gasneti_tree_io_t io);
void gasneti_tree_coll_fini(gasneti_tree_coll_t *c);
/* The node's i-th local rank contributes len bytes (once per collective). 0, or -1 if out of memory. */
int gasneti_tree_contribute(gasneti_tree_coll_t *c, int local_index, const void *data, size_t len);
/* A message from the tree. 0, or -1 if it is malformed (a protocol error) or out of memory. */
int gasneti_tree_on_msg(gasneti_tree_coll_t *c, int type, const void *data, size_t len);

#endif
