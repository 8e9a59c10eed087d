#!/usr/bin/env bash
# Out of memory, everywhere (ctest nomem): each verb runs under a sweep of
# address-space limits (ulimit -v) from too little to enough, so memory runs
# out at a different step each time (reading the spec, the schedule, the LP,
# emission, the output folder, the index). Every run must end with exit 0, or
# exit 6 and "tfc: error: out of memory ..." with no spec position; never a
# crash, never another exit code, never "out of memory" at FILE:LINE:COL.
# The largest limit must succeed (the sweep reaches the end).
#   check.sh TFC
set -uo pipefail
tfc=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

python3 - <<'PY'
import struct
p, v, m = 8, 2, 64
n = p * v
fwd = [1.0 + 0.6 * ((i * 7) % 5) / 4 for i in range(n)]
f = ", ".join(f"{x:.2f}" for x in fwd)
b = ", ".join(f"{2 * x:.2f}" for x in fwd)
def spec(name, sched, timing):
    L = ["tfc: 1", f"name: {name}", "model:", "  stages:"]
    L += ["    - params: [{name: w, numel: 1000}, {name: b, numel: 10}]"] * n
    L.append(f"pipeline: {{schedule: {sched}, ranks: {p}, stages_per_rank: {v if sched == 'ZBV' else 1}, microbatches: {m}}}")
    L.append(timing)
    L.append("freeze: {max_ratio: 0.9}")
    open(f"{name}.yaml", "w").write("\n".join(L) + "\n")
spec("zbv", "ZBV", f"timing: {{forward_ms: [{f}], backward_input_ms: [{f}], backward_weight_ms: [{f}], comm_ms: 0.05}}")
n = p
f = ", ".join(f"{x:.2f}" for x in fwd[:n]); b = ", ".join(f"{2 * x:.2f}" for x in fwd[:n])
spec("ofob", "1F1B", f"timing: {{forward_ms: [{f}], backward_ms: [{b}], backward_frozen_ms: [{f}]}}")
# 200,000 tokens of a small vocabulary with repeats: an index of 12,500 windows.
import random
random.seed(1)
toks = [random.randrange(50) for _ in range(200000)]
with open("shard.bin", "wb") as fh:
    fh.write(struct.pack("<256i", 20240520, 1, len(toks), *([0] * 253)))
    fh.write(struct.pack(f"<{len(toks)}H", *toks))
with open("q.bin", "wb") as fh:
    q = toks[:16 * 50]
    fh.write(struct.pack("<256i", 20240520, 1, len(q), *([0] * 253)))
    fh.write(struct.pack(f"<{len(q)}H", *q))
PY
"$tfc" index build --tokens shard.bin --seq-len 16 -o full.idx -q || exit 1

fail=0
runs=0
ooms=0
# sweep NAME CMD...: limits from 3 MB up in 256 kB steps until two runs in a row succeed.
sweep() {
  local name=$1; shift
  local kb=3072 ok_in_row=0 first_oom="" last_rc="" failed_before=$fail
  fail=0
  while [ $kb -le 400000 ] && [ $ok_in_row -lt 2 ]; do
    rm -rf out sweepdir idx.bin
    (ulimit -v $kb; exec "$@") >stdout.txt 2>stderr.txt
    local rc=$?
    kb=$((kb + 256))
    if [ $rc -eq 127 ] && grep -q "error while loading shared libraries" stderr.txt; then
      continue # too little to start the program at all: not tfc's to handle
    fi
    runs=$((runs + 1))
    last_rc=$rc
    if [ $rc -eq 0 ]; then
      ok_in_row=$((ok_in_row + 1))
      continue
    fi
    ok_in_row=0
    if [ $rc -ne 6 ]; then
      [ $rc -lt 128 ] || echo "(killed by signal $((rc - 128)))"
      echo "nomem: $name at $((kb - 256)) kB: exit $rc (want 0 or 6)"; head -c 600 stderr.txt; fail=1; continue
    fi
    ooms=$((ooms + 1))
    [ -n "$first_oom" ] || first_oom=$(head -1 stderr.txt)
    if ! grep -q "^tfc: error: out of memory" stderr.txt; then
      echo "nomem: $name at $((kb - 256)) kB: exit 6 without 'tfc: error: out of memory'"; head -c 600 stderr.txt; fail=1
    fi
    if grep -qE '^[^ ]+:[0-9]+(:[0-9]+)?: error: out of memory' stderr.txt; then
      echo "nomem: $name at $((kb - 256)) kB: out of memory reported at a position"; head -c 600 stderr.txt; fail=1
    fi
  done
  if [ "$last_rc" != 0 ]; then
    echo "nomem: $name never succeeded up to $((kb - 256)) kB"; fail=1
  fi
  [ $fail -eq 0 ] && echo "nomem: $name: exit 0 or 6 at every limit up to $((kb - 256)) kB (first: ${first_oom:-none})"
  [ $failed_before -eq 0 ] || fail=1
}

sweep check "$tfc" check zbv.yaml -q
sweep plan-zbv "$tfc" plan zbv.yaml
sweep plan-zbv-direct "$tfc" plan zbv.yaml --lp-method direct
sweep plan-1f1b-uniform "$tfc" plan ofob.yaml --policy uniform
sweep compile "$tfc" compile ofob.yaml -o out -q --skip-cuda-check
sweep sweep "$tfc" plan ofob.yaml --sweep sweepdir
sweep index-build "$tfc" index build --tokens shard.bin --seq-len 16 -o idx.bin -q
sweep index-query "$tfc" index query full.idx --tokens shard.bin --queries q.bin -k 10
[ $ooms -gt 0 ] || { echo "nomem: no run ran out of memory: the sweep tests nothing"; fail=1; }
echo "nomem: $runs runs, $ooms out of memory"
exit $fail
