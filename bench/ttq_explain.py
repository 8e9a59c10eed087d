#!/usr/bin/env python3
"""Why the time-to-quality model's error depends on the run's length:
two analyses of finished batch-regime sweeps (docs/time-to-quality.md,
"Where the run's length enters").

    /usr/bin/python3 bench/ttq_explain.py build/batch_regime_full build/batch_regime_n300 ...

1. The tail. Each frozen run is cut into what happens up to step N (the
   no-freezing run's length, where the learning-rate schedule ends) and
   after it (lr-min x peak, constant, until the run reaches L*):
     g    = (L_run(N) - L*) / (L_none(w) - L*): the share of the frozen
            steps' loss drop the run is short of at step N;
     K    = the none run's mean slope over [w, N] / its slope at the end
            (its last three evaluations): how flat the curve has become;
     tau  = the frozen run's slope after N / the none run's end slope.
   With the planned model's shape, steps to L* = N + g K (N - w) / tau.
2. A noisy quadratic model (diagonal Hessian h_i = i^-a over D
   dimensions, gradient noise with covariance proportional to H,
   B_simple / B at the start = the point's beta; SGD, the trainer's
   schedule: linear warm-up over N / 20, cosine to 0.1 x peak at N; the
   peak tuned for the none run's loss at N, as the sweep tunes it; frozen
   steps: noise / (1 - f) under the mean contract, gradient and noise
   scaled by (1 - f) under shares), scored like bench/ttq_models.py's
   candidates over a small grid of (a, D, initial error ~ i^-c).

numpy; the sweeps' folders hold summary.json and runs/ (bench/batch_regime.py)."""
import argparse
import glob
import itertools
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import batch_regime  # noqa: E402
import time_to_quality as ttq  # noqa: E402


def points(root):
    d = json.load(open(os.path.join(root, "summary.json")))
    c = d["config"]
    out = []
    for p in d["points"]:
        if p["select"] != "balanced" or not p.get("regime", True):
            continue
        e = d["state"]["points"][str(p["mb"])]
        out.append(dict(root=root, name=os.path.basename(root.rstrip("/")), mb=p["mb"], N=c["steps"], R=c["ramp"],
                        W=e["warmup"], lr=e["lr"], beta=p["beta"], contract=p["contract"], cap=p["cap"],
                        f=p["plan"]["frozen_share"], r=p["plan"]["step_ratio"], meas=p["drift_free"],
                        reached=p["reached"], batch=p["batch"], steps_to=p["steps_to"][0], sgd=p["predicted"]))
    return out


def smoothed(path):
    return {s: v for s, _, v in ttq.smooth(ttq.read_log(path)[1])}


def tail(p):
    none = smoothed(os.path.join(p["root"], "runs", batch_regime.none_key(p["mb"], p["lr"], 1) + ".csv"))
    runs = glob.glob(os.path.join(p["root"], "runs", f"mb{p['mb']}_timely_{p['cap']}_balanced*_s1.csv"))
    if not runs:
        return None
    run = smoothed(runs[0])
    keys = sorted(none)
    lstar = none[keys[-1]]
    w = p["W"] + p["R"] / 2.0
    kw = min(keys, key=lambda k: abs(k - w))
    drop = none[kw] - lstar
    end = (none[keys[-4]] - none[keys[-1]]) / (keys[-1] - keys[-4])
    n = p["N"]
    at_n = run.get(n - 1)
    if at_n is None or drop <= 0 or end <= 0:
        return None
    g = (at_n - lstar) / drop
    k = drop / (end * (n - w))
    tau = (at_n - lstar) / (p["steps_to"] - n) / end if p["reached"] and p["steps_to"] > n else float("nan")
    return g, k, tau


class NQM:
    """E[x_i^2] per dimension, stepped exactly; dimensions in log-spaced bins."""

    def __init__(self, a, d, c, bins=64, lr_min=0.1):
        edges = np.unique(np.round(np.logspace(0, math.log10(d), bins + 1)).astype(int))
        mid = np.sqrt(edges[:-1] * edges[1:])
        self.n, self.h, self.x0, self.lr_min = (edges[1:] - edges[:-1]).astype(float), mid ** -a, mid ** -c, lr_min

    def lr(self, t, n):
        wu = max(1, n // 20)
        if t < wu:
            return (t + 1) / wu
        if t >= n:
            return self.lr_min
        return self.lr_min + 0.5 * (1 + math.cos(math.pi * (t - wu) / (n - wu))) * (1 - self.lr_min)

    def losses(self, eta, beta, n, steps, share=lambda t: 0.0, contract="mean"):
        h = self.h
        noise = beta * np.sum(self.n * h * h * self.x0) / np.sum(self.n * h)
        m, out = self.x0.copy(), np.empty(steps)
        for t in range(steps):
            f, e = share(t), eta * self.lr(t, n)
            scale, q = (1.0 - f, 1.0 - f) if contract == "share" else (1.0, 1.0 / (1.0 - f))
            m = (1 - e * scale * h) ** 2 * m + e * e * h * noise * q
            out[t] = 0.5 * np.sum(self.n * h * m)
        return out

    def tuned(self, beta, n):
        lo, hi = math.log(1.99 / self.h[0]) - 12, math.log(1.99 / self.h[0])
        g = (math.sqrt(5) - 1) / 2
        loss = lambda le: self.losses(math.exp(le), beta, n, n)[-1]
        a, b = lo, hi
        c, d = b - g * (b - a), a + g * (b - a)
        fc, fd = loss(c), loss(d)
        for _ in range(30):
            if fc < fd:
                b, d, fd = d, c, fc
                c = b - g * (b - a)
                fc = loss(c)
            else:
                a, c, fc = c, d, fd
                d = a + g * (b - a)
                fd = loss(d)
        return math.exp((a + b) / 2)

    def speedup(self, p):
        n, f, r = p["N"], p["f"], p["r"]
        eta = self.tuned(p["beta"], n)
        lstar = self.losses(eta, p["beta"], n, n)[-1]
        share = lambda t: 0.0 if t < p["W"] else f * min(1.0, (t - p["W"] + 1) / p["R"])
        run = self.losses(eta, p["beta"], n, 4 * n, share, p["contract"])
        times = np.cumsum([1.0 - (1.0 - r) * share(t) / f for t in range(4 * n)])
        hit = np.nonzero(run <= lstar)[0]
        if not len(hit):
            return n / times[-1]
        k = hit[0]
        if k == 0:
            return n / times[0]
        x = (run[k - 1] - lstar) / (run[k - 1] - run[k])
        return n / (times[k - 1] + x * (times[k] - times[k - 1]))


def error(p, v):
    return abs(v - p["meas"]) if p["reached"] else max(0.0, v - p["meas"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("sweeps", nargs="+", help="folders of finished sweeps (--out of bench/batch_regime.sh)")
    args = ap.parse_args()
    pts = [p for s in args.sweeps for p in points(s)]
    print("| sweep | batch | cap | contract | beta | f | g | K | tau | steps to L* | measured | sgd |")
    print("| --- |" + " --- |" * 11)
    for p in pts:
        t = tail(p)
        g, k, tau = t if t else (float("nan"),) * 3
        st = f"{p['steps_to']:.0f}" if p["reached"] else "-"
        print(f"| {p['name']} (N = {p['N']}) | {p['batch']:,} | {p['cap']} | {p['contract']} | {p['beta']:.2f} | {p['f']:.2f} "
              f"| {g:.3f} | {k:.2f} | {tau:.2f} | {st} | {p['meas']:.3f} | {p['sgd']:.3f} |")
    print()
    best = None
    print("| a | D | c | max error | mean error |")
    print("| --- | --- | --- | --- | --- |")
    for a, d, c in itertools.product((1.0, 1.5, 2.0), (100, 10000), (-1.0, 0.0)):
        m = NQM(a, d, c)
        preds = [m.speedup(p) for p in pts]
        errs = [error(p, v) for p, v in zip(pts, preds)]
        print(f"| {a} | {d} | {c} | {max(errs):.3f} | {sum(errs) / len(errs):.3f} |", flush=True)
        if best is None or max(errs) < best[0]:
            best = (max(errs), (a, d, c), preds)
    sgd = max(error(p, p["sgd"]) for p in pts)
    print(f"\nbest noisy quadratic model a={best[1][0]} D={best[1][1]} c={best[1][2]}: max error {best[0]:.3f} "
          f"(tfc's sgd rule on the same {len(pts)} points: {sgd:.3f})")
    for p, v in zip(pts, best[2]):
        print(f"  {p['name']} {p['batch']:>7,} cap {p['cap']}: measured {p['meas']:.3f}, model {v:.3f}, sgd {p['sgd']:.3f}")


if __name__ == "__main__":
    main()
