#!/usr/bin/env bash
# The freeze LP's speed: tfc's two phases (the decomposition, lp_solve on
# its master) against scipy's HiGHS solving phase 1 alone on the same LP
# (dumped by tfc plan --dump-lp), in the same run. Ratio = tfc two-phase
# seconds / HiGHS phase-1 seconds (target <= 1.0 at 1F1B 16 ranks x 256
# microbatches). With --large, also the 100,000-action target (ZBV, 32
# ranks x 2 stages x 512 microbatches: 98,304 actions) with its wall time
# and peak memory (target: under 60 s and 1 GB). Needs /usr/bin/python3 with
# scipy (Debian: python3-scipy).
#   bench/lp_speed.sh [BUILD_DIR] [TIMEOUT_S] [--large]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
limit=${2:-120}
large=${3:-}
[ -x "$build/bench_lp" ] || { cmake -S . -B "$build" >/dev/null && cmake --build "$build" -j "$(nproc)" >/dev/null; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Spec: SCHEDULE RANKS STAGES_PER_RANK MICROBATCHES, forward 1.0-1.6 ms,
# backward 2x, frozen backward 1x (I = W = forward when split), cap 0.9.
make_spec() {
  /usr/bin/python3 - "$@" <<'PY'
import sys
sched, p, v, m, path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
n = p * v
fwd = [1.0 + 0.6 * ((i * 7) % 5) / 4 for i in range(n)]
f = ", ".join(f"{x:.2f}" for x in fwd)
b = ", ".join(f"{2 * x:.2f}" for x in fwd)
lines = ["tfc: 1", "name: bench", "model:", "  stages:"] + ["    - params: [{name: w, numel: 1}]"] * n
lines.append(f"pipeline: {{schedule: {sched}, ranks: {p}, stages_per_rank: {v}, microbatches: {m}}}")
if sched in ("ZBH1", "ZBV"):
    lines.append(f"timing: {{forward_ms: [{f}], backward_input_ms: [{f}], backward_weight_ms: [{f}], comm_ms: 0.05}}")
else:
    lines.append(f"timing: {{forward_ms: [{f}], backward_ms: [{b}], backward_frozen_ms: [{f}], comm_ms: 0.05}}")
lines.append("freeze: {max_ratio: 0.9}")
open(path, "w").write("\n".join(lines) + "\n")
PY
}

run() {
  local spec="$work/$1_$2x$3x$4.yaml"
  make_spec "$1" "$2" "$3" "$4" "$spec"
  echo "== $1 ranks=$2 stages_per_rank=$3 microbatches=$4"
  "$build/tfc" plan "$spec" --dump-lp "$work/lp.json"
  local highs
  highs=$(/usr/bin/python3 tests/lp_oracle.py --time "$work/lp.json" | cut -d' ' -f1)
  echo "  HiGHS phase 1: $highs s"
  local out
  if out=$(timeout $((limit + 30)) "$build/bench_lp" "$spec" "$limit"); then
    echo "$out" | grep -v TOTAL_SECONDS
    local mine
    mine=$(echo "$out" | sed -n 's/^TOTAL_SECONDS //p')
    /usr/bin/python3 -c "print(f'  ratio tfc two-phase / HiGHS phase 1 = {$mine / $highs:.2f}')"
  else
    echo "  tfc: did not finish within ${limit} s per phase; ratio > $(/usr/bin/python3 -c "print(f'{$limit / $highs:.1f}')")"
  fi
}

run 1F1B 4 1 32
run 1F1B 8 1 64
run 1F1B 8 1 128
run 1F1B 16 1 64
run 1F1B 16 1 128
run GPipe 16 1 128
run ZBV 8 2 64
run ZBV 16 2 128
run 1F1B 16 1 256

if [ "$large" = --large ]; then
  spec="$work/large.yaml"
  make_spec ZBV 32 2 512 "$spec"
  echo "== ZBV ranks=32 stages_per_rank=2 microbatches=512 (target: under 60 s, under 1 GB)"
  /usr/bin/time -f "  wall %e s, peak memory %M KB" timeout $((limit + 30)) "$build/bench_lp" "$spec" "$limit" ||
    echo "  tfc: did not finish within ${limit} s per phase"
  # What a user waits for: the default tfc plan (freeze.balance: minmax,
  # phases 1-3) and the same with balance: none (phases 1-2), T* and the
  # phase-2 total compared (they must be equal). Target: the default plan
  # under 30 s and 1 GB on 2 cores (ambition 10 s).
  echo "== the default tfc plan on it (balance: minmax), and with balance: none"
  /usr/bin/time -f "  default plan: wall %e s, peak memory %M KB" "$build/tfc" plan "$spec" --json -q >"$work/minmax.json"
  sed 's/freeze: {max_ratio: 0.9}/freeze: {max_ratio: 0.9, balance: none}/' "$spec" >"$work/none.yaml"
  /usr/bin/time -f "  balance none: wall %e s, peak memory %M KB" "$build/tfc" plan "$work/none.yaml" --json -q >"$work/none.json"
  /usr/bin/python3 - "$work/minmax.json" "$work/none.json" <<'PY'
import json, sys
a, b = (json.load(open(p))["lp"] for p in sys.argv[1:3])
print(f"  T* {a['t_star_ms']:.6f} vs {b['t_star_ms']:.6f} ms, phase-2 total {a['total_freeze']:.6f} vs {b['total_freeze']:.6f}"
      f"{'' if abs(a['t_star_ms'] - b['t_star_ms']) <= 1e-6 * b['t_star_ms'] and abs(a['total_freeze'] - b['total_freeze']) <= 1e-6 * max(1, b['total_freeze']) else '  DIFFERENT'}")
PY
fi
