#!/usr/bin/env bash
# The same bytes from every build (ctest "cross_build"; CMakeLists.txt,
# "Pinned arithmetic"; docs/codegen.md, "Reals"):
#  1. builds tfc from SOURCE_DIR three more times, without tests: gcc -O0,
#     gcc -O3 -march=native and clang -O3 -march=native (incremental under
#     BUILD_ROOT); each must report its arithmetic pinned (tfc --version);
#  2. with those and the normal build (TFC): compiles every spec under
#     specs/, examples/ and tests/ (the refused ones too: exit code and
#     diagnostics must match) and 100 varied random specs
#     (tests/support/random_specs.py: every schedule kind, heterogeneous
#     timings with decimals, several caps, per-action caps, balance modes,
#     selection rules), plus tfc plan, --sweep and --compare on specs/: every
#     output folder, diagnostic and printed plan byte for byte;
#  3. the generated code: tests/codegen/mask_dump.c against the public C of
#     every specs/ folder and of 16 of the random ones, compiled with gcc and
#     clang at -O0 and -O3 -march=native: the same masks and ratios, bit for
#     bit.
#   check.sh TFC SOURCE_DIR BUILD_ROOT
# Exit 77 (skipped) where clang is missing, except in CI.
set -euo pipefail
tfc=$(realpath "$1")
src=$(realpath "$2")
root=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "cross build: $*" >&2; exit 1; }
start=$SECONDS

if ! command -v clang >/dev/null || ! command -v gcc >/dev/null; then
  [ -n "${CI:-}" ] && fail "gcc and clang are both needed (in CI every part but the GPU run is required)"
  echo "cross build: skipped: needs gcc and clang"
  exit 77
fi

# 1. the builds: name, compiler, build type, that type's flags
builds=("gcc-O0 gcc Debug -O0" "gcc-O3-native gcc Release -O3 -march=native"
        "clang-O3-native clang Release -O3 -march=native")
bins=("normal:$tfc")
for b in "${builds[@]}"; do
  read -r name cc type flags <<<"$b"
  dir="$root/$name"
  if ! { CC=$cc cmake -S "$src" -B "$dir" -DTFC_TESTS=OFF -DCMAKE_BUILD_TYPE="$type" \
           "-DCMAKE_C_FLAGS_${type^^}=$flags" >"$work/cmake_$name.log" 2>&1 &&
         cmake --build "$dir" --target tfc -j "$(nproc)" >>"$work/cmake_$name.log" 2>&1; }; then
    tail -30 "$work/cmake_$name.log" >&2
    fail "building $name ($cc, $flags) failed"
  fi
  "$dir/tfc" --version | grep -q '^arithmetic: pinned' ||
    fail "$name: $("$dir/tfc" --version | grep '^arithmetic')"
  bins+=("$name:$dir/tfc")
done
"$tfc" --version | grep -q '^arithmetic: pinned' || fail "the normal build: $("$tfc" --version | grep '^arithmetic')"
echo "cross build: built gcc -O0, gcc -O3 -march=native, clang -O3 -march=native; all report pinned arithmetic ($((SECONDS - start)) s)"

# 2. the same specs through every build
mkdir -p "$work/random"
python3 "$src/tests/support/random_specs.py" varied 100 "$work/random" >"$work/random.txt"
{
  find "$src/specs" "$src/examples" "$src/tests" -name '*.yaml' | LC_ALL=C sort
  cat "$work/random.txt"
} >"$work/specs.txt"
nspecs=$(wc -l <"$work/specs.txt")
for entry in "${bins[@]}"; do
  name=${entry%%:*}
  bin=${entry#*:}
  mkdir -p "$work/run/$name/out"
  (
    cd "$work/run/$name"
    i=0
    while read -r spec; do
      # Relative output paths: the diagnostics and the folders name the same files.
      rc=0
      "$bin" compile "$spec" -o "out/$i" --skip-cuda-check -q >/dev/null 2>"out/$i.err" || rc=$?
      echo "$rc" >"out/$i.rc"
      i=$((i + 1))
    done <"$work/specs.txt"
    for spec in "$src"/specs/*.yaml; do
      n=$(basename "$spec" .yaml)
      "$bin" plan "$spec" >"out/plan_$n.txt"
      "$bin" plan "$spec" --sweep "out/sweep_$n" >/dev/null
      "$bin" plan "$spec" --compare "out/compare_$n" >"out/compare_$n.txt"
    done
  )
done
ok=$(grep -lx 0 "$work"/run/normal/out/*.rc | wc -l)
[ "$ok" -ge 100 ] || fail "only $ok of $nspecs specs compiled with the normal build: the comparison would test too little"
bad=0
for entry in "${bins[@]:1}"; do
  name=${entry%%:*}
  if ! diff -r "$work/run/normal/out" "$work/run/$name/out" >"$work/diff_$name.txt"; then
    bad=1
    files=$(grep -c '^diff -r\|^Only in' "$work/diff_$name.txt" || true)
    echo "cross build: $name writes different bytes from the normal build ($files files; first lines below)" >&2
    head -20 "$work/diff_$name.txt" >&2
  fi
done
[ $bad -eq 0 ] || fail "output differs between builds (specs listed in order: $work/specs.txt)"
echo "cross build: $nspecs specs ($ok compile, the rest refused alike) and tfc plan, --sweep, --compare on" \
     "$(ls "$src"/specs/*.yaml | wc -l) example specs: byte-identical from all 4 builds ($((SECONDS - start)) s)"

# 3. the generated masks and ratios under other compilers and flags
dumps=0
i=0
while read -r spec; do
  folder="$work/run/normal/out/$i"
  i=$((i + 1))
  case "$spec" in
    "$src"/specs/*) ;;
    "$work"/random/*) [ $((i % 6)) -eq 0 ] || continue ;;
    *) continue ;;
  esac
  [ -f "$folder/plan.json" ] || continue
  name=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["name"])' "$folder/plan.json")
  uname=$(echo "$name" | tr '[:lower:]' '[:upper:]')
  first=""
  for cc in gcc clang; do
    for flags in "-O0" "-O3 -march=native"; do
      # shellcheck disable=SC2086
      $cc -std=c11 -Wall -Wextra -Wpedantic -Werror $flags -I"$folder" -DTFC_NAME="$name" -DTFC_UNAME="$uname" \
        -DTFC_HEADER="\"$name.h\"" -o "$work/dump" "$src/tests/codegen/mask_dump.c" "$folder/$name.c" ||
        fail "$cc $flags rejects $name's generated C"
      "$work/dump" >"$work/dump.txt" || fail "$name ($cc $flags): mask_dump's checks failed"
      if [ -z "$first" ]; then
        first="$cc $flags"
        mv "$work/dump.txt" "$work/dump_first.txt"
      elif ! cmp -s "$work/dump_first.txt" "$work/dump.txt"; then
        diff "$work/dump_first.txt" "$work/dump.txt" | head -6 >&2
        fail "$name: the generated masks or ratios differ between $first and $cc $flags"
      fi
    done
  done
  dumps=$((dumps + 1))
done <"$work/specs.txt"
[ $dumps -ge 20 ] || fail "only $dumps generated folders checked"
echo "cross build: the generated masks and ratios of $dumps folders are the same bits from gcc and clang at -O0" \
     "and -O3 -march=native ($((SECONDS - start)) s)"
