#!/usr/bin/env python3
"""timing.source: measured (ctest timing_measured): samples written from
the table-timed default spec's own plan (three per action, jittered around
the true value so that the median is it) must give the same plan as the
tables; and every kind of bad measurement file is an error at its line and
column.

    timing_measured_check.py TFC SOURCE_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

TFC, SRC = sys.argv[1], sys.argv[2]
W = tempfile.mkdtemp(prefix="tfc-meas-")
bad = 0
spec_text = open(os.path.join(SRC, "specs", "llama8b_1f1b.yaml")).read()
plan = json.loads(subprocess.run([TFC, "plan", os.path.join(SRC, "specs", "llama8b_1f1b.yaml"), "--json"],
                                 check=True, capture_output=True, text=True).stdout)
# The frozen backward of each stage, from the spec's table (B frozen = backward_frozen_ms).
frozen_ms = [float(x) for x in re.search(r"backward_frozen_ms: \[([^\]]*)\]", spec_text).group(1).split(",")]

rows, frozen_rows = [], []
for a in plan["actions"]:
    d = a["baseline_duration_ms"]
    key = f"{a['rank']},{a['stage']},{a['microbatch']},{a['type']}"
    for f in (1.05, 1.0, 0.97):  # the median is d
        rows.append(f"{key},{d * f!r}")
    if a["type"] == "B":
        for f in (1.0, 1.2, 0.9, 1.0):  # even count: mean of the middle two is the value
            frozen_rows.append(f"{key},{frozen_ms[a['stage']] * f!r}")


def write(name, header, lines):
    path = os.path.join(W, name)
    with open(path, "w") as fh:
        if header:
            fh.write("rank,stage,microbatch,type,duration_ms\n")
        fh.write("\n".join(lines) + "\n")
    return path


timing_re = re.compile(r"^timing:\n(?:  .*\n)+", re.M)


def measured_spec(name, file, frozen):
    text = timing_re.sub(f"timing:\n  source: measured\n  file: {file}\n  frozen_file: {frozen}\n  comm_ms: 0.2\n",
                         spec_text)
    path = os.path.join(W, name)
    open(path, "w").write(text)
    return path


write("t.csv", True, rows)
write("f.csv", False, frozen_rows)
spec = measured_spec("m.yaml", "t.csv", "f.csv")
r = subprocess.run([TFC, "plan", spec, "--json"], capture_output=True, text=True)
if r.returncode != 0:
    print("measured plan failed:", r.stderr, file=sys.stderr)
    sys.exit(1)
got = json.loads(r.stdout)
for k in ("baseline_makespan_ms", "makespan_ms"):
    if abs(got[k] - plan[k]) > 1e-9 * plan[k]:
        print(f"{k}: measured {got[k]} vs tables {plan[k]}", file=sys.stderr)
        bad += 1
for x, y in zip(got["actions"], plan["actions"]):
    if abs(x["baseline_duration_ms"] - y["baseline_duration_ms"]) > 1e-12 * y["baseline_duration_ms"]:
        print("durations differ", x, y, file=sys.stderr)
        bad += 1
        break

# tfc plan --compare on the measured spec: the other schedules timed by the
# per-stage means of the measured actions, which equal the tables here, so
# every row equals the table spec's, marked measured_means.
def compare(path, out):
    r = subprocess.run([TFC, "plan", path, "--compare", os.path.join(W, out), "--json", "-q"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        print(f"--compare {path}: exit {r.returncode}: {r.stderr[:300]}", file=sys.stderr)
        return None
    return json.loads(r.stdout)["schedules"]


cm, ct = compare(spec, "cm"), compare(os.path.join(SRC, "specs", "llama8b_1f1b.yaml"), "ct")
if cm is None or ct is None or len(cm) != len(ct):
    bad += 1
else:
    for x, y in zip(cm, ct):
        same = x["schedule"] == y["schedule"] and x["applicable"] == y["applicable"] and all(
            abs(x[k] - y[k]) <= 1e-9 * max(1.0, y[k]) for k in ("baseline_makespan_ms", "makespan_ms")
            if y["applicable"])
        marked = x["spec_schedule"] or "measured_means" in x["derivation"]
        if not same or not marked or set(x["derivation"]) - {"measured_means"} != set(y["derivation"]):
            print(f"--compare measured vs tables: {x} vs {y}", file=sys.stderr)
            bad += 1

# Bad files: (what, file rows, frozen rows, exit, where, message fragment).
first = rows[0].split(",")
cases = [
    ("missing action", rows[3:], frozen_rows, 1, "t.csv: error", "no samples for action"),
    ("zero duration", rows[:1] + [",".join(first[:4] + ["0"])] + rows[1:], frozen_rows, 1, "t.csv:3:", "duration_ms"),
    ("NaN duration", rows + [",".join(first[:4] + ["nan"])], frozen_rows, 1, f"t.csv:{len(rows) + 2}:", "duration_ms"),
    ("bad type", rows + ["0,0,0,X,1"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:7", "type must be"),
    ("I in a 1F1B file", rows + ["0,0,0,I,1"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:7", "no I actions"),
    ("wrong rank", rows + ["2,0,0,F,1"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:1", "runs on rank 0"),
    ("stage out of range", rows + ["0,9,0,F,1"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:3", "out of range"),
    ("too few fields", rows + ["0,0,0,F"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:", "expected 5 fields"),
    ("too many fields", rows + ["0,0,0,F,1,2"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:", "expected 5 fields"),
    ("negative microbatch", rows + ["0,0,-1,F,1"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:5", "non-negative"),
    ("frozen longer", rows, [",".join(r.split(",")[:4] + ["1000"]) for r in frozen_rows[:4]] + frozen_rows[4:], 1,
     "f.csv:1:", "longer than"),
    ("frozen missing", rows, frozen_rows[4:], 1, "f.csv: error", "no samples with everything frozen"),
    # Found by fuzz_timing (an empty file sorted a null array): both files empty.
    ("empty files", [], [], 1, "t.csv: error", "no samples for action"),
]
for what, t_rows, f_rows, code, where, frag in cases:
    write("t.csv", True, t_rows)
    write("f.csv", False, f_rows)
    r = subprocess.run([TFC, "plan", spec], capture_output=True, text=True)
    if r.returncode != code or where not in r.stderr or frag not in r.stderr:
        print(f"{what}: exit {r.returncode}; {r.stderr.strip()[:300]}", file=sys.stderr)
        bad += 1
r = subprocess.run([TFC, "plan", measured_spec("n.yaml", "nope.csv", "f.csv")], capture_output=True, text=True)
if r.returncode != 4 or "nope.csv" not in r.stderr or "named by timing.file" not in r.stderr:
    print(f"missing file: exit {r.returncode}; {r.stderr.strip()[:300]}", file=sys.stderr)
    bad += 1

# Chrome traces (timing.source: trace): the same samples as complete events.
def trace(name, events, wrap=True):
    path = os.path.join(W, name)
    body = ",\n".join(json.dumps(e) for e in events)
    text = '{"traceEvents": [\n' + body + '\n], "displayTimeUnit": "ms"}\n' if wrap else "[\n" + body + "\n]\n"
    open(path, "w").write(text)
    return path


ev, fev = [], []
for a in plan["actions"]:
    name = f"PP:{a['stage']}{a['type']}{a['microbatch']}"
    for f in (1.05, 1.0, 0.97):
        ev.append({"name": name, "ph": "X", "ts": a["baseline_start_ms"] * 1000, "dur": a["baseline_duration_ms"] * 1000 * f,
                   "pid": a["rank"], "tid": 0, "args": {"stage": a["stage"]}})
    if a["type"] == "B":
        fev.append({"name": name, "ph": "X", "ts": 0, "dur": frozen_ms[a["stage"]] * 1000, "pid": a["rank"], "tid": 0})
ev.append({"name": "ProfilerStep#3", "ph": "X", "ts": 0, "dur": 5})  # not an action: ignored
ev.append({"name": "PP:0F0", "ph": "B", "ts": 0})                       # not a complete event: ignored
trace("t.json", ev)
trace("f.json", fev, wrap=False)
tspec = os.path.join(W, "tr.yaml")
open(tspec, "w").write(open(measured_spec("tr0.yaml", "t.json", "f.json")).read().replace("source: measured", "source: trace"))
r = subprocess.run([TFC, "plan", tspec, "--json"], capture_output=True, text=True)
if r.returncode != 0:
    print("trace plan failed:", r.stderr, file=sys.stderr)
    bad += 1
else:
    got = json.loads(r.stdout)
    for k in ("baseline_makespan_ms", "makespan_ms"):
        if abs(got[k] - plan[k]) > 1e-9 * plan[k]:
            print(f"trace {k}: {got[k]} vs tables {plan[k]}", file=sys.stderr)
            bad += 1
trace_cases = [
    ("truncated JSON", '{"traceEvents": [{"name": "PP:0F0", "ph": "X", "dur": 5', "t.json:1:56", "expected ',' or '}'"),
    ("negative dur", '{"traceEvents": [\n{"name": "PP:0F0", "ph": "X", "dur": -3}]}', "t.json:2:", "must be > 0"),
    ("absurd dur", '{"traceEvents": [\n{"name": "PP:0F0", "ph": "X", "dur": 1e300}]}', "t.json:2:", "must be > 0"),
    ("no such action", '{"traceEvents": [\n  {"name": "PP:9F0", "ph": "X", "dur": 3}]}', "t.json:2:3", "no such action"),
    ("no traceEvents", '{"events": []}', "t.json:1:1", "no \"traceEvents\""),
    ("deep nesting", '{"traceEvents": [' + "[" * 100 + "]" * 100 + "]}", "t.json:1:", "nested deeper than 64"),
    ("not JSON", "PP:0F0 1.5\n", "t.json:1:1", "a Chrome trace is"),
    ("bad escape", '{"traceEvents": [{"name": "PP:0F0\\q"}]}', "t.json:1:", "bad escape"),
    ("extra data", '{"traceEvents": []} {}', "t.json:1:21", "extra data"),
]
for what, text, where, frag in trace_cases:
    open(os.path.join(W, "t.json"), "w").write(text)
    r = subprocess.run([TFC, "plan", tspec], capture_output=True, text=True)
    if r.returncode != 1 or where not in r.stderr or frag not in r.stderr:
        print(f"trace {what}: exit {r.returncode}; {r.stderr.strip()[:300]}", file=sys.stderr)
        bad += 1

# tfc's own timeline.json back as a trace: its baseline process holds the
# durations the plan assumed, so a spec timed by it plans the same baseline,
# action by action, on every example spec (split schedules included).
roundtrips = 0
for spec in sorted(os.listdir(os.path.join(SRC, "specs"))):
    if not spec.endswith(".yaml"):
        continue
    src_spec = os.path.join(SRC, "specs", spec)
    gen = os.path.join(W, "rt_" + spec[:-5])
    subprocess.run([TFC, "compile", src_spec, "-o", gen, "-q", "--skip-cuda-check"], check=True)
    text = open(src_spec).read()
    comm = re.search(r"^\s+comm_ms:\s*([0-9.]+)", text, re.M)
    m = re.search(r"^timing:.*?(?=^\S)", text, re.S | re.M)
    timing = f"timing: {{source: trace, file: {gen}/timeline.json, frozen_file: {gen}/timeline.json" + \
        (f", comm_ms: {comm.group(1)}}}\n" if comm else "}\n")
    rt = os.path.join(W, "rt_" + spec)
    text = text[:m.start()] + timing + text[m.end():]
    # A custom order CSV is named relative to the spec: point at the original.
    text = re.sub(r"order: (\S+)", lambda o: f"order: {os.path.abspath(os.path.join(SRC, 'specs', o.group(1)))}", text)
    open(rt, "w").write(text)
    want = json.loads(subprocess.run([TFC, "plan", src_spec, "--json"], check=True, capture_output=True,
                                     text=True).stdout)
    r = subprocess.run([TFC, "plan", rt, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"timeline round trip {spec}: exit {r.returncode}: {r.stderr[:300]}", file=sys.stderr)
        bad += 1
        continue
    got = json.loads(r.stdout)
    d1 = [a["baseline_duration_ms"] for a in want["actions"]]
    d2 = [a["baseline_duration_ms"] for a in got["actions"]]
    if any(abs(x - y) > 1e-9 * max(1.0, abs(x)) for x, y in zip(d1, d2)) or len(d1) != len(d2) or \
            abs(want["baseline_makespan_ms"] - got["baseline_makespan_ms"]) > 1e-6:
        print(f"timeline round trip {spec}: baseline {want['baseline_makespan_ms']} vs "
              f"{got['baseline_makespan_ms']}", file=sys.stderr)
        bad += 1
    roundtrips += 1

subprocess.run(["rm", "-rf", W])
print(f"timing_measured_check: {roundtrips} timeline.json round trips plan the same baseline; "
      f"measured CSV and trace plans equal the tables' plan; "
      f"{len(cases) + 1 + len(trace_cases)} bad inputs, {bad} problems")
sys.exit(1 if bad else 0)
