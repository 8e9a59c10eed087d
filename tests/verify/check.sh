#!/usr/bin/env bash
# tfc verify and tfc diff (ctest verify). verify: a folder as compile wrote
# it passes; a changed, a missing and an added file are each named; against
# the spec it says the same bytes, or, for a folder made to look like an
# older release's (its version stamp changed and its MANIFEST rewritten to
# match, as that release would have written it), that only the stamp
# differs and the plan is the same; for a folder from another plan, that the
# plan differs; the input files a spec names are recorded and checked; a
# spec renamed or given on standard input is told apart (--spec-name).
# A listed file over 1 GiB is hashed, and diff reads a plan.json over 256 MiB.
# diff: same plans exit 0, different ones 1 with the changes (the
# predicted time to quality among them)
# (checked against a comparison of the two plan.json written here), bad
# input 2; --json parses and agrees; a format-1 plan (the "stages" key
# twice) is read; the tolerance is honoured.
#   check.sh TFC SOURCE_DIR [plain|sanitized]
set -uo pipefail
tfc=$1
src=$2
build=${3:-plain}
case $tfc in /*) ;; *) tfc=$PWD/$tfc ;; esac # the inputs' spec is compiled from another folder
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "verify check: $*"; failures=$((failures + 1)); }
# run WANT_RC COMMAND...: output in $work/out and $work/err
run() {
  local want=$1
  shift
  timeout 60 "$@" >"$work/out" 2>"$work/err"
  local rc=$?
  [ "$rc" -eq "$want" ] || fail "'$*' exited $rc, want $want: $(head -c 400 "$work/err")"
}

spec=$src/specs/llama8b_1f1b.yaml
"$tfc" compile "$spec" -o "$work/a" -q --skip-cuda-check || { echo "verify check: compile failed"; exit 1; }

run 0 "$tfc" verify "$work/a"
grep -q "matches its MANIFEST" "$work/out" || fail "verify of an intact folder: $(cat "$work/out")"
run 0 "$tfc" verify "$work/a" "$spec"
grep -q "writes the same bytes" "$work/out" || fail "verify against its spec: $(cat "$work/out")"

# A --sweep or --compare folder has a MANIFEST but no compile to compare
# with: its MANIFEST checks (exit 0); with SPEC, exit 2 naming what it is,
# not a count of differing files.
"$tfc" plan "$spec" --sweep "$work/sweep" -q >/dev/null 2>&1 || fail "plan --sweep failed"
run 0 "$tfc" verify "$work/sweep"
grep -q "matches its MANIFEST" "$work/out" || fail "verify of a sweep folder: $(cat "$work/out")"
run 2 "$tfc" verify "$work/sweep" "$spec"
grep -q "a tfc plan --sweep folder, not a compile's" "$work/err" || fail "verify SPEC on a sweep folder: $(cat "$work/err")"
grep -q "would write different bytes" "$work/out" && fail "verify SPEC on a sweep folder counts differing files: $(cat "$work/out")"

# Changed, missing and added files, each named.
cp -r "$work/a" "$work/b"
echo "// edited" >>"$work/b/llama8b_1f1b.c"
rm "$work/b/timeline.svg"
echo extra >"$work/b/notes.txt"
run 1 "$tfc" verify "$work/b"
grep -q "$work/b/llama8b_1f1b.c: error: changed since tfc wrote it" "$work/err" || fail "changed file not named"
grep -q "$work/b/timeline.svg: error: missing" "$work/err" || fail "missing file not named"
grep -q "$work/b/notes.txt: error: not in the MANIFEST" "$work/err" || fail "added file not named"
run 1 "$tfc" verify "$work/b" "$spec"
grep -q "differing beyond the stamp: .*llama8b_1f1b.c" "$work/out" || fail "verify with the spec does not name the edited file: $(cat "$work/out")"

# A folder as an older release wrote it: every file's version stamp is
# 0.0.9, and its MANIFEST matches those files.
cp -r "$work/a" "$work/old"
ver=$("$tfc" --version | head -1 | awk '{print $2}')
python3 - "$work/old" "$ver" <<'PY'
import hashlib, os, sys
d, ver = sys.argv[1], sys.argv[2]
names = [n for n in sorted(os.listdir(d)) if n != "MANIFEST"]
for n in names:
    p = os.path.join(d, n)
    b = open(p, "rb").read().replace(ver.encode(), b"0.0.9")
    open(p, "wb").write(b)
lines = open(os.path.join(d, "MANIFEST")).read().splitlines()
head = [l.replace("# tfc " + ver, "# tfc 0.0.9") for l in lines if l.startswith("#")]
listed = [l.split("  ", 1)[1] for l in lines if not l.startswith("#")]
body = [hashlib.sha256(open(os.path.join(d, n), "rb").read()).hexdigest() + "  " + n for n in listed]
open(os.path.join(d, "MANIFEST"), "w").write("\n".join(head + body) + "\n")
PY
run 0 "$tfc" verify "$work/old"
run 1 "$tfc" verify "$work/old" "$spec"
grep -q "would write different bytes" "$work/out" || fail "old release: no difference reported: $(cat "$work/out")"
grep -q "only the version stamp differs" "$work/out" || fail "old release: not recognised as a stamp-only difference: $(cat "$work/out")"
grep -q "the plan itself .* is the same" "$work/out" || fail "old release: the plan should be the same: $(cat "$work/out")"

# A folder as a build with other floating-point settings would write it:
# reals moved in their last digits (plan.json's ratios and starts to the
# next double up, the C table's ratios likewise, one SVG coordinate by one
# unit of its last digit), the MANIFEST rewritten to match. verify names
# the count; a real moved by 1e-6 of itself, or a mask's integer by one, is
# a different folder.
perturb() { # perturb SRC DST MODE: MODE last (the last digits) | far (a real by 1e-6) | int (an integer by one)
  rm -rf "$2"
  cp -r "$1" "$2"
  python3 - "$2" "$3" <<'PY'
import hashlib, math, os, re, sys
d, mode = sys.argv[1], sys.argv[2]
moved = 0
def nudge(m):
    global moved
    v = float(m.group(2))
    if mode == "far" and moved == 0 and v > 0:
        moved += 1
        return m.group(1) + repr(v * (1 + 1e-6))
    if mode == "last" and 0 < v:
        moved += 1
        return m.group(1) + repr(math.nextafter(v, math.inf))
    return m.group(0)
p = os.path.join(d, "plan.json")
t = open(p).read()
t = re.sub(r'("(?:freeze_ratio|start_ms)": )([0-9.e-]+)', nudge, t)
open(p, "w").write(t)
if mode == "last":
    c = os.path.join(d, "llama8b_1f1b_stage3.c")
    t = open(c).read()
    t = re.sub(r"(\n    (?:[0-9.e-]+, )*)(0\.[0-9]+)(?=,)", nudge, t, count=1)
    open(c, "w").write(t)
    s = os.path.join(d, "timeline.svg")
    t = open(s).read()
    m = re.search(r'<rect class="act [A-Z]" x="([0-9]+\.[0-9]+)"', t)
    x = m.group(1)
    t = t[:m.start(1)] + f"{float(x) + 0.01:.2f}" + t[m.end(1):]
    open(s, "w").write(t)
    moved += 1
if mode == "int":
    c = os.path.join(d, "llama8b_1f1b_stage3.c")
    t = open(c).read()
    t = re.sub(r"([0-9]+)ull,", lambda m: f"{int(m.group(1)) + 1}ull,", t, count=1)
    open(c, "w").write(t)
lines = open(os.path.join(d, "MANIFEST")).read().splitlines()
body = [hashlib.sha256(open(os.path.join(d, l.split("  ", 1)[1]), "rb").read()).hexdigest() + "  " + l.split("  ", 1)[1]
        for l in lines if not l.startswith("#")]
open(os.path.join(d, "MANIFEST"), "w").write("\n".join([l for l in lines if l.startswith("#")] + body) + "\n")
print(moved)
PY
}
moved=$(perturb "$work/a" "$work/digits" last)
[ "${moved:-0}" -ge 10 ] || fail "the last-digits folder moved only ${moved:-0} reals"
run 0 "$tfc" verify "$work/digits"
run 1 "$tfc" verify "$work/digits" "$spec"
grep -q "differs only in the last digits of $moved reals (in 3 files): built with other floating-point settings?" \
  "$work/out" || fail "last digits ($moved reals moved): $(cat "$work/out")"
grep -q "the plan itself .* is the same" "$work/out" || fail "last digits: the plan should be the same: $(cat "$work/out")"
perturb "$work/a" "$work/far" far >/dev/null
run 1 "$tfc" verify "$work/far" "$spec"
grep -q "last digits of [0-9]* real" "$work/out" && fail "a real moved by 1e-6 reported as last digits: $(cat "$work/out")"
grep -q "differing beyond the stamp: plan.json" "$work/out" || fail "a real moved by 1e-6 is not named: $(cat "$work/out")"
perturb "$work/a" "$work/int" int >/dev/null
run 1 "$tfc" verify "$work/int" "$spec"
grep -q "last digits of [0-9]* real" "$work/out" && fail "an integer moved by one reported as last digits: $(cat "$work/out")"
grep -q "differing beyond the stamp: llama8b_1f1b_stage3.c" "$work/out" || fail "a changed mask integer is not named: $(cat "$work/out")"

# Another plan under the same name: the plan differs.
sed 's/max_ratio: 0.9/max_ratio: 0.5/' "$spec" >"$work/llama8b_1f1b.yaml"
run 1 "$tfc" verify "$work/a" "$work/llama8b_1f1b.yaml"
grep -q "the plan itself .* is different" "$work/out" || fail "another plan: not reported: $(cat "$work/out")"

# The files record the spec's file name ("stdin" for standard input). A
# folder compiled from a spec since renamed, or from standard input, and
# verified with the file: both names said and "only the spec's file name
# differs", nothing counted "otherwise" (exit 1 still: tfc compile SPEC
# writes other bytes); --spec-name with the recorded name, or the spec on
# standard input again: the same bytes. Renamed and planned otherwise: the
# names said, the plan named as different.
cp "$spec" "$work/renamed.yaml"
run 1 "$tfc" verify "$work/a" "$work/renamed.yaml"
grep -q "compiled from spec llama8b_1f1b.yaml (its MANIFEST), not renamed.yaml: .*--spec-name llama8b_1f1b.yaml" \
  "$work/out" && grep -q ", 0 otherwise$" "$work/out" &&
  grep -q "only the spec's file name differs (llama8b_1f1b.yaml -> renamed.yaml): the plan, the masks and the code are the same" \
  "$work/out" || fail "a renamed spec: $(cat "$work/out")"
run 0 "$tfc" verify "$work/a" "$work/renamed.yaml" --spec-name llama8b_1f1b.yaml
grep -q "writes the same bytes from $work/renamed.yaml under --spec-name llama8b_1f1b.yaml" "$work/out" ||
  fail "a renamed spec under --spec-name: $(cat "$work/out")"
"$tfc" compile - -o "$work/stdin" -q --skip-cuda-check <"$spec" || fail "compile from standard input"
run 1 "$tfc" verify "$work/stdin" "$spec"
grep -q "compiled from spec stdin (its MANIFEST), not llama8b_1f1b.yaml" "$work/out" &&
  grep -q "only the spec's file name differs (stdin -> llama8b_1f1b.yaml)" "$work/out" ||
  fail "a folder compiled from standard input: $(cat "$work/out")"
run 0 "$tfc" verify "$work/stdin" "$spec" --spec-name -
timeout 60 "$tfc" verify "$work/stdin" - <"$spec" >"$work/out" 2>&1 || fail "verify - of a folder compiled from stdin: $(cat "$work/out")"
sed 's/max_ratio: 0.9/max_ratio: 0.5/' "$spec" >"$work/half.yaml"
run 1 "$tfc" verify "$work/a" "$work/half.yaml"
grep -q "compiled from spec llama8b_1f1b.yaml (its MANIFEST), not half.yaml" "$work/out" &&
  grep -q "the plan itself .* is different" "$work/out" && ! grep -q "only the spec's file name differs" "$work/out" ||
  fail "renamed and planned otherwise: $(cat "$work/out")"
run 2 "$tfc" verify "$work/a" --spec-name llama8b_1f1b.yaml
run 4 "$tfc" verify "$work/missing"
run 1 "$tfc" verify "$src/specs"
run 2 "$tfc" verify
run 2 "$tfc" verify "$work/a" "$spec" extra

# Input files. A spec that reads none has no "# input" line; one whose plan
# reads an order CSV and measured timings (timing.file: two files, one in a
# subfolder; timing.frozen_file: one) has one per file right after the
# spec's, in the spec's order, with the sha256 of the file's bytes and the
# path as the spec writes it. Moved with its inputs to another folder, the
# spec gives the same folder byte for byte. verify DIR SPEC passes; after
# one byte of an input changes it fails and names that input, with both
# sha256, before anything else; an input whose new bytes plan the same
# (rows reordered) is named too, and only the MANIFEST differs.
[ "$(grep -c '^# input' "$work/a/MANIFEST")" -eq 0 ] || fail "a spec without input files has # input lines"
in=$work/in/deep
mkdir -p "$in/times"
cp "$src/specs/llama8b_custom.csv" "$in/order.csv"
"$tfc" plan "$src/specs/llama8b_custom.yaml" --json >"$work/custom.json" || fail "plan --json of llama8b_custom"
python3 - "$src/specs/llama8b_custom.yaml" "$work/custom.json" "$in" <<'PY'
import json, os, re, sys
spec, plan, d = sys.argv[1:4]
rows, frozen = ([], []), []
for a in json.load(open(plan))["actions"]:
    key = f"{a['rank']},{a['stage']},{a['microbatch']},{a['type']}"
    rows[a["microbatch"] % 2].append(f"{key},{a['baseline_duration_ms']!r}\n")
    if a["type"] == "B":
        frozen.append(f"{key},{a['baseline_duration_ms'] / 2!r}\n")
open(os.path.join(d, "times", "t_even.csv"), "w").write("".join(rows[0]))
open(os.path.join(d, "t_odd.csv"), "w").write("".join(rows[1]))
open(os.path.join(d, "frozen.csv"), "w").write("".join(frozen))
t = open(spec).read().replace("order: llama8b_custom.csv", "order: order.csv")
t = re.sub(r"^timing:\n(?:  .*\n)+", "timing:\n  source: measured\n  file: [times/t_even.csv, t_odd.csv]\n"
           "  frozen_file: frozen.csv\n  comm_ms: 0.2\n", t, flags=re.M)
open(os.path.join(d, "inputs.yaml"), "w").write(t)
PY
(cd "$work/in" && "$tfc" compile deep/inputs.yaml -o "$work/i1" -q --skip-cuda-check) || fail "compile of a spec with inputs"
want=$(cd "$in" && for f in order.csv times/t_even.csv t_odd.csv frozen.csv; do
  echo "# input $(sha256sum "$f" | cut -c1-64)  $f"
done)
[ "$(sed -n 4,7p "$work/i1/MANIFEST")" = "$want" ] ||
  fail "input lines: want after the spec's:"$'\n'"$want"$'\n'"got:"$'\n'"$(head -8 "$work/i1/MANIFEST")"
sed -n 3p "$work/i1/MANIFEST" | grep -q '^# spec ' && sed -n 8p "$work/i1/MANIFEST" | grep -q '^# sha256 of every' ||
  fail "input lines not between the spec's line and the file list: $(head -8 "$work/i1/MANIFEST")"
(cd "$work/i1" && grep -v '^#' MANIFEST | sha256sum -c --quiet) || fail "sha256sum -c on a MANIFEST with input lines"
mkdir -p "$work/moved/else"
mv "$work/in/deep" "$work/moved/else/where"
"$tfc" compile "$work/moved/else/where/inputs.yaml" -o "$work/i2" -q --skip-cuda-check || fail "compile after the move"
diff -r "$work/i1" "$work/i2" >/dev/null || fail "moving the spec and its inputs changed the folder: $(diff -r "$work/i1" "$work/i2" | head -5)"
in=$work/moved/else/where
ispec=$in/inputs.yaml
run 0 "$tfc" verify "$work/i1"
run 0 "$tfc" verify "$work/i1" "$ispec"
grep -q "writes the same bytes" "$work/out" || fail "verify with inputs, unchanged: $(cat "$work/out")"
cp "$in/times/t_even.csv" "$work/t_even.kept"
was=$(sha256sum "$in/times/t_even.csv" | cut -c1-12)
sed -i '1s/,\([0-9]\)\([0-9.]*\)$/,9\2/' "$in/times/t_even.csv" # the first sample's first digit: one byte
[ "$(cmp -l "$work/t_even.kept" "$in/times/t_even.csv" | wc -l)" -eq 1 ] || fail "the edit changed other than one byte"
now=$(sha256sum "$in/times/t_even.csv" | cut -c1-12)
run 1 "$tfc" verify "$work/i1" "$ispec"
[ "$(head -2 "$work/out" | tail -1)" = "$work/i1: input times/t_even.csv changed since the folder was written (sha256 $was... in the MANIFEST, $now... now)" ] ||
  fail "one byte of an input changed: not named first: $(cat "$work/out")"
grep -q "the plan itself .* is different" "$work/out" || fail "one byte of an input changed: the plan should differ: $(cat "$work/out")"
[ "$(grep -c ': input ' "$work/out")" -eq 1 ] || fail "unchanged inputs named: $(cat "$work/out")"
cp "$work/t_even.kept" "$in/times/t_even.csv"
run 0 "$tfc" verify "$work/i1" "$ispec"
sort -r "$in/frozen.csv" >"$work/frozen.rev" && cp "$work/frozen.rev" "$in/frozen.csv"
run 1 "$tfc" verify "$work/i1" "$ispec"
grep -q "^$work/i1: input frozen.csv changed since the folder was written" "$work/out" &&
  grep -q "only the MANIFEST differs (the inputs above): the plan, the masks and the code are the same" "$work/out" ||
  fail "an input reordered to the same plan: $(cat "$work/out")"
# A folder whose MANIFEST has no input lines (as tfc wrote them before it
# recorded inputs): intact, but not what this tfc writes, each input named.
cp -r "$work/i1" "$work/i3"
grep -v '^# input' "$work/i1/MANIFEST" >"$work/i3/MANIFEST"
run 0 "$tfc" verify "$work/i3"
run 1 "$tfc" verify "$work/i3" "$ispec"
grep -q "^$work/i3: input order.csv, named by $ispec, is not in the MANIFEST" "$work/out" ||
  fail "inputs missing from the MANIFEST not named: $(cat "$work/out")"
sed 's/^# input /# input x/' "$work/i1/MANIFEST" >"$work/i3/MANIFEST"
run 1 "$tfc" verify "$work/i3"
grep -q "i3/MANIFEST:4:1: error: not a MANIFEST input line" "$work/err" || fail "bad input line: $(cat "$work/err")"

# A folder file over 1 GiB (timeline.svg is 1.2 GB at 3.1 million actions,
# ZBV 512 x 2 x 1024): its sha256 is read a piece at a time, not refused as
# too large to read whole. A sparse file of 1025 MiB of zeros stands in.
# (Not in a sanitizer build: its SHA-256 takes minutes over 1 GiB.)
if [ "$build" != sanitized ]; then
  cp -r "$work/a" "$work/huge"
  truncate -s 1025M "$work/huge/big.bin"
  echo "0e5784b2441347f7c1cbfe2ee03dd421ff87c3086fdf0ce280cf26cbcf114462  big.bin" >>"$work/huge/MANIFEST"
  run 0 "$tfc" verify "$work/huge"
  grep -q "matches its MANIFEST" "$work/out" || fail "verify of a folder with a 1025 MiB file: $(cat "$work/out" "$work/err")"
  rm -rf "$work/huge"
fi

# tfc diff.
"$tfc" compile "$work/llama8b_1f1b.yaml" -o "$work/c" -q --skip-cuda-check
run 0 "$tfc" diff "$work/a/plan.json" "$work/a/plan.json"
grep -q "same plan" "$work/out" || fail "diff of a plan with itself: $(cat "$work/out")"
run 1 "$tfc" diff "$work/a/plan.json" "$work/c/plan.json"
run 1 "$tfc" diff "$work/a/plan.json" "$work/c/plan.json" --json
python3 - "$work/a/plan.json" "$work/c/plan.json" "$work/out" <<'PY' || fail "diff --json disagrees with a comparison written here"
import json, sys
a, b, got = (json.load(open(p)) for p in sys.argv[1:4])
key = lambda x: (x["stage"], x["microbatch"], x["type"])
A = {key(x): x for x in a["actions"]}
B = {key(x): x for x in b["actions"]}
tol = 1e-6
want = sorted(k for k in A if k in B and (A[k]["rank"] != B[k]["rank"] or abs(A[k]["freeze_ratio"] - B[k]["freeze_ratio"]) > tol
                                        or abs(A[k]["start_ms"] - B[k]["start_ms"]) > tol))
have = sorted((x["stage"], x["microbatch"], x["type"]) for x in got["actions"] if x["a"] and x["b"])
assert got["same"] is False and got["format"] == "tfc-diff-1"
assert have == want, (len(have), len(want))
assert got["actions_changed"] == len(want)
assert abs(got["a"]["makespan_ms"] - a["makespan_ms"]) < 1e-12 and abs(got["b"]["makespan_ms"] - b["makespan_ms"]) < 1e-12
for s in range(a["stage_count"]):
    assert abs(got["b"]["mean_freeze_ratio"][s] - b["stages"][s]["mean_freeze_ratio"]) < 1e-12
PY
# Exactly one action's freeze ratio moved by 0.01, nothing else (not even
# its stage's mean): a different plan, that action named.
want=$(python3 - "$work/a/plan.json" "$work/one.json" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
plan = json.loads(text)
x = next(a for a in plan["actions"] if a["type"] in "BW" and 0 < a["freeze_ratio"] <= 0.99)
lines = text.split("\n")
key = f'"stage": {x["stage"]}, "microbatch": {x["microbatch"]}, "type": "{x["type"]}"'
hit = [i for i, l in enumerate(lines) if key in l]
assert len(hit) == 1, hit
lines[hit[0]] = re.sub(r'("freeze_ratio": )([0-9.e-]+)', lambda m: m.group(1) + repr(x["freeze_ratio"] + 0.01),
                       lines[hit[0]])
open(sys.argv[2], "w").write("\n".join(lines))
print(f'{x["stage"]}{x["type"]}{x["microbatch"]} (rank {x["rank"]}): ratio {x["freeze_ratio"]:.6f} -> '
      f'{x["freeze_ratio"] + 0.01:.6f}')
PY
)
run 1 "$tfc" diff "$work/a/plan.json" "$work/one.json"
grep -q "^actions: 1 changed" "$work/out" || fail "one ratio moved by 0.01: not one changed action: $(cat "$work/out")"
grep -qF "  $want" "$work/out" || fail "one ratio moved by 0.01: '$want' not named: $(cat "$work/out")"
run 1 "$tfc" diff "$work/a/plan.json" "$work/one.json" --json
grep -q '"same": false' "$work/out" && grep -q '"actions_changed": 1,' "$work/out" ||
  fail "one ratio moved by 0.01 (--json): $(head -c 300 "$work/out")"

# The predicted time to quality is part of the plan: the same freezing
# (an explicit cap) at another noise scale, or with no training section,
# differs; its numbers are plan.json's, read here.
for ns in 2e5 2e7; do
  { cat "$spec"; printf 'training: {batch_tokens: 1048576, noise_scale_tokens: %s, steps: 10000}\n' "$ns"; } >"$work/ttq_$ns.yaml"
  "$tfc" plan "$work/ttq_$ns.yaml" --json >"$work/ttq_$ns.json" || fail "plan with training ($ns)"
done
run 1 "$tfc" diff "$work/ttq_2e5.json" "$work/ttq_2e7.json"
python3 - "$work/ttq_2e5.json" "$work/ttq_2e7.json" "$work/out" <<'PY' || fail "diff of two predictions: $(cat "$work/out")"
import json, sys
a, b = (json.load(open(p))["time_to_quality"] for p in sys.argv[1:3])
out = open(sys.argv[3]).read()
assert json.load(open(sys.argv[1]))["makespan_ms"] == json.load(open(sys.argv[2]))["makespan_ms"]  # only the prediction moves
want = f"time to quality     {a['predicted_speedup']:.4f}x predicted at cap {a['cap']:g} -> {b['predicted_speedup']:.4f}x"
assert want in out, (want, out)
PY
run 1 "$tfc" diff "$work/a/plan.json" "$work/ttq_2e5.json" --json
python3 - "$work/ttq_2e5.json" "$work/out" <<'PY' || fail "diff --json, no prediction against one: $(head -c 400 "$work/out")"
import json, sys
t = json.load(open(sys.argv[1]))["time_to_quality"]
got = json.load(open(sys.argv[2]))
assert got["same"] is False and got["actions_changed"] == 0, got
assert got["a"]["time_to_quality"] is None
assert got["b"]["time_to_quality"] == {"predicted_speedup": t["predicted_speedup"], "cap": t["cap"]}, got["b"]
PY
run 0 "$tfc" diff "$work/ttq_2e5.json" "$work/ttq_2e5.json"

# The planning options as compile had them: the policy from the folder's
# plan.json by default (an explicit one wins), --lp-method and --lp-timeout
# as compile takes them.
"$tfc" compile "$spec" -o "$work/uni" -q --skip-cuda-check --policy uniform || fail "compile --policy uniform"
run 0 "$tfc" verify "$work/uni" "$spec"
grep -q "compiled with --policy uniform (its plan.json)" "$work/out" || fail "verify does not say the folder's policy: $(cat "$work/out")"
run 1 "$tfc" verify "$work/uni" "$spec" --policy timely
zbv=$src/specs/llama8b_zbv.yaml
"$tfc" compile "$zbv" -o "$work/direct" -q --skip-cuda-check --lp-method direct || fail "compile --lp-method direct"
run 0 "$tfc" verify "$work/direct" "$zbv" --lp-method direct --lp-timeout 0
run 2 "$tfc" verify "$work/direct" "$zbv" --lp-method simplex

# A damaged plan.json: a difference, its parse error at its place (the
# file's name printed after the comparison: ASan caught it freed).
cp -r "$work/a" "$work/broken"
printf '{' >"$work/broken/plan.json"
run 1 "$tfc" verify "$work/broken" "$spec"
grep -q "broken/plan.json:1:2: error:" "$work/err" || fail "a damaged plan.json: $(cat "$work/err")"

# A listed file that cannot be read is trouble (exit 4), not a difference:
# as another user when root (root reads any file), or as oneself.
cp -r "$work/a" "$work/unread"
chmod 000 "$work/unread/llama8b_1f1b.c"
as=()
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  chmod 755 "$work"
fi
if [ "$(id -u)" -ne 0 ] || [ ${#as[@]} -gt 0 ]; then
  run 4 "${as[@]}" "$tfc" verify "$work/unread"
  grep -q "llama8b_1f1b.c" "$work/err" || fail "an unreadable file is not named: $(cat "$work/err")"
fi
chmod 700 "$work"

# The masks' inputs are part of the plan: the same ratios drawn with another
# seed or rule, or over other tensors, differ (exit 1), and --json names
# what differs as a comparison of the two plan.json written here does.
for edit in 's/seed: 42/seed: 7/' 's/select: balanced/select: front_first/' 's/reselect_every: 10/reselect_every: 5/' \
            's/{name: layers.0.attention_norm.weight, numel: 4096}/{name: layers.0.attention_norm.weight, numel: 4097}/' \
            's/seed: 42/seed: 7/; s/select: balanced/select: uniform/' \
            's/seed: 42/seed: 9007199254740993/'; do
  # (the last against a seed one past 2^53 away, which a double cannot tell
  # from it: the two compared by their digits)
  base=$work/a/plan.json
  case $edit in *9007199254740993*)
    sed -e 's/seed: 42/seed: 9007199254740992/' "$spec" >"$work/b.yaml"
    "$tfc" plan "$work/b.yaml" --json >"$work/b.json" || fail "plan of seed 2^53"
    base=$work/b.json ;;
  esac
  sed -e "$edit" "$spec" >"$work/m.yaml"
  cmp -s "$spec" "$work/m.yaml" && fail "the edit '$edit' changed nothing"
  "$tfc" plan "$work/m.yaml" --json >"$work/m.json" || fail "plan of '$edit'"
  run 1 "$tfc" diff "$base" "$work/m.json"
  grep -q "^masks: " "$work/out" || fail "'$edit': no masks line: $(cat "$work/out")"
  run 1 "$tfc" diff "$base" "$work/m.json" --json
  python3 - "$base" "$work/m.json" "$work/out" "$edit" <<'PY' || fail "'$edit': mask_inputs_changed"
import json, sys
a, b, got = (json.load(open(p)) for p in sys.argv[1:4])  # (Python's integers are exact)
want = [f"freeze.{k}" for k in a["freeze"] if a["freeze"][k] != b["freeze"].get(k)]
want += [f"freeze.{k}" for k in b["freeze"] if k not in a["freeze"]]
want += ["stage_params"] if a["stage_params"] != b["stage_params"] else []
assert want and got["mask_inputs_changed"] == want and got["same"] is False, (sys.argv[4], want, got["mask_inputs_changed"])
PY
done

# A tolerance above every change makes them the same; format 1 is read.
run 0 "$tfc" diff "$work/a/plan.json" "$work/c/plan.json" --tolerance 1e6
python3 - "$work/a/plan.json" "$work/v1.json" <<'PY'
import sys
t = open(sys.argv[1]).read().replace('"format": "tfc-plan-2"', '"format": "tfc-plan-1"', 1)
t = t.replace('"stage_count":', '"stages":', 1)  # format 1: the count under "stages", then the array too
open(sys.argv[2], "w").write(t)
PY
run 0 "$tfc" diff "$work/v1.json" "$work/a/plan.json"
# A plan.json past 256 MiB is read (the largest tfc writes is 641 MB: ZBV
# 512 x 2 x 1024); leading blanks stand in for its size.
{ head -c 300000000 /dev/zero | tr '\0' ' '; cat "$work/a/plan.json"; } >"$work/wide.json"
run 0 "$tfc" diff "$work/wide.json" "$work/a/plan.json"
grep -q "same plan" "$work/out" || fail "diff of a 300 MB plan.json: $(cat "$work/out" "$work/err")"
rm -f "$work/wide.json"
# Trouble: exit 2.
printf '{"format": "tfc-plan-2", "format": 1}' >"$work/dup.json"
run 2 "$tfc" diff "$work/dup.json" "$work/a/plan.json"
grep -q "dup.json:1:.*: error:" "$work/err" || fail "a key twice in format 2 is not reported at its position: $(cat "$work/err")"
printf '{"format": "tfc-plan-2",\n "name": [1, 2\n' >"$work/cut.json"
run 2 "$tfc" diff "$work/cut.json" "$work/a/plan.json"
grep -q "cut.json:3:1: error:" "$work/err" || fail "truncated JSON not reported at 3:1: $(cat "$work/err")"
run 2 "$tfc" diff "$work/a/plan.json"
run 2 "$tfc" diff "$work/a/plan.json" "$work/nothing.json"
run 2 "$tfc" diff "$spec" "$work/a/plan.json"
run 2 "$tfc" diff "$work/a/plan.json" "$work/c/plan.json" --tolerance -1
# Standard input as one side.
timeout 60 "$tfc" diff - "$work/a/plan.json" <"$work/a/plan.json" >/dev/null 2>&1 || fail "diff - PLAN from stdin"

[ "$failures" -eq 0 ] && echo "verify check: verify (intact, changed/missing/added, same bytes, stamp only, other plan, input files, a sweep folder, a renamed spec and standard input) and diff (same, different against an independent comparison, tolerance, format 1, bad input) as documented"
[ "$failures" -eq 0 ]
