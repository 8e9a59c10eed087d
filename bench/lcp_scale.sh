#!/usr/bin/env bash
# The LCP index set at scale (docs/lcp-index.md, "Index sets at scale"): a
# corpus of P parts of N windows each (seq_len 64, stride 64, uint16 tokens
# shaped like text: bench_lcp zipfparts, one template set for all parts so
# they share prefixes and duplicates) indexed part by part and as one index
# over all the shards. Measured in one run:
#   - build time per part and in all (parts one after another), and of the
#     one index; each part's memory (file + derived bytes per sequence);
#   - merged top-k (k 10, Q queries: half near-copies of corpus windows, half
#     unigram draws) p50/p95/p99 on one thread and on two, against the one
#     index's on one thread; the set's work per query against its parts'
#     single searches; every answer compared with the one index's;
#   - the Python binding's batch top-k (1,000 queries) against the C
#     library's batch, lcp_set_topk_batch, and its loop of single queries
#     (bench/lcp_py.py; needs numpy: TFC_TORCH_PYTHON or .venv-torch);
#   - dedup (--min-lcp 32) and order over the set and over the one index,
#     outputs compared byte for byte.
#   bench/lcp_scale.sh [--parts P] [--per-part N] [--queries Q] [--text] [--out DIR] [--keep]
# --text: real English text instead (bench/text_tokens.py: this machine's
# man pages and /usr/share/doc as word tokens, about 101M, so about 1.6M
# windows whatever --per-part says), cut into P parts; its queries alternate
# perturbed windows and windows starting between two windows.
# Defaults 8 parts of 5,000,000 (40M sequences, about 5.1 GB of shards; the
# free disk is checked first), 10,000 queries. The corpus is deleted after
# unless --keep. The last line printed is
#   lcp_scale parts=P sequences=S build_part_max_s=.. build_parts_s=.. build_one_s=.. topk_p99_ratio=..
#     topk_p99_ratio_two_threads=.. work_ratio=.. py_over_c=.. part_bytes_per_seq_max=.. dedup_s=.. dedup_one_s=..
#     order_s=.. order_one_s=.. set_dir_bytes_per_seq=.. set_dir_build_s=..
set -euo pipefail
cd "$(dirname "$0")/.."
parts=8 per=5000000 nq=10000 out=build/lcp_scale keep=0 text=0
while [ $# -gt 0 ]; do
  case $1 in
    --parts) parts=$2; shift 2 ;;
    --per-part) per=$2; shift 2 ;;
    --queries) nq=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --text) text=1; shift ;;
    *) echo "usage: bench/lcp_scale.sh [--parts P] [--per-part N] [--queries Q] [--text] [--out DIR] [--keep]" >&2; exit 2 ;;
  esac
done
L=64
# Configured only where nothing is (a developer's build keeps its options);
# the targets are brought up to date either way.
[ -f build/CMakeCache.txt ] || cmake -S . -B build -DTFC_TESTS=OFF >/dev/null
cmake --build build -j "$(nproc)" --target tfc bench_lcp bench_lcp_set tfc_lcp_ffi >/dev/null
py=${TFC_TORCH_PYTHON:-$PWD/.venv-torch/bin/python}
"$py" -c 'import numpy' 2>/dev/null || py=python3
root=$PWD tfc=$PWD/build/tfc
mkdir -p "$out"
need_kb=$(( parts * per * L * 2 / 1024 * 13 / 10 + 1048576 ))
free_kb=$(df -Pk "$out" | awk 'NR == 2 { print $4 }')
if [ "$free_kb" -lt "$need_kb" ]; then
  echo "lcp_scale: $((need_kb / 1048576)) GB needed in $out, $((free_kb / 1048576)) GB free" >&2
  exit 1
fi
cd "$out"
[ "$keep" = 1 ] || trap 'rm -f s*.bin q.bin text.bin *.idx all.set *.dedup *.order' EXIT
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
t=$(now)
if [ "$text" = 1 ]; then
  python3 "$root/bench/text_tokens.py" text.bin 0 q.bin "$nq" "$L" >/dev/null
  python3 - "$parts" <<'PY'
import os, struct, sys
parts = int(sys.argv[1])
with open("text.bin", "rb") as f:
    f.seek(1024)
    toks = f.read()
n = len(toks) // 2
for p in range(parts):
    a, b = n * p // parts, n * (p + 1) // parts
    with open(f"s{p}.bin", "wb") as f:
        f.write(struct.pack("<256i", 20240520, 1, b - a, *([0] * 253)) + toks[2 * a:2 * b])
os.remove("text.bin")
PY
  echo "corpus: real text (bench/text_tokens.py) cut into $parts parts, $(du -sh --apparent-size . | cut -f1) written in $(sub "$t" "$(now)") s"
else
  "$root/build/bench_lcp" zipfparts . "$parts" "$per" "$L" 11 "$nq"
  echo "corpus: $parts parts of $per windows of $L tokens, $(du -sh --apparent-size . | cut -f1) written in $(sub "$t" "$(now)") s"
fi
shards=() set_args=() part_s=()
t0=$(now)
for ((p = 0; p < parts; p++)); do
  a=$(now)
  "$tfc" index build --tokens "s$p.bin" --seq-len "$L" -o "p$p.idx" -q
  part_s+=("$(sub "$a" "$(now)")")
  shards+=("s$p.bin") set_args+=(--part "p$p.idx" --tokens "s$p.bin")
done
t1=$(now)
"$tfc" index build --tokens "${shards[@]}" --seq-len "$L" -o one.idx -q
t2=$(now)
"$tfc" index set -o all.set "${set_args[@]}" -q --no-verify
build_parts=$(sub "$t0" "$t1") build_one=$(sub "$t1" "$t2")
part_max=$(printf '%s\n' "${part_s[@]}" | sort -g | tail -1)
echo "build: parts ${part_s[*]} s (max $part_max, $build_parts in all, one after another); one index $build_one s"
"$root/build/bench_lcp_set" all.set one.idx q.bin "$nq" 10 "${shards[@]}" | tee set_speed.txt
# The binding against the C library: three rounds of each, alternating, the
# best of each (this machine's speed drifts by 20% from minute to minute).
# The binding's batch is the library's lcp_set_topk_batch (query by query through the merged directory);
# the C loop of single queries is printed beside it.
c_qps=0 c_batch=0 py_qps=0
for _ in 1 2 3; do
  line=$("$root/build/bench_lcp_set" --qps all.set q.bin 1000 10)
  p=$(TFC_LCP_LIBRARY=$root/build/libtfc_lcp.so "$py" "$root/bench/lcp_py.py" all.set q.bin 1000 10 |
    sed -n 's/python_qps=//p')
  c_qps=$(awk -v a="$c_qps" -v b="$(sed -n 's/^c_qps=\([0-9]*\).*/\1/p' <<<"$line")" 'BEGIN { print (b > a ? b : a) }')
  c_batch=$(awk -v a="$c_batch" -v b="$(sed -n 's/.*c_batch_qps=\([0-9]*\).*/\1/p' <<<"$line")" 'BEGIN { print (b > a ? b : a) }')
  py_qps=$(awk -v a="$py_qps" -v b="$p" 'BEGIN { print (b > a ? b : a) }')
done
py_ratio=$(awk -v a="$py_qps" -v b="$c_batch" 'BEGIN { printf "%.2f", a / b }')
echo "python: tfc_lcp topk_batch, 1,000 queries: $py_qps queries/s, $py_ratio of the C library's batch $c_batch" \
  "(its loop of single queries $c_qps; best of 3 alternating rounds, each best of 10)"
secs() { local a; a=$(now); "$@"; sub "$a" "$(now)"; }
d1=$(secs "$tfc" index dedup one.idx --tokens "${shards[@]}" --min-lcp 32 -o one.dedup --no-verify)
d2=$(secs "$tfc" index dedup all.set --min-lcp 32 -o set.dedup --no-verify)
cmp -s one.dedup set.dedup || { echo "lcp_scale: dedup differs" >&2; exit 1; }
o1=$(secs "$tfc" index order one.idx --tokens "${shards[@]}" -o one.order --no-verify)
o2=$(secs "$tfc" index order all.set -o set.order --no-verify)
cmp -s one.order set.order || { echo "lcp_scale: order differs" >&2; exit 1; }
echo "dedup --min-lcp 32: one index $d1 s, the set $d2 s ($(wc -l <one.dedup) duplicates); order: $o1 s, $o2 s; identical"
bps=$(sed -n 's/^part .* = \([0-9.]*\) bytes per sequence/\1/p' set_speed.txt | sort -g | tail -1)
last=$(tail -1 set_speed.txt)
get() { sed -n "s/.* $1=\([0-9.]*\).*/\1/p" <<<"$last"; }
echo "lcp_scale parts=$parts sequences=$(sed -n 's/.* sequences=\([0-9]*\).*/\1/p' <<<"$last") build_part_max_s=$part_max build_parts_s=$build_parts" \
  "build_one_s=$build_one topk_p99_ratio=$(get p99_ratio) topk_p99_ratio_two_threads=$(get p99_ratio_two_threads)" \
  "work_ratio=$(get work_ratio) py_over_c=$py_ratio part_bytes_per_seq_max=$bps dedup_s=$d2 dedup_one_s=$d1" \
  "order_s=$o2 order_one_s=$o1 set_dir_bytes_per_seq=$(get dir_bytes_per_seq) set_dir_build_s=$(get dir_build_s)"
