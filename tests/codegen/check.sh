#!/usr/bin/env bash
# The generated folders, end to end (ctest "codegen_folders"):
#  1. every spec in specs/ regenerates byte for byte into generated/ (also
#     from another working directory), and every MANIFEST checks out with
#     sha256sum;
#  2. every generated C file compiles with gcc and clang at -std=c11 -Wall
#     -Wextra -Wpedantic -Werror;
#  3. tests/codegen/vendor_default.c vendors generated/llama8b_1f1b/, checks
#     its promises, and tests/codegen/mask_oracle.py recomputes every answer
#     independently;
#  4. with nvcc: the .cu files' __host__ __device__ masks, compiled as host
#     code, agree bit for bit with the C masks (no GPU needed);
#  5. failures leave an existing output folder exactly as it was.
#   check.sh TFC SOURCE_DIR
set -euo pipefail
tfc=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "codegen check: $*" >&2; exit 1; }

# 1. regeneration and reproducibility
for spec in "$src"/specs/*.yaml; do
  name=$(sed -n 's/^name: *//p' "$spec")
  "$tfc" compile "$spec" -o "$work/out/$name" -q
  diff -r "$work/out/$name" "$src/generated/$name" >/dev/null ||
    fail "generated/$name is stale: run tools/regenerate.sh (diff -r $work/out/$name generated/$name)"
  (cd "$work/out/$name" && grep -v '^#' MANIFEST | sha256sum -c --quiet) || fail "$name: MANIFEST does not match"
  [ "$(grep -vc '^#' "$work/out/$name/MANIFEST")" -eq $(($(ls "$work/out/$name" | wc -l) - 1)) ] ||
    fail "$name: MANIFEST does not list every file"
done
mkdir -p "$work/elsewhere"
cp "$src/specs/llama8b_1f1b.yaml" "$work/elsewhere/"
(cd "$work/elsewhere" && "$tfc" compile llama8b_1f1b.yaml -q)
diff -r "$work/elsewhere/generated/llama8b_1f1b" "$src/generated/llama8b_1f1b" >/dev/null ||
  fail "output depends on the working directory"
echo "codegen check: $(ls "$src"/specs/*.yaml | wc -l) specs regenerate byte for byte; MANIFESTs verified"

# 2. strict C
compilers=gcc
command -v clang >/dev/null && compilers="gcc clang"
for dir in "$work"/out/*/; do
  for cc in $compilers; do
    for c in "$dir"*.c; do
      $cc -std=c11 -Wall -Wextra -Wpedantic -Werror -c "$c" -o "$work/o.o" || fail "$cc rejects $c"
    done
  done
done
echo "codegen check: generated C compiles cleanly with $compilers"

# 3. a trainer's view of the default folder, and the independent oracle
gen="$work/out/llama8b_1f1b"
gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -O2 -I"$gen" -o "$work/vendor" "$src/tests/codegen/vendor_default.c" "$gen"/*.c
"$work/vendor" >"$work/dump.txt" || fail "vendor_default found broken promises"
"$tfc" plan "$src/specs/llama8b_1f1b.yaml" --json >"$work/plan.json"
python3 "$src/tests/codegen/mask_oracle.py" "$work/dump.txt" "$src/specs/llama8b_1f1b.yaml" "$work/plan.json"

# 4. CUDA host-side parity
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc" ]; then
  stages=$(ls "$gen"/llama8b_1f1b_stage*.cu | wc -l)
  {
    echo '#include <stdio.h>'
    echo '#include <string.h>'
    for ((s = 0; s < stages; s++)); do
      echo "#include \"llama8b_1f1b_stage$s.cu\""
      echo "#include \"llama8b_1f1b_stage$s.h\""
    done
    echo 'int main(void) {'
    echo '  unsigned long long a[64]; uint64_t b[64]; long n = 0, bad = 0;'
    echo '  const unsigned long long steps[] = {0, 999, 1000, 1001, 1500, 2999, 3999, 4000, 4001, 4321, 99999, 123456789ull, 1ull << 50, ~0ull};'
    for ((s = 0; s < stages; s++)); do
      echo "  for (unsigned m = 0; m < LLAMA8B_1F1B_STAGE${s}_MICROBATCHES + 1; m++)"
      echo "    for (unsigned i = 0; i < sizeof steps / sizeof *steps + 300; i++) {"
      echo "      unsigned long long st = i < sizeof steps / sizeof *steps ? steps[i] : 4000 + 17ull * i;"
      echo "      memset(a, 0xa5, sizeof a); memset(b, 0x5a, sizeof b);"
      echo "      unsigned long long x = llama8b_1f1b_stage${s}_cu_frozen_mask(m, st, a);"
      echo "      uint64_t y = llama8b_1f1b_stage${s}_frozen_mask(m, st, b);"
      echo "      double r1 = llama8b_1f1b_stage${s}_cu_freeze_ratio(m, st), r2 = llama8b_1f1b_stage${s}_freeze_ratio(m, st);"
      echo "      bad += x != y || memcmp(a, b, 8 * LLAMA8B_1F1B_STAGE${s}_MASK_WORDS) != 0 || memcmp(&r1, &r2, sizeof r1) != 0; n++;"
      echo "    }"
    done
    echo '  printf("codegen check: CUDA (nvcc, host side) and C agree on %ld of %ld masks and ratios\n", n - bad, n);'
    echo '  return bad != 0; }'
  } >"$work/parity.cu"
  for ((s = 0; s < stages; s++)); do
    gcc -std=c11 -O2 -c -I"$gen" "$gen/llama8b_1f1b_stage$s.c" -o "$work/stage$s.o"
  done
  "$nvcc" -I"$gen" -Xcompiler -Wall,-Wextra,-Werror -o "$work/parity" "$work/parity.cu" "$work"/stage*.o ||
    fail "nvcc rejects the generated .cu as host code"
  "$work/parity" || fail "CUDA and C masks disagree"
else
  echo "codegen check: nvcc not found; CUDA host-side parity skipped"
fi

# 5. failures leave the folder alone
cp -r "$src/generated/llama8b_1f1b" "$work/keep"
cp -r "$work/keep" "$work/before"
printf 'tfc: 1\nname: llama8b_1f1b\n' >"$work/broken.yaml"
set +e
"$tfc" compile "$work/broken.yaml" -o "$work/keep" -q 2>"$work/err.txt"
rc=$?
set -e
[ $rc -eq 1 ] || fail "an invalid spec should exit 1, got $rc"
diff -r "$work/keep" "$work/before" >/dev/null || fail "a failed compile changed the folder"
mkdir -p "$work/notmine"
echo precious >"$work/notmine/file.txt"
set +e
"$tfc" compile "$src/specs/llama8b_1f1b.yaml" -o "$work/notmine" -q 2>"$work/err.txt"
rc=$?
set -e
[ $rc -eq 4 ] || fail "a folder tfc did not write should be refused with exit 4, got $rc"
grep -q "not a tfc output folder" "$work/err.txt" || fail "no reason given: $(cat "$work/err.txt")"
[ "$(cat "$work/notmine/file.txt")" = precious ] || fail "the refused folder changed"
[ -z "$(ls -A "$work" | grep '\.tfc-' || true)" ] || fail "temporary folders left behind"
echo "codegen check: failed compiles leave folders untouched"
