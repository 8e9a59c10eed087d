#!/usr/bin/env python3
"""Where in the run a frozen step falls: run shapes scored on the batch-regime
sweeps that froze one cap from several steps (bench/batch_regime.sh
--freeze-from; docs/time-to-quality.md, "Where freezing starts").

The planned model (python/tfc_plan.py predicted_time_to_quality) gives
every frozen step the same cost, wherever it falls: steps to L* are
w + (N - w) / rho. So one pilot pair measured from one start predicts any
other start, and an earlier start always moves the speed-up further from 1
on the side it is on. The candidates here weight each step's progress by
the no-freezing run's loss decrease at that step, to a power gamma:

    weight(t) = (g(t) / mean of g over the N steps) ^ gamma

g the slope of a power law L(t) = a + b (t + c)^-d fitted to the
no-freezing runs' validation losses (their seeds averaged, from step 7 on).
The run reaches L* when its weighted progress, a full step's weight up to
w and rho of it after, equals the no-freezing run's over N steps; each
step lasts 1 up to w and the plan's step ratio r after. gamma 0 is the
planned model exactly; gamma 1 says a frozen step loses its share of that
step's loss decrease and never regains it, so a step frozen where the loss
falls fast costs more.

Each group is one cap at one batch size. Its pilot is that cap from the
sweep's own start (the rule's), giving the learning-rate ratio k in Adam's
form (0 where the pilot measured more than k = 0 gives, as tfc takes it);
the other starts are predicted from it. Prints each group's table and, last,

    ttq_starts groups=G points=P planned_max_abs_err=E0 best_gamma=Y best_max_abs_err=E

over the points that are not a pilot (a run that never reached L* counts
only where the prediction exceeds its bound, as batch_regime.py scores).

Usage: ttq_starts.py CACHE_DIR... (folders bench/batch_regime.sh wrote with
--freeze-from, each with its summary.json). Standard library only."""
import json
import math
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import batch_regime  # noqa: E402
import time_to_quality as ttq  # noqa: E402
import tfc_plan  # noqa: E402
import ttq_models  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
GAMMAS = [i / 10 for i in range(21)]
DT = 0.05  # steps per integration slice


class Cache:
    """What batch_regime.Sweep.seed_runs reads, from a folder's summary.json."""

    def __init__(self, out):
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
        self.out, self.c, self.state = out, s["config"], s["state"]

    seed_runs = batch_regime.Sweep.seed_runs
    none_log = batch_regime.Sweep.none_log


def no_freezing_curve(cache, mb):
    """(step, mean validation loss over the seeds' no-freezing runs)."""
    at = {}
    for s in range(1, 10):
        path = cache.none_log(mb, s)
        if os.path.exists(path):
            for step, _, v in ttq.read_log(path)[1]:
                at.setdefault(step, []).append(v)
    return sorted((s, statistics.mean(v)) for s, v in at.items())


def fit_power(points, first=7):
    """(a, b, c, d) of L(t) = a + b (t + c)^-d, least squares on a grid of
    c and d (a and b in closed form), from step `first` on (the fine-tune's
    first evaluations recover from its learning-rate warm-up; every
    evaluation where fewer than three are that late). Under three points in
    all, a flat curve: its slope 0 weighs every step alike (gamma 0's
    shape)."""
    pts = [(s, v) for s, v in points if s >= first]
    if len(pts) < 3:
        pts = list(points)
    if len(pts) < 3:
        return (statistics.mean(v for _, v in pts) if pts else 0.0, 0.0, 1.0, 1.0), 0.0
    best = None
    for ci in range(81):
        c = 0.5 * 400 ** (ci / 80)  # 0.5 to 200 steps, geometric
        for di in range(1, 121):
            d = di / 20
            xs = [(s + c) ** -d for s, _ in pts]
            mx, my = statistics.mean(xs), statistics.mean(v for _, v in pts)
            sxx = sum((x - mx) ** 2 for x in xs)
            if sxx <= 0.0:
                continue
            b = sum((x - mx) * (v - my) for x, (_, v) in zip(xs, pts)) / sxx
            a = my - b * mx
            err = sum((a + b * x - v) ** 2 for x, (_, v) in zip(xs, pts))
            if best is None or err < best[0]:
                best = (err, a, b, c, d)
    if best is None:
        return (statistics.mean(v for _, v in pts), 0.0, 1.0, 1.0), 0.0
    return best[1:], math.sqrt(best[0] / len(pts))


def shaped_speedup(fit, gamma, beta, f, r, n, warmup, ramp, k):
    """The drift-free speed-up under run shape gamma (see the module's
    docstring); k None: each run at its own best rate. 0 where the run does
    not reach L* within 50 N steps (gamma above 0 only: gamma 0, and a
    flat curve, are the planned model's closed form)."""
    if f <= 0.0:  # nothing frozen, as the planned model says
        return 1.0
    if gamma == 0.0 or fit[1] == 0.0:  # every step weighs alike: the planned model, in closed form
        return tfc_plan.predicted_time_to_quality(beta, f, r, n, warmup, ramp, k)
    return integrated(fit, gamma, beta, f, r, n, warmup, ramp, k)


def integrated(fit, gamma, beta, f, r, n, warmup, ramp, k):
    """shaped_speedup by integration over slices of DT steps, at any gamma
    (at gamma 0 the planned model's closed form up to rounding, where the
    run reaches L* within 50 N steps: checked in main and by ctest)."""
    _, b, c, d = fit

    def g(t):
        return max(b * d * (t + c) ** (-d - 1), 0.0)

    slices = int(round(n / DT))
    gbar = sum(g((i + 0.5) * DT) for i in range(slices)) / slices

    def weight(t):
        return (g(t) / gbar) ** gamma if gbar > 0 else 1.0

    need = sum(weight((i + 0.5) * DT) for i in range(slices)) * DT
    w = min(warmup + ramp / 2.0, float(n))
    rho = tfc_plan.frozen_step_progress(beta, f, k, "adam")
    if rho <= 0.0:
        return 0.0
    held = int(round(w / DT))  # w is a multiple of half a step, so of DT
    got = time = 0.0
    for i in range(50 * slices):
        frozen = i >= held
        p = weight((i + 0.5) * DT) * DT * (rho if frozen else 1.0)
        dt_time = DT * (r if frozen else 1.0)
        if got + p >= need:
            return n / (time + dt_time * (need - got) / p)
        got, time = got + p, time + dt_time
    return 0.0


def pilot_k(fit, gamma, beta, f, r, n, warmup, ramp, measured):
    """k in [0, 2) that makes shaped_speedup give the pilot's measured
    speed-up; 0 where the pilot measured at least what k = 0 gives (the
    speed-up falls as k grows)."""
    if shaped_speedup(fit, gamma, beta, f, r, n, warmup, ramp, 0.0) <= measured:
        return 0.0
    lo, hi = 0.0, tfc_plan.LR_RATIO_MAX * (1 - 1e-9)
    for _ in range(60):
        mid = (lo + hi) / 2
        if shaped_speedup(fit, gamma, beta, f, r, n, warmup, ramp, mid) > measured:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def groups_of(cache):
    """Each (batch size, cap) that ran from several starts: its rows
    (start, plan numbers, measured mean, reached on every seed, seeds)."""
    n = cache.c["steps"]
    out = []
    for mb_s, e in sorted(cache.state.get("points", {}).items(), key=lambda kv: int(kv[0])):
        if not e.get("starts"):
            continue
        mb = int(mb_s)
        for cap in sorted({v["cap"] for v in e["starts"].values()}):
            got = []
            for w, plan, stem, _ in batch_regime.start_rows(mb, e, cap):
                seeds = cache.seed_runs(mb, stem)
                if seeds:
                    got.append(dict(start=w, plan=plan, seeds=len(seeds),
                                    measured=statistics.mean(x["drift_free"] for x in seeds),
                                    reached=all(x["reached"] for x in seeds)))
            rule = next((x for x in got if x["start"] == e["warmup"]), None)
            if len(got) > 1 and rule and rule["reached"]:
                data = cache.state.get("made_with", {}).get("data")
                where = f" on {os.path.relpath(data, ROOT)}" if data else ""
                out.append(dict(name=f"{cache.c.get('model', 'mlp_narrow')} {e['batch']:,} cap {cap}{where}", n=n,
                                ramp=cache.c["ramp"], beta=e["beta"], rule=e["warmup"], rows=got,
                                curve=no_freezing_curve(cache, mb)))
    return out


def error(pred, row):
    """The sweep's error rule (ttq_models.error) for a row predicted pred."""
    return ttq_models.error(dict(reached=row["reached"], drift_free=row["measured"]), pred)


def main(argv):
    if not argv or any(a.startswith("-") for a in argv):
        print(__doc__.split("\n\n")[0] + "\n\nUsage: ttq_starts.py CACHE_DIR...", file=sys.stderr)
        return 2
    groups, seen = [], {}
    for out in argv:  # a cache copied to run more starts lists the first's groups again: once, the fullest
        for grp in groups_of(Cache(out)):
            key = (grp["name"], grp["n"], grp["ramp"])  # the name holds the corpus
            if key not in seen:
                seen[key] = len(groups)
                groups.append(grp)
            elif len(grp["rows"]) > len(groups[seen[key]]["rows"]):
                groups[seen[key]] = grp
    if not groups:
        print("ttq_starts: no group froze one cap from several starts", file=sys.stderr)
        return 1
    worst = {gm: 0.0 for gm in GAMMAS}
    best_by_group, points = [], 0
    for grp in groups:
        fit, rmse = fit_power(grp["curve"])
        pilot = next(x for x in grp["rows"] if x["start"] == grp["rule"])
        preds, errs = {}, {}
        for x in grp["rows"]:  # gamma 0 is the planned model: checked against python/tfc_plan.py's
            plain = tfc_plan.predicted_time_to_quality(grp["beta"], x["plan"]["frozen_share"], x["plan"]["step_ratio"],
                                                       grp["n"], x["start"], grp["ramp"], 0.5)
            mine = integrated(fit, 0.0, grp["beta"], x["plan"]["frozen_share"], x["plan"]["step_ratio"], grp["n"],
                              x["start"], grp["ramp"], 0.5)
            if mine != 0.0 and abs(mine - plain) > 1e-6:  # 0: not within 50 N steps
                raise SystemExit(f"ttq_starts: gamma 0 gives {mine} for {grp['name']} from step {x['start']}, the "
                                 f"planned model {plain}")
        for gm in GAMMAS:
            p = pilot["plan"]
            k = pilot_k(fit, gm, grp["beta"], p["frozen_share"], p["step_ratio"], grp["n"], pilot["start"],
                        grp["ramp"], pilot["measured"])
            preds[gm] = [(shaped_speedup(fit, gm, grp["beta"], x["plan"]["frozen_share"], x["plan"]["step_ratio"],
                                         grp["n"], x["start"], grp["ramp"], k), k) for x in grp["rows"]]
            errs[gm] = max(error(pr, x) for (pr, _), x in zip(preds[gm], grp["rows"]) if x is not pilot)
            worst[gm] = max(worst[gm], errs[gm])
        points += len(grp["rows"]) - 1
        gbest = min(GAMMAS, key=lambda gm: (errs[gm], gm))
        best_by_group.append(gbest)
        a, b, c, d = fit
        print(f"{grp['name']} (beta {grp['beta']:.3f}, N = {grp['n']}, pilot from step {grp['rule']}): "
              f"no-freezing loss {a:.4f} + {b:.4f} (t + {c:g})^-{d:g}, rms {rmse:.4f}; "
              f"best gamma {gbest:g} ({errs[gbest]:.3f})\n")
        print("| freezing from | seeds | measured | " + " | ".join(f"gamma {gm:g} (k)" for gm in (0.0, 0.5, 1.0))
              + " |")
        print("| --- | --- | --- | --- | --- | --- |")
        for i, x in enumerate(grp["rows"]):
            cells = " | ".join(f"{preds[gm][i][0]:.3f} ({preds[gm][i][1]:.2f})" for gm in (0.0, 0.5, 1.0))
            mark = "" if x["reached"] else "<"
            print(f"| step {x['start']}{' (pilot)' if x is pilot else ''} | {x['seeds']} | {mark}{x['measured']:.3f} "
                  f"| {cells} |")
        print()
    best = min(GAMMAS, key=lambda gm: (worst[gm], gm))
    print("largest error over every group, by gamma: " + ", ".join(f"{gm:g}: {worst[gm]:.3f}" for gm in GAMMAS))
    print("each group's best gamma: " + ", ".join(f"{grp['name']} {gm:g}" for grp, gm in zip(groups, best_by_group)))
    print(f"ttq_starts groups={len(groups)} points={points} planned_max_abs_err={worst[0.0]:.4f} "
          f"best_gamma={best:g} best_max_abs_err={worst[best]:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
