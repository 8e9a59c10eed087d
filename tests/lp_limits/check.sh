#!/usr/bin/env bash
# Limits that keep plans reproducible (ctest lp_limits): without
# --lp-timeout the plan has "balance_complete": true and is the same bytes
# twice; with a wall-clock limit that phase 3 (freeze.balance) runs past,
# tfc still plans (exit 0), says so on stderr, marks plan.json
# "balance_complete": false, and the plan is phase 2's: every ratio equal
# to the plan with balance: none. The spec is the progress test's (a solve
# of a few seconds: ZBV, 16 ranks x 2 stages, 256 microbatches); the limit
# is cut on its leximin variant, whose phase 3 (bisections round after
# round: minutes) outlasts any limit phases 1 and 2 (the whole default plan's
# time, each) fit in.
#   check.sh TFC
set -euo pipefail
tfc=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "lp_limits: $*"; exit 1; }
python3 - "$work/slow.yaml" "$work/none.yaml" "$work/lex.yaml" <<'PY'
import sys
p, v, m = 16, 2, 256
n = p * v
f = ", ".join(f"{1.0 + 0.6 * ((i * 7) % 5) / 4:.2f}" for i in range(n))
L = ["tfc: 1", "name: slow", "model:", "  stages:"] + ["    - params: [{name: w, numel: 1}]"] * n
L.append(f"pipeline: {{schedule: ZBV, ranks: {p}, stages_per_rank: {v}, microbatches: {m}}}")
L.append(f"timing: {{forward_ms: [{f}], backward_input_ms: [{f}], backward_weight_ms: [{f}], comm_ms: 0.05}}")
open(sys.argv[1], "w").write("\n".join(L + ["freeze: {max_ratio: 0.9}"]) + "\n")
open(sys.argv[2], "w").write("\n".join(L + ["freeze: {max_ratio: 0.9, balance: none}"]) + "\n")
open(sys.argv[3], "w").write("\n".join(L + ["freeze: {max_ratio: 0.9, balance: leximin}"]) + "\n")
PY
t0=$(date +%s.%N)
"$tfc" plan "$work/slow.yaml" --json >"$work/full.json" 2>"$work/full.err"
full_s=$(echo "$(date +%s.%N) - $t0" | bc)
"$tfc" plan "$work/slow.yaml" --json >"$work/full2.json" 2>/dev/null
cmp -s "$work/full.json" "$work/full2.json" || fail "the default plan differs between two runs"
grep -q '"balance_complete": true' "$work/full.json" || fail "the default plan is not marked balance_complete: true"
[ ! -s "$work/full.err" ] || fail "the default plan wrote to stderr: $(head -c 300 "$work/full.err")"
"$tfc" plan "$work/none.yaml" --json >"$work/none.json"
# A limit phases 1 and 2 fit in and phase 3 does not: 1.5 times the whole
# default plan's time (each of phases 1 and 2 takes less than that, on a
# fast machine or under sanitizers alike) on the leximin variant.
t=$(python3 -c "import sys; print(f'{round(1.5 * float(sys.argv[1]) + 0.05, 2):g}')" "$full_s")
rc=0
"$tfc" plan "$work/lex.yaml" --json --lp-timeout "$t" >"$work/cut.json" 2>"$work/cut.err" || rc=$?
[ "$rc" -eq 0 ] || fail "leximin at --lp-timeout $t exited $rc: $(head -c 300 "$work/cut.err")"
grep -q '"balance_complete": false' "$work/cut.json" || fail "--lp-timeout $t did not cut leximin's phase 3 (the default plan took $full_s s)"
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
# The text form says it too.
"$tfc" plan "$work/lex.yaml" --lp-timeout "$t" >"$work/cut.txt" 2>/dev/null || fail "the text form at --lp-timeout $t failed"
grep -q "^note: phase 3" "$work/cut.txt" || fail "tfc plan's text has no note at --lp-timeout $t"
echo "lp_limits: the default plan is reproducible and balanced ($full_s s); --lp-timeout $t cut phase 3 and kept phase 2's plan, said so and marked it"
