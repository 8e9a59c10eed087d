/* plan: everything tfc works out for one spec: the schedule, its DAG, and
 * the simulated step (the baseline, nothing frozen). Printing lives in
 * plan_print.c; emitters read a plan and never the spec's YAML. */
#ifndef TFC_PLAN_H
#define TFC_PLAN_H

#include "arena.h"
#include "dag.h"
#include "diag.h"
#include "sched.h"
#include "sim.h"
#include "spec.h"

typedef struct plan {
    const spec *sp;
    sched *s;
    dag *g;
    double *dur;     /* per action: the unfrozen duration */
    sim_result base; /* the step with nothing frozen */
} plan;

/* Builds the schedule, checks it cannot deadlock, and simulates it. */
spec_status plan_build(const spec *sp, arena *a, diag_list *d, plan **out);

#endif
