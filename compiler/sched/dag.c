/* dag: edges from the schedule's rules, Kahn's topological sort, and the
 * cycle report when there is no topological order. Linear in the actions. */
#include "dag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many successors per action: the plain rules' 3, the pair's 1. */
enum { DAG_MAX_SUCC = 4 };

/* The successors of action i by the plain rules (at most 3). */
static unsigned plain_successors(const sched *s, uint32_t i, uint32_t out[3])
{
    const sched_action *x = &s->actions[i];
    unsigned n = 0;
    if ((size_t)i + 1 < s->rank_start[s->rank_of[i] + 1])
        out[n++] = i + 1; /* program order */
    uint32_t v;
    switch ((act_type)x->type) {
    case ACT_F:
        if (x->stage + 1 < s->n_stages && (v = sched_find(s, ACT_F, x->stage + 1, x->mb)) != SCHED_NONE)
            out[n++] = v;
        if ((v = sched_find(s, ACT_B, x->stage, x->mb)) != SCHED_NONE ||
            (v = sched_find(s, ACT_I, x->stage, x->mb)) != SCHED_NONE)
            out[n++] = v;
        break;
    case ACT_B:
    case ACT_I:
        if (x->stage > 0 && ((v = sched_find(s, ACT_B, x->stage - 1, x->mb)) != SCHED_NONE ||
                             (v = sched_find(s, ACT_I, x->stage - 1, x->mb)) != SCHED_NONE))
            out[n++] = v;
        if (x->type == ACT_I && (v = sched_find(s, ACT_W, x->stage, x->mb)) != SCHED_NONE)
            out[n++] = v;
        break;
    case ACT_W:
        break;
    }
    return n;
}

/* The successors of action i with the pairs' rule (at most DAG_MAX_SUCC). */
static unsigned successors(const sched *s, uint32_t i, uint32_t out[DAG_MAX_SUCC])
{
    unsigned n = plain_successors(s, i, out);
    /* A pair's backward: the forward's successor on the next stage waits for
     * it (what the forward sends leaves when the pair ends). The forward
     * itself waits only for its own input, as in PyTorch's runtime. */
    if (s->actions[i].pair == SCHED_PAIR_SECOND && i > 0) {
        const sched_action *f = &s->actions[i - 1];
        uint32_t v;
        if (f->stage + 1 < s->n_stages && (v = sched_find(s, ACT_F, f->stage + 1, f->mb)) != SCHED_NONE)
            out[n++] = v;
    }
    return n;
}

/* No topological order: walk back from a stuck node along stuck
 * predecessors until a node repeats; the repeat closes a cycle. */
static void report_cycle(const dag *g, const sched *s, const uint32_t *indeg, const char *file, spec_pos at,
                         diag_list *d)
{
    size_t n = g->n;
    uint32_t *pred_start = calloc(n + 1, sizeof *pred_start);
    uint32_t *pred = malloc((g->succ_start[n] ? g->succ_start[n] : 1) * sizeof *pred);
    int64_t *pos = malloc(n * sizeof *pos);
    uint32_t *path = malloc(n * sizeof *path);
    if (!pred_start || !pred || !pos || !path) {
        diag_error(d, file, at.line, at.col, "the schedule deadlocks (out of memory finding the cycle)");
        goto done;
    }
    for (size_t u = 0; u < n; u++)
        for (uint32_t k = g->succ_start[u]; k < g->succ_start[u + 1]; k++)
            pred_start[g->succ[k] + 1]++;
    for (size_t v = 0; v < n; v++)
        pred_start[v + 1] += pred_start[v];
    uint32_t *fill = calloc(n, sizeof *fill);
    if (!fill) {
        diag_error(d, file, at.line, at.col, "the schedule deadlocks (out of memory finding the cycle)");
        goto done;
    }
    for (size_t u = 0; u < n; u++)
        for (uint32_t k = g->succ_start[u]; k < g->succ_start[u + 1]; k++) {
            uint32_t v = g->succ[k];
            pred[pred_start[v] + fill[v]++] = (uint32_t)u;
        }
    free(fill);

    uint32_t cur = 0;
    while (indeg[cur] == 0)
        cur++; /* the first stuck node */
    for (size_t v = 0; v < n; v++)
        pos[v] = -1;
    size_t len = 0;
    while (pos[cur] < 0) {
        pos[cur] = (int64_t)len;
        path[len++] = cur;
        uint32_t next = cur;
        for (uint32_t k = pred_start[cur]; k < pred_start[cur + 1]; k++)
            if (indeg[pred[k]] > 0) {
                next = pred[k];
                break;
            }
        cur = next; /* a stuck node always has a stuck predecessor */
    }
    /* path[k + 1] is a predecessor of path[k], and cur = path[first] is one
     * of path[len - 1]. Forwards the cycle is path[first], path[len - 1],
     * path[len - 2], ..., path[first + 1]. Rewrite it so, in place. */
    size_t first = (size_t)pos[cur], clen = len - first;
    uint32_t *cyc = path + first;
    for (size_t lo = 1, hi = clen - 1; lo < hi; lo++, hi--) {
        uint32_t t = cyc[lo];
        cyc[lo] = cyc[hi];
        cyc[hi] = t;
    }
    /* Start at the lowest-numbered action, so the report is stable. */
    size_t start = 0;
    for (size_t k = 1; k < clen; k++)
        if (cyc[k] < cyc[start])
            start = k;
    char text[1200];
    size_t o = 0;
    const size_t shown = clen < 24 ? clen : 24;
    for (size_t k = 0; k <= shown; k++) {
        if (k == shown && shown < clen) {
            snprintf(text + o, sizeof text - o, " -> ... (%zu more)", clen - shown);
            break;
        }
        uint32_t node = cyc[(start + k) % clen]; /* k == clen closes the cycle */
        char name[32];
        int w = snprintf(text + o, sizeof text - o, "%s%s (rank %u)", k ? " -> " : "",
                         sched_action_name(s, node, name, sizeof name), s->rank_of[node]);
        if (w < 0 || (size_t)w >= sizeof text - o)
            break;
        o += (size_t)w;
    }
    uint32_t head = cyc[start];
    spec_pos where = s->src ? s->src[head] : at;
    diag_error(d, s->src ? s->src_file : file, where.line, where.col,
               "the schedule deadlocks: these %zu actions wait for each other in a cycle: %s", clen, text);
done:
    free(pred_start);
    free(pred);
    free(pos);
    free(path);
}

bool dag_build(const sched *s, const char *file, spec_pos at, arena *a, diag_list *d, dag **out)
{
    *out = NULL;
    size_t n = s->n_actions;
    dag *g = arena_alloc(a, sizeof *g);
    uint32_t *succ_start = arena_alloc_array(a, n + 1, sizeof *succ_start);
    uint32_t *topo = arena_alloc_array(a, n ? n : 1, sizeof *topo);
    uint32_t *indeg = calloc(n ? n : 1, sizeof *indeg);
    if (!g || !succ_start || !topo || !indeg) {
        free(indeg);
        diag_nomem(d, "building the DAG of %zu actions", n);
        return false;
    }
    uint32_t tmp[DAG_MAX_SUCC];
    for (size_t i = 0; i < n; i++)
        succ_start[i + 1] = succ_start[i] + successors(s, (uint32_t)i, tmp);
    uint32_t *succ = arena_alloc_array(a, succ_start[n] ? succ_start[n] : 1, sizeof *succ);
    if (!succ) {
        free(indeg);
        diag_nomem(d, "building the DAG of %zu actions", n);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned k = successors(s, (uint32_t)i, succ + succ_start[i]);
        for (unsigned j = 0; j < k; j++)
            indeg[succ[succ_start[i] + j]]++;
    }
    g->n = n;
    g->succ_start = succ_start;
    g->succ = succ;
    g->topo = topo;

    /* Kahn: topo doubles as the FIFO queue. */
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < n; i++)
        if (indeg[i] == 0)
            topo[tail++] = (uint32_t)i;
    while (head < tail) {
        uint32_t u = topo[head++];
        for (uint32_t k = succ_start[u]; k < succ_start[u + 1]; k++)
            if (--indeg[succ[k]] == 0)
                topo[tail++] = succ[k];
    }
    bool ok = tail == n;
    if (!ok)
        report_cycle(g, s, indeg, file, at, d);
    free(indeg);
    if (ok)
        *out = g;
    return ok;
}
