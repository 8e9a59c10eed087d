/* dag: the dependency graph of one training step. Nodes are a schedule's
 * actions (same indices); an edge u -> v says v cannot start before u ends:
 *   program order on each rank;  F(s,m) -> F(s+1,m);  F(s,m) -> B|I(s,m);
 *   B|I(s,m) -> B|I(s-1,m);  I(s,m) -> W(s,m);
 * and for an overlapped pair (sched.h: a forward f and the backward g after
 * it, run as one): f's successor on the next stage waits for g too (what
 * the pair sends leaves when it ends). f starts at its own input and g after
 * f and its own input, as PyTorch's runtime runs a pair's two halves.
 * Edges between actions on different ranks carry the communication latency.
 * A cycle means the schedule deadlocks. */
#ifndef TFC_DAG_H
#define TFC_DAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "diag.h"
#include "sched.h"
#include "spec.h"

typedef struct dag {
    size_t n;
    uint32_t *succ_start; /* n + 1 offsets into succ */
    uint32_t *succ;
    uint32_t *topo; /* the nodes in a topological order */
} dag;

/* Builds the DAG of s. On a cycle, reports "the schedule deadlocks" with the
 * cycle's actions in order, at the CSV cell of its first action when s came
 * from a CSV, else at `at` in file; returns false. */
bool dag_build(const sched *s, const char *file, spec_pos at, arena *a, diag_list *d, dag **out);

/* Whether edge u -> v crosses ranks (and so carries the latency). */
static inline bool dag_cross_rank(const sched *s, uint32_t u, uint32_t v) { return s->rank_of[u] != s->rank_of[v]; }

#endif
