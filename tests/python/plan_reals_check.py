#!/usr/bin/env python3
"""Every real a plan prints is the value the code used (ctest plan_reals;
docs/codegen.md, "Reals"). For every spec in specs/ and 100 varied random
specs (tests/support/random_specs.py), under the timely and uniform
policies, from plan.json and the generated C alone, recomputed here:

  - every freeze ratio is on the masks' grid: ratio * 2^32 is an integer,
    within [0, min(1, freeze.max_action_ratio)];
  - each stage's printed ratios sum to at most max_ratio times its
    freezable actions, in exact arithmetic (the mean is within the cap, no
    rounding forgiven); mean_freeze_ratio is that sum over the count,
    rounded once;
  - each action's duration_ms is baseline_duration_ms - ratio *
    (baseline_duration_ms - w_min) in binary64, with w_min from the spec's
    timings (docs/spec.md), so the printed durations come from the printed
    ratios; makespan_ms is the latest start_ms + duration_ms;
  - the generated C's ratio table holds the plan.json ratios (the same
    text), and its fixed-point table q is each ratio * 2^32 exactly.

Usage: plan_reals_check.py TFC SOURCE_DIR
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
from fractions import Fraction

import yaml

tfc, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "tests", "support"))
from random_specs import varied_specs  # noqa: E402

W_FLOOR_SHARE = 0.05  # docs/spec.md: backward_weight_frozen_ms defaults to 5% of backward_weight_ms
bad = []


def per_stage(timing, key, n):
    v = timing.get(key)
    if v is None:
        return None
    return [float(x) for x in v] if isinstance(v, list) else [float(v)] * n


def w_min(spec, n_stages, stage, kind):
    """The duration of a freezable action with everything frozen, as plan.c's action_bounds has it."""
    t = spec["timing"]
    bf = per_stage(t, "backward_frozen_ms", n_stages)
    bi = per_stage(t, "backward_input_ms", n_stages)
    bw = per_stage(t, "backward_weight_ms", n_stages)
    bwf = per_stage(t, "backward_weight_frozen_ms", n_stages)
    w_frozen = bwf[stage] if bwf else (W_FLOOR_SHARE * bw[stage] if bw else None)
    if kind == "B":
        return bf[stage] if bf else bi[stage] + w_frozen
    return w_frozen


def check(spec_path, folder, policy):
    where = f"{os.path.basename(spec_path)} ({policy})"
    spec = yaml.safe_load(open(spec_path))
    plan = json.load(open(os.path.join(folder, "plan.json")))
    n = plan["stage_count"]
    fz = spec.get("freeze", {})
    cap = float(fz.get("max_ratio", 0.9))
    action_cap = float(fz.get("max_action_ratio", 1))
    units = [0] * n
    count = [0] * n
    end = 0.0
    for a in plan["actions"]:
        r = a["freeze_ratio"]
        q = Fraction(r) * 2 ** 32
        if q.denominator != 1 or not 0 <= r <= min(1.0, action_cap):
            bad.append(f"{where}: {a['stage']}{a['type']}{a['microbatch']}: ratio {r!r} is off the grid or its caps")
            continue
        freezable = a["type"] in ("B", "W")
        if freezable:
            units[a["stage"]] += int(q)
            count[a["stage"]] += 1
            base = a["baseline_duration_ms"]
            want = base - r * (base - w_min(spec, n, a["stage"], a["type"]))
        else:
            want = a["baseline_duration_ms"]
            if r != 0:
                bad.append(f"{where}: {a['stage']}{a['type']}{a['microbatch']} cannot freeze but has ratio {r!r}")
        if a["duration_ms"] != want:
            bad.append(f"{where}: {a['stage']}{a['type']}{a['microbatch']}: duration_ms {a['duration_ms']!r}, "
                       f"but its ratio {r!r} gives {want!r}")
        end = max(end, a["start_ms"] + a["duration_ms"])
    if plan["makespan_ms"] != end:
        bad.append(f"{where}: makespan_ms {plan['makespan_ms']!r}, the latest end {end!r}")
    for st in plan["stages"]:
        s = st["stage"]
        if units[s] > Fraction(cap) * count[s] * 2 ** 32:  # exact: the mean of the printed ratios <= the cap
            bad.append(f"{where}: stage {s}: {units[s]} grid units over {count[s]} actions: a mean above the cap "
                       f"{cap!r}")
        mean = float(Fraction(units[s], 2 ** 32) / count[s]) if count[s] else 0.0
        if st["mean_freeze_ratio"] != mean:
            bad.append(f"{where}: stage {s}: mean_freeze_ratio {st['mean_freeze_ratio']!r}, its ratios give {mean!r}")
    # The generated tables: the public NAME.c's [stage][microbatch] ratio and q tables.
    name = plan["name"]
    c = open(os.path.join(folder, f"{name}.c")).read()
    tables = {}
    for key in ("ratio", "q"):
        m = re.search(r"\b%s_%s\[[A-Z0-9_]+\]\[[A-Z0-9_]+\] = \{(.*?)\n\};" % (re.escape(name), key), c, re.S)
        body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S) if m else ""
        tables[key] = [t for t in re.split(r"[\s,{}]+", body) if t]
    mb = plan["microbatches"]
    if len(tables["ratio"]) != n * mb or len(tables["q"]) != n * mb:
        bad.append(f"{where}: the C ratio and q tables hold {len(tables['ratio'])} and {len(tables['q'])} values, "
                   f"want {n * mb}")
        return
    freezable = {(a["stage"], a["microbatch"]): a["freeze_ratio"] for a in plan["actions"] if a["type"] in ("B", "W")}
    for k, (rt, qt) in enumerate(zip(tables["ratio"], tables["q"])):
        s, m = divmod(k, mb)
        q = int(qt.rstrip("ul"))
        if Fraction(float(rt)) * 2 ** 32 != q:
            bad.append(f"{where}: stage {s} microbatch {m}: C ratio {rt} is not q {q} / 2^32")
        if (s, m) in freezable and float(rt) != freezable[(s, m)]:
            bad.append(f"{where}: stage {s} microbatch {m}: C ratio {rt}, plan.json {freezable[(s, m)]!r}")


def main():
    specs = sorted(glob.glob(os.path.join(src, "specs", "*.yaml")))
    with tempfile.TemporaryDirectory() as work:
        os.makedirs(os.path.join(work, "random"))
        specs += varied_specs(100, os.path.join(work, "random"))
        checked = 0
        for spec in specs:
            for policy in ("timely", "uniform"):
                out = os.path.join(work, "out", f"{os.path.basename(spec)}_{policy}")
                r = subprocess.run([tfc, "compile", spec, "-o", out, "--skip-cuda-check", "-q", "--policy", policy],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    bad.append(f"{os.path.basename(spec)} ({policy}): tfc compile exited {r.returncode}: {r.stderr[:200]}")
                    continue
                check(spec, out, policy)
                checked += 1
    for b in bad[:30]:
        print("plan reals:", b)
    if bad:
        print(f"plan reals: {len(bad)} problem(s)")
        return 1
    print(f"plan reals: {checked} plans ({len(specs)} specs, timely and uniform): every ratio on the 2^-32 grid, every "
          "stage within its cap exactly, every duration and makespan from the printed ratios, C tables equal")
    return 0


if __name__ == "__main__":
    sys.exit(main())
