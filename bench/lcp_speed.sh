#!/usr/bin/env bash
# The LCP index, timed (figures for docs/lcp-index.md and the closing note).
# Every query run times tfc and the reference (bench/lcp_baseline.c: a
# sorted array, adjacent LCPs, range-minimum tables) on the same queries,
# alternating, three passes each, and checks that their answers agree;
# k = 10, one thread, 10,000 queries.
#  1. uniform: N = 20,000,000 sequences of 64 uint16 tokens (2.5 GB, random
#     tokens, a third starting with one of 4,096 planted prefixes of varied
#     length); queries half near-duplicates, half random;
#  2. skewed: N = 20,000,000 sequences shaped like tokenized text (Zipf
#     tokens over 50,000, half copying a prefix of a Zipf-popular template:
#     `bench_lcp zipf`); queries half perturbed sequences, half unigram draws;
#  3. N = 1,000,000 uniform: index p95 against a brute-force scan (target
#     >= 1000x);
#  4. real English text: the man pages and /usr/share/doc of this machine as
#     word tokens (bench/text_tokens.py: ids by frequency, 0 between
#     documents), windows of 64; queries half perturbed sequences, half
#     windows of the text starting between two sequences; then the same text
#     as documents (--doc-sep 0), timed by tfc index query --latency;
#  5. the license texts as bytes, 1,000,000 x 64 (build time).
# Targets: build <= 8 s (2 cores); p95 <= 5 us, p99 <= 8 us, and tfc's p99 at
# most half the reference's; file + derived <= 6 bytes per sequence.
# Needs about 6 GB free in TMPDIR (default /tmp) and python3.
#   bench/lcp_speed.sh [BUILD_DIR] [N]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
n=${2:-20000000}
[ -x "$build/bench_lcp" ] || { cmake -S . -B "$build" >/dev/null && cmake --build "$build" -j "$(nproc)" >/dev/null; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
timed() { /usr/bin/time -f "  build: %e s wall, %U s user, %S s system, %M KB peak" "$@"; }

echo "== uniform: $n random sequences of 64 tokens, planted prefixes"
"$build/bench_lcp" gen "$work/big.bin" "$n" 64 7
timed "$build/tfc" index build --tokens "$work/big.bin" --seq-len 64 -o "$work/big.idx"
"$build/bench_lcp" query "$work/big.idx" "$work/big.bin" 10000 10
rm -f "$work/big.bin" "$work/big.idx"

echo "== skewed: $n Zipf sequences of 64 tokens, Zipf-popular template prefixes"
"$build/bench_lcp" zipf "$work/z.bin" "$n" 64 11 "$work/zq.bin" 10000
timed "$build/tfc" index build --tokens "$work/z.bin" --seq-len 64 -o "$work/z.idx"
"$build/bench_lcp" query "$work/z.idx" "$work/z.bin" 10000 10 "$work/zq.bin"
rm -f "$work/z.bin" "$work/z.idx"

echo "== 1,000,000 uniform sequences: index against a brute-force scan"
"$build/bench_lcp" gen "$work/m.bin" 1000000 64 3
"$build/tfc" index build --tokens "$work/m.bin" --seq-len 64 -o "$work/m.idx" -q
"$build/bench_lcp" query "$work/m.idx" "$work/m.bin" 10000 10 brute

echo "== real text: man pages and /usr/share/doc as words, windows of 64"
python3 bench/text_tokens.py "$work/t.bin" 0 "$work/tq.bin" 10000 64
timed "$build/tfc" index build --tokens "$work/t.bin" --seq-len 64 -o "$work/t.idx"
"$build/bench_lcp" query "$work/t.idx" "$work/t.bin" 10000 10 "$work/tq.bin"
echo "== the same text as documents (--doc-sep 0: each document's first 64 words)"
timed "$build/tfc" index build --tokens "$work/t.bin" --seq-len 64 --doc-sep 0 -o "$work/td.idx"
"$build/tfc" index query "$work/td.idx" --tokens "$work/t.bin" --queries "$work/tq.bin" -k 10 --latency >/dev/null
"$build/tfc" index dedup "$work/td.idx" --tokens "$work/t.bin" --min-lcp 64 | wc -l | sed 's/^/  documents whose first 64 words repeat an earlier one: /'

echo "== license texts: 1,000,000 sequences of 64 byte tokens"
"$build/bench_lcp" text "$work/l.bin" 1000000 64
timed "$build/tfc" index build --tokens "$work/l.bin" --seq-len 64 -o "$work/l.idx"
