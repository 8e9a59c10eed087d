#!/usr/bin/env bash
# Rewrites generated/<name>/ for every spec in specs/ with the tfc in BUILD_DIR
# (default build/). CI (tests/codegen/check.sh) fails when these are stale.
#   tools/regenerate.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
tfc=${1:-build}/tfc
for spec in specs/*.yaml; do
  name=$(sed -n 's/^name: *//p' "$spec")
  "$tfc" compile "$spec" -o "generated/$name"
done
