#!/usr/bin/env bash
# Crash safety of tfc compile (ctest codegen_crash): SIGKILL tfc at random
# moments while it rewrites an existing output folder, alternating between
# two specs with different plans; after every kill the folder must be
# exactly the old output or exactly the new one: never a mix, never
# missing. Leftover temporary siblings of killed runs must be cleared by the
# next compile. Then: compiles started together into one missing (and one
# existing) folder all succeed and leave a folder that passes its MANIFEST;
# and the two-rename fallback (no RENAME_EXCHANGE, forced by a test hook)
# killed exactly between its renames (another hook stops it there) leaves
# the documented state, which the next compile repairs.
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

# Concurrent compiles (parallel build systems): six at once into a missing
# folder, then six into the existing one, five rounds each.
manifest_ok() { (cd "$1" && grep -v '^#' MANIFEST | sed 's/^\([0-9a-f]*\)  /\1  /' | sha256sum -c --quiet - >/dev/null 2>&1); }
for round in 1 2 3 4 5; do
  for target in "$work/par$round" "$work/par$round"; do
    pids=()
    for j in 1 2 3 4 5 6; do
      "$tfc" compile "$work/a.yaml" -o "$target" -q --skip-cuda-check 2>"$work/par.err.$j" &
      pids+=($!)
    done
    for j in "${!pids[@]}"; do
      wait "${pids[$j]}" || fail "concurrent compile $((j + 1)) into $target failed: $(cat "$work/par.err.$((j + 1))")"
    done
    diff -r "$target" "$work/ref_a" >/dev/null || fail "after concurrent compiles $target is not the output"
    manifest_ok "$target" || fail "after concurrent compiles $target does not pass its MANIFEST"
  done
done
left=$(find "$work" -maxdepth 1 -name '.par*.tfc-*' | wc -l)
[ "$left" -eq 0 ] || fail "$left temporary folders left by concurrent compiles"

# The two-rename fallback, stopped between its renames and killed there.
rm -rf "$work/fb"
cp -r "$work/ref_a" "$work/fb"
TFC_TEST_OUTDIR_NO_EXCHANGE=1 "$tfc" compile "$work/b.yaml" -o "$work/fb" -q --skip-cuda-check &
pid=$!
for ((t = 0; t < 200; t++)); do
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || echo gone)
  [ "$state" = T ] && break
  [ "$state" = gone ] && break
  sleep 0.05
done
[ "$state" = gone ] || fail "without the stop hook the fallback run stopped"
wait "$pid" || fail "the fallback compile (no RENAME_EXCHANGE) failed"
diff -r "$work/fb" "$work/ref_b" >/dev/null || fail "the fallback compile did not write the new folder"
TFC_TEST_OUTDIR_NO_EXCHANGE=1 TFC_TEST_OUTDIR_STOP_BETWEEN=1 "$tfc" compile "$work/a.yaml" -o "$work/fb" -q --skip-cuda-check &
pid=$!
for ((t = 0; t < 400; t++)); do
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null || echo gone)
  [ "$state" = T ] && break
  sleep 0.05
done
[ "$state" = T ] || fail "the fallback run did not stop between its renames (state $state)"
kill -9 "$pid"
wait "$pid" 2>/dev/null || true
# What a user finds: the folder missing, the previous one whole beside it
# (.NAME.tfc-old-PID-*), the new one whole (.NAME.tfc-PID-*).
[ ! -e "$work/fb" ] || fail "between the renames the folder should be absent"
old=$(find "$work" -maxdepth 1 -name ".fb.tfc-old-$pid-*")
new=$(find "$work" -maxdepth 1 -name ".fb.tfc-$pid-*")
[ -n "$old" ] && [ -n "$new" ] || fail "the fallback left neither the previous nor the new folder beside it"
diff -r "$old" "$work/ref_b" >/dev/null || fail "the folder moved aside is not the previous output"
diff -r "$new" "$work/ref_a" >/dev/null || fail "the new folder beside it is not whole"
# The next tfc compile into it first puts the previous folder back: seen by
# stopping that one between its renames too (it only gets there when the
# folder exists again) and finding the previous output moved aside.
TFC_TEST_OUTDIR_NO_EXCHANGE=1 TFC_TEST_OUTDIR_STOP_BETWEEN=1 "$tfc" compile "$work/a.yaml" -o "$work/fb" -q --skip-cuda-check &
pid2=$!
for ((t = 0; t < 400; t++)); do
  state=$(awk '{print $3}' "/proc/$pid2/stat" 2>/dev/null || echo gone)
  [ "$state" = T ] || [ "$state" = gone ] && break
  sleep 0.05
done
[ "$state" = T ] || fail "the compile after the kill did not find the previous folder put back (state $state)"
old2=$(find "$work" -maxdepth 1 -name ".fb.tfc-old-$pid2-*")
[ -n "$old2" ] && diff -r "$old2" "$work/ref_b" >/dev/null || fail "the folder put back is not the previous output"
kill -CONT "$pid2"
wait "$pid2" || fail "the compile after the kill failed"
diff -r "$work/fb" "$work/ref_a" >/dev/null || fail "the compile after the kill did not write the folder"
left=$(find "$work" -maxdepth 1 -name '.fb.tfc-*' | wc -l)
[ "$left" -eq 0 ] || fail "$left temporary folders left after the repair"
echo "crash check: 5 rounds of 6 concurrent compiles into a missing and an existing folder; the two-rename fallback killed between its renames left the previous and the new folder whole beside the missing one, and the next compile repaired it"
