/* ttq: the time-to-quality model. Written as python/tfc_plan.py writes it,
 * operation for operation, so both give the same double. */
#include "ttq.h"

#include <math.h>
#include <stdbool.h>

const char *ttq_optimizer_name(ttq_optimizer opt)
{
    return opt == TTQ_SGD ? "sgd" : "adam";
}

static double clamp01(double f)
{
    return f < 0.0 ? 0.0 : f > 1.0 ? 1.0 : f;
}

/* beta / (1 - f) past the largest double: no signal, as beta infinite is
 * (the limit; computed as written it would be inf / huge or inf / inf). */
static bool no_signal(double beta, double f)
{
    return isinf(beta / (1.0 - f));
}

/* (1 + beta / (1 - f)) / (1 + beta): a step's noise term on (1 - f) of the
 * batch against a full one's; 1 / (1 - f) with no signal. */
static double noise_growth(double beta, double f)
{
    return no_signal(beta, f) ? 1.0 / (1.0 - f) : (1.0 + beta / (1.0 - f)) / (1.0 + beta);
}

double ttq_rho(double beta, double frozen_share, double lr_ratio, ttq_optimizer opt)
{
    double f = clamp01(frozen_share);
    if (f >= 1.0)
        return 0.0;
    if (isnan(lr_ratio))
        return no_signal(beta, f) ? 1.0 - f : (1.0 + beta) / (1.0 + beta / (1.0 - f)); /* the limit far below B_simple */
    double n = noise_growth(beta, f);
    double rho = opt == TTQ_SGD ? (1.0 - lr_ratio * n / 2.0) / (1.0 - lr_ratio / 2.0)
                                : (1.0 / sqrt(n) - lr_ratio / 2.0) / (1.0 - lr_ratio / 2.0);
    return rho > 0.0 ? rho : 0.0;
}

double ttq_takes_hold(double warmup, double ramp) { return warmup + ramp / 2.0; }

double ttq_speedup(double beta, double frozen_share, double step_ratio, double steps, double warmup, double ramp,
                   double lr_ratio, ttq_optimizer opt)
{
    double f = clamp01(frozen_share);
    if (!(steps > 0.0) || !(f > 0.0))
        return 1.0;
    /* A run that ends before freezing takes hold is the run without
     * freezing, whatever a frozen step would cost. */
    double w = ttq_takes_hold(warmup, ramp);
    if (!(steps > w))
        return 1.0;
    double rho = ttq_rho(beta, f, lr_ratio, opt);
    if (!(rho > 0.0))
        return 0.0;
    return steps / (w + (steps - w) * step_ratio / rho);
}

double ttq_upper_bound(double beta, double frozen_share, double step_ratio, double steps, double warmup, double ramp,
                       ttq_optimizer opt)
{
    return ttq_speedup(beta, frozen_share, step_ratio, steps, warmup, ramp, 0.0, opt);
}

double ttq_break_even(double frozen_share, double step_ratio, double lr_ratio, ttq_optimizer opt)
{
    double f = frozen_share, r = step_ratio;
    if (!(f > 0.0 && f < 1.0) || !(r > 0.0 && r < 1.0))
        return -1.0;
    if (isnan(lr_ratio)) {
        double denom = 1.0 / (1.0 - f) - 1.0 / r;
        return denom <= 0.0 ? INFINITY : (1.0 / r - 1.0) / denom;
    }
    double k = lr_ratio;
    if (opt == TTQ_ADAM) {
        /* rho = r: 1 / sqrt(n) = q, q = r (1 - k / 2) + k / 2, so
         * n = 1 / q^2 = (1 + beta / (1 - f)) / (1 + beta) */
        double q = r * (1.0 - k / 2.0) + k / 2.0, iq2 = 1.0 / (q * q);
        double denom = 1.0 / (1.0 - f) - iq2;
        return denom <= 0.0 ? INFINITY : (iq2 - 1.0) / denom;
    }
    /* rho = r: k (1 + beta / (1 - f)) = 2 (1 - q) (1 + beta), q = r (1 - k / 2) */
    double q2 = 2.0 * (1.0 - r * (1.0 - k / 2.0));
    double denom = k / (1.0 - f) - q2;
    return denom <= 0.0 ? INFINITY : (q2 - k) / denom;
}

double ttq_lr_ratio(double beta, double frozen_share, double step_ratio, double steps, double warmup, double ramp,
                    double speedup, ttq_optimizer opt)
{
    double f = frozen_share;
    if (!(f > 0.0 && f < 1.0) || !(steps > 0.0) || !(speedup > 0.0) || !(step_ratio > 0.0))
        return NAN;
    double w = ttq_takes_hold(warmup, ramp);
    if (w > steps)
        w = steps;
    double left = steps / speedup - w;
    if (!(left > 0.0) || !(steps > w))
        return NAN;
    double rho = (steps - w) * step_ratio / left;
    double n = noise_growth(beta, f);
    if (opt == TTQ_ADAM) {
        double top = 1.0 / sqrt(n); /* rho at k = 0 */
        if (rho >= top)
            return 0.0;
        double k = 2.0 * (top - rho) / (1.0 - rho);
        return k >= 0.0 && k < TTQ_LR_RATIO_MAX ? k : NAN;
    }
    if (rho >= 1.0)
        return 0.0;
    double k = (1.0 - rho) / (n / 2.0 - rho / 2.0);
    return k >= 0.0 && k < TTQ_LR_RATIO_MAX ? k : NAN;
}
