#!/usr/bin/env bash
# The batch-regime sweep: does freezing pay where the batch is large against
# the gradient noise scale, and does tfc's time-to-quality model predict it?
# (docs/time-to-quality.md, "The batch-regime sweep"; bench/batch_regime.py
# says what is measured.)
#   bench/batch_regime.sh [--quick | --ci] [--data DIR] [--out DIR] [--mb 2,8,...] [--steps N] [--seeds K] [--caps 0.3,0.6] [--seed-caps 0.9] [--freeze-from 0,0.5] [--no-weights] [--beta2 X] [--model mlp_narrow|gpt|mlp]
# Full: four batch sizes, about 50 minutes on 2 cores (run it in the
# background; an interrupted sweep resumes from its cache). --quick: the
# smallest beta's three caps and one middle batch size, one seed, and the cap
# freeze.max_ratio: auto chooses at the smallest beta (17.5 minutes measured
# without that cap). --ci: a few steps of everything. --report: the table
# and chart again from the cached runs. Needs build/tfc and a C compiler.
# The last line printed is
#   batch_regime points=K max_abs_err=E best_speedup=S best_beta=B best_cap=C
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/tfc ] || { cmake -S . -B build -DTFC_TESTS=OFF >/dev/null && cmake --build build -j "$(nproc)" >/dev/null; }
exec python3 bench/batch_regime.py "$@"
