#!/usr/bin/env python3
"""tfc plan --compare (ctest compare) against plans made independently.

For random specs (tables with full backwards, with split ones, or both; the
cost model; activation bytes or not; a memory limit or not) and the bundled
ones:
  - every row that was planned equals `tfc plan --json` on a spec written
    here for that schedule: the stage split and the re-derived timings are
    worked out in this file from docs/schedules.md ("Comparing schedules"),
    not taken from tfc; baseline and optimised makespans, peak activation
    sets and bytes must agree;
  - a row that does not fit is one tfc plan refuses too (or one with fewer
    tensors or layers than stages);
  - rows sorted by optimised makespan, the recommendation the fastest within
    pipeline.memory_limit_bytes, within_memory_limit the bytes against it;
  - re-derived rows say how, the spec's own row says it is;
  - compare.csv holds the JSON's rows, compare.svg is XML, MANIFEST lists
    both; three runs write the same bytes (the plans run on threads);
  - usage errors, and a memory limit without activation bytes.
Usage: compare_check.py TFC SOURCE_DIR
"""
import csv
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

TFC, SRC = sys.argv[1], sys.argv[2]
W = tempfile.mkdtemp(prefix="tfc-compare-")
S = 0.05  # SPEC_W_FLOOR_SHARE: W with everything frozen, as a share of W (docs/spec.md)
SPLIT = {"ZBH1", "ZBV", "DualPipeV"}
bad = []


def run(*args, ok=True):
    r = subprocess.run([TFC, *args], capture_output=True, text=True)
    if ok and r.returncode != 0:
        raise SystemExit(f"tfc {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return r


def complete(t):
    """One stage's six timings from what the spec gives (docs/schedules.md)."""
    t = dict(t)
    if t.get("i") is None and t.get("b") is not None:
        if t["bf"] > S * t["b"]:
            w = (t["b"] - t["bf"]) / (1 - S)
            t.update(i=t["b"] - w, w=w, wf=S * w)
        else:
            t.update(i=t["bf"] / 2, w=t["b"] - t["bf"] / 2, wf=t["bf"] / 2)
        t["how"] = "split_from_b"
    if t.get("wf") is None:
        t["wf"] = S * t["w"]
    if t.get("b") is None:
        t.update(b=t["i"] + t["w"], bf=t["i"] + t["wf"], how="b_from_split")
    return t


def groups(numels, n):
    """Group k starts at the tensor boundary nearest k/n of the total (the
    later one on a tie), each group at least one tensor."""
    cum = [0]
    for x in numels:
        cum.append(cum[-1] + x)
    p, first = len(numels), [0]
    for k in range(1, n):
        target = cum[p] * k / n
        lo, hi = first[-1] + 1, p - (n - k)
        best = min(range(lo, hi + 1), key=lambda j: (abs(cum[j] - target), -j))
        first.append(best)
    first.append(p)
    return first


def cost_forward(m, n, st):
    """The cost model's forward (docs/spec.md, "The cost model"), layers even."""
    b, s, h, f = m["microbatch_size"], m["seq_len"], m["hidden"], m["ffn"]
    kv = h * m["kv_heads"] / m["heads"]
    layer = 2.0 * b * s * (2.0 * h * h + 2.0 * h * kv) + 4.0 * b * s * s * h + 6.0 * b * s * h * f
    layers = m["layers"] // n + (1 if st < m["layers"] % n else 0)
    flops = layers * layer + (2.0 * b * s * h * m["vocab"] if st == n - 1 else 0.0)
    return flops / (m["peak_tflops"] * 1e12 * m["mfu"]) * 1e3


def yaml_spec(d):
    """A spec's text from a dict made here."""
    out = ["tfc: 1", f"name: {d['name']}", "model:", "  stages:"]
    for st in d["stages"]:
        out.append(f"    - name: {st['name']}")
        if st.get("act") is not None:
            out.append(f"      activation_bytes: {st['act']}")
        out.append("      params:")
        out += [f"        - {{name: {n}, numel: {x}}}" for n, x in st["params"]]
    out += ["pipeline:", f"  schedule: {d['schedule']}", f"  ranks: {d['ranks']}",
            f"  stages_per_rank: {d['v']}", f"  microbatches: {d['m']}"]
    if d.get("limit"):
        out.append(f"  memory_limit_bytes: {d['limit']}")
    out.append("timing:")
    if d.get("model"):
        m = d["model"]
        out += ["  source: model", "  transformer:"]
        out += [f"    {k}: {m[k]}" for k in ("layers", "hidden", "ffn", "heads", "kv_heads", "vocab", "seq_len",
                                             "microbatch_size")]
        if d.get("stage_layers"):
            out.append(f"    stage_layers: [{', '.join(map(str, d['stage_layers']))}]")
        out += ["  device:", f"    peak_tflops: {m['peak_tflops']}", f"    mfu: {m['mfu']}"]
    else:
        for key, k in (("forward_ms", "f"), ("backward_ms", "b"), ("backward_frozen_ms", "bf"),
                       ("backward_input_ms", "i"), ("backward_weight_ms", "w"),
                       ("backward_weight_frozen_ms", "wf")):
            vals = [t.get(k) for t in d["times"]]
            if all(v is not None for v in vals):
                out.append(f"  {key}: [{', '.join(repr(float(v)) for v in vals)}]")
    out.append(f"  comm_ms: {d['comm']!r}")
    out += ["freeze:", f"  max_ratio: {d['cap']!r}"]
    if d.get("balance"):
        out.append(f"  balance: {d['balance']}")
    return "\n".join(out) + "\n"


def variant(d, kind, v):
    """The spec for schedule kind with v stages per rank, derived here;
    None and the reason when it cannot be made."""
    n0, n = len(d["stages"]), d["ranks"] * v
    params = [(p, k) for k, st in enumerate(d["stages"]) for p in st["params"]]
    if len(params) < n:
        return None, "fewer tensors than stages"
    if d.get("model") and n != n0 and d["model"]["layers"] < n:
        return None, "fewer layers than stages"
    base = [complete(t) for t in d["times"]]
    e = dict(d, schedule=kind, v=v, limit=d.get("limit"))
    if n == n0:
        e["times"] = [{k: t[k] for k in "f b bf i w wf".split()} for t in base]
        return e, None
    first = groups([x for (_, x), _ in params], n)
    stages, times = [], []
    has_act = all(st.get("act") is not None for st in d["stages"])
    for g in range(n):
        mine = params[first[g]:first[g + 1]]
        t = dict.fromkeys("f b bf i w wf".split(), 0.0)
        act = 0.0
        for (name, x), k in mine:
            home = d["stages"][k]
            share = x / sum(y for _, y in home["params"])
            for key in t:
                t[key] += share * base[k][key]
            act += share * (home.get("act") or 0)
        if d.get("model"):
            fwd = cost_forward(d["model"], n, g)
            t = {"f": fwd, "b": 2 * fwd, "bf": fwd, "i": fwd, "w": fwd, "wf": S * fwd}
        stages.append({"name": f"stage{g}", "params": [p for p, _ in mine],
                       "act": int(act + 0.5) if has_act else None})
        times.append(t)
    e.update(stages=stages, times=times, stage_layers=None)
    return e, None


def plan_json(text, name):
    path = os.path.join(W, name)
    open(path, "w").write(text)
    r = run("plan", path, "--json", ok=False)
    return (json.loads(r.stdout) if r.returncode == 0 else None), r


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(b))


def tie_order(planned, label):
    """Rows by optimised makespan; equal ones (to 1e-9) the spec's own first,
    then the least freezing, then the shorter baseline (docs/schedules.md)."""
    for a, b in zip(planned, planned[1:]):
        ta, tb = a["makespan_ms"], b["makespan_ms"]
        if abs(ta - tb) > 1e-9 * max(ta, tb):
            if ta > tb:
                bad.append(f"{label}: rows not sorted by optimised makespan: {ta} before {tb}")
            continue
        ka = (not a["spec_schedule"], a["mean_freeze_ratio"], a["baseline_makespan_ms"])
        kb = (not b["spec_schedule"], b["mean_freeze_ratio"], b["baseline_makespan_ms"])
        if ka > kb:
            bad.append(f"{label}: equal makespans ({ta}), {a['schedule']} before {b['schedule']}: "
                       f"(not the spec's, mean freeze, baseline) {ka} > {kb}")


def check_compare(d, label):
    spec_path = os.path.join(W, label + ".yaml")
    open(spec_path, "w").write(yaml_spec(d))
    out = os.path.join(W, label + ".out")
    r = run("plan", spec_path, "--compare", out, "--json", "-q")
    got = json.loads(r.stdout)
    rows = got["schedules"]
    if len(rows) != 7 or len({(x["schedule"], x["stages_per_rank"]) for x in rows}) != 7:
        bad.append(f"{label}: {len(rows)} rows, expected the 7 built-in schedules once each")
    own = [x for x in rows if x["spec_schedule"]]
    if len(own) != 1 or own[0]["schedule"] != d["schedule"] or own[0]["stages_per_rank"] != d["v"]:
        bad.append(f"{label}: the spec's own row is {own}")
    planned = [x for x in rows if x["applicable"]]
    if rows[:len(planned)] != planned:
        bad.append(f"{label}: rows that were planned are not first")
    tie_order(planned, label)
    limit = d.get("limit")
    fits = [x for x in planned if x["within_memory_limit"]]
    want = fits[0]["schedule"] if fits else None
    if got["recommended"] != want:
        bad.append(f"{label}: recommended {got['recommended']}, expected {want}")
    for x in rows:
        where = f"{label} {x['schedule']}(v={x['stages_per_rank']})"
        e, why = variant(d, x["schedule"], x["stages_per_rank"])
        if e is None:
            if x["applicable"]:
                bad.append(f"{where}: planned, but {why}")
            continue
        if x["spec_schedule"]:
            e = d
        ref, rr = plan_json(yaml_spec(e), label + "_" + x["schedule"] + ".yaml")
        if not x["applicable"]:
            if ref is not None:
                bad.append(f"{where}: said not to fit ({x.get('reason')}) but tfc plan plans it")
            elif not x.get("reason"):
                bad.append(f"{where}: no reason given")
            continue
        if ref is None:
            bad.append(f"{where}: planned, but tfc plan refuses the spec: {rr.stderr.strip()}")
            continue
        for k in ("baseline_makespan_ms", "makespan_ms", "speedup"):
            if not close(x[k], ref[k]):
                bad.append(f"{where}: {k} {x[k]} vs tfc plan {ref[k]}")
        sets = max(a["peak_sets"] for a in ref["activation_memory"])
        if x["peak_activation_sets"] != sets:
            bad.append(f"{where}: peak_activation_sets {x['peak_activation_sets']} vs {sets}")
        pb = [a["peak_bytes"] for a in ref["activation_memory"]]
        want_b = max(pb) if all(b is not None for b in pb) else None
        if x["peak_activation_bytes"] != want_b:
            bad.append(f"{where}: peak_activation_bytes {x['peak_activation_bytes']} vs {want_b}")
        inside = limit is None or (want_b is not None and want_b <= limit)
        if x["within_memory_limit"] != inside:
            bad.append(f"{where}: within_memory_limit {x['within_memory_limit']}, expected {inside}")
        n0, n = len(d["stages"]), d["ranks"] * x["stages_per_rank"]
        hows = set()
        if not x["spec_schedule"]:
            if n != n0:
                hows.add("cost_model" if d.get("model") else "resplit")
            comp = [complete(t).get("how") for t in d["times"]]
            if x["schedule"] in SPLIT and "split_from_b" in comp:
                hows.add("split_from_b")
            if x["schedule"] not in SPLIT and "b_from_split" in comp:
                hows.add("b_from_split")
        if set(x["derivation"]) != hows or x["rederived"] != bool(hows):
            bad.append(f"{where}: derivation {x['derivation']}, expected {sorted(hows)}")
    # The folder: compare.csv holds the rows, compare.svg parses, MANIFEST lists them.
    with open(os.path.join(out, "compare.csv")) as f:
        table = list(csv.DictReader(f))
    if [(c["schedule"], int(c["stages_per_rank"])) for c in table] != [(x["schedule"], x["stages_per_rank"])
                                                                        for x in rows]:
        bad.append(f"{label}: compare.csv rows differ from the JSON's")
    for c, x in zip(table, rows):
        if x["applicable"] and not (close(float(c["optimised_ms"]), x["makespan_ms"]) and
                                    close(float(c["baseline_ms"]), x["baseline_makespan_ms"])):
            bad.append(f"{label}: compare.csv {c['schedule']} makespans differ from the JSON's")
        if (c["recommended"] == "yes") != (x is (fits[0] if fits else None)):
            bad.append(f"{label}: compare.csv marks {c['schedule']} recommended={c['recommended']}")
    try:
        ET.parse(os.path.join(out, "compare.svg"))
    except ET.ParseError as e:
        bad.append(f"{label}: compare.svg: {e}")
    manifest = open(os.path.join(out, "MANIFEST")).read()
    for f in ("compare.csv", "compare.svg"):
        if f not in manifest:
            bad.append(f"{label}: MANIFEST does not list {f}")
    return got


def random_spec(rng, k):
    ranks = rng.choice([2, 3, 4])
    sched = rng.choice(["GPipe", "1F1B", "ZBH1", "ZBV", "Interleaved1F1B", "DualPipeV", "LoopedBFS"])
    v = {"ZBV": 2, "DualPipeV": 2, "Interleaved1F1B": rng.choice([2, 3]), "LoopedBFS": rng.choice([1, 2])}.get(sched, 1)
    n = ranks * v
    m = rng.choice([ranks, 2 * ranks, 3 * ranks, ranks + 1]) if sched not in ("1F1B", "DualPipeV") else \
        rng.choice([2 * ranks, 4 * ranks])
    if sched in ("Interleaved1F1B", "ZBH1"):
        m = ranks * rng.choice([1, 2, 3])
    # A split schedule needs I and W, the others B and B frozen (docs/spec.md).
    kind = rng.choice(["b", "both"]) if sched not in SPLIT else rng.choice(["split", "both", "splitwf"])
    stages, times = [], []
    for s in range(n):
        cnt = rng.choice([1, 2, 3, 5])
        stages.append({"name": f"s{s}", "params": [(f"t{s}_{j}", rng.randint(1, 10**7)) for j in range(cnt)],
                       "act": rng.randint(1, 10**9) if k % 3 else None})
        f = round(rng.uniform(1, 10), 3)
        t = {"f": f}
        if kind in ("b", "both"):
            t["b"] = round(f * rng.uniform(1.5, 2.5), 3)
            t["bf"] = round(t["b"] * rng.choice([0.02, 0.5, 0.6]), 3)
        if kind in ("split", "both", "splitwf"):
            t["i"] = round(f * rng.uniform(0.8, 1.2), 3)
            t["w"] = round(f * rng.uniform(0.8, 1.2), 3)
            if kind == "splitwf":
                t["wf"] = round(t["w"] * 0.1, 3)
        if kind == "both":  # the spec's own B and split halves, as a spec may give both
            t["b"] = round(t["i"] + t["w"] + 0.5, 3)
            t["bf"] = min(t["bf"], t["b"])
        times.append(t)
    d = {"name": f"r{k}", "stages": stages, "times": times, "schedule": sched, "ranks": ranks, "v": v, "m": m,
         "comm": rng.choice([0.0, 0.1, 0.3]), "cap": rng.choice([0.3, 0.5, 0.9]),
         "balance": rng.choice([None, "none", "minmax"])}
    if all(st["act"] is not None for st in stages) and k % 2:
        d["limit"] = rng.randint(10**9, 8 * 10**9)
    return d


rng = random.Random(24)
for k in range(14):
    check_compare(random_spec(rng, k), f"r{k}")

# The cost model: stage counts other than the spec's come from it.
model = {"layers": 12, "hidden": 1024, "ffn": 2816, "heads": 16, "kv_heads": 4, "vocab": 32000, "seq_len": 2048,
         "microbatch_size": 1, "peak_tflops": 989, "mfu": 0.4}
stages = [{"name": f"s{s}", "params": [(f"l{s}_{j}", 1000 + 37 * s + j) for j in range(6)], "act": 10**8 + s}
          for s in range(4)]
for sched, m in (("1F1B", 8), ("GPipe", 4), ("ZBH1", 8)):
    d = {"name": "cm", "stages": stages, "times": None, "schedule": sched, "ranks": 4, "v": 1, "m": m,
         "comm": 0.1, "cap": 0.5, "model": model, "stage_layers": [3, 3, 3, 3]}
    fwd = [cost_forward(model, 4, s) for s in range(4)]
    d["times"] = [{"f": x, "b": 2 * x, "bf": x, "i": x, "w": x, "wf": S * x} for x in fwd]
    check_compare(d, f"cm_{sched}")
# 6 layers: the 8-stage schedules do not fit.
open(os.path.join(W, "cm6.yaml"), "w").write(
    open(os.path.join(W, "cm_ZBH1.yaml")).read().replace("layers: 12", "layers: 6").replace("[3, 3, 3, 3]", "[2, 2, 1, 1]"))
got = json.loads(run("plan", os.path.join(W, "cm6.yaml"), "--compare", os.path.join(W, "cm6"), "--json", "-q").stdout)
for x in got["schedules"]:
    if (x["stages_per_rank"] == 2) == x["applicable"]:
        bad.append(f"6 layers on 4 ranks: {x['schedule']}(v={x['stages_per_rank']}) applicable={x['applicable']}")

# The bundled default spec, and three runs the same bytes.
default = os.path.join(SRC, "specs", "llama8b_1f1b.yaml")
texts = set()
for k in range(3):
    r = run("plan", default, "--compare", os.path.join(W, f"def{k}"), "-q")
    files = tuple(open(os.path.join(W, f"def{k}", f), "rb").read() for f in ("compare.csv", "compare.svg", "MANIFEST"))
    texts.add((r.stdout,) + files)
if len(texts) != 1:
    bad.append("three --compare runs on the default spec wrote different bytes")
if "recommended (*)" not in r.stdout or "re-derived" not in r.stdout:
    bad.append("the default spec's table has no recommendation or no re-derived row:\n" + r.stdout)

# Threads: a larger spec (8 ranks, 32 microbatches, solves that overlap)
# gives the same bytes on one thread and on seven.
big = random_spec(random.Random(7), 1)
big.update(ranks=8, m=32, schedule="1F1B", v=1, limit=None)
big["stages"] = [{"name": f"s{s}", "params": [(f"t{s}_{j}", 1000 + 7 * s + j) for j in range(3)], "act": 10**6}
                 for s in range(8)]
big["times"] = [{"f": 1.0 + 0.1 * (s % 3), "b": 2.0 + 0.3 * (s % 2), "bf": 1.1} for s in range(8)]
open(os.path.join(W, "big.yaml"), "w").write(yaml_spec(big))
outs = []
for threads in ("1", "7"):
    env = dict(os.environ, TFC_TEST_COMPARE_THREADS=threads)
    r = subprocess.run([TFC, "plan", os.path.join(W, "big.yaml"), "--compare", os.path.join(W, "big" + threads),
                        "--json", "-q"], capture_output=True, text=True, env=env)
    outs.append((r.returncode, r.stdout, open(os.path.join(W, "big" + threads, "compare.csv")).read()
                 if r.returncode == 0 else ""))
if outs[0] != outs[1] or outs[0][0] != 0:
    bad.append("--compare on one thread and on seven differ (or failed)")

# A file name with "--" (not allowed inside an XML comment) still gives XML.
dash = os.path.join(W, "a--b.yaml")
open(dash, "w").write(open(default).read())
run("plan", dash, "--compare", os.path.join(W, "dash"), "-q")
run("plan", dash, "--sweep", os.path.join(W, "dash_sweep"))
for f in ("dash/compare.svg", "dash_sweep/pareto.svg"):
    try:
        ET.parse(os.path.join(W, f))
    except ET.ParseError as e:
        bad.append(f"{f} for a--b.yaml: {e}")

# Ties: a custom order (1F1B's on 2 ranks) whose plan ZBH1 (split from B,
# a shorter baseline, more freezing) and 1F1B (more freezing) only equal:
# the spec's own schedule is recommended, the others after it by freezing.
with open(os.path.join(W, "tie.csv"), "w") as f:
    f.write("0F0,0F1,0F2,0B0,0B1,0B2\n1F0,1B0,1F1,1B1,1F2,1B2\n")
open(os.path.join(W, "tie.yaml"), "w").write(
    "tfc: 1\nname: tie\nmodel:\n  stages:\n    - params: [{name: x, numel: 100}]\n"
    "    - params: [{name: y, numel: 200}]\n"
    "pipeline: {schedule: custom, order: tie.csv, ranks: 2, microbatches: 3}\n"
    "timing: {forward_ms: [1, 2], backward_ms: [2, 4], backward_frozen_ms: [1, 0]}\n"
    "freeze: {max_ratio: 1}\ntargets: {cuda: false}\n")
got = json.loads(run("plan", os.path.join(W, "tie.yaml"), "--compare", os.path.join(W, "tie"), "--json", "-q").stdout)
planned = [x for x in got["schedules"] if x["applicable"]]
tie_order(planned, "tie")
ties = [x["schedule"] for x in planned if abs(x["makespan_ms"] - planned[0]["makespan_ms"]) <= 1e-9 * x["makespan_ms"]]
if got["recommended"] != "custom" or len(ties) < 3:
    bad.append(f"tie: recommended {got['recommended']} among equal makespans {ties}, expected custom among 3 or more")

# Usage and spec errors.
r = run("plan", default, "--compare", os.path.join(W, "x"), "--sweep", os.path.join(W, "y"), ok=False)
if r.returncode != 2 or os.path.exists(os.path.join(W, "x")):
    bad.append(f"--compare with --sweep: exit {r.returncode}, expected 2 and no folder")
nolimit = open(default).read().replace("  microbatches: 8\n", "  microbatches: 8\n  memory_limit_bytes: 1000\n")
open(os.path.join(W, "nolimit.yaml"), "w").write(nolimit)
r = run("plan", os.path.join(W, "nolimit.yaml"), ok=False)
if r.returncode != 1 or "activation_bytes" not in r.stderr or "nolimit.yaml:" not in r.stderr:
    bad.append(f"memory_limit_bytes without activation_bytes: exit {r.returncode}: {r.stderr}")

if bad:
    print("\n".join(bad[:40]), file=sys.stderr)
    print(f"FAIL: {len(bad)} problem(s) (files kept in {W})", file=sys.stderr)
    sys.exit(1)
shutil.rmtree(W)
print("compare: ok (14 random specs, 3 cost-model specs, the default spec)")
