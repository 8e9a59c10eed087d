#!/usr/bin/env bash
# Installs tfc from BUILD_DIR into a temporary prefix and builds the small
# external project here against it with find_package(tfc) and
# tfc_generate(), and a data loader linking tfc::lcp, then runs both
# (ctest cmake_package), with Make and with Ninja: the build follows the
# files the spec names (edited, and a new one named), a second build and a
# second configure do nothing, and a relative OUTPUT_DIR with a trailing
# slash lands under the binary folder.
#   check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# The Python plan reader, installed next to the package.
want() { "$work/prefix/bin/tfc" plan "$work/src/custom.yaml" --json |
         python3 -c 'import json,sys; print("%.6f" % json.load(sys.stdin)["baseline_makespan_ms"])'; }
order_a='0F0,0F1,0F2,0F3,0B0,0B1,0B2,0B3\n1F0,1F1,1F2,1F3,1B3,1B2,1B1,1B0\n'
fail() { echo "cmake_package ($gen): $*"; exit 1; }
# A build that has nothing to do: no tfc compile, nothing compiled or linked.
idle() {
  local out
  out=$(cmake --build "$tr" 2>&1) || fail "$1: the build failed: $out"
  ! grep -E "tfc compile|Building C|Linking C|\[[0-9]+/[0-9]+\]" <<<"$out" >/dev/null ||
    fail "$1: the build did work: $(grep -E "tfc compile|Building C|Linking C|\[[0-9]+/[0-9]+\]" <<<"$out" | head -5)"
}

gens=("Unix Makefiles")
if command -v ninja >/dev/null; then
  gens+=(Ninja)
elif [ -n "${CI:-}" ]; then
  echo "cmake_package: ninja missing (ninja-build): in CI every part but the GPU run is required"; exit 1
fi
for gen in "${gens[@]}"; do
  # A fresh copy of the project each time: the test edits it.
  rm -rf "$work/src"
  cp -r "$src/tests/cmake_package" "$work/src"
  tr=$work/trainer-${gen// /_}
  cmake -G "$gen" -S "$work/src" -B "$tr" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
  cmake --build "$tr" >/dev/null
  "$tr/trainer"
  ls "$tr/tfc/pkg/MANIFEST" >/dev/null
  "$tr/loader" "$work"
  [ -f "$tr/rel/out/custom.h" ] || fail "OUTPUT_DIR rel/out/ is not under the binary folder: $(ls "$tr")"
  py=$(sed -n 's/^TFC_PYTHON_DIR:[A-Z]*=//p' "$tr/CMakeCache.txt")
  [ -f "$py/tfc_plan.py" ] || fail "tfc_plan.py not installed (TFC_PYTHON_DIR=$py)"
  summary=$(python3 "$py/tfc_plan.py" summary "$tr/tfc/pkg/plan.json")
  echo "${summary%%$'\n'*}"
  # Built: a second build and a second configure do nothing.
  idle "a second build"
  cmake "$tr" >/dev/null
  idle "a build after configuring again"

  # The order CSV is a dependency of the generated plan: edit it, rebuild,
  # and the program must carry the new makespan (tfc plan's, computed here).
  before=$("$tr/planned")
  [ "$before" = "$(want)" ] || fail "planned says $before, tfc plan $(want)"
  sleep 1 # a coarse file clock must see the edit as newer
  printf "$order_a" >"$work/src/order.csv"
  cmake --build "$tr" >/dev/null
  after=$("$tr/planned")
  [ "$after" = "$(want)" ] || fail "after editing order.csv: planned says $after, tfc plan $(want) (a stale plan)"
  [ "$after" != "$before" ] || fail "the two orders should plan different makespans ($before)"
  [ "$("$tr/planned_rel")" = "$after" ] || fail "planned_rel did not follow order.csv"
  # The spec edited to name another file: the build follows that file
  # from then on (it kept the first file's dependency, and a stale plan).
  cp "$src/tests/cmake_package/order.csv" "$work/src/order2.csv"
  sleep 1
  sed -i 's/order: order.csv/order: order2.csv/' "$work/src/custom.yaml"
  cmake --build "$tr" >/dev/null
  [ "$("$tr/planned")" = "$before" ] || fail "after naming order2.csv: planned says $("$tr/planned"), want $before"
  sleep 1
  printf "$order_a" >"$work/src/order2.csv"
  cmake --build "$tr" >/dev/null
  [ "$("$tr/planned")" = "$after" ] || fail "after editing order2.csv: planned says $("$tr/planned"), want $after (a stale plan)"
  idle "a build after the edits"
  echo "cmake_package ($gen): order.csv edited, then order2.csv named and edited: the makespan followed ($before -> $after -> $before -> $after ms); a second build and configure did nothing"
done
# A file the spec names with a ';' in its path: a CMake list cannot carry
# it, so configure says so (the build would otherwise wait on two halves).
rm -rf "$work/src"
cp -r "$src/tests/cmake_package" "$work/src"
cp "$work/src/order.csv" "$work/src/ord;er.csv"
sed -i 's/order: order.csv/order: "ord;er.csv"/' "$work/src/custom.yaml"
if out=$(cmake -S "$work/src" -B "$work/semi" -DCMAKE_PREFIX_PATH="$work/prefix" 2>&1); then
  echo "cmake_package: a ';' in an input's path configured: $out" | tail -5; exit 1
fi
grep -q "holds a ';'" <<<"$out" || { echo "cmake_package: a ';' path not named: $out" | tail -8; exit 1; }
echo "cmake_package: find_package(tfc), tfc_generate() and tfc::lcp built and ran an external project"
