/* sweep: the plan's makespan as the freezing budget grows (tfc plan
 * --sweep): freeze.max_ratio from 0 to 1 in equal steps, policies timely
 * and uniform, on the same spec; written as CSV and as an SVG chart. With
 * a training section, each point's predicted time to quality too, and the
 * best cap marked. */
#ifndef TFC_SWEEP_H
#define TFC_SWEEP_H

#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "gen.h"
#include "plan.h"
#include "spec.h"

typedef struct sweep_point {
    double max_ratio;
    double makespan[2];   /* timely, uniform */
    double mean_ratio[2]; /* over all freezable actions */
    double ttq[2];        /* predicted time-to-quality speed-up (with training) */
} sweep_point;

typedef struct sweep_result {
    sweep_point *pt;
    size_t n;
    double baseline_ms;
    bool ttq_known;  /* the spec has training: pareto.csv and .svg give ttq, and mark the best */
    double ttq_beta;
} sweep_result;

/* steps + 1 points, max_ratio = i / steps. */
tfc_status sweep_run(const spec *sp, const plan_options *opt, unsigned steps, arena *a, diag_list *d,
                      sweep_result *out);
void sweep_write_csv(const sweep_result *r, FILE *f);
/* The point whose timely plan predicts the best time to quality (the lowest
 * cap among equals; with training). */
size_t sweep_best_ttq(const sweep_result *r);
/* False when a template is missing (a build bug). */
bool sweep_write_svg(const spec *sp, const char *spec_label, const sweep_result *r, FILE *f);
/* pareto.csv and pareto.svg appended to out (in memory; outdir.h writes the
 * folder, as for tfc compile); false with the reason in d. */
bool sweep_folder(const spec *sp, const char *spec_label, const sweep_result *r, gen_folder *out, diag_list *d);

#endif
