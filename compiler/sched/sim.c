/* sim: earliest start times by one pass over the topological order. */
#include "sim.h"

#include <string.h>

bool sim_durations(const spec *sp, const sched *s, double *dur, diag_list *d)
{
    const double *table[ACT_TYPES] = {sp->timing.forward_ms, sp->timing.backward_ms, sp->timing.backward_input_ms,
                                      sp->timing.backward_weight_ms};
    static const char *const names[ACT_TYPES] = {"forward_ms", "backward_ms", "backward_input_ms",
                                                 "backward_weight_ms"};
    bool reported[ACT_TYPES] = {false};
    bool ok = true;
    for (size_t i = 0; i < s->n_actions; i++) {
        const sched_action *x = &s->actions[i];
        const double *t = table[x->type];
        if (!t && x->type == ACT_B && sp->timing.backward_input_ms && sp->timing.backward_weight_ms) {
            /* A full backward where only the split halves are timed (DualPipeV): both halves. */
            dur[i] = sp->timing.backward_input_ms[x->stage] + sp->timing.backward_weight_ms[x->stage];
            continue;
        }
        if (!t) {
            if (!reported[x->type])
                diag_error(d, sp->path, sp->pos_timing.line, sp->pos_timing.col,
                           "the schedule has %c actions, but timing has no %s", sched_act_letter((act_type)x->type),
                           names[x->type]);
            reported[x->type] = true;
            ok = false;
            continue;
        }
        dur[i] = t[x->stage];
    }
    return ok;
}

double sim_longest_path(const sched *s, const dag *g, const double *dur, double comm_ms, double *start)
{
    size_t n = g->n;
    for (size_t i = 0; i < n; i++)
        start[i] = 0.0; /* sources start at 0 */
    double makespan = 0.0;
    for (size_t k = 0; k < n; k++) {
        uint32_t u = g->topo[k];
        double end = start[u] + dur[u];
        if (end > makespan)
            makespan = end;
        for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++) {
            uint32_t v = g->succ[e];
            double ready = end + (dag_cross_rank(s, u, v) ? comm_ms : 0.0);
            if (ready > start[v])
                start[v] = ready;
        }
    }
    return makespan;
}

bool sim_run(const sched *s, const dag *g, const double *dur, double comm_ms, arena *a, sim_result *r)
{
    size_t n = g->n;
    memset(r, 0, sizeof *r);
    r->start = arena_alloc_array(a, n ? n : 1, sizeof *r->start);
    r->busy = arena_alloc_array(a, s->ranks, sizeof *r->busy);
    r->idle = arena_alloc_array(a, s->ranks, sizeof *r->idle);
    r->bubble = arena_alloc_array(a, s->ranks, sizeof *r->bubble);
    if (!r->start || !r->busy || !r->idle || !r->bubble)
        return false;
    double makespan = sim_longest_path(s, g, dur, comm_ms, r->start);
    r->makespan = makespan;
    for (size_t i = 0; i < n; i++)
        r->busy[s->rank_of[i]] += dur[i];
    for (uint32_t k = 0; k < s->ranks; k++) {
        r->idle[k] = makespan - r->busy[k];
        r->bubble[k] = makespan > 0.0 ? r->idle[k] / makespan : 0.0;
    }
    return true;
}
