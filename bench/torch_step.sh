#!/usr/bin/env bash
# tfc's predicted step against the step torch.distributed.pipelining takes:
# a small GPT-style model on 4 gloo CPU processes (one thread each),
# profiled with tfc_torch.profile, planned from those traces
# (timing.source: trace), then run with and without the plan's freezing
# (bench/torch_step.py says what is measured; docs/torch.md the results).
#   bench/torch_step.sh [--quick] [--out DIR] [--steps M] [--profile-steps K] [--width W] ...
# Torch from $TFC_TORCH_PYTHON, else .venv-torch (./run.sh test installs
# it). Needs build/tfc (built here if missing). About 2 minutes on 2 cores;
# --quick (the ctest torch_step) about 1. --ranks 2 gives each rank a core of
# a 2-core machine. The last line printed is
#   torch_step ranks=4 baseline_err=X speedup_pred=P speedup_meas=M
set -euo pipefail
cd "$(dirname "$0")/.."
py=${TFC_TORCH_PYTHON:-.venv-torch/bin/python}
"$py" -c 'import torch' 2>/dev/null || { echo "torch_step.sh: no torch at $py (run ./run.sh test, or set TFC_TORCH_PYTHON)" >&2; exit 1; }
[ -x build/tfc ] || { cmake -S . -B build -DTFC_TESTS=OFF >/dev/null && cmake --build build -j "$(nproc)" >/dev/null; }
export PYTHONWARNINGS=${PYTHONWARNINGS:-ignore}
# torch.profiler's own start and stop lines (USDT:) are not the bench's output.
"$py" bench/torch_step.py build/tfc "$@" 2> >(grep -v -e '^USDT:' -e 'gpuGetDeviceCount failed' >&2)
