#!/usr/bin/env bash
# The two entry points for a fresh Debian machine (see README.md):
#   ./run.sh demo   install dependencies, build tfc, run it on the default spec
#   ./run.sh test   install dependencies (torch from PyPI into .venv-torch for the PyTorch
#                   tests), build (normal and ASan+UBSan), run every test, then fuzz
#                   each harness for TFC_FUZZ_SECONDS (default 60) under ASan+UBSan
set -euo pipefail
cd "$(dirname "$0")"

DEFAULT_SPEC=specs/llama8b_1f1b.yaml
PACKAGES="build-essential cmake pkg-config libyaml-dev liblpsolve55-dev libsuitesparse-dev libcriterion-dev
python3-scipy python3-yaml python3-venv python3-setuptools python3-wheel clang libclang-rt-dev valgrind ninja-build"

install_deps() {
  local missing=()
  for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "run.sh: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -q
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
}

# torch (and numpy) for tests/torch (the PyTorch example and pipelining interop), from
# PyPI into .venv-torch with Debian's python3 (about 5 GB with its CUDA
# wheels; they run on the CPU). Pinned: the interop test uses the pipelining
# runtime's CSV loader, which PyTorch marks internal. With under 8 GB free
# here, or off CI when the install fails (an offline machine), those two
# tests are skipped, loudly; on CI a failed install fails the run.
TORCH_VERSION=2.15.0
# torch.distributed sends Python objects (the pipeline stages' shapes) through numpy.
NUMPY_VERSION=2.4.6
# torchtitan's model code for tests/torch/torchtitan_pp.py, without the
# trainer's dependencies (data sets, tokenizers, loggers): only what importing
# torchtitan.models.llama3 needs, pinned.
TORCHTITAN_PKGS="torchtitan==0.3.0 spmd_types==0.2.3 tyro==1.0.17 docstring_parser==0.18.0"
setup_torch() {
  local py=.venv-torch/bin/python
  if "$py" -c "import numpy, torch, sys; sys.exit(torch.__version__.split('+')[0] != '$TORCH_VERSION')" 2>/dev/null; then
    setup_torchtitan
    return 0
  fi
  local free_kb tmp_kb
  # The venv here, pip's unpacking in TMPDIR: the smaller counts.
  free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
  tmp_kb=$(df -Pk "${TMPDIR:-/tmp}" | awk 'NR == 2 { print $4 }')
  [ "${tmp_kb:-0}" -lt "${free_kb:-0}" ] && free_kb=$tmp_kb
  if [ "${free_kb:-0}" -lt 8000000 ]; then
    if [ -n "${CI:-}" ]; then
      echo "run.sh: $((free_kb / 1024)) MB free, torch needs about 6 GB: in CI the PyTorch tests are required" >&2
      exit 1
    fi
    echo "run.sh: WARNING: $((free_kb / 1024)) MB free, torch needs about 6 GB: the PyTorch tests will be skipped" >&2
    export TFC_SKIP_TORCH=1
    return 0
  fi
  echo "run.sh: installing torch $TORCH_VERSION into .venv-torch"
  if { [ -x "$py" ] || /usr/bin/python3 -m venv .venv-torch; } &&
     PIP_NO_CACHE_DIR=1 "$py" -m pip install -q --disable-pip-version-check "torch==$TORCH_VERSION" "numpy==$NUMPY_VERSION"; then
    setup_torchtitan
    return 0
  fi
  if [ -n "${CI:-}" ]; then
    echo "run.sh: could not install torch (needed by the PyTorch tests)" >&2
    exit 1
  fi
  echo "run.sh: WARNING: could not install torch: the PyTorch tests will be skipped" >&2
  export TFC_SKIP_TORCH=1
}

setup_torchtitan() {
  local py=.venv-torch/bin/python
  "$py" -c "import torchtitan, sys; sys.exit(torchtitan.__version__ != '0.3.0')" 2>/dev/null && return 0
  echo "run.sh: installing $TORCHTITAN_PKGS into .venv-torch"
  # shellcheck disable=SC2086
  PIP_NO_CACHE_DIR=1 "$py" -m pip install -q --disable-pip-version-check --no-deps $TORCHTITAN_PKGS && return 0
  if [ -n "${CI:-}" ]; then
    echo "run.sh: could not install torchtitan (needed by ctest torch_torchtitan)" >&2
    exit 1
  fi
  echo "run.sh: WARNING: could not install torchtitan: ctest torch_torchtitan will be skipped" >&2
  export TFC_SKIP_TORCHTITAN=1
}

# CI turns warnings into errors; a user's newer compiler should not break the build.
werror() { [ -n "${CI:-}" ] && echo "-DTFC_WERROR=ON" || echo "-DTFC_WERROR=OFF"; }

build() {
  local dir=$1; shift
  cmake -S . -B "$dir" "$(werror)" "$@"
  cmake --build "$dir" -j "$(nproc)"
}

case "${1:-}" in
  demo)
    install_deps
    build build -DTFC_TESTS=OFF
    ./build/tfc --version
    ./build/tfc plan "$DEFAULT_SPEC"
    # Writes generated/llama8b_1f1b/ (the checked-in copy: byte-identical).
    ./build/tfc compile "$DEFAULT_SPEC"
    ;;
  test)
    install_deps
    setup_torch
    build build -DTFC_TESTS=ON
    ctest --test-dir build --output-on-failure
    build build-asan -DTFC_TESTS=ON -DTFC_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
    # (LeakSanitizer's TLS interceptor is off in this build's tests: tests/CMakeLists.txt)
    ctest --test-dir build-asan --output-on-failure
    tests/fuzz/run.sh "${TFC_FUZZ_SECONDS:-60}"
    ;;
  *)
    echo "usage: ./run.sh demo|test" >&2
    exit 2
    ;;
esac
