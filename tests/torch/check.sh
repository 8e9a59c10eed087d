#!/usr/bin/env bash
# The PyTorch tests (tests/torch/): the freeze example's training loop
# (examples/pytorch_freeze), tfc's schedule.csv run by
# torch.distributed.pipelining on 4 CPU processes over gloo for every spec,
# and torchtitan's llama3 model run the same way (torchtitan_pp.py), all
# freezing with python/tfc_torch.py; tfc_torch.NoiseScale against the exact
# noise scale (noise_check.py); the LCP index's Python binding
# (tests/lcp/binding_check.py, with numpy here and without it under the
# system's python3) and its torch.distributed runner on 4 gloo processes
# (tests/lcp/dist_check.py), both through LIB (libtfc_lcp.so); tfc's step
# timing against PyTorch's own lowering of each schedule, replayed
# (lowered_timing.py).
#   check.sh example|pipelining|torchtitan|noise|titan_example|step|lowered TFC SOURCE_DIR
#   check.sh lcp_binding|lcp_dist|lcp_loader TFC SOURCE_DIR LIB   (lcp_loader: examples/lcp_loader --check)
# Python with torch: $TFC_TORCH_PYTHON, else SOURCE_DIR/.venv-torch (which
# ./run.sh test creates). Without torch: fails, unless TFC_SKIP_TORCH=1
# (run.sh sets it off CI when it could not install torch; likewise
# TFC_SKIP_TORCHTITAN for torchtitan), then exit 77 (ctest: skipped).
set -euo pipefail
what=$1 tfc=$2 src=$3
py=${TFC_TORCH_PYTHON:-$src/.venv-torch/bin/python}
need='import numpy, torch'
case $what in torchtitan | titan_example) need='import numpy, torch, torchtitan.models.llama3' ;; esac
if ! "$py" -c "$need" 2>/dev/null; then
  if [ -n "${CI:-}" ]; then
    echo "check.sh: '$need' fails with $py: in CI every part but the GPU run is required (TFC_SKIP_TORCH does not apply)"
    exit 1
  fi
  if [ "${TFC_SKIP_TORCH:-}" = 1 ] || { [ "$need" != "import numpy, torch" ] && [ "${TFC_SKIP_TORCHTITAN:-}" = 1 ]; }; then
    echo "check.sh: skipped: '$need' fails with $py (TFC_SKIP_TORCH or TFC_SKIP_TORCHTITAN set)"
    exit 77
  fi
  echo "check.sh: '$need' fails with $py: run ./run.sh test (it installs torch into .venv-torch), or set TFC_TORCH_PYTHON" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PYTHONWARNINGS=ignore
case $what in
  example)
    "$tfc" compile "$src/examples/pytorch_freeze/tiny.yaml" -o "$work/torch_tiny" --skip-cuda-check -q
    "$py" "$src/examples/pytorch_freeze/train.py" "$work/torch_tiny/plan.json" --steps 8 --check
    ;;
  pipelining)
    "$py" "$src/tests/torch/pipelining_interop.py" "$tfc" "$src"/specs/*.yaml "$src/examples/pytorch_freeze/tiny.yaml"
    ;;
  torchtitan)
    "$py" "$src/tests/torch/torchtitan_pp.py" "$tfc" "$src"
    ;;
  noise)
    "$py" "$src/tests/torch/noise_check.py"
    ;;
  titan_example)
    "$py" "$src/examples/torchtitan/train.py" "$tfc" --steps 12 --profile-steps 2 --check --out "$work/titan" \
      2> >(grep -v -e '^USDT:' -e 'gpuGetDeviceCount failed' >&2)
    ;;
  step)
    "$py" "$src/tests/torch/torch_step_check.py" "$tfc" "$src"
    ;;
  lowered)
    "$py" "$src/tests/torch/lowered_timing.py" "$tfc"
    ;;
  lcp_binding)
    export TFC_LCP_LIBRARY=$4
    python3 "$src/tests/lcp/binding_check.py" "$tfc" "$src/python"
    "$py" "$src/tests/lcp/binding_check.py" "$tfc" "$src/python"
    ;;
  lcp_dist)
    TFC_LCP_LIBRARY=$4 "$py" "$src/tests/lcp/dist_check.py" "$tfc" "$src/python"
    ;;
  lcp_loader)
    TFC_LCP_LIBRARY=$4 "$py" "$src/examples/lcp_loader/loader.py" "$tfc" --out "$work/loader" --check
    ;;
  *)
    echo "usage: check.sh example|pipelining|torchtitan|noise|titan_example|step|lcp_binding|lcp_dist|lcp_loader TFC SOURCE_DIR [LIB]" >&2
    exit 2
    ;;
esac
