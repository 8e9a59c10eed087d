#!/usr/bin/env bash
# tfc plan --compare against its targets (default spec under 1 s; 16 ranks
# x 128 microbatches under 10 s, default balance) and against the baseline
# a user has without it: one `tfc plan` per schedule, one after another, on
# specs written for each schedule (python/tfc_spec.py from-hf
# --schedule S). Best of three runs each.
#   bench/compare_speed.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -x "$build/tfc" ] || { cmake -S . -B "$build" >/dev/null && cmake --build "$build" -j "$(nproc)" >/dev/null; }
tfc=$build/tfc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
best() { # best wall seconds of three runs of "$@"
  local b=
  for _ in 1 2 3; do
    local t0 t1
    t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N)
    b=$(echo "$t1 - $t0" | bc | awk -v b="$b" '{ if (b == "" || $1 < b) print $1; else print b }')
  done
  echo "$b"
}
each() { # every schedule's spec planned one after another
  for s in GPipe 1F1B Interleaved1F1B ZBH1 ZBV LoopedBFS DualPipeV; do "$tfc" plan "$work/$1_$s.yaml" -q; done
}
cfg=tests/python/hf_configs/Meta-Llama-3-8B.json
for shape in "4 8" "16 128"; do
  set -- $shape
  for s in GPipe 1F1B Interleaved1F1B ZBH1 ZBV LoopedBFS DualPipeV; do
    python3 python/tfc_spec.py from-hf "$cfg" --name llama3_8b --ranks "$1" --microbatches "$2" --schedule "$s" \
      -q -o "$work/r$1_$s.yaml"
  done
done
d=$(best "$tfc" plan specs/llama8b_1f1b.yaml --compare "$work/c0" -q)
echo "default spec (llama8b_1f1b.yaml, 4 x 8): --compare $d s (target: under 1 s)"
for shape in 4 16; do
  m=$([ "$shape" = 4 ] && echo 8 || echo 128)
  c=$(best "$tfc" plan "$work/r${shape}_1F1B.yaml" --compare "$work/c$shape" -q)
  b=$(best each "r$shape")
  echo "Llama-3-8B from its config, $shape ranks x $m microbatches: --compare $c s, one tfc plan per schedule $b s," \
       "ratio $(echo "scale=3; $c / $b" | bc)$([ "$shape" = 16 ] && echo " (target: under 10 s)")"
done
echo "cpus: $(nproc)"
