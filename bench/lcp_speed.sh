#!/usr/bin/env bash
# The LCP index, timed (figures for docs/lcp-index.md and the closing note):
#  1. N = 20,000,000 sequences of 64 uint16 tokens (2.5 GB, random tokens, a
#     third starting with one of 4,096 planted prefixes of varied length):
#     tfc index build time (target < 8 s on 2 cores), bytes per sequence
#     (target <= 5), query p50/p95/p99 single thread, k = 10, 10,000 queries
#     (half near-duplicates, half random; targets p95 < 5 us, p99 < 8 us);
#  2. N = 1,000,000: index p95 against a brute-force scan in the same run
#     (target >= 1000x);
#  3. real text (the files under /usr/share/common-licenses, bytes as
#     tokens): 1,000,000 sequences of 64 built (target < 5 s).
# Needs about 3 GB free in TMPDIR (default /tmp).
#   bench/lcp_speed.sh [BUILD_DIR] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
n=${2:-20000000}
[ -x "$build/bench_lcp" ] || { cmake -S . -B "$build" >/dev/null && cmake --build "$build" -j "$(nproc)" >/dev/null; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== $n random sequences of 64 tokens, planted prefixes"
"$build/bench_lcp" gen "$work/big.bin" "$n" 64 7
/usr/bin/time -f "  build: %e s wall, %U s user, %S s system, %M KB peak" \
  "$build/tfc" index build --tokens "$work/big.bin" --seq-len 64 -o "$work/big.idx"
"$build/bench_lcp" query "$work/big.idx" "$work/big.bin" 10000 10
rm -f "$work/big.bin" "$work/big.idx"

echo "== 1,000,000 sequences: index against a brute-force scan"
"$build/bench_lcp" gen "$work/m.bin" 1000000 64 3
"$build/tfc" index build --tokens "$work/m.bin" --seq-len 64 -o "$work/m.idx" -q
"$build/bench_lcp" query "$work/m.idx" "$work/m.bin" 10000 10 brute

echo "== real text: 1,000,000 sequences of 64 byte tokens"
"$build/bench_lcp" text "$work/t.bin" 1000000 64
/usr/bin/time -f "  build: %e s wall" "$build/tfc" index build --tokens "$work/t.bin" --seq-len 64 -o "$work/t.idx"
"$build/bench_lcp" query "$work/t.idx" "$work/t.bin" 10000 10
