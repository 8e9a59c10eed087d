#!/usr/bin/env bash
# The example end to end (README.md): measure the model's own actions,
# plan with them, train without and with the plan's freezing over the same
# data, plot the losses, and print the time to quality tfc predicts (from the
# gradient noise scale the trainer measures) beside the one measured.
#   examples/tiny_trainer/run.sh [TFC] [OUT_DIR] [STEPS]
# TFC defaults to build/tfc (./run.sh demo builds it), OUT_DIR to
# build/tiny_trainer, STEPS to 600. The MLP (tiny.yaml) with the trainer's
# defaults: constant learning rate 2e-3, --grad share, no weight decay.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tfc=$(realpath "${1:-$root/build/tfc}")
out=$(realpath -m "${2:-$root/build/tiny_trainer}")
steps=${3:-600}
cc=${CC:-cc}
cflags="-std=c11 -O3 -Wall -Wextra"
mkdir -p "$out/spec/profile"

build() { # the trainer against the folder tfc generated into $out/gen
  "$cc" $cflags -I"$out/gen" -I"$here" -o "$out/tiny_trainer" "$here"/{main,model,mlp,gpt,corpus,pipe,plot}.c \
    "$out/gen/tiny.c" "$out/gen/tiny_lcp_index.c" -pthread -lm
}

# 1. A first plan from the profile checked in with the example (the
#    program order does not depend on timings), to run the profile with.
"$tfc" compile "$here/tiny.yaml" -o "$out/gen" -q
build
# 2. Measure every action on this machine, nothing frozen and everything
#    frozen, and plan again from those measurements.
"$out/tiny_trainer" profile "$out/spec/profile" --steps 30
cp "$here/tiny.yaml" "$out/spec/tiny.yaml"
"$tfc" plan "$out/spec/tiny.yaml"
"$tfc" compile "$out/spec/tiny.yaml" -o "$out/gen" -q
build
# 3. Pipelined steps equal sequential ones; then the two training runs: the
#    one with freezing goes on past STEPS (up to twice) until its smoothed
#    validation loss reaches the no-freezing run's final one, L*.
"$out/tiny_trainer" check
"$out/tiny_trainer" train --steps "$steps" --no-freeze --log "$out/no_freeze.csv" --save "$out/no_freeze.bin" |
  tee "$out/no_freeze.txt"
lstar=$(sed -n 's/^RESULT .*val_loss_last3=\([^ ]*\).*/\1/p' "$out/no_freeze.txt")
"$out/tiny_trainer" train --steps $((2 * steps)) --stop-below "$lstar" --stop-from "$steps" --log "$out/freeze.csv" |
  tee "$out/freeze.txt"
"$out/tiny_trainer" plot "$out/no_freeze.csv" "$out/freeze.csv" "$out/loss.svg"
# 4. Time to quality, predicted and measured. The batch regime: the gradient
#    noise scale B_simple at the no-freezing run's end against the step's
#    batch, written into the spec's training section so that tfc predicts
#    (docs/time-to-quality.md); then the runs' own time to L*.
"$out/tiny_trainer" noise --init "$out/no_freeze.bin" --steps 100 >"$out/noise.txt"
bsimple=$(sed -n 's/^RESULT b_simple=\([^ ]*\) batch=\([^ ]*\).*/\1/p' "$out/noise.txt")
batch=$(sed -n 's/^RESULT b_simple=\([^ ]*\) batch=\([^ ]*\).*/\2/p' "$out/noise.txt")
{ cat "$out/spec/tiny.yaml"; echo "training: {batch_tokens: $batch, noise_scale_tokens: $bsimple, steps: $steps}"; } \
  >"$out/spec/tiny_training.yaml"
"$tfc" plan "$out/spec/tiny_training.yaml" | grep -E '^(time to quality|at most) '
python3 - "$out/no_freeze.csv" "$out/freeze.csv" "$lstar" "$steps" <<'PY'
import csv, sys
def curve(path):  # (step, wall s, plan s, loss smoothed over the last 3 evaluations) at each evaluation
    out, plan, ev = [], 0.0, []
    for r in csv.DictReader(open(path)):
        plan += float(r["plan_ms"]) / 1000
        if r["val_loss"]:
            ev.append(float(r["val_loss"]))
            out.append((int(r["step"]), float(r["wall_s"]), plan, sum(ev[-3:]) / len(ev[-3:])))
    return out
def reach(c, target, col):
    for i, p in enumerate(c):
        if p[3] <= target:
            if i == 0 or c[i - 1][3] <= p[3]:
                return p[col]
            q = c[i - 1]
            return q[col] + (p[col] - q[col]) * (q[3] - target) / (q[3] - p[3])
    return None
none, frz, lstar, n = curve(sys.argv[1]), curve(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
at_n = [p[3] for p in frz if p[0] == n - 1]
if at_n:
    print(f"validation loss after {n} steps: no freezing {lstar:.4f}, freezing {at_n[0]:.4f} "
          f"({100 * (at_n[0] - lstar) / lstar:+.2f}% relative)")
tw, tp = reach(frz, lstar, 1), reach(frz, lstar, 2)
if tw is None:
    print(f"time to quality measured: freezing never reached L* = {lstar:.4f} in {frz[-1][0] + 1} steps "
          f"(at most {reach(none, lstar, 1) / frz[-1][1]:.3f}x)")
else:
    print(f"time to quality measured: {reach(none, lstar, 1) / tw:.3f}x by wall-clock, "
          f"{reach(none, lstar, 2) / tp:.3f}x by the plan's step times (L* = {lstar:.4f})")
PY
