#!/usr/bin/env bash
# The runtime stub on every generated folder (ctest stub): builds
# runtime_stub/stub_main.c against generated/NAME/ with strict flags, as a
# trainer vendoring the folder would, and runs STEPS steps without and with
# the plan's freezing at SCALE real seconds per plan second (0.1: a 10 ms
# forward runs in 1 ms). Fails when a measured median makespan is more than
# TOL (relative) from the plan's prediction or the measured speed-up more
# than TOL x 100 points from the predicted one, twice in a row: a wall-clock
# measurement on a shared machine can catch a busy moment (seen once in CI:
# +4.6% with nothing frozen, where idle runs give +0.3%).
#   check.sh SOURCE_DIR [STEPS] [SCALE] [TOL]
set -euo pipefail
src=$1
steps=${2:-10}
scale=${3:-0.1}
tol=${4:-0.05}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for dir in "$src"/generated/*/; do
  name=$(basename "$dir")
  [ -f "$dir/$name.h" ] || continue
  uname=$(echo "$name" | tr '[:lower:]' '[:upper:]')
  gcc -std=c11 -O2 -Wall -Wextra -Wpedantic -Werror -DSTUB_NAME="$name" -DSTUB_UNAME="$uname" -I"$dir" \
    -o "$work/stub_$name" "$src/runtime_stub/stub_main.c" "$src/runtime_stub/stub.c" "$dir/$name.c" -lpthread -lm
  if ! "$work/stub_$name" "$steps" "$scale" "$tol"; then
    echo "  $name: measuring again"
    "$work/stub_$name" "$steps" "$scale" "$tol" || status=1
  fi
done
exit $status
