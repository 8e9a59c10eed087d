/* lp_price: the decomposition's subproblem as a minimum-cost flow
 * (lp_price.h).
 *
 * Network: a freezable action u is an arc pair from its start node to its
 * end node, "fast" at its most frozen duration w_max - hi (w_max - w_min)
 * with no capacity limit and "slow" at w_max with capacity
 * c_u / (nu span_u); any other action is a single node whose duration
 * rides on the arcs leaving it. Each kept dependency is an arc from the end
 * of u to the start of v at the latency (the same program-order and
 * cross-rank edges as the LP, lp_kept_edge); the source feeds every action without a kept
 * predecessor, every action without successors feeds the sink. Costs are
 * minus the durations: the cheapest unit flow collects the longest
 * durations, where a freezable action gives more than its slow arc's
 * capacity only at its fast duration.
 *
 * The network is then contracted: a node whose only arc in (or out) is a
 * dependency with no capacity limit merges into that arc's other end, its
 * other arcs taking the dependency's cost on. Flows and reduced costs stay
 * the same, and the merged node's potential is its partner's plus a
 * constant. In split schedules every W action is such a pair (one
 * program-order arc in, one out), so the network has about half the
 * nodes; the network simplex's pivots and tree walks shrink with it.
 *
 * The start tree is the longest path to the sink, over arcs that can
 * carry the flow (a slow arc only where one unit fits through it):
 * feasible, and strongly so (every arc points to the sink, the root). */
#include "lp_price.h"

#include <math.h>
#include <string.h>

#include "sim.h"

enum { ARC_DEP, ARC_FAST, ARC_SLOW, ARC_RETURN };

/* The uncontracted network, with linked in- and out-lists per node. */
typedef struct full_net {
    uint32_t n, m;
    uint32_t *src, *dst;
    double *cost, *cap;
    uint8_t *kind;
    uint32_t *out_head, *out_next, *in_head, *in_next, *outdeg, *indeg;
    uint32_t *rep; /* per node: the node it merged into, or itself */
    double *off;   /* per node: its potential minus rep's */
    bool *dead;    /* per arc */
} full_net;

/* The uncontracted network's arrays from ar (zeroed); false on no memory. */
static bool full_alloc(full_net *f, arena *ar, uint32_t n, uint32_t m)
{
    memset(f, 0, sizeof *f);
    size_t nn = n ? n : 1, mm = m ? m : 1;
    f->src = arena_alloc_array(ar, mm, sizeof *f->src);
    f->dst = arena_alloc_array(ar, mm, sizeof *f->dst);
    f->cost = arena_alloc_array(ar, mm, sizeof *f->cost);
    f->cap = arena_alloc_array(ar, mm, sizeof *f->cap);
    f->kind = arena_alloc_array(ar, mm, sizeof *f->kind);
    f->out_next = arena_alloc_array(ar, mm, sizeof *f->out_next);
    f->in_next = arena_alloc_array(ar, mm, sizeof *f->in_next);
    f->dead = arena_alloc_array(ar, mm, sizeof *f->dead);
    f->out_head = arena_alloc_array(ar, nn, sizeof *f->out_head);
    f->in_head = arena_alloc_array(ar, nn, sizeof *f->in_head);
    f->outdeg = arena_alloc_array(ar, nn, sizeof *f->outdeg);
    f->indeg = arena_alloc_array(ar, nn, sizeof *f->indeg);
    f->rep = arena_alloc_array(ar, nn, sizeof *f->rep);
    f->off = arena_alloc_array(ar, nn, sizeof *f->off);
    if (!f->src || !f->dst || !f->cost || !f->cap || !f->kind || !f->out_next || !f->in_next || !f->dead ||
        !f->out_head || !f->in_head || !f->outdeg || !f->indeg || !f->rep || !f->off)
        return false;
    f->n = n;
    for (uint32_t v = 0; v < n; v++) {
        f->out_head[v] = f->in_head[v] = NETFLOW_NONE;
        f->rep[v] = v;
    }
    return true;
}

/* Adds an arc; returns its index. Lists are kept in insertion order
 * reversed (pushed at the head): the order arcs are walked in does not
 * matter to the contraction. */
static uint32_t full_arc(full_net *f, uint32_t from, uint32_t to, double cost, double cap, int kind)
{
    uint32_t a = f->m++;
    f->src[a] = from, f->dst[a] = to;
    f->cost[a] = cost, f->cap[a] = cap;
    f->kind[a] = (uint8_t)kind;
    f->out_next[a] = f->out_head[from], f->out_head[from] = a, f->outdeg[from]++;
    f->in_next[a] = f->in_head[to], f->in_head[to] = a, f->indeg[to]++;
    return a;
}

/* Unlinks arc a from the list that starts at *head, linked by next. */
static void unlink_arc(uint32_t *head, uint32_t *next, uint32_t a)
{
    while (*head != a)
        head = &next[*head];
    *head = next[a];
}

/* Moves every arc of list `from` (linked by next) to the front of `to`. */
static void splice(uint32_t *to, uint32_t *from, uint32_t *next)
{
    if (*from == NETFLOW_NONE)
        return;
    uint32_t last = *from;
    while (next[last] != NETFLOW_NONE)
        last = next[last];
    next[last] = *to;
    *to = *from;
    *from = NETFLOW_NONE;
}

/* Series contraction (module comment); keep: nodes never merged (the
 * source and the sink). */
static void contract(full_net *f, uint32_t keep0, uint32_t keep1)
{
    for (bool again = true; again;) {
        again = false;
        for (uint32_t v = 0; v < f->n; v++) {
            if (v == keep0 || v == keep1 || f->rep[v] != v)
                continue;
            uint32_t a = f->in_head[v], b = f->out_head[v];
            if (f->indeg[v] == 1 && f->kind[a] == ARC_DEP && isinf(f->cap[a])) {
                /* into a's tail p: v's out-arcs leave p, a's cost added */
                uint32_t p = f->src[a];
                unlink_arc(&f->out_head[p], f->out_next, a);
                for (uint32_t e = b; e != NETFLOW_NONE; e = f->out_next[e]) {
                    f->src[e] = p;
                    f->cost[e] += f->cost[a];
                }
                splice(&f->out_head[p], &f->out_head[v], f->out_next);
                f->outdeg[p] += f->outdeg[v] - 1;
                f->rep[v] = p;
                f->off[v] = f->cost[a]; /* a's reduced cost 0: pi_v = pi_p + cost_a */
            } else if (f->outdeg[v] == 1 && f->kind[b] == ARC_DEP && isinf(f->cap[b])) {
                /* into b's head q: v's in-arcs enter q, b's cost added */
                uint32_t q = f->dst[b];
                unlink_arc(&f->in_head[q], f->in_next, b);
                for (uint32_t e = a; e != NETFLOW_NONE; e = f->in_next[e]) {
                    f->dst[e] = q;
                    f->cost[e] += f->cost[b];
                }
                splice(&f->in_head[q], &f->in_head[v], f->in_next);
                f->indeg[q] += f->indeg[v] - 1;
                f->rep[v] = q;
                f->off[v] = -f->cost[b]; /* pi_v = pi_q - cost_b */
                a = b;
            } else {
                continue;
            }
            f->dead[a] = true;
            f->in_head[v] = f->out_head[v] = NETFLOW_NONE;
            f->indeg[v] = f->outdeg[v] = 0;
            again = true;
        }
    }
}

/* Node v's surviving representative; *off gets pi_v - pi_rep. Path
 * compression keeps chains short. */
static uint32_t resolve(full_net *f, uint32_t v, double *off)
{
    double o = 0.0;
    uint32_t r = v;
    while (f->rep[r] != r) {
        o += f->off[r];
        r = f->rep[r];
    }
    /* compress: every node on the path now points at r directly */
    double rest = o;
    for (uint32_t w = v; f->rep[w] != w;) {
        uint32_t next = f->rep[w];
        double ow = f->off[w];
        f->rep[w] = r;
        f->off[w] = rest;
        rest -= ow;
        w = next;
    }
    *off = o;
    return r;
}

bool lp_price_init(lp_price *pr, const lp_problem *pb, arena *ar)
{
    memset(pr, 0, sizeof *pr);
    pr->pb = pb;
    const sched *s = pb->s;
    const dag *g = pb->g;
    uint32_t n = (uint32_t)s->n_actions;
    pr->n = n;
    size_t nn = n ? n : 1;
    pr->slow = arena_alloc_array(ar, nn, sizeof *pr->slow);
    pr->fast = arena_alloc_array(ar, nn, sizeof *pr->fast);
    pr->slow_off = arena_alloc_array(ar, nn, sizeof *pr->slow_off);
    pr->newcap = arena_alloc_array(ar, nn, sizeof *pr->newcap);
    pr->fast_off = arena_alloc_array(ar, nn, sizeof *pr->fast_off);
    pr->hi = arena_alloc_array(ar, nn, sizeof *pr->hi);
    pr->hi0 = arena_alloc_array(ar, nn, sizeof *pr->hi0);
    pr->span = arena_alloc_array(ar, nn, sizeof *pr->span);
    pr->dur = arena_alloc_array(ar, nn, sizeof *pr->dur);
    pr->start = arena_alloc_array(ar, nn, sizeof *pr->start);
    pr->node_in = arena_alloc_array(ar, nn, sizeof *pr->node_in);
    pr->node_out = arena_alloc_array(ar, nn, sizeof *pr->node_out);
    pr->off_in = arena_alloc_array(ar, nn, sizeof *pr->off_in);
    pr->off_out = arena_alloc_array(ar, nn, sizeof *pr->off_out);
    /* The uncontracted network and the renumbering live in an arena of
     * their own, freed once the contracted network is built: kept in ar to
     * the end of the solve, they would add some 40 bytes per arc to the
     * solve's peak (the network simplex's arrays come on top of them). */
    arena build;
    arena_init(&build, 0);
    bool *has_pred = arena_alloc_array(&build, nn, sizeof *has_pred);
    full_net f = {0};
    uint32_t *newid = NULL, *newarc = NULL;
    bool ok = pr->slow && pr->fast && pr->slow_off && pr->newcap && pr->fast_off && pr->hi && pr->hi0 && pr->span &&
              pr->dur && pr->start && pr->node_in && pr->node_out && pr->off_in && pr->off_out && has_pred;
    /* Count nodes and arcs of the uncontracted network. */
    size_t m = 0;
    uint32_t nodes = 0;
    for (uint32_t u = 0; ok && u < n; u++) {
        pr->span[u] = pb->w_max[u] - pb->w_min[u];
        /* hi0: the most the action can be frozen (its stage's top); hi:
         * that under the per-action cap (lp_price_set_cap moves it) */
        double top = lp_action_top(pb, u), hi = lp_action_hi(pb, u);
        pr->hi0[u] = pb->freezable[u] && pr->span[u] > 0.0 && top > 0.0 ? top : 0.0;
        pr->hi[u] = pr->hi0[u] > 0.0 && hi > 0.0 ? hi : 0.0;
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
    for (uint32_t u = 0; ok && u < n; u++)
        m += !has_pred[u];
    m++; /* the return arc */
    ok = ok && m <= UINT32_MAX / 2 && full_alloc(&f, &build, nodes + 2, (uint32_t)m);
    uint32_t source = nodes, sink = nodes + 1;
    for (uint32_t u = 0; ok && u < n; u++) {
        uint32_t in = pr->node_in[u], out = pr->node_out[u];
        pr->fast[u] = pr->slow[u] = NETFLOW_NONE;
        if (pr->hi0[u] > 0.0) {
            pr->fast[u] = full_arc(&f, in, out, -(pb->w_max[u] - pr->hi[u] * pr->span[u]), INFINITY, ARC_FAST);
            pr->slow[u] = full_arc(&f, in, out, -pb->w_max[u], 0.0, ARC_SLOW);
        }
        /* An action that cannot freeze is one node: its duration rides on
         * the arcs leaving it. */
        double own = pr->hi0[u] > 0.0 ? 0.0 : pb->w_max[u];
        bool program_done = false;
        for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++) {
            uint32_t v = g->succ[e];
            if (lp_kept_edge(s, u, v, &program_done))
                full_arc(&f, out, pr->node_in[v], -(own + (dag_cross_rank(s, u, v) ? pb->comm_ms : 0.0)), INFINITY,
                         ARC_DEP);
        }
        if (g->succ_start[u + 1] == g->succ_start[u])
            full_arc(&f, out, sink, -own, INFINITY, ARC_DEP);
    }
    for (uint32_t u = 0; ok && u < n; u++)
        if (!has_pred[u])
            full_arc(&f, source, pr->node_in[u], 0.0, INFINITY, ARC_DEP);
    uint32_t ret = ok ? full_arc(&f, sink, source, 0.0, 0.0, ARC_RETURN) : 0;
    if (ok)
        contract(&f, source, sink);
    /* Compact: surviving nodes and arcs, renumbered in their old order. */
    newid = ok ? arena_alloc_array(&build, f.n, sizeof *newid) : NULL;
    newarc = ok ? arena_alloc_array(&build, f.m ? f.m : 1, sizeof *newarc) : NULL;
    ok = ok && newid && newarc;
    uint32_t n2 = 0, m2 = 0;
    for (uint32_t v = 0; ok && v < f.n; v++)
        newid[v] = f.rep[v] == v ? n2++ : NETFLOW_NONE;
    for (uint32_t a = 0; ok && a < f.m; a++)
        newarc[a] = f.dead[a] ? NETFLOW_NONE : m2++;
    ok = ok && netflow_alloc(&pr->nf, ar, n2, m2);
    netflow *nf = &pr->nf;
    for (uint32_t a = 0; ok && a < f.m; a++) {
        uint32_t k = newarc[a];
        if (k == NETFLOW_NONE)
            continue;
        nf->src[k] = newid[f.src[a]], nf->dst[k] = newid[f.dst[a]];
        nf->cost[k] = f.cost[a], nf->cap[k] = f.cap[a];
    }
    for (uint32_t u = 0; ok && u < n; u++) {
        double o;
        pr->node_in[u] = newid[resolve(&f, pr->node_in[u], &o)];
        pr->off_in[u] = o;
        pr->node_out[u] = newid[resolve(&f, pr->node_out[u], &o)];
        pr->off_out[u] = o;
        if (pr->slow[u] != NETFLOW_NONE) {
            /* what contraction added to the arcs' costs, kept when the cap
             * changes the fast arc's duration */
            pr->slow_off[u] = f.cost[pr->slow[u]] + pb->w_max[u];
            pr->fast_off[u] = f.cost[pr->fast[u]] + (pb->w_max[u] - pr->hi[u] * pr->span[u]);
            pr->slow[u] = newarc[pr->slow[u]];
            pr->fast[u] = newarc[pr->fast[u]];
        }
    }
    if (ok) {
        pr->source = newid[source];
        pr->sink = newid[sink];
        pr->ret = newarc[ret];
        nf->supply[pr->source] = 1.0;
        nf->supply[pr->sink] = -1.0;
    }
    arena_free(&build);
    /* Out-arcs of each node (without the return arc) and a topological
     * order, for the start tree. */
    pr->tail = ok ? arena_alloc_array(ar, n2 ? n2 : 1, sizeof *pr->tail) : NULL;
    pr->tree = ok ? arena_alloc_array(ar, n2 ? n2 : 1, sizeof *pr->tree) : NULL;
    pr->topo = ok ? arena_alloc_array(ar, n2 ? n2 : 1, sizeof *pr->topo) : NULL;
    pr->adj_start = ok ? arena_alloc_array(ar, (size_t)n2 + 1, sizeof *pr->adj_start) : NULL;
    pr->adj = ok ? arena_alloc_array(ar, m2 ? m2 : 1, sizeof *pr->adj) : NULL;
    ok = ok && pr->tail && pr->tree && pr->topo && pr->adj_start && pr->adj;
    if (ok) {
        uint32_t *indeg = pr->tree; /* scratch until the first start tree */
        memset(indeg, 0, (size_t)n2 * sizeof *indeg);
        for (uint32_t a = 0; a < m2; a++)
            if (a != pr->ret) {
                pr->adj_start[nf->src[a] + 1]++;
                indeg[nf->dst[a]]++;
            }
        for (uint32_t v = 0; v < n2; v++)
            pr->adj_start[v + 1] += pr->adj_start[v];
        uint32_t *fill = pr->topo; /* scratch: fill positions */
        memcpy(fill, pr->adj_start, (size_t)n2 * sizeof *fill);
        for (uint32_t a = 0; a < m2; a++)
            if (a != pr->ret)
                pr->adj[fill[nf->src[a]]++] = a;
        /* Kahn's algorithm; the network without the return arc is a DAG. */
        uint32_t head = 0, tail = 0;
        for (uint32_t v = 0; v < n2; v++)
            if (indeg[v] == 0)
                pr->topo[tail++] = v;
        while (head < tail) {
            uint32_t v = pr->topo[head++];
            for (uint32_t k = pr->adj_start[v]; k < pr->adj_start[v + 1]; k++)
                if (--indeg[nf->dst[pr->adj[k]]] == 0)
                    pr->topo[tail++] = nf->dst[pr->adj[k]];
        }
        ok = tail == n2;
    }
    if (!ok)
        return false; /* what was allocated goes with ar */
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
    pr->nf.cost[pr->fast[u]] = pr->fast_off[u] - (pr->pb->w_max[u] - h * pr->span[u]);
    pr->warm_kind = 0; /* a cost changed: the last tree's reduced costs no longer hold */
}

/* The start tree (module comment): each node's longest way to the sink
 * over arcs that can carry what flows there (a slow arc only when its
 * capacity exceeds `fits`). */
static bool start_tree(lp_price *pr, double fits)
{
    netflow *nf = &pr->nf;
    uint32_t n = nf->n_nodes;
    for (uint32_t k = n; k-- > 0;) {
        uint32_t v = pr->topo[k], best = NETFLOW_NONE;
        double best_v = -INFINITY;
        for (uint32_t j = pr->adj_start[v]; j < pr->adj_start[v + 1]; j++) {
            uint32_t a = pr->adj[j];
            if (isfinite(nf->cap[a]) && !(nf->cap[a] > fits))
                continue;
            double val = -nf->cost[a] + pr->tail[nf->dst[a]];
            if (val > best_v)
                best_v = val, best = a;
        }
        if (v == pr->sink) {
            best_v = 0.0;
        } else if (best == NETFLOW_NONE) {
            return false;
        }
        pr->tail[v] = best_v;
        pr->tree[v] = best;
    }
    return netflow_init(nf, pr->sink, pr->tree);
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
            double y = (nf->pi[pr->node_in[u]] + pr->off_in[u]) - (nf->pi[pr->node_out[u]] + pr->off_out[u]);
            double r = (pb->w_max[u] - y) / pr->span[u];
            x[u] = r <= 0.0 ? 0.0 : r >= pr->hi[u] ? pr->hi[u] : r;
        }
    }
}

double lp_price_makespan(lp_price *pr, const double *x)
{
    const lp_problem *pb = pr->pb;
    for (uint32_t u = 0; u < pr->n; u++)
        pr->dur[u] = pb->w_max[u] - x[u] * pr->span[u];
    return sim_longest_path(pb->s, pb->g, pr->dur, pb->comm_ms, pr->start);
}

/* x's makespan into *T, and sum c x. */
static double finish(lp_price *pr, const double *c, const double *x, double *T)
{
    double sum = 0.0;
    for (uint32_t u = 0; u < pr->n; u++)
        if (pr->hi[u] > 0.0)
            sum += c[u] * x[u];
    *T = lp_price_makespan(pr, x);
    return sum;
}

/* Reduced costs are differences of potentials as large as the step:
 * their rounding scales with its length. The pivot limit only guards
 * against cycling through rounding (never reached in tests: about one
 * pivot per node is typical). */
static netflow_status cold(lp_price *pr, double fits)
{
    netflow *nf = &pr->nf;
    if (!start_tree(pr, fits))
        return NETFLOW_PIVOT_LIMIT;
    netflow_status r = netflow_solve(nf, 1e-11 * pr->scale, 64 * (long long)nf->n_arcs + 1024);
    pr->pivots += nf->pivots;
    pr->cold_pivots = nf->pivots;
    return r;
}

/* The last optimal tree of the same kind of problem as the start for the
 * slow arcs' new capacities (pr->newcap): reduced costs do not depend on
 * capacities, so the tree stays dual feasible; a slow arc at its capacity
 * outside the tree moves with it, the tree's flows follow, and dual pivots
 * bring any that left their bounds back (then a primal pass for what
 * rounding left). NETFLOW_PIVOT_LIMIT when that takes more than a quarter
 * of the last cold start's pivots: a cold start is cheaper then. */
static netflow_status warm(lp_price *pr)
{
    netflow *nf = &pr->nf;
    for (uint32_t u = 0; u < pr->n; u++) {
        uint32_t s = pr->slow[u];
        if (s == NETFLOW_NONE)
            continue;
        nf->cap[s] = pr->newcap[u];
        if (nf->state[s] == -1)
            nf->flow[s] = pr->newcap[u];
    }
    long long limit = pr->cold_pivots / 4 + 64;
    if (!netflow_restart(nf))
        return NETFLOW_PIVOT_LIMIT;
    netflow_status r = netflow_dual(nf, 1e-11, limit);
    long long dual = nf->pivots;
    if (r == NETFLOW_OPTIMAL) {
        nf->pivots = 0;
        r = netflow_solve(nf, 1e-11 * pr->scale, limit);
    }
    pr->pivots += dual + nf->pivots;
    pr->warm_solves += r == NETFLOW_OPTIMAL;
    return r;
}

/* Solves the flow problem for the capacities in pr->newcap (kind: 1 unit
 * flow, 2 circulation at deadline t_lim): a circulation warm when the
 * solver holds the optimum of one at the same deadline, else from the
 * start tree. Unit flows always start cold: warm, their dual pivots (each
 * scans one side of a cut) cost more than a cold start's pivots (measured
 * on ZBV and GPipe: phase 1 1.5-4x slower). */
static netflow_status solve_flow(lp_price *pr, int kind, double t_lim)
{
    netflow *nf = &pr->nf;
    netflow_status r = NETFLOW_PIVOT_LIMIT;
    if (kind == 2 && pr->warm_kind == 2 && pr->warm_tlim == t_lim)
        r = warm(pr);
    if (r != NETFLOW_OPTIMAL) {
        for (uint32_t u = 0; u < pr->n; u++)
            if (pr->slow[u] != NETFLOW_NONE)
                nf->cap[pr->slow[u]] = pr->newcap[u];
        /* A slow arc starts in the tree where what flows there fits. */
        r = cold(pr, kind == 1 ? 1.0 : 0.0);
    }
    pr->warm_kind = r == NETFLOW_OPTIMAL ? kind : 0;
    pr->warm_tlim = t_lim;
    return r;
}

bool lp_price_solve(lp_price *pr, double nu, const double *c, double *x, double *T, double *value)
{
    uint32_t n = pr->n;
    if (nu > 0.0 && n > 0) {
        for (uint32_t u = 0; u < n; u++)
            if (pr->slow[u] != NETFLOW_NONE)
                pr->newcap[u] = c[u] > 0.0 ? c[u] / (nu * pr->span[u]) : 0.0;
        if (solve_flow(pr, 1, 0.0) != NETFLOW_OPTIMAL)
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

double lp_price_time_price(const lp_price *pr)
{
    return pr->warm_kind == 2 ? pr->time_price : 0.0;
}

lp_price_status lp_price_solve_deadline(lp_price *pr, double t_lim, const double *c, double *x, double *T,
                                        double *value)
{
    uint32_t n = pr->n;
    netflow *nf = &pr->nf;
    for (uint32_t u = 0; u < n; u++)
        if (pr->slow[u] != NETFLOW_NONE)
            pr->newcap[u] = c[u] > 0.0 ? c[u] / pr->span[u] : 0.0;
    /* A circulation: no supplies, the return arc open at the deadline. */
    nf->supply[pr->source] = nf->supply[pr->sink] = 0.0;
    nf->cap[pr->ret] = INFINITY;
    nf->cost[pr->ret] = t_lim;
    netflow_status r = n > 0 ? solve_flow(pr, 2, t_lim) : NETFLOW_OPTIMAL;
    pr->time_price = n > 0 ? nf->flow[pr->ret] : 0.0;
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
