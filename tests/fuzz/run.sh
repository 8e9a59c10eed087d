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
cmake --build "$out" -j "$(nproc)" --target fuzz_spec fuzz_csv >/dev/null

seed() { # harness -> seed folder
  local dir="$out/corpus-$1"
  rm -rf "$dir" && mkdir -p "$dir"
  case "$1" in
    fuzz_spec) cp specs/*.yaml tests/hostile/*.yaml tests/specs/*.yaml tests/yaml_bad/*/*.yaml "$dir"/ ;;
    fuzz_csv) cp specs/*.csv tests/specs/*.csv "$dir"/
              printf '0F0,0F1,0F2,2F0,2F1,2F2,2B0,2B1,2B2,0B0,0B1,0B2\n1F0,1F1,1F2,3F0,3I0,3W0,3F1,3I1,3W1,3F2,3I2,3W2,1B0,1B1,1B2\n' > "$dir/split.csv" ;;
  esac
  echo "$dir"
}

status=0
for h in fuzz_spec fuzz_csv; do
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
