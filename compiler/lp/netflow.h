/* netflow: minimum-cost flow by the primal network simplex, on doubles.
 *
 * The caller fills the arcs (src, dst, cost, cap; cap may be INFINITY),
 * the supplies, a root and a spanning tree (each other node's tree arc) that
 * carries a feasible flow; netflow_init derives the tree's flows and the
 * node potentials, netflow_solve pivots until no arc prices out. The tree
 * must be strongly feasible (every tree arc with no flow points towards the
 * root, every tree arc at its capacity away from it); the leaving-arc rule
 * keeps it so, which rules out cycling on the many degenerate pivots of
 * unit-flow problems. Reduced costs are  cost + pi[src] - pi[dst];  an arc
 * with cap <= 0 never enters. Every array comes from the caller's arena
 * and goes with it. Used by lp_price.c; knows nothing of the LP. */
#ifndef TFC_NETFLOW_H
#define TFC_NETFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"

#define NETFLOW_NONE UINT32_MAX

typedef struct netflow {
    arena *a; /* where the arrays below come from, the dual pivots' too */
    uint32_t n_nodes, n_arcs;
    /* per arc, filled by the caller */
    uint32_t *src, *dst;
    double *cost, *cap;
    /* per arc, results */
    double *flow;
    int8_t *state; /* 1 at lower bound, -1 at upper bound, 0 in the tree */
    /* per node */
    double *supply; /* filled by the caller; sums to 0 */
    double *pi;
    uint32_t *parent, *pred, *size; /* size: nodes in the subtree */
    int8_t *up; /* 1: pred points from the node to its parent */
    uint32_t *first_child, *next_sib, *prev_sib, *stack, *order;
    double *net; /* per node: scratch for the tree's flows */
    uint32_t root;
    uint32_t next_arc; /* block search position */
    long long pivots;
    /* the dual pivots' incidence lists and node marks, built on first use */
    uint32_t *inc_start, *inc, *mark, stamp;
    uint32_t *cand, n_cand; /* tree arcs that may be out of their bounds */
    uint8_t *in_cand;
} netflow;

/* Allocates every array for n nodes and m arcs (zeroed) from a, which must
 * outlive nf; false on no memory. Freeing a frees nf. */
bool netflow_alloc(netflow *nf, arena *a, uint32_t n, uint32_t m);

/* tree_arc[v]: v's tree arc (NETFLOW_NONE for the root). Computes flows
 * from the supplies and potentials from the costs. False when the tree
 * does not span the nodes or a tree flow is out of its bounds. */
bool netflow_init(netflow *nf, uint32_t root, const uint32_t *tree_arc);

/* Restarts from the current tree after the caller changed costs,
 * capacities, non-tree arcs' flows (each at a bound: state 1 at 0, -1 at
 * its capacity, which must be finite) or a node's tree arc for a parallel
 * one (pred; up must stay right). Recomputes the tree's flows, which may
 * fall out of their bounds (netflow_dual brings them back), and the
 * potentials; false only on a tree that does not span. The
 * tree may no longer be strongly feasible: give netflow_solve a pivot
 * limit. */
bool netflow_restart(netflow *nf);

typedef enum { NETFLOW_OPTIMAL, NETFLOW_UNBOUNDED, NETFLOW_PIVOT_LIMIT } netflow_status;

/* Pivots until every non-tree arc's reduced cost is within eps of optimal,
 * or max_pivots (0 = no limit). At the end the potentials are recomputed
 * from the tree and optimality rechecked; after 8 such rechecks that still
 * find an arc to bring in (rounding larger than eps), NETFLOW_PIVOT_LIMIT. */
netflow_status netflow_solve(netflow *nf, double eps, long long max_pivots);

/* The dual network simplex, after netflow_restart left tree flows out of
 * their bounds while every reduced cost still has the sign its arc's
 * state needs (as after changing capacities at an optimum): pivots until
 * every tree flow is within tol (relative to 1 + capacity) of its bounds,
 * then sets them onto the bounds. NETFLOW_UNBOUNDED when no arc with a
 * rightly signed reduced cost can take a cut's change (no flow fits the
 * bounds, or an arc reopened from capacity 0 was priced wrong: start cold
 * then); NETFLOW_PIVOT_LIMIT at max_pivots or on no memory. Follow with
 * netflow_solve for any reduced cost left on the wrong side. */
netflow_status netflow_dual(netflow *nf, double tol, long long max_pivots);

/* cost . flow */
double netflow_cost(const netflow *nf);

#endif
