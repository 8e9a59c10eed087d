#!/usr/bin/env python3
"""torchtitan's llama3 model as tfc pipeline stages (ctest torch_torchtitan).

For each schedule: `python/tfc_spec.py from-torchtitan debugmodel` writes
the spec (4 ranks, 8 microbatches of one 64-token sequence), `tfc compile`
plans it; then 4 gloo CPU processes each build torchtitan's own llama3
debugmodel (random weights, seeded; synthetic tokens), cut their stages
out of it with torchtitan's pipeline splitter, and run one step under
torch.distributed.pipelining's runtime with tfc's schedule.csv, loaded as
torchtitan loads `parallelism.pipeline_parallel_schedule_csv`, freezing
each stage's tensors per microbatch as plan.json says at a step past the
ramp (tfc_torch.apply_plan: `requires_grad` from the plan before every
compute call, as tests/torch/pipelining_interop.py does). Checks:
  - each stage module's named_parameters() are the spec's tensors of that
    stage, in order, with their numel; spec_from_modules() over the same
    stage modules lists the same tensors;
  - PyTorch executed the compute actions of schedule.csv, in order;
  - the loss and every gradient equal a single-process run of the whole
    model, microbatch by microbatch, with the same tensors frozen; tensors
    frozen on every microbatch get no gradient; the plan froze something.

One substitution: torchtitan's llama3 configs take only flex or varlen
attention, and neither has a CPU backward, so each layer's inner attention
is torchtitan's own ScaledDotProductAttention module (causal, no
parameters); embeddings, fused QKV, RoPE, norms and the FFN are unchanged.

    torchtitan_pp.py TFC SOURCE_DIR

Needs torch and torchtitan (run.sh test installs both into .venv-torch).
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.pipelining import PipelineStage
from torch.distributed.pipelining.schedules import _PipelineScheduleRuntime

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, HERE)
import tfc_spec  # noqa: E402
import tfc_torch  # noqa: E402
from tfc_plan import Plan  # noqa: E402
from pipelining_interop import free_port, record_actions  # noqa: E402

sys.path.insert(0, os.path.join(HERE, "..", "..", "examples", "torchtitan"))
from train import stage_modules, whole_model  # noqa: E402  (the example's model, as the user runs it)

FLAVOUR = "debugmodel"
SEQ = 64
SEED = 2024
STEP = 100  # past --train-steps 20's warm-up (10) and ramp (2): the plan's full ratios
SCHEDULES = ("1F1B", "ZBH1", "GPipe")


def batch(n_mb, vocab):
    g = torch.Generator().manual_seed(SEED)
    return torch.randint(0, vocab, (n_mb, SEQ), generator=g), torch.randint(0, vocab, (n_mb, SEQ), generator=g)


def loss_fn(logits, target):
    return torch.nn.functional.cross_entropy(logits.flatten(0, 1), target.flatten(), reduction="sum")


def set_frozen(plan, module, stage, mb):
    off = set(plan.frozen_tensors(stage, mb, STEP))
    for i, p in enumerate(module.parameters()):
        p.requires_grad_(i not in off)


def reference(plan, stage_layers, n_mb, vocab):
    """The whole model in one process, microbatch by microbatch, the same
    tensors frozen; the loss and each stage's gradients, summed over the
    microbatches (torchtitan's runtime does not scale them)."""
    mods = stage_modules(whole_model(), stage_layers)
    x, y = batch(n_mb, vocab)
    total = 0.0
    for mb in range(n_mb):
        h = x[mb:mb + 1]
        for s, m in enumerate(mods):
            set_frozen(plan, m, s, mb)
            h = m(h)
        loss = loss_fn(h, y[mb:mb + 1])
        if loss.requires_grad:  # else every tensor of every stage is frozen on this microbatch
            loss.backward()
        total += loss.item()
    return total, [[p.grad for p in m.parameters()] for m in mods]


def run_rank(rank, world, port, out_dir):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    try:
        plan = Plan.load(os.path.join(out_dir, "plan.json"))
        meta = json.load(open(os.path.join(out_dir, "meta.json")))
        csv_path = os.path.join(out_dir, "schedule.csv")
        rows = list(csv.reader(open(csv_path, newline="")))
        n_stages, n_mb = len(meta["stage_layers"]), meta["microbatches"]
        mods = stage_modules(whole_model(), meta["stage_layers"])
        mine = sorted({int(a[:len(a) - len(a.lstrip("0123456789"))]) for a in rows[rank]})
        log, stages = [], []
        for s in mine:
            st = PipelineStage(mods[s], s, n_stages, torch.device("cpu"))
            record_actions(tfc_torch.apply_plan(st, plan, STEP), log)
            stages.append(st)
        # As torchtitan builds it from parallelism.pipeline_parallel_schedule_csv
        # (torchtitan/distributed/pipeline_parallel.py): unscaled gradients,
        # the CSV in the loader's default format.
        sched = _PipelineScheduleRuntime(stages, n_mb, loss_fn=loss_fn, scale_grads=False)
        sched._load_csv(csv_path)
        x, y = batch(n_mb, meta["vocab"])
        losses = []
        first, last = any(st.is_first for st in stages), any(st.is_last for st in stages)
        sched.step(*((x,) if first else ()), target=y if last else None, losses=losses if last else None)
        res = {"executed": log, "loss": float(sum(l.item() for l in losses)) if last else None,
               "grads": {str(s): [None if p.grad is None else p.grad.tolist() for p in st.submod.parameters()]
                         for s, st in zip(mine, stages)}}
        with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
            json.dump(res, f)
    finally:
        dist.destroy_process_group()


def worker(rank, *args):
    try:
        run_rank(rank, *args)
    except BaseException:
        import traceback
        print(f"rank {rank}:\n{traceback.format_exc()}", file=sys.stderr, flush=True)
        raise
    # Done and written, the process group destroyed: exit without the
    # interpreter's teardown, where gloo's threads can abort a finished rank
    # (SIGABRT, 'terminate called without an active exception').
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def spec_stages(text):
    """[[(tensor, numel)]] per stage of a spec tfc_spec.py wrote."""
    out = []
    for line in text.splitlines():
        if line.startswith("    - name: "):
            out.append([])
        elif line.startswith("        - {name: "):
            name, numel = line.strip()[len("- {name: "):-1].split(", numel: ")
            out[-1].append((name.strip('"'), int(numel)))
    return out


def check(tfc, src, sched, tmp):
    errors = []
    out = os.path.join(tmp, sched)
    spec = out + ".yaml"
    subprocess.run([sys.executable, os.path.join(src, "python", "tfc_spec.py"), "from-torchtitan", FLAVOUR,
                    "--schedule", sched, "--ranks", "4", "--microbatches", "8", "--seq-len", str(SEQ),
                    "--train-steps", "20", "--max-ratio", "0.5", "--device", "a100", "-o", spec, "-q"], check=True)
    subprocess.run([tfc, "compile", spec, "-o", out, "--skip-cuda-check", "-q"], check=True)
    text = open(spec).read()
    stage_layers = [int(v) for v in text.split("stage_layers: [")[1].split("]")[0].split(",")]
    vocab = int(text.split("vocab: ")[1].split()[0])
    plan = Plan.load(os.path.join(out, "plan.json"))
    n_mb = json.load(open(os.path.join(out, "plan.json")))["microbatches"]
    json.dump({"stage_layers": stage_layers, "microbatches": n_mb, "vocab": vocab},
              open(os.path.join(out, "meta.json"), "w"))

    mods = stage_modules(whole_model(), stage_layers)
    listed = spec_stages(text)
    for s, m in enumerate(mods):
        have = [(n, p.numel()) for n, p in m.named_parameters()]
        if have != listed[s]:
            errors.append(f"stage {s}: the module's parameters are not the spec's tensors")
    again = spec_stages(tfc_spec.spec_from_modules(mods, name="again", schedule=sched, ranks=4, microbatches=8,
                                                   seq_len=SEQ, vocab=vocab))
    if again != listed:
        errors.append("spec_from_modules lists other tensors than from-torchtitan")

    mp.start_processes(worker, args=(4, free_port(), out), nprocs=4, start_method="spawn")
    want_loss, want_grads = reference(plan, stage_layers, n_mb, vocab)
    rows = list(csv.reader(open(os.path.join(out, "schedule.csv"), newline="")))
    got_loss, seen, n_frozen, n_never = None, set(), 0, 0
    for r in range(4):
        res = json.load(open(os.path.join(out, f"rank{r}.json")))
        executed = [name for name, _ in res["executed"]]
        if executed != rows[r]:
            errors.append(f"rank {r}: PyTorch executed {','.join(executed)}, schedule.csv {','.join(rows[r])}")
        if res["loss"] is not None:
            got_loss = res["loss"]
        for s, grads in res["grads"].items():
            s = int(s)
            seen.add(s)
            for i, (g, w) in enumerate(zip(grads, want_grads[s])):
                off = sum(i in plan.frozen_tensors(s, m, STEP) for m in range(n_mb))
                n_frozen += off
                if off == n_mb:
                    n_never += 1
                    if g is not None or w is not None:
                        errors.append(f"stage {s} tensor {i}: frozen on every microbatch but has a gradient")
                    continue
                if g is None or w is None or not torch.allclose(torch.tensor(g), w, rtol=1e-4, atol=1e-6):
                    errors.append(f"stage {s} tensor {i} ({listed[s][i][0]}): gradient differs from the "
                                  "single-process model's")
    if seen != set(range(len(stage_layers))):
        errors.append(f"stages reported {sorted(seen)}")
    if got_loss is None or abs(got_loss - want_loss) > 1e-5 * max(1.0, abs(want_loss)):
        errors.append(f"loss {got_loss} != single-process {want_loss}")
    if not n_frozen:
        errors.append("the plan froze nothing: the check would not see freezing")
    print(f"torchtitan llama3 {FLAVOUR}, {sched}: {len(stage_layers)} stages of {stage_layers} layers, {n_mb} "
          f"microbatches, {n_frozen} (tensor, microbatch) gradients frozen, {n_never} tensors frozen on every "
          f"microbatch, loss {got_loss:.4f}: {'ok' if not errors else 'FAILED'}")
    for e in errors[:20]:
        print("  " + e)
    return not errors


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    ok = True
    # A tied flavour on several stages: torchtitan cannot build it, so no spec.
    tool = [sys.executable, os.path.join(sys.argv[2], "python", "tfc_spec.py"), "from-torchtitan", "1B", "-q"]
    r = subprocess.run(tool + ["--ranks", "4"], capture_output=True, text=True)
    if r.returncode != 1 or "does not build under pipeline parallelism" not in r.stderr:
        print(f"torchtitan_pp: from-torchtitan 1B on 4 ranks: exit {r.returncode}: {r.stderr[:300]}", file=sys.stderr)
        ok = False
    if subprocess.run(tool + ["--ranks", "1"], capture_output=True, text=True).returncode != 0:
        print("torchtitan_pp: from-torchtitan 1B on one rank failed", file=sys.stderr)
        ok = False
    with tempfile.TemporaryDirectory() as tmp:
        for sched in SCHEDULES:
            ok &= check(sys.argv[1], sys.argv[2], sched, tmp)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
