#!/usr/bin/env bash
# The batch-regime sweep at CI size (ctest batch_regime): its metrics on
# logs with known answers (steps to L*, the drift-free and wall-clock
# speed-ups, the bound of a run that never reaches L*, the summary line's
# error rule), then bench/batch_regime.sh --ci end to end: every (batch,
# cap) point in the table, the chart, summary.json, the last line. Not the
# numbers (a few steps of everything).
#   check.sh TFC SOURCE_DIR
set -euo pipefail
tfc=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$src/bench" "$work" <<'PY'
import math, os, sys
sys.path.insert(0, sys.argv[1])
import batch_regime as br
w = sys.argv[2]
head = "step,train_loss,val_loss,step_ms,optim_ms,wall_s,lr,planned_ratio,frozen_share,dw_skipped_share,plan_ms\n"
def write(path, vals, plan_ms, wall_step):
    """A log of len(vals) steps, evaluated every step with loss vals[i]."""
    with open(path, "w") as f:
        f.write(head)
        for i, v in enumerate(vals):
            f.write(f"{i},{v},{v},{wall_step},0,{wall_step * (i + 1) / 1000},0.001,0,0,0,{plan_ms}\n")
# No freezing: 6 steps of 10 ms (plan) and 20 ms (wall) each, losses falling by 1 a step;
# smoothed over 3: the last is (3 + 2 + 1) / 3 = 2.0 = L*, reached at step 5.
write(f"{w}/none.csv", [6, 5, 4, 3, 2, 1], 10.0, 20.0)
# Freezing: steps of 8 ms (plan), 10 ms (wall), the loss falling half as fast.
write(f"{w}/run.csv", [6, 5.5, 5, 4.5, 4, 3.5, 3, 2.5, 2, 1.5, 1], 8.0, 10.0)
m = br.metrics(f"{w}/none.csv", f"{w}/run.csv", 6)
# The run's smoothed curve reaches 2.0 at step 9 ((2.5 + 2 + 1.5) / 3): 10 steps of 8 ms (plan) and 10 ms
# (wall) against 6 of 10 and 20; at step 5 it is 4.0 against L* 2.0.
assert m["reached"] and m["steps_to"] == 10 and m["none_steps"] == 6 and m["gap"] == 1.0, m
assert abs(m["drift_free"] - 60 / 80) < 1e-12 and abs(m["wall"] - 120 / 100) < 1e-12, m
# The gap at N when N is not an evaluation step: linear between the evaluations around it.
ev = [(0, 0, 0, 6.0), (3, 0, 0, 3.0), (7, 0, 0, 1.0)]
assert br.ttq.interpolated_at(ev, 5) == 2.0 and br.ttq.interpolated_at(ev, 3) == 3.0 and br.ttq.interpolated_at(ev, 7) == 1.0
assert br.ttq.interpolated_at(ev, 8) is None and br.ttq.interpolated_at(ev, -1) is None
assert br.ttq.interpolated_at([(4, 0, 5.0)], 4) == 5.0 and br.ttq.interpolated_at([(4, 0, 5.0)], 5) is None
# One that never gets there: the bound, T_none(L*) / T_run(end).
write(f"{w}/slow.csv", [6, 5.8, 5.6, 5.4, 5.2, 5.0, 4.8], 8.0, 10.0)
m = br.metrics(f"{w}/none.csv", f"{w}/slow.csv", 6)
assert not m["reached"] and abs(m["drift_free"] - 60 / 56) < 1e-12, m
# The best cap at a batch size is seed 1's (every cap has it), so that a cap
# given more seeds since does not take its place when a sweep resumes; the
# largest cap when none reached L*.
os.makedirs(f"{w}/sw/runs")
sw = object.__new__(br.Sweep)
sw.out, sw.c = f"{w}/sw", dict(steps=6, caps=[0.3, 0.6, 0.9])
sw.state = dict(points={"4": dict(lr=0.001, contract="mean")}, runs={})
def cached(name, vals, plan_ms):
    write(f"{w}/sw/runs/{name}.csv", vals, plan_ms, 20.0)
    sw.state["runs"][name] = {}
cached("mb4_none_lr0.001_s1", [6, 5, 4, 3, 2, 1], 10.0)
cached("mb4_none_lr0.001_s2", [6, 5, 4, 3, 2, 1], 7.0)
cached("mb4_timely_0.3_balanced_mean_s1", [6, 5, 4, 3, 2, 1], 9.0)       # 60 / 54 on seed 1
cached("mb4_timely_0.6_balanced_mean_s1", [6, 5, 4, 3, 2, 1.5, 1], 9.5)  # slower on seed 1
cached("mb4_timely_0.6_balanced_mean_s2", [6, 5, 4, 3, 2, 1], 5.0)       # far faster on seed 2
cached("mb4_timely_0.9_balanced_mean_s1", [6, 6, 6, 6, 6, 6, 6], 1.0)    # never reaches L*
assert sw.best_cap(4) == 0.3, sw.best_cap(4)
# each seed against its own no-freezing run: seed 2's 42 ms against its 30
got = [m["drift_free"] for m in sw.seed_runs(4, "mb4_timely_0.6_balanced_mean")]
assert len(got) == 2 and abs(got[1] - 42 / 30) < 1e-12, got
sw.state["points"]["4"]["contract"] = "share"  # the share runs' keys have no tag: none cached here
assert sw.best_cap(4) == 0.9, sw.best_cap(4)
# The summary line: a bound counts only where the prediction is above it.
pts = [dict(select="balanced", reached=True, predicted=1.2, drift_free=1.1, beta=0.1, cap=0.3),
       dict(select="balanced", reached=False, predicted=0.9, drift_free=0.95, beta=2.0, cap=0.9),
       dict(select="balanced", reached=False, predicted=0.8, drift_free=0.6, beta=4.0, cap=0.6),
       dict(select="weights", reached=True, predicted=3.0, drift_free=1.0, beta=0.1, cap=0.3)]
line = br.summary_line(pts)
assert line == "batch_regime points=3 max_abs_err=0.2000 best_speedup=1.1000 best_beta=0.1000 best_cap=0.3", line
# Weights from noise scales: the tensor with the smallest noise scale freezes likeliest.
wts = br.noise_weights({"a": 1000.0, "b": 4000.0, "c": -5.0}, 2000)
assert wts["a"] == 1 and abs(wts["b"] - 0.25) < 1e-9 and wts["c"] == 1 / 64, wts
# The model's candidates (bench/ttq_models.py): their limits, and the scopes agreeing where they must.
import ttq_models as tm
for f in (0.0, 0.3, 0.9):
    for rule in tm.RULES:
        assert tm.phi(rule, 0.0, f) == 1.0, (rule, f)  # far above the noise scale a frozen step is a full one
    assert abs(tm.phi("sgd", math.inf, f) - (1 - f)) < 1e-15 and abs(tm.phi("half", math.inf, f) - (1 - f)) < 1e-15
    assert abs(tm.phi("adam", math.inf, f) - math.sqrt(1 - f)) < 1e-15
    assert abs(tm.phi("half", 2.0, f) - tm.phi("sgd", 1.0, f)) < 1e-15
assert tm.phi("sgd", 3.0, 1.0) == 0.0 and tm.phi("sgd", 3.0, 0.5) < tm.phi("sgd", 1.0, 0.5)
plan = dict(frozen_share=0.5, stage_ratio=[0.5, 0.5], stage_numel=[10, 30], step_ratio=0.8)
# Two stages with the whole model's beta and ratio: every scope is the one-block model.
parts = dict(stages={"0": dict(g2=1.0, tr=2000.0), "1": dict(g2=3.0, tr=6000.0)},
             tensors={"a": dict(stage=0, g2=1.0, tr=2000.0), "b": dict(stage=1, g2=3.0, tr=6000.0)})
noise = dict(b_simple=2000.0, parts=parts)
one = tm.rho_of("sgd", "mean", noise, 1000, plan)
for scope in ("stages", "stage", "tensor"):
    assert abs(tm.rho_of("sgd", scope, noise, 1000, plan) - one) < 1e-15, scope
# Per stage the signal shares weigh: a stage all frozen loses exactly its share of |G|^2.
plan2 = dict(plan, stage_ratio=[1.0, 0.0])
assert abs(tm.rho_of("sgd", "stage", noise, 1000, plan2) - 0.75) < 1e-15
# No block's |G|^2 resolved (negative estimates): no signal anywhere, every scope at beta infinite, 1 - f.
neg = dict(b_simple=-5.0, parts=dict(stages={"0": dict(g2=-1.0, tr=1.0), "1": dict(g2=-2.0, tr=1.0)},
                                     tensors={"a": dict(stage=0, g2=-1.0, tr=1.0), "b": dict(stage=1, g2=0.0, tr=1.0)}))
for scope in tm.SCOPES:
    assert abs(tm.rho_of("sgd", scope, neg, 1000, plan) - 0.5) < 1e-15, scope
assert abs(tm.speedup(1.0, 0.5, 100, 40, 20) - 100 / (50 + 50 * 0.5)) < 1e-12
# sgd over one beta is tfc's own model (python/tfc_plan.py, the compiler's double): the two must not drift.
sys.path.insert(0, os.path.join(os.path.dirname(sys.argv[1]), "python"))
import tfc_plan
for beta, f, r, n, wu, rp in ((0.2, 0.56, 0.74, 80, 20, 8), (13.8, 0.3, 0.81, 80, 40, 8), (3.0, 0.9, 0.6, 300, 150, 30)):
    want = tfc_plan.predicted_time_to_quality(beta=beta, frozen_share=f, step_ratio=r, steps=n, warmup=wu, ramp=rp)
    assert tm.speedup(tm.phi("sgd", beta, f), r, n, wu, rp) == want, (beta, f)
print("batch_regime: metrics on known logs ok")
PY
# tools/noise_weights.py writes the weights into a spec tfc accepts, select: weights.
printf 'noise: stage 0 tensor a: |G|^2 1, tr(Sigma) 1, B_simple 500 predictions\nnoise: stage 1 tensor b: |G|^2 1, tr(Sigma) 1, B_simple 4000 predictions\nnoise: stage 1 tensor c: |G|^2 1, tr(Sigma) 1, B_simple 2000 predictions\n' >"$work/noise.txt"
sed 's/^freeze: .*/freeze: {max_ratio: 0.5, select: balanced}/' "$src/tests/specs/custom_1f1b.yaml" |
  sed 's/w0, numel: 8/a, numel: 8/; s/w1, numel: 8/b, numel: 8}, {name: c, numel: 4/' >"$work/nw.yaml"
grep -q '^freeze:' "$work/nw.yaml" || echo 'freeze: {max_ratio: 0.5, select: balanced}' >>"$work/nw.yaml"
cp "$src/tests/specs/custom_1f1b.csv" "$work/"
python3 "$src/tools/noise_weights.py" "$work/nw.yaml" "$work/noise.txt" 1000 -o "$work/nw_out.yaml" >/dev/null
grep -q 'select: weights' "$work/nw_out.yaml" && grep -q '{name: a, numel: 8, freeze_weight: 1}' "$work/nw_out.yaml" &&
  grep -q '{name: b, numel: 8, freeze_weight: 0.125}' "$work/nw_out.yaml" ||
  { echo "noise_weights.py wrote:"; cat "$work/nw_out.yaml"; exit 1; }
"$tfc" check "$work/nw_out.yaml" -q
# what it cannot use is said in one line: a batch that is not one, a noise
# file that is not JSON numbers
echo '{"a": null}' >"$work/bad_noise.json"
for args in "$work/noise.txt 0" "$work/noise.txt nan" "$work/bad_noise.json 1000"; do
  # shellcheck disable=SC2086
  if python3 "$src/tools/noise_weights.py" "$work/nw.yaml" $args -o "$work/nw_bad.yaml" >/dev/null 2>"$work/nw_err.txt" ||
     grep -q Traceback "$work/nw_err.txt" || ! grep -q '^noise_weights: ' "$work/nw_err.txt" || [ -e "$work/nw_bad.yaml" ]; then
    echo "noise_weights.py $args:"; cat "$work/nw_err.txt"; exit 1
  fi
done
# --freeze-from: the best cap and the seed caps from other starts (below)
python3 "$src/bench/batch_regime.py" --ci --tfc "$tfc" --out "$work/out" --freeze-from 0,0.25,0.3 --seed-caps 0.3,0.9 >"$work/stdout.txt" 2>"$work/stderr.txt" ||
  { tail -20 "$work/stderr.txt"; exit 1; }
# its cache is refused for another corpus or run length (its runs would be
# reported as theirs), and taken for more batch sizes
for other in "--data $work" "--steps 13"; do
  # shellcheck disable=SC2086
  if python3 "$src/bench/batch_regime.py" --ci --report --tfc "$tfc" --out "$work/out" $other >/dev/null 2>"$work/refused.txt" ||
     ! grep -q "^batch_regime: the runs cached in .* were made with " "$work/refused.txt"; then
    echo "batch_regime check FAILED: a cache reused with $other:"; cat "$work/refused.txt"; exit 1
  fi
done
# a cache from before the settings were recorded is held to its summary.json
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d.pop("made_with"); json.dump(d, open(sys.argv[1], "w"))' \
  "$work/out/cache.json"
if python3 "$src/bench/batch_regime.py" --ci --report --tfc "$tfc" --out "$work/out" --steps 13 >/dev/null 2>"$work/refused.txt" ||
   ! grep -q "were made with .*steps 12 (now 13).*(its summary.json)" "$work/refused.txt"; then
  echo "batch_regime check FAILED: an old cache reused with --steps 13:"; cat "$work/refused.txt"; exit 1
fi
python3 "$src/bench/batch_regime.py" --ci --report --tfc "$tfc" --out "$work/out" --mb 2,8,32 >/dev/null 2>&1 ||
  { echo "batch_regime check FAILED: the cache refused for more batch sizes"; exit 1; }
# a cache recorded before the model was (every run then the narrow MLP's) is held to mlp_narrow, and says so
held_to_mlp() { # DIR WHAT: the cache in DIR is refused for --model gpt, named as the narrow MLP's
  if python3 "$src/bench/batch_regime.py" --ci --report --tfc "$tfc" --out "$1" --model gpt >/dev/null 2>"$work/refused.txt" ||
     ! grep -q "were made with model 'mlp_narrow' (now 'gpt')" "$work/refused.txt"; then
    echo "batch_regime check FAILED: $2, reused with --model gpt:"; cat "$work/refused.txt"; exit 1
  fi
}
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["made_with"].pop("model"); json.dump(d, open(sys.argv[1], "w"))' \
  "$work/out/cache.json"
held_to_mlp "$work/out" "a cache from before the model was recorded"
# ... and so is one from before any setting was recorded that has no summary.json to hold it to
cp -r "$work/out" "$work/old"
rm "$work/old/summary.json"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d.pop("made_with"); json.dump(d, open(sys.argv[1], "w"))' \
  "$work/old/cache.json"
held_to_mlp "$work/old" "a cache with no record and no summary.json"
python3 "$src/bench/batch_regime.py" --ci --report --tfc "$tfc" --out "$work/out" >/dev/null 2>&1 &&
  python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1]))["made_with"].get("model") != "mlp_narrow")' \
    "$work/out/cache.json" ||
  { echo "batch_regime check FAILED: the old cache refused for its own model, or its model not recorded"; exit 1; }
# --model gpt: the transformer's runs, its 47 predictions a sequence in every batch (2 x 8 x 47 = 752)
python3 "$src/bench/batch_regime.py" --ci --tfc "$tfc" --out "$work/gpt" --model gpt --mb 2 --caps 0.6 --no-weights \
  >"$work/gpt.txt" 2>"$work/gpt_err.txt" ||
  { echo "batch_regime check FAILED: --ci --model gpt:"; tail -20 "$work/gpt_err.txt"; exit 1; }
if ! grep -q '^GPT-style transformer, fine-tuning' "$work/gpt/results.md" ||
   ! grep -Eq '^\| 752 \| [0-9.]+ \| [^|]+ \| 0\.6 \| balanced \|' "$work/gpt/results.md" ||
   ! grep -q '"model": "gpt"' "$work/gpt/cache.json" ||
   ! tail -1 "$work/gpt.txt" | grep -Eq '^batch_regime points=[0-9]+ max_abs_err=[0-9.]+ '; then
  echo "batch_regime check FAILED: --model gpt:"; head -12 "$work/gpt/results.md"; tail -3 "$work/gpt.txt"; exit 1
fi
python3 - "$work/out" "$work/stdout.txt" "$src" <<'PY'
import json, os, re, sys, xml.etree.ElementTree as ET
out, stdout = sys.argv[1], open(sys.argv[2]).read().rstrip("\n").split("\n")
bad = []
last = stdout[-1]
if not re.fullmatch(r"batch_regime points=\d+ max_abs_err=[0-9.]+ best_speedup=[0-9.]+ best_beta=[0-9.]+ "
                    r"best_cap=[0-9.]+", last):
    bad.append(f"last line: {last!r}")
# (a few noise batches can give a negative or undefined B_simple where freezing starts or at the end: those
# columns may be -x, nan or inf; the start's must be positive, or the sweep stops)
num = r"(-?[0-9.]+|-?inf|nan)"
rows = [l for l in open(os.path.join(out, "results.md")) if re.match(rf"\| [0-9,]+ \| {num} \| {num} \| [01](\.[0-9]+)? ", l)]
points = {(l.split("|")[1].strip(), l.split("|")[4].strip()) for l in rows
          if "| balanced |" in l and "(contrast)" not in l}
summary = json.load(open(os.path.join(out, "summary.json")))
# two batch sizes x three caps, and the cap auto chose at the smallest beta when it is none of them
extra = sum(len(e.get("extra_caps", [])) for e in summary["state"]["points"].values())
if len(points) != 6 + extra or extra > 1:
    bad.append(f"table points: {sorted(points)} ({extra} chosen by auto)")
if int(re.search(r"points=(\d+)", last).group(1)) != len(points):
    bad.append("the last line's point count is not the table's")
svg = ET.parse(os.path.join(out, "speedup_vs_beta.svg")).getroot()
marks = [e for e in svg.iter() if e.tag.endswith("circle") or (e.tag.endswith("rect") and e.get("fill") == "none"
                                                                and e.get("stroke") not in (None, "#999"))]
if len(marks) < 6:
    bad.append(f"the chart has {len(marks)} measured points")
if not summary["points"] or summary["state"].get("start_b_simple") is None:
    bad.append("summary.json")
runs = [f for f in os.listdir(os.path.join(out, "runs")) if f.endswith(".csv")]
if len(runs) < 9:
    bad.append(f"{len(runs)} run logs")
# --freeze-from 0,0.25,0.3 --seed-caps 0.3,0.9: steps 0, 3 and 4 (0.3 x 12 rounded) and the rule's (3, a
# quarter of N, above the noise scale, where it is not run twice; 6 below it), for the best cap and each seed cap
import csv
sys.path.insert(0, os.path.join(sys.argv[3], "python"))
text = open(os.path.join(out, "results.md")).read()
srows = re.findall(r"^\| ([0-9,]+) \| ([0-9.]+) \| ([0-9.]+) \| step (\d+)( \(the rule's\))? \| ([0-9.]+) \| ([0-9.]+) \| 1 \| "
                   r"[0-9-]+ \| <?([0-9.]+) \| ([0-9.]+) \| ([0-9.]+|-) \|$", text, re.M)
starts = re.findall(r"^batch_regime_starts batch=(\d+) cap=([0-9.]+) rule_start=(\d+) .* model_start=(\d+)$", text, re.M)
mb = max(int(k) for k in summary["state"]["points"])
e = summary["state"]["points"][str(mb)]
want_w = sorted({0, 3, 4, e["warmup"]})
by_cap = {}
for r in srows:
    by_cap.setdefault(r[2], []).append(r)
if len(by_cap) < 2 or len(starts) != len(by_cap) or any(
        [int(x[3]) for x in v] != want_w or [bool(x[4]) for x in v] != [w == e["warmup"] for w in want_w]
        for v in by_cap.values()):
    bad.append(f"the freezing-start table (starts {want_w}): {srows}, {starts}")
else:
    import tfc_plan
    batch = srows[0][0]
    k = (e.get("auto_pilot") or {}).get("lr_ratio")
    ctag = "" if e["contract"] == "share" else "_mean"
    for cap, v in by_cap.items():
        # the rule's row is the main table's point (the same runs)
        df_rule = next(x[7] for x in v if x[4])
        main = [l for l in rows if l.startswith(f"| {batch} |") and f"| {cap} | balanced |" in l and "(contrast)" not in l]
        if not main or f"| {df_rule} |" not in main[0] and f"| <{df_rule} |" not in main[0]:
            bad.append(f"cap {cap}: the rule's start {df_rule} is not the table's point: {main}")
        # the model, the same plan from an earlier start: further from 1 in the same direction (more steps at
        # r / rho)
        p = [float(x[8]) - 1 for x in v]
        if not (all(x * p[0] > 0 for x in p) and all(abs(a) > abs(b) for a, b in zip(p, p[1:]))):
            bad.append(f"cap {cap}: the model against the start: {[x[8] for x in v]}")
        pick = [x for x in starts if x[1] == cap]
        if not pick or int(pick[0][3]) != (want_w[0] if p[0] > 0 else want_w[-1]):
            bad.append(f"cap {cap}: the model's start {pick}")
        for x in v:
            w = int(x[3])
            # with the pilot: the model at the pilot's lr_ratio (auto_pilot's) for this start's plan
            plan = e["plans"][cap] if x[4] else e["starts"][f"{float(cap)}_w{w}"]["plan"]
            want = "-" if k is None else "%.3f" % tfc_plan.predicted_time_to_quality(
                beta=e["beta"], frozen_share=plan["frozen_share"], step_ratio=plan["step_ratio"],
                steps=summary["config"]["steps"], warmup=w, ramp=summary["config"]["ramp"], lr_ratio=k)
            if x[9] != want:
                bad.append(f"cap {cap} from step {w}: with the pilot {x[9]}, the model at k {k} gives {want}")
            # the trainer froze from the start asked: no ratio up to step w, one after it
            name = f"mb{mb}_timely_{float(cap)}_balanced{'' if x[4] else f'_w{w}'}{ctag}_s1.csv"
            got = [float(r["planned_ratio"]) for r in csv.DictReader(open(os.path.join(out, "runs", name)))]
            if not (all(r == 0 for r in got[:w + 1]) and got[w + 1] > 0):
                bad.append(f"cap {cap} from step {w}: planned ratios {got[:w + 3]}")
for b in bad:
    print("batch_regime check FAILED:", b)
print(f"batch_regime: {len(points)} points, {len(runs)} run logs; last line: {last}")
sys.exit(1 if bad else 0)
PY
# bench/ttq_starts.py: run shapes on the --freeze-from sweep above (its gamma 0 is checked against the
# planned model inside, on every row), and on synthetic cases where the answer is known
python3 "$src/bench/ttq_starts.py" "$work/out" >"$work/starts.txt" 2>&1 && rc=0 || rc=$?
# a group is due wherever the report's start table has a rule's row that reached L* (no "<")
due=$(grep -cE "^\| [0-9,]+ \| [0-9.]+ \| [0-9.]+ \| step [0-9]+ \(the rule's\) \|( [^|]* \|){4} [0-9]" "$work/out/results.md" || true)
if ! { [ "$rc" = 0 ] && tail -1 "$work/starts.txt" | grep -Eq '^ttq_starts groups=[1-9][0-9]* points=[1-9][0-9]* planned_max_abs_err=[0-9.]+ best_gamma=[0-9.]+ best_max_abs_err=[0-9.]+$'; } &&
   ! { [ "$rc" = 1 ] && [ "$due" = 0 ] && grep -q '^ttq_starts: no group froze one cap from several starts' "$work/starts.txt"; }; then
  echo "ttq_starts.py on the CI sweep (rc $rc, $due rule rows reached):"; tail -5 "$work/starts.txt"; exit 1
fi
python3 - "$src/bench" <<'PY'
import math, random, sys
sys.path.insert(0, sys.argv[1])
import ttq_starts as ts
import tfc_plan
bad = []
# the fit recovers a power law on its grid (c 0.5 * 400^(i/80), d a twentieth)
c, d = 0.5 * 400 ** (40 / 80), 1.25
pts = [(s, 2.3 + 4.0 * (s + c) ** -d) for s in range(3, 80, 4)]
(a2, b2, c2, d2), rms = ts.fit_power(pts)
if rms > 1e-9 or abs(c2 - c) > 1e-9 or abs(d2 - d) > 1e-12:
    bad.append(f"fit_power: {a2, b2, c2, d2} rms {rms}, made with c {c} d {d}")
# under three evaluations, a flat curve: every step weighs alike, the planned shape at any gamma
flat, _ = ts.fit_power([(3, 2.0), (7, 1.9)])
if flat[1] != 0.0 or ts.shaped_speedup(flat, 1.0, 0.3, 0.5, 0.8, 60, 15, 6, None) != \
        ts.shaped_speedup(flat, 0.0, 0.3, 0.5, 0.8, 60, 15, 6, None):
    bad.append(f"fit_power on two evaluations: {flat}")
fit = (2.3, 4.0, c, d)
# gamma 0 is the planned model, at any k, start, ramp
rnd = random.Random(7)
for _ in range(40):
    beta, f, r = rnd.uniform(0.05, 5), rnd.uniform(0.05, 0.9), rnd.uniform(0.5, 1.0)
    n, w, ramp, k = rnd.choice((40, 60, 80)), rnd.randrange(0, 30), 2 * rnd.randrange(0, 5), rnd.choice((None, 0.0, 0.7))
    want = tfc_plan.predicted_time_to_quality(beta, f, r, n, w, ramp, k)
    got = ts.integrated(fit, 0.0, beta, f, r, n, w, ramp, k)
    if abs(got - want) > 1e-9 or ts.shaped_speedup(fit, 0.0, beta, f, r, n, w, ramp, k) != want:
        bad.append(f"gamma 0 at {beta, f, r, n, w, ramp, k}: {got}, the planned model {want}")
# where the loss falls fastest (early, on a convex curve) a frozen step costs more, the more so the larger
# gamma: with no shorter step (r = 1) the cost from step 0 against from half the run grows with gamma
cost = [(1 - ts.shaped_speedup(fit, g, 0.5, 0.5, 1.0, 80, 0, 0, 0.8)) /
        (1 - ts.shaped_speedup(fit, g, 0.5, 0.5, 1.0, 80, 40, 0, 0.8)) for g in (0.0, 0.5, 1.0)]
if not (1.5 < cost[0] < cost[1] < cost[2]):
    bad.append(f"the cost from step 0 against half the run, at gamma 0, 0.5, 1: {cost}")
# a pilot measured at k 0.5 gives k 0.5 back, at any gamma; one above what k = 0 gives, k 0
for g in (0.0, 0.7, 1.4):
    pilot = ts.shaped_speedup(fit, g, 0.3, 0.4, 0.8, 60, 15, 6, 0.5)
    k = ts.pilot_k(fit, g, 0.3, 0.4, 0.8, 60, 15, 6, pilot)
    top = ts.pilot_k(fit, g, 0.3, 0.4, 0.8, 60, 15, 6, ts.shaped_speedup(fit, g, 0.3, 0.4, 0.8, 60, 15, 6, 0.0) + 0.01)
    if abs(k - 0.5) > 1e-6 or top != 0.0:
        bad.append(f"pilot_k at gamma {g}: k {k} from a pilot made at 0.5; {top} above k 0's")
for b in bad:
    print("ttq_starts check FAILED:", b)
sys.exit(1 if bad else 0)
PY
echo "ttq_starts: $(tail -1 "$work/starts.txt")"
# bench/ttq_short_pilot.py: a pilot cut short, on every frozen run of the CI sweep above, and on made-up
# runs where a frozen step's progress is known
python3 "$src/bench/ttq_short_pilot.py" "$work/out" >"$work/short.txt" 2>&1 ||
  { echo "ttq_short_pilot.py on the CI sweep:"; tail -5 "$work/short.txt"; exit 1; }
python3 - "$src/bench" "$work" <<'PY'
import json, math, os, random, re, sys
sys.path.insert(0, sys.argv[1])
import batch_regime as br
import tfc_plan
import ttq_short_pilot as sp
work = sys.argv[2]
bad = []
lines = open(f"{work}/short.txt").read().strip().split("\n")
m = re.fullmatch(r"ttq_short_pilot runs=(\d+) planned_max_abs_err=[0-9.]+ planned_mean_abs_err=[0-9.]+"
                 + "".join(rf" {n}_max_abs_err=([0-9.]+|nan) {n}_mean_abs_err=([0-9.]+|nan)" for n, _ in sp.SHARES),
                 lines[-1])
# every balanced frozen run on disk with its seed's no-freezing run, found here by its file name
state = json.load(open(f"{work}/out/summary.json"))["state"]
want = 0
for name in os.listdir(f"{work}/out/runs"):
    r = re.fullmatch(r"mb(\d+)_timely_[0-9.]+_balanced(_w\d+)?(_mean)?_s(\d+)\.csv", name)
    if r and r.group(1) in state["points"]:
        lr = state["points"][r.group(1)]["lr"]
        want += os.path.exists(f"{work}/out/runs/mb{r.group(1)}_none_lr{lr:.3g}_s{r.group(4)}.csv")
rows = [l for l in lines if re.match(r"\| out \| [0-9,]+ \|", l)]
if not m or int(m.group(1)) != want or len(rows) != want or want == 0:
    bad.append(f"the CI sweep: {want} frozen runs on disk, {len(rows)} rows, last line {lines[-1]!r}")
# made-up runs, evaluated every 4 steps (at 3, 7, 11, ...) as the trainer does: the no-freezing loss
# falls on a straight line, the frozen run follows it rho times as fast from w = 10 on; the smoothing's
# lag taken out, the short pilot reads rho back exactly
head = "step,train_loss,val_loss,step_ms,optim_ms,wall_s,lr,planned_ratio,frozen_share,dw_skipped_share,plan_ms\n"
def log(path, loss, steps=80):
    with open(path, "w") as f:
        f.write(head)
        for i in range(steps):
            v = f"{loss(i):.12f}" if i % 4 == 3 else ""
            f.write(f"{i},0,{v},1,0,{i + 1},0.001,0,0,0,1\n")
line = lambda t: 3.0 - 0.01 * t
log(f"{work}/sp_none.csv", line)
_, none = br.curve(f"{work}/sp_none.csv", 80)
for rho in (0.3, 0.7, 1.0):
    log(f"{work}/sp_run.csv", lambda t: line(t if t <= 10 else 10 + rho * (t - 10)))
    _, run = br.curve(f"{work}/sp_run.csv", 80)
    for mm in (6.5, 10, 20):  # the smoothing window (3 evaluations) all past w: exact
        got = sp.short_rho(none, run, 10, mm, 4)
        if got is None or abs(got - rho) > 1e-9:
            bad.append(f"short_rho after {mm} frozen steps at rho {rho}: {got}")
# a frozen run below every loss the no-freezing run reached reads as inf; past its last evaluation, None
log(f"{work}/sp_fast.csv", lambda t: line(t if t <= 10 else 10 + 5 * (t - 10)))
_, fast = br.curve(f"{work}/sp_fast.csv", 80)
if sp.short_rho(none, fast, 10, 40, 4) != math.inf or sp.short_rho(none, run, 10, 70, 4) is not None:
    bad.append("short_rho: ahead of the no-freezing run, or past the run's end")
# a pilot's rho taken as tfc takes a pilot gives its k back, and the prediction at it; above k = 0's, k 0
rnd = random.Random(5)
for _ in range(50):
    beta, f, r = rnd.uniform(0.05, 5), rnd.uniform(0.05, 0.9), rnd.uniform(0.5, 0.95)
    n, warmup, ramp, k = rnd.choice((40, 60, 80)), rnd.randrange(0, 30), 2 * rnd.randrange(0, 5), rnd.uniform(0.05, 1.5)
    rho = tfc_plan.frozen_step_progress(beta, f, k)
    if rho <= 0:
        continue
    k2, v = sp.predict_from(rho, beta, f, r, n, warmup, ramp)
    want_v = tfc_plan.predicted_time_to_quality(beta, f, r, n, warmup, ramp, k)
    if k2 is None or abs(k2 - k) > 1e-6 or abs(v - want_v) > 1e-9:
        bad.append(f"predict_from at {beta, f, r, n, warmup, ramp, k}: {k2, v}, wanted {k, want_v}")
    top = tfc_plan.frozen_step_progress(beta, f, 0.0)
    if sp.predict_from(top + 0.01, beta, f, r, n, warmup, ramp)[0] != 0.0:
        bad.append(f"predict_from above k 0's progress at {beta, f}: not k 0")
for b in bad:
    print("ttq_short_pilot check FAILED:", b)
sys.exit(1 if bad else 0)
PY
echo "ttq_short_pilot: $(tail -1 "$work/short.txt")"
