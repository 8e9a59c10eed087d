#!/usr/bin/env bash
# The generated CUDA kernels on a GPU (tests/gpu/device_check.cu): builds the
# check against generated/llama8b_1f1b with gcc and nvcc and runs it. On a
# machine with a device: mask kernels against the C, LCP top-k kernel against
# the host and brute force, with timings. Without one: the host half, then
# exit 77 (ctest: skipped); without nvcc, exit 77 at once.
#   tests/gpu/run.sh [N_SEQUENCES] [N_QUERIES] [K]
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
gen=$src/generated/llama8b_1f1b
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -z "$nvcc" ]; then
  echo "gpu check: nvcc not found; skipped"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
h=$gen/llama8b_1f1b_lcp_index.h
len=$(sed -n 's/^#define LLAMA8B_1F1B_LCP_SEQ_LEN \([0-9]*\)u$/\1/p' "$h")
topk=$(sed -n 's/^#define LLAMA8B_1F1B_LCP_TOPK \([0-9]*\)u$/\1/p' "$h")
for c in "$gen"/llama8b_1f1b.c "$gen"/llama8b_1f1b_stage*.c; do
  gcc -O2 -std=c11 -I"$gen" -c "$c" -o "$work/$(basename "$c" .c).o"
done
# sm_90 as the spec's targets.cuda.arch; PTX for it too, so newer GPUs run it.
"$nvcc" -O2 -std=c++17 -gencode "arch=compute_90,code=[sm_90,compute_90]" -DLCP_SEQ_LEN="$len" -DLCP_TOPK="$topk" \
  -I"$gen" -Xcompiler -Wall,-Wextra -o "$work/device_check" "$src/tests/gpu/device_check.cu" "$work"/*.o
"$work/device_check" "$@"
