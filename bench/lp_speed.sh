#!/usr/bin/env bash
# The freeze LP's speed: tfc's two phases with lp_solve against scipy's HiGHS
# solving phase 1 alone on the same LP (dumped by tfc plan --dump-lp), in the
# same run. Ratio = tfc two-phase seconds / HiGHS phase-1 seconds (target
# <= 1.0 at 1F1B 16 ranks x 256 microbatches). Needs /usr/bin/python3 with
# scipy (Debian: python3-scipy).
#   bench/lp_speed.sh [BUILD_DIR] [TIMEOUT_S]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
limit=${2:-120}
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
    echo "  tfc lp_solve: did not finish within ${limit} s per phase; ratio > $(/usr/bin/python3 -c "print(f'{$limit / $highs:.1f}')")"
  fi
}

run 1F1B 4 1 32
run 1F1B 8 1 64
run 1F1B 8 1 128
run 1F1B 16 1 64
run 1F1B 16 1 128
run GPipe 16 1 128
run 1F1B 16 1 256
