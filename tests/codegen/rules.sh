#!/usr/bin/env bash
# The four selection rules of freeze.select against an independent oracle
# (ctest "codegen_rules"). For every spec in specs/, examples/tiny_trainer's
# spec and two edge specs written here (1-3 tensor stages, a 2^48-element
# tensor, a ramp longer than 2^31 steps, one microbatch), and for each rule
# (uniform, front_first, balanced, weights):
#  1. a variant of the spec with `select: RULE` in its freeze mapping (flow
#     or block style, a text edit) and, for weights, a `freeze_weight` on
#     every param (deterministic, in [0, 4], some exactly 0), accepted by
#     tfc check;
#  2. tfc compile; tests/codegen/mask_dump.c built against the public NAME.c
#     dumps masks of every stage and microbatch at steps around the warm-up
#     and the ramp, inside windows, after the ramp and huge;
#  3. tests/codegen/mask_oracle.py recomputes every mask from
#     docs/codegen.md and checks the rules' promises; 
#  4. tests/python/plan_parity.py (python/tfc_plan.py) on the same dump, and
#     the per-stage C files (their own tables) against the public file;
#  5. with nvcc, the .cu files of two specs (1F1B, ZBV) under every rule,
#     compiled as host code, give the C masks bit for bit.
# Also: freeze_weight with any other rule is refused by tfc check (exit 1,
# FILE:LINE:COL at the first freeze_weight).
#   rules.sh TFC SOURCE_DIR      one line per spec and rule; exit 1 on any difference
#   (TFC_RULES_KEEP=1 keeps the work folder for a reproducer)
set -uo pipefail
tfc=$1
src=$2
work=$(mktemp -d)
# TFC_RULES_KEEP=1 keeps the variants, folders and dumps (the path is printed).
if [ -n "${TFC_RULES_KEEP:-}" ]; then echo "codegen rules: keeping $work"; else trap 'rm -rf "$work"' EXIT; fi
rules="uniform front_first balanced weights"
bad=0
start=$SECONDS
cc="gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -O2"

# variant.py IN OUT RULE WEIGHTS(0/1): the spec with select: RULE (and weights).
cat >"$work/variant.py" <<'PY'
import re, sys
src, out, rule, weights = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
lines = open(src).read().split("\n")
idx = [i for i, l in enumerate(lines) if re.match(r"freeze:", l)]
if len(idx) != 1:
    sys.exit(f"{src}: no single top-level freeze mapping")
i = idx[0]
rest = lines[i][len("freeze:"):]
if rest.lstrip().startswith("{"):
    body, sep, comment = rest.partition("#")
    if body.count("{") != 1 or body.count("}") != 1:
        sys.exit(f"{src}: a flow freeze mapping on more than one line")
    if re.search(r"\bselect:", body):
        body = re.sub(r"\bselect: *[A-Za-z_]*", "select: " + rule, body)
    else:
        close = body.rindex("}")
        body = body[:close].rstrip() + ", select: " + rule + "}" + body[close + 1:]
    lines[i] = "freeze:" + body + sep + comment
elif rest.strip() == "" or rest.strip().startswith("#"):
    j = i + 1
    while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith("#")):
        j += 1
    indent = len(lines[j]) - len(lines[j].lstrip(" "))
    if j == len(lines) or indent == 0:
        sys.exit(f"{src}: an empty block freeze mapping")
    end = j
    while end < len(lines) and (not lines[end].strip() or lines[end].startswith(" " * indent)):
        end += 1
    found = [k for k in range(j, end) if re.match(" " * indent + r"select:", lines[k])]
    if found:
        lines[found[0]] = " " * indent + "select: " + rule
    else:
        lines.insert(i + 1, " " * indent + "select: " + rule)
else:
    sys.exit(f"{src}: freeze is neither a flow nor a block mapping")
text = "\n".join(lines)
if weights:
    g = [0]
    def w(m):
        g[0] += 1
        h = (g[0] * 2654435761 + 12345) % 2**32
        if h % 7 == 0:
            v = "0"
        elif h % 11 == 0:
            v = "4"
        else:
            v = "%.3f" % ((h >> 8) % 4001 / 1000)
        return "{name: %s, numel: %s, freeze_weight: %s}" % (m.group(1), m.group(2), v)
    text, n = re.subn(r"\{name: ([^,{}]+), numel: (\d+)\}", w, text)
    if n != len(re.findall(r"\bnumel:", text)) or n == 0:
        sys.exit(f"{src}: could not give every param a freeze_weight")
open(out, "w").write(text)
PY

# Two edge specs: stages of 1, 2, 3 and 70 tensors (two mask words) and of
# five 1-3 element tensors (balanced's arc ends fall on tensor midpoints), a 2^48
# element tensor, warm-up 0, a ramp of 2^40 steps (halved in the ramp
# arithmetic), re-draws every step; and a single microbatch (balanced freezes
# nothing below ratio 1) with a re-draw every 2^40 steps.
mkdir -p "$work/edge"
python3 - "$work/edge" <<'PY'
import sys
d = sys.argv[1]
def stage(names):
    return "    - params:\n" + "".join("        - {name: %s, numel: %d}\n" % (n, v) for n, v in names)
sizes = [1, 3, 4096, 65536, 7, 16777216, 2, 999, 12345, 1 << 20]
a = "tfc: 1\nname: edge_a\nmodel:\n  stages:\n"
a += stage([("only", 1 << 48)])
a += stage([("x", 5000), ("y", 3000)])
a += stage([("p", 10), ("q", 10), ("r", 20)])
a += stage([("t%d" % i, sizes[i % len(sizes)] + i) for i in range(70)])
a += stage([("e%d" % i, v) for i, v in enumerate([1, 1, 2, 1, 3])])
a += ("pipeline: {schedule: GPipe, ranks: 5, microbatches: 5}\n"
      "timing:\n  forward_ms: [10, 11, 9, 12, 10]\n  backward_ms: [20, 22, 18, 24, 21]\n"
      "  backward_frozen_ms: [10, 11, 9, 12, 10]\n  comm_ms: 0.1\n"
      "freeze:\n  max_ratio: 0.7\n  warmup_steps: 0\n  ramp_steps: 1099511627776\n"
      "  reselect_every: 1\n  seed: 18446744073709551615\n"
      "targets: {cuda: false}\n")
open(d + "/edge_a.yaml", "w").write(a)
b = "tfc: 1\nname: edge_b\nmodel:\n  stages:\n"
b += stage([("u%d" % i, 100 * (i + 1)) for i in range(6)])
b += stage([("v%d" % i, 1000 + i) for i in range(5)])
b += ("pipeline: {schedule: GPipe, ranks: 2, microbatches: 1}\n"
      "timing: {forward_ms: [10, 10], backward_ms: [20, 20], backward_frozen_ms: [10, 10]}\n"
      "freeze: {max_ratio: 0.9, warmup_steps: 3, ramp_steps: 5, reselect_every: 1099511627776, seed: 1}\n"
      "targets: {cuda: false}\n")
open(d + "/edge_b.yaml", "w").write(b)
PY

# one SPEC RULE: a line "name rule: ..." on stdout; exit 1 on a difference.
one() {
  local spec=$1 rule=$2
  local name dir base sd f
  name=$(sed -n 's/^name: *//p' "$spec")
  dir="$work/v/$name.$rule"
  mkdir -p "$dir"
  sd=$(dirname "$spec")
  # the files the spec names relative to itself (timings, a custom order)
  for f in $(grep -oE '^[[:space:]]*(file|frozen_file|order):[[:space:]]*[^ ,}#]+|[{ ,](file|frozen_file|order):[[:space:]]*[^ ,}#]+' "$spec" |
    sed -E 's/.*:[[:space:]]*//'); do
    (cd "$sd" && cp --parents "$f" "$dir/")
  done
  base=$(basename "$spec")
  python3 "$work/variant.py" "$spec" "$dir/$base" "$rule" "$([ "$rule" = weights ] && echo 1 || echo 0)" ||
    { echo "$name $rule: could not write the variant"; return 1; }
  "$tfc" check "$dir/$base" >"$dir/check.txt" 2>&1 || { echo "$name $rule: tfc check refuses the variant: $(cat "$dir/check.txt")"; return 1; }
  "$tfc" compile "$dir/$base" -o "$dir/gen" -q --skip-cuda-check 2>"$dir/err.txt" ||
    { echo "$name $rule: tfc compile failed: $(cat "$dir/err.txt")"; return 1; }
  local uname
  uname=$(echo "$name" | tr '[:lower:]' '[:upper:]')
  $cc -I"$dir/gen" -DTFC_NAME="$name" -DTFC_UNAME="$uname" -DTFC_HEADER="\"$name.h\"" -o "$dir/dump" \
    "$src/tests/codegen/mask_dump.c" "$dir/gen/$name.c" 2>"$dir/err.txt" ||
    { echo "$name $rule: the dumper does not build: $(head -5 "$dir/err.txt")"; return 1; }
  "$dir/dump" >"$dir/dump.txt" 2>"$dir/err.txt" || { echo "$name $rule: mask_dump: $(head -5 "$dir/err.txt")"; return 1; }
  # The per-stage C files (their own tables) against the public file.
  local stages s
  stages=$(ls "$dir/gen/${name}"_stage*.c 2>/dev/null | wc -l)
  {
    echo '#include <stdio.h>'
    echo '#include <string.h>'
    echo "#include \"$name.h\""
    for ((s = 0; s < stages; s++)); do echo "#include \"${name}_stage$s.h\""; done
    echo 'int main(void) {'
    echo '  uint64_t a[4096], b[4096]; long n = 0, bad = 0;'
    echo "  const uint64_t w = ${uname}_WARMUP_STEPS, r = ${uname}_RAMP_STEPS;"
    echo '  const uint64_t steps[] = {0, w, w + 1, w + r / 2, w + r - 1, w + r, w + r + 7, 123456789ull, ~0ull};'
    for ((s = 0; s < stages; s++)); do
      echo "  for (unsigned m = 0; m < ${uname}_MICROBATCHES + 1; m++)"
      echo "    for (unsigned i = 0; i < sizeof steps / sizeof *steps + 40; i++) {"
      echo "      uint64_t st = i < sizeof steps / sizeof *steps ? steps[i] : w + r + 13ull * i;"
      echo "      memset(a, 0xa5, sizeof a); memset(b, 0x5a, sizeof b);"
      echo "      uint64_t x = ${name}_stage${s}_frozen_mask(m, st, a), y = ${name}_frozen_mask($s, m, st, b);"
      echo "      bad += x != y || memcmp(a, b, 8 * ${uname}_STAGE${s}_MASK_WORDS) != 0; n++;"
      echo "    }"
    done
    echo '  printf("%ld of %ld", n - bad, n);'
    echo '  return bad != 0; }'
  } >"$dir/stage_parity.c"
  local stage_parity="no stage files"
  if [ "$stages" -gt 0 ]; then
    $cc -I"$dir/gen" -o "$dir/stage_parity" "$dir/stage_parity.c" "$dir/gen/$name.c" "$dir/gen/${name}"_stage*.c \
      2>"$dir/err.txt" || { echo "$name $rule: the stage parity program does not build: $(head -3 "$dir/err.txt")"; return 1; }
    stage_parity=$("$dir/stage_parity") || { echo "$name $rule: stage files and the public file differ: $stage_parity agree"; return 1; }
    stage_parity="stage files agree on $stage_parity"
  fi
  local oracle parity rc=0
  if oracle=$(python3 "$src/tests/codegen/mask_oracle.py" "$dir/dump.txt" "$dir/$base" "$dir/gen/plan.json" 2>"$dir/oracle_err.txt"); then
    oracle="oracle ok (${oracle#mask_oracle: })"
  else
    oracle="ORACLE DIFFERS (${oracle#mask_oracle: }; first: $(head -1 "$dir/oracle_err.txt"))"
    rc=1
  fi
  if parity=$(python3 "$src/tests/python/plan_parity.py" "$dir/dump.txt" "$dir/gen/plan.json" 2>"$dir/parity_err.txt"); then
    parity="plan_parity ok"
  else
    parity="PLAN_PARITY FAILS (${parity#plan_parity: }$(tail -1 "$dir/parity_err.txt" | sed 's/^/; last: /'))"
    rc=1
  fi
  echo "$name $rule: $oracle; $parity; $stage_parity"
  return $rc
}

specs=("$src"/specs/*.yaml "$src/examples/tiny_trainer/tiny.yaml" "$work/edge/edge_a.yaml" "$work/edge/edge_b.yaml")
# Two at a time (a pool); each job writes its own result file.
jobs_list=()
for spec in "${specs[@]}"; do
  for rule in $rules; do
    jobs_list+=("$spec $rule")
  done
done
mkdir -p "$work/res"
i=0
for j in "${jobs_list[@]}"; do
  i=$((i + 1))
  while (($(jobs -rp | wc -l) >= 2)); do wait -n; done
  ( one $j >"$work/res/$(printf %03d $i)" 2>&1; echo $? >"$work/res/$(printf %03d $i).rc" ) &
done
wait
for r in "$work"/res/[0-9][0-9][0-9]; do
  cat "$r"
  [ "$(cat "$r.rc")" = 0 ] || bad=$((bad + 1))
done

# freeze_weight without select: weights is refused, at the first freeze_weight.
for spec in "$src/examples/tiny_trainer/tiny.yaml" "$src/specs/llama8b_1f1b.yaml"; do
  name=$(sed -n 's/^name: *//p' "$spec")
  for rule in uniform front_first balanced none; do
    dir="$work/refuse/$name.$rule"
    mkdir -p "$dir"
    base=$(basename "$spec")
    if [ $rule = none ]; then
      python3 "$work/variant.py" "$spec" "$dir/tmp.yaml" uniform 1 && sed '/select: uniform$/d; s/, select: uniform}/}/' "$dir/tmp.yaml" >"$dir/$base"
      grep -q 'select:' "$dir/$base" && { echo "$name: could not drop select"; bad=$((bad + 1)); continue; }
    else
      python3 "$work/variant.py" "$spec" "$dir/$base" $rule 1
    fi
    "$tfc" check "$dir/$base" >"$dir/out.txt" 2>&1
    rc=$?
    line=$(grep -n 'freeze_weight' "$dir/$base" | head -1 | cut -d: -f1)
    if [ $rc -ne 1 ] || ! grep -qE "(^|/)$base:$line:[0-9]+: error: .*freeze_weight" "$dir/out.txt"; then
      echo "$name select $rule with freeze_weight: not refused at $base:$line (exit $rc): $(head -2 "$dir/out.txt")"
      bad=$((bad + 1))
    fi
  done
done
echo "codegen rules: freeze_weight without select: weights refused (exit 1, FILE:LINE:COL) in 8 variants checked"

# With nvcc: each rule's .cu files (the same template as the C, compiled for
# CUDA) agree with the C masks bit for bit, as host code, on a fused and a
# split schedule.
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc" ]; then
  cu_variants=0
  for name in llama8b_1f1b llama8b_zbv; do
    for rule in $rules; do
      gen="$work/v/$name.$rule/gen"
      [ -d "$gen" ] || continue
      uname=$(echo "$name" | tr '[:lower:]' '[:upper:]')
      stages=$(ls "$gen"/${name}_stage*.cu | wc -l)
      {
        echo '#include <stdio.h>'
        echo '#include <string.h>'
        echo "#include \"$name.h\""
        for ((s = 0; s < stages; s++)); do echo "#include \"${name}_stage$s.cu\""; done
        echo 'int main(void) {'
        echo '  unsigned long long a[64]; uint64_t b[64]; long n = 0, bad = 0;'
        echo "  const unsigned long long w = ${uname}_WARMUP_STEPS, r = ${uname}_RAMP_STEPS;"
        echo '  const unsigned long long steps[] = {0, w, w + 1, w + r / 2, w + r - 1, w + r, w + r + 7, 123456789ull, ~0ull};'
        for ((s = 0; s < stages; s++)); do
          echo "  for (unsigned m = 0; m < ${uname}_MICROBATCHES + 1; m++)"
          echo "    for (unsigned i = 0; i < sizeof steps / sizeof *steps + 60; i++) {"
          echo "      unsigned long long st = i < sizeof steps / sizeof *steps ? steps[i] : w + r + 13ull * i;"
          echo "      memset(a, 0xa5, sizeof a); memset(b, 0x5a, sizeof b);"
          echo "      unsigned long long x = ${name}_stage${s}_cu_frozen_mask(m, st, a);"
          echo "      uint64_t y = ${name}_frozen_mask($s, m, st, b);"
          echo "      bad += x != y || memcmp(a, b, 8 * ${uname}_STAGE${s}_MASK_WORDS) != 0; n++;"
          echo "    }"
        done
        echo "  printf(\"%ld of %ld\", n - bad, n);"
        echo '  return bad != 0; }'
      } >"$gen/parity.cu"
      if ! "$nvcc" -I"$gen" -Xcompiler -Wall,-Wextra,-Werror -o "$gen/parity" "$gen/parity.cu" "$gen/$name.c" 2>"$gen/nvcc.txt"; then
        echo "$name $rule: nvcc rejects the .cu as host code: $(head -3 "$gen/nvcc.txt")"
        bad=$((bad + 1))
      elif ! got=$("$gen/parity"); then
        echo "$name $rule: CUDA (host side) and C masks differ: $got agree"
        bad=$((bad + 1))
      else
        cu_variants=$((cu_variants + 1))
        echo "$name $rule: CUDA (nvcc, host side) and C agree on $got masks"
      fi
    done
  done
elif [ -n "${CI:-}" ]; then
  echo "codegen rules: nvcc not found: in CI every part but the GPU run is required (README, Building)"
  bad=1
else
  echo "codegen rules: nvcc not found; CUDA host-side parity of the rules skipped"
fi

masks=$(cat "$work"/v/*/dump.txt 2>/dev/null | grep -c '^mask ')
echo "codegen rules: ${#jobs_list[@]} spec x rule variants, $masks masks, $((SECONDS - start)) s, $bad failure(s)"
[ $bad -eq 0 ]
