#!/usr/bin/env bash
# Installs tfc from BUILD_DIR into a temporary prefix and builds the small
# external project here against it with find_package(tfc) and
# tfc_generate(), and a data loader linking tfc::lcp, then runs both
# (ctest cmake_package).
#   check.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
# A copy of the project: the test edits its order CSV.
cp -r "$src/tests/cmake_package" "$work/src"
cmake -S "$work/src" -B "$work/trainer" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/trainer" >/dev/null
"$work/trainer/trainer"
ls "$work/trainer/tfc/pkg/MANIFEST" >/dev/null
"$work/trainer/loader" "$work"
# The Python plan reader, installed next to the package, on the plan just built.
py=$(sed -n 's/^TFC_PYTHON_DIR:[A-Z]*=//p' "$work/trainer/CMakeCache.txt")
[ -f "$py/tfc_plan.py" ] || { echo "tfc_plan.py not installed (TFC_PYTHON_DIR=$py)"; exit 1; }
summary=$(python3 "$py/tfc_plan.py" summary "$work/trainer/tfc/pkg/plan.json")
echo "${summary%%$'\n'*}"

# The order CSV is a dependency of the generated plan: edit it, rebuild, and
# the program must carry the new makespan (tfc plan's, computed here).
want() { "$work/prefix/bin/tfc" plan "$work/src/custom.yaml" --json |
         python3 -c 'import json,sys; print("%.6f" % json.load(sys.stdin)["baseline_makespan_ms"])'; }
before=$("$work/trainer/planned")
[ "$before" = "$(want)" ] || { echo "planned says $before, tfc plan $(want)"; exit 1; }
sleep 1 # a coarse file clock must see the edit as newer
printf '0F0,0F1,0F2,0F3,0B0,0B1,0B2,0B3\n1F0,1F1,1F2,1F3,1B3,1B2,1B1,1B0\n' > "$work/src/order.csv"
cmake --build "$work/trainer" >/dev/null
after=$("$work/trainer/planned")
[ "$after" = "$(want)" ] || { echo "after editing order.csv: planned says $after, tfc plan $(want) (a stale plan)"; exit 1; }
[ "$after" != "$before" ] || { echo "the two orders should plan different makespans ($before)"; exit 1; }
echo "cmake_package: order.csv edited, the rebuilt program's makespan followed: $before -> $after ms"
echo "cmake_package: find_package(tfc), tfc_generate() and tfc::lcp built and ran an external project"
