#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (ASan + UBSan) and runs each for
# a bounded time on its seed corpus (tests/, specs/). A crash fails the run
# and leaves the input in build-fuzz/; make it a regression test, then fix.
# Prints executions per second and total executions per harness.
#   tests/fuzz/run.sh [SECONDS_PER_HARNESS]    (default 60)
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
out=build-fuzz
CC=clang cmake -S . -B "$out" -DTFC_FUZZ=ON -DTFC_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$out" -j "$(nproc)" --target tfc fuzz_spec fuzz_csv fuzz_shard fuzz_index fuzz_timing fuzz_plan fuzz_set >/dev/null

seed() { # harness -> seed folder
  local dir="$out/corpus-$1"
  rm -rf "$dir" && mkdir -p "$dir"
  case "$1" in
    fuzz_spec) cp specs/*.yaml tests/hostile/*.yaml tests/specs/*.yaml tests/yaml_bad/*/*.yaml "$dir"/
               # pipeline.processors and timing.scale, which no bundled spec uses
               printf 'tfc: 1\nname: s\nmodel:\n  stages:\n    - params: [{name: a, numel: 1}]\n    - params: [{name: b, numel: 2}]\npipeline: {schedule: 1F1B, ranks: 2, microbatches: 2, processors: 1}\ntiming: {source: trace, file: [a.json, b.json], frozen_file: c.json, scale: 0.9}\n' >"$dir/shared.yaml"
               # training, its pilot, lr_ratio and freeze_noise_scale_tokens, and max_ratio: auto, which no bundled spec uses
               printf 'tfc: 1\nname: t\nmodel:\n  stages:\n    - params: [{name: a, numel: 4}]\n    - params: [{name: b, numel: 2}]\npipeline: {schedule: 1F1B, ranks: 2, microbatches: 4}\ntiming: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\nfreeze: {max_ratio: auto, warmup_steps: 10, ramp_steps: 4}\ntraining:\n  batch_tokens: 131072\n  noise_scale_tokens: 2.8e4\n  steps: 80\n  freeze_noise_scale_tokens: 1743\n  pilot: {max_ratio: 0.9, speedup: 1.125}\n' >"$dir/pilot.yaml"
               printf 'tfc: 1\nname: t\nmodel:\n  stages:\n    - params: [{name: a, numel: 4}]\npipeline: {schedule: GPipe, ranks: 1, microbatches: 2}\ntiming: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1}\nfreeze: {max_ratio: 0.5}\ntraining: {batch_tokens: 9007199254740992, noise_scale_tokens: 1e18, steps: 1099511627776, lr_ratio: 1.999}\n' >"$dir/lr_ratio.yaml" ;;
    fuzz_csv) cp specs/*.csv tests/specs/*.csv "$dir"/
              printf '0F0,0F1,0F2,2F0,2F1,2F2,2B0,2B1,2B2,0B0,0B1,0B2\n1F0,1F1,1F2,3F0,3I0,3W0,3F1,3I1,3W1,3F2,3I2,3W2,1B0,1B1,1B2\n' > "$dir/split.csv" ;;
    fuzz_timing)
      printf 'rank,stage,microbatch,type,duration_ms\n0,0,0,F,1\n0,0,1,F,1.5\n1,1,0,F,2\n1,1,1,F,2\n1,1,0,B,4\n1,1,1,B,4\n0,0,0,B,3\n0,0,1,B,3\n' >"$dir/ok.csv"
      printf '0,0,0,F,1\n0,0,0,B,0\n1,1,1,X,2\n2,0,0,F,1\n0,0,0,F\n' >"$dir/bad.csv"
      printf '{"traceEvents": [{"name": "PP:0F0", "ph": "X", "ts": 0, "dur": 1000, "args": {"a": [1, true, null]}},\n {"name": "PP:1B1", "ph": "X", "dur": 2.5e3}], "x": "\\u00e9"}\n' >"$dir/trace.json"
      # overlapping events on one clock, as ranks sharing a processor write them
      printf '{"baseTimeNanoseconds": 1790857026000000000, "traceEvents": [{"name": "PP:0F0", "ph": "X", "ts": 0, "dur": 1000},\n {"name": "PP:1F0", "ph": "X", "ts": 500, "dur": 1000}, {"name": "PP:0B0", "ph": "X", "ts": 1500, "dur": 800}]}\n' >"$dir/shared.json" ;;
    fuzz_plan) cp generated/llama8b_1f1b/plan.json "$dir/p2.json"
               cp generated/llama8b_zbv/plan.json "$dir/zbv.json"
               printf '{"format": "tfc-plan-1", "stages": 1, "stages": [{"mean_freeze_ratio": 0.5}], "a": [1, {"b": "\\ud83d\\ude00"}]}' >"$dir/p1.json" ;;
    fuzz_set)
      # Sets naming the harness's own part (tests/fuzz/fuzz_set.c: s0.bin,
      # 600 tokens, and p0.idx, seq_len 4, beside the set): one valid, one
      # listing it twice, one with an absolute path.
      python3 - "$dir" <<'PY'
import struct, sys
d = sys.argv[1]
toks = [(i * 7) % 5 + (100 if i % 37 == 0 else 0) for i in range(600)]
open(f"{d}/s0.bin", "wb").write(struct.pack("<256i", 20240520, 1, 600, *([0] * 253)) + struct.pack("<600H", *toks))
PY
      "$out/tfc" index build --tokens "$dir/s0.bin" --seq-len 4 -o "$dir/p0.idx" -q
      "$out/tfc" index set -o "$dir/ok.set" --part "$dir/p0.idx" --tokens "$dir/s0.bin" -q
      python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
s = json.load(open(f"{d}/ok.set"))
two = dict(s, sequences=2 * s["sequences"], parts=[s["parts"][0], dict(s["parts"][0], first=s["sequences"])])
json.dump(two, open(f"{d}/twice.set", "w"))
json.dump(dict(s, parts=[dict(s["parts"][0], index="/p0.idx")]), open(f"{d}/abs.set", "w"))
PY
      rm -f "$dir/s0.bin" "$dir/p0.idx" ;;
    fuzz_shard|fuzz_index)
      # A small llm.c shard, a raw one, and the index of the first (the
      # shard fuzz_index pairs its inputs with: 600 tokens, seq_len 4).
      python3 - "$dir" <<'PY'
import struct, subprocess, sys
d = sys.argv[1]
toks = [(i * 7) % 5 + (100 if i % 37 == 0 else 0) for i in range(600)]
open(f"{d}/s.bin", "wb").write(struct.pack("<256i", 20240520, 1, 600, *([0] * 253)) + struct.pack("<600H", *toks))
open(f"{d}/r.raw", "wb").write(struct.pack("<64H", *toks[:64]))
PY
      "$out/tfc" index build --tokens "$dir/s.bin" --seq-len 4 -o "$dir/s.idx" -q
      [ "$1" = fuzz_index ] && rm -f "$dir/s.bin" "$dir/r.raw" ;;
  esac
  echo "$dir"
}

status=0
for h in fuzz_spec fuzz_csv fuzz_shard fuzz_index fuzz_timing fuzz_plan fuzz_set; do
  corpus=$(seed "$h")
  log="$out/$h.log"
  if ! (cd "$out" && "./$h" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
          -artifact_prefix="$h-" "corpus-$h" >"$h.log" 2>&1); then
    echo "$h: FAILED (see $log and $out/$h-*)"
    tail -30 "$log"
    status=1
    continue
  fi
  runs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | tail -1)
  n=$(echo "$runs" | awk '{print $2}')
  s=$(echo "$runs" | awk '{print $5}')
  echo "$h: $n executions in $s s ($((n / (s > 0 ? s : 1))) exec/s), no crash"
done
exit $status
