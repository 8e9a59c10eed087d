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
cmake -S "$src/tests/cmake_package" -B "$work/trainer" -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/trainer" >/dev/null
"$work/trainer/trainer"
ls "$work/trainer/tfc/pkg/MANIFEST" >/dev/null
"$work/trainer/loader" "$work"
# The Python plan reader, installed next to the package, on the plan just built.
py=$(sed -n 's/^TFC_PYTHON_DIR:[A-Z]*=//p' "$work/trainer/CMakeCache.txt")
[ -f "$py/tfc_plan.py" ] || { echo "tfc_plan.py not installed (TFC_PYTHON_DIR=$py)"; exit 1; }
summary=$(python3 "$py/tfc_plan.py" summary "$work/trainer/tfc/pkg/plan.json")
echo "${summary%%$'\n'*}"
echo "cmake_package: find_package(tfc), tfc_generate() and tfc::lcp built and ran an external project"
