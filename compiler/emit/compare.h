/* compare: every built-in schedule for the spec's model, timings, ranks and
 * microbatches (tfc plan --compare): baseline and optimised makespan, the
 * freezing spent and peak activation memory per rank, sorted by optimised
 * makespan, with the fastest that fits pipeline.memory_limit_bytes
 * recommended; written as a table, JSON, CSV and an SVG chart. */
#ifndef TFC_COMPARE_H
#define TFC_COMPARE_H

#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "gen.h"
#include "plan.h"
#include "spec.h"

typedef struct compare_row {
    spec_schedule kind;
    uint32_t stages_per_rank;
    bool applicable; /* planned; otherwise reason says why not */
    char reason[200];
    bool is_spec;  /* the spec's own schedule and timings */
    unsigned how;  /* VARIANT_* (spec_variant.h): how its timings were found; 0 = the spec's */
    size_t actions;
    double baseline_ms, optimised_ms;
    double mean_ratio; /* over the freezable actions */
    uint32_t peak_sets;  /* most activation sets any rank holds at once */
    uint64_t peak_bytes; /* the same in bytes, when bytes_known */
    bool bytes_known;
    bool fits; /* within pipeline.memory_limit_bytes (true without one) */
    bool ttq_known;     /* the spec has training: the plan's predicted time to quality */
    double ttq_speedup; /* at the row's cap (freeze.max_ratio: auto chooses one per schedule) */
    double ttq_cap;
} compare_row;

typedef struct compare_result {
    compare_row *row; /* applicable rows by optimised makespan, then the others */
    size_t n;
    long recommended; /* the fastest row that fits, or -1 */
    long spec_row;    /* the spec's own schedule, or -1 */
    bool ttq_known;   /* some row predicts time to quality (the spec has training) */
    double ttq_beta;
    /* The row that fits and reaches the no-freezing run's loss soonest: its
     * baseline step over its predicted speed-up (compare_ttq_ms), or -1. */
    long fastest_to_quality;
} compare_result;

/* A row's wall time per no-freezing step's worth of progress: its baseline
 * makespan over its predicted time-to-quality speed-up (INFINITY where the
 * prediction is 0: the run never reaches the loss). Across schedules the
 * smaller reaches the loss sooner; the speed-ups alone are each against
 * their own schedule's baseline. */
double compare_ttq_ms(const compare_row *w);

/* Plans each schedule under opt (per-schedule memory freed as it goes). */
tfc_status compare_run(const spec *sp, const plan_options *opt, arena *a, diag_list *d, compare_result *out);
void compare_print_text(const spec *sp, const char *label, const compare_result *r, FILE *f);
void compare_print_json(const spec *sp, const char *label, const compare_result *r, FILE *f);
void compare_write_csv(const compare_result *r, FILE *f);
/* False when the template is missing (a build bug). */
bool compare_write_svg(const spec *sp, const char *label, const compare_result *r, FILE *f);
/* compare.csv and compare.svg appended to out; false with the reason in d. */
bool compare_folder(const spec *sp, const char *label, const compare_result *r, gen_folder *out, diag_list *d);

#endif
