#!/usr/bin/env bash
# The two entry points for a fresh Debian machine (see README.md):
#   ./run.sh demo   install dependencies, build tfc, run it on the default spec
#   ./run.sh test   install dependencies, build (normal and ASan+UBSan), run every test,
#                   then fuzz each harness for TFC_FUZZ_SECONDS (default 60) under ASan+UBSan
set -euo pipefail
cd "$(dirname "$0")"

DEFAULT_SPEC=specs/llama8b_1f1b.yaml
PACKAGES="build-essential cmake pkg-config libyaml-dev liblpsolve55-dev libsuitesparse-dev libcriterion-dev
python3-scipy clang libclang-rt-dev valgrind"

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
    build build -DTFC_TESTS=ON
    ctest --test-dir build --output-on-failure
    build build-asan -DTFC_TESTS=ON -DTFC_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
    ctest --test-dir build-asan --output-on-failure
    tests/fuzz/run.sh "${TFC_FUZZ_SECONDS:-60}"
    ;;
  *)
    echo "usage: ./run.sh demo|test" >&2
    exit 2
    ;;
esac
