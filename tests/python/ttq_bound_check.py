#!/usr/bin/env python3
"""bench/ttq_bound.py on the sweeps kept in docs/batch_regime_runs/ (ctest
ttq_bound):

  - its last line is `ttq_bound points=K above=A max_excess=E cannot_pay=C
    of_them_paid=P`;
  - every row's bound is recomputed here from the written-out k = 0 form,
    not python/tfc_plan.py: a frozen step progresses 1 / sqrt(n) of a full
    one with Adam (n = (1 + beta / (1 - f)) / (1 + beta), beta the smaller
    of the table's at the start and where freezing starts), all of it with
    SGD, and the run of N steps freezing from w = min(warm-up + ramp / 2,
    N) takes w + (N - w) r / rho of the no-freezing run's steps;
  - K, A, E, C and P recounted from those rows;
  - for both of training.optimizer's forms (adam, the default, and
    --optimizer sgd, whose bound is the shorter step alone, so never at
    or below 1 with a shorter step).

Usage: ttq_bound_check.py SOURCE_DIR
"""
import glob
import math
import os
import re
import subprocess
import sys

src = sys.argv[1]
sys.path.insert(0, os.path.join(src, "bench"))
import ttq_pilot  # noqa: E402  (the tables' reader)

bad = []


def bound(p, n, ramp, opt):
    f = p["f"]
    if f <= 0:
        return 1.0
    beta = p["beta"]
    if p["beta_w"] == p["beta_w"] and p["beta_w"] < beta:  # measured where freezing starts, and smaller
        beta = p["beta_w"]
    g = (1 + beta / (1 - f)) / (1 + beta)
    rho = 1.0 if opt == "sgd" else 1 / math.sqrt(g)
    w = min(p["warmup"] + ramp / 2, n)
    return n / (w + (n - w) * p["r"] / rho)


def check(files, opt):
    r = subprocess.run([sys.executable, os.path.join(src, "bench", "ttq_bound.py"), "--optimizer", opt] + files,
                       capture_output=True, text=True)
    if r.returncode != 0:
        bad.append(f"{opt}: bench/ttq_bound.py exited {r.returncode}: {r.stderr[:400]}")
        return None
    lines = r.stdout.strip().split("\n")
    m = re.fullmatch(r"ttq_bound points=(\d+) above=(\d+) max_excess=(\d+\.\d+) cannot_pay=(\d+) of_them_paid=(\d+)",
                     lines[-1])
    if not m:
        bad.append(f"{opt}: last line {lines[-1]!r}")
        return None
    rows = [l for l in lines if l.startswith("| ") and not l.startswith(("| batch size", "| ---"))]
    want, above, worst, cannot, paid = [], 0, 0.0, 0, 0
    for path in files:
        n, ramp, groups = ttq_pilot.read_sweep(path)
        for size, pts in groups.items():
            for p in pts:
                b = bound(p, n, ramp, opt)
                if p["df"] - b > 0.0005:
                    above += 1
                    worst = max(worst, p["df"] - b)
                if b <= 1:
                    cannot += 1
                    paid += p["reached"] and p["df"] > 1
                want.append((f"{size} (N = {n}, {os.path.basename(path)})", p["cap"], b))
    got = tuple(int(m.group(i)) for i in (1, 2, 4, 5))
    if got != (len(want), above, cannot, paid) or len(rows) != len(want):
        bad.append(f"{opt}: points/above/cannot_pay/paid {got}, recounted {(len(want), above, cannot, paid)}; "
                   f"{len(rows)} rows")
    if abs(float(m.group(3)) - worst) > 1e-4:
        bad.append(f"{opt}: max_excess {m.group(3)}, recomputed {worst:.4f}")
    for row, (name, cap, b) in zip(rows, want):
        c = [x.strip() for x in row.strip("|").split("|")]
        if c[0] != name or float(c[1]) != cap or abs(float(c[6]) - b) > 6e-4:
            bad.append(f"{opt}: row {row!r}: recomputed bound {b:.4f}")
    return len(want), above, worst, cannot, paid


def main():
    files = sorted(glob.glob(os.path.join(src, "docs", "batch_regime_runs", "*.md")))
    got = {opt: check(files, opt) for opt in ("adam", "sgd")}
    if got["sgd"] and got["sgd"][3] != 0:
        bad.append("sgd: a bound at or below 1, but the shorter step alone always pays")
    for b in bad[:10]:
        print("ttq_bound check:", b)
    if bad:
        return 1
    for opt, (k, above, worst, cannot, paid) in got.items():
        print(f"ttq_bound check ({opt}): {k} bounds recomputed from the written-out k = 0 form; {above} measured "
              f"above by at most {worst:.4f}; {cannot} at or below 1, {paid} of them measured above 1")
    return 0


if __name__ == "__main__":
    sys.exit(main())
