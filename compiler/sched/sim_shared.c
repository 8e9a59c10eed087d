/* sim_shared: the step when the ranks share fewer processors than there are
 * ranks. Fair sharing makes every running action progress at the same rate,
 * so one virtual clock V (the work each running action has done since the
 * last change) orders the completions: an action started at V0 with work w
 * ends when V reaches V0 + w. Two heaps: actions waiting for their inputs
 * (by the time they become ready) and running ones (by V at their end). */
#include "sim.h"

typedef struct heap_item {
    double key;
    uint32_t v;
} heap_item;

typedef struct heap {
    heap_item *it;
    size_t n;
} heap;

/* Ties by action index, so the order of events never depends on the heap's
 * history: the same spec gives the same bytes. */
static bool before(heap_item a, heap_item b) { return a.key < b.key || (a.key == b.key && a.v < b.v); }

static void heap_push(heap *h, double key, uint32_t v)
{
    size_t i = h->n++;
    h->it[i] = (heap_item){key, v};
    while (i > 0) {
        size_t up = (i - 1) / 2;
        if (!before(h->it[i], h->it[up]))
            break;
        heap_item t = h->it[i];
        h->it[i] = h->it[up];
        h->it[up] = t;
        i = up;
    }
}

static heap_item heap_pop(heap *h)
{
    heap_item top = h->it[0];
    h->it[0] = h->it[--h->n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && before(h->it[l], h->it[m]))
            m = l;
        if (r < h->n && before(h->it[r], h->it[m]))
            m = r;
        if (m == i)
            break;
        heap_item t = h->it[i];
        h->it[i] = h->it[m];
        h->it[m] = t;
        i = m;
    }
    return top;
}

double sim_shared(const sched *s, const dag *g, const double *dur, double comm_ms, uint32_t processors, arena *a,
                  double *end)
{
    size_t n = g->n;
    if (n == 0)
        return 0.0;
    uint32_t *indeg = arena_alloc_array(a, n, sizeof *indeg);
    double *ready = arena_alloc_array(a, n, sizeof *ready);
    heap wait = {arena_alloc_array(a, n, sizeof *wait.it), 0}, run = {arena_alloc_array(a, n, sizeof *run.it), 0};
    if (!indeg || !ready || !wait.it || !run.it)
        return -1.0;
    for (size_t u = 0; u < n; u++)
        indeg[u] = 0, ready[u] = 0.0;
    for (size_t u = 0; u < n; u++)
        for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++)
            indeg[g->succ[e]]++;
    for (size_t u = 0; u < n; u++)
        if (indeg[u] == 0)
            heap_push(&wait, 0.0, (uint32_t)u);
    double now = 0.0, V = 0.0, makespan = 0.0;
    size_t done = 0;
    while (done < n) {
        while (wait.n && wait.it[0].key <= now) {
            heap_item x = heap_pop(&wait);
            heap_push(&run, V + dur[x.v], x.v);
        }
        if (!run.n) {
            if (!wait.n)
                break; /* a cycle: dag_build refuses those */
            now = wait.it[0].key;
            continue;
        }
        double rate = processors && run.n > processors ? (double)processors / (double)run.n : 1.0;
        double dt_end = (run.it[0].key - V) / rate;
        if (wait.n && wait.it[0].key - now < dt_end) {
            double dt = wait.it[0].key - now;
            now = wait.it[0].key;
            V += dt * rate;
            continue;
        }
        now += dt_end;
        V = run.it[0].key;
        while (run.n && run.it[0].key <= V) {
            uint32_t u = heap_pop(&run).v;
            done++;
            if (end)
                end[u] = now;
            if (now > makespan)
                makespan = now;
            for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++) {
                uint32_t v = g->succ[e];
                double at = now + (dag_cross_rank(s, u, v) ? comm_ms : 0.0);
                if (at > ready[v])
                    ready[v] = at;
                if (--indeg[v] == 0)
                    heap_push(&wait, ready[v], v);
            }
        }
    }
    return makespan;
}
