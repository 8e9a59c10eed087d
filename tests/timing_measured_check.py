#!/usr/bin/env python3
"""timing.source: measured (ctest timing_measured): samples written from
the table-timed default spec's own plan (three per action, jittered around
the true value so that the median is it) must give the same plan as the
tables; and every kind of bad measurement file is an error at its line and
column. The same samples split across lists of files (per rank, and not)
give the one-file plan byte for byte, in any order; the depfile names every
file, the MANIFEST records each with its sha256, tfc verify DIR SPEC names
the second when it changes, and a bad sample in any file is reported at that
file's line.

    timing_measured_check.py TFC SOURCE_DIR
"""
import hashlib
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
# An action without samples is reported at the key in the spec (line and
# column of its value), with the rank that runs it and how many more have
# none, when any do.
file_at = spec_text[:timing_re.search(spec_text).start()].count("\n") + 3
no_first = f"m.yaml:{file_at}:9: error: no samples for action {first[1]}{first[3]}{first[2]} (the schedule runs it " \
    f"on rank {first[0]}) in timing.file (t.csv)"
fz_first = frozen_rows[0].split(",")
no_frozen = f"m.yaml:{file_at + 1}:16: error: no samples with everything frozen for action " \
    f"{fz_first[1]}{fz_first[3]}{fz_first[2]} (the schedule runs it on rank {fz_first[0]}) in timing.frozen_file (f.csv)"
cases = [
    ("missing action", rows[3:], frozen_rows, 1, no_first + "\n", "no samples for action"),
    ("zero duration", rows[:1] + [",".join(first[:4] + ["0"])] + rows[1:], frozen_rows, 1, "t.csv:3:", "duration_ms"),
    ("NaN duration", rows + [",".join(first[:4] + ["nan"])], frozen_rows, 1, f"t.csv:{len(rows) + 2}:", "duration_ms"),
    ("bad type", rows + ["0,0,0,X,1"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:7", "type must be"),
    ("I in a 1F1B file", rows + ["0,0,0,I,1"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:7", "no I actions"),
    ("wrong rank", rows + ["2,0,0,F,1"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:1", "runs on rank 0"),
    ("stage out of range", rows + ["0,9,0,F,1"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:3", "out of range"),
    ("too few fields", rows + ["0,0,0,F"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:", "expected 5 fields"),
    ("too many fields", rows + ["0,0,0,F,1,2"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:", "expected 5 fields"),
    ("negative microbatch", rows + ["0,0,-1,F,1"], frozen_rows, 1, f"t.csv:{len(rows) + 2}:5", "non-negative"),
    # A few frozen medians longer: noise, a warning, and no saving taken
    # for them (checked below); most of them: the files swapped, an error.
    ("frozen longer", rows, [",".join(r.split(",")[:4] + ["1000"]) for r in frozen_rows[:4]] + frozen_rows[4:], 0,
     "f.csv:1:", "warning: action"),
    # Medians in brief: a sample read (or scaled) to 17 digits is not told so.
    ("frozen longer, digits", rows,
     [",".join(r.split(",")[:4] + ["1000.0000000000001"]) for r in frozen_rows[:4]] + frozen_rows[4:], 0,
     "f.csv:1:", "median 1000 ms with everything frozen"),
    ("every frozen longer", rows, [",".join(r.split(",")[:4] + ["1000"]) for r in frozen_rows], 1,
     "f.csv:1:", "are timing.file and timing.frozen_file swapped?"),
    ("frozen missing", rows, frozen_rows[4:], 1, no_frozen + "\n", "no samples with everything frozen"),
    # Found by fuzz_timing (an empty file sorted a null array): both files empty.
    ("empty files", [], [], 1, f"{no_first}; {len(plan['actions']) - 1} more actions have none\n",
     "no samples for action"),
]
for what, t_rows, f_rows, code, where, frag in cases:
    write("t.csv", True, t_rows)
    write("f.csv", False, f_rows)
    r = subprocess.run([TFC, "plan", spec], capture_output=True, text=True)
    if r.returncode != code or where not in r.stderr or frag not in r.stderr:
        print(f"{what}: exit {r.returncode}; {r.stderr.strip()[:300]}", file=sys.stderr)
        bad += 1
    if what == "frozen longer":
        # Those actions take their unfrozen median whatever their ratio.
        longer = {tuple(int(v) if v.isdigit() else v for v in x.split(",")[:4]) for x in f_rows[:4]}
        # --policy uniform freezes them at the cap (timely would leave them be).
        uniform = json.loads(subprocess.run([TFC, "plan", spec, "--json", "--policy", "uniform"], capture_output=True,
                                            text=True).stdout)
        hit = [a for a in uniform["actions"] if (a["rank"], a["stage"], a["microbatch"], a["type"]) in longer]
        if len(hit) != len(longer) or not all(a["freeze_ratio"] > 0 for a in hit) or \
                any(a["duration_ms"] != a["baseline_duration_ms"] for a in hit):
            print(f"{what}: the actions measured longer frozen are not planned at their unfrozen medians: "
                  f"{[(a['stage'], a['type'], a['microbatch'], a['freeze_ratio'], a['duration_ms'], a['baseline_duration_ms']) for a in hit]}",
                  file=sys.stderr)
            bad += 1
# A header with the columns in another order is one error at 1:1 (it was
# 'expected a non-negative integer, got "stage"', then every row misread);
# the header in order, its last columns named otherwise, is read as before.
for head, code in (("stage,rank,microbatch,type,duration_ms", 1), ("rank,type,stage,microbatch,duration_ms", 1),
                   ("rank,stage,microbatch,type,duration_ms", 0), ("rank,stage,mb,kind,ms", 0)):
    write("t.csv", False, [head] + rows)
    write("f.csv", True, frozen_rows)
    r = subprocess.run([TFC, "plan", measured_spec("m.yaml", "t.csv", "f.csv")], capture_output=True, text=True)
    want = "t.csv:1:1: error: row 1 reads as a header" if code else ""
    if r.returncode != code or (code and (want not in r.stderr or r.stderr.count("error:") != 1)):
        print(f"header {head}: exit {r.returncode}; {r.stderr.strip()[:300]}", file=sys.stderr)
        bad += 1
# One path and a list of one path give the same words at the same place (one
# path said "t.csv: error: no samples for action 0F0 (0 more)": no place in
# the spec, no rank, and "(and N more)" as "(0 more)" for none).
write("t.csv", True, rows[3:])
write("f.csv", False, frozen_rows)
told = {}
for form, file in (("one path", "t.csv"), ("a list of one", "[t.csv]")):
    r = subprocess.run([TFC, "plan", measured_spec("m.yaml", file, "f.csv")], capture_output=True, text=True)
    told[form] = r.stderr
    if r.returncode != 1 or r.stderr.count("\n") != 1 or not r.stderr.endswith(no_first + "\n"):
        print(f"missing action, timing.file as {form}: exit {r.returncode}; {r.stderr.strip()[:300]}", file=sys.stderr)
        bad += 1
if told["one path"] != told["a list of one"]:
    print(f"missing action: one path and a list of one differ: {told}", file=sys.stderr)
    bad += 1
spec = measured_spec("m.yaml", "t.csv", "f.csv")
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


def plans_as_tables(spec_path, what):
    """Problems unless `tfc plan` on the spec gives the tables' makespans."""
    r = subprocess.run([TFC, "plan", spec_path, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"{what}: plan failed: {r.stderr}", file=sys.stderr)
        return 1
    got, n = json.loads(r.stdout), 0
    for k in ("baseline_makespan_ms", "makespan_ms"):
        if abs(got[k] - plan[k]) > 1e-9 * plan[k]:
            print(f"{what} {k}: {got[k]} vs tables {plan[k]}", file=sys.stderr)
            n += 1
    return n


bad += plans_as_tables(tspec, "trace")
# A trace with CUDA activity holds each PP: range twice: on the CPU (the
# launches, here a third of the time) and on the GPU ("gpu_user_annotation",
# the kernels' time): the GPU ranges are the samples, wherever in the file
# the first one comes, and the plan is the tables' again.
gev = []
for k, e in enumerate(x for x in ev if x["ph"] == "X" and x["name"].startswith("PP:")):
    cpu = dict(e, cat="user_annotation", dur=e["dur"] / 3)
    gev += [cpu, dict(e, cat="gpu_user_annotation", pid=e.get("pid", 0) + 100)] if k % 2 else [cpu]
gev += [dict(e, cat="gpu_user_annotation", pid=e.get("pid", 0) + 100)
        for k, e in enumerate(x for x in ev if x["ph"] == "X" and x["name"].startswith("PP:")) if k % 2 == 0]
trace("g.json", gev)
open(os.path.join(W, "trg.yaml"), "w").write(open(tspec).read().replace("t.json", "g.json"))
bad += plans_as_tables(os.path.join(W, "trg.yaml"), "GPU trace (CPU ranges counted?)")
trace_cases = [
    ("truncated JSON", '{"traceEvents": [{"name": "PP:0F0", "ph": "X", "dur": 5', "t.json:1:56", "expected ',' or '}'"),
    ("negative dur", '{"traceEvents": [\n{"name": "PP:0F0", "ph": "X", "dur": -3}]}', "t.json:2:", "must be > 0"),
    ("absurd dur", '{"traceEvents": [\n{"name": "PP:0F0", "ph": "X", "dur": 1e300}]}', "t.json:2:", "must be > 0"),
    ("no such action", '{"traceEvents": [\n  {"name": "PP:9F0", "ph": "X", "dur": 3}]}', "t.json:2:3", "no such action"),
    ("dur a string", '{"traceEvents": [\n{"name": "PP:0F0", "ph": "X", "dur": "1000"}]}', "t.json:2:38",
     '"dur" must be a number (microseconds), not a string'),
    ("ts a string", '{"traceEvents": [\n{"name": "PP:0F0", "ph": "X", "ts": "a", "dur": 9}]}', "t.json:2:37",
     '"ts" must be a number (microseconds), not a string'),
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

# Lists of files (timing.file / timing.frozen_file as YAML sequences, as
# torch.profiler writes a trace per rank): the same samples split across
# files, by rank and otherwise, pooled, must give the one-file spec's plan.
# The oracle is that one-file spec: every generated file the same bytes once
# the spec's sha256 (which differs with the spec's text) is masked, and
# `tfc plan --json` too; the list's order changes nothing. The depfile names
# every path in the order written; tfc verify DIR SPEC reads all of them.
def list_spec(folder, source, file, frozen):
    os.makedirs(os.path.join(W, folder), exist_ok=True)
    yl = lambda v: v if isinstance(v, str) else "[" + ", ".join(v) + "]"
    text = timing_re.sub(f"timing:\n  source: {source}\n  file: {yl(file)}\n  frozen_file: {yl(frozen)}\n"
                         f"  comm_ms: 0.2\n", spec_text)
    path = os.path.join(W, folder, "m.yaml")
    open(path, "w").write(text)
    return path


def in_folder(folder, name, text):
    path = os.path.join(W, folder, name)
    open(path, "w").write(text)
    return path


def csv_text(lines, header=True):
    return ("rank,stage,microbatch,type,duration_ms\n" if header else "") + "".join(x + "\n" for x in lines)


def trace_text(events, wrap=True):
    body = ",\n".join(json.dumps(e) for e in events)
    return '{"traceEvents": [\n' + body + '\n], "displayTimeUnit": "ms"}\n' if wrap else "[\n" + body + "\n]\n"


def compiled(spec_path, out):
    """(rc, stderr, {file: bytes with the spec's sha256 masked}, depfile inputs, plan --json)"""
    gen, dep = os.path.join(W, out), os.path.join(W, out + ".d")
    r = subprocess.run([TFC, "compile", spec_path, "-o", gen, "-q", "--skip-cuda-check", "--depfile", dep],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return r.returncode, r.stderr, None, None, None
    sha = json.load(open(os.path.join(gen, "plan.json")))["spec_sha256"]
    files = {n: open(os.path.join(gen, n), "rb").read().replace(sha.encode(), b"SHA")
             for n in sorted(os.listdir(gen)) if n != "MANIFEST"}
    deps = open(dep).read().split(":", 1)[1].split()
    pj = subprocess.run([TFC, "plan", spec_path, "--json"], capture_output=True, text=True).stdout.replace(sha, "SHA")
    return 0, "", files, deps, pj


ranks = sorted({a["rank"] for a in plan["actions"]})
by_rank = {k: [x for x in rows if int(x.split(",")[0]) == k] for k in ranks}
fz_half = [frozen_rows[0::2], frozen_rows[1::2]]  # not by rank: any split pools the same
one_csv = list_spec("one_csv", "measured", "t.csv", "f.csv")
in_folder("one_csv", "t.csv", csv_text(rows))
in_folder("one_csv", "f.csv", csv_text(frozen_rows, False))
split_names = [f"t_r{k}.csv" for k in ranks]
fz_names = ["f_a.csv", "f_b.csv"]
split_csv = list_spec("split_csv", "measured", split_names, fz_names)
for k, name in zip(ranks, split_names):
    in_folder("split_csv", name, csv_text(by_rank[k]))
for half, name in zip(fz_half, fz_names):
    in_folder("split_csv", name, csv_text(half, False))

ev_rank = {k: [e for e in ev if e.get("pid") == k] for k in ranks}
one_tr = list_spec("one_tr", "trace", "t.json", "f.json")
in_folder("one_tr", "t.json", trace_text(ev))
in_folder("one_tr", "f.json", trace_text(fev, False))
tr_names = [f"rank{k}.json" for k in ranks]
ftr_names = ["frozen_a.json", "frozen_b.json", "frozen_c.json"]
split_tr = list_spec("split_tr", "trace", tr_names, ftr_names)
for k, name in zip(ranks, tr_names):
    in_folder("split_tr", name, trace_text(ev_rank[k] + ([{"name": "ProfilerStep#1", "ph": "X", "dur": 5}] if k else [])))
for j, name in enumerate(ftr_names):
    in_folder("split_tr", name, trace_text(fev[j::3], wrap=j != 1))

list_cases = 0
for what, one, split, names, fnames in (("CSV", one_csv, split_csv, split_names, fz_names),
                                         ("trace", one_tr, split_tr, tr_names, ftr_names)):
    folder = os.path.dirname(split)
    rc1, err1, want_files, _, want_pj = compiled(one, "gen_one_" + what)
    rc2, err2, got_files, deps, got_pj = compiled(split, "gen_split_" + what)
    list_cases += 1
    if rc1 or rc2:
        print(f"{what} lists: compile exit {rc1} / {rc2}: {(err1 + err2)[:400]}", file=sys.stderr)
        bad += 1
        continue
    if want_files != got_files or want_pj != got_pj:
        diff = [n for n in want_files if want_files.get(n) != got_files.get(n)]
        print(f"{what} lists: the split plan differs from the one-file plan in {diff or 'tfc plan --json'}",
              file=sys.stderr)
        bad += 1
    # The depfile: the spec, then every path of file, then of frozen_file, as written.
    want_deps = [split] + [os.path.join(folder, n) for n in names + fnames]
    if deps != want_deps:
        print(f"{what} lists: depfile inputs {deps} want {want_deps}", file=sys.stderr)
        bad += 1
    # The order of the lists does not matter.
    rev = list_spec(os.path.basename(folder), "trace" if what == "trace" else "measured", names[::-1], fnames[::-1])
    rc3, err3, rev_files, rev_deps, rev_pj = compiled(rev, "gen_rev_" + what)
    if rc3 or rev_files != want_files or rev_pj != want_pj or rev_deps != [rev] + [os.path.join(folder, n) for n in
                                                                                 names[::-1] + fnames[::-1]]:
        print(f"{what} lists reversed: exit {rc3}, same plan {rev_files == want_files}, deps {rev_deps}: {err3[:300]}",
              file=sys.stderr)
        bad += 1
    # The MANIFEST: after the spec's line, one line per file in the spec's
    # order, its sha256 and its path as written.
    gen = os.path.join(W, "gen_split_" + what)
    want_in = [f"# input {hashlib.sha256(open(os.path.join(folder, n), 'rb').read()).hexdigest()}  {n}"
               for n in names + fnames]
    head = open(os.path.join(gen, "MANIFEST")).read().splitlines()
    if head[3:3 + len(want_in)] != want_in or not head[3 + len(want_in)].startswith("# sha256 of every"):
        print(f"{what} lists: MANIFEST input lines {head[3:4 + len(want_in)]} want {want_in}", file=sys.stderr)
        bad += 1
    # tfc verify DIR SPEC: the same bytes, then a change in the second file
    # (its samples 1.5x) is a different plan, and that file is named.
    list_spec(os.path.basename(folder), "trace" if what == "trace" else "measured", names, fnames)
    r = subprocess.run([TFC, "verify", gen, split], capture_output=True, text=True)
    if r.returncode != 0 or "writes the same bytes" not in r.stdout:
        print(f"{what} lists: verify of a fresh folder: exit {r.returncode}: {r.stdout[:300]} {r.stderr[:300]}",
              file=sys.stderr)
        bad += 1
    second = os.path.join(folder, names[1])
    kept = open(second).read()
    if what == "CSV":
        slower = csv_text([",".join(x.split(",")[:4] + [repr(float(x.split(",")[4]) * 1.5)])
                           for x in by_rank[ranks[1]]])
    else:
        slower = trace_text([dict(e, dur=e["dur"] * 1.5) for e in ev_rank[ranks[1]]])
    open(second, "w").write(slower)
    r = subprocess.run([TFC, "verify", gen, split], capture_output=True, text=True)
    if (r.returncode != 1 or "the plan itself" not in r.stdout or "is different" not in r.stdout
            or f": input {names[1]} changed since the folder was written" not in (r.stdout.splitlines() + ["", ""])[1]):
        print(f"{what} lists: verify after the second file changed: exit {r.returncode}: {r.stdout[:400]}",
              file=sys.stderr)
        bad += 1
    open(second, "w").write(kept)

# One file named twice in other spellings (./x, an absolute path): refused at
# the second, as an equal string is, not pooled twice.
for spelled in ("./" + split_names[0], os.path.join(W, "split_csv", split_names[0])):
    dup = list_spec("split_csv", "measured", split_names + [spelled], fz_names)
    r = subprocess.run([TFC, "check", dup], capture_output=True, text=True)
    want = f"timing.file[{len(split_names)}] ({spelled}) is the same file as timing.file[0] ({split_names[0]})"
    if r.returncode != 1 or want not in r.stderr:
        print(f"{spelled} beside {split_names[0]}: exit {r.returncode}: {r.stderr[:300]}", file=sys.stderr)
        bad += 1
list_spec("split_csv", "measured", split_names, fz_names)

# Diagnostics name the file and line a sample came from, in any file of a list.
sf = os.path.join(W, "split_csv")
t1 = by_rank[ranks[1]]
key4 = lambda x: x.split(",")[:4]
x_act = key4(fz_half[1][0])  # an action whose frozen samples both files hold
list_bad = [
    # (what, {file name: its new text, None: removed}, exit, where, message fragment)
    ("bad row in the second file",
     {split_names[1]: csv_text(t1[:2] + [t1[2].rsplit(",", 1)[0] + ",-1"] + t1[3:])}, 1,
     f"{split_names[1]}:4:{len(t1[2].rsplit(',', 1)[0]) + 2}:", "duration_ms must be"),
    ("wrong rank in the second file", {split_names[1]: csv_text(t1 + [f"{ranks[1]},0,0,F,1"])}, 1,
     f"{split_names[1]}:{len(t1) + 2}:1:", f"stage 0 runs on rank {ranks[0]} in this schedule, not rank {ranks[1]}"),
    # Frozen samples of x_act only in the second frozen file, and too long.
    ("frozen longer in the second frozen file",
     {fz_names[0]: csv_text([x for x in fz_half[0] if key4(x) != x_act], False),
      fz_names[1]: csv_text([",".join(key4(x) + ["1000"]) if key4(x) == x_act else x for x in fz_half[1]], False)},
     0, f"{fz_names[1]}:1:5: warning:", "longer than the median"),
    ("missing second file", {split_names[1]: None}, 4, f"{split_names[1]}: error:", "No such file"),
    # Every file is read and every problem reported; a missing one makes it
    # an I/O error (exit 4) even after a bad row in an earlier file.
    ("a bad row in the first file, the second and fourth missing",
     {split_names[0]: csv_text(by_rank[ranks[0]] + ["0,0,0,X,1"]), split_names[1]: None, split_names[3]: None}, 4,
     [f"{split_names[0]}:{len(by_rank[ranks[0]]) + 2}:7: error: type must be", f"{split_names[1]}: error:",
      f"{split_names[3]}: error:", "named by timing.file[3] here"], "No such file"),
]
for what, change, code, where, frag in list_bad:
    kept = {name: open(os.path.join(sf, name)).read() for name in change}
    for name, text in change.items():
        if text is None:
            os.remove(os.path.join(sf, name))
        else:
            open(os.path.join(sf, name), "w").write(text)
    r = subprocess.run([TFC, "plan", split_csv], capture_output=True, text=True)
    if r.returncode != code or any(w not in r.stderr for w in ([where] if isinstance(where, str) else where)) or \
            frag not in r.stderr:
        print(f"lists, {what}: exit {r.returncode}; {r.stderr.strip()[:400]}", file=sys.stderr)
        bad += 1
    if what.startswith("frozen longer"):
        # ... naming the file and line of the action's first unfrozen sample.
        fname = split_names[ranks.index(int(x_act[0]))]
        first = next(i for i, x in enumerate(by_rank[int(x_act[0])]) if key4(x) == x_act)
        if f"({os.path.join(sf, fname)} line {first + 2})" not in r.stderr:
            print(f"lists, {what}: no ({fname} line {first + 2}): {r.stderr.strip()[:400]}", file=sys.stderr)
            bad += 1
    if what.startswith("missing"):
        # The note points at the second path of the list in the spec.
        lines = open(split_csv).read().split("\n")
        at = next(f"{i + 1}:{x.index(split_names[1]) + 1}" for i, x in enumerate(lines) if x.startswith("  file: ["))
        if f"m.yaml:{at}: note: named by timing.file[1] here" not in r.stderr:
            print(f"lists, {what}: no note at {at}, timing.file[1]: {r.stderr.strip()[:400]}", file=sys.stderr)
            bad += 1
    for name, text in kept.items():
        open(os.path.join(sf, name), "w").write(text)
    list_cases += 1
# A rank's file left out of the list: its actions have no samples; the error
# is at the list in the spec and names the rank that runs them.
short = list_spec("split_csv", "measured", split_names[:-1], fz_names)
r = subprocess.run([TFC, "plan", short], capture_output=True, text=True)
line = spec_text[:timing_re.search(spec_text).start()].count("\n") + 3
if r.returncode != 1 or f"m.yaml:{line}:9: error: no samples for action" not in r.stderr or \
        f"runs it on rank {ranks[-1]}) in any of the {len(ranks) - 1} files timing.file lists" not in r.stderr:
    print(f"lists, a rank's file left out: exit {r.returncode}; {r.stderr.strip()[:400]}", file=sys.stderr)
    bad += 1
# A bad event in the second trace file, at its line and column.
tf = os.path.join(W, "split_tr", tr_names[1])
kept = open(tf).read()
open(tf, "w").write('{"traceEvents": [\n' + json.dumps(ev_rank[ranks[1]][0]) + ',\n  {"name": "PP:0F0", "ph": "X", "dur": -2}]}')
r = subprocess.run([TFC, "plan", split_tr], capture_output=True, text=True)
if r.returncode != 1 or f"{tr_names[1]}:3:" not in r.stderr or "must be > 0" not in r.stderr:
    print(f"lists, a bad event in the second trace: exit {r.returncode}; {r.stderr.strip()[:400]}", file=sys.stderr)
    bad += 1
open(tf, "w").write(kept)
list_cases += 2
# The samples of one key are bounded (2^23, past what one 64 MiB file can
# hold): three 2.8-million-row files pass it, at the third (copies: one
# file named three times is refused as counting its samples twice).
big_text = "0,0,0,F,1\n" * 2800000
for k in range(3):
    in_folder("split_csv", f"big{k}.csv", big_text)
r = subprocess.run([TFC, "plan", list_spec("split_csv", "measured", [f"big{k}.csv" for k in range(3)], fz_names)],
                   capture_output=True, text=True)
if r.returncode != 1 or f"big2.csv: error: the files of timing.file up to this one hold 8400000 samples, more " \
        "than the limit of 8388608" not in r.stderr:
    print(f"lists, too many samples: exit {r.returncode}; {r.stderr.strip()[:400]}", file=sys.stderr)
    bad += 1
list_cases += 1

# DualPipeV runs both kinds of backward: on 1 rank with 2 microbatches,
# (stage 0, microbatch 0) a full B (0B0, in an overlapped pair) and
# (stage 0, microbatch 1) I and W. A sample of the other kind there is an
# error naming the action the schedule runs (it was "the schedule has no I
# actions (its backward is split into I and W)", which it has), and where
# to see which microbatches run which; the same for a trace's event.
DPV_SPEC = """tfc: 1
name: dpv
model:
  stages:
    - params: [{name: a, numel: 10}]
    - params: [{name: b, numel: 10}]
pipeline: {schedule: DualPipeV, ranks: 1, stages_per_rank: 2, microbatches: 2}
timing: %s
"""
os.makedirs(os.path.join(W, "dpv"), exist_ok=True)
dpv = in_folder("dpv", "d.yaml", DPV_SPEC % "{forward_ms: [1, 2], backward_input_ms: [3, 4], backward_weight_ms: [5, 6]}")
dpv_plan = json.loads(subprocess.run([TFC, "plan", dpv, "--json"], check=True, capture_output=True, text=True).stdout)
dpv_rows = [f"{a['rank']},{a['stage']},{a['microbatch']},{a['type']},{a['baseline_duration_ms']!r}"
            for a in dpv_plan["actions"]]
in_folder("dpv", "f.csv", csv_text([x for x in dpv_rows if x.split(",")[3] in "BW"]))
dpv_m = in_folder("dpv", "m.yaml", DPV_SPEC % "{source: measured, file: t.csv, frozen_file: f.csv}")
in_folder("dpv", "t.csv", csv_text(dpv_rows))
r = subprocess.run([TFC, "plan", dpv_m], capture_output=True, text=True)
if r.returncode != 0 or not {"0,0,0,B", "0,0,1,I", "0,0,1,W"} <= {x.rsplit(",", 1)[0] for x in dpv_rows}:
    print(f"DualPipeV 1 x 2: exit {r.returncode} on its own plan's samples, or not 0B0 and 0I1/0W1: {dpv_rows} "
          f"{r.stderr[:300]}", file=sys.stderr)
    bad += 1
where_to_see = "it runs B for some microbatches and I and W for others (schedule.csv's rows and plan.json's actions"
for row, col, want in (
        ("0,0,0,I,1", 7, "the schedule runs a full backward B for stage 0 microbatch 0 (0B0), not I and W: "),
        ("0,0,0,W,1", 7, "the schedule runs a full backward B for stage 0 microbatch 0 (0B0), not I and W: "),
        ("0,0,1,B,1", 7, "the schedule splits the backward of stage 0 microbatch 1 into I and W (0I1, 0W1), not one "
                         "B: ")):
    in_folder("dpv", "t.csv", csv_text(dpv_rows + [row]))
    r = subprocess.run([TFC, "plan", dpv_m], capture_output=True, text=True)
    if r.returncode != 1 or f"t.csv:{len(dpv_rows) + 2}:{col}: error: {want}{where_to_see}" not in r.stderr:
        print(f"DualPipeV 1 x 2, row {row}: exit {r.returncode}; {r.stderr.strip()[:400]}", file=sys.stderr)
        bad += 1
in_folder("dpv", "t.json", trace_text([{"name": "PP:0I0", "ph": "X", "dur": 3}]))
r = subprocess.run([TFC, "plan", in_folder("dpv", "tr.yaml", DPV_SPEC % "{source: trace, file: t.json, frozen_file: t.json}")],
                   capture_output=True, text=True)
if r.returncode != 1 or "t.json:2:1: error: event PP:0I0: the schedule runs a full backward B for stage 0 microbatch 0 " \
        f"(0B0), not I and W: {where_to_see}" not in r.stderr:
    print(f"DualPipeV 1 x 2, trace event PP:0I0: exit {r.returncode}; {r.stderr.strip()[:400]}", file=sys.stderr)
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

# Ranks that shared processors while they were traced (pipeline.processors):
# each sample becomes the time it would have taken alone, the integral of
# min(1, P / running) over its interval, running counted over every file of
# the key on one clock (torch.profiler's baseTimeNanoseconds lines the files
# up). Expected values worked by hand from the intervals below; timing.scale
# multiplies them after.
SHARED_SPEC = """tfc: 1
name: shared
model:
  stages:
    - params: [{name: a, numel: 10}]
    - params: [{name: b, numel: 10}]
pipeline: {schedule: GPipe, ranks: 2, microbatches: 1%s}
timing: {source: trace, file: [r0.json, r1.json], frozen_file: [f0.json, f1.json]%s}
freeze: {max_ratio: 0.5}
"""
os.makedirs(os.path.join(W, "shared"), exist_ok=True)
base0 = 1790857026000000000  # ns; rank 1's clock starts 1 ms later, so its ts read 1000 us less
def shared_trace(name, base, events):
    text = json.dumps({"baseTimeNanoseconds": base + 0,
                       "traceEvents": [{"name": f"PP:{n}", "ph": "X", "ts": ts, "dur": dur} for n, ts, dur in events]})
    in_folder("shared", name, text)
# On one clock: 0F0 [0, 10] ms, 1F0 [5, 15], 1B0 [16, 20], 0B0 [18, 24].
shared_trace("r0.json", base0, [("0F0", 0, 10000), ("0B0", 18000, 6000)])
shared_trace("r1.json", base0 + 1000000, [("1F0", 4000, 10000), ("1B0", 15000, 4000)])
# Frozen: both backwards [0, 2] ms side by side.
shared_trace("f0.json", base0, [("0B0", 0, 2000)])
shared_trace("f1.json", base0 + 1000000, [("1B0", -1000, 2000)])
shared_cases = [
    # (pipeline extra, timing extra, {action: (unfrozen ms, frozen ms)})
    ("", "", {"0F0": 10, "1F0": 10, "1B0": 4, "0B0": 6}, {"0B0": 2, "1B0": 2}),
    (", processors: 2", "", {"0F0": 10, "1F0": 10, "1B0": 4, "0B0": 6}, {"0B0": 2, "1B0": 2}),
    # One processor: 0F0 5 alone + 5 shared at half; 1F0 the same mirrored;
    # 1B0 2 alone + 2 at half; 0B0 2 at half + 4 alone; frozen: 2 at half each.
    (", processors: 1", "", {"0F0": 7.5, "1F0": 7.5, "1B0": 3, "0B0": 5}, {"0B0": 1, "1B0": 1}),
    (", processors: 1", ", scale: 0.5", {"0F0": 3.75, "1F0": 3.75, "1B0": 1.5, "0B0": 2.5}, {"0B0": 0.5, "1B0": 0.5}),
]
for extra_p, extra_t, want, want_frozen in shared_cases:
    path = in_folder("shared", "s.yaml", SHARED_SPEC % (extra_p, extra_t))
    r = subprocess.run([TFC, "plan", path, "--json", "--policy", "uniform"], capture_output=True, text=True)
    if r.returncode != 0:
        print(f"shared processors {extra_p!r}{extra_t!r}: exit {r.returncode}: {r.stderr[:300]}", file=sys.stderr)
        bad += 1
        continue
    got = json.loads(r.stdout)
    for a in got["actions"]:
        n = f"{a['stage']}{a['type']}{a['microbatch']}"
        # uniform at cap 0.5: a B's duration is halfway between unfrozen and frozen
        exp = want[n] if a["type"] == "F" else 0.5 * (want[n] + want_frozen[n])
        if abs(a["baseline_duration_ms"] - want[n]) > 1e-9 or abs(a["duration_ms"] - exp) > 1e-9:
            print(f"shared processors {extra_p!r}{extra_t!r}: {n} {a['baseline_duration_ms']} / "
                  f"{a['duration_ms']}, want {want[n]} / {exp}", file=sys.stderr)
            bad += 1
    if ("shared" in got) != (extra_p == ", processors: 1") or \
            ("shared" in got and got["shared"]["processors"] != 1):
        print(f"shared processors {extra_p!r}: plan.json's shared is {got.get('shared')}", file=sys.stderr)
        bad += 1
# tfc's own timeline.json read back on shared processors: a simulated step
# with a processor per rank, so its events (which overlap across ranks) are
# taken as they are, not as contention: the tables' durations come back.
TABLE_SPEC = """tfc: 1
name: tl
model:
  stages:
    - params: [{name: a, numel: 10}]
    - params: [{name: b, numel: 10}]
pipeline: {schedule: 1F1B, ranks: 2, microbatches: 4, processors: 1}
timing: %s
"""
path = in_folder("shared", "t.yaml", TABLE_SPEC % "{forward_ms: [3, 5], backward_ms: [7, 11], backward_frozen_ms: [2, 4]}")
gen = os.path.join(W, "shared", "gen")
r = subprocess.run([TFC, "compile", path, "-o", gen, "-q", "--skip-cuda-check"], capture_output=True, text=True)
if r.returncode == 0:
    tl = os.path.join(gen, "timeline.json")
    back = in_folder("shared", "back.yaml", TABLE_SPEC % f"{{source: trace, file: {tl}, frozen_file: {tl}}}")
    r = subprocess.run([TFC, "plan", back, "--json", "--policy", "none"], capture_output=True, text=True)
    acts = json.loads(r.stdout)["actions"] if r.returncode == 0 else []
    table = {"F": [3, 5], "B": [7, 11]}
    wrong = [a for a in acts if abs(a["baseline_duration_ms"] - table[a["type"]][a["stage"]]) > 1e-9]
    if not acts or wrong:
        print(f"shared processors: timeline.json read back: {wrong[:3] or r.stderr[:300]}", file=sys.stderr)
        bad += 1
else:
    print(f"shared processors: compile: {r.stderr[:300]}", file=sys.stderr)
    bad += 1
# Where the keys do not go: errors at their line and column.
for text, where, frag in (
        (SHARED_SPEC % (", processors: 0", ""), "s.yaml:7:", "pipeline.processors"),
        (SHARED_SPEC.replace("timing: {source: trace, file: [r0.json, r1.json], frozen_file: [f0.json, f1.json]%s}",
                             "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: 1, scale: 2}") % ("",),
         "s.yaml:8:", "timing.scale is for measured timings"),
        (SHARED_SPEC % ("", ", scale: 0"), "s.yaml:8:", "timing.scale")):
    path = in_folder("shared", "s.yaml", text)
    r = subprocess.run([TFC, "plan", path], capture_output=True, text=True)
    if r.returncode != 1 or where not in r.stderr or frag not in r.stderr:
        print(f"shared processors: expected {where} {frag!r}, got exit {r.returncode}: {r.stderr[:300]}",
              file=sys.stderr)
        bad += 1

subprocess.run(["rm", "-rf", W])
print(f"timing_measured_check: {roundtrips} timeline.json round trips plan the same baseline; "
      f"measured CSV and trace plans equal the tables' plan; "
      f"{len(cases) + 1 + len(trace_cases)} bad inputs; {list_cases} cases of files in lists; {bad} problems")
sys.exit(1 if bad else 0)
