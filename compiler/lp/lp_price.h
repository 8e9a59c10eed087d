/* lp_price: the freeze LP's subproblem without its coupling rows,
 *
 *   minimise  nu * makespan(x) + sum_u c_u x_u   over x_u in [0, hi_u],
 *
 * solved exactly as a minimum-cost flow (netflow.c): its dual sends one
 * unit of flow from the step's start to its end through the DAG, where a
 * freezable action passes up to c_u / (nu (w_max_u - w_min_u)) units at
 * its unfrozen duration and any more at its most frozen one, and the flow
 * maximises the durations it collects. The optimal potentials are the
 * start times, and give x. The decomposition (lp_dw.c) calls it in phase 1
 * with nu = 1 and the budget rows' prices in c; phase 2 calls
 * lp_price_solve_deadline below. docs/freeze-lp.md, "Decomposition". */
#ifndef TFC_LP_PRICE_H
#define TFC_LP_PRICE_H

#include <stdbool.h>
#include <stdint.h>

#include "arena.h"
#include "lp_problem.h"
#include "netflow.h"

typedef struct lp_price {
    const lp_problem *pb;
    uint32_t n;     /* actions */
    netflow nf;
    uint32_t *node_in, *node_out; /* per action: the (contracted) nodes of its start and end */
    double *off_in, *off_out;     /* per action: those nodes' potentials plus these are its start and end's */
    uint32_t source, sink;
    uint32_t *slow; /* per action: its arc at w_max (freezable), NETFLOW_NONE otherwise */
    uint32_t *fast; /* per action: its arc at the most frozen duration (freezable), NETFLOW_NONE otherwise */
    double *slow_off, *fast_off; /* per action: the cost contraction added to those arcs */
    uint32_t ret;   /* the return arc, sink to source: open only with a deadline */
    uint32_t *topo;                /* per node: a topological order (without the return arc) */
    uint32_t *adj_start, *adj;     /* per node: its out-arcs (without the return arc) */
    double *hi;       /* per action: x's upper bound; 0 when not freezable */
    double *hi0;      /* per action: 1 when freezable (and w_max > w_min), else 0: the most lp_price_set_cap allows */
    double *span;     /* per action: w_max - w_min */
    double *tail;     /* per node: scratch */
    uint32_t *tree;   /* per node: scratch */
    double *dur, *start; /* per action: scratch */
    long long pivots; /* summed over calls */
    double *newcap;   /* per action: scratch, the slow arcs' next capacities */
    int warm_kind;    /* the flow solver holds an optimum: 1 of a unit flow, 2 of a circulation at warm_tlim; else 0 */
    double warm_tlim;
    long long cold_pivots; /* the last cold start's pivots: a warm start may take a quarter of them */
    long long warm_solves; /* summed over calls */
    double scale;     /* the unfrozen makespan (at least 1): the potentials' size */
    double time_price; /* the last deadline solve's return flow (lp_price_time_price) */
} lp_price;

/* Builds the network for pb, its arrays from a (which must outlive pr;
 * freeing a frees pr); false on no memory. */
bool lp_price_init(lp_price *pr, const lp_problem *pb, arena *a);

/* Sets action u's upper bound on x to v (clamped to [0, 1]); only for
 * freezable actions (others stay at 0). lp_price_init starts every bound
 * at freeze.max_action_ratio. */
void lp_price_set_cap(lp_price *pr, uint32_t u, double v);

/* Solves the subproblem for nu >= 0 and c (per action; ignored where not
 * freezable). Writes x (per action), the makespan of x to *T and the
 * objective to *value. False when the flow solver fails: no memory for its
 * start, or its pivot limit (neither seen in tests). */
bool lp_price_solve(lp_price *pr, double nu, const double *c, double *x, double *T, double *value);

/* The makespan of x (per action, within the bounds): the step with each
 * action at w_max - x (w_max - w_min). */
double lp_price_makespan(lp_price *pr, const double *x);

typedef enum { LP_PRICE_OK, LP_PRICE_BEYOND_REACH, LP_PRICE_FAILED } lp_price_status;

/* The subproblem with a deadline instead of a price on time:
 *
 *   minimise  sum_u c_u x_u  over x_u in [0, hi_u] with makespan(x) <= t_lim,
 *
 * for c_u > 0. Its dual is a minimum-cost circulation: as lp_price_solve's
 * flow, with any amount returned from the step's end to its start at cost
 * t_lim per unit (the amount is the price of time at the optimum).
 * LP_PRICE_BEYOND_REACH when no x within the bounds reaches t_lim (an
 * unbounded circulation), LP_PRICE_FAILED as lp_price_solve's false. */
lp_price_status lp_price_solve_deadline(lp_price *pr, double t_lim, const double *c, double *x, double *T,
                                        double *value);

/* After lp_price_solve_deadline: the price of time at its answer, the
 * circulation's flow back from the step's end to its start (the objective's
 * decrease per ms of deadline); 0 after anything else. */
double lp_price_time_price(const lp_price *pr);

#endif
