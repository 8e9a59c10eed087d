#!/usr/bin/env python3
"""tfc's step against PyTorch's own lowering of the same schedule, replayed.

tfc times a step from its DAG rules (docs/schedules.md). This checks those
rules against what PyTorch's runtime would run, without tfc's rules: for
each spec, `tfc compile` it, load the folder's schedule.csv into
torch.distributed.pipelining's _PipelineScheduleRuntime (stand-in stages,
no process group: only the lowering runs), take PyTorch's program with its
sends and receives (pipeline_order_with_comms), and replay each rank's
program the way the runtime executes it, every compute action lasting what
plan.json says it lasts:
  - a rank runs its program in order, one action at a time;
  - RECV_F / RECV_B post a receive and take no time; SEND_F / SEND_B leave
    when the rank reaches them and arrive timing.comm_ms later; every other
    non-compute action (send waits, gradient reductions) takes no time;
  - F of stage s waits for its input: SEND_F of stage s - 1's arrival, or,
    when s - 1 is on the same rank, that forward's end (handed over in
    memory); B or I of stage s waits likewise for stage s + 1's backward;
  - an overlapped pair (OVERLAP_F_B) runs its halves in turn.
Every compute action's start must be plan.json's, for the baseline durations
and for the planned ones, and so must both makespans. A tfc rule that waits
for more, or for less, than PyTorch's program shows up as a start that
differs. (What this does not model: a send that blocks until its receive is
posted. The lowering posts every receive before its data can arrive.)

    lowered_timing.py TFC

Specs: every built-in schedule over a grid of ranks, stages a rank and
microbatches with seeded random per-stage timings and latency, the
example specs, and custom CSVs with overlapped pairs.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import warnings

warnings.filterwarnings("ignore")
import torch  # noqa: E402
from torch.distributed.pipelining import schedules as S  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(SRC, "tools"))
from pytorch_orders import Stage  # noqa: E402  (enough of a stage for the runtime's constructor)


CT = S._ComputationType
COMPUTE = {CT.FORWARD: "F", CT.FULL_BACKWARD: "B", CT.BACKWARD_INPUT: "I", CT.BACKWARD_WEIGHT: "W"}


def lowered(csv_path, stage_rank, ranks, microbatches):
    """PyTorch's program for each rank, sends and receives included."""
    n = len(stage_rank)
    stages = [Stage(s, n, ranks, 0) for s in range(n) if stage_rank[s] == 0]
    sched = S._PipelineScheduleRuntime(stages, microbatches)
    sched._load_csv(csv_path, format="compute_only")
    return {r: [a for a in sched.pipeline_order_with_comms[r] if a is not None] for r in range(ranks)}


def replay(program, stage_rank, duration, comm):
    """Each compute action's (stage, microbatch, type) start, and the makespan,
    when every rank runs its lowered program as PyTorch's runtime does."""
    ranks = sorted(program)
    pos = {r: 0 for r in ranks}
    clock = {r: 0.0 for r in ranks}
    end = {}        # (stage, mb, type) -> end time of a compute action
    arrival = {}    # ("F"|"B", sending stage, mb) -> when the data arrives
    start = {}

    def input_ready(stage, mb, kind):
        """When a compute action's input is there; None if not yet known."""
        if kind == "F":
            if stage == 0:
                return 0.0
            if stage_rank[stage - 1] == stage_rank[stage]:
                return end.get((stage - 1, mb, "F"))
            return arrival.get(("F", stage - 1, mb))
        if kind in ("B", "I"):
            if stage == len(stage_rank) - 1:
                return 0.0
            if stage_rank[stage + 1] == stage_rank[stage]:
                e = end.get((stage + 1, mb, "B"))
                return e if e is not None else end.get((stage + 1, mb, "I"))
            return arrival.get(("B", stage + 1, mb))
        return 0.0  # W: its I is earlier on the same rank

    progress = True
    while progress:
        progress = False
        for r in ranks:
            while pos[r] < len(program[r]):
                a = program[r][pos[r]]
                parts = a.sub_actions if a.computation_type == CT.OVERLAP_F_B else (a,)
                if all(p.computation_type in COMPUTE for p in parts):
                    # Halves in turn: the second's input is checked when it starts.
                    t = clock[r]
                    ok = True
                    times = []
                    for p in parts:
                        kind = COMPUTE[p.computation_type]
                        ready = input_ready(p.stage_index, p.microbatch_index, kind)
                        if ready is None:
                            ok = False
                            break
                        t = max(t, ready)
                        times.append((p, kind, t))
                        t += duration[(p.stage_index, p.microbatch_index, kind)]
                    if not ok:
                        break
                    for p, kind, t0 in times:
                        key = (p.stage_index, p.microbatch_index, kind)
                        start[key] = t0
                        end[key] = t0 + duration[key]
                    clock[r] = t
                elif a.computation_type in (CT.SEND_F, CT.SEND_B):
                    tag = "F" if a.computation_type == CT.SEND_F else "B"
                    arrival[(tag, a.stage_index, a.microbatch_index)] = clock[r] + comm
                pos[r] += 1
                progress = True
    stuck = [r for r in ranks if pos[r] < len(program[r])]
    if stuck:
        raise AssertionError(f"replay stuck on ranks {stuck}: " +
                             ", ".join(str(program[r][pos[r]]) for r in stuck))
    return start, max(end.values())


def check(tfc, spec, tmp):
    out = os.path.join(tmp, os.path.basename(spec)[:-5])
    r = subprocess.run([tfc, "compile", spec, "-o", out, "--skip-cuda-check", "-q"], capture_output=True, text=True)
    if r.returncode:
        raise AssertionError(f"tfc compile {spec}: {r.stderr.strip()}")
    with open(os.path.join(out, "plan.json")) as f:
        plan = json.load(f)
    acts = plan["actions"]
    n = plan["stage_count"]
    stage_rank = [None] * n
    for a in acts:
        stage_rank[a["stage"]] = a["rank"]
    program = lowered(os.path.join(out, "schedule.csv"), stage_rank, plan["ranks"], plan["microbatches"])
    bad = []
    for which, dur_key, start_key, span_key in (("baseline", "baseline_duration_ms", "baseline_start_ms",
                                                 "baseline_makespan_ms"),
                                                ("planned", "duration_ms", "start_ms", "makespan_ms")):
        duration = {(a["stage"], a["microbatch"], a["type"]): a[dur_key] for a in acts}
        start, span = replay(program, stage_rank, duration, plan["comm_ms"])
        if len(start) != len(acts):
            bad.append(f"{which}: PyTorch's program runs {len(start)} compute actions, plan.json has {len(acts)}")
        for a in acts:
            key = (a["stage"], a["microbatch"], a["type"])
            got = start.get(key)
            if got is None or abs(got - a[start_key]) > 1e-9 * max(1.0, span):
                bad.append(f"{which}: {a['stage']}{a['type']}{a['microbatch']} (rank {a['rank']}) starts at "
                           f"{a[start_key]} in plan.json, {got} in PyTorch's program")
        if abs(span - plan[span_key]) > 1e-9 * max(1.0, span):
            bad.append(f"{which}: makespan {plan[span_key]} in plan.json, {span} in PyTorch's program")
    return plan, bad


def write_spec(folder, name, stages, pipeline, timing, cap):
    """folder/name.yaml: stages one-tensor stages, the pipeline and timing
    mappings' contents as given, freezing capped at cap; its path."""
    text = (f"tfc: 1\nname: {name}\nmodel:\n  stages:\n" + "    - params: [{name: w, numel: 4096}]\n" * stages +
            f"pipeline: {{{pipeline}}}\ntiming: {{{timing}}}\nfreeze: {{max_ratio: {cap}}}\n")
    path = os.path.join(folder, f"{name}.yaml")
    with open(path, "w") as fh:
        fh.write(text)
    return path


def grid_specs(folder):
    """Every built-in schedule over ranks, stages a rank and microbatches,
    with seeded random per-stage timings and latency."""
    rng = random.Random(20261207)
    shapes = []
    for p in (1, 2, 3, 4):
        for m in (1, 2, 3, 4, 5, 8, 9, 12):
            shapes += [("GPipe", p, 1, m), ("1F1B", p, 1, m), ("Interleaved1F1B", p, 2, m),
                       ("Interleaved1F1B", p, 3, m), ("LoopedBFS", p, 2, m), ("ZBH1", p, 1, m),
                       ("ZBH1", p, 2, m), ("ZBV", p, 2, m), ("DualPipeV", p, 2, m)]
    out = []
    for i, (sched, p, v, m) in enumerate(shapes):
        n = p * v
        fwd = [round(rng.uniform(0.5, 2.5), 3) for _ in range(n)]
        f = ", ".join(map(str, fwd))
        b = ", ".join(str(round(x * rng.uniform(1.6, 2.4), 3)) for x in fwd)
        bf = ", ".join(str(round(x * rng.uniform(0.3, 0.8), 3)) for x in fwd)
        bi = ", ".join(str(round(x * rng.uniform(0.7, 1.3), 3)) for x in fwd)
        bw = ", ".join(str(round(x * rng.uniform(0.5, 1.5), 3)) for x in fwd)
        timing = f"forward_ms: [{f}], backward_ms: [{b}], backward_frozen_ms: [{bf}]"
        if sched in ("ZBH1", "ZBV", "DualPipeV"):
            timing = f"forward_ms: [{f}], backward_input_ms: [{bi}], backward_weight_ms: [{bw}]"
        comm = rng.choice([0, 0.05, 0.3, 0.77])
        out.append(write_spec(folder, f"g{i}", n, f"schedule: {sched}, ranks: {p}, stages_per_rank: {v}, "
                              f"microbatches: {m}", f"{timing}, comm_ms: {comm}", rng.choice([0.3, 0.6, 0.9])))
    return out


def pair_specs(folder):
    """Custom orders with overlapped pairs where a pair's forward input and
    its backward input arrive at different times."""
    cases = {
        # Stage 2's backward input arrives late: the pair's forward must not wait for it.
        "pair_late_b": ("0F0,0F1,3F0,3B0,3F1,3B1,0B0,0B1\n1F0,2F0,(1F1;2B0)OVERLAP_F_B,2F1,2B1,1B0,1B1\n", 2, 2),
        # The forward's input arrives late: the backward half waits behind it.
        "pair_late_f": ("0F0,(0F1;0B0)OVERLAP_F_B,0B1\n1F0,1B0,1F1,1B1\n", 1, 2),
    }
    out = []
    for name, (csv, v, m) in cases.items():
        n = 2 * v
        with open(os.path.join(folder, f"{name}.csv"), "w") as fh:
            fh.write(csv)
        out.append(write_spec(folder, name, n, f"schedule: custom, ranks: 2, stages_per_rank: {v}, "
                              f"microbatches: {m}, order: {name}.csv",
                              f"forward_ms: {[1.0 + s / 4 for s in range(n)]}, "
                              f"backward_ms: {[2.0 + s / 3 for s in range(n)]}, backward_frozen_ms: {[1.0] * n}, "
                              f"comm_ms: 0.25", 0.5))
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip().split("\n\n")[2])
    tfc = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp:
        specs = grid_specs(tmp) + pair_specs(tmp)
        specs += [os.path.join(SRC, "specs", f) for f in sorted(os.listdir(os.path.join(SRC, "specs")))
                  if f.endswith(".yaml")]
        checked = refused = pairs = actions = 0
        failures = []
        for spec in specs:
            try:
                plan, bad = check(tfc, spec, tmp)
            except AssertionError as e:
                if "tfc compile" in str(e) and os.path.basename(spec).startswith("g"):
                    refused += 1  # a shape the schedule does not take (tfc refuses as PyTorch does)
                    continue
                failures.append(f"{spec}: {e}")
                continue
            checked += 1
            actions += len(plan["actions"])
            if plan["schedule"] in ("DualPipeV",) or os.path.basename(spec).startswith("pair"):
                pairs += 1
            failures += [f"{os.path.basename(spec)}: {b}" for b in bad[:5]]
        for f in failures[:40]:
            print(f"lowered_timing: {f}", file=sys.stderr)
        print(f"lowered_timing: {checked} specs ({actions} actions, {pairs} with overlapped pairs; {refused} grid shapes "
              f"refused) timed as PyTorch's lowered programs run: {'all agree' if not failures else 'DISAGREE'}")
        sys.exit(1 if failures or checked < 100 else 0)


if __name__ == "__main__":
    main()
