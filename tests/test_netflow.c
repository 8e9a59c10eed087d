/* netflow: the network simplex against lp_solve on the same minimum-cost
 * flow written as an LP (conservation rows, arc bounds), on random
 * networks with fractional capacities and a unit of flow (as the freeze
 * LP's subproblem has); the returned flow is checked to conserve and
 * respect its bounds, the potentials to price every arc optimally, and the
 * final tree to be strongly feasible with the right subtree sizes. */
#include <criterion/criterion.h>
#include <lpsolve/lp_lib.h>
#include <math.h>
#include <stdlib.h>

#include "netflow.h"

static unsigned rnd(unsigned *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 16 & 0x7fff;
}

/* Nodes 0..n-1 on an uncapacitated spine i -> i+1 (the start tree, rooted
 * at n-1, carrying the unit from node 0 to node n-1), plus random forward
 * arcs i -> j (i < j: no cycles, so negative costs are fine) with random
 * costs and capacities, some parallel to spine arcs. */
static void random_network(netflow *nf, uint32_t n, uint32_t extra, unsigned *seed)
{
    cr_assert(netflow_alloc(nf, n, n - 1 + extra));
    uint32_t a = 0;
    for (uint32_t i = 0; i + 1 < n; i++, a++) {
        nf->src[a] = i, nf->dst[a] = i + 1;
        nf->cost[a] = (double)(rnd(seed) % 1000) / 100.0 - 5.0;
        nf->cap[a] = INFINITY;
    }
    for (uint32_t k = 0; k < extra; k++, a++) {
        uint32_t i = rnd(seed) % (n - 1);
        uint32_t j = i + 1 + rnd(seed) % (n - 1 - i);
        nf->src[a] = i, nf->dst[a] = j;
        nf->cost[a] = (double)(rnd(seed) % 1000) / 100.0 - 8.0;
        nf->cap[a] = rnd(seed) % 4 == 0 ? INFINITY : (double)(rnd(seed) % 1000) / 700.0;
    }
    nf->supply[0] = 1.0;
    nf->supply[n - 1] = -1.0;
}

static double lp_optimum(const netflow *nf)
{
    lprec *lp = make_lp((int)nf->n_nodes, 0);
    set_verbose(lp, NEUTRAL);
    for (uint32_t v = 0; v < nf->n_nodes; v++) {
        set_constr_type(lp, (int)v + 1, EQ);
        set_rh(lp, (int)v + 1, -nf->supply[v]); /* inflow - outflow = -supply */
    }
    for (uint32_t e = 0; e < nf->n_arcs; e++) {
        int rows[3] = {0, (int)nf->dst[e] + 1, (int)nf->src[e] + 1};
        double vals[3] = {nf->cost[e], 1.0, -1.0};
        cr_assert(add_columnex(lp, 3, vals, rows));
        if (isfinite(nf->cap[e]))
            set_upbo(lp, (int)e + 1, nf->cap[e]);
    }
    set_minim(lp);
    cr_assert_eq(solve(lp), OPTIMAL);
    double v = get_objective(lp);
    delete_lp(lp);
    return v;
}

Test(netflow, matches_lp_solve_on_random_networks)
{
    unsigned seed = 2024;
    for (int trial = 0; trial < 2000; trial++) {
        uint32_t n = 3 + rnd(&seed) % 40, extra = rnd(&seed) % (3 * n);
        netflow nf;
        random_network(&nf, n, extra, &seed);
        uint32_t *tree = malloc(n * sizeof *tree);
        for (uint32_t v = 0; v + 1 < n; v++)
            tree[v] = v; /* the spine arc v -> v+1 */
        tree[n - 1] = NETFLOW_NONE;
        cr_assert(netflow_init(&nf, n - 1, tree));
        cr_assert_eq(netflow_solve(&nf, 1e-12, 0), NETFLOW_OPTIMAL, "trial %d", trial);
        double want = lp_optimum(&nf);
        cr_assert(fabs(netflow_cost(&nf) - want) <= 1e-9 * (1 + fabs(want)), "trial %d (n %u, %u arcs): %.12g vs LP %.12g",
                  trial, n, nf.n_arcs, netflow_cost(&nf), want);
        /* Feasible, and the potentials certify it optimal. */
        double *net = calloc(n, sizeof *net);
        for (uint32_t e = 0; e < nf.n_arcs; e++) {
            cr_assert(nf.flow[e] >= -1e-12 && nf.flow[e] <= nf.cap[e] + 1e-12);
            net[nf.src[e]] -= nf.flow[e];
            net[nf.dst[e]] += nf.flow[e];
            double rc = nf.cost[e] + nf.pi[nf.src[e]] - nf.pi[nf.dst[e]];
            if (nf.flow[e] < nf.cap[e] - 1e-12)
                cr_assert_geq(rc, -1e-9, "trial %d arc %u below its capacity prices out: %g", trial, e, rc);
            if (nf.flow[e] > 1e-12)
                cr_assert_leq(rc, 1e-9, "trial %d arc %u carries flow at a loss: %g", trial, e, rc);
        }
        for (uint32_t v = 0; v < n; v++)
            cr_assert(fabs(net[v] + nf.supply[v]) <= 1e-12, "trial %d node %u unbalanced", trial, v);
        /* The final tree is strongly feasible (what rules out cycling): an
         * empty tree arc points to the root, a full one away from it; and
         * every subtree size is right. */
        uint32_t *count = calloc(n, sizeof *count);
        for (uint32_t v = 0; v < n; v++)
            for (uint32_t w = v; w != NETFLOW_NONE; w = nf.parent[w])
                count[w]++;
        for (uint32_t v = 0; v < n; v++) {
            cr_assert_eq(count[v], nf.size[v], "trial %d node %u: subtree size %u, counted %u", trial, v, nf.size[v],
                         count[v]);
            if (v == nf.root)
                continue;
            uint32_t a = nf.pred[v];
            if (nf.flow[a] <= 1e-12)
                cr_assert(nf.up[v], "trial %d: empty tree arc %u points away from the root", trial, a);
            if (isfinite(nf.cap[a]) && nf.cap[a] - nf.flow[a] <= 1e-12)
                cr_assert(!nf.up[v], "trial %d: full tree arc %u points to the root", trial, a);
        }
        free(count);
        free(net);
        free(tree);
        netflow_free(&nf);
    }
}

Test(netflow, refuses_a_start_that_is_not_a_tree_or_not_feasible)
{
    unsigned seed = 7;
    netflow nf;
    random_network(&nf, 5, 0, &seed);
    uint32_t loop[5] = {0, 0, 2, 3, NETFLOW_NONE}; /* nodes 0 and 1 hang from each other by arc 0 */
    cr_assert_not(netflow_init(&nf, 4, loop));
    /* A finite spine arc too small for the unit. */
    nf.cap[2] = 0.5;
    uint32_t spine[5] = {0, 1, 2, 3, NETFLOW_NONE};
    cr_assert_not(netflow_init(&nf, 4, spine));
    netflow_free(&nf);
}
