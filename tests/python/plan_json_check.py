#!/usr/bin/env python3
"""plan.json and `tfc plan --json` as strict parsers read them (ctest plan_json).

  - no object has a key twice (json's object_pairs_hook sees every pair);
  - format tfc-plan-2; stage_count equals the stages and stage_params
    arrays' lengths and the stages the actions use;
  - python/tfc_plan.py reads format 1 (the count under the duplicated key
    "stages", rebuilt here from a format-2 file) with the same masks;
  - python/tfc_plan.py --help, summary and mask from the shell.
  - each rank's activation_memory peak_sets equals a count made here by
    walking its actions (F takes a set, its W, or B without a W, frees it);
    with every stage's activation_bytes, peak_bytes likewise.
Usage: plan_json_check.py TFC SOURCE_DIR
"""
import glob
import json
import os
import subprocess
import sys

tfc, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "python"))
import tfc_plan  # noqa: E402

bad = []


def strict(text, where):
    def pairs(kv):
        keys = [k for k, _ in kv]
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            bad.append(f"{where}: duplicate key(s) {dup}")
        return dict(kv)
    return json.loads(text, object_pairs_hook=pairs)


def check(doc, where):
    if doc.get("format") != "tfc-plan-2":
        bad.append(f"{where}: format {doc.get('format')!r}")
    n = doc.get("stage_count")
    used = 1 + max(a["stage"] for a in doc["actions"])
    if not (isinstance(n, int) and n == len(doc["stages"]) == len(doc["stage_params"]) == used):
        bad.append(f"{where}: stage_count {n!r}, {len(doc['stages'])} stages, "
                   f"{len(doc['stage_params'])} stage_params, actions use {used}")
    # Activation memory, counted here by walking each rank's actions in
    # program order: a (stage, microbatch) set is held from its F through
    # its W, or its B when it has no W.
    has_w = {(a["stage"], a["microbatch"]) for a in doc["actions"] if a["type"] == "W"}
    for r in range(doc["ranks"]):
        held = peak = 0
        for a in (x for x in doc["actions"] if x["rank"] == r):
            key = (a["stage"], a["microbatch"])
            if a["type"] == "F":
                held += 1
                peak = max(peak, held)
            elif a["type"] == "W" or (a["type"] == "B" and key not in has_w):
                held -= 1
        if held != 0:
            bad.append(f"{where}: rank {r} ends its step holding {held} activation sets")
        got = doc["activation_memory"][r]
        if got["rank"] != r or got["peak_sets"] != peak:
            bad.append(f"{where}: rank {r}: activation_memory says {got}, the walk {peak} sets")


texts = {}
for spec in sorted(glob.glob(os.path.join(src, "specs", "*.yaml"))):
    r = subprocess.run([tfc, "plan", spec, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        bad.append(f"tfc plan {spec} --json: exit {r.returncode}: {r.stderr[:300]}")
        continue
    check(strict(r.stdout, f"tfc plan --json {os.path.basename(spec)}"), os.path.basename(spec))
    texts[spec] = r.stdout
for path in sorted(glob.glob(os.path.join(src, "generated", "*", "plan.json"))):
    text = open(path, encoding="utf-8").read()
    check(strict(text, path), path)

# Bytes: each spec again with model.stages[i].activation_bytes = 1000 i + 7.
import re  # noqa: E402
import tempfile  # noqa: E402
with tempfile.TemporaryDirectory() as tmp:
    for spec in sorted(glob.glob(os.path.join(src, "specs", "*.yaml"))):
        lines, k = [], 0
        for line in open(spec).read().splitlines():
            lines.append(line)
            if re.match(r"    - name: stage\d+$", line):
                lines.append(f"      activation_bytes: {1000 * k + 7}")
                k += 1
        for f in glob.glob(os.path.join(os.path.dirname(spec), "*.csv")):
            open(os.path.join(tmp, os.path.basename(f)), "w").write(open(f).read())
        path = os.path.join(tmp, os.path.basename(spec))
        open(path, "w").write("\n".join(lines) + "\n")
        r = subprocess.run([tfc, "plan", path, "--json"], capture_output=True, text=True)
        if r.returncode != 0:
            bad.append(f"{path}: exit {r.returncode}: {r.stderr[:200]}")
            continue
        doc = json.loads(r.stdout)
        has_w = {(a["stage"], a["microbatch"]) for a in doc["actions"] if a["type"] == "W"}
        for rk in range(doc["ranks"]):
            held = peak = 0
            for a in (x for x in doc["actions"] if x["rank"] == rk):
                b = 1000 * a["stage"] + 7
                if a["type"] == "F":
                    held += b
                    peak = max(peak, held)
                elif a["type"] == "W" or (a["type"] == "B" and (a["stage"], a["microbatch"]) not in has_w):
                    held -= b
            if doc["activation_memory"][rk]["peak_bytes"] != peak:
                bad.append(f"{os.path.basename(spec)} with bytes: rank {rk}: {doc['activation_memory'][rk]}, the walk {peak}")

# Format 1, as earlier builds wrote it: the count under "stages", before the array.
for spec, text in list(texts.items())[:3]:
    v1 = text.replace('"format": "tfc-plan-2"', '"format": "tfc-plan-1"').replace('"stage_count":', '"stages":')
    assert v1.count('"stages":') == 2
    p1, p2 = tfc_plan.Plan(json.loads(v1)), tfc_plan.Plan(json.loads(text))
    if p1.stage_count != p2.stage_count:
        bad.append(f"{spec}: format 1 read as {p1.stage_count} stages, format 2 as {p2.stage_count}")
    for st in range(p2.stage_count):
        for mb in range(min(p2.microbatches, 4)):
            for step in (0, p2.warmup + p2.ramp // 2, p2.warmup + p2.ramp + 7):
                if p1.frozen_tensors(st, mb, step) != p2.frozen_tensors(st, mb, step):
                    bad.append(f"{spec}: format 1 and 2 masks differ at stage {st} microbatch {mb} step {step}")
try:
    tfc_plan.Plan({"format": "tfc-plan-9"})
    bad.append("an unknown format was accepted")
except ValueError:
    pass
# a hand-edited plan.json the masks cannot be computed from is refused with
# ValueError (a reselection window of 0 steps divided by zero, a NaN ratio
# gave masks), as is one that is not an object or misses a field
some = json.loads(next(iter(texts.values())))


def edited(change):
    d = json.loads(json.dumps(some))
    change(d)
    return d


for what, data in (("reselect_every 0", edited(lambda d: d["freeze"].__setitem__("reselect_every", 0))),
                   ("a NaN freeze_ratio", edited(lambda d: [a.__setitem__("freeze_ratio", float("nan"))
                                                            for a in d["actions"] if a["type"] in ("B", "W")])),
                   ("no actions", edited(lambda d: d.pop("actions"))),
                   ("a list", [some])):
    try:
        got = tfc_plan.Plan(data)
        got.frozen_tensors(0, 0, 10 ** 6)
        bad.append(f"a plan.json with {what} was read")
    except ValueError:
        pass
    except Exception as e:  # noqa: BLE001 (what is checked: nothing but ValueError)
        bad.append(f"a plan.json with {what}: {type(e).__name__}: {e}")

# pipeline.processors: each spec again on fewer processors than ranks;
# plan.json's `shared` read strictly and held to what must be true of a
# step on P shared processors, from the file's own other fields: at least
# the longest path (baseline_makespan_ms, makespan_ms) and the busiest
# processors' bound (the ranks' busy time over P), the speed-up their
# ratio; and no `shared` where P is not below the ranks.
shared_checked = 0
with tempfile.TemporaryDirectory() as tmp:
    for spec in sorted(glob.glob(os.path.join(src, "specs", "*.yaml"))):
        text = open(spec).read()
        ranks = int(re.search(r"^  ranks: (\d+)", text, re.M).group(1))
        for f in glob.glob(os.path.join(os.path.dirname(spec), "*.csv")):
            open(os.path.join(tmp, os.path.basename(f)), "w").write(open(f).read())
        for procs in sorted({1, max(1, ranks // 2), ranks}):
            path = os.path.join(tmp, "p_" + os.path.basename(spec))
            open(path, "w").write(re.sub(r"^pipeline:\n", f"pipeline:\n  processors: {procs}\n", text, count=1,
                                         flags=re.M))
            r = subprocess.run([tfc, "plan", path, "--json"], capture_output=True, text=True)
            where = f"{os.path.basename(spec)} on {procs} processors"
            if r.returncode != 0:
                bad.append(f"{where}: exit {r.returncode}: {r.stderr[:300]}")
                continue
            doc = strict(r.stdout, where)
            sh = doc.get("shared")
            if procs >= ranks:
                if sh is not None:
                    bad.append(f"{where}: shared {sh} with a processor per rank")
                continue
            if not sh or sh["processors"] != procs:
                bad.append(f"{where}: shared is {sh}")
                continue
            for mine, longest, stats in (("baseline_makespan_ms", "baseline_makespan_ms", "rank_stats"),
                                         ("makespan_ms", "makespan_ms", "optimised_rank_stats")):
                work = sum(x["busy_ms"] for x in doc[stats])
                if sh[mine] < doc[longest] * (1 - 1e-9) or sh[mine] < work / procs * (1 - 1e-9):
                    bad.append(f"{where}: shared {mine} {sh[mine]} below the longest path {doc[longest]} or the "
                               f"work over the processors {work / procs}")
            if abs(sh["speedup"] - sh["baseline_makespan_ms"] / sh["makespan_ms"]) > 1e-12 * sh["speedup"]:
                bad.append(f"{where}: shared speedup {sh['speedup']}")
            out = subprocess.run([tfc, "plan", path], capture_output=True, text=True).stdout
            if f"on {procs} processors" not in out:
                bad.append(f"{where}: tfc plan does not print the shared step")
            shared_checked += 1
if shared_checked < 3:
    bad.append(f"only {shared_checked} specs planned on shared processors")

# The command line.
script = os.path.join(src, "python", "tfc_plan.py")
r = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True)
if r.returncode != 0 or "summary" not in r.stdout or "mask" not in r.stdout:
    bad.append(f"tfc_plan.py --help: exit {r.returncode}, {r.stdout[:200]!r}")
gen = sorted(glob.glob(os.path.join(src, "generated", "*", "plan.json")))[0]
plan = tfc_plan.Plan.load(gen)
r = subprocess.run([sys.executable, script, "summary", gen], capture_output=True, text=True)
lines = [line for line in r.stdout.splitlines() if line[:5].strip().isdigit()]
if r.returncode != 0 or f"{plan.stage_count} stages" not in r.stdout or len(lines) != plan.stage_count:
    bad.append(f"tfc_plan.py summary: exit {r.returncode}: {r.stdout[:300]!r}")
st, mb, step = plan.stage_count - 1, 0, plan.warmup + plan.ramp + 3
r = subprocess.run([sys.executable, script, "mask", gen, "--stage", str(st), "--microbatch", str(mb), "--step",
                    str(step), "--json"], capture_output=True, text=True)
got = json.loads(r.stdout) if r.returncode == 0 else None
if not got or got["frozen"] != plan.frozen_tensors(st, mb, step) or got["freeze_ratio"] != plan.freeze_ratio(st, mb, step):
    bad.append(f"tfc_plan.py mask --json: exit {r.returncode}: {r.stdout[:200]!r}")
r = subprocess.run([sys.executable, script, "mask", gen, "--stage", str(plan.stage_count), "--microbatch", "0",
                    "--step", "0"], capture_output=True, text=True)
if r.returncode != 2:
    bad.append(f"tfc_plan.py mask with a stage out of range: exit {r.returncode}")

for b in bad:
    print("plan_json:", b)
if bad:
    sys.exit(1)
print(f"plan_json: {shared_checked} plans on shared processors within their bounds; {len(texts)} specs and {len(glob.glob(os.path.join(src, 'generated', '*', 'plan.json')))} "
      "generated plans without duplicate keys; format 1 reads the same; tfc_plan.py's command line works")
