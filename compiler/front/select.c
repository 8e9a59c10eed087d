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

/* floor(total * q / 2^32) for q <= 2^32, exactly: a draw's element budget,
 * as the masks compute it (templates/mask_core.inc, budget). */
static uint64_t budget(uint64_t total, uint64_t q)
{
    return (total >> 32) * q + (((total & 0xffffffffull) * q) >> 32);
}

double select_stage_top(spec_select rule, const spec_stage *g)
{
    uint64_t total = 0, live = 0;
    for (size_t i = 0; i < g->n_params; i++) {
        total += g->params[i].numel;
        if (select_weight(rule, g, i) > 0)
            live += g->params[i].numel;
    }
    if (live == total)
        return 1.0;
    if (live == 0)
        return 0.0;
    /* the least q whose budget holds every live element (budget grows with
     * q, and at q = 2^32 it is total) */
    uint64_t lo = 0, hi = (uint64_t)1 << 32;
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (budget(total, mid) >= live)
            hi = mid;
        else
            lo = mid;
    }
    return ldexp((double)hi, -32);
}
