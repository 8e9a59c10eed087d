#!/usr/bin/env python3
"""torchtitan's llama3 trained with a tfc plan on 4 CPU processes (gloo).

The whole flow a PyTorch user follows (README.md beside this file):

  1. profile: torchtitan's llama3 debugmodel, cut into 4 pipeline stages
     with torchtitan's splitter, run by torch.distributed.pipelining with
     nothing and with everything frozen under torch.profiler
     (tfc_torch.profile: one trace per rank and mode);
  2. plan: tfc_spec.spec_from_modules writes the spec from the stage
     modules, its timings the traces (timing.source: trace); `tfc compile`
     writes the folder (schedule.csv, plan.json, the C and CUDA);
  3. train: N steps of AdamW on a small synthetic corpus, the pipeline run
     from tfc's schedule.csv as torchtitan loads
     `parallelism.pipeline_parallel_schedule_csv`, once without freezing and
     once with the plan (tfc_torch.apply_plan: requires_grad per stage and
     microbatch before every compute call). Per step: loss, step time and
     the share of (tensor element, microbatch) gradients frozen.

    train.py TFC [--steps N] [--schedule 1F1B|ZBH1|GPipe] [--max-ratio R]
                 [--out DIR] [--only none|plan]

Needs torch and torchtitan (./run.sh test installs both into .venv-torch).
torchtitan's llama3 configs take flex or varlen attention, neither with a
CPU backward, so each layer's inner attention is torchtitan's own
ScaledDotProductAttention (causal, no parameters); everything else is
torchtitan's model.
"""
import argparse
import datetime
import json
import os
import socket
import subprocess
import sys
import time
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import tfc_spec  # noqa: E402
import tfc_torch  # noqa: E402
from tfc_plan import Plan  # noqa: E402

FLAVOUR = "debugmodel"
RANKS = 4
SEQ = 64
MICROBATCHES = 8
SEED = 2024


def whole_model(flavour=FLAVOUR, seed=SEED):
    """torchtitan's llama3 flavour, seeded, with CPU-trainable attention."""
    from torchtitan.models.common.attention import ScaledDotProductAttention
    from torchtitan.models.llama3 import llama3_configs
    torch.manual_seed(seed)
    model = llama3_configs[flavour]("flex").build()
    for layer in model.layers.values():
        layer.attention.inner_attention = ScaledDotProductAttention(ScaledDotProductAttention.Config())
    model.init_weights()
    return model


def stage_modules(model, stage_layers):
    """The stages as torchtitan's pipeline splitter cuts them."""
    from torchtitan.distributed.pipeline_parallel import _split_module
    out, i = [], 0
    for s, c in enumerate(stage_layers):
        names = [f"layers.{k}" for k in range(i, i + c)]
        if s == 0:
            names = ["tok_embeddings"] + names
        if s == len(stage_layers) - 1:
            names += ["norm", "lm_head"]
        out.append(_split_module(model, names))
        i += c
    return out


def stage_layers():
    return tfc_spec.split_layers(tfc_spec.torchtitan_model(FLAVOUR), RANKS, "layers")


def corpus(vocab, steps):
    """One batch a step of a synthetic language the model can learn: each
    sequence starts at a random token and follows t' = (5 t + 3) mod vocab,
    with one token in eight replaced by a random one (so the loss falls
    fast, then levels off above zero)."""
    g = torch.Generator().manual_seed(SEED)
    out = []
    for _ in range(steps):
        seq = torch.empty(MICROBATCHES, SEQ + 1, dtype=torch.long)
        seq[:, 0] = torch.randint(0, vocab, (MICROBATCHES,), generator=g)
        for i in range(1, SEQ + 1):
            seq[:, i] = (5 * seq[:, i - 1] + 3) % vocab
        noise = torch.rand(MICROBATCHES, SEQ + 1, generator=g) < 0.125
        seq[noise] = torch.randint(0, vocab, (int(noise.sum()),), generator=g)
        out.append((seq[:, :-1], seq[:, 1:]))
    return out


def loss_fn(logits, target):
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), target.flatten())


def pipeline(rank, layers, csv_path):
    """This rank's stage (one per rank here) run by torch's runtime from
    tfc's schedule.csv, as torchtitan loads it."""
    from torch.distributed.pipelining import PipelineStage
    from torch.distributed.pipelining.schedules import _PipelineScheduleRuntime
    mods = stage_modules(whole_model(), layers)
    stage = PipelineStage(mods[rank], rank, RANKS, torch.device("cpu"))
    sched = _PipelineScheduleRuntime([stage], MICROBATCHES, loss_fn=loss_fn)
    sched._load_csv(csv_path)
    return mods[rank], stage, sched


def run_step(rank, sched, x, y):
    losses = []
    if rank == 0:
        sched.step(x)
    elif rank == RANKS - 1:
        sched.step(target=y, losses=losses)
    else:
        sched.step()
    return float(sum(l.item() for l in losses) / len(losses)) if losses else None


def rank_main(rank, port, phase, args, out):
    torch.set_num_threads(1)
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=RANKS, timeout=datetime.timedelta(seconds=300))
    try:
        layers = stage_layers()
        vocab = whole_model().tok_embeddings.num_embeddings
        if phase == "profile":
            mod, stage, sched = pipeline(rank, layers, os.path.join(out, "estimate", "schedule.csv"))
            x, y = corpus(vocab, 1)[0]

            def step():
                mod.zero_grad(set_to_none=True)
                run_step(rank, sched, x, y)
            tfc_torch.profile(step, [stage], out, steps=args.profile_steps, rank=rank, schedule=sched)
            return
        mod, stage, sched = pipeline(rank, layers, csv_path=os.path.join(out, "plan", "schedule.csv"))
        plan = Plan.load(os.path.join(out, "plan", "plan.json"))
        fz = tfc_torch.apply_plan(stage, plan, 0)
        if phase == "none":
            fz.override = "none"
        opt = torch.optim.AdamW(mod.parameters(), lr=args.lr)
        numel = {n: p.numel() for n, p in mod.named_parameters()}
        total = sum(numel.values())
        log = []
        for s, (x, y) in enumerate(corpus(vocab, args.steps)):
            fz.step = s
            frozen = sum(numel[n] for m in range(MICROBATCHES) for n in fz.frozen(m))
            opt.zero_grad(set_to_none=True)
            dist.barrier()
            t0 = time.perf_counter()
            loss = run_step(rank, sched, x, y)
            dist.barrier()
            ms = (time.perf_counter() - t0) * 1e3
            opt.step()  # a tensor no microbatch computed has .grad None: AdamW skips it
            shares = [None] * RANKS
            dist.all_gather_object(shares, (frozen, total * MICROBATCHES, loss))
            if rank == 0:
                share = sum(f for f, _, _ in shares) / sum(t for _, t, _ in shares)
                loss = shares[-1][2]
                log.append({"step": s, "loss": loss, "step_ms": ms, "frozen_share": share})
                print(f"{phase:>4} step {s:3d}: loss {loss:.4f}, step {ms:7.1f} ms, frozen share {share:.3f}",
                      flush=True)
        if rank == 0:
            with open(os.path.join(out, f"train_{phase}.json"), "w") as f:
                json.dump(log, f)
        dist.barrier()  # every rank done before any tears its connections down
    finally:
        dist.destroy_process_group()


def worker(rank, *a):
    try:
        rank_main(rank, *a)
    except BaseException:
        print(f"rank {rank}:\n{traceback.format_exc()}", file=sys.stderr, flush=True)
        raise
    # Done and written, the process group destroyed: exit without the
    # interpreter's teardown, where gloo's threads can abort a finished rank
    # (SIGABRT, 'terminate called without an active exception').
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def spawn(phase, args, out):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.start_processes(worker, args=(port, phase, args, out), nprocs=RANKS, start_method="spawn")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tfc", help="the tfc binary (build/tfc)")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--schedule", default="1F1B", choices=("1F1B", "ZBH1", "GPipe"))
    ap.add_argument("--max-ratio", type=float, default=0.5)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--profile-steps", type=int, default=5)
    ap.add_argument("--only", choices=("none", "plan"), help="train one way only")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless both runs' losses are equal up to the first frozen step, the plan froze "
                         "something within its cap after it, and both losses fell (ctest torch_torchtitan_example)")
    ap.add_argument("--out", default=os.path.join(HERE, "..", "..", "build", "torchtitan_example"))
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)

    t0 = time.time()
    model = whole_model()
    mods = stage_modules(model, stage_layers())

    # Ranks as CPU processes on fewer cores than ranks share them: the spec
    # says so (pipeline.processors), and tfc times the step on them.
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    processors = cores if cores < RANKS else None

    def spec(name, timing):
        path = os.path.join(out, name + ".yaml")
        tfc_spec.write_atomic(path, tfc_spec.spec_from_modules(
            mods, name="llama3_debug", schedule=args.schedule, ranks=RANKS, microbatches=MICROBATCHES,
            seq_len=SEQ, max_ratio=args.max_ratio, train_steps=args.steps,
            vocab=model.tok_embeddings.num_embeddings, timing=timing, processors=processors))
        subprocess.run([args.tfc, "compile", path, "-o", os.path.join(out, name), "--skip-cuda-check", "-q"],
                       check=True)
        return path

    # The schedule to profile: tfc's, from a first spec with estimated
    # timings (the order does not depend on them for these schedules).
    spec("estimate", None)
    spawn("profile", args, out)
    files = {m: [f"trace_{m}_rank{r}.json" for r in range(RANKS)] for m in ("unfrozen", "frozen")}
    # timing.scale: the profiler's own cost, measured by tfc_torch.profile.
    path = spec("plan", {"source": "trace", "file": files["unfrozen"], "frozen_file": files["frozen"],
                         "scale": tfc_torch.profiler_scale(out)})
    plan = json.load(open(os.path.join(out, "plan", "plan.json")))
    print(f"profiled ({args.profile_steps} steps per mode) and planned in {time.time() - t0:.0f} s: {path}")
    step = plan.get("shared", plan)
    where = f" on the {processors} cores the {RANKS} ranks share" if "shared" in plan else ""
    print(f"tfc predicts{where} {step['baseline_makespan_ms']:.1f} ms a step without freezing, "
          f"{step['makespan_ms']:.1f} ms with it ({step['speedup']:.3f}x), freezing from step "
          f"{plan['freeze']['warmup_steps']}", flush=True)
    for phase in ("none", "plan"):
        if args.only in (None, phase):
            spawn(phase, args, out)
    done = {p: json.load(open(os.path.join(out, f"train_{p}.json"))) for p in ("none", "plan")
            if os.path.exists(os.path.join(out, f"train_{p}.json")) and args.only in (None, p)}
    warm = plan["freeze"]["warmup_steps"] + plan["freeze"]["ramp_steps"]
    for p, log in done.items():
        late = sorted(r["step_ms"] for r in log[warm:]) or [float("nan")]
        print(f"{'without freezing' if p == 'none' else 'with the plan':>16}: final loss {log[-1]['loss']:.4f}, "
              f"median step {late[len(late) // 2]:.1f} ms after step {warm}")
    if args.check:
        return check(done, args.max_ratio)
    return 0


def check(done, cap):
    """The runs agree until freezing starts (same seeds, same arithmetic),
    the plan then freezes a share within its cap, and both learn."""
    errors = []
    none, frz = done.get("none"), done.get("plan")
    if none is None or frz is None:
        return print("--check needs both runs") or 1
    first = next((r["step"] for r in frz if r["frozen_share"] > 0), None)
    if first is None:
        errors.append("the plan froze nothing in the run: make --steps longer than the warm-up and ramp")
    else:
        same = all(a["loss"] == b["loss"] for a, b in zip(none[:first], frz[:first]))
        if not same:
            errors.append(f"the losses differ before the first frozen step {first}")
        if any(r["frozen_share"] > cap + 1e-9 for r in frz):
            errors.append(f"a frozen share above the cap {cap}")
        # A frozen step's loss comes before its update: the next one differs.
        if first + 1 < len(frz) and all(a["loss"] == b["loss"] for a, b in zip(none[first + 1:], frz[first + 1:])):
            errors.append("the losses after the first frozen step are those of the run without freezing")
    for name, log in (("without freezing", none), ("with the plan", frz)):
        if not log[-1]["loss"] < log[0]["loss"]:
            errors.append(f"{name}: the loss did not fall ({log[0]['loss']:.4f} to {log[-1]['loss']:.4f})")
    for e in errors:
        print("check: " + e)
    print("check: " + ("ok" if not errors else "FAILED"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
