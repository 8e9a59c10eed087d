#!/usr/bin/env bash
# Generated code and tfc compile, timed:
#  - NAME_freeze_ratio ns per call (target < 20 ns) and NAME_frozen_mask us
#    per call on a 1,000-tensor stage (target < 5 us), gcc -O2, and the
#    frozen share's distance from the ratio;
#  - tfc compile of the default spec without and with the NVRTC check
#    (target < 1 s plus NVRTC), median of 5 runs each.
#   bench/codegen.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -x "$build/tfc" ] || { cmake -S . -B "$build" >/dev/null && cmake --build "$build" -j "$(nproc)" >/dev/null; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 2 stages; stage 0 has 1,000 tensors of mixed sizes (a transformer's mix of
# norms, projections and MLP matrices), stage 1 has 10.
python3 - "$work/b1k.yaml" <<'PY'
import sys
sizes = [4096, 16777216, 4194304, 4194304, 16777216, 4096, 58720256, 58720256, 58720256, 2048]
lines = ["tfc: 1", "name: b1k", "model:", "  stages:", "    - params:"]
lines += [f"        - {{name: t{i}, numel: {sizes[i % 10]}}}" for i in range(1000)]
lines += ["    - params:"] + [f"        - {{name: u{i}, numel: {sizes[i]}}}" for i in range(10)]
lines += ["pipeline: {schedule: 1F1B, ranks: 2, microbatches: 8}",
          "timing: {forward_ms: [10, 12], backward_ms: [20, 24], backward_frozen_ms: [10, 12]}",
          "freeze: {max_ratio: 0.6}"]
open(sys.argv[1], "w").write("\n".join(lines) + "\n")
PY
"$build/tfc" compile "$work/b1k.yaml" -o "$work/b1k" -q --skip-cuda-check
gcc -std=c11 -O2 -I"$work/b1k" -o "$work/bench" bench/codegen_speed.c "$work/b1k"/b1k.c -lm
"$work/bench"

median() { sort -n | sed -n 3p; }
time_compile() {
  for i in 1 2 3 4 5; do
    local t0 t1
    t0=$(date +%s.%N)
    "$build/tfc" compile specs/llama8b_1f1b.yaml -o "$work/default" -q "$@"
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }'
  done | median
}
no_cuda=$(time_compile --skip-cuda-check)
with_cuda=$(time_compile)
printf 'tfc compile specs/llama8b_1f1b.yaml: %.3f s without the CUDA check, %.3f s with NVRTC (%s)\n' "$no_cuda" \
  "$with_cuda" "$("$build/tfc" --version | grep NVRTC)"
