/* ttq: the time-to-quality model (docs/time-to-quality.md, "The batch
 * regime" and "The learning-rate ratio"): what a freezing plan's shorter
 * step buys in time to a loss, given the batch against the gradient noise
 * scale. The same arithmetic as python/tfc_plan.py's
 * predicted_time_to_quality, break_even_beta and lr_ratio_from_pilot
 * (tested bit for bit). */
#ifndef TFC_TTQ_H
#define TFC_TTQ_H

/* A frozen step's progress against a full one's when a share f of the
 * batch is skipped, at beta = B_simple / batch (INFINITY: no signal).
 *
 * lr_ratio NAN (unknown): each run at its own best rate, steps to a loss
 * S = S_min (1 + B_noise / B), so rho = (1 + beta) / (1 + beta / (1 - f)).
 *
 * lr_ratio k (0 <= k < 2): the run's rate is k times the one that makes a
 * single full step progress the most, and the frozen steps keep it. A
 * step at rate e progresses e |G|^2 (1 - e / (2 e_max) (1 + beta')), beta'
 * the step's own B_simple over its batch, so with e = k e_max / (1 + beta)
 *     rho = (1 - k (1 + beta / (1 - f)) / (2 (1 + beta))) / (1 - k / 2):
 * 1 at k = 0 (a run its rate limits: a noisier step costs nothing), below
 * the first form near k = 1 (a run its noise limits). Not below 0. */
double ttq_rho(double beta, double frozen_share, double lr_ratio);

/* The predicted speed-up in time to the no-freezing run's loss of a run of
 * `steps` steps that freezes a share f of its elements from step warmup
 * (over ramp steps), its steps step_ratio as long: with
 * w = min(warmup + ramp / 2, steps) and rho = ttq_rho(beta, f, lr_ratio)
 *     speedup = steps / (w + (steps - w) step_ratio / rho).
 * 1 with nothing frozen (f <= 0), 0 with everything (f >= 1) or rho 0. */
double ttq_speedup(double beta, double frozen_share, double step_ratio, double steps, double warmup, double ramp,
                   double lr_ratio);

/* The beta below which freezing a share f at step ratio r can pay (rho =
 * r). -1 when it never pays (r >= 1 or nothing frozen), INFINITY when it
 * always does (rho stays above r as beta grows). */
double ttq_break_even(double frozen_share, double step_ratio, double lr_ratio);

/* The learning-rate ratio k that makes ttq_speedup give a pilot's measured
 * speed-up (a run pair, no freezing and one cap, measured to the
 * no-freezing run's loss): rho = (steps - w) r / (steps / speedup - w),
 * then k = (1 - rho) / (c - rho / 2), c = (1 + beta / (1 - f)) / (2 (1 + beta)).
 * 0 when the pilot progressed as far as a full step (rho >= 1: the rate
 * limits the run). NAN when the pilot cannot say: nothing frozen, all
 * frozen, a speed-up at or past what steps alone allow (steps / speedup
 * <= w), or no k below 2 gives it. */
double ttq_lr_ratio(double beta, double frozen_share, double step_ratio, double steps, double warmup, double ramp,
                    double speedup);

/* Below this beta the optimiser contract is `mean` (each tensor's gradient
 * rescaled over the microbatches that computed it), above it `share`
 * (docs/optimizer-contract.md; measured in docs/time-to-quality.md, "The
 * batch-regime sweep"). The model's speed-up assumes that contract. */
#define TTQ_RESCALE_BELOW 1.0

/* The learning-rate ratio's bound: at 2 a full step makes no progress. */
#define TTQ_LR_RATIO_MAX 2.0

#endif
