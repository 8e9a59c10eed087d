#!/usr/bin/env python3
"""What the planned model's choice of cap costs (freeze.max_ratio: auto),
scored on batch-regime sweeps already run: reads the tables
bench/batch_regime.py wrote (results.md, as kept in
docs/batch_regime_runs/) and, per batch size, lets the model choose among
the caps that were measured there and cap 0 (no freezing, speed-up 1 by
definition), as auto chooses among the caps it plans: the one with the best
predicted time to quality (python/tfc_plan.py, predicted_time_to_quality,
the compiler's arithmetic). A point error says how far the prediction is
off; this says what following it costs:

  regret: the best measured drift-free speed-up among the choices (cap 0
          and every cap that reached L*) less the chosen cap's; a chosen
          cap that never reached L* counts with its bound V (it is at
          least best - V behind);
  loss:   how much slower than not freezing at all the chosen cap is
          (1 - its speed-up, 0 when it is not slower).

Each batch size is chosen for twice: without a pilot (the default,
lr_ratio unknown) and with one (training.pilot: the largest cap that
reached L*, as bench/ttq_pilot.py takes it, its k from
lr_ratio_from_pilot), the latter only where another cap was measured
beside the pilot. The chosen caps are those measured, not auto's grid of
0, 0.1, ..., 1; the tables give 3 decimals, and a seed is worth 0.02-0.06
at large caps (docs/time-to-quality.md), so a regret below that is within
the noise. Prints a table and, last,

  ttq_choice groups=G max_regret=R mean_regret=M max_loss=L
    pilot_groups=P pilot_max_regret=R1 pilot_mean_regret=M1 pilot_max_loss=L1
    step_max_regret=R2 step_mean_regret=M2 step_max_loss=L2
    never_max_regret=R3 never_mean_regret=M3

(one line: the model without and with a pilot; the baselines, scored
alike: "step" the cap with the shortest step, what the step's speed-up
alone recommends, and "never" cap 0.)

Usage: bench/ttq_choice.py [--optimizer adam|sgd] RESULTS.md...
(--optimizer: the model's form, training.optimizer; adam, the trainer's,
by default). Standard library only."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
import ttq_models  # noqa: E402
import ttq_pilot  # noqa: E402

NONE = dict(cap=0.0, df=1.0, reached=True)  # no freezing: the baseline itself


def choose(pts, n, ramp, k, optimizer):
    """The point the model picks among NONE and pts, predicted at lr_ratio
    k (None: unknown); on equal predictions the smaller cap (less frozen
    for the same time)."""
    import tfc_plan
    preds = [(NONE, 1.0)] + [(p, tfc_plan.predicted_time_to_quality(p["beta"], p["f"], p["r"], n, p["warmup"], ramp,
                                                                    k, optimizer)) for p in pts]
    return max(preds, key=lambda x: (x[1], -x[0]["cap"]))[0]


def cost(pts, pick):
    """(the best measured among NONE and the caps that reached L*, the
    pick's regret against it, the pick's loss against no freezing)."""
    best = max([NONE] + [p for p in pts if p["reached"]], key=lambda p: (p["df"], -p["cap"]))
    return best, max(0.0, best["df"] - pick["df"]), max(0.0, 1.0 - pick["df"])


def choices(groups, n_of, ramp_of, optimizer="adam"):
    """[(name, best point, {policy: (pick, regret, loss)}, pilot point or
    None)] per batch size; the policies: "model" (no pilot), "pilot"
    (absent where no pilot could say), and the two baselines "step" (the
    shortest step, what a step's speed-up alone recommends) and "never"
    (cap 0)."""
    out = []
    for name, pts in groups.items():
        n, ramp = n_of(name), ramp_of(name)
        picks = {"model": choose(pts, n, ramp, None, optimizer),
                 "step": min(pts, key=lambda p: (p["r"], -p["cap"])), "never": NONE}
        pilot, k = ttq_models.pilot_k(pts, n, ramp, optimizer)
        if k is not None and len(pts) > 1:
            picks["pilot"] = choose(pts, n, ramp, k, optimizer)
        best = cost(pts, NONE)[0]
        out.append((name, best, {policy: (v,) + cost(pts, v)[1:] for policy, v in picks.items()},
                    pilot if "pilot" in picks else None))
    return out


def measured(p):
    return f"{'' if p['reached'] else '<'}{p['df']:.3f}"


def cell(pick, regret):
    """"cap: speed-up (regret)"; a pick that never reached L* is at least
    its regret behind."""
    return f"{pick['cap']}: {measured(pick)} ({'>' if not pick['reached'] else ''}{regret:.3f})"


POLICIES = ("model", "pilot", "step", "never")


def table(rows):
    """Markdown of choices(); (text, {policy: (groups, max regret, mean
    regret, max loss)})."""
    lines = ["| batch size | best measured (cap) | model, no pilot: cap: speed-up (regret) | pilot cap | "
             "model with it | shortest step | never freezing |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    got = {k: [] for k in POLICIES}
    for name, best, picks, pilot in rows:
        for k, v in picks.items():
            got[k].append(v)
        with_pilot = f"{pilot['cap']} | {cell(*picks['pilot'][:2])}" if pilot else "- | -"
        lines.append(f"| {name} | {best['df']:.3f} ({best['cap']}) | {cell(*picks['model'][:2])} | {with_pilot} | "
                     f"{cell(*picks['step'][:2])} | {cell(*picks['never'][:2])} |")
    stats = {k: (len(v), max((x[1] for x in v), default=0.0), sum(x[1] for x in v) / len(v) if v else 0.0,
                 max((x[2] for x in v), default=0.0)) for k, v in got.items()}
    return "\n".join(lines), stats


def main():
    optimizer, args, _ = ttq_pilot.cli_args(sys.argv[1:], __doc__)
    if optimizer is None:
        return args
    text, st = table(choices(*ttq_pilot.named_groups(args), optimizer))
    print(text)
    print(f"ttq_choice groups={st['model'][0]} max_regret={st['model'][1]:.4f} mean_regret={st['model'][2]:.4f} "
          f"max_loss={st['model'][3]:.4f} pilot_groups={st['pilot'][0]} pilot_max_regret={st['pilot'][1]:.4f} "
          f"pilot_mean_regret={st['pilot'][2]:.4f} pilot_max_loss={st['pilot'][3]:.4f} "
          f"step_max_regret={st['step'][1]:.4f} step_mean_regret={st['step'][2]:.4f} step_max_loss={st['step'][3]:.4f} "
          f"never_max_regret={st['never'][1]:.4f} never_mean_regret={st['never'][2]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
