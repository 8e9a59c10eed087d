/* ttq: the time-to-quality model (docs/time-to-quality.md, "The batch
 * regime" and "The learning-rate ratio"): what a freezing plan's shorter
 * step buys in time to a loss, given the batch against the gradient noise
 * scale. The same arithmetic as python/tfc_plan.py's
 * predicted_time_to_quality, break_even_beta and lr_ratio_from_pilot
 * (tested bit for bit). */
#ifndef TFC_TTQ_H
#define TFC_TTQ_H

/* How the run's optimiser scales a step (training.optimizer): Adam (and
 * AdamW, ...) divides each coordinate's step by the root of its running mean
 * square gradient; SGD (with or without momentum) does not. */
typedef enum ttq_optimizer { TTQ_ADAM = 0, TTQ_SGD = 1 } ttq_optimizer;

/* "adam" or "sgd", as training.optimizer spells it. */
const char *ttq_optimizer_name(ttq_optimizer opt);

/* A frozen step's progress against a full one's when a share f of the
 * batch is skipped, at beta = B_simple / batch (INFINITY: no signal). With
 * n = (1 + beta / (1 - f)) / (1 + beta), the step's noise term on (1 - f)
 * of the batch against a full one's:
 *
 * lr_ratio NAN (unknown): each run at its own best rate, steps to a loss
 * S = S_min (1 + B_noise / B), so rho = 1 / n = (1 + beta) / (1 + beta /
 * (1 - f)), for either optimiser.
 *
 * lr_ratio k (0 <= k < 2): the run's rate is k times the one that makes a
 * single full step progress the most, and the frozen steps keep it. A
 * step at rate e progresses a e - b e^2, its best at e* = a / (2 b); at
 * e = k e* a full step progresses a e (1 - k / 2).
 *   TTQ_SGD: the noisier step's second-order term grows n-fold,
 *     rho = (1 - k n / 2) / (1 - k / 2): 1 at k = 0 (a run its rate
 *     limits: a noisier step costs nothing);
 *   TTQ_ADAM: the running mean square grows n-fold, so the step's signal
 *     shrinks sqrt(n)-fold while its size does not,
 *     rho = (1 / sqrt(n) - k / 2) / (1 - k / 2): 1 / sqrt(n) at k = 0.
 * Both fall as k grows and are not below 0 (docs/time-to-quality.md, "The
 * optimiser's form"). */
double ttq_rho(double beta, double frozen_share, double lr_ratio, ttq_optimizer opt);

/* The predicted speed-up in time to the no-freezing run's loss of a run of
 * `steps` steps that freezes a share f of its elements from step warmup
 * (over ramp steps), its steps step_ratio as long: with
 * w = warmup + ramp / 2 and rho = ttq_rho(beta, f, lr_ratio, opt)
 *     speedup = steps / (w + (steps - w) step_ratio / rho).
 * 1 with nothing frozen (f <= 0) or a run that ends before freezing takes
 * hold (steps <= w, whatever rho), else 0 with everything frozen (f >= 1)
 * or rho 0. */
double ttq_speedup(double beta, double frozen_share, double step_ratio, double steps, double warmup, double ramp,
                   double lr_ratio, ttq_optimizer opt);

/* The step at which the model's freezing takes hold: warmup + ramp / 2
 * (the ramp's frozen share counted as if it all came at its middle). A run
 * of no more steps gains nothing from any cap. */
double ttq_takes_hold(double warmup, double ramp);

/* The most the model lets freezing buy, whatever the learning rate:
 * ttq_speedup at lr_ratio 0, a run its rate rather than its gradient noise
 * limits (rho falls as k grows, so no k >= 0 gives more, nor the best-rate
 * form 1 / n). With TTQ_SGD that is the shorter step alone (rho 1); with
 * TTQ_ADAM a frozen step still loses signal, rho = 1 / sqrt(n). Its beta
 * should be the smallest the frozen steps see: plan.c takes the smaller of
 * the run's start's and where freezing starts (measured against 71 sweep
 * points, docs/time-to-quality.md, "The upper bound"). */
double ttq_upper_bound(double beta, double frozen_share, double step_ratio, double steps, double warmup, double ramp,
                       ttq_optimizer opt);

/* The beta below which freezing a share f at step ratio r can pay (rho =
 * r). -1 when it never pays (r >= 1 or nothing frozen), INFINITY when it
 * always does (rho stays above r as beta grows). */
double ttq_break_even(double frozen_share, double step_ratio, double lr_ratio, ttq_optimizer opt);

/* The learning-rate ratio k that makes ttq_speedup give a pilot's measured
 * speed-up (a run pair, no freezing and one cap, measured to the
 * no-freezing run's loss): rho = (steps - w) r / (steps / speedup - w),
 * then ttq_rho solved for k: (1 - rho) / (n / 2 - rho / 2) for SGD,
 * 2 (1 / sqrt(n) - rho) / (1 - rho) for Adam. 0 when the pilot progressed
 * as far as k = 0 allows (rho >= 1, or 1 / sqrt(n) with Adam: the rate
 * limits the run). NAN when the pilot cannot say: nothing frozen, all
 * frozen, a speed-up at or past what steps alone allow (steps / speedup
 * <= w), or no k below 2 gives it. */
double ttq_lr_ratio(double beta, double frozen_share, double step_ratio, double steps, double warmup, double ramp,
                    double speedup, ttq_optimizer opt);

/* Below this beta the optimiser contract is `mean` (each tensor's gradient
 * rescaled over the microbatches that computed it), above it `share`
 * (docs/optimizer-contract.md; measured in docs/time-to-quality.md, "The
 * batch-regime sweep"). The model's speed-up assumes that contract. */
#define TTQ_RESCALE_BELOW 1.0

/* The learning-rate ratio's bound: at 2 a full step makes no progress. */
#define TTQ_LR_RATIO_MAX 2.0

#endif
