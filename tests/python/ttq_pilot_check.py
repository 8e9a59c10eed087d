#!/usr/bin/env python3
"""bench/ttq_pilot.py on the sweeps kept in docs/batch_regime_runs/ (ctest
ttq_pilot):

  - its last line is `ttq_pilot groups=G points=K max_abs_err=E`;
  - every predicted row is recomputed here without the closed-form
    inversion: k found by bisection on the forward model at the pilot's
    own speed-up (the pilot chosen as documented: the group's largest cap
    that reached L*), then the row's prediction and error;
  - K counts every balanced row but each group's pilot, and E is the
    largest error of those rows.

Usage: ttq_pilot_check.py SOURCE_DIR
"""
import glob
import os
import re
import subprocess
import sys

src = sys.argv[1]
sys.path.insert(0, os.path.join(src, "python"))
sys.path.insert(0, os.path.join(src, "bench"))
import tfc_plan  # noqa: E402
import ttq_pilot  # noqa: E402

bad = []


def k_by_bisection(p, n, ramp):
    """The k in [0, 2) whose forward prediction is the pilot's speed-up (the
    prediction falls as k grows), or 0 when even k = 0 predicts less."""
    def at(k):
        return tfc_plan.predicted_time_to_quality(p["beta"], p["f"], p["r"], n, p["warmup"], ramp, k)
    lo, hi = 0.0, 2.0 - 1e-12
    if at(lo) <= p["df"]:
        return 0.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if at(mid) > p["df"]:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def main():
    files = sorted(glob.glob(os.path.join(src, "docs", "batch_regime_runs", "*.md")))
    r = subprocess.run([sys.executable, os.path.join(src, "bench", "ttq_pilot.py")] + files,
                       capture_output=True, text=True)
    if r.returncode != 0:
        print(f"ttq_pilot check: bench/ttq_pilot.py exited {r.returncode}: {r.stderr[:400]}")
        return 1
    lines = r.stdout.strip().split("\n")
    m = re.fullmatch(r"ttq_pilot groups=(\d+) points=(\d+) max_abs_err=(\d+\.\d+)", lines[-1])
    if not m:
        print(f"ttq_pilot check: last line {lines[-1]!r}")
        return 1
    rows = [l for l in lines if l.startswith("| ") and not l.startswith(("| batch size", "| ---"))]
    want_rows, worst, groups = [], 0.0, 0
    for path in files:
        n, ramp, g = ttq_pilot.read_sweep(path)
        for size, pts in g.items():
            groups += 1
            usable = [p for p in pts if p["reached"] and 0 < p["f"] < 1]
            if not usable:
                continue
            pilot = max(usable, key=lambda p: (p["cap"], p["f"]))
            k = k_by_bisection(pilot, n, ramp)
            for p in pts:
                if p is pilot:
                    continue
                v = tfc_plan.predicted_time_to_quality(p["beta"], p["f"], p["r"], n, p["warmup"], ramp, k)
                e = abs(v - p["df"]) if p["reached"] else max(0.0, v - p["df"])
                worst = max(worst, e)
                want_rows.append((f"{size} (N = {n}, {os.path.basename(path)})", p["cap"], k, v, e))
    if int(m.group(1)) != groups or int(m.group(2)) != len(want_rows) or len(rows) != len(want_rows):
        bad.append(f"groups {m.group(1)}/{groups}, points {m.group(2)}/{len(want_rows)}, rows {len(rows)}")
    if abs(float(m.group(3)) - worst) > 1e-4:
        bad.append(f"max_abs_err {m.group(3)}, recomputed {worst:.4f}")
    for row, (name, cap, k, v, e) in zip(rows, want_rows):
        c = [x.strip() for x in row.strip("|").split("|")]
        if c[0] != name or float(c[3]) != cap or abs(float(c[2]) - k) > 6e-4 or abs(float(c[5]) - v) > 6e-4 \
                or abs(float(c[6]) - e) > 6e-4:
            bad.append(f"row {row!r}: recomputed k {k:.4f}, predicted {v:.4f}, error {e:.4f}")
    for b in bad[:10]:
        print("ttq_pilot check:", b)
    if bad:
        return 1
    print(f"ttq_pilot check: {len(want_rows)} predictions over {groups} batch sizes recomputed with k by "
          f"bisection; largest error {worst:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
