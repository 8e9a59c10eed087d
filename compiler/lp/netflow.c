/* netflow: the primal network simplex (netflow.h).
 *
 * The basis is a spanning tree kept as parent pointers with subtree sizes
 * and doubly linked child lists. A pivot brings in the arc whose reduced cost
 * is most negative within a block of arcs (block search), pushes flow
 * round the cycle it closes, drops the blocking arc met last when the cycle
 * is walked from its apex (which keeps the tree strongly feasible), re-hangs
 * the cut-off subtree by reversing the path between the two arcs and shifts
 * that subtree's potentials by one constant. */
#include "netflow.h"

#include <math.h>
#include <string.h>

bool netflow_alloc(netflow *nf, arena *a, uint32_t n, uint32_t m)
{
    memset(nf, 0, sizeof *nf);
    nf->a = a;
    nf->n_nodes = n;
    nf->n_arcs = m;
    size_t nn = n ? n : 1, mm = m ? m : 1;
    nf->src = arena_alloc_array(a, mm, sizeof *nf->src);
    nf->dst = arena_alloc_array(a, mm, sizeof *nf->dst);
    nf->cost = arena_alloc_array(a, mm, sizeof *nf->cost);
    nf->cap = arena_alloc_array(a, mm, sizeof *nf->cap);
    nf->flow = arena_alloc_array(a, mm, sizeof *nf->flow);
    nf->state = arena_alloc_array(a, mm, sizeof *nf->state);
    nf->supply = arena_alloc_array(a, nn, sizeof *nf->supply);
    nf->pi = arena_alloc_array(a, nn, sizeof *nf->pi);
    nf->parent = arena_alloc_array(a, nn, sizeof *nf->parent);
    nf->pred = arena_alloc_array(a, nn, sizeof *nf->pred);
    nf->size = arena_alloc_array(a, nn, sizeof *nf->size);
    nf->order = arena_alloc_array(a, nn, sizeof *nf->order);
    nf->up = arena_alloc_array(a, nn, sizeof *nf->up);
    nf->first_child = arena_alloc_array(a, nn, sizeof *nf->first_child);
    nf->next_sib = arena_alloc_array(a, nn, sizeof *nf->next_sib);
    nf->prev_sib = arena_alloc_array(a, nn, sizeof *nf->prev_sib);
    nf->stack = arena_alloc_array(a, nn, sizeof *nf->stack);
    nf->net = arena_alloc_array(a, nn, sizeof *nf->net);
    return nf->src && nf->dst && nf->cost && nf->cap && nf->flow && nf->state && nf->supply && nf->pi &&
           nf->parent && nf->pred && nf->size && nf->order && nf->up && nf->first_child && nf->next_sib &&
           nf->prev_sib && nf->stack && nf->net;
}

static void detach(netflow *nf, uint32_t v)
{
    uint32_t p = nf->parent[v];
    if (p == NETFLOW_NONE)
        return;
    if (nf->prev_sib[v] != NETFLOW_NONE)
        nf->next_sib[nf->prev_sib[v]] = nf->next_sib[v];
    else
        nf->first_child[p] = nf->next_sib[v];
    if (nf->next_sib[v] != NETFLOW_NONE)
        nf->prev_sib[nf->next_sib[v]] = nf->prev_sib[v];
}

static void attach(netflow *nf, uint32_t v, uint32_t p)
{
    nf->parent[v] = p;
    nf->prev_sib[v] = NETFLOW_NONE;
    nf->next_sib[v] = nf->first_child[p];
    if (nf->first_child[p] != NETFLOW_NONE)
        nf->prev_sib[nf->first_child[p]] = v;
    nf->first_child[p] = v;
}

/* The potential that gives v's tree arc a zero reduced cost. */
static double tree_pi(const netflow *nf, uint32_t v)
{
    uint32_t a = nf->pred[v], p = nf->parent[v];
    /* up: arc v -> p, cost + pi[v] - pi[p] = 0; down: arc p -> v. */
    return nf->up[v] ? nf->pi[p] - nf->cost[a] : nf->pi[p] + nf->cost[a];
}

/* v's subtree in preorder into nf->order (from index 0); returns its size.
 * skip: a node whose subtree is left out (NETFLOW_NONE for none). */
static uint32_t preorder(netflow *nf, uint32_t v, uint32_t skip)
{
    uint32_t top = 0, seen = 0;
    nf->stack[top++] = v;
    while (top) {
        uint32_t u = nf->stack[--top];
        nf->order[seen++] = u;
        for (uint32_t c = nf->first_child[u]; c != NETFLOW_NONE; c = nf->next_sib[c])
            if (c != skip)
                nf->stack[top++] = c;
    }
    return seen;
}

/* Potentials from the root down, and subtree sizes from the leaves up, for
 * the whole tree; returns how many nodes hang from the root. */
static uint32_t refresh_all(netflow *nf)
{
    uint32_t seen = preorder(nf, nf->root, NETFLOW_NONE);
    nf->pi[nf->root] = 0.0;
    for (uint32_t k = 1; k < seen; k++)
        nf->pi[nf->order[k]] = tree_pi(nf, nf->order[k]);
    for (uint32_t k = 0; k < seen; k++)
        nf->size[nf->order[k]] = 1;
    for (uint32_t k = seen; k-- > 1;)
        nf->size[nf->parent[nf->order[k]]] += nf->size[nf->order[k]];
    return seen;
}

/* The tree arcs' flows from the supplies and the non-tree arcs' flows,
 * leaves first (reverse preorder). False when one is out of its bounds (a
 * negative one then set to 0) unless keep (they stay). */
static bool tree_flows(netflow *nf, bool keep)
{
    uint32_t n = nf->n_nodes;
    double *net = nf->net;
    uint32_t seen = preorder(nf, nf->root, NETFLOW_NONE);
    memcpy(net, nf->supply, (size_t)n * sizeof *net);
    for (uint32_t e = 0; e < nf->n_arcs; e++)
        if (nf->state[e] != 0 && nf->flow[e] != 0.0) {
            net[nf->src[e]] -= nf->flow[e];
            net[nf->dst[e]] += nf->flow[e];
        }
    bool ok = true;
    for (uint32_t k = seen; k-- > 1;) {
        uint32_t v = nf->order[k];
        uint32_t a = nf->pred[v];
        /* The subtree's surplus leaves through a: along it when it points up. */
        double f = nf->up[v] ? net[v] : -net[v];
        if (fabs(f) <= 1e-14)
            f = 0.0;
        if (f < -1e-12 || f > nf->cap[a] + 1e-12)
            ok = false;
        if (f < 0.0 && !keep)
            f = 0.0;
        nf->flow[a] = f;
        net[nf->parent[v]] += net[v];
    }
    return ok || keep;
}

bool netflow_init(netflow *nf, uint32_t root, const uint32_t *tree_arc)
{
    uint32_t n = nf->n_nodes;
    nf->root = root;
    nf->next_arc = 0;
    nf->pivots = 0;
    for (uint32_t e = 0; e < nf->n_arcs; e++) {
        nf->state[e] = 1;
        nf->flow[e] = 0.0;
    }
    for (uint32_t v = 0; v < n; v++)
        nf->first_child[v] = nf->next_sib[v] = nf->prev_sib[v] = NETFLOW_NONE;
    nf->parent[root] = NETFLOW_NONE;
    nf->pred[root] = NETFLOW_NONE;
    for (uint32_t v = 0; v < n; v++) {
        if (v == root)
            continue;
        uint32_t a = tree_arc[v];
        if (a >= nf->n_arcs || (nf->src[a] != v && nf->dst[a] != v))
            return false;
        nf->state[a] = 0;
        nf->pred[v] = a;
        nf->up[v] = nf->src[a] == v;
        uint32_t p = nf->up[v] ? nf->dst[a] : nf->src[a];
        if (p == v)
            return false;
        attach(nf, v, p);
    }
    if (refresh_all(nf) != n)
        return false; /* the tree arcs do not form one tree */
    return tree_flows(nf, false);
}

bool netflow_restart(netflow *nf)
{
    nf->next_arc = 0;
    nf->pivots = 0;
    return tree_flows(nf, true) && refresh_all(nf) == nf->n_nodes;
}

/* Tree arc e replaces the tree arc above `leave` (apex: the top of the
 * cycle e closes): the path from e's end on the cut-off side (u_in) up to
 * `leave` reverses and u_in hangs from e's other end (v_in). Subtree sizes
 * change on the cycle only; the potentials of one side shift by a
 * constant, and the smaller side is the one shifted. */
static void rehang(netflow *nf, uint32_t e, uint32_t u_in, uint32_t v_in, uint32_t leave, uint32_t apex)
{
    uint32_t q = nf->size[leave];
    for (uint32_t w = nf->parent[leave]; w != apex; w = nf->parent[w])
        nf->size[w] -= q;
    for (uint32_t w = v_in; w != apex; w = nf->parent[w])
        nf->size[w] += q;
    double shift = (nf->src[e] == u_in ? nf->pi[v_in] - nf->cost[e] : nf->pi[v_in] + nf->cost[e]) - nf->pi[u_in];
    /* The path u_in = p0, p1, ..., pk = leave, old sizes s_i: reversed, pk
     * keeps s_k - s_(k-1) plus nothing, each p_i (i < k) s_i - s_(i-1) plus
     * its new child's size, and p0 all q. */
    uint32_t k = 0;
    for (uint32_t w = u_in;; w = nf->parent[w]) {
        nf->order[k++] = w;
        if (w == leave)
            break;
    }
    uint32_t below = 0; /* the new size of the path node under the current one */
    for (uint32_t i = k; i-- > 0;) {
        uint32_t w = nf->order[i];
        uint32_t own = nf->size[w] - (i ? nf->size[nf->order[i - 1]] : 0);
        nf->stack[i] = own + below; /* new sizes, kept aside until the sizes below are read */
        below = own + below;
    }
    for (uint32_t i = 0; i < k; i++)
        nf->size[nf->order[i]] = nf->stack[i];
    uint32_t new_parent = v_in, new_pred = e;
    int8_t new_up = nf->src[e] == u_in;
    uint32_t v = u_in;
    for (;;) {
        uint32_t old_parent = nf->parent[v], old_pred = nf->pred[v];
        int8_t old_up = nf->up[v];
        detach(nf, v);
        nf->pred[v] = new_pred;
        nf->up[v] = new_up;
        attach(nf, v, new_parent);
        if (v == leave)
            break;
        new_parent = v;
        new_pred = old_pred;
        new_up = !old_up;
        v = old_parent;
    }
    if (2 * q <= nf->n_nodes) {
        uint32_t m = preorder(nf, u_in, NETFLOW_NONE);
        for (uint32_t i = 0; i < m; i++)
            nf->pi[nf->order[i]] += shift;
    } else {
        uint32_t m = preorder(nf, nf->root, u_in);
        for (uint32_t i = 0; i < m; i++)
            nf->pi[nf->order[i]] -= shift;
    }
}

/* Residual capacity of the tree arc above v for flow moving towards the
 * root (towards_root) or away from it. */
static double residual(const netflow *nf, uint32_t v, bool towards_root)
{
    uint32_t a = nf->pred[v];
    bool along = nf->up[v] == towards_root; /* the flow moves along the arc */
    double r = along ? nf->cap[a] - nf->flow[a] : nf->flow[a];
    return r > 0.0 ? r : 0.0;
}

static void push(netflow *nf, uint32_t v, bool towards_root, double delta)
{
    uint32_t a = nf->pred[v];
    bool along = nf->up[v] == towards_root;
    double f = nf->flow[a] + (along ? delta : -delta);
    double c = nf->cap[a];
    if (fabs(f) <= 1e-14)
        f = 0.0;
    else if (isfinite(c) && fabs(c - f) <= 1e-14 * (1.0 + c))
        f = c;
    nf->flow[a] = f;
}

/* The cycle non-tree arc e closes, with flow moving from *first across e
 * to *second (along e when e sits at 0, against it at its capacity):
 * apex -> ... -> first (down), e, second -> ... -> apex (up). Returns the
 * apex. */
static uint32_t cycle(const netflow *nf, uint32_t e, uint32_t *first, uint32_t *second)
{
    bool lower = nf->state[e] == 1;
    *first = lower ? nf->src[e] : nf->dst[e];
    *second = lower ? nf->dst[e] : nf->src[e];
    uint32_t a = *first, b = *second;
    while (a != b) {
        /* An ancestor's subtree is larger than any of its descendants'. */
        if (nf->size[a] < nf->size[b])
            a = nf->parent[a];
        else
            b = nf->parent[b];
    }
    return a;
}

/* One pivot on entering arc e; false when the cycle is unbounded. */
static bool pivot(netflow *nf, uint32_t e)
{
    bool lower = nf->state[e] == 1;
    uint32_t first, second;
    uint32_t apex = cycle(nf, e, &first, &second);
    double delta = lower ? nf->cap[e] - nf->flow[e] : nf->flow[e];
    if (delta < 0.0)
        delta = 0.0;
    uint32_t leave = NETFLOW_NONE; /* the node whose tree arc leaves; NONE: e itself */
    bool leave_first = false;
    /* Residuals equal in exact arithmetic can differ by an ulp or two in
     * doubles; a tie must still go to the arc met last from the apex, or
     * the tree stops being strongly feasible. So ties are within tie, and
     * delta stays the smallest residual (the leaving arc then lands within
     * tie of its bound and is set onto it). */
    double tie = 1e-13 * (1.0 + (isfinite(delta) ? delta : 0.0));
    /* First side, walked upwards = against the cycle's direction: only a
     * clearly smaller residual replaces, so of tied arcs the one met last
     * from the apex stays. */
    for (uint32_t v = first; v != apex; v = nf->parent[v]) {
        double r = residual(nf, v, false);
        if (r < delta - tie) {
            leave = v;
            leave_first = true;
        }
        if (r < delta)
            delta = r;
    }
    /* Second side, walked with the cycle: ties go to the later arc. */
    for (uint32_t v = second; v != apex; v = nf->parent[v]) {
        double r = residual(nf, v, true);
        if (r <= delta + tie) {
            leave = v;
            leave_first = false;
        }
        if (r < delta)
            delta = r;
    }
    if (isinf(delta))
        return false;
    if (delta > 0.0) {
        double f = nf->flow[e] + (lower ? delta : -delta);
        if (fabs(f) <= 1e-14)
            f = 0.0;
        nf->flow[e] = f;
        for (uint32_t v = first; v != apex; v = nf->parent[v])
            push(nf, v, false, delta);
        for (uint32_t v = second; v != apex; v = nf->parent[v])
            push(nf, v, true, delta);
    }
    nf->pivots++;
    if (leave == NETFLOW_NONE) {
        /* e blocks itself: it moves to its other bound, the tree stays. */
        nf->state[e] = lower ? -1 : 1;
        if (lower)
            nf->flow[e] = nf->cap[e];
        else
            nf->flow[e] = 0.0;
        return true;
    }
    /* The leaving arc sits at one of its bounds: the nearer one. */
    uint32_t la = nf->pred[leave];
    bool at_upper = isfinite(nf->cap[la]) && nf->cap[la] - nf->flow[la] < nf->flow[la];
    nf->state[la] = at_upper ? -1 : 1;
    nf->flow[la] = at_upper ? nf->cap[la] : 0.0;
    nf->state[e] = 0;
    rehang(nf, e, leave_first ? first : second, leave_first ? second : first, leave, apex);
    return true;
}

static double reduced(const netflow *nf, uint32_t e)
{
    return nf->cost[e] + nf->pi[nf->src[e]] - nf->pi[nf->dst[e]];
}

/* The most violating arc of the next block that has one; NETFLOW_NONE
 * after a full sweep without. */
static uint32_t choose(netflow *nf, double eps)
{
    uint32_t m = nf->n_arcs;
    if (m == 0)
        return NETFLOW_NONE;
    uint32_t block = (uint32_t)sqrt((double)m);
    if (block < 16)
        block = 16;
    uint32_t best = NETFLOW_NONE;
    double best_v = -eps;
    uint32_t e = nf->next_arc, in_block = 0;
    for (uint32_t k = 0; k < m; k++) {
        if (nf->state[e] != 0 && nf->cap[e] > 0.0) {
            double v = nf->state[e] * reduced(nf, e);
            if (v < best_v) {
                best_v = v;
                best = e;
            }
        }
        if (++e == m)
            e = 0;
        if (++in_block == block) {
            if (best != NETFLOW_NONE)
                break;
            in_block = 0;
        }
    }
    nf->next_arc = e;
    return best;
}

netflow_status netflow_solve(netflow *nf, double eps, long long max_pivots)
{
    for (int rounds = 0;; rounds++) {
        uint32_t e;
        while ((e = choose(nf, eps)) != NETFLOW_NONE) {
            if (max_pivots && nf->pivots >= max_pivots)
                return NETFLOW_PIVOT_LIMIT;
            if (!pivot(nf, e))
                return NETFLOW_UNBOUNDED;
        }
        /* Potentials accumulate rounding over many shifts: recompute them
         * from the tree and check again. */
        refresh_all(nf);
        nf->next_arc = 0;
        if (choose(nf, eps) == NETFLOW_NONE)
            return NETFLOW_OPTIMAL;
        if (rounds >= 8)
            return NETFLOW_PIVOT_LIMIT;
    }
}

/* Every arc at each node (both directions), for the dual pivots' scans of
 * a cut; built once. */
static bool incidence(netflow *nf)
{
    if (nf->inc)
        return true;
    uint32_t n = nf->n_nodes, m = nf->n_arcs;
    /* (on no memory what was allocated stays in the arena, unused) */
    uint32_t *inc_start = arena_alloc_array(nf->a, (size_t)n + 1, sizeof *inc_start);
    uint32_t *inc = arena_alloc_array(nf->a, 2 * (size_t)m + 1, sizeof *inc);
    uint32_t *mark = arena_alloc_array(nf->a, n ? n : 1, sizeof *mark);
    uint32_t *cand = arena_alloc_array(nf->a, m ? m : 1, sizeof *cand);
    uint8_t *in_cand = arena_alloc_array(nf->a, m ? m : 1, sizeof *in_cand);
    if (!inc_start || !inc || !mark || !cand || !in_cand)
        return false;
    nf->inc_start = inc_start, nf->inc = inc, nf->mark = mark, nf->cand = cand, nf->in_cand = in_cand;
    for (uint32_t e = 0; e < m; e++) {
        nf->inc_start[nf->src[e] + 1]++;
        nf->inc_start[nf->dst[e] + 1]++;
    }
    for (uint32_t v = 0; v < n; v++)
        nf->inc_start[v + 1] += nf->inc_start[v];
    uint32_t *fill = nf->stack; /* scratch */
    memcpy(fill, nf->inc_start, (size_t)n * sizeof *fill);
    for (uint32_t e = 0; e < m; e++) {
        nf->inc[fill[nf->src[e]]++] = e;
        nf->inc[fill[nf->dst[e]]++] = e;
    }
    return true;
}

/* How far arc a's flow is out of its bounds (0 when within tol). */
static double violation(const netflow *nf, uint32_t a, double tol)
{
    double f = nf->flow[a], c = nf->cap[a];
    double t = tol * (1.0 + (isfinite(c) ? c : 0.0));
    if (f < -t)
        return -f;
    if (f > c + t)
        return f - c;
    return 0.0;
}

/* Lists tree arc a as out of its bounds, when it is and is not yet. */
static void candidate(netflow *nf, uint32_t a, double tol)
{
    if (!nf->in_cand[a] && violation(nf, a, tol) > 0.0) {
        nf->in_cand[a] = 1;
        nf->cand[nf->n_cand++] = a;
    }
}

/* The end of tree arc a that hangs from the other. */
static uint32_t tree_child(const netflow *nf, uint32_t a)
{
    uint32_t v = nf->src[a];
    return nf->pred[v] == a && nf->parent[v] == nf->dst[a] ? v : nf->dst[a];
}

/* One dual pivot: the tree arc above v (out of its bounds) leaves at the
 * bound it broke. Cutting it splits off v's subtree S, which must then
 * send E more units out (E < 0: take -E more in) through the arc that
 * enters: of the arcs across the cut that can carry that change, the one
 * with the smallest |reduced cost|, so that shifting S's potentials by it
 * keeps every reduced cost's sign right. False when no arc can (the flow
 * problem is infeasible). */
static bool dual_pivot(netflow *nf, uint32_t v, double tol)
{
    uint32_t a = nf->pred[v];
    double f = nf->flow[a], c = nf->cap[a];
    bool high = isfinite(c) && f > c;
    double bound = high ? c : 0.0;
    /* up: a leaves S; lowering its flow makes S send that much elsewhere. */
    double E = nf->up[v] ? f - bound : bound - f;
    /* Mark S (or, when larger, the rest) and scan the smaller side's arcs. */
    bool inside = 2 * nf->size[v] <= nf->n_nodes;
    uint32_t cnt = inside ? preorder(nf, v, NETFLOW_NONE) : preorder(nf, nf->root, v);
    if (++nf->stamp == 0) {
        memset(nf->mark, 0, (size_t)nf->n_nodes * sizeof *nf->mark);
        nf->stamp = 1;
    }
    for (uint32_t k = 0; k < cnt; k++)
        nf->mark[nf->order[k]] = nf->stamp;
    uint32_t best = NETFLOW_NONE;
    double best_r = INFINITY;
    for (uint32_t k = 0; k < cnt; k++) {
        uint32_t w = nf->order[k];
        for (uint32_t j = nf->inc_start[w]; j < nf->inc_start[w + 1]; j++) {
            uint32_t e = nf->inc[j];
            if (nf->state[e] == 0 || !(nf->cap[e] > 0.0))
                continue;
            bool src_marked = nf->mark[nf->src[e]] == nf->stamp, dst_marked = nf->mark[nf->dst[e]] == nf->stamp;
            if (src_marked == dst_marked)
                continue;
            /* out: e points out of S */
            bool out = inside ? src_marked : dst_marked;
            /* Sending more out of S: an outward arc at 0 or an inward one
             * at its capacity; taking more in: the other two. */
            bool ok = E > 0.0 ? (out ? nf->state[e] == 1 : nf->state[e] == -1)
                              : (out ? nf->state[e] == -1 : nf->state[e] == 1);
            if (!ok)
                continue;
            /* An arc whose reduced cost already has the wrong sign (one
             * reopened from capacity 0 can) would shift S the wrong way:
             * the primal pass after the dual one takes it. */
            double r = nf->state[e] * reduced(nf, e);
            if (r < -1e-9)
                continue;
            if (r < 0.0)
                r = 0.0; /* rounding */
            if (r < best_r || (r == best_r && e < best))
                best_r = r, best = e;
        }
    }
    if (best == NETFLOW_NONE)
        return false;
    uint32_t e = best;
    /* The cycle carries |E| across e in the direction that changes S's
     * balance: from first to second (first in S when sending out). */
    bool lower = nf->state[e] == 1;
    uint32_t first, second;
    uint32_t apex = cycle(nf, e, &first, &second);
    double delta = fabs(E);
    nf->flow[e] += lower ? delta : -delta;
    for (uint32_t w = first; w != apex; w = nf->parent[w]) {
        push(nf, w, false, delta);
        candidate(nf, nf->pred[w], tol);
    }
    for (uint32_t w = second; w != apex; w = nf->parent[w]) {
        push(nf, w, true, delta);
        candidate(nf, nf->pred[w], tol);
    }
    nf->flow[a] = bound;
    nf->state[a] = high ? -1 : 1;
    nf->state[e] = 0;
    candidate(nf, e, tol); /* the arc that enters may now be out of its own bounds */
    /* first is in S exactly when the flow leaves S across e */
    bool first_in_s = E > 0.0;
    uint32_t u_in = first_in_s ? first : second, v_in = first_in_s ? second : first;
    rehang(nf, e, u_in, v_in, v, apex);
    nf->pivots++;
    return true;
}

netflow_status netflow_dual(netflow *nf, double tol, long long max_pivots)
{
    if (!incidence(nf))
        return NETFLOW_PIVOT_LIMIT;
    /* (a call that stopped early left its list behind) */
    for (uint32_t j = 0; j < nf->n_cand; j++)
        nf->in_cand[nf->cand[j]] = 0;
    nf->n_cand = 0;
    for (uint32_t v = 0; v < nf->n_nodes; v++)
        if (v != nf->root)
            candidate(nf, nf->pred[v], tol);
    for (;;) {
        /* Of the tree arcs out of their bounds, the one whose cut has the
         * smallest smaller side: the cheapest pivot to price (and, measured
         * on ZBV, fewer pivots than taking the largest violation first).
         * Candidates back within their bounds, or out of the tree, drop. */
        uint32_t worst = NETFLOW_NONE, k = 0, worst_side = UINT32_MAX;
        for (uint32_t j = 0; j < nf->n_cand; j++) {
            uint32_t a = nf->cand[j];
            double d = nf->state[a] == 0 ? violation(nf, a, tol) : 0.0;
            if (d <= 0.0) {
                nf->in_cand[a] = 0;
                continue;
            }
            nf->cand[k++] = a;
            uint32_t v = tree_child(nf, a);
            uint32_t side = nf->size[v] < nf->n_nodes - nf->size[v] ? nf->size[v] : nf->n_nodes - nf->size[v];
            if (side < worst_side || (side == worst_side && a < worst))
                worst_side = side, worst = a;
        }
        nf->n_cand = k;
        if (worst == NETFLOW_NONE)
            break;
        if (max_pivots && nf->pivots >= max_pivots)
            return NETFLOW_PIVOT_LIMIT;
        if (!dual_pivot(nf, tree_child(nf, worst), tol))
            return NETFLOW_UNBOUNDED;
    }
    for (uint32_t j = 0; j < nf->n_cand; j++)
        nf->in_cand[nf->cand[j]] = 0;
    nf->n_cand = 0;
    /* What is left is rounding: onto the bounds. */
    for (uint32_t v = 0; v < nf->n_nodes; v++) {
        if (v == nf->root)
            continue;
        uint32_t a = nf->pred[v];
        if (nf->flow[a] < 0.0)
            nf->flow[a] = 0.0;
        else if (nf->flow[a] > nf->cap[a])
            nf->flow[a] = nf->cap[a];
    }
    return NETFLOW_OPTIMAL;
}

double netflow_cost(const netflow *nf)
{
    double c = 0.0;
    for (uint32_t e = 0; e < nf->n_arcs; e++)
        if (nf->flow[e] != 0.0)
            c += nf->cost[e] * nf->flow[e];
    return c;
}
