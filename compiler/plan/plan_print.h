/* plan_print: a plan for people (tfc plan) and for programs (tfc plan --json). */
#ifndef TFC_PLAN_PRINT_H
#define TFC_PLAN_PRINT_H

#include <stdio.h>

#include "plan.h"

void plan_print_text(const plan *p, FILE *f);
/* The JSON object documented in docs/plan-json.md. */
void plan_print_json(const plan *p, FILE *f);

#endif
