#!/usr/bin/env python3
"""bench/ttq_probe.py (ctest ttq_probe):

  - the line search's fit recovers k = 2 B / A exactly from losses that are
    a quadratic L0 - A c + B c^2 at the probe's lengths (k drawn, A and L0
    drawn, B set from them), 0 where the curve bends the other way and
    just below 2 where the step did not descend;
  - on the probes kept in docs/batch_regime_runs/probes/, every row is
    recomputed here: k the mean of the row's own per-probe k's from where
    freezing takes hold (the tables' warm-up + ramp / 2; the probe step s
    is the step after which it ran), the prediction written out (Adam's
    form: rho = (1 / sqrt(n) - k / 2) / (1 - k / 2), n = (1 + beta / (1 -
    f)) / (1 + beta); speed-up N / (w + (N - w) r / rho)), and the last
    line recounted from the rows;
  - that last line is the one docs/time-to-quality.md quotes.

Usage: ttq_probe_check.py SOURCE_DIR
"""
import math
import os
import random
import re
import subprocess
import sys

src = sys.argv[1]
sys.path.insert(0, os.path.join(src, "bench"))
import ttq_pilot  # noqa: E402  (the tables' reader)
import ttq_probe  # noqa: E402

bad = []
SCALES = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0]

rng = random.Random(7)
for _ in range(500):
    k, a, l0 = rng.uniform(0.02, 1.98), 10 ** rng.uniform(-5, -1), rng.uniform(0.5, 6.0)
    b = k * a / 2.0
    got = ttq_probe.k_of(SCALES, [l0 - a * c + b * c * c for c in SCALES])
    if abs(got - k) > 1e-6 * max(1.0, k):
        bad.append(f"k {k!r} (A {a!r}): fitted {got!r}")
if ttq_probe.k_of(SCALES, [2.0 - 0.01 * c - 0.001 * c * c for c in SCALES]) != 0.0:
    bad.append("a curve bending down does not give k 0")
if not 1.99 <= ttq_probe.k_of(SCALES, [2.0 + 0.01 * c + 0.001 * c * c for c in SCALES]) < 2.0:
    bad.append("a step that did not descend does not give k just below 2")


def written_out(p, n, ramp, k):
    f, beta = p["f"], p["beta"]
    if f <= 0:
        return 1.0
    nn = (1 + beta / (1 - f)) / (1 + beta)
    rho = max((1 / math.sqrt(nn) - k / 2) / (1 - k / 2), 0.0)
    if rho <= 0:
        return 0.0
    w = min(p["warmup"] + ramp / 2, n)
    return n / (w + (n - w) * p["r"] / rho)


probes_dir = os.path.join(src, "docs", "batch_regime_runs", "probes")
runs = os.path.join(src, "docs", "batch_regime_runs")
md_of = {"n40": "n40.md", "py_n40": "n40_python.md", "n40_b95": "n40_beta2.md", "n150_mb128": "n150_mb128.md",
         "n150_mb32": "n150_mb32.md", "py_n150": "n150_python.md", "quick_inc": "quick_n60_headers.md"}
pairs = [f"{os.path.join(probes_dir, d)}={os.path.join(runs, md)}" for d, md in sorted(md_of.items())]
out = subprocess.run([sys.executable, os.path.join(src, "bench", "ttq_probe.py"), "score"] + pairs,
                     capture_output=True, text=True)
lines = out.stdout.strip().split("\n")
last = lines[-1] if lines else ""
m = re.fullmatch(r"ttq_probe groups=(\d+) points=(\d+) max_abs_err=([0-9.]+) mean_abs_err=([0-9.]+) "
                 r"no_k_max_abs_err=([0-9.]+) no_k_mean_abs_err=([0-9.]+)", last)
if out.returncode != 0 or not m:
    bad.append(f"ttq_probe score: rc {out.returncode}, last line {last!r}, {out.stderr[-300:]!r}")
else:
    tables = {os.path.basename(md): ttq_pilot.read_sweep(os.path.join(runs, md)) for md in md_of.values()}
    errs, labels = [], set()
    for row in lines:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        g = re.fullmatch(r"([0-9,]+) \(N = (\d+), (\S+)\)", cells[0]) if len(cells) == 9 else None
        if not g:
            continue
        n, ramp, groups = tables[g.group(3)]
        p = next(q for q in groups[g.group(1)] if q["cap"] == float(cells[3]))
        labels.add(cells[0])
        each = [float(x) for x in cells[2].split()]
        every = max(1, n // ttq_probe.PROBES)
        w = p["warmup"] + ramp / 2
        frozen = [kk for i, kk in enumerate(each) if (i + 1) * every - 1 >= w]  # the probe after step (i+1) every - 1
        k = sum(frozen) / len(frozen)
        if abs(k - float(cells[1])) > 1.1e-3:  # the row's k from its printed per-probe k's (3 decimals each)
            bad.append(f"{cells[0]}: k {cells[1]}, the mean of its frozen probes {k:.4f}")
        v = written_out(p, n, ramp, float(cells[1]))
        if abs(v - float(cells[5])) > 2e-3:
            bad.append(f"{cells[0]} cap {cells[3]}: predicted {cells[5]}, written out {v:.4f}")
        meas = float(cells[4].lstrip("<"))
        e = abs(float(cells[5]) - meas) if not cells[4].startswith("<") else max(0.0, float(cells[5]) - meas)
        errs.append(e)
    if len(errs) != int(m.group(2)) or len(labels) != int(m.group(1)) or \
            abs(max(errs) - float(m.group(3))) > 1.5e-3 or abs(sum(errs) / len(errs) - float(m.group(4))) > 1.5e-3:
        bad.append(f"the last line {last!r} against the rows: {len(labels)} groups, {len(errs)} points, "
                   f"max {max(errs):.4f}, mean {sum(errs) / len(errs):.4f}")
    doc = open(os.path.join(src, "docs", "time-to-quality.md")).read()
    if last not in doc.replace("\n", " ").replace("`", " "):
        bad.append(f"docs/time-to-quality.md does not quote {last!r}")

# a probe file it cannot use (one scale, no META line) or a folder that is
# not there is said in one line with where, not a traceback
import tempfile  # noqa: E402
with tempfile.TemporaryDirectory() as work:
    probe = open(os.path.join(probes_dir, "n40", sorted(os.listdir(os.path.join(probes_dir, "n40")))[0])).read()
    for name, text, want in (("one", re.sub(r"scales=\S+ losses=(\S+)", "scales=1 losses=2.5", probe, count=1),
                              r":\d+: not a probe line"),
                             ("nometa", re.sub(r"(?m)^META .*\n?", "", probe), r": no META line")):
        d = os.path.join(work, name)
        os.makedirs(d)
        with open(os.path.join(d, "probe_mb512.txt"), "w") as f:
            f.write(text)
        r = subprocess.run([sys.executable, os.path.join(src, "bench", "ttq_probe.py"), "score",
                            f"{d}={os.path.join(runs, 'n40.md')}"], capture_output=True, text=True)
        if r.returncode == 0 or "Traceback" in r.stderr or not re.search(r"^ttq_probe: \S+" + want, r.stderr):
            bad.append(f"a probe file with {name}: rc {r.returncode}, {r.stderr[-300:]!r}")
    r = subprocess.run([sys.executable, os.path.join(src, "bench", "ttq_probe.py"), "score",
                        f"{os.path.join(work, 'missing')}={os.path.join(runs, 'n40.md')}"], capture_output=True,
                       text=True)
    if r.returncode == 0 or "Traceback" in r.stderr:
        bad.append(f"score with a missing folder: rc {r.returncode}, {r.stderr[-300:]!r}")

for b in bad[:20]:
    print("ttq_probe check:", b)
if bad:
    print(f"ttq_probe check: {len(bad)} problem(s)")
    sys.exit(1)
print(f"ttq_probe check: the fit recovers k on 500 quadratics; {last}")
