#!/usr/bin/env bash
# The generated folders, end to end (ctest "codegen_folders"):
#  1. every spec in specs/ regenerates byte for byte into generated/ (also
#     from another working directory), and every MANIFEST checks out with
#     sha256sum;
#  2. every generated C file compiles with gcc and clang at -std=c11 -Wall
#     -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow
#     -Wstrict-prototypes -Werror, and the headers with g++ -std=c++17;
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

# 1b. the plan files: plan.json is tfc plan --json; schedule.csv read back as a
# custom schedule gives the same step; the trace and the chart hold every
# action of both plans and end at the makespans.
for spec in "$src"/specs/*.yaml; do
  name=$(sed -n 's/^name: *//p' "$spec")
  dir="$work/out/$name"
  "$tfc" plan "$spec" --json | cmp -s - "$dir/plan.json" || fail "$name: plan.json is not tfc plan --json"
  sed -e '/^  order: /d' -e 's/^  schedule: .*/  schedule: custom\n  order: schedule.csv/' "$spec" \
    >"$dir/../roundtrip_$name.yaml"
  grep -q 'order: schedule.csv' "$dir/../roundtrip_$name.yaml" || fail "$name: could not make the round-trip spec"
  cp "$dir/schedule.csv" "$work/out/schedule.csv"
  python3 - "$dir/plan.json" <("$tfc" plan "$dir/../roundtrip_$name.yaml" --json --policy none) "$dir" <<'PY' || fail "$name: plan files disagree"
import json, sys, xml.etree.ElementTree as ET
plan, back, folder = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
key = lambda a: (a["rank"], a["stage"], a["microbatch"], a["type"], a["baseline_start_ms"])
assert [key(a) for a in plan["actions"]] == [key(a) for a in back["actions"]], "schedule.csv round trip changed the step"
assert back["baseline_makespan_ms"] == plan["baseline_makespan_ms"]
trace = json.load(open(folder + "/timeline.json"))
ev = [e for e in trace["traceEvents"] if e["ph"] == "X"]
assert len(ev) == 2 * len(plan["actions"])
for pid, span in ((1, plan["baseline_makespan_ms"]), (2, plan["makespan_ms"])):
    mine = [e for e in ev if e["pid"] == pid]
    assert abs(max(e["ts"] + e["dur"] for e in mine) - 1000 * span) <= 1e-6 * 1000 * span
    for tid in {e["tid"] for e in mine}:
        row = sorted((e["ts"], e["ts"] + e["dur"]) for e in mine if e["tid"] == tid)
        assert all(a[1] <= b[0] + 1e-6 for a, b in zip(row, row[1:])), "overlapping actions on one rank"
svg = ET.parse(folder + "/timeline.svg").getroot()
NS = "{http://www.w3.org/2000/svg}"
bars = [r for r in svg.iter(NS + "rect") if (r.get("class") or "").startswith("act ")]
assert len(bars) == 2 * len(plan["actions"]), (len(bars), len(plan["actions"]))
# Bars are drawn in plan order (baseline, then optimised): each one's colour
# is its stage's, and two stages of one rank never share a colour.
colour = {}
for a, bar in zip(plan["actions"], bars):
    assert bar.get("class") == "act " + a["type"], (bar.get("class"), a["type"])
    colour.setdefault((a["stage"], a["type"]), set()).add(bar.get("fill"))
assert all(len(v) == 1 for v in colour.values()), "one stage, one type: one colour"
by_rank = {}
for a in plan["actions"]:
    by_rank.setdefault(a["rank"], set()).add(a["stage"])
for rank, stages in by_rank.items():
    fills = {next(iter(colour[(st, "F")])) for st in stages}
    assert len(fills) == len(stages), f"rank {rank}: stages {sorted(stages)} share colours"
# The legend: one key per action type the plan has, the makespan line labelled.
keys = [r.get("class").split()[1] for r in svg.iter(NS + "rect") if (r.get("class") or "").startswith("key ")]
types = sorted({a["type"] for a in plan["actions"]})
assert sorted(k for k in keys if k != "frozen") == types, (keys, types)
assert ("frozen" in keys) == any(a["freeze_ratio"] > 0 for a in plan["actions"]), keys
assert any((l.get("class") or "") == "key makespan" for l in svg.iter(NS + "line")), "no legend entry for the makespan line"
PY
done
echo "codegen check: plan.json, schedule.csv (round trip), timeline.json and timeline.svg agree with the plan"

# 1c. the sweep: timely never slower than uniform, both at the baseline at 0,
# mean ratios within each cap; the chart parses.
"$tfc" plan "$src/specs/llama8b_1f1b.yaml" --sweep "$work/sweep" >"$work/sweep.txt"
cmp -s "$work/sweep.txt" "$work/sweep/pareto.csv" || fail "the sweep printed something other than pareto.csv"
python3 - "$work/sweep" <<'PY' || fail "the sweep breaks a property"
import csv, sys, xml.etree.ElementTree as ET
rows = list(csv.DictReader(open(sys.argv[1] + "/pareto.csv")))
assert len(rows) == 22, len(rows)
by = {}
for r in rows:
    by.setdefault(float(r["max_ratio"]), {})[r["policy"]] = r
base = float(by[0.0]["timely"]["makespan_ms"])
for cap, p in by.items():
    t, u = float(p["timely"]["makespan_ms"]), float(p["uniform"]["makespan_ms"])
    # phase 2 may give back T* (1 + 1e-9) + 1e-9 ms (docs/freeze-lp.md)
    assert t <= u * (1 + 1e-9) + 1e-9 + 1e-12 * u, (cap, t, u)
    for r in p.values():
        assert float(r["mean_freeze_ratio"]) <= cap + 1e-9
    if cap == 0:
        assert t == u == base
# The chart puts the freezing spent on x: each curve's points, left to
# right, are the CSV's mean ratios in order (x grows with the mean ratio).
svg = ET.parse(sys.argv[1] + "/pareto.svg").getroot()
NS = "{http://www.w3.org/2000/svg}"
lines = list(svg.iter(NS + "polyline"))
assert len(lines) == 2, len(lines)
for line, policy in zip(lines, ("uniform", "timely")):
    xs = [float(p.split(",")[0]) for p in line.get("points").split()]
    ms = [float(by[c][policy]["mean_freeze_ratio"]) for c in sorted(by)]
    assert len(xs) == len(ms)
    for (x1, m1), (x2, m2) in zip(zip(xs, ms), zip(xs[1:], ms[1:])):
        assert (x2 - x1) * (m2 - m1) >= -1e-6 and (m2 > m1 + 1e-3) <= (x2 > x1), (policy, x1, x2, m1, m2)
PY
echo "codegen check: the sweep holds timely <= uniform at every cap"

# 2. strict C
compilers=gcc
command -v clang >/dev/null && compilers="gcc clang"
for dir in "$work"/out/*/; do
  for cc in $compilers; do
    for c in "$dir"*.c; do
      $cc -std=c11 -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wshadow -Wstrict-prototypes -Werror \
        -c "$c" -o "$work/o.o" || fail "$cc rejects $c"
    done
  done
  # The headers from C++ too (a trainer's C++ includes them).
  for h in "$dir"*.h; do echo "#include \"$h\""; done >"$work/headers.cc"
  echo 'int main() { return 0; }' >>"$work/headers.cc"
  g++ -std=c++17 -Wall -Wextra -Wpedantic -Werror -c "$work/headers.cc" -o "$work/o.o" || fail "g++ rejects the headers of $dir"
done
echo "codegen check: generated C compiles cleanly with $compilers (-Wconversion -Wsign-conversion too), headers with g++"

# 3. a trainer's view of the default folder, and the independent oracle
gen="$work/out/llama8b_1f1b"
gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -O2 -I"$gen" -o "$work/vendor" "$src/tests/codegen/vendor_default.c" "$gen"/*.c
"$work/vendor" >"$work/dump.txt" || fail "vendor_default found broken promises"
"$tfc" plan "$src/specs/llama8b_1f1b.yaml" --json >"$work/plan.json"
python3 "$src/tests/codegen/mask_oracle.py" "$work/dump.txt" "$src/specs/llama8b_1f1b.yaml" "$work/plan.json"
python3 "$src/tests/python/plan_parity.py" "$work/dump.txt" "$gen/plan.json"

# 3b. the generated LCP index against tfc index, on the same shard
python3 - "$work/lcp.bin" "$work/lcpq.bin" <<'PY'
import random, struct, sys
rng = random.Random(5)
motifs = [[100000 + rng.randrange(300) for _ in range(1100)] for _ in range(6)]
toks = []
while len(toks) < 150000:
    toks += rng.choice(motifs)[: rng.randrange(1, 1100)] + [rng.randrange(300) for _ in range(rng.randrange(1, 200))]
    if rng.randrange(3) == 0:  # a document boundary (token 7: --doc-sep 7 in the documents check)
        toks.append(7)
# 1,600 windows (stride 64) starting with token 5: one LCP interval of more
# than 1,024 sorted positions, so the run table holds an entry and queries use it.
toks += [rng.randrange(300) for _ in range(-len(toks) % 64)]
region = len(toks)
for _ in range(1600):
    toks += [5] + [rng.randrange(300) for _ in range(63)]
def shard(path, t):  # llm.c's uint32 format: the default spec's token_bytes is 4
    open(path, "wb").write(struct.pack("<256i", 20240801, 7, len(t), *([0] * 253)) + struct.pack("<%dI" % len(t), *t))
shard(sys.argv[1], toks)
shard(sys.argv[2], toks[5000:5000 + 1024 * 6] + [rng.randrange(300) for _ in range(1024 * 2)]
      + [5] + [rng.randrange(300) for _ in range(1023)]  # its best matches share 1-2 tokens
      + toks[region:region + 2] + [300] + toks[region + 3:region + 1024])  # its first window, one token off
PY
gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -O2 -pthread -I"$gen" -o "$work/lcp_vendor" \
  "$src/tests/codegen/lcp_vendor.c" "$gen/llama8b_1f1b_lcp_index.c"
"$work/lcp_vendor" "$work/lcp.bin" "$work/lcpq.bin" 64 8 "$work/order_gen.bin" 7 "$work/docs_gen.txt" \
  >"$work/answers_gen.txt" 2>"$work/vendor_err.txt" || { cat "$work/vendor_err.txt"; fail "lcp_vendor"; }
nruns=$(sed -n 's/^lcp_vendor: \([0-9]*\) runs in the run table$/\1/p' "$work/vendor_err.txt")
[ "${nruns:-0}" -ge 1 ] || fail "the LCP comparison data gives the run table no entry (the queries' run path is unchecked)"
"$tfc" index build --tokens "$work/lcp.bin" --seq-len 1024 --stride 64 -o "$work/lcp.idx" -q
"$tfc" index order "$work/lcp.idx" --tokens "$work/lcp.bin" -o "$work/order_tfc.bin"
"$tfc" index query "$work/lcp.idx" --tokens "$work/lcp.bin" --queries "$work/lcpq.bin" -k 8 >"$work/answers_tfc.txt"
cmp -s "$work/order_gen.bin" "$work/order_tfc.bin" || fail "generated LCP build and tfc index order differ"
cmp -s "$work/answers_gen.txt" "$work/answers_tfc.txt" || fail "generated LCP queries and tfc index query differ"
longest=$(tr ' ' '\n' <"$work/answers_tfc.txt" | cut -d: -f2 | sort -n | tail -1)
[ "$longest" -ge 100 ] || fail "the LCP comparison data has no long shared prefixes (longest $longest)"
echo "codegen check: generated LCP index and tfc index agree ($(wc -l <"$work/answers_tfc.txt") queries, $(($(stat -c %s "$work/order_tfc.bin") / 4)) sequences, longest LCP $longest)"
# Documents between token 7 (the generated documents API against --doc-sep).
"$tfc" index build --tokens "$work/lcp.bin" --seq-len 1024 --doc-sep 7 -o "$work/docs.idx" -q
{
  "$tfc" index query "$work/docs.idx" --tokens "$work/lcp.bin" --queries "$work/lcpq.bin" -k 8
  "$tfc" index dedup "$work/docs.idx" --tokens "$work/lcp.bin" --min-lcp 64
} >"$work/docs_tfc.txt"
cmp -s "$work/docs_gen.txt" "$work/docs_tfc.txt" || fail "generated LCP documents and tfc index --doc-sep differ"
ndup=$(awk 'NF == 1' "$work/docs_tfc.txt" | wc -l)
[ "$ndup" -ge 5 ] || fail "the documents comparison has too few duplicates ($ndup)"
echo "codegen check: generated LCP documents and tfc index --doc-sep agree ($ndup duplicate documents)"
# The same with 16-bit tokens: the windows' code is then the 16-bit core,
# the documents' the 32-bit one.
sed 's/lcp_index: {token_bytes: 4,/lcp_index: {token_bytes: 2,/' "$src/specs/llama8b_1f1b.yaml" >"$work/spec16.yaml"
gen16="$work/out16"
"$tfc" compile "$work/spec16.yaml" -o "$gen16" -q
grep -q 'typedef uint16_t llama8b_1f1b_lcp_token' "$gen16/llama8b_1f1b_lcp_index.h" || fail "the 16-bit spec's folder"
python3 - "$work/lcp.bin" "$work/lcpq.bin" "$work/lcp16.bin" "$work/lcpq16.bin" <<'PY'
import struct, sys
for src, dst in ((sys.argv[1], sys.argv[3]), (sys.argv[2], sys.argv[4])):
    b = open(src, "rb").read()
    n = struct.unpack_from("<i", b, 8)[0]
    t = [x - 99000 if x >= 100000 else x for x in struct.unpack_from("<%dI" % n, b, 1024)]  # under 65,536
    open(dst, "wb").write(struct.pack("<256i", 20240520, 1, n, *([0] * 253)) + struct.pack("<%dH" % n, *t))
PY
gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -O2 -pthread -I"$gen16" -o "$work/lcp_vendor16" \
  "$src/tests/codegen/lcp_vendor.c" "$gen16/llama8b_1f1b_lcp_index.c"
"$work/lcp_vendor16" "$work/lcp16.bin" "$work/lcpq16.bin" 64 8 "$work/order16_gen.bin" 7 "$work/docs16_gen.txt" \
  >"$work/answers16_gen.txt" 2>"$work/vendor16_err.txt" || { cat "$work/vendor16_err.txt"; fail "lcp_vendor (16-bit)"; }
grep -q '^lcp_vendor: [1-9][0-9]* runs in the run table$' "$work/vendor16_err.txt" || fail "16-bit: no run table entry"
"$tfc" index build --tokens "$work/lcp16.bin" --seq-len 1024 --stride 64 -o "$work/lcp16.idx" -q
"$tfc" index query "$work/lcp16.idx" --tokens "$work/lcp16.bin" --queries "$work/lcpq16.bin" -k 8 >"$work/answers16_tfc.txt"
"$tfc" index build --tokens "$work/lcp16.bin" --seq-len 1024 --doc-sep 7 -o "$work/docs16.idx" -q
{
  "$tfc" index query "$work/docs16.idx" --tokens "$work/lcp16.bin" --queries "$work/lcpq16.bin" -k 8
  "$tfc" index dedup "$work/docs16.idx" --tokens "$work/lcp16.bin" --min-lcp 64
} >"$work/docs16_tfc.txt"
cmp -s "$work/answers16_gen.txt" "$work/answers16_tfc.txt" || fail "16-bit: generated LCP queries and tfc index query differ"
cmp -s "$work/docs16_gen.txt" "$work/docs16_tfc.txt" || fail "16-bit: generated LCP documents and tfc index --doc-sep differ"
cmp -s "$work/docs16_tfc.txt" "$work/docs_tfc.txt" || fail "the documents' answers depend on the token width"
echo "codegen check: the same with 16-bit tokens (windows and documents)"

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
  # The .cu's query code, run as host code on tfc's own index file.
  cat >"$work/lcp_parity.cu" <<'CU'
#include <stdio.h>
#include <stdlib.h>
#include "llama8b_1f1b_lcp_index.cu"
static void *slurp(const char *p, size_t *n) {
  FILE *f = fopen(p, "rb"); fseek(f, 0, SEEK_END); *n = (size_t)ftell(f); fseek(f, 0, SEEK_SET);
  void *b = malloc(*n); if (fread(b, 1, *n, f) != *n) exit(1); fclose(f); return b; }
int main(int, char **argv) {
  size_t ns, ni, nq;
  const unsigned char *sh = (const unsigned char *)slurp(argv[1], &ns), *ix = (const unsigned char *)slurp(argv[2], &ni),
                      *qs = (const unsigned char *)slurp(argv[3], &nq);
  uint64_t n = *(const uint64_t *)(ix + 24), ntok = (ns - 1024) / sizeof(llama8b_1f1b_lcp_token);
  size_t body = ((72 + 24) + 7) / 8 * 8;
  uint64_t first[2] = {0, (ntok - 1024) / 64 + 1};
  const llama8b_1f1b_lcp_token *shards[1] = {(const llama8b_1f1b_lcp_token *)(sh + 1024)};
  llama8b_1f1b_lcp_data d = {1024, 64, 1, shards, first};
  llama8b_1f1b_lcp_index x = {};
  /* Index format 3: the permutation packed at the header's bits (byte 56). */
  uint32_t bits = *(const uint32_t *)(ix + 56);
  x.perm = (const uint32_t *)(ix + body), x.perm_bits = bits, x.lcp_bytes = 2, x.n = n;
  x.lcp = ix + body + 4 * llama8b_1f1b_lcp_perm_words_for(n, bits);
  if (argv[4]) { /* with all three sets of derived search arrays */
    uint64_t nd = llama8b_1f1b_lcp_dir_size(n);
    uint64_t *dir = (uint64_t *)malloc(nd * 8 + 8), *top = (uint64_t *)malloc(llama8b_1f1b_lcp_dir_size(nd) * 8 + 8);
    uint32_t *idmin = (uint32_t *)malloc(nd * 4 + 4);
    uint8_t *lcpmin = (uint8_t *)malloc(nd + 1);
    uint32_t *idmin2 = (uint32_t *)malloc(nd * 4 + 4);
    llama8b_1f1b_lcp_deep *deep = (llama8b_1f1b_lcp_deep *)malloc((nd + 1) * sizeof *deep);
    uint8_t *dtok = (uint8_t *)malloc(llama8b_1f1b_lcp_dtok_size(n) + 1);
    llama8b_1f1b_lcp_dir_fill(&d, &x, dir, idmin, lcpmin, top);
    x.dir = dir, x.n_dir = nd, x.idmin = idmin, x.lcpmin = lcpmin, x.top = top;
    llama8b_1f1b_lcp_deep_fill(&d, &x, 0, nd, deep, idmin2, dtok);
    x.deep = deep, x.idmin2 = idmin2, x.dtok = dtok;
    uint32_t *up = (uint32_t *)malloc(llama8b_1f1b_lcp_up_size(n) * 4 + 4);
    llama8b_1f1b_lcp_up_fill(&x, up);
    x.up = up;
    llama8b_1f1b_lcp_deep *deep_up = (llama8b_1f1b_lcp_deep *)malloc((llama8b_1f1b_lcp_deep_up_size(nd) + 1) * sizeof *deep_up);
    llama8b_1f1b_lcp_deep_up_fill(&d, &x, deep_up);
    x.deep_up = deep_up;
    uint64_t cap = llama8b_1f1b_lcp_runs_cap(n), slots = llama8b_1f1b_lcp_run_hash_size(cap);
    llama8b_1f1b_lcp_run *runs = (llama8b_1f1b_lcp_run *)malloc(cap * sizeof *runs);
    llama8b_1f1b_lcp_run_frame *frames = (llama8b_1f1b_lcp_run_frame *)malloc(llama8b_1f1b_lcp_run_stack_size(1024) * sizeof *frames);
    uint32_t *run_hash = (uint32_t *)malloc(slots * 4);
    uint64_t nr = llama8b_1f1b_lcp_runs_fill(&x, 1024, cap, frames, runs);
    llama8b_1f1b_lcp_run_hash_fill(runs, nr, run_hash, slots);
    x.runs = runs, x.run_hash = run_hash, x.run_mask = slots - 1;
  }
  const llama8b_1f1b_lcp_token *q = (const llama8b_1f1b_lcp_token *)(qs + 1024);
  uint32_t s[8], l[8];
  for (size_t i = 0; (i + 1) * 1024 <= (nq - 1024) / sizeof(llama8b_1f1b_lcp_token); i++) {
    uint64_t got = llama8b_1f1b_lcp_topk(&d, &x, q + i * 1024, 8, s, l);
    for (uint64_t j = 0; j < got; j++) printf("%s%u:%u", j ? " " : "", s[j], l[j]);
    putchar('\n');
  }
  return 0; }
CU
  "$nvcc" -I"$gen" -Xcompiler -Wall,-Wextra,-Werror -o "$work/lcp_parity" "$work/lcp_parity.cu" ||
    fail "nvcc rejects the generated LCP .cu as host code"
  "$work/lcp_parity" "$work/lcp.bin" "$work/lcp.idx" "$work/lcpq.bin" >"$work/answers_cu.txt"
  cmp -s "$work/answers_cu.txt" "$work/answers_tfc.txt" || fail "the .cu's LCP queries and tfc index query differ"
  "$work/lcp_parity" "$work/lcp.bin" "$work/lcp.idx" "$work/lcpq.bin" derived >"$work/answers_cu_derived.txt"
  cmp -s "$work/answers_cu_derived.txt" "$work/answers_tfc.txt" ||
    fail "the .cu's LCP queries with the derived arrays and tfc index query differ"
  echo "codegen check: the LCP .cu (nvcc, host side) answers as tfc index does, with and without the derived arrays"
  # The .cu files as device code, every warning an error (a trainer's build
  # may use -Werror): the stages of the default spec, and a stage whose
  # tables are past __constant__ memory's 64 KiB (5,000 tensors: 80 KB),
  # which tfc must move to global memory, not fail at NVRTC or nvcc.
  for cu in "$gen"/llama8b_1f1b_stage*.cu; do
    "$nvcc" -Werror all-warnings -c "$cu" -o "$work/device.o" || fail "nvcc warns or fails on $cu as device code"
  done
  {
    printf 'tfc: 1\nname: big_tables\nmodel:\n  stages:\n    - params:\n'
    for ((i = 0; i < 5000; i++)); do printf '        - {name: l%d.w, numel: %d}\n' $i $((1000 + i * 7919 % 100000)); done
    printf '    - params: [{name: out.w, numel: 1000}]\n'
    printf 'pipeline: {schedule: GPipe, ranks: 2, microbatches: 4}\n'
    printf 'timing: {forward_ms: [10, 10], backward_ms: [20, 20], backward_frozen_ms: [10, 10]}\n'
  } >"$work/big_tables.yaml"
  "$tfc" compile "$work/big_tables.yaml" -o "$work/big_tables" -q || fail "a stage of 5,000 tensors does not compile"
  [ "$(grep -c '^__device__ const' "$work/big_tables/big_tables_stage0.cu")" -eq 4 ] ||
    fail "5,000 tensors' tables are not in global memory"
  [ "$(grep -c '^__constant__' "$work/big_tables/big_tables_stage1.cu")" -eq 4 ] ||
    fail "one tensor's tables are not in __constant__ memory"
  for cu in "$work"/big_tables/big_tables_stage*.cu; do
    "$nvcc" -Werror all-warnings -c "$cu" -o "$work/device.o" || fail "nvcc fails on $cu as device code"
  done
  echo "codegen check: the stages' .cu compile as device code without a warning, tables past 64 KiB too"
elif [ -n "${CI:-}" ]; then
  fail "nvcc not found: in CI every part but the GPU run is required (README, Building)"
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
