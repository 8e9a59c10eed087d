/* plan: schedule -> DAG -> simulated baseline step. */
#include "plan.h"

spec_status plan_build(const spec *sp, arena *a, diag_list *d, plan **out)
{
    *out = NULL;
    plan *p = arena_alloc(a, sizeof *p);
    if (!p) {
        diag_error(d, sp->path, 0, 0, "out of memory");
        return SPEC_INVALID;
    }
    p->sp = sp;
    spec_status st = sched_build(sp, a, d, &p->s);
    if (st != SPEC_OK)
        return st;
    if (!dag_build(p->s, sp->path, sp->pos_schedule, a, d, &p->g))
        return SPEC_INVALID;
    p->dur = arena_alloc_array(a, p->s->n_actions ? p->s->n_actions : 1, sizeof *p->dur);
    if (!p->dur) {
        diag_error(d, sp->path, 0, 0, "out of memory");
        return SPEC_INVALID;
    }
    if (!sim_durations(sp, p->s, p->dur, d))
        return SPEC_INVALID;
    if (!sim_run(p->s, p->g, p->dur, sp->timing.comm_ms, a, &p->base)) {
        diag_error(d, sp->path, 0, 0, "out of memory simulating %zu actions", p->s->n_actions);
        return SPEC_INVALID;
    }
    *out = p;
    return SPEC_OK;
}
