#!/usr/bin/env python3
"""bench/ttq_choice.py on the sweeps kept in docs/batch_regime_runs/ (ctest
ttq_choice):

  - every row's choices are recomputed here another way: the prediction
    without a pilot from the model's closed form written out (rho = (1 +
    beta) / (1 + beta / (1 - f)), speed-up N / (w + (N - w) r / rho)), with
    a pilot from k found by bisection on the forward model at the pilot's
    speed-up; each choice checked by comparing it with every other
    candidate in turn (none predicted higher; cap 0 predicted 1);
  - the best measured is the largest of 1 and the speed-ups that reached
    L*, a regret is that less the chosen speed-up, a loss 1 less it (0 at
    least), and the last line's figures are the rows' largest and means;
  - properties that hold whatever the data: no regret below 0, no loss
    above its regret (cap 0 is always a choice), a pilot's own prediction
    at its own speed-up where k > 0;
  - both of training.optimizer's forms; docs/time-to-quality.md quotes the
    default's last line;
  - a missing file, a table that is not a sweep's and an unknown option are
    one line each, under the tool's own name.

Usage: ttq_choice_check.py SOURCE_DIR
"""
import glob
import os
import re
import subprocess
import sys

src = sys.argv[1]
sys.path.insert(0, os.path.join(src, "python"))
sys.path.insert(0, os.path.join(src, "bench"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tfc_plan  # noqa: E402
import ttq_pilot  # noqa: E402
from ttq_pilot_check import k_by_bisection  # noqa: E402  (the pilot check's: k in [0, 2) by bisection)

bad = []
TOL = 6e-4  # the table's 3 decimals


def closed_form(p, n, ramp):
    """The prediction without a pilot (lr_ratio unknown), written out."""
    if p["f"] <= 0:
        return 1.0
    b, f = p["beta"], p["f"]
    rho = (1 + b) / (1 + b / (1 - f))
    w = min(p["warmup"] + ramp / 2, n)
    return n / (w + (n - w) * p["r"] / rho)


def pick(cands):
    """cands: [(cap, predicted, point or None for cap 0)]; the one no other
    beats, compared pairwise (a higher prediction, or an equal one at a
    smaller cap)."""
    for c in cands:
        if not any(o[1] > c[1] or (o[1] == c[1] and o[0] < c[0]) for o in cands if o is not c):
            return c
    raise AssertionError("no candidate is unbeaten")


def expected(files, opt):
    """[(row name, best, {policy: (cap, speed-up, reached, regret, loss)})]."""
    out = []
    for path in files:
        n, ramp, g = ttq_pilot.read_sweep(path)
        for size, pts in g.items():
            name = f"{size} (N = {n}, {os.path.basename(path)})"
            best = max([1.0] + [p["df"] for p in pts if p["reached"]])

            def cost(c):
                df, reached = (1.0, True) if c[2] is None else (c[2]["df"], c[2]["reached"])
                return (c[0], df, reached, max(0.0, best - df), max(0.0, 1.0 - df))

            zero = (0.0, 1.0, None)
            got = {"model": cost(pick([zero] + [(p["cap"], closed_form(p, n, ramp), p) for p in pts])),
                   "never": cost(zero)}
            shortest = min(p["r"] for p in pts)
            got["step"] = cost(min(((p["cap"], 0.0, p) for p in pts if p["r"] == shortest), key=lambda c: -c[0]))
            usable = [p for p in pts if p["reached"] and 0 < p["f"] < 1]
            if usable and len(pts) > 1:
                pilot = max(usable, key=lambda p: (p["cap"], p["f"]))
                k = k_by_bisection(pilot, n, ramp, opt)
                pred = {id(p): tfc_plan.predicted_time_to_quality(p["beta"], p["f"], p["r"], n, p["warmup"], ramp,
                                                                  k, opt) for p in pts}
                if k > 0 and abs(pred[id(pilot)] - pilot["df"]) > 1e-6:
                    bad.append(f"{opt} {name}: the pilot's own prediction {pred[id(pilot)]:.6f} at k {k:.6f}, "
                               f"not its speed-up {pilot['df']}")
                got["pilot"] = cost(pick([zero] + [(p["cap"], pred[id(p)], p) for p in pts]))
            out.append((name, best, got))
    return out


CELL = re.compile(r"([0-9.]+): (<?)([0-9.]+) \((>?)([0-9.]+)\)")


def check(files, opt):
    r = subprocess.run([sys.executable, os.path.join(src, "bench", "ttq_choice.py"), "--optimizer", opt] + files,
                       capture_output=True, text=True)
    lines = r.stdout.strip().split("\n")
    m = re.fullmatch(r"ttq_choice groups=(\d+) max_regret=([0-9.]+) mean_regret=([0-9.]+) max_loss=([0-9.]+) "
                     r"pilot_groups=(\d+) pilot_max_regret=([0-9.]+) pilot_mean_regret=([0-9.]+) "
                     r"pilot_max_loss=([0-9.]+) step_max_regret=([0-9.]+) step_mean_regret=([0-9.]+) "
                     r"step_max_loss=([0-9.]+) never_max_regret=([0-9.]+) never_mean_regret=([0-9.]+)",
                     lines[-1]) if r.returncode == 0 else None
    if not m:
        bad.append(f"{opt}: rc {r.returncode}, last line {lines[-1]!r}, {r.stderr[-300:]!r}")
        return None
    want = expected(files, opt)
    rows = [[c.strip() for c in l.strip("|").split("|")] for l in lines if l.startswith("| ") and ".md" in l]
    if len(rows) != len(want):
        bad.append(f"{opt}: {len(rows)} rows for {len(want)} batch sizes")
    for row, (name, best, got) in zip(rows, want):
        cells = {"model": row[2], "pilot": row[4], "step": row[5], "never": row[6]}
        if row[0] != name or abs(float(row[1].split()[0]) - best) > TOL:
            bad.append(f"{opt}: row {row[0]!r} best {row[1]}; recomputed {name!r} {best:.3f}")
        for policy, text in cells.items():
            if policy not in got:
                if text != "-":
                    bad.append(f"{opt} {name}: {policy} {text!r} where no pilot could say")
                continue
            cap, df, reached, regret, loss = got[policy]
            c = CELL.fullmatch(text)
            if not c or float(c.group(1)) != cap or abs(float(c.group(3)) - df) > TOL or \
                    abs(float(c.group(5)) - regret) > TOL or (c.group(2) == "") != reached or \
                    (c.group(4) == "") != reached:
                bad.append(f"{opt} {name}: {policy} {text!r}; recomputed cap {cap}, {df:.3f}, regret {regret:.3f}")
            if regret < 0 or loss > regret + 1e-12:
                bad.append(f"{opt} {name}: {policy} regret {regret} and loss {loss}")
    figures = [float(x) for x in m.groups()]
    for i, policy in ((1, "model"), (5, "pilot"), (8, "step"), (11, "never")):
        v = [got[policy] for _, _, got in want if policy in got]
        mean = sum(x[3] for x in v) / len(v)
        exp = [max(x[3] for x in v), mean] + ([max(x[4] for x in v)] if policy != "never" else [])
        if any(abs(figures[i + j] - e) > 1e-4 for j, e in enumerate(exp)):
            bad.append(f"{opt}: {policy} figures {figures[i:i + len(exp)]}, recomputed {exp}")
    if int(m.group(1)) != len(want) or int(m.group(5)) != sum("pilot" in got for _, _, got in want):
        bad.append(f"{opt}: groups {m.group(1)}, pilot groups {m.group(5)}")
    return lines[-1], len(want)


def check_inputs(files):
    """A missing file, a table that is not a sweep's and an unknown option
    are said in one line that starts with the tool's name (no traceback)."""
    tool = os.path.join(src, "bench", "ttq_choice.py")
    for args in (("/nonexistent/results.md",), (os.path.join(src, "README.md"),), (files[0], "--bogus")):
        r = subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)
        if r.returncode == 0 or "Traceback" in r.stderr or not r.stderr.startswith("ttq_choice: ") or \
                len(r.stderr.strip().split("\n")) != 1:
            bad.append(f"ttq_choice.py {' '.join(args)}: rc {r.returncode}, {r.stderr[-300:]!r}")


def main():
    files = sorted(glob.glob(os.path.join(src, "docs", "batch_regime_runs", "*.md")))
    check_inputs(files)
    got = {opt: check(files, opt) for opt in ("adam", "sgd")}
    doc = re.sub(r"\s+", " ", open(os.path.join(src, "docs", "time-to-quality.md")).read().replace("`", ""))
    if got["adam"] and got["adam"][0] not in doc:
        bad.append(f"docs/time-to-quality.md does not quote {got['adam'][0]!r}")
    for b in bad[:10]:
        print("ttq_choice check:", b)
    if bad:
        return 1
    print(f"ttq_choice check: {got['adam'][1]} batch sizes' choices recomputed (closed form, k by bisection, "
          f"pairwise), both forms; {got['adam'][0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
