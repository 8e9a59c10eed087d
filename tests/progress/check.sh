#!/usr/bin/env bash
# Progress on long work (ctest progress): tfc plan on a solve of about 3-4 s
# shows its phase and round on a terminal (script(1) gives it one), shows
# nothing with -q, and writes nothing extra when stderr is not a terminal;
# stdout is the same bytes in all three.
#   check.sh TFC
set -euo pipefail
tfc=$1
if ! command -v script >/dev/null; then
  echo "progress: script(1) missing (bsdutils)"
  [ -n "${CI:-}" ] && { echo "progress: in CI every part but the GPU run is required"; exit 1; }
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work/slow.yaml" "$work/nano.yaml" <<'PY'
import sys
p, v, m = 32, 2, 192
n = p * v
# The second spec is the same step written in nanoseconds.
for path, unit in ((sys.argv[1], ""), (sys.argv[2], "e-9")):
    f = ", ".join(f"{1.0 + 0.6 * ((i * 7) % 5) / 4:.2f}{unit}" for i in range(n))
    L = ["tfc: 1", "name: slow", "model:", "  stages:"] + ["    - params: [{name: w, numel: 1}]"] * n
    L.append(f"pipeline: {{schedule: ZBV, ranks: {p}, stages_per_rank: {v}, microbatches: {m}}}")
    L.append(f"timing: {{forward_ms: [{f}], backward_input_ms: [{f}], backward_weight_ms: [{f}], "
             f"comm_ms: 0.05{unit}}}")
    L.append("freeze: {max_ratio: 0.9}")
    open(path, "w").write("\n".join(L) + "\n")
PY
# Not a terminal: stderr stays empty.
"$tfc" plan "$work/slow.yaml" --json >"$work/plain.json" 2>"$work/plain.err"
[ ! -s "$work/plain.err" ] || { echo "progress: stderr not a terminal, yet: $(head -c 300 "$work/plain.err")"; exit 1; }
# A terminal (stdout and stderr both on script's pty; stdout to a file).
script -qec "'$tfc' plan '$work/slow.yaml' --json >'$work/tty.json'" /dev/null >"$work/tty.err" </dev/null
grep -q "freeze LP" "$work/tty.err" || { echo "progress: no progress line on a terminal"; cat -v "$work/tty.err" | head -c 400; exit 1; }
grep -q "round" "$work/tty.err" || { echo "progress: the line names no round"; exit 1; }
script -qec "'$tfc' plan '$work/slow.yaml' --json -q >'$work/quiet.json'" /dev/null >"$work/quiet.err" </dev/null
! grep -q "freeze LP" "$work/quiet.err" || { echo "progress: -q still shows progress"; exit 1; }
cmp -s "$work/plain.json" "$work/tty.json" && cmp -s "$work/plain.json" "$work/quiet.json" ||
  { echo "progress: stdout differs between a terminal and a pipe"; exit 1; }
# The step in nanoseconds: phase 1's bounds in the spec's unit, in full, not
# 0.0000 (the LP solves it scaled by 2^30) nor in the scaled unit. Phase 1
# shows only if it is still running when a line is due (about 1 s in, here);
# the unit test plan_units checks the bounds themselves on every machine.
script -qec "'$tfc' plan '$work/nano.yaml' --json >'$work/nano.json'" /dev/null >"$work/nano.err" </dev/null
nano=$(tr '\r' '\n' <"$work/nano.err" | grep -c "phase 1" || true)
if [ "$nano" -gt 0 ]; then
  tr '\r' '\n' <"$work/nano.err" | grep "phase 1" | grep -v -q "bound [0-9.]*e-0[0-9]*, best [0-9.]*e-0[0-9]*, gap" &&
    { echo "progress: phase 1's bounds of a nanosecond step are not in nanoseconds:";
      tr '\r' '\n' <"$work/nano.err" | grep "phase 1" | head -3 | cat -v; exit 1; }
fi
echo "progress: shown on a terminal ($(tr '\r' '\n' <"$work/tty.err" | grep -c "freeze LP") updates), silent with -q and off a terminal, stdout unchanged; $nano phase 1 updates of a nanosecond step in nanoseconds"
