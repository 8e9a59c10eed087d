#!/usr/bin/env bash
# Crash safety of tfc compile (ctest codegen_crash): SIGKILL tfc at random
# moments while it rewrites an existing output folder, alternating between
# two specs with different plans; after every kill the folder must be
# exactly the old output or exactly the new one: never a mix, never
# missing. Leftover temporary siblings of killed runs must be cleared by the
# next compile.
#   crash.sh TFC SOURCE_DIR [ROUNDS]
set -euo pipefail
tfc=$1
src=$2
rounds=${3:-80}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "crash check: $*" >&2; exit 1; }

sed 's/max_ratio: 0.9/max_ratio: 0.5/' "$src/specs/llama8b_1f1b.yaml" >"$work/b.yaml"
cp "$src/specs/llama8b_1f1b.yaml" "$work/a.yaml"
grep -q "max_ratio: 0.5" "$work/b.yaml" || fail "could not derive a second spec"
"$tfc" compile "$work/a.yaml" -o "$work/ref_a" -q --skip-cuda-check
"$tfc" compile "$work/b.yaml" -o "$work/ref_b" -q --skip-cuda-check
diff -rq "$work/ref_a" "$work/ref_b" >/dev/null && fail "the two specs give the same folder"
cp -r "$work/ref_a" "$work/out"

killed=0 finished=0 a_seen=0 b_seen=0
for ((i = 0; i < rounds; i++)); do
  spec=$work/a.yaml
  ((i % 2)) && spec=$work/b.yaml
  "$tfc" compile "$spec" -o "$work/out" -q --skip-cuda-check 2>/dev/null &
  pid=$!
  # 0 to 30 ms: before, during and after the write and the swap.
  sleep "0.0$((RANDOM % 31 / 10))$((RANDOM % 10))"
  if kill -9 "$pid" 2>/dev/null; then killed=$((killed + 1)); fi
  wait "$pid" 2>/dev/null && finished=$((finished + 1)) || true
  [ -d "$work/out" ] || fail "round $i: the folder is missing"
  if diff -r "$work/out" "$work/ref_a" >/dev/null; then
    a_seen=$((a_seen + 1))
  elif diff -r "$work/out" "$work/ref_b" >/dev/null; then
    b_seen=$((b_seen + 1))
  else
    diff -rq "$work/out" "$work/ref_a" | head -5 >&2
    fail "round $i: the folder is neither the old nor the new output"
  fi
done
# A normal run clears what killed runs left behind.
"$tfc" compile "$work/a.yaml" -o "$work/out" -q --skip-cuda-check
left=$(find "$work" -maxdepth 1 -name '.out.tfc-*' | wc -l)
[ "$left" -eq 0 ] || fail "$left temporary folders of killed runs were not cleared"
echo "crash check: $rounds rounds, $killed killed mid-run, $finished finished; folder was old/new output $a_seen/$b_seen times, never mixed or missing"
