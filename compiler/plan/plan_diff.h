/* plan_diff: two plan.json files (docs/plan-json.md, formats 1 and 2)
 * compared: makespans, speed-up, per-stage freezing, and the actions whose
 * freeze ratio or start moved (tfc diff; tfc verify uses it for the plan of
 * a vendored folder against what this tfc would write). */
#ifndef TFC_PLAN_DIFF_H
#define TFC_PLAN_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "status.h"

typedef struct plan_doc_action {
    uint32_t rank, stage, microbatch;
    char type; /* F, B, I, W */
    double start_ms, duration_ms, ratio;
} plan_doc_action;

/* What of a plan.json is compared. */
typedef struct plan_doc {
    const char *path, *format, *tfc_version, *name, *schedule;
    uint32_t ranks, stage_count, microbatches;
    double baseline_ms, makespan_ms, speedup;
    double *stage_mean; /* stage_count entries: the mean freeze ratio */
    /* time_to_quality (a spec with training): its predicted speed-up and
     * the cap it is at; has_ttq false when the plan has none */
    bool has_ttq;
    double ttq_predicted, ttq_cap;
    plan_doc_action *actions;
    size_t n_actions;
    /* What the masks are drawn from besides the ratios: "freeze" (select,
     * seed, reselect_every, warmup and ramp steps) and "stage_params" (every
     * stage's tensors, numels, freeze weights); NULL where the plan has none. */
    const struct jv *freeze, *stage_params;
    const char *text; /* the file's text, which they were parsed from */
} plan_doc;

/* The largest plan.json read: about three times the largest tfc writes
 * within the spec's limits (641 MB: ZBV, 512 ranks x 2 stages x 1,024
 * microbatches, 3.1 million actions). */
#define PLAN_JSON_MAX_BYTES ((size_t)2 << 30)

/* Reads plan.json at path (any file name; "-" is standard input): TFC_OK,
 * TFC_INVALID (not JSON, not a plan, a field missing or of the wrong type,
 * each at its line:column), TFC_IO, TFC_NOMEM. */
tfc_status plan_doc_load(const char *path, arena *a, diag_list *d, plan_doc *out);
/* The same from buf[0..len) (path names it in errors). */
tfc_status plan_doc_parse(const char *path, const char *buf, size_t len, arena *a, diag_list *d, plan_doc *out);

/* Prints what differs between a and b beyond tol (absolute: ratios, and
 * milliseconds for starts and makespans), as text or JSON (docs/plan-json.md,
 * "tfc diff"). Returns 0 when nothing does, 1 when something does, -1 when
 * memory ran out (nothing printed). */
int plan_diff_print(const plan_doc *a, const plan_doc *b, double tol, bool json, FILE *out);

/* 1 when they are the same within tol, 0 when not, -1 out of memory;
 * prints nothing. */
int plan_diff_same(const plan_doc *a, const plan_doc *b, double tol);

#endif
