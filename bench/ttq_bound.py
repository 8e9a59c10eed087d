#!/usr/bin/env python3
"""The plan's upper bound (time_to_quality.upper_bound: the prediction at
learning-rate ratio 0, the most freezing buys at any rate) scored on
batch-regime sweeps already run: reads the tables bench/batch_regime.py
wrote (results.md, as kept in docs/batch_regime_runs/) and sets each
balanced point's measured drift-free speed-up against its bound
(python/tfc_plan.py, time_to_quality_bound, from the smaller of the
point's beta at the start and where freezing starts, as the plan takes it
given training.freeze_noise_scale_tokens, and its frozen share, step
ratio, steps, warm-up and ramp). Prints a table and, last,

  ttq_bound points=K above=A max_excess=E cannot_pay=C of_them_paid=P

K points; A of them measured above their bound (by more than the tables'
rounding, 0.0005), E the most by which one did (0 if none): a point that
never reached L* counts only with its measured bound V, which is above
the true speed-up, so it is above the plan's bound only if V is; C the
points whose bound is at or below 1 (the plan says freezing cannot pay
there at any rate), P of those measured above 1. The tables give 3
decimals; standard library only.

Usage: bench/ttq_bound.py [--optimizer adam|sgd] RESULTS.md...
(--optimizer: the model's form, training.optimizer; adam, the trainer's,
by default)"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
import tfc_plan  # noqa: E402
import ttq_pilot  # noqa: E402

ROUNDING = 0.0005  # the tables' 3 decimals


def score(paths, optimizer):
    """score_sweeps over the results.md files at paths."""
    sweeps = []
    for path, label in zip(paths, ttq_pilot.labels(paths)):
        n, ramp, groups = ttq_pilot.read_sweep(path)
        sweeps.append((label, n, ramp, groups))
    return score_sweeps(sweeps, optimizer)


def score_sweeps(sweeps, optimizer):
    """(table lines, points, above, max excess, cannot pay, of them paid)
    over sweeps, each (label, N, ramp, {batch size: [point]}) as
    ttq_pilot.read_sweep and ttq_models.sweep_groups give them."""
    lines = ["| batch size | cap | beta (the smaller) | frozen share | step ratio | measured | upper bound | measured - bound |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    k = above = cannot = paid = 0
    worst = 0.0
    for label, n, ramp, groups in sweeps:
        for size, pts in groups.items():
            for p in pts:
                # at the smaller beta, the start's or where freezing starts (training.freeze_noise_scale_tokens)
                bw = p.get("beta_w")
                beta = bw if bw is not None and bw < p["beta"] else p["beta"]  # NaN: not measured
                b = tfc_plan.time_to_quality_bound(p["beta"], p["f"], p["r"], n, p["warmup"], ramp, optimizer, bw)
                d = p["df"] - b  # an unreached point's df is its bound V
                k += 1
                if d > ROUNDING:
                    above += 1
                    worst = max(worst, d)
                if b <= 1.0:
                    cannot += 1
                    paid += p["reached"] and p["df"] > 1.0
                lines.append(f"| {size} (N = {n}, {label}) | {p['cap']} | {beta:.3f} | "
                             f"{p['f']:.3f} | {p['r']:.3f} | {'' if p['reached'] else '<'}{p['df']:.3f} | {b:.3f} | "
                             f"{d:+.3f} |")
    return lines, k, above, worst, cannot, paid


def main():
    optimizer, args, _ = ttq_pilot.cli_args(sys.argv[1:], __doc__)
    if optimizer is None:
        return args
    lines, k, above, worst, cannot, paid = score(args, optimizer)
    print("\n".join(lines))
    print(f"ttq_bound points={k} above={above} max_excess={worst:.4f} cannot_pay={cannot} of_them_paid={paid}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
