#!/usr/bin/env bash
# Index sets against one index over the same shards (docs/lcp-index.md,
# "Index sets"): P parts of N windows each (seq_len 64, stride 16, tokens
# from a heavy-tailed distribution over 4,096 ids), built part by part and
# as one index; the set's answers are compared byte for byte with the one
# index's, and timed: top-k (k 10, 2,000 queries taken from the corpus, one
# thread) p50/p95/p99 of each, and the ratio; build, dedup and order times.
#   bench/lcp_set.sh [--parts P] [--per-part N] [--out DIR]
# Defaults 8 parts of 250,000 (2M sequences, about 70 MB of shards); needs
# build/tfc (built here if missing). The last line printed is
#   lcp_set parts=P sequences=S topk_p99_ratio=R dedup_ratio=D order_ratio=O
set -euo pipefail
cd "$(dirname "$0")/.."
parts=8 per=250000 out=build/lcp_set_bench
while [ $# -gt 0 ]; do
  case $1 in
    --parts) parts=$2; shift 2 ;;
    --per-part) per=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: bench/lcp_set.sh [--parts P] [--per-part N] [--out DIR]" >&2; exit 2 ;;
  esac
done
[ -x build/tfc ] || { cmake -S . -B build -DTFC_TESTS=OFF >/dev/null && cmake --build build -j "$(nproc)" >/dev/null; }
tfc=$PWD/build/tfc
mkdir -p "$out" && cd "$out"
python3 - "$parts" "$per" <<'PY'
import random, struct, sys
parts, per = int(sys.argv[1]), int(sys.argv[2])
rng, L, stride = random.Random(7), 64, 16
shards = []
for p in range(parts):
    toks = [min(int(rng.paretovariate(1.1)), 4095) for _ in range((per - 1) * stride + L)]
    open(f"s{p}.bin", "wb").write(struct.pack("<256i", 20240520, 1, len(toks), *([0] * 253))
                                  + struct.pack("<%dH" % len(toks), *toks))
    shards.append(toks)
q = []
for _ in range(2000):
    t = shards[rng.randrange(parts)]
    i = rng.randrange(0, len(t) - L)
    q += t[i:i + L]
open("q.bin", "wb").write(struct.pack("<256i", 20240520, 1, len(q), *([0] * 253)) + struct.pack("<%dH" % len(q), *q))
PY
shards=() set_args=()
t0=$(date +%s.%N)
for ((p = 0; p < parts; p++)); do
  "$tfc" index build --tokens "s$p.bin" --seq-len 64 --stride 16 -o "p$p.idx" -q
  shards+=("s$p.bin") set_args+=(--part "p$p.idx" --tokens "s$p.bin")
done
t1=$(date +%s.%N)
"$tfc" index build --tokens "${shards[@]}" --seq-len 64 --stride 16 -o one.idx -q
t2=$(date +%s.%N)
"$tfc" index set -o all.set "${set_args[@]}" -q
"$tfc" index query one.idx --tokens "${shards[@]}" --queries q.bin -k 10 --latency >one.topk 2>one.lat
"$tfc" index query all.set --queries q.bin -k 10 --latency >set.topk 2>set.lat
cmp -s one.topk set.topk || { echo "lcp_set: top-k answers differ" >&2; exit 1; }
diff_s() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
secs() { local a b; a=$(date +%s.%N); "$@"; b=$(date +%s.%N); diff_s "$a" "$b"; }
d1=$(secs "$tfc" index dedup one.idx --tokens "${shards[@]}" --min-lcp 16 -o one.dedup)
d2=$(secs "$tfc" index dedup all.set --min-lcp 16 -o set.dedup)
cmp -s one.dedup set.dedup || { echo "lcp_set: dedup differs" >&2; exit 1; }
o1=$(secs "$tfc" index order one.idx --tokens "${shards[@]}" -o one.order)
o2=$(secs "$tfc" index order all.set -o set.order)
cmp -s one.order set.order || { echo "lcp_set: order differs" >&2; exit 1; }
p99() { sed -n 's/.*p99 \([0-9.]*\) us.*/\1/p' "$1"; }
echo "build: $parts parts in $(diff_s "$t0" "$t1") s, one index in $(diff_s "$t1" "$t2") s"
echo "top-k, k 10, one thread: one index $(sed 's/^latency: //' one.lat)"
echo "                         the set   $(sed 's/^latency: //' set.lat)"
echo "dedup --min-lcp 16: one index $d1 s, the set $d2 s; order: $o1 s, $o2 s; all answers identical"
n=$((parts * per))
awk -v p="$parts" -v n="$n" -v a="$(p99 one.lat)" -v b="$(p99 set.lat)" -v d1="$d1" -v d2="$d2" -v o1="$o1" -v o2="$o2" \
  'BEGIN { printf "lcp_set parts=%d sequences=%d topk_p99_ratio=%.2f dedup_ratio=%.1f order_ratio=%.1f\n", p, n, b / a, d2 / d1, o2 / o1 }'
