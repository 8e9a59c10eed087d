#!/usr/bin/env bash
# Limits that keep plans reproducible (ctest lp_limits): without
# --lp-timeout the plan has "balance_complete": true and is the same bytes
# twice; with a wall-clock limit that phase 3 (freeze.balance) runs past,
# tfc still plans (exit 0), says so on stderr, marks plan.json
# "balance_complete": false, and the plan is phase 2's: every ratio equal
# to the plan with balance: none. The spec is the progress test's (a solve
# of a few seconds: ZBV, 16 ranks x 2 stages, 256 microbatches).
#   check.sh TFC
set -euo pipefail
tfc=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "lp_limits: $*"; exit 1; }
python3 - "$work/slow.yaml" "$work/none.yaml" <<'PY'
import sys
p, v, m = 16, 2, 256
n = p * v
f = ", ".join(f"{1.0 + 0.6 * ((i * 7) % 5) / 4:.2f}" for i in range(n))
L = ["tfc: 1", "name: slow", "model:", "  stages:"] + ["    - params: [{name: w, numel: 1}]"] * n
L.append(f"pipeline: {{schedule: ZBV, ranks: {p}, stages_per_rank: {v}, microbatches: {m}}}")
L.append(f"timing: {{forward_ms: [{f}], backward_input_ms: [{f}], backward_weight_ms: [{f}], comm_ms: 0.05}}")
open(sys.argv[1], "w").write("\n".join(L + ["freeze: {max_ratio: 0.9}"]) + "\n")
open(sys.argv[2], "w").write("\n".join(L + ["freeze: {max_ratio: 0.9, balance: none}"]) + "\n")
PY
t0=$(date +%s.%N)
"$tfc" plan "$work/slow.yaml" --json >"$work/full.json" 2>"$work/full.err"
full_s=$(echo "$(date +%s.%N) - $t0" | bc)
"$tfc" plan "$work/slow.yaml" --json >"$work/full2.json" 2>/dev/null
cmp -s "$work/full.json" "$work/full2.json" || fail "the default plan differs between two runs"
grep -q '"balance_complete": true' "$work/full.json" || fail "the default plan is not marked balance_complete: true"
[ ! -s "$work/full.err" ] || fail "the default plan wrote to stderr: $(head -c 300 "$work/full.err")"
"$tfc" plan "$work/none.yaml" --json >"$work/none.json"
# A limit phases 1 and 2 fit in and phase 3 does not: try shrinking ones
# until phase 3 is the one cut (phases 1-2 past it: exit 3, try longer).
# The limits are fractions of the default plan's own time, so a slow build
# (sanitizers, Debug: several times slower) finds one as a fast one does.
limits=$(python3 -c "import sys; f = float(sys.argv[1]); print(' '.join(f'{round(max(0.05, f * x), 2):g}' for x in (0.8, 0.65, 0.5, 0.4, 0.3, 0.22, 0.16, 0.12, 0.08, 0.05)))" "$full_s")
found=0
for t in $limits; do
  if "$tfc" plan "$work/slow.yaml" --json --lp-timeout "$t" >"$work/cut.json" 2>"$work/cut.err"; then
    if grep -q '"balance_complete": false' "$work/cut.json"; then found=1; break; fi
  fi
done
[ "$found" = 1 ] || fail "no limit of $limits s cut phase 3 (the default plan took $full_s s)"
grep -q "note: phase 3 of the freeze LP (freeze.balance) ran past --lp-timeout $t s: the plan is phase 2's" "$work/cut.err" ||
  fail "no note on stderr: $(head -c 300 "$work/cut.err")"
python3 - "$work/cut.json" "$work/none.json" "$work/full.json" <<'PY' || fail "the cut plan is not phase 2's"
import json, sys
cut, none, full = (json.load(open(p)) for p in sys.argv[1:4])
rc = [a["freeze_ratio"] for a in cut["actions"]]
rn = [a["freeze_ratio"] for a in none["actions"]]
assert rc == rn, "ratios differ from balance: none's"
assert cut["makespan_ms"] == none["makespan_ms"]
assert abs(cut["makespan_ms"] - full["makespan_ms"]) <= 1e-6 * full["makespan_ms"], "a different makespan"
assert abs(cut["lp"]["total_freeze"] - full["lp"]["total_freeze"]) <= 1e-6 * max(1, full["lp"]["total_freeze"])
assert max(rc) >= max(a["freeze_ratio"] for a in full["actions"]) - 1e-9, "phase 2's plan is not less even"
PY
# The text form says it too (at this limit or a shorter one: how far phase 3
# gets in a given time varies from run to run).
noted=0
shorter=$(python3 -c "import sys; t = float(sys.argv[1]); print(' '.join(f'{t * x:.3f}' for x in (1, 0.8, 0.65, 0.5, 0.4, 0.3)))" "$t")
for t2 in $shorter; do
  if "$tfc" plan "$work/slow.yaml" --lp-timeout "$t2" >"$work/cut.txt" 2>/dev/null; then
    if grep -q "^note: phase 3" "$work/cut.txt"; then noted=1; break; fi
    grep -q "phase 3\|balance" "$work/cut.txt" >/dev/null || true
  fi
done
[ "$noted" = 1 ] || fail "tfc plan's text has no note at any limit that cut phase 3 in --json form"
echo "lp_limits: the default plan is reproducible and balanced ($full_s s); --lp-timeout $t cut phase 3 and kept phase 2's plan, said so and marked it"
