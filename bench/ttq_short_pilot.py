#!/usr/bin/env python3
"""Can a pilot stop early? The pilot pair (the spec's training.pilot) runs
one cap to the no-freezing run's loss, a whole run's cost. This reads the
first steps of the frozen runs that batch-regime sweeps already made, as a
pilot cut short would, and asks whether they tell the whole run.

For each frozen run of a sweep (balanced, from the sweep's start and from
every --freeze-from start, each seed against its own no-freezing run), with
w = warm-up + ramp / 2, where the planned model has freezing take hold:

  - after a share q of the frozen steps, M = q (N - w), the frozen run's
    validation loss at step w + M, and the step s at which the no-freezing
    run's loss reaches it, give rho_q = (s - w) / M: how far a frozen step
    went against a full one so far (a frozen run ahead of the whole
    no-freezing run reads as k 0). Both losses smoothed as the sweep
    smooths them (the mean of three evaluations, which speaks for the
    middle one: short_rho takes the lag out) and interpolated between
    evaluations;
  - taken as tfc takes a pilot: the speed-up the planned run shape gives at
    rho_q, N / (w + (N - w) r / rho_q), into python/tfc_plan.py's
    lr_ratio_from_pilot (k 0 where rho_q is at or above what k = 0 gives;
    where no k below 2 fits, that speed-up itself), then
    predicted_time_to_quality at k: the run's predicted speed-up;
  - against the run's measured drift-free speed-up (batch_regime.metrics),
    by the sweep's error rule (a run that never reached L* counts only where
    the prediction exceeds its bound), beside the planned model without k.

Prints a table a run and, last,

  ttq_short_pilot runs=R planned_max_abs_err=E planned_mean_abs_err=M eighth_max_abs_err=E1 eighth_mean_abs_err=M1 quarter_max_abs_err=E2 quarter_mean_abs_err=M2 half_max_abs_err=E3 half_mean_abs_err=M3

(q = 1/8, 1/4 and 1/2 of the frozen steps). A pilot run to the loss is
the prediction's own measurement (error 0 on its run).

Usage: ttq_short_pilot.py CACHE_DIR... (folders bench/batch_regime.sh wrote,
each with its summary.json; a run found in two, one folder copied into
another, counts once: the same corpus, model, steps, ramp, batch size, cap,
start and seed). Standard library only."""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import batch_regime  # noqa: E402
import time_to_quality as ttq  # noqa: E402
import tfc_plan  # noqa: E402
import ttq_models  # noqa: E402
import ttq_starts  # noqa: E402

SHARES = (("eighth", 0.125), ("quarter", 0.25), ("half", 0.5))


def frozen_runs(cache):
    """(batch size mb, its point entry, cap, warm-up, plan numbers, seed,
    the run's log, its seed's no-freezing log) for every balanced frozen run
    on disk: the sweep's own start (the point's plans) and --freeze-from's
    (its starts)."""
    out = []
    for mb, e in sorted(cache.state["points"].items(), key=lambda kv: int(kv[0])):
        for cap in sorted(float(c) for c in e.get("plans", {})):
            for warmup, plan, stem, _ in batch_regime.start_rows(mb, e, cap):
                for seed in range(1, 10):
                    log = os.path.join(cache.out, "runs", f"{stem}_s{seed}.csv")
                    base = cache.none_log(mb, seed)
                    if os.path.exists(log) and os.path.exists(base):
                        out.append((mb, e, cap, warmup, plan, seed, log, base))
    return out


def short_rho(none_curve, run_curve, w, m, lag):
    """rho over the first m frozen steps from w (inf: the frozen run is then
    below every loss the no-freezing run reached; None: the run has no
    evaluation around w + m + lag). The curves are smoothed (a value at
    step t the mean of the evaluations at t, t - e and t - 2 e), so each
    speaks for step t - lag, lag = e: the frozen run is read at w + m +
    lag, and the step the no-freezing run reaches it at is taken lag
    earlier; on a straight curve the lag then cancels exactly."""
    lf = ttq.interpolated_at(run_curve, w + m + lag)
    if lf is None:
        return None
    s = batch_regime.time_at(none_curve, lf, 0)
    return math.inf if s is None else max(0.0, (s - lag - w) / m)


def predict_from(rho, beta, f, r, n, warmup, ramp):
    """(k, predicted speed-up) of a pilot that measured rho, as tfc takes
    one; k None where no k below 2 gives it."""
    w = min(warmup + ramp / 2.0, float(n))
    if rho >= tfc_plan.frozen_step_progress(beta, f, 0.0):
        k = 0.0
    else:
        speedup = n / (w + (n - w) * r / rho) if rho > 0.0 else 0.0
        k = tfc_plan.lr_ratio_from_pilot(beta, f, r, n, warmup, ramp, speedup) if speedup > 0.0 else None
        if k is None:
            return None, speedup
    return k, tfc_plan.predicted_time_to_quality(beta, f, r, n, warmup, ramp, k)


def rows_of(cache):
    """A row per frozen run of the cache: its measured speed-up, the planned
    model's without k, and per share of the frozen steps the cut pilot's
    (rho, k, prediction, error); key says which run it is across caches."""
    n, ramp = cache.c["steps"], cache.c["ramp"]
    out = []
    for mb, e, cap, warmup, plan, seed, log, base in frozen_runs(cache):
        m = batch_regime.metrics(base, log, n)
        _, nc = batch_regime.curve(base, n)
        _, rc = batch_regime.curve(log, n)
        w = min(warmup + ramp / 2.0, float(n))
        f, r, beta = plan["frozen_share"], plan["step_ratio"], e["beta"]
        p = dict(reached=m["reached"], df=m["drift_free"])
        planned = tfc_plan.predicted_time_to_quality(beta, f, r, n, warmup, ramp)
        short = []
        for _, q in SHARES:
            rho = short_rho(nc, rc, w, q * (n - w), cache.c["eval_every"]) if n > w else None
            k, v = predict_from(rho, beta, f, r, n, warmup, ramp) if rho is not None else (None, None)
            short.append((rho, k, v, None if v is None else ttq_models.point_error(p, v)))
        made = cache.state.get("made_with", {})
        model = made.get("model") or cache.c.get("model") or batch_regime.BEFORE_KEY["model"]  # older caches: the MLP
        key = (made.get("data"), model, n, ramp, mb, cap, warmup, seed)
        out.append(dict(key=key, cache=os.path.basename(os.path.normpath(cache.out)), batch=e["batch"], cap=cap,
                        warmup=warmup, seed=seed, p=p, planned=planned,
                        planned_err=ttq_models.point_error(p, planned), short=short))
    return out


def table(rows):
    head = "| sweep | batch | cap | freezing from | seed | measured | planned (error) | " + \
        " | ".join(f"{name} of the frozen steps: rho, k, predicted (error)" for name, _ in SHARES) + " |"
    lines = [head, "|" + " --- |" * (7 + len(SHARES))]
    for x in rows:
        cells = []
        for rho, k, v, err in x["short"]:
            if v is None:
                cells.append("-")
            else:
                cells.append(f"{'inf' if math.isinf(rho) else f'{rho:.2f}'}, {'none' if k is None else f'{k:.2f}'}, "
                             f"{v:.3f} ({err:.3f})")
        lines.append(f"| {x['cache']} | {x['batch']:,} | {x['cap']:g} | step {x['warmup']} | {x['seed']} | "
                     f"{'' if x['p']['reached'] else '<'}{x['p']['df']:.3f} | {x['planned']:.3f} "
                     f"({x['planned_err']:.3f}) | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(rows):
    """The last line; rows: every run's row."""
    def stats(errs):
        return (max(errs), sum(errs) / len(errs)) if errs else (math.nan, math.nan)
    e0, m0 = stats([x["planned_err"] for x in rows])
    parts = [f"ttq_short_pilot runs={len(rows)} planned_max_abs_err={e0:.4f} planned_mean_abs_err={m0:.4f}"]
    for i, (name, _) in enumerate(SHARES):
        e, m = stats([x["short"][i][3] for x in rows if x["short"][i][3] is not None])
        parts.append(f"{name}_max_abs_err={e:.4f} {name}_mean_abs_err={m:.4f}")
    return " ".join(parts)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    rows, seen = [], set()
    for out in argv:
        try:
            cache = ttq_starts.Cache(out)
        except (OSError, ValueError, KeyError) as e:
            print(f"ttq_short_pilot: {out}: not a batch-regime sweep's folder with its summary.json ({e})",
                  file=sys.stderr)
            return 2
        for x in rows_of(cache):
            if x["key"] not in seen:  # one folder copied into another (to add starts) holds the same runs
                seen.add(x["key"])
                rows.append(x)
    if not rows:
        print("ttq_short_pilot: no frozen run with its no-freezing run in these folders", file=sys.stderr)
        return 1
    print(table(rows))
    print(summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
