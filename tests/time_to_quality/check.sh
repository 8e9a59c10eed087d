#!/usr/bin/env bash
# The time-to-quality experiment at CI size (ctest time_to_quality): a few
# steps of every run of bench/time_to_quality.sh (both scenarios, every
# rule, uniform at equal speed, the other optimiser contract, early
# freezing). Checks that it runs and writes what it promises (the table
# with every run, the SVG with a curve per run, summary.json, one log per
# run, the summary line last), not the numbers.
#   check.sh TFC SOURCE_DIR
set -euo pipefail
tfc=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The metrics on curves with known answers.
python3 - "$src/bench" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import time_to_quality as t
ev = [(9, 1.0, 3.0), (19, 2.0, 2.0), (29, 3.0, 1.0), (39, 4.0, 1.0)]
sm = t.smooth(ev)
assert [round(v, 12) for _, _, v in sm] == [3.0, 2.5, 2.0, round(4 / 3, 12)], sm
assert abs(t.time_to(sm, 2.25) - 2.5) < 1e-12, t.time_to(sm, 2.25)  # between 2.5 at 2 s and 2.0 at 3 s
assert t.time_to(sm, 3.0) == 1.0 and t.time_to(sm, 1.0) is None
assert t.interpolated_at(sm, 29) == 2.0 and t.interpolated_at(sm, 40) is None
assert abs(t.interpolated_at(sm, 34) - (2.0 + 4 / 3) / 2) < 1e-12  # halfway between two evaluations
# The batch regime's prediction: at beta = 0 (far above the critical batch)
# only the step time counts; as beta grows a share f frozen costs steps in
# proportion (rho -> 1 - f); runs without freezing and from scratch get none.
class Exp: pass
class Run: policy, label = "timely", "timely_0.9_balanced"
e = Exp()
e.cfg = dict(steps=100, freeze=dict(warmup=50, ramp=10), early_warmup=10)
e.regime = dict(beta=0.0)
assert abs(t.predicted_speedup(e, "finetune", Run, 0.8, 0.5) - 100 / (55 + 45 * 0.8)) < 1e-12
e.regime["beta"] = 1e9
assert abs(t.predicted_speedup(e, "finetune", Run, 0.8, 0.5) - 100 / (55 + 45 * 0.8 / 0.5)) < 1e-6
e.regime["beta"] = 1.0  # rho = 2 / (1 + 2) with half the samples
assert abs(t.predicted_speedup(e, "finetune", Run, 0.8, 0.5) - 100 / (55 + 45 * 0.8 * 1.5)) < 1e-12
Run.label = "timely_0.9_balanced_warmup_10"  # freezing from the early warm-up
assert abs(t.predicted_speedup(e, "finetune", Run, 0.8, 0.5) - 100 / (15 + 85 * 0.8 * 1.5)) < 1e-12
assert t.predicted_speedup(e, "scratch", Run, 0.8, 0.5) is None
Run.policy = "none"
assert t.predicted_speedup(e, "finetune", Run, 1.0, 0.0) is None
print("time_to_quality: metrics on known curves ok")
PY
python3 "$src/bench/time_to_quality.py" --ci --tfc "$tfc" --out "$work/out" >"$work/stdout.txt" 2>"$work/stderr.txt" ||
  { tail -20 "$work/stderr.txt"; exit 1; }
python3 - "$work/out" "$work/stdout.txt" <<'PY'
import json, os, re, sys, xml.etree.ElementTree as ET
out, stdout = sys.argv[1], open(sys.argv[2]).read().rstrip("\n").split("\n")
bad = []
last = stdout[-1]
if not re.fullmatch(r"time_to_quality speedup=<?[0-9.]+ equal_steps_gap=-?[0-9.]+ scenario=(finetune|scratch) "
                    r"policy=timely cap=[0-9.]+ select=(uniform|front_first|balanced|weights)", last):
    bad.append(f"last line: {last!r}")
table = [l for l in open(os.path.join(out, "results.md")) if l.startswith("| finetune") or l.startswith("| scratch")]
labels = {(l.split("|")[1].strip(), l.split("|")[2].strip()) for l in table}
for scen in ("finetune", "scratch"):
    want = {"none", "timely_0.9_balanced", "timely_0.3_balanced", "timely_0.6_balanced", "timely_0.9_uniform",
            "timely_0.9_front_first", "timely_0.9_weights", "timely_0.9_balanced_grad_mean"}
    got = {lab for s, lab in labels if s == scen}
    if not want <= got or not any(l.startswith("uniform_") for l in got) or not any("_warmup_" in l for l in got):
        bad.append(f"{scen}: runs in the table: {sorted(got)}")
logs = os.listdir(os.path.join(out, "logs"))
runs = [f for f in logs if f != "pretrain.csv"]
if len(runs) != len(labels) or len(runs) < 20:  # one seed a run at CI size
    bad.append(f"{len(runs)} run logs for {len(labels)} table rows")
for f in runs:
    rows = open(os.path.join(out, "logs", f)).read().split("\n")
    if rows[0] != "step,train_loss,val_loss,step_ms,optim_ms,wall_s,lr,planned_ratio,frozen_share,dw_skipped_share,plan_ms":
        bad.append(f"{f}: header {rows[0]!r}")
svg = ET.parse(os.path.join(out, "loss_vs_time.svg")).getroot()
lines = [e for e in svg.iter("{http://www.w3.org/2000/svg}polyline")]
if len(lines) != len(runs):
    bad.append(f"the SVG has {len(lines)} curves for {len(runs)} runs")
summary = json.load(open(os.path.join(out, "summary.json")))
if summary["mode"] != "ci" or set(summary["calibration"]) != {"finetune", "scratch"}:
    bad.append("summary.json")
regime = summary.get("regime") or {}
if not (regime.get("batch", 0) > 0 and isinstance(regime.get("b_simple"), float)):
    bad.append(f"summary.json: the batch regime {regime}")
if not any(l.startswith("Batch regime at the fine-tuning start: B_simple ") for l in open(os.path.join(out, "results.md"))):
    bad.append("results.md: no batch regime line")
for b in bad:
    print("time_to_quality check FAILED:", b)
print(f"time_to_quality: {len(runs)} runs, {len(labels)} table rows, {len(lines)} curves; last line: {last}")
sys.exit(1 if bad else 0)
PY
