#!/usr/bin/env python3
"""The planned model with a pilot pair (the spec's training.pilot), scored
on batch-regime sweeps already run: reads the tables bench/batch_regime.py
wrote (results.md, as kept in docs/batch_regime_runs/), takes each batch
size's largest cap that reached L* as its pilot, derives the learning-rate
ratio k from it (python/tfc_plan.py, lr_ratio_from_pilot) and predicts the
batch size's other caps (predicted_time_to_quality with k). Prints a table
and, last,

  ttq_pilot groups=G points=K max_abs_err=E

E by the sweep's error rule over the K predicted points (the pilots
excluded). The tables give 3 decimals; standard library only.

Usage: bench/ttq_pilot.py [--optimizer adam|sgd] RESULTS.md...
(--optimizer: the model's form, training.optimizer; adam, the trainer's,
by default)"""
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
import ttq_models  # noqa: E402


def tables(text):
    """The markdown tables of text, each a list of rows of cells (header first)."""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith("|") and not line.startswith("| ---"):
            if cur is None:
                cur = []
                out.append(cur)
            cur.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif not line.startswith("| ---"):
            cur = None
    return out


def read_sweep(path):
    """(N, ramp, {batch size: [point]}) from one results.md."""
    text = open(path).read()
    m = re.search(r"N = (\d+) steps, ramp (\d+)", text)
    if not m:
        raise SystemExit(f"ttq_pilot: {path}: no 'N = .. steps, ramp ..' line")
    n, ramp = int(m.group(1)), int(m.group(2))
    tabs = tables(text)
    sizes = next((t for t in tabs if t[0][0].startswith("batch") and "freezing from" in t[0]), None)
    runs = next((t for t in tabs if t[0][0].startswith("batch") and "drift-free speedup" in t[0]), None)
    if not sizes or not runs:
        raise SystemExit(f"ttq_pilot: {path}: not a batch-regime results table")
    col = {h: i for i, h in enumerate(runs[0])}
    warm = {r[0]: int(re.search(r"\d+", r[sizes[0].index("freezing from")]).group()) for r in sizes[1:]}
    groups = {}
    for r in runs[1:]:
        if r[col["select"]] != "balanced":
            continue
        df = r[col["drift-free speedup"]].split()[0]
        bw = float(r[col["beta where freezing starts"]]) if "beta where freezing starts" in col else math.nan
        groups.setdefault(r[0], []).append(dict(
            cap=float(r[col["cap"]]), beta=float(r[col["beta at the start"]]), f=float(r[col["frozen share"]]),
            r=float(r[col["step ratio (plan)"]]), warmup=warm[r[0]], df=float(df.lstrip("<")),
            reached=not df.startswith("<"), beta_w=bw if bw > 0 else math.nan))  # nan: not measured, or negative
    return n, ramp, groups


def cli_args(argv, doc):
    """[--optimizer adam|sgd] RESULTS.md...: (optimizer, paths), or (None,
    exit status) once doc is printed (asked for, or the arguments wrong)."""
    args, optimizer = argv, "adam"
    if args[:1] == ["--optimizer"] and len(args) > 1:
        optimizer, args = args[1], args[2:]
    if not args or args[0] in ("-h", "--help") or optimizer not in ("adam", "sgd"):
        print(doc)
        return None, 0 if args[:1] in (["-h"], ["--help"]) else 2
    return optimizer, args


def main():
    optimizer, args = cli_args(sys.argv[1:], __doc__)
    if optimizer is None:
        return args
    groups, n_of, ramp_of = {}, {}, {}
    for path in args:
        n, ramp, g = read_sweep(path)
        for size, pts in g.items():
            name = f"{size} (N = {n}, {os.path.basename(path)})"
            groups[name], n_of[name], ramp_of[name] = pts, n, ramp
    text, worst, k = ttq_models.pilot_table(groups, n_of.get, ramp_of.get, optimizer)
    print(text)
    print(f"ttq_pilot groups={len(groups)} points={k} max_abs_err={worst:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
