/* select: per-tensor weights of the freeze selection rules. */
#include "select.h"

#include <math.h>

uint64_t select_weight(spec_select rule, const spec_stage *g, size_t i)
{
    size_t n = g->n_params;
    if (rule == SELECT_FRONT_FIRST && n > 1) {
        uint64_t den = 10 * (uint64_t)(n - 1);
        return (uint64_t)SELECT_WEIGHT_ONE * (den - 9 * (uint64_t)i) / den;
    }
    if (rule == SELECT_WEIGHTS)
        return (uint64_t)llround(g->params[i].freeze_weight * SELECT_WEIGHT_ONE);
    return SELECT_WEIGHT_ONE;
}
