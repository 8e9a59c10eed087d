#!/usr/bin/env bash
# Time to quality: wall-clock to the no-freezing run's validation loss, with
# and without the plan's freezing, fine-tuning and from scratch
# (docs/time-to-quality.md; bench/time_to_quality.py says what is measured).
#   bench/time_to_quality.sh [--quick] [--data DIR] [--out DIR] [--seeds N] [--steps N]
#                            [--select RULE] [--grad share|mean] [--scenarios finetune,scratch] [--ci]
# --quick: the MLP, one seed, 13-29 minutes on 2 cores (the machine's speed
# drifts). Without it: the transformer, 3 seeds, about 52 minutes (run it in
# the background). --ci: a
# few steps of everything, to check that it runs. Needs build/tfc
# (./run.sh demo) and a C compiler. The last line printed is
#   time_to_quality speedup=X equal_steps_gap=Y scenario=finetune policy=P cap=C select=S
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/tfc ] || { cmake -S . -B build -DTFC_TESTS=OFF >/dev/null && cmake --build build -j "$(nproc)" >/dev/null; }
exec python3 bench/time_to_quality.py "$@"
