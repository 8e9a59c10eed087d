#!/usr/bin/env bash
# Latency of `tfc check`: per process (hyperfine, against `tfc --help`, which
# is process start alone) and in-process (bench_check, against libyaml's own
# document loader). Target (issue #2): under 10 ms for the default spec.
#   bench/check_latency.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -x "$build/tfc" ] && [ -x "$build/bench_check" ] || { cmake -S . -B "$build" >/dev/null && cmake --build "$build" -j "$(nproc)" >/dev/null; }
spec=specs/llama8b_1f1b.yaml

echo "== per process (wall time, hyperfine)"
if command -v hyperfine >/dev/null; then
  hyperfine -N --warmup 20 --runs 300 --export-json /tmp/tfc-check-latency.json \
    "$build/tfc check -q $spec" "$build/tfc --help" >/dev/null 2>&1
  python3 - <<'PY'
import json
r = json.load(open("/tmp/tfc-check-latency.json"))["results"]
check, start = r[0], r[1]
print(f"  tfc check default spec  median {check['median']*1e3:6.2f} ms  (mean {check['mean']*1e3:.2f} +- {check['stddev']*1e3:.2f})")
print(f"  tfc --help (baseline)   median {start['median']*1e3:6.2f} ms")
print(f"  ratio check / baseline  {check['median']/start['median']:.2f}")
print(f"  under the 10 ms target: {'yes' if check['median'] < 0.010 else 'NO'}")
PY
else
  echo "  hyperfine not installed (apt-get install hyperfine); skipped"
fi
echo "== in process"
"$build/bench_check" "$spec"
