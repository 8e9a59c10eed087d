/* ttq: the time-to-quality model (docs/time-to-quality.md, "The batch
 * regime"): what a freezing plan's shorter step buys in time to a loss,
 * given the batch against the gradient noise scale. One function, the same
 * arithmetic as python/tfc_plan.py's predicted_time_to_quality (tested bit
 * for bit). */
#ifndef TFC_TTQ_H
#define TFC_TTQ_H

/* The predicted speed-up in time to the no-freezing run's loss of a run of
 * `steps` steps that freezes a share f of its elements from step warmup
 * (over ramp steps), its steps step_ratio as long, at beta = B_simple /
 * batch: with S = S_min (1 + B_noise / B) steps to a loss, a step on
 * (1 - f) of the batch progresses rho = (1 + beta) / (1 + beta / (1 - f))
 * as far as a full one, so with w = min(warmup + ramp / 2, steps)
 *     speedup = steps / (w + (steps - w) step_ratio / rho).
 * 1 with nothing frozen (f <= 0), 0 with everything (f >= 1). */
double ttq_speedup(double beta, double frozen_share, double step_ratio, double steps, double warmup, double ramp);

/* The beta below which freezing a share f at step ratio r can pay (rho =
 * r): (1 / r - 1) / (1 / (1 - f) - 1 / r). -1 when it never pays (r >= 1
 * or nothing frozen), INFINITY when it always does (r <= 1 - f). */
double ttq_break_even(double frozen_share, double step_ratio);

/* Below this beta the optimiser contract is `mean` (each tensor's gradient
 * rescaled over the microbatches that computed it), above it `share`
 * (docs/optimizer-contract.md; measured in docs/time-to-quality.md, "The
 * batch-regime sweep"). The model's speed-up assumes that contract. */
#define TTQ_RESCALE_BELOW 1.0

#endif
