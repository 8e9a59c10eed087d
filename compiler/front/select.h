/* select: the per-tensor weights of the freeze selection rules
 * (freeze.select), computed once here and baked into the generated tables
 * and plan.json; the rules themselves run in templates/mask_core.inc. */
#ifndef TFC_SELECT_H
#define TFC_SELECT_H

#include <stdint.h>

#include "spec.h"

/* The fixed-point unit of a weight: weight 1.0 is SELECT_WEIGHT_ONE. */
#define SELECT_WEIGHT_ONE 65536u

/* The weight rule gives tensor i of stage g: front_first falls linearly from 1.0 (the first tensor) to 0.1
 * (the last), floor(2^16 (10 (n - 1) - 9 i) / (10 (n - 1))); weights takes
 * each tensor's freeze_weight, round(2^16 w); uniform and balanced read no
 * weights and get 1.0 each. */
uint64_t select_weight(spec_select rule, const spec_stage *g, size_t i);

/* The largest ratio stage g's masks can freeze under the rule: 1, unless
 * tensors of weight 0 (freeze_weight: 0 under weights) are never frozen;
 * then the least ratio on the 2^-32 grid whose budget holds every element
 * of the other tensors (so that a mask at it freezes all of them), 0 when
 * there are none. */
double select_stage_top(spec_select rule, const spec_stage *g);

#endif
