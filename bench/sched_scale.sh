#!/usr/bin/env bash
# Schedule + DAG + simulation at the issue's scale (64 ranks x 2 stages,
# 1024 microbatches), one process per schedule so each peak RSS is its own.
#   bench/sched_scale.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -x "$build/bench_sched" ] || { cmake -S . -B "$build" >/dev/null && cmake --build "$build" -j "$(nproc)" >/dev/null; }
for s in Interleaved1F1B ZBH1 ZBV; do "$build/bench_sched" "$s"; done
"$build/bench_sched" 1F1B 128 1 1024
"$build/bench_sched" GPipe 128 1 1024
