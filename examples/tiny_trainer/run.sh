#!/usr/bin/env bash
# The example end to end (README.md): measure the model's own actions,
# plan with them, train without and with the plan's freezing over the same
# steps and data, plot the losses.
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
# 3. Pipelined steps equal sequential ones; then the two training runs.
"$out/tiny_trainer" check
"$out/tiny_trainer" train --steps "$steps" --no-freeze --log "$out/no_freeze.csv" | tee "$out/no_freeze.txt"
"$out/tiny_trainer" train --steps "$steps" --log "$out/freeze.csv" | tee "$out/freeze.txt"
"$out/tiny_trainer" plot "$out/no_freeze.csv" "$out/freeze.csv" "$out/loss.svg"
nf=$(sed -n 's/^RESULT val_loss=\([^ ]*\).*/\1/p' "$out/no_freeze.txt")
fr=$(sed -n 's/^RESULT val_loss=\([^ ]*\).*/\1/p' "$out/freeze.txt")
awk -v a="$nf" -v b="$fr" 'BEGIN { printf "validation loss: no freezing %.4f, freezing %.4f (%+.2f%% relative)\n", a, b, 100 * (b - a) / a }'
echo "loss curves: $out/loss.svg"
