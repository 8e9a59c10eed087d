#!/usr/bin/env bash
# tfc under valgrind memcheck (ctest valgrind): every verb on good and bad
# inputs must run with zero memcheck errors and zero leaks (definite,
# indirect and possible). Skips (exit 77) where valgrind is not installed.
#   check.sh TFC SOURCE_DIR
set -uo pipefail
tfc=$1
src=$2
if ! command -v valgrind >/dev/null; then
  [ -n "${CI:-}" ] && { echo "valgrind not installed: in CI every part but the GPU run is required"; exit 1; }
  echo "valgrind not installed: skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
spec=$src/specs/llama8b_1f1b.yaml
python3 - "$work" <<'PY'
import struct, sys
w = sys.argv[1]
toks = [(i * 7) % 11 + (i // 50) % 3 for i in range(4000)]
open(f"{w}/s.bin", "wb").write(struct.pack("<256i", 20240520, 1, len(toks), *([0] * 253)) + struct.pack("<%dH" % len(toks), *toks))
open(f"{w}/q.bin", "wb").write(struct.pack("<256i", 20240520, 1, 64, *([0] * 253)) + struct.pack("<64H", *toks[:64]))
open(f"{w}/bad.yaml", "w").write("tfc: 1\nname: 9x\nmodel: {stages: [{params: [{name: a, numel: -1}]}]}\npipeline: {schedule: Nope}\n")
PY
runs=(
  "check $spec"
  "plan $spec"
  "plan $spec --json"
  "plan $spec --policy uniform"
  "plan $src/specs/llama8b_zbv.yaml"
  "plan $src/specs/llama8b_custom.yaml"
  "plan $spec --sweep $work/sweep"
  "compile $spec -o $work/out --skip-cuda-check"
  "compile $spec -o $work/out --skip-cuda-check"
  "check $work/bad.yaml"
  "check $work/missing.yaml"
  "compile $work/bad.yaml -o $work/out"
  "index build --tokens $work/s.bin --seq-len 16 --stride 8 -o $work/i.idx -q"
  "index query $work/i.idx --tokens $work/s.bin --queries $work/q.bin -k 5"
  "index dedup $work/i.idx --tokens $work/s.bin --min-lcp 4"
  "index order $work/i.idx --tokens $work/s.bin -o $work/o.bin"
  "index query $work/s.bin --tokens $work/s.bin --queries $work/q.bin -k 5"
  "--version"
  "--help"
)
status=0
for r in "${runs[@]}"; do
  # shellcheck disable=SC2086
  valgrind --quiet --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
    --show-leak-kinds=definite,indirect,possible "$tfc" $r >/dev/null 2>"$work/vg.txt"
  rc=$?
  if [ $rc -eq 99 ] || grep -q "==[0-9]*==" "$work/vg.txt"; then
    echo "valgrind: tfc $r:" >&2
    grep "==[0-9]*==" "$work/vg.txt" | head -30 >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "valgrind: ${#runs[@]} runs of tfc, no memcheck errors, no leaks"
exit $status
