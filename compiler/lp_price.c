/* lp_price: the decomposition's subproblem as a minimum-cost flow
 * (lp_price.h).
 *
 * Network: a freezable action u is an arc pair from its start node to its
 * end node, "fast" at its most frozen duration w_max - hi (w_max - w_min)
 * with no capacity limit and "slow" at w_max with capacity
 * c_u / (nu span_u); any other action is a single node whose duration
 * rides on the arcs leaving it. Each kept dependency is an arc from the end
 * of u to the start of v at the latency (the same program-order and
 * cross-rank edges as the LP, lp_freeze.c); the source feeds every action without a kept
 * predecessor, every action without successors feeds the sink. Costs are
 * minus the durations: the cheapest unit flow collects the longest
 * durations, where a freezable action gives more than its slow arc's
 * capacity only at its fast duration. The start tree is the longest path
 * to the sink with each action slow where one unit fits through the slow
 * arc and fast elsewhere: feasible, and strongly so (every arc points to
 * the sink, the root). */
#include "lp_price.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

void lp_price_free(lp_price *pr)
{
    netflow_free(&pr->nf);
    free(pr->slow);
    free(pr->fast);
    free(pr->out_first);
    free(pr->out_end);
    free(pr->hi);
    free(pr->hi0);
    free(pr->span);
    free(pr->tail);
    free(pr->node_in);
    free(pr->node_out);
    free(pr->tree);
    free(pr->dur);
    free(pr->start);
    memset(pr, 0, sizeof *pr);
}

bool lp_price_init(lp_price *pr, const lp_problem *pb)
{
    memset(pr, 0, sizeof *pr);
    pr->pb = pb;
    const sched *s = pb->s;
    const dag *g = pb->g;
    uint32_t n = (uint32_t)s->n_actions;
    pr->n = n;
    size_t nn = n ? n : 1;
    pr->slow = malloc(nn * sizeof *pr->slow);
    pr->fast = malloc(nn * sizeof *pr->fast);
    pr->out_first = malloc(nn * sizeof *pr->out_first);
    pr->out_end = malloc(nn * sizeof *pr->out_end);
    pr->hi = malloc(nn * sizeof *pr->hi);
    pr->hi0 = malloc(nn * sizeof *pr->hi0);
    pr->span = malloc(nn * sizeof *pr->span);
    pr->dur = malloc(nn * sizeof *pr->dur);
    pr->start = malloc(nn * sizeof *pr->start);
    pr->node_in = malloc(nn * sizeof *pr->node_in);
    pr->node_out = malloc(nn * sizeof *pr->node_out);
    pr->tail = malloc((2 * nn + 2) * sizeof *pr->tail);
    pr->tree = malloc((2 * nn + 2) * sizeof *pr->tree);
    bool *has_pred = calloc(nn, sizeof *has_pred);
    if (!pr->slow || !pr->fast || !pr->out_first || !pr->out_end || !pr->hi || !pr->hi0 || !pr->span || !pr->dur ||
        !pr->start || !pr->node_in || !pr->node_out || !pr->tail || !pr->tree || !has_pred) {
        free(has_pred);
        lp_price_free(pr);
        return false;
    }
    double hi = pb->action_cap < 1.0 ? pb->action_cap : 1.0;
    size_t m = 0;
    uint32_t nodes = 0;
    for (uint32_t u = 0; u < n; u++) {
        pr->span[u] = pb->w_max[u] - pb->w_min[u];
        pr->hi0[u] = pb->freezable[u] && pr->span[u] > 0.0 ? 1.0 : 0.0;
        pr->hi[u] = hi > 0.0 ? hi * pr->hi0[u] : 0.0;
        pr->node_in[u] = nodes++;
        pr->node_out[u] = pr->hi0[u] > 0.0 ? nodes++ : pr->node_in[u];
        m += pr->hi0[u] > 0.0 ? 2 : 0;
        bool program_done = false;
        for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++)
            if (lp_kept_edge(s, u, g->succ[e], &program_done)) {
                m++;
                has_pred[g->succ[e]] = true;
            }
        if (g->succ_start[u + 1] == g->succ_start[u])
            m++;
    }
    for (uint32_t u = 0; u < n; u++)
        m += !has_pred[u];
    m++; /* the return arc */
    if (m > UINT32_MAX / 2 || !netflow_alloc(&pr->nf, nodes + 2, (uint32_t)m)) {
        free(has_pred);
        lp_price_free(pr);
        return false;
    }
    netflow *nf = &pr->nf;
    uint32_t a = 0, source = nodes, sink = nodes + 1;
    pr->source = source;
    pr->sink = sink;
    for (uint32_t u = 0; u < n; u++) {
        uint32_t in = pr->node_in[u], out = pr->node_out[u];
        pr->fast[u] = pr->slow[u] = NETFLOW_NONE;
        if (pr->hi0[u] > 0.0) {
            pr->fast[u] = a;
            nf->src[a] = in, nf->dst[a] = out;
            nf->cost[a] = -(pb->w_max[u] - pr->hi[u] * pr->span[u]);
            nf->cap[a++] = INFINITY;
            pr->slow[u] = a;
            nf->src[a] = in, nf->dst[a] = out;
            nf->cost[a] = -pb->w_max[u];
            nf->cap[a++] = 0.0;
        }
        /* An action that cannot freeze is one node: its duration rides on
         * the arcs leaving it. */
        double own = pr->hi0[u] > 0.0 ? 0.0 : pb->w_max[u];
        pr->out_first[u] = a;
        bool program_done = false;
        for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++) {
            uint32_t v = g->succ[e];
            if (!lp_kept_edge(s, u, v, &program_done))
                continue;
            nf->src[a] = out, nf->dst[a] = pr->node_in[v];
            nf->cost[a] = -(own + (dag_cross_rank(s, u, v) ? pb->comm_ms : 0.0));
            nf->cap[a++] = INFINITY;
        }
        if (g->succ_start[u + 1] == g->succ_start[u]) {
            nf->src[a] = out, nf->dst[a] = sink;
            nf->cost[a] = -own;
            nf->cap[a++] = INFINITY;
        }
        pr->out_end[u] = a;
    }
    pr->src_first = a;
    for (uint32_t u = 0; u < n; u++)
        if (!has_pred[u]) {
            nf->src[a] = source, nf->dst[a] = pr->node_in[u];
            nf->cost[a] = 0.0;
            nf->cap[a++] = INFINITY;
        }
    /* The return arc, used only with a deadline (lp_price_solve_deadline). */
    pr->ret = a;
    nf->src[a] = sink, nf->dst[a] = source;
    nf->cost[a] = 0.0;
    nf->cap[a++] = 0.0;
    free(has_pred);
    nf->supply[source] = 1.0;
    nf->supply[sink] = -1.0;
    /* The unfrozen step's length (and the longest action): the size of the
     * potentials, for the flow solver's tolerance. */
    pr->scale = sim_longest_path(s, g, pb->w_max, pb->comm_ms, pr->start);
    for (uint32_t u = 0; u < n; u++)
        pr->scale = fmax(pr->scale, pb->w_max[u]);
    pr->scale = fmax(pr->scale, 1.0);
    return true;
}

void lp_price_set_cap(lp_price *pr, uint32_t u, double v)
{
    if (pr->slow[u] == NETFLOW_NONE)
        return;
    double h = v < pr->hi0[u] ? v : pr->hi0[u];
    if (!(h > 0.0))
        h = 0.0;
    pr->hi[u] = h;
    pr->nf.cost[pr->fast[u]] = -(pr->pb->w_max[u] - h * pr->span[u]);
}

/* The start tree (module comment): each node's longest way to the sink,
 * with an action slow where one unit fits through its slow arc. */
static bool start_tree(lp_price *pr, double fits)
{
    netflow *nf = &pr->nf;
    const dag *g = pr->pb->g;
    uint32_t n = pr->n, source = pr->source, sink = pr->sink;
    pr->tail[sink] = 0.0;
    pr->tree[sink] = NETFLOW_NONE;
    for (uint32_t k = n; k-- > 0;) {
        uint32_t u = g->topo[k];
        uint32_t end = pr->node_out[u], best = NETFLOW_NONE;
        double best_v = -INFINITY;
        for (uint32_t a = pr->out_first[u]; a < pr->out_end[u]; a++) {
            double v = -nf->cost[a] + pr->tail[nf->dst[a]];
            if (v > best_v)
                best_v = v, best = a;
        }
        if (best == NETFLOW_NONE)
            return false;
        pr->tail[end] = best_v;
        pr->tree[end] = best;
        if (pr->slow[u] != NETFLOW_NONE) {
            uint32_t d = nf->cap[pr->slow[u]] > fits ? pr->slow[u] : pr->fast[u];
            pr->tree[pr->node_in[u]] = d;
            pr->tail[pr->node_in[u]] = -nf->cost[d] + best_v;
        }
    }
    uint32_t best = NETFLOW_NONE;
    double best_v = -INFINITY;
    for (uint32_t a = pr->src_first; a < pr->ret; a++) {
        double v = pr->tail[nf->dst[a]];
        if (v > best_v)
            best_v = v, best = a;
    }
    if (best == NETFLOW_NONE)
        return false;
    pr->tree[source] = best;
    return netflow_init(nf, sink, pr->tree);
}

/* x from the optimal potentials: each action's duration between its two
 * nodes, as a ratio within its bounds. */
static void ratios(lp_price *pr, const double *c, double *x)
{
    const lp_problem *pb = pr->pb;
    netflow *nf = &pr->nf;
    for (uint32_t u = 0; u < pr->n; u++) {
        if (pr->hi[u] <= 0.0) {
            x[u] = 0.0;
        } else if (c[u] < 0.0) {
            x[u] = pr->hi[u];
        } else {
            double y = nf->pi[pr->node_in[u]] - nf->pi[pr->node_out[u]];
            double r = (pb->w_max[u] - y) / pr->span[u];
            x[u] = r <= 0.0 ? 0.0 : r >= pr->hi[u] ? pr->hi[u] : r;
        }
    }
}

/* x's makespan into *T, and sum c x. */
static double finish(lp_price *pr, const double *c, const double *x, double *T)
{
    const lp_problem *pb = pr->pb;
    double sum = 0.0;
    for (uint32_t u = 0; u < pr->n; u++) {
        pr->dur[u] = pb->w_max[u] - x[u] * pr->span[u];
        if (pr->hi[u] > 0.0)
            sum += c[u] * x[u];
    }
    *T = sim_longest_path(pb->s, pb->g, pr->dur, pb->comm_ms, pr->start);
    return sum;
}

/* Reduced costs are differences of potentials as large as the step:
 * their rounding scales with its length. The pivot limit only guards
 * against cycling through rounding (never reached in tests: about one
 * pivot per node is typical). */
static netflow_status run(lp_price *pr, double fits)
{
    netflow *nf = &pr->nf;
    if (!start_tree(pr, fits))
        return NETFLOW_PIVOT_LIMIT;
    netflow_status r = netflow_solve(nf, 1e-11 * pr->scale, 64 * (long long)nf->n_arcs + 1024);
    pr->pivots += nf->pivots;
    return r;
}

bool lp_price_solve(lp_price *pr, double nu, const double *c, double *x, double *T, double *value)
{
    uint32_t n = pr->n;
    netflow *nf = &pr->nf;
    if (nu > 0.0 && n > 0) {
        for (uint32_t u = 0; u < n; u++)
            if (pr->slow[u] != NETFLOW_NONE)
                nf->cap[pr->slow[u]] = c[u] > 0.0 ? c[u] / (nu * pr->span[u]) : 0.0;
        if (run(pr, 1.0) != NETFLOW_OPTIMAL)
            return false;
        ratios(pr, c, x);
    } else {
        for (uint32_t u = 0; u < n; u++)
            x[u] = pr->hi[u] > 0.0 && c[u] < 0.0 ? pr->hi[u] : 0.0;
    }
    double sum = finish(pr, c, x, T);
    *value = nu * *T + sum;
    return true;
}

lp_price_status lp_price_solve_deadline(lp_price *pr, double t_lim, const double *c, double *x, double *T,
                                        double *value)
{
    uint32_t n = pr->n;
    netflow *nf = &pr->nf;
    for (uint32_t u = 0; u < n; u++)
        if (pr->slow[u] != NETFLOW_NONE)
            nf->cap[pr->slow[u]] = c[u] > 0.0 ? c[u] / pr->span[u] : 0.0;
    /* A circulation: no supplies, the return arc open at the deadline. */
    nf->supply[pr->source] = nf->supply[pr->sink] = 0.0;
    nf->cap[pr->ret] = INFINITY;
    nf->cost[pr->ret] = t_lim;
    netflow_status r = n > 0 ? run(pr, 0.0) : NETFLOW_OPTIMAL;
    nf->supply[pr->source] = 1.0;
    nf->supply[pr->sink] = -1.0;
    nf->cap[pr->ret] = 0.0;
    nf->cost[pr->ret] = 0.0;
    if (r != NETFLOW_OPTIMAL)
        return r == NETFLOW_UNBOUNDED ? LP_PRICE_BEYOND_REACH : LP_PRICE_FAILED;
    ratios(pr, c, x);
    *value = finish(pr, c, x, T);
    return LP_PRICE_OK;
}
