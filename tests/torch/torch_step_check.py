#!/usr/bin/env python3
"""bench/torch_step.py --quick, checked (ctest torch_step).

The bench profiles its pipeline on 4 gloo processes with tfc_torch.profile,
plans from those torch.profiler traces and runs torch's Schedule1F1B with
and without the plan. Checked here, independently of tfc's reader:
  - each rank wrote two traces (nothing and everything frozen), Chrome
    JSON as torch.profiler writes it, split from one profiler session
    whose steps alternated the modes ABBA (each event in its step's file), holding PP:<stage><type><mb> events
    for its own stage only: K steps x M microbatches of F and of B;
  - the plan's duration of every action is the median of that action's
    samples pooled over the four files (nothing frozen), and each
    backward's planned duration follows from its freeze ratio and the
    median with everything frozen: d - r (d - d_frozen), as docs/spec.md
    defines w_min; with pipeline.processors P in the spec (ranks sharing
    fewer cores) each sample first as its work alone, the sum over the
    elementary intervals of its span of length x min(1, P / running), the
    files lined up by baseTimeNanoseconds; then times timing.scale;
  - with P, plan.json's shared steps are shared_step's on P cores;
  - timing.scale is the profile's unprofiled over profiled step medians;
  - the MANIFEST and the depfile name every trace (they are the plan's inputs);
  - the bench's last line has the documented form;
  - its shared-core model (torch_step.shared_step) with a core per rank is
    tfc's model: on every generated/ plan and its own it gives the plan's
    makespans (the DAG's longest path, re-derived from the actions alone),
    and on one core the sum of the durations; fewer cores never shorten it.
  - DualPipeV's overlapped pairs, which torch's runtime labels as one
    range (PP:(1F1;0B0)OVERLAP_F_B), each half still gets its own sample:
    tfc_torch.profile of torch's ScheduleDualPipeV (one process, 2 stages)
    gives traces tfc plans from (overlap_errors).
The accuracy of the prediction is the bench's result (docs/torch.md),
not asserted here: 4 ranks share the CI machine's cores.

    torch_step_check.py TFC SOURCE_DIR
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import torch_step  # noqa: E402


def model_errors(plan, where):
    """The shared-core model against the plan's own makespans."""
    errors, acts, comm = [], plan["actions"], plan["comm_ms"]
    for key, span in (("baseline_duration_ms", plan["baseline_makespan_ms"]), ("duration_ms", plan["makespan_ms"])):
        work = [a[key] for a in acts]
        steps = [torch_step.shared_step(acts, work, c, comm) for c in range(1, plan["ranks"] + 1)]
        if abs(steps[-1] - span) > 1e-6 * span:
            errors.append(f"{where}: a core per rank gives {steps[-1]} ms, the plan's makespan is {span} ms")
        if comm == 0 and abs(steps[0] - sum(work)) > 1e-6 * sum(work):
            errors.append(f"{where}: one core gives {steps[0]} ms, the work is {sum(work)} ms")
        if any(a < b - 1e-9 * span for a, b in zip(steps, steps[1:])):
            errors.append(f"{where}: more cores gave a longer step: {steps}")
    return errors


def alone(events, procs):
    """{action: [ms alone]} from [(start_us, dur_us, action)] of one mode,
    all ranks on one clock: each sample's span cut at every start and end
    of every sample, each piece counted at min(1, procs / running)."""
    cuts = sorted({t for a, d, _ in events for t in (a, a + d)})
    out = {}
    for a, d, name in events:
        work = 0.0
        for lo, hi in zip(cuts, cuts[1:]):
            if lo >= a and hi <= a + d:
                running = sum(1 for b, e, _ in events if b <= lo and b + e >= hi)
                work += (hi - lo) * min(1.0, procs / running)
        out.setdefault(name, []).append(work / 1000.0)
    return out


def alternation_errors(out):
    """The profile's two modes alternated step by step, ABBA (unfrozen,
    frozen, frozen, unfrozen, ...), in one profiler session per rank: each
    file's step marks (tfc_profile_step:MODE ranges) are its own mode's,
    the marks of both files in time order follow ABBA, and every PP: event
    of a file starts inside one of its own marks."""
    errors = []
    for r in range(4):
        marks, pp = [], {}
        for mode in ("unfrozen", "frozen"):
            path = os.path.join(out, f"trace_{mode}_rank{r}.json")
            ev = json.load(open(path)).get("traceEvents", [])
            mk = [e for e in ev if e.get("ph") == "X" and e.get("name", "").startswith("tfc_profile_step:")]
            if any(e["name"] != "tfc_profile_step:" + mode for e in mk):
                errors.append(f"{path}: holds another mode's step marks")
            marks += [(e["ts"], e["ts"] + e["dur"], mode) for e in mk]
            pp[mode] = [e["ts"] for e in ev if e.get("ph") == "X" and e.get("name", "").startswith("PP:")]
        marks.sort()
        order = [md for _, _, md in marks]
        want = [md for i in range(len(order) // 2)
                for md in (("unfrozen", "frozen") if i % 2 == 0 else ("frozen", "unfrozen"))]
        if not order or order != want:
            errors.append(f"rank {r}: the profile's steps ran {order}, not alternating ABBA")
        for mode, starts in pp.items():
            outside = [t for t in starts if not any(a <= t <= b and md == mode for a, b, md in marks)]
            if outside:
                errors.append(f"rank {r}, {mode}: {len(outside)} PP: events outside the mode's steps")
    return errors


OVERLAP_RUN = r"""
import os, sys
sys.path.insert(0, sys.argv[1])
import torch, torch.distributed as dist
import tfc_spec, tfc_torch
from torch.distributed.pipelining import PipelineStage
from torch.distributed.pipelining.schedules import ScheduleDualPipeV
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[3])
dist.init_process_group("gloo", rank=0, world_size=1)
torch.manual_seed(0)
mods = [torch.nn.Linear(8, 8) for _ in range(2)]
stages = [PipelineStage(m, i, 2, torch.device("cpu")) for i, m in enumerate(mods)]
sched = ScheduleDualPipeV(stages, n_microbatches=4, loss_fn=lambda y, t: ((y - t) ** 2).mean())
x, t = torch.randn(4, 8), torch.randn(4, 8)
out = sys.argv[2]
print(" ".join(str(a) for a in sched.pipeline_order[0]))
u, f = tfc_torch.profile(lambda: sched.step(x, target=t), stages, out, steps=1, warmup=0, schedule=sched)
with open(os.path.join(out, "dpv.yaml"), "w") as fh:
    fh.write(tfc_spec.spec_from_modules(mods, name="dpv", schedule="DualPipeV", ranks=1, microbatches=4,
                                        timing={"source": "trace", "file": [u], "frozen_file": [f]}))
dist.destroy_process_group()
"""


def overlap_errors(tfc, src):
    """DualPipeV under tfc_torch.profile: every half of an overlapped pair
    has its own PP:<stage><type><mb> sample in both traces, and tfc plans
    from them."""
    errors = []
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run([sys.executable, "-c", OVERLAP_RUN, os.path.join(src, "python"), out,
                              str(29000 + os.getpid() % 1000)], capture_output=True, text=True)
        if run.returncode != 0:
            return ["DualPipeV profile failed: " + run.stderr[-2000:]]
        order = run.stdout.split()
        halves = [h for a in order if a.endswith("OVERLAP_F_B") for h in a[1:a.index(")")].split(";")]
        if not halves:
            errors.append(f"torch's DualPipeV order {order} has no overlapped pair to check")
        for mode in ("unfrozen", "frozen"):
            ev = json.load(open(os.path.join(out, f"trace_{mode}_rank0.json")))["traceEvents"]
            names = {e.get("name") for e in ev if e.get("ph") == "X"}
            for h in halves:
                if sum(e.get("name") == "PP:" + h for e in ev if e.get("ph") == "X") != 1:
                    errors.append(f"DualPipeV {mode} trace: the overlapped half {h} has not exactly one "
                                  f"PP:{h} sample (PP: names: {sorted(n for n in names if n.startswith('PP:'))})")
        plan = subprocess.run([tfc, "plan", os.path.join(out, "dpv.yaml")], capture_output=True, text=True)
        if plan.returncode != 0:
            errors.append("tfc plan on DualPipeV traces from tfc_torch.profile failed:\n" + plan.stderr)
    return errors


def main():
    tfc, src = sys.argv[1], sys.argv[2]
    errors = overlap_errors(tfc, src)
    if "--overlap-only" in sys.argv[3:]:
        for e in errors:
            print("  " + e)
        print("torch_step check (overlap): " + ("ok" if not errors else "FAILED"))
        return 0 if not errors else 1
    gen = os.path.join(src, "generated")
    for name in sorted(os.listdir(gen)):
        if os.path.exists(os.path.join(gen, name, "plan.json")):
            errors += model_errors(json.load(open(os.path.join(gen, name, "plan.json"))), f"generated/{name}")
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.run([sys.executable, os.path.join(src, "bench", "torch_step.py"), tfc, "--quick",
                              "--out", out], capture_output=True, text=True)
        lines = run.stdout.strip().splitlines()
        if run.returncode != 0:
            print(run.stdout + "\n".join(l for l in run.stderr.splitlines() if not l.startswith("USDT:")))
            print("torch_step check: the bench failed")
            return 1
        print("\n".join(lines))
        if not re.fullmatch(r"torch_step ranks=4 baseline_err=-?\d+\.\d{4} speedup_pred=\d+\.\d{4} "
                            r"speedup_meas=\d+\.\d{4}", lines[-1]):
            errors.append(f"last line {lines[-1]!r} is not the documented form")
        plan = json.load(open(os.path.join(out, "plan", "plan.json")))
        errors += model_errors(plan, "the bench's plan")
        spec_text = open(os.path.join(out, "torch_step.yaml")).read()
        procs = re.search(r"^  processors: (\d+)$", spec_text, re.M)
        procs = int(procs.group(1)) if procs else None
        scale = re.search(r"^  scale: (\S+)$", spec_text, re.M)
        scale = float(scale.group(1)) if scale else 1.0
        # timing.scale: the profile's unprofiled over profiled step medians
        # (nothing frozen), the median over the ranks, never above 1.
        ratios = []
        for r in range(4):
            rec = json.load(open(os.path.join(out, f"trace_steps_rank{r}.json")))["unfrozen"]
            ratios.append(statistics.median(rec["unprofiled_ms"]) / statistics.median(rec["profiled_ms"]))
        want_scale = min(1.0, statistics.median(ratios))
        if abs(scale - want_scale) > 1e-5 * want_scale:
            errors.append(f"timing.scale {scale} in the spec, the profile's steps give {want_scale}")
        m, k = plan["microbatches"], None
        errors += alternation_errors(out)
        samples = {"unfrozen": {}, "frozen": {}}
        for mode in samples:
            spans, base0 = [], None
            for r in range(4):
                path = os.path.join(out, f"trace_{mode}_rank{r}.json")
                trace = json.load(open(path))
                base = trace.get("baseTimeNanoseconds", 0)
                base0 = base if base0 is None else base0
                spans += [(e["ts"] + (base - base0) / 1000.0, e["dur"], e["name"][3:])
                          for e in trace.get("traceEvents", []) if e.get("ph") == "X"
                          and e.get("name", "").startswith("PP:")]
                if "traceEvents" not in trace or "schemaVersion" not in trace:
                    errors.append(f"{path}: not a trace as torch.profiler writes it")
                    continue
                pp = [e for e in trace["traceEvents"] if e.get("ph") == "X" and e["name"].startswith("PP:")]
                stages = {int(re.match(r"PP:(\d+)", e["name"]).group(1)) for e in pp}
                if stages != {r}:
                    errors.append(f"{path}: events of stages {sorted(stages)}, rank {r} runs stage {r}")
                per = {}
                for e in pp:
                    per.setdefault(e["name"][3:], []).append(e["dur"] / 1000.0)
                counts = {len(v) for v in per.values()}
                if len(per) != 2 * m or len(counts) != 1:
                    errors.append(f"{path}: {len(per)} actions with {sorted(counts)} samples each, expected "
                                  f"{2 * m} with the same count")
                k = k or min(counts)
                samples[mode].update(per)
            if procs:
                samples[mode] = alone(spans, procs)
            samples[mode] = {n: [x * scale for x in v] for n, v in samples[mode].items()}
        worst = 0.0
        for a in plan["actions"]:
            name = f"{a['stage']}{a['type']}{a['microbatch']}"
            d = statistics.median(samples["unfrozen"][name])
            worst = max(worst, abs(a["baseline_duration_ms"] - d) / d)
            if a["type"] == "B":
                w = min(statistics.median(samples["frozen"][name]), d)
                want = d - a["freeze_ratio"] * (d - w)
                if abs(a["duration_ms"] - want) > 1e-6 * d:
                    errors.append(f"{name}: planned {a['duration_ms']} ms at ratio {a['freeze_ratio']}, the "
                                  f"medians give {want}")
        if worst > 1e-6:
            errors.append(f"the plan's baseline durations are not the traces' medians (worst {worst:.3g} relative; "
                          f"processors {procs}, scale {scale})")
        if procs and procs < plan["ranks"]:
            sh, acts = plan.get("shared"), plan["actions"]
            want = (torch_step.shared_step(acts, [a["baseline_duration_ms"] for a in acts], procs, plan["comm_ms"]),
                    torch_step.shared_step(acts, [a["duration_ms"] for a in acts], procs, plan["comm_ms"]))
            if not sh or sh["processors"] != procs or \
                    any(abs(g - w) > 1e-6 * w for g, w in zip((sh["baseline_makespan_ms"], sh["makespan_ms"]), want)):
                errors.append(f"plan.json's shared {sh} is not shared_step's {want} on {procs} cores")
        manifest = open(os.path.join(out, "plan", "MANIFEST")).read()
        dep = subprocess.run([tfc, "compile", os.path.join(out, "torch_step.yaml"), "-o", os.path.join(out, "again"),
                              "--skip-cuda-check", "-q", "--depfile", os.path.join(out, "deps.d")],
                             capture_output=True, text=True)
        deps = open(os.path.join(out, "deps.d")).read() if dep.returncode == 0 else ""
        for mode in samples:
            for r in range(4):
                f = f"trace_{mode}_rank{r}.json"
                if f not in manifest:
                    errors.append(f"MANIFEST does not name {f}")
                if f not in deps:
                    errors.append(f"the depfile does not name {f}")
        print(f"torch_step check: {len(plan['actions'])} actions, each the median of {k} samples pooled over "
              f"4 per-rank traces per mode")
    for e in errors:
        print("  " + e)
    print("torch_step check: " + ("ok" if not errors else "FAILED"))
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
