/* ttq: the time-to-quality model. Written as python/tfc_plan.py writes it,
 * operation for operation, so both give the same double. */
#include "ttq.h"

#include <math.h>

double ttq_speedup(double beta, double frozen_share, double step_ratio, double steps, double warmup, double ramp)
{
    double f = frozen_share < 0.0 ? 0.0 : frozen_share > 1.0 ? 1.0 : frozen_share;
    if (!(steps > 0.0) || !(f > 0.0))
        return 1.0;
    if (f >= 1.0)
        return 0.0;
    double rho = isinf(beta) ? 1.0 - f : (1.0 + beta) / (1.0 + beta / (1.0 - f)); /* the limit far below B_simple */
    double w = warmup + ramp / 2.0;
    if (w > steps)
        w = steps;
    return steps / (w + (steps - w) * step_ratio / rho);
}

double ttq_break_even(double frozen_share, double step_ratio)
{
    double f = frozen_share, r = step_ratio;
    if (!(f > 0.0 && f < 1.0) || !(r > 0.0 && r < 1.0))
        return -1.0;
    double denom = 1.0 / (1.0 - f) - 1.0 / r;
    return denom <= 0.0 ? INFINITY : (1.0 / r - 1.0) / denom;
}
