#!/usr/bin/env bash
# The example trainer (ctest tiny_trainer), built against what tfc compiles
# from examples/tiny_trainer/tiny.yaml (the MLP) and tiny_gpt.yaml (the
# transformer) with strict flags:
#  - each model's backward against finite differences in double, and frozen
#    tensors getting no gradient while the others keep theirs bit for bit;
#  - pipelined steps (two rank threads, the generated 1F1B program) equal
#    sequential ones bit for bit, with the plan's freezing;
#  - its profile is a measured-timing file tfc accepts, one row per action
#    and step;
#  - a short run with the plan's freezing learns (the loss falls), skips
#    weight-gradient work, and never freezes more elements than planned; a
#    run without freezing skips none;
#  - the gradient noise scale's estimate against its exact value;
#  - the log's header; --save / --init round-trip the parameters and refuse
#    another model's file; --part pretrain and finetune each train; a binary
#    built against one model's plan refuses the other model;
#  - the transformer (when tiny_gpt.yaml is there): pipelined equals
#    sequential, and a short run's loss falls.
#   check.sh TFC SOURCE_DIR
set -euo pipefail
tfc=$1
src=$2
ex=$src/examples/tiny_trainer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags="-std=c11 -O2 -Wall -Wextra -Wpedantic -Werror"

models="$ex/model.c $ex/mlp.c $ex/gpt.c"
gcc $flags -DTINY_REAL=double -o "$work/gradcheck" "$ex/gradcheck.c" $models -lm
"$work/gradcheck"
if [ -f "$ex/gradcheck_gpt.c" ]; then
  gcc $flags -DTINY_REAL=double -o "$work/gradcheck_gpt" "$ex/gradcheck_gpt.c" $models -lm
  "$work/gradcheck_gpt"
fi
build() { # $1: the generated folder, $2: the binary
  gcc $flags -I"$1" -I"$ex" -o "$2" "$ex"/{main,corpus,pipe,plot}.c $models "$1/tiny.c" "$1/tiny_lcp_index.c" \
    -pthread -lm
}

"$tfc" compile "$ex/tiny.yaml" -o "$work/gen" -q
build "$work/gen" "$work/tiny_trainer"
"$work/tiny_trainer" check --steps 3

mkdir -p "$work/spec/profile"
# Medians of 9 steps: a machine busy elsewhere can stretch any one action
# several times over (one such outlier in 2 steps once made a frozen B read
# longer than the unfrozen one; tfc now warns and takes no saving there).
"$work/tiny_trainer" profile "$work/spec/profile" --steps 9
actions=$(sed -n 's/^#define TINY_ACTIONS \([0-9]*\)u$/\1/p' "$work/gen/tiny.h")
for f in unfrozen frozen; do
  rows=$(($(wc -l < "$work/spec/profile/$f.csv") - 1))
  [ "$rows" -eq $((9 * actions)) ] || { echo "profile $f.csv: $rows rows, want $((9 * actions))"; exit 1; }
done
cp "$ex/tiny.yaml" "$work/spec/"
"$tfc" compile "$work/spec/tiny.yaml" -o "$work/gen2" -q

# 40 steps in the fully ramped regime (warm-up 300 + ramp 60).
"$work/tiny_trainer" train --steps 40 --first-step 360 --eval-every 0 --log "$work/f.csv" > "$work/f.txt"
"$work/tiny_trainer" train --steps 3 --no-freeze --eval-every 0 --save "$work/p.bin" > "$work/n.txt"
want="step,train_loss,val_loss,step_ms,optim_ms,wall_s,lr,planned_ratio,frozen_share,dw_skipped_share,plan_ms"
[ "$(head -1 "$work/f.csv")" = "$want" ] || { echo "log header: $(head -1 "$work/f.csv")"; exit 1; }
# Parameters round-trip: a run from the saved ones starts where that run ended.
"$work/tiny_trainer" train --steps 1 --no-freeze --eval-every 0 --init "$work/p.bin" --lr-warmup 2 --lr-horizon 3 \
  --grad mean --wd 0.1 --seed 2 > "$work/i.txt"
for part in pretrain finetune; do
  "$work/tiny_trainer" train --steps 2 --part $part --eval-every 1 --val-max 8 --stop-below 100 > "$work/$part.txt"
  grep -q "^RESULT .*steps=2 " "$work/$part.txt" || { echo "--part $part"; cat "$work/$part.txt"; exit 1; }
done
# --probe-every: the line search leaves the run as it was, and its ends are
# the run's own evaluations (scale 0 the step before's, scale 1 the step's).
"$work/tiny_trainer" train --steps 4 --no-freeze --eval-every 1 --val-max 64 --lr 0.01 --log "$work/pl.csv" \
  > "$work/np.txt"
"$work/tiny_trainer" train --steps 4 --no-freeze --eval-every 1 --val-max 64 --lr 0.01 --probe-every 2 \
  > "$work/pp.txt"
python3 - "$work" <<'PY'
import csv, re, sys
w = sys.argv[1]
res = lambda t: re.search(r"^RESULT val_loss=(\S+)", t, re.M).group(1)
a, b = open(f"{w}/np.txt").read(), open(f"{w}/pp.txt").read()
assert res(a) == res(b), ("--probe-every changed the run", res(a), res(b))
val = {int(r["step"]): float(r["val_loss"]) for r in csv.DictReader(open(f"{w}/pl.csv"))}
probes = re.findall(r"^PROBE step=(\d+) lr=\S+ scales=(\S+) losses=(\S+)$", b, re.M)
assert [int(s) for s, _, _ in probes] == [1, 3], probes
for s, scales, losses in probes:
    at = dict(zip((float(x) for x in scales.split(",")), (float(x) for x in losses.split(","))))
    s = int(s)
    assert abs(at[1.0] - val[s]) < 2e-6 and abs(at[0.0] - val[s - 1]) < 2e-6, (s, at, val)
    assert len(set(at.values())) == len(at), at  # the search moved the parameters
PY
if "$work/tiny_trainer" train --steps 1 --model gpt > "$work/x.txt" 2>&1; then
  echo "an MLP-plan binary ran --model gpt"; exit 1
fi
grep -q "built against another model's plan" "$work/x.txt" || { cat "$work/x.txt"; exit 1; }
# fewer validation sequences than a microbatch (a small last file makes the
# finetune part), or --val-max below one: refused and said, not a NaN loss
# (the window where a step's 64 training sequences fit but 8 validation
# ones do not is narrow: the small file's size is searched for it)
mkdir -p "$work/small"
cat /usr/share/common-licenses/* > "$work/small/a.txt"
found=
for size in $(seq 2000 48 4000); do
  head -c "$size" "$work/small/a.txt" | tr 'a-z' 'n-za-m' > "$work/small/b.txt"
  if "$work/tiny_trainer" train --steps 1 --eval-every 1 --data "$work/small" --part finetune --mb-seqs 8 \
       > "$work/x.txt" 2>&1; then
    echo "tiny_trainer train on a finetune part of $size bytes ran:"; cat "$work/x.txt"; exit 1
  fi
  if grep -q "has [0-7] validation sequences, fewer than one microbatch's 8: the loss cannot be evaluated" "$work/x.txt"; then
    found=$size; break
  fi
done
[ -n "$found" ] || { echo "no finetune part had too few validation sequences:"; cat "$work/x.txt"; exit 1; }
if "$work/tiny_trainer" train --steps 1 --eval-every 1 --val-max 3 --mb-seqs 4 > "$work/x.txt" 2>&1 ||
   ! grep -q -- "--val-max 3 is less than one microbatch's 4 sequences" "$work/x.txt"; then
  echo "tiny_trainer train --val-max 3 --mb-seqs 4:"; cat "$work/x.txt"; exit 1
fi
python3 - "$work" <<'PY'
import csv, re, sys
w = sys.argv[1]
rows = list(csv.DictReader(open(f"{w}/f.csv")))
loss = [float(r["train_loss"]) for r in rows]
first, last = sum(loss[:5]) / 5, sum(loss[-5:]) / 5
res = dict(kv.split("=") for kv in re.search(r"^RESULT (.*)$", open(f"{w}/f.txt").read(), re.M).group(1).split())
nof = dict(kv.split("=") for kv in re.search(r"^RESULT (.*)$", open(f"{w}/n.txt").read(), re.M).group(1).split())
bad = []
if not last < first - 0.3:
    bad.append(f"the loss did not fall: {first:.3f} -> {last:.3f}")
if not float(res["dw_skipped"]) > 0.05:
    bad.append(f"weight-gradient work skipped: {res['dw_skipped']}")
for r in rows:
    if float(r["frozen_share"]) > float(r["planned_ratio"]) + 1e-12:
        bad.append(f"step {r['step']}: frozen share {r['frozen_share']} above the plan's {r['planned_ratio']}")
if float(nof["dw_skipped"]) != 0 or float(nof["frozen"]) != 0:
    bad.append("a run without freezing skipped work")
# plan_ms, the trainer's own replay of the plan at each step's ratios, is
# tfc's planned makespan once the ramp is done (tfc simulated the same
# durations over its DAG).
for r in rows:
    if abs(float(r["plan_ms"]) - float(res["predicted_ms"])) > 1e-4 * float(res["predicted_ms"]):
        bad.append(f"step {r['step']}: plan_ms {r['plan_ms']}, tfc's planned makespan {res['predicted_ms']}")
        break
print(f"tiny_trainer: loss {first:.3f} -> {last:.3f} over 40 steps; planned ratio {float(res['planned']):.3f}, "
      f"frozen share {float(res['frozen']):.3f}, weight-gradient work skipped {float(res['dw_skipped']):.3f}")
for b in bad:
    print("FAILED:", b)
sys.exit(1 if bad else 0)
PY

# The gradient noise scale: the estimate from 300 batches of independently
# drawn sequences (two microbatch sizes, unbiased) against the exact value
# over every training sequence of the finetune part, at the 3-step
# parameters; then --mb-seqs and --order shuffled keep pipelined steps equal
# to sequential ones.
"$work/tiny_trainer" noise --init "$work/p.bin" --part finetune --exact > "$work/noise_exact.txt"
"$work/tiny_trainer" noise --init "$work/p.bin" --part finetune --steps 300 > "$work/noise.txt"
python3 - "$work/noise_exact.txt" "$work/noise.txt" <<'PY'
import re, sys
def res(path):
    return {k: float(v) for k, v in (kv.split("=") for kv in re.search(r"^RESULT (.*)$", open(path).read(), re.M).group(1).split())}
exact, est = res(sys.argv[1]), res(sys.argv[2])
print(f"tiny_trainer noise: B_simple {est['b_simple']:.1f} estimated, {exact['b_simple']:.1f} exact; "
      f"tr(Sigma) {est['trace']:.2f} and {exact['trace']:.2f}")
ok = abs(est["trace"] / exact["trace"] - 1) < 0.05 and abs(est["b_simple"] / exact["b_simple"] - 1) < 0.10
ok = ok and est["batch"] == exact["batch"] == 8 * 2 * 32 and abs(est["ratio"] - est["b_simple"] / est["batch"]) < 1e-3
sys.exit(0 if ok else 1)
PY
"$work/tiny_trainer" check --steps 2 --mb-seqs 5 --order shuffled

# The narrow MLP against its own spec: pipelined = sequential, and a
# microbatch of 64 sequences (the batch-regime sweep's large batches).
"$tfc" compile "$ex/tiny_narrow.yaml" -o "$work/ngen" -q
build "$work/ngen" "$work/tiny_narrow"
"$work/tiny_narrow" check --model mlp_narrow --steps 2 --mb-seqs 64 --order shuffled
if "$work/tiny_narrow" train --steps 1 --model mlp > "$work/x.txt" 2>&1; then
  echo "a narrow-plan binary ran --model mlp"; exit 1
fi

# The transformer against its own spec.
if [ -f "$ex/tiny_gpt.yaml" ]; then
  "$tfc" compile "$ex/tiny_gpt.yaml" -o "$work/ggen" -q
  build "$work/ggen" "$work/tiny_gpt"
  "$work/tiny_gpt" check --model gpt --steps 2
  if "$work/tiny_gpt" train --steps 1 --model gpt --init "$work/p.bin" > "$work/x.txt" 2>&1; then
    echo "--init took the MLP's parameters for the transformer"; exit 1
  fi
  "$work/tiny_gpt" train --model gpt --steps 30 --eval-every 0 --log "$work/g.csv" > "$work/g.txt"
  python3 - "$work/g.csv" <<'PY'
import csv, sys
loss = [float(r["train_loss"]) for r in csv.DictReader(open(sys.argv[1]))]
first, last = sum(loss[:5]) / 5, sum(loss[-5:]) / 5
print(f"tiny_trainer --model gpt: loss {first:.3f} -> {last:.3f} over {len(loss)} steps")
sys.exit(0 if last < first - 0.3 else 1)
PY
fi
