#!/usr/bin/env bash
# The example trainer (ctest tiny_trainer), built against what tfc compiles
# from examples/tiny_trainer/tiny.yaml with strict flags:
#  - model.c's backward against finite differences in double, and frozen
#    tensors getting no gradient while the others keep theirs bit for bit;
#  - pipelined steps (two rank threads, the generated 1F1B program) equal
#    sequential ones bit for bit, with the plan's freezing;
#  - its profile is a measured-timing file tfc accepts, one row per action
#    and step;
#  - a short run with the plan's freezing learns (the loss falls), skips
#    weight-gradient work, and never freezes more elements than planned; a
#    run without freezing skips none.
#   check.sh TFC SOURCE_DIR
set -euo pipefail
tfc=$1
src=$2
ex=$src/examples/tiny_trainer
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags="-std=c11 -O2 -Wall -Wextra -Wpedantic -Werror"

gcc $flags -DTINY_REAL=double -o "$work/gradcheck" "$ex/gradcheck.c" "$ex/model.c" -lm
"$work/gradcheck"

"$tfc" compile "$ex/tiny.yaml" -o "$work/gen" -q
gcc $flags -I"$work/gen" -I"$ex" -o "$work/tiny_trainer" "$ex"/{main,model,corpus,pipe,plot}.c \
  "$work/gen/tiny.c" "$work/gen/tiny_lcp_index.c" -pthread -lm
"$work/tiny_trainer" check --steps 3

mkdir -p "$work/spec/profile"
"$work/tiny_trainer" profile "$work/spec/profile" --steps 2
actions=$(sed -n 's/^#define TINY_ACTIONS \([0-9]*\)u$/\1/p' "$work/gen/tiny.h")
for f in unfrozen frozen; do
  rows=$(($(wc -l < "$work/spec/profile/$f.csv") - 1))
  [ "$rows" -eq $((2 * actions)) ] || { echo "profile $f.csv: $rows rows, want $((2 * actions))"; exit 1; }
done
cp "$ex/tiny.yaml" "$work/spec/"
"$tfc" compile "$work/spec/tiny.yaml" -o "$work/gen2" -q

# 40 steps in the fully ramped regime (warm-up 100 + ramp 100).
"$work/tiny_trainer" train --steps 40 --first-step 200 --eval-every 0 --log "$work/f.csv" > "$work/f.txt"
"$work/tiny_trainer" train --steps 3 --no-freeze --eval-every 0 > "$work/n.txt"
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
print(f"tiny_trainer: loss {first:.3f} -> {last:.3f} over 40 steps; planned ratio {float(res['planned']):.3f}, "
      f"frozen share {float(res['frozen']):.3f}, weight-gradient work skipped {float(res['dw_skipped']):.3f}")
for b in bad:
    print("FAILED:", b)
sys.exit(1 if bad else 0)
PY
