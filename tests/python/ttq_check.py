#!/usr/bin/env python3
"""Time to quality in the plan (ctest ttq_model; docs/time-to-quality.md,
docs/plan-json.md):

  - parity: for every spec in specs/ and 60 varied random specs, each given
    a training section (random batch, noise scale and steps), plan.json's
    time_to_quality recomputed here from the plan's own fields: the frozen
    element share (each stage's mean ratio weighted by its elements), the
    step ratio, and python/tfc_plan.py's predicted_time_to_quality and
    break_even_beta, bit for bit;
  - the model's own consistency: at the break-even beta the predicted
    speed-up is 1; it falls as beta grows; nothing frozen predicts 1;
  - freeze.max_ratio: auto against an oracle written here: the spec planned
    at each cap 0, 0.1, ..., 1 on its own, the best predicted speed-up
    taken (the lowest cap among equals, 0 unless it beats 1); auto's plan is
    that cap's plan, action for action; at beta 10 no cap pays (cap 0, the
    optimised makespan the baseline, a reason naming the break-even);
  - without training, plan.json has no time_to_quality and tfc plan says it
    cannot predict one.

Usage: ttq_check.py TFC SOURCE_DIR
"""
import glob
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

tfc, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "python"))
sys.path.insert(0, os.path.join(src, "tests", "support"))
import tfc_plan  # noqa: E402
from random_specs import varied_specs  # noqa: E402

bad = []


def plan_json(spec):
    r = subprocess.run([tfc, "plan", spec, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"ttq check: tfc plan {spec} exited {r.returncode}: {r.stderr[:300]}")
    return json.loads(r.stdout)


def with_training(text, batch, noise, steps, cap=None, warmup=None, ramp=None):
    """The spec with a training section (and, given, a freeze mapping of its own)."""
    lines = text.rstrip("\n").split("\n")
    if cap is not None:
        # drop the spec's freeze mapping (flow or block) and write one
        out, skip = [], False
        for l in lines:
            if re.match(r"freeze:", l):
                skip = not l.rstrip().endswith("}") and "{" not in l
                continue
            if skip and (l.startswith(" ") or not l.strip()):
                continue
            skip = False
            out.append(l)
        lines = out + [f"freeze: {{max_ratio: {cap}, warmup_steps: {warmup}, ramp_steps: {ramp}}}"]
    lines.append(f"training: {{batch_tokens: {batch}, noise_scale_tokens: {noise}, steps: {steps}}}")
    return "\n".join(lines) + "\n"


def recompute(plan, spec_yaml_text, where):
    t = plan.get("time_to_quality")
    if t is None:
        bad.append(f"{where}: no time_to_quality in plan.json")
        return None
    numel = [sum(p["numel"] for p in st) for st in plan["stage_params"]]
    total, frozen = 0.0, 0.0
    for st in plan["stages"]:
        total += float(numel[st["stage"]])
        frozen += float(numel[st["stage"]]) * st["mean_freeze_ratio"]
    f = frozen / total if total > 0 else 0.0
    r = plan["makespan_ms"] / plan["baseline_makespan_ms"] if plan["baseline_makespan_ms"] > 0 else 1.0
    beta = t["noise_scale_tokens"] / t["batch_tokens"]
    fz = plan["freeze"]
    want = tfc_plan.predicted_time_to_quality(beta=beta, frozen_share=f, step_ratio=r, steps=t["steps"],
                                              warmup=fz["warmup_steps"], ramp=fz["ramp_steps"])
    be = tfc_plan.break_even_beta(f, r) if f > 0 else None
    checks = [("beta", t["beta"], beta), ("frozen_share", t["frozen_share"], f), ("step_ratio", t["step_ratio"], r),
              ("predicted_speedup", t["predicted_speedup"], want),
              ("break_even_beta", t["break_even_beta"], be if be is not None and math.isfinite(be) else None),
              ("cap", t["cap"], plan["max_ratio"]),
              ("optimizer_contract", t["optimizer_contract"], tfc_plan.optimizer_contract(beta))]
    for key, got, exp in checks:
        if got != exp:
            bad.append(f"{where}: time_to_quality.{key} {got!r}, recomputed {exp!r}")
    return t


def main():
    rng = random.Random(20261203)
    with tempfile.TemporaryDirectory() as work:
        # 1. parity
        specs = sorted(glob.glob(os.path.join(src, "specs", "*.yaml")))
        os.makedirs(os.path.join(work, "random"))
        specs += varied_specs(60, os.path.join(work, "random"))
        n = 0
        for spec in specs:
            text = open(spec).read()
            batch = rng.choice([512, 4096, 65536, 1 << 20])
            noise = round(batch * 10 ** rng.uniform(-2.5, 1.5), 3)
            path = os.path.join(os.path.dirname(spec) if "random" in spec else work, "ttq_" + os.path.basename(spec))
            if "order:" in text and "random" not in spec:  # a custom order next to the spec
                path = os.path.join(os.path.dirname(spec), ".ttq_" + os.path.basename(spec))
            with open(path, "w") as fh:
                fh.write(with_training(text, batch, noise, rng.choice([100, 1000, 50000])))
            try:
                recompute(plan_json(path), text, os.path.basename(spec))
                n += 1
            finally:
                if os.path.basename(path).startswith(".ttq_"):
                    os.remove(path)
        print(f"ttq check: {n} plans' time_to_quality recomputed from their own fields, bit for bit")

        # 2. the model's consistency
        for f, r in ((0.3, 0.9), (0.69, 0.79), (0.5, 0.6), (0.1, 0.99)):
            be = tfc_plan.break_even_beta(f, r)
            at = tfc_plan.predicted_time_to_quality(beta=be, frozen_share=f, step_ratio=r, steps=1000, warmup=0, ramp=0)
            if abs(at - 1) > 1e-12:
                bad.append(f"at the break-even beta {be} (f {f}, r {r}) the prediction is {at}, not 1")
            s = [tfc_plan.predicted_time_to_quality(beta=b, frozen_share=f, step_ratio=r, steps=1000, warmup=400,
                                                    ramp=100) for b in (0.001, 0.1, 1, 10)]
            if not all(a > b for a, b in zip(s, s[1:])):
                bad.append(f"the prediction does not fall as beta grows: {s}")
        if tfc_plan.predicted_time_to_quality(beta=0.01, frozen_share=0, step_ratio=0.5, steps=10, warmup=0,
                                              ramp=0) != 1.0:
            bad.append("nothing frozen does not predict 1")

        # 3. auto against its oracle
        base = open(os.path.join(src, "specs", "llama8b_1f1b.yaml")).read()
        for noise, batch in ((20000, 1 << 20), (300000, 1 << 20), (10 << 20, 1 << 20)):
            per_cap = {}
            for i in range(11):
                cap = i / 10
                p = os.path.join(work, f"cap{i}.yaml")
                with open(p, "w") as fh:
                    fh.write(with_training(base, batch, noise, 10000, cap, 5000, 1000))
                per_cap[cap] = plan_json(p)
            best = 0.0
            for cap in sorted(per_cap):
                if per_cap[cap]["time_to_quality"]["predicted_speedup"] > \
                        per_cap[best]["time_to_quality"]["predicted_speedup"]:
                    best = cap
            if not per_cap[best]["time_to_quality"]["predicted_speedup"] > 1:
                best = 0.0
            p = os.path.join(work, "auto.yaml")
            with open(p, "w") as fh:
                fh.write(with_training(base, batch, noise, 10000, "auto", 5000, 1000))
            got = plan_json(p)
            t = recompute(got, base, f"auto at beta {noise / batch:.3g}")
            want = per_cap[best]
            if got["max_ratio"] != best or not t or not t["auto"]:
                bad.append(f"auto at beta {noise / batch:.3g}: chose {got['max_ratio']}, the oracle {best}")
            elif [a["freeze_ratio"] for a in got["actions"]] != [a["freeze_ratio"] for a in want["actions"]] or \
                    got["makespan_ms"] != want["makespan_ms"]:
                bad.append(f"auto at beta {noise / batch:.3g}: its plan is not cap {best}'s")
            print(f"ttq check: auto at beta {noise / batch:.3g} chose cap {got['max_ratio']} "
                  f"(predicted {t['predicted_speedup']:.4f}): {t['reason']}")
            if noise / batch > 5:
                if best != 0.0 or got["makespan_ms"] != got["baseline_makespan_ms"] or \
                        not re.search(r"does not pay at beta .*: break-even [0-9.]+ at cap", t["reason"]):
                    bad.append(f"at beta {noise / batch:.3g} auto should freeze nothing and say why: {t['reason']}")
            text = subprocess.run([tfc, "plan", p], capture_output=True, text=True).stdout
            if f"freeze.max_ratio: auto chose {got['max_ratio']:g}" not in text:
                bad.append(f"tfc plan does not say what auto chose: {text[:400]}")

        # 3b. --sweep and --compare with training: each cap's predicted time
        # to quality is that cap's own plan's, the best is marked.
        p = os.path.join(work, "sweep.yaml")
        with open(p, "w") as fh:
            fh.write(with_training(base, 1 << 20, 200000, 10000, 0.9, 5000, 1000))
        sweep = os.path.join(work, "sweep")
        subprocess.run([tfc, "plan", p, "--sweep", sweep], check=True, capture_output=True)
        import csv
        rows = [r for r in csv.DictReader(open(os.path.join(sweep, "pareto.csv"))) if r["policy"] == "timely"]
        best = None
        for r in rows:
            q = os.path.join(work, "swcap.yaml")
            with open(q, "w") as fh:
                fh.write(with_training(base, 1 << 20, 200000, 10000, r["max_ratio"], 5000, 1000))
            want = plan_json(q)["time_to_quality"]["predicted_speedup"]
            if float(r["predicted_time_to_quality"]) != want:
                bad.append(f"--sweep at cap {r['max_ratio']}: {r['predicted_time_to_quality']}, the plan's {want!r}")
            if best is None or want > best[1]:
                best = (r["max_ratio"], want)
        svg_text = open(os.path.join(sweep, "pareto.svg")).read()
        if f"cap {best[0]}, {best[1]:.3f}x" not in svg_text or 'class="best-ttq"' not in svg_text:
            bad.append(f"pareto.svg does not mark cap {best[0]} ({best[1]:.3f}x) as the best time to quality")
        cmp_dir = os.path.join(work, "compare")
        subprocess.run([tfc, "plan", p, "--compare", cmp_dir], check=True, capture_output=True)
        own = [r for r in csv.DictReader(open(os.path.join(cmp_dir, "compare.csv"))) if r["spec_schedule"] == "yes"]
        want = plan_json(p)["time_to_quality"]["predicted_speedup"]
        if len(own) != 1 or float(own[0]["predicted_time_to_quality"]) != want:
            bad.append(f"--compare's row for the spec's schedule does not predict {want!r}: {own}")
        print(f"ttq check: --sweep's {len(rows)} caps and --compare's own row predict as their plans do; "
              f"best cap {best[0]} marked")

        # 4. without training
        plain = plan_json(os.path.join(src, "specs", "llama8b_1f1b.yaml"))
        if "time_to_quality" in plain:
            bad.append("a spec without training has time_to_quality in plan.json")
        text = subprocess.run([tfc, "plan", os.path.join(src, "specs", "llama8b_1f1b.yaml")], capture_output=True,
                              text=True).stdout
        if "time to quality     not predicted: the spec has no training section" not in text:
            bad.append("tfc plan without training does not say it cannot predict time to quality")
    for b in bad[:20]:
        print("ttq check:", b)
    if bad:
        print(f"ttq check: {len(bad)} problem(s)")
        return 1
    print("ttq check: the model, plan.json's time_to_quality and freeze.max_ratio: auto as documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
