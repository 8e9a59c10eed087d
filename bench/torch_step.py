#!/usr/bin/env python3
"""tfc's predicted step against the step PyTorch's pipeline runtime takes.

A small GPT-style model of its own (token and position embeddings, pre-norm
blocks of causal attention and a 4x MLP, a final norm and head), cut into
4 stages, one per rank, on 4 gloo CPU processes (one thread each), run by
torch.distributed.pipelining's public Schedule1F1B. Four phases, in the
same processes (so seconds apart: the machine's drift between them small):

  1. profile: tfc_torch.profile times K steps per rank with nothing frozen
     and K with everything frozen (torch.profiler; plain JSON traces, one
     per rank and mode), each mode's K steps once more without the profiler
     (profiler_scale: its own cost);
  2. plan (rank 0, the others waiting): the spec from the stage modules
     (tfc_spec.spec_from_modules, timing.source: trace over the 4 + 4
     files, timing.scale, pipeline.processors the cores when fewer than the
     ranks), `tfc compile`;
  3. run: M steps with nothing frozen and M with the plan's freezing
     (tfc_torch.apply_plan at a step past the ramp), alternating, each
     timed from a barrier to a barrier (one barrier's own time taken off);
     the medians are the measured steps;
  4. explain: K more steps of each mode under torch.profiler (the
     profiler's own cost per step; each action's real duration with the
     plan's freezing, against the plan's), the plan's order replayed on the
     machine's cores shared by the ranks (shared_step, an independent check
     of tfc's pipeline.processors), and the prediction against phase 1's
     unprofiled steps.

Prints the core count, the predicted and measured steps, and as its last line
    torch_step ranks=4 baseline_err=X speedup_pred=P speedup_meas=M
(X = measured baseline step / predicted - 1; P, M the predicted and
measured step speed-ups, baseline / frozen).

    torch_step.py TFC [--quick] [--out DIR] [--steps M] [--profile-steps K] ...
"""
import argparse
import datetime
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import tfc_spec  # noqa: E402
import tfc_torch  # noqa: E402
from tfc_plan import Plan  # noqa: E402



class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class Stage(nn.Module):
    def __init__(self, index, cfg):
        super().__init__()
        torch.manual_seed(cfg["seed"] + index)
        d = cfg["width"]
        self.first, self.last = index == 0, index == cfg["ranks"] - 1
        if self.first:
            self.tok = nn.Embedding(cfg["vocab"], d)
            self.pos = nn.Parameter(torch.randn(cfg["seq"], d) * 0.02)
        self.blocks = nn.ModuleList(Block(d, cfg["heads"]) for _ in range(cfg["layers"] // cfg["ranks"]))
        if self.last:
            self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, cfg["vocab"])

    def forward(self, x):
        h = self.tok(x) + self.pos if self.first else x
        for b in self.blocks:
            h = b(h)
        return self.head(self.norm(h)) if self.last else h


def loss_fn(logits, target):
    return F.cross_entropy(logits.flatten(0, 1), target.flatten())


def batch(cfg):
    g = torch.Generator().manual_seed(cfg["seed"])
    n = cfg["microbatches"] * cfg["mb_size"]
    return (torch.randint(0, cfg["vocab"], (n, cfg["seq"]), generator=g),
            torch.randint(0, cfg["vocab"], (n, cfg["seq"]), generator=g))


def pipeline(rank, cfg):
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B
    mod = Stage(rank, cfg)
    stage = PipelineStage(mod, rank, cfg["ranks"], torch.device("cpu"))
    sched = Schedule1F1B(stage, n_microbatches=cfg["microbatches"], loss_fn=loss_fn)
    x, y = batch(cfg)

    def step():
        mod.zero_grad(set_to_none=True)
        if rank == 0:
            sched.step(x)
        elif rank == cfg["ranks"] - 1:
            sched.step(target=y, losses=[])
        else:
            sched.step()
    return mod, stage, sched, step


def run_rank(rank, port, phase, cfg, out):
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=cfg["ranks"], timeout=datetime.timedelta(seconds=300))
    try:
        mod, stage, sched, step = pipeline(rank, cfg)
        # Profile, plan and run in the same processes, the plan compiled by
        # rank 0 while the others wait: the phases seconds apart, so the
        # machine's drift between them stays small.
        tfc_torch.profile(step, [stage], out, steps=cfg["profile_steps"], warmup=1, rank=rank, schedule=sched)
        scale = make_plan(cfg, out) if rank == 0 else None
        dist.barrier()
        plan = Plan.load(os.path.join(out, "plan", "plan.json"))
        fz = tfc_torch.apply_plan(stage, plan, plan.warmup + plan.ramp)
        times = {"none": [], "plan": []}
        for i in range(2 + cfg["steps"]):
            for mode in (("none", "plan") if i % 2 == 0 else ("plan", "none")):
                fz.override = "none" if mode == "none" else None
                dist.barrier()
                t0 = time.perf_counter()
                step()
                dist.barrier()
                if i >= 2:  # two rounds of warm-up
                    times[mode].append(time.perf_counter() - t0)
        # The same two modes again under torch.profiler, the actions labelled
        # as in the profile: the profiler's own cost per step, and each
        # action's duration as the plan's freezing really makes it.
        from torch.profiler import ProfilerActivity, profile as torch_profile
        fz.label = True
        for mode in ("none", "plan"):
            fz.override = "none" if mode == "none" else None
            step()
            with torch_profile(activities=[ProfilerActivity.CPU]) as prof:
                for _ in range(cfg["profile_steps"]):
                    dist.barrier()
                    t0 = time.perf_counter()
                    step()
                    dist.barrier()
                    times["profiled_" + mode] = times.get("profiled_" + mode, []) + [time.perf_counter() - t0]
            prof.export_chrome_trace(os.path.join(out, f"run_{mode}_rank{rank}.json"))
        fz.label = False
        barrier = []
        for _ in range(20):
            dist.barrier()
            t0 = time.perf_counter()
            dist.barrier()
            barrier.append(time.perf_counter() - t0)
        if rank == 0:
            with open(os.path.join(out, "run.json"), "w") as f:
                json.dump({"times": times, "barrier": barrier, "scale": scale}, f)
    finally:
        dist.destroy_process_group()


def worker(rank, *args):
    try:
        run_rank(rank, *args)
    except BaseException:
        print(f"rank {rank}:\n{traceback.format_exc()}", file=sys.stderr, flush=True)
        raise
    # Done and written, the process group destroyed: exit without the
    # interpreter's teardown, where gloo's threads can abort a finished rank
    # (SIGABRT, 'terminate called without an active exception').
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


# ---- the step on shared cores ----
#
# tfc's model gives every rank a processor of its own: an action takes its
# measured time whatever the other ranks do, and the step is the DAG's
# longest path. Here 4 single-threaded ranks share the machine's cores, so
# an action runs slower while more ranks than cores are busy, and a rank's
# bubble lends its core to the others. The fluid model below says what that
# does to the step: every running action progresses at min(1, cores /
# running) of its solo speed. With cores >= ranks it is tfc's model (the
# check asserts its step is then the plan's makespan).

def edges(actions):
    """The dependencies a plan's actions imply: each rank's own order (by
    start), a forward after the previous stage's forward of its microbatch,
    a backward (B or I) after the next stage's backward of it (after its own
    forward on the last stage), a weight pass W after its I."""
    key = {(a["stage"], a["type"], a["microbatch"]): i for i, a in enumerate(actions)}
    last = max(a["stage"] for a in actions)
    pred = [[] for _ in actions]
    by_rank = {}
    for i, a in enumerate(actions):
        by_rank.setdefault(a["rank"], []).append(i)
    for idx in by_rank.values():
        idx.sort(key=lambda i: (actions[i]["start_ms"], actions[i]["baseline_start_ms"]))
        for u, v in zip(idx, idx[1:]):
            pred[v].append(u)
    for i, a in enumerate(actions):
        s, t, m = a["stage"], a["type"], a["microbatch"]
        if t == "F" and s > 0:
            pred[i].append(key[(s - 1, "F", m)])
        elif t in "BI":
            nxt = [key[k] for k in ((s + 1, "B", m), (s + 1, "I", m)) if k in key] if s < last else []
            pred[i] += nxt or [key[(s, "F", m)]]
        elif t == "W":
            pred[i].append(key[(s, "I", m)])
    return pred, [by_rank[r] for r in sorted(by_rank)]


def shared_step(actions, work, cores, comm_ms=0.0):
    """The step's length when the ranks run `actions` (a plan's, in its
    per-rank order) on `cores` processors shared fairly; work[i] is action
    i's solo time (ms); a dependency between ranks waits comm_ms, using no
    core."""
    pred, ranks = edges(actions)
    done = [None] * len(actions)
    pos = [0] * len(ranks)
    rank_of = {i: r for r, idx in enumerate(ranks) for i in idx}
    left, now = {}, 0.0
    while True:
        waiting = []  # (time ready, action) of each rank's next action
        for r, idx in enumerate(ranks):
            if pos[r] < len(idx) and idx[pos[r]] not in left:
                i = idx[pos[r]]
                if all(done[p] is not None for p in pred[i]):
                    at = max([done[p] + (comm_ms if rank_of[p] != r else 0.0) for p in pred[i]], default=0.0)
                    if at <= now:
                        left[i] = float(work[i])
                    else:
                        waiting.append(at)
        if not left and not waiting:
            break
        rate = min(1.0, cores / len(left)) if left else 0.0
        dt = min([v / rate for v in left.values()] + [t - now for t in waiting])
        now += dt
        for i in list(left):
            left[i] -= dt * rate
            if left[i] <= 1e-12 * max(1.0, work[i]):
                del left[i]
                done[i] = now
                pos[rank_of[i]] += 1
    if any(d is None for d in done):
        raise ValueError("the plan's order deadlocks")
    return max(done)


def trace_samples(out, mode, ranks, prefix="trace"):
    """Each action's durations (ms) in the traces tfc_torch.profile wrote."""
    per = {}
    for r in range(ranks):
        trace = json.load(open(os.path.join(out, f"{prefix}_{mode}_rank{r}.json")))
        for e in trace["traceEvents"]:
            if e.get("ph") == "X" and e.get("name", "").startswith("PP:"):
                per.setdefault(e["name"][3:], []).append(e["dur"] / 1000.0)
    return per


def quantile(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_plan(cfg, out):
    """The spec from the stage modules and the per-rank traces in out
    (timing.source: trace, timing.scale the profiler's cost, pipeline.
    processors the cores the ranks share), compiled into out/plan; returns
    the scale (None when left out)."""
    ranks = cfg["ranks"]
    files = [f"trace_unfrozen_rank{r}.json" for r in range(ranks)]
    frozen = [f"trace_frozen_rank{r}.json" for r in range(ranks)]
    stages = [Stage(r, cfg) for r in range(ranks)]
    spec = os.path.join(out, "torch_step.yaml")
    scale = tfc_torch.profiler_scale(out) if cfg["profiler_scale"] else None
    timing = {"source": "trace", "file": files, "frozen_file": frozen}
    if scale is not None:
        timing["scale"] = scale
    text = tfc_spec.spec_from_modules(
        stages, name="torch_step", schedule="1F1B", ranks=ranks, microbatches=cfg["microbatches"],
        seq_len=cfg["seq"], microbatch_size=cfg["mb_size"], max_ratio=cfg["max_ratio"], comm_ms=0,
        timing=timing, processors=cfg["processors"] or None)
    tfc_spec.write_atomic(spec, text)
    subprocess.run([cfg["tfc"], "compile", spec, "-o", os.path.join(out, "plan"), "--skip-cuda-check", "-q",
                    "--policy", cfg["policy"]], check=True)
    return scale


def spawn(phase, cfg, out):
    mp.start_processes(worker, args=(free_port(), phase, cfg, out), nprocs=cfg["ranks"], start_method="spawn")


def explain(out, cfg, plan, run, none, frz, bar, cores):
    """Where prediction and measurement part: the profiler's own cost, the
    frozen backward's real cost, and the ranks' share of the cores."""
    ranks, acts = cfg["ranks"], plan["actions"]
    med = lambda v: statistics.median(v) * 1e3 - bar * 1e3  # noqa: E731
    p_none, p_plan = med(run["times"]["profiled_none"]), med(run["times"]["profiled_plan"])
    print(f"profiler: the same steps under torch.profiler take {p_none:.2f} ms without freezing "
          f"({p_none / none - 1:+.3f}), {p_plan:.2f} ms with the plan ({p_plan / frz - 1:+.3f})")
    name = [f"{x['stage']}{x['type']}{x['microbatch']}" for x in acts]
    real = {m: trace_samples(out, m, ranks, "run") for m in ("none", "plan")}
    got = {m: [statistics.median(real[m][n]) for n in name] for m in real}
    bwd = [i for i, x in enumerate(acts) if x["type"] in "BW"]
    for m, key in (("none", "baseline_duration_ms"), ("plan", "duration_ms")):
        fwd = [i for i in range(len(acts)) if i not in bwd]
        print(f"actions ({m}; the plan's durations are each action alone when the ranks share cores): forwards take {sum(got[m][i] for i in fwd) / sum(acts[i][key] for i in fwd):.3f}x, "
              f"backwards {sum(got[m][i] for i in bwd) / sum(acts[i][key] for i in bwd):.3f}x the plan's "
              f"durations; the plan's order with these durations, a core per rank: "
              f"{shared_step(acts, got[m], ranks):.2f} ms (measured under the profiler: "
              f"{p_none if m == 'none' else p_plan:.2f} ms)")
    # The plan's order on the shared cores: each action's solo time taken as
    # the fastest decile of its profiled samples.
    unf, frz_s = trace_samples(out, "unfrozen", ranks), trace_samples(out, "frozen", ranks)
    solo = [quantile(unf[n], 0.1) for n in name]
    solo_f = [min(quantile(frz_s[n], 0.1), u) for n, u in zip(name, solo)]
    work_p = [u - x["freeze_ratio"] * (u - f) if x["type"] in "BW" else u for x, u, f in zip(acts, solo, solo_f)]
    sb, sp = shared_step(acts, solo, cores), shared_step(acts, work_p, cores)
    print(f"shared cores: the plan's order on {cores} cores shared fairly by {ranks} ranks, each action at its "
          f"fastest decile: {sb:.2f} ms without freezing ({none / sb - 1:+.3f} measured), {sp:.2f} ms with the "
          f"plan ({frz / sp - 1:+.3f}); speed-up {sb / sp:.4f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tfc")
    ap.add_argument("--out", default=None, help="working folder (default build/torch_step or build/torch_step_quick)")
    ap.add_argument("--quick", action="store_true", help="the CI size: fewer, shorter steps")
    ap.add_argument("--steps", type=int, help="measured steps per mode (default 20; --quick 6)")
    ap.add_argument("--profile-steps", type=int, help="profiled steps per mode (default 5; --quick 3)")
    ap.add_argument("--ranks", type=int, default=4, help="pipeline ranks, one stage each (default 4)")
    ap.add_argument("--microbatches", type=int, default=8)
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--width", type=int, help="model width (default 192; --quick 128)")
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--mb-size", type=int, default=4, help="sequences per microbatch")
    ap.add_argument("--max-ratio", type=float, default=0.9)
    ap.add_argument("--processors", type=int, default=None,
                    help="pipeline.processors in the spec (default: the cores when fewer than the ranks; "
                         "0: none, a processor per rank)")
    ap.add_argument("--policy", default="timely", choices=("timely", "uniform"),
                    help="tfc compile --policy (default timely)")
    ap.add_argument("--no-profiler-scale", action="store_true",
                    help="leave timing.scale out (the profiler's own cost stays in the durations)")
    a = ap.parse_args()
    q = a.quick
    cfg = {"seed": 1234, "vocab": 256, "heads": 4, "layers": a.layers, "seq": a.seq, "mb_size": a.mb_size,
           "microbatches": a.microbatches, "width": a.width or (128 if q else 192), "ranks": a.ranks,
           "steps": a.steps or (6 if q else 20), "profile_steps": a.profile_steps or (3 if q else 5)}
    ranks = cfg["ranks"]
    if ranks < 2 or cfg["layers"] % ranks:
        sys.exit("torch_step.py: --ranks must be at least 2 and divide --layers")
    out = os.path.abspath(a.out or os.path.join(HERE, "..", "build", "torch_step_quick" if q else "torch_step"))
    os.makedirs(out, exist_ok=True)
    # Nothing of an earlier run may be read as this one's.
    for name in os.listdir(out):
        if re.match(r"(trace|run)_.*\.json$|run\.json$|torch_step\.yaml$", name):
            os.remove(os.path.join(out, name))
    shutil.rmtree(os.path.join(out, "plan"), ignore_errors=True)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"torch_step: torch {torch.__version__}, {cores} cores for {ranks} ranks of 1 thread each; "
          f"{cfg['layers']} layers of width {cfg['width']}, {cfg['microbatches']} microbatches of "
          f"{cfg['mb_size']}x{cfg['seq']} tokens", flush=True)

    cfg.update(tfc=os.path.abspath(a.tfc), max_ratio=a.max_ratio, profiler_scale=not a.no_profiler_scale,
               policy=a.policy,
               processors=a.processors if a.processors is not None else (cores if cores < ranks else 0))
    procs = cfg["processors"]
    t0 = time.time()
    spawn("all", cfg, out)
    plan = json.load(open(os.path.join(out, "plan", "plan.json")))
    run = json.load(open(os.path.join(out, "run.json")))
    scale = run["scale"]
    print(f"torch_step: profiled, planned and run in {time.time() - t0:.0f} s", flush=True)
    bar = statistics.median(run["barrier"])
    none = (statistics.median(run["times"]["none"]) - bar) * 1e3
    frz = (statistics.median(run["times"]["plan"]) - bar) * 1e3
    spread = {k: (min(v) * 1e3, max(v) * 1e3) for k, v in run["times"].items()}
    pb, pf = plan["baseline_makespan_ms"], plan["makespan_ms"]
    print(f"a processor per rank: {pb:.2f} ms a step without freezing, {pf:.2f} ms with the plan "
          f"(speed-up {pb / pf:.4f})")
    if "shared" in plan:
        pb, pf = plan["shared"]["baseline_makespan_ms"], plan["shared"]["makespan_ms"]
    where = f"on {procs} processors shared by {ranks} ranks" if "shared" in plan else "a processor per rank"
    print(f"predicted ({where}; timing.scale {scale if scale is not None else 1:.4f}, the profiler's cost taken "
          f"off): {pb:.2f} ms a step without freezing, {pf:.2f} ms with the plan (cap {a.max_ratio:g})")
    print(f"measured (median of {cfg['steps']}, one barrier of {bar * 1e3:.2f} ms taken off): {none:.2f} ms "
          f"[{spread['none'][0]:.1f}, {spread['none'][1]:.1f}] without freezing, {frz:.2f} ms "
          f"[{spread['plan'][0]:.1f}, {spread['plan'][1]:.1f}] with it")
    explain(out, cfg, plan, run, none, frz, bar, cores)
    # The same prediction against the profile's own steps without the
    # profiler (back to back, a minute earlier, in the processes that
    # traced): what is left once the machine's drift between the phases is.
    prof_steps = [json.load(open(os.path.join(out, f"trace_steps_rank{r}.json"))) for r in range(ranks)]
    p_un = statistics.median(statistics.median(x["unfrozen"]["unprofiled_ms"]) for x in prof_steps)
    p_fz = statistics.median(statistics.median(x["frozen"]["unprofiled_ms"]) for x in prof_steps)
    print(f"same phase: the profile's steps without the profiler took {p_un:.2f} ms with nothing frozen "
          f"(prediction {p_un / pb - 1:+.3f} off them; this run's steps {none / p_un - 1:+.3f} off them: the machine's "
          f"drift between the phases and the barriers), {p_fz:.2f} ms with everything frozen")
    # The runtime's own work outside the actions (its Python between them,
    # gloo, zero_grad): the ranks' CPU time a step against the actions'
    # time alone as planned (everything frozen: each backward at ratio 1,
    # w_min = d - (d - duration) / ratio).
    acts = plan["actions"]
    alone_un = sum(x["baseline_duration_ms"] for x in acts)
    alone_fz = sum(x["baseline_duration_ms"] - (x["baseline_duration_ms"] - x["duration_ms"]) / x["freeze_ratio"]
                   if x["type"] == "B" and x["freeze_ratio"] > 0 else x["baseline_duration_ms"] for x in acts)
    cpu_un = sum(x["unfrozen"].get("unprofiled_cpu_ms", 0) for x in prof_steps)
    cpu_fz = sum(x["frozen"].get("unprofiled_cpu_ms", 0) for x in prof_steps)
    print(f"outside the actions: the ranks' CPU time a step without the profiler {cpu_un:.1f} ms with nothing "
          f"frozen against the actions' {alone_un:.1f} ms alone ({cpu_un / alone_un - 1:+.3f}), {cpu_fz:.1f} ms "
          f"with everything frozen against {alone_fz:.1f} ms ({cpu_fz / alone_fz - 1:+.3f})")
    print(f"files: {out} (torch_step.yaml, the traces, plan/)")
    print(f"torch_step ranks={ranks} baseline_err={none / pb - 1:.4f} speedup_pred={pb / pf:.4f} "
          f"speedup_meas={none / frz:.4f}")


if __name__ == "__main__":
    main()
