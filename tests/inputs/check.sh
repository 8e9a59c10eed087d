#!/usr/bin/env bash
# Inputs that are not regular files, for every path tfc opens (ctest
# inputs): standard input, process substitution and a FIFO with a writer
# keep working; a FIFO with no writer (or, as an output, no reader) is
# refused within about a second, never waited on; a directory or device is
# refused with "PATH: error: ...". Every command runs under timeout(1), so a
# hang fails the test instead of stopping it. The spec-level cases are rows
# of tests/hostile/README.md too; this covers the rest (pipes with writers,
# order CSVs and timing files through pipes, shards, index files, outputs,
# a FIFO named MANIFEST in an output folder).
#   check.sh TFC SOURCE_DIR
set -uo pipefail
tfc=$1
src=$2
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
failures=0 cases=0
spec=$src/specs/llama8b_1f1b.yaml  # names no other file
custom=$src/specs/llama8b_custom.yaml
csv=$src/specs/llama8b_custom.csv

# expect NAME RC FRAGMENT -- COMMAND...: exit RC (a hang is cut at 60 s);
# with a fragment, a "PATH: error:" line containing it on stderr; a FIFO
# with no writer or reader refused within 4 s (tfc gives a writer about a
# second; the rest is room for a loaded machine or a sanitizer build).
expect() {
  local name=$1 want=$2 frag=$3
  shift 4
  cases=$((cases + 1))
  local t0 rc
  t0=$(date +%s%N)
  timeout 60 "$@" >"$work/out" 2>"$work/err" </dev/null
  rc=$?
  local ms=$((($(date +%s%N) - t0) / 1000000))
  if [ "$rc" -ne "$want" ]; then
    echo "inputs: $name: exit $rc, want $want (after $ms ms): $(head -c 300 "$work/err")"
    failures=$((failures + 1))
  elif [ -n "$frag" ] && ! grep -q ": error: .*$frag" "$work/err"; then
    echo "inputs: $name: no error line with '$frag': $(head -c 300 "$work/err")"
    failures=$((failures + 1))
  elif { [ "$frag" = "no writer" ] || [ "$frag" = "no reader" ]; } && [ "$ms" -gt 4000 ]; then
    echo "inputs: $name: refused after $ms ms, not within 4 s"
    failures=$((failures + 1))
  fi
}

# Working: standard input, process substitution, a FIFO whose writer starts
# first or just after tfc does.
expect "spec on stdin" 0 "" -- sh -c "'$tfc' check - <'$spec'"
expect "spec through process substitution" 0 "" -- bash -c "'$tfc' check <(cat '$spec')"
expect "spec through a slow process substitution" 0 "" -- bash -c "'$tfc' check <(sleep 0.5; cat '$spec')"
mkfifo "$work/spec.fifo"
(sleep 0.2; cat "$spec" >"$work/spec.fifo") &
expect "spec from a FIFO whose writer opens it after tfc" 0 "" -- "$tfc" check "$work/spec.fifo"
wait
# The order CSV through a FIFO with a writer, and through one without.
mkdir "$work/o"
sed "s|order: llama8b_custom.csv|order: order.fifo|" "$custom" >"$work/o/spec.yaml"
mkfifo "$work/o/order.fifo"
(cat "$csv" >"$work/o/order.fifo") &
expect "order CSV from a FIFO with a writer" 0 "" -- "$tfc" check "$work/o/spec.yaml"
wait
expect "order CSV from a FIFO with no writer" 4 "no writer" -- "$tfc" check "$work/o/spec.yaml"
expect "plan with the order CSV a FIFO with no writer" 4 "no writer" -- "$tfc" plan "$work/o/spec.yaml"
# A spec that is a device or a FIFO for compile and plan too.
expect "compile a FIFO spec with no writer" 4 "no writer" -- "$tfc" compile "$work/spec.fifo" -o "$work/x" -q
expect "plan a device" 4 "character device" -- "$tfc" plan /dev/zero
expect "plan a directory" 4 "directory" -- "$tfc" plan "$work"

# Outputs: --dump-lp and --depfile into a FIFO with and without a reader.
expect "--dump-lp into a FIFO with no reader" 4 "no reader" -- "$tfc" plan "$spec" --dump-lp "$work/spec.fifo"
expect "--dump-lp through process substitution" 0 "" -- bash -c "'$tfc' plan '$spec' --dump-lp >(cat >'$work/lp.txt'); sleep 0.2"
[ -s "$work/lp.txt" ] || { echo "inputs: --dump-lp through process substitution wrote nothing"; failures=$((failures + 1)); }
expect "--dump-lp to /dev/null" 0 "" -- "$tfc" plan "$spec" --dump-lp /dev/null
mkfifo "$work/dep.fifo"
expect "--depfile where a FIFO is (replaced, not opened)" 0 "" -- "$tfc" compile "$spec" -o "$work/dep" -q --skip-cuda-check --depfile "$work/dep.fifo"
[ -f "$work/dep.fifo" ] || { echo "inputs: the depfile did not replace the FIFO"; failures=$((failures + 1)); }
# A device is written into, never replaced (as root a renamed file would
# swap /dev/null for a regular file): a null device made here where mknod
# works, so that a regression cannot touch the machine's.
if mknod "$work/null" c 1 3 2>/dev/null; then
  expect "--depfile into a device" 0 "" -- "$tfc" compile "$spec" -o "$work/dep" -q --skip-cuda-check --depfile "$work/null"
  [ -c "$work/null" ] || { echo "inputs: the depfile replaced a device"; failures=$((failures + 1)); }
fi

# An output folder holding a FIFO named MANIFEST: not a tfc folder, refused
# (it is not opened to wait for a writer).
mkdir "$work/m"
mkfifo "$work/m/MANIFEST"
expect "output folder whose MANIFEST is a FIFO" 4 "not a tfc output folder" -- "$tfc" compile "$spec" -o "$work/m" -q --skip-cuda-check

# tfc index: shards, index files and outputs that are FIFOs or devices.
python3 - "$work/s.bin" <<'PY'
import struct, sys
t = [i * 7 % 50 for i in range(4000)]
open(sys.argv[1], "wb").write(struct.pack("<256i", 20240520, 1, len(t), *([0] * 253)) + struct.pack("<%dH" % len(t), *t))
PY
"$tfc" index build --tokens "$work/s.bin" --seq-len 8 -o "$work/s.idx" -q || { echo "inputs: index build failed"; exit 1; }
expect "shard is a FIFO" 4 "is a FIFO, not a regular file" -- "$tfc" index build --tokens "$work/spec.fifo" --seq-len 8 -o "$work/y.idx"
expect "shard is a device" 4 "is a character device" -- "$tfc" index build --tokens /dev/zero --seq-len 8 -o "$work/y.idx"
expect "index is a FIFO" 4 "is a FIFO, not a regular file" -- "$tfc" index query "$work/spec.fifo" --tokens "$work/s.bin" --queries "$work/s.bin" -k 2
expect "index is a directory" 4 "is a directory" -- "$tfc" index dedup "$work" --tokens "$work/s.bin" --min-lcp 2
expect "queries are a FIFO" 4 "is a FIFO" -- "$tfc" index query "$work/s.idx" --tokens "$work/s.bin" --queries "$work/spec.fifo" -k 2
expect "dedup -o a FIFO with no reader" 4 "no reader" -- "$tfc" index dedup "$work/s.idx" --tokens "$work/s.bin" --min-lcp 2 -o "$work/spec.fifo"
expect "order -o a FIFO with no reader" 4 "no reader" -- "$tfc" index order "$work/s.idx" --tokens "$work/s.bin" -o "$work/spec.fifo"
expect "dedup -o through process substitution" 0 "" -- bash -c "'$tfc' index dedup '$work/s.idx' --tokens '$work/s.bin' --min-lcp 2 -o >(cat >/dev/null)"

echo "inputs: $cases cases, $failures failed"
[ "$failures" -eq 0 ]
