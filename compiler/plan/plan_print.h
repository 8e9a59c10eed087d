/* plan_print: a plan for people (tfc plan) and for programs (tfc plan --json). */
#ifndef TFC_PLAN_PRINT_H
#define TFC_PLAN_PRINT_H

#include <stdio.h>

#include "plan.h"

void plan_print_text(const plan *p, FILE *f);
/* The layout's name, the JSON's "format". tfc-plan-2 renamed format 1's
 * integer "stages" (a key format 1 also used for the per-stage array) to
 * "stage_count"; nothing else changed (docs/plan-json.md, "Formats"). */
#define PLAN_JSON_FORMAT "tfc-plan-2"

/* The JSON object documented in docs/plan-json.md. */
void plan_print_json(const plan *p, FILE *f);

#endif
