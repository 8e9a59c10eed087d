#!/usr/bin/env python3
"""tfc's schedule.csv run by PyTorch's own pipeline runtime.

For each spec: `tfc compile` it, load the folder's schedule.csv into
torch.distributed.pipelining's _PipelineScheduleRuntime (compute-only CSV,
lowered to sends and receives by PyTorch), and run one training step on
CPU processes over gloo, one per rank, with a tiny model (one Linear +
tanh per pipeline stage), freezing tensors per (stage, microbatch) the
way a trainer applies a plan: requires_grad set for that microbatch before
each of its compute calls on the stage (F, B, I and W alike: autograd
accumulates a weight gradient only if the flag is set when the backward
runs). The frozen set is a fixed rule: weight or bias by stage and
microbatch, and both on stage 0 for microbatch 0 (a first stage with
nothing to differentiate). Checks, per rank:
  - the compute actions PyTorch executed, in order, are the row tfc wrote
    (and the rank's actions in plan.json, in baseline start order);
  - the step's loss and every stage's gradients equal those of the same
    model run whole in one process (no pipeline) on the same batch with the
    same tensors frozen per microbatch; every stage is reported once.

    pipelining_interop.py TFC SPEC...

Needs torch and numpy (run.sh test installs both into .venv-torch). Exit 0 when every
spec passes.
"""
import csv
import datetime
import json
import math
import os
import socket
import subprocess
import sys
import tempfile
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.pipelining import PipelineStage
from torch.distributed.pipelining.schedules import _PipelineScheduleRuntime

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import tfc_torch  # noqa: E402

WIDTH = 8          # features of the tiny model
MB_SIZE = 2        # samples per microbatch
SEED = 1234


def stage_module(index):
    torch.manual_seed(SEED + index)
    return torch.nn.Sequential(torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh())


def batch(n_mb):
    g = torch.Generator().manual_seed(SEED)
    x = torch.randn(n_mb * MB_SIZE, WIDTH, generator=g)
    y = torch.randn(n_mb * MB_SIZE, WIDTH, generator=g)
    return x, y


def loss_fn(out, target):
    return torch.nn.functional.mse_loss(out, target, reduction="sum")


def frozen(stage, mb):
    """Tensor indices (0: weight, 1: bias) frozen for (stage, microbatch)."""
    if stage == 0 and mb == 0:
        return {0, 1}
    r = (stage + mb) % 3
    return {r} if r < 2 else set()


def set_frozen(module, stage, mb):
    for i, p in enumerate(module.parameters()):
        p.requires_grad_(i not in frozen(stage, mb))


def frozen_names(stage, mb, step):
    """frozen() as tfc_torch.apply_plan's callable form takes it: names."""
    names = [n for n, _ in stage_module(stage).named_parameters()]
    return [names[i] for i in sorted(frozen(stage, mb))]


def reference(n_stages, n_mb):
    """The whole model in one process, microbatch by microbatch with the
    same tensors frozen: the summed loss and each stage's gradients (the
    runtime scales by 1 / microbatches)."""
    mods = [stage_module(i) for i in range(n_stages)]
    x, y = batch(n_mb)
    total = 0.0
    for mb, (xm, ym) in enumerate(zip(x.chunk(n_mb), y.chunk(n_mb))):
        h = xm
        for s, m in enumerate(mods):
            set_frozen(m, s, mb)
            h = m(h)
        loss = loss_fn(h, ym) / n_mb
        loss.backward()
        total += loss.item() * n_mb
    return total, [[p.grad if p.grad is not None else torch.zeros_like(p) for p in m.parameters()] for m in mods]


def noise_terms(n_stages, n_mb):
    """Per stage, tfc_torch.NoiseScale's two sums (tr Sigma, |G|^2) from
    each microbatch's own gradient, computed here one microbatch at a time
    in one process (summed loss, as the runtime's loss_fn) with the same
    tensors frozen: what the hooks in the pipelined run must add up to."""
    mods = [stage_module(i) for i in range(n_stages)]
    x, y = batch(n_mb)
    per = [[[] for _ in m.parameters()] for m in mods]
    for mb, (xm, ym) in enumerate(zip(x.chunk(n_mb), y.chunk(n_mb))):
        h = xm
        for s, m in enumerate(mods):
            set_frozen(m, s, mb)
            m.zero_grad(set_to_none=True)
            h = m(h)
        loss_fn(h, ym).backward()
        for s, m in enumerate(mods):
            for k, p in enumerate(m.parameters()):
                if p.grad is not None:
                    per[s][k].append(p.grad.double().flatten())
    out = {}
    for s in range(n_stages):
        tr, g2, n = 0.0, 0.0, 0
        for gs in per[s]:
            m = len(gs)
            if m < 2:
                continue
            a = sum(g.pow(2).sum().item() for g in gs) / m
            big = torch.stack(gs).sum(0).pow(2).sum().item() / (m * m)
            tr += MB_SIZE * m * (a - big) / (m - 1)
            g2 += (m * big - a) / (m - 1)
            n += 1
        out[s] = (tr, g2, n)
    return out


def worker(rank, *args):
    """One rank; its traceback printed with its number (spawn reports only
    the first rank to fail, often one that lost a crashed peer)."""
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


def run_rank(rank, world, port, csv_path, n_stages, n_mb, out_dir):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    # A schedule that deadlocks fails in 2 minutes, not gloo's 30.
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=120))
    try:
        with open(csv_path, newline="") as f:
            rows = [expand(r) for r in csv.reader(f)]
        mine = sorted({_stage_of(a) for a in rows[rank]})
        log = []
        stages = []
        noise = tfc_torch.NoiseScale(MB_SIZE)
        for s in mine:
            st = PipelineStage(stage_module(s), s, n_stages, torch.device("cpu"))
            record_actions(tfc_torch.apply_plan(st, frozen_names), log)
            noise.watch(st, group=s)
            stages.append(st)
        sched = _PipelineScheduleRuntime(stages, n_mb, loss_fn=loss_fn)
        sched._load_csv(csv_path, format="compute_only")
        x, y = batch(n_mb)
        losses = []
        has_first = any(st.is_first for st in stages)
        has_last = any(st.is_last for st in stages)
        args = (x,) if has_first else ()
        sched.step(*args, target=y if has_last else None, losses=losses if has_last else None)
        result = {
            "executed": log,
            "loss": float(sum(l.item() for l in losses)) if has_last else None,
            "grads": {str(s): [(p.grad if p.grad is not None else torch.zeros_like(p)).tolist()
                               for p in st.submod.parameters()] for s, st in zip(mine, stages)},
            "noise": {str(g): v for g, v in noise.terms().items()},
        }
        with open(os.path.join(out_dir, f"rank{rank}.json"), "w") as f:
            json.dump(result, f)
    finally:
        dist.destroy_process_group()


def expand(row):
    """A CSV row's compute actions, an overlapped pair "(0F3;7B1)OVERLAP_F_B"
    (DualPipeV) as its two halves in order: what the runtime calls."""
    out = []
    for cell in row:
        if cell.startswith("("):
            assert cell.endswith(")OVERLAP_F_B"), cell
            out += [a.strip() for a in cell[1:-len(")OVERLAP_F_B")].split(";")]
        else:
            out.append(cell)
    return out


def _stage_of(action):
    i = 0
    while action[i].isdigit():
        i += 1
    return int(action[:i])


def record_actions(freezer, log):
    """Logs each compute call the runtime makes on the freezer's stage, as
    tfc's action names (F, B, I, W), into log (shared by a rank's stages,
    so it is the rank's order); with the names frozen before it."""
    freezer.calls = log
    freezer.record = True


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check_spec(tfc, spec, tmp):
    name = os.path.splitext(os.path.basename(spec))[0]
    out = os.path.join(tmp, name)
    subprocess.run([tfc, "compile", spec, "-o", out, "--skip-cuda-check", "-q"], check=True)
    csv_path = os.path.join(out, "schedule.csv")
    plan = json.load(open(os.path.join(out, "plan.json")))
    ranks, n_mb, n_stages = plan["ranks"], plan["microbatches"], len(plan["stage_params"])
    with open(csv_path, newline="") as f:
        cells = [r for r in csv.reader(f)]
    rows = [expand(r) for r in cells]
    pairs = sum(c.startswith("(") for r in cells for c in r)
    errors = []
    if len(rows) != ranks:
        errors.append(f"schedule.csv has {len(rows)} rows for {ranks} ranks")
    # plan.json's per-rank order (by planned start) is the CSV's row.
    for r in range(ranks):
        acts = sorted((a for a in plan["actions"] if a["rank"] == r), key=lambda a: a["baseline_start_ms"])
        planned = [f"{a['stage']}{a['type']}{a['microbatch']}" for a in acts]
        if planned != rows[r]:
            errors.append(f"rank {r}: plan.json's order differs from schedule.csv")
    runs = os.path.join(tmp, name + "_runs")
    os.makedirs(runs)
    mp.start_processes(worker, args=(ranks, free_port(), csv_path, n_stages, n_mb, runs), nprocs=ranks,
                       start_method="spawn")
    want_loss, want_grads = reference(n_stages, n_mb)
    want_noise = noise_terms(n_stages, n_mb)
    got_loss = None
    seen = set()
    for r in range(ranks):
        res = json.load(open(os.path.join(runs, f"rank{r}.json")))
        if [name for name, _ in res["executed"]] != rows[r]:
            errors.append(f"rank {r}: PyTorch executed {','.join(n for n, _ in res['executed'])}\n  tfc planned     {','.join(rows[r])}")
        if res["loss"] is not None:
            got_loss = res["loss"]
        for s, (tr, g2, n) in res["noise"].items():
            w = want_noise[int(s)]
            if n != w[2] or not (math.isclose(tr, w[0], rel_tol=1e-3, abs_tol=1e-9) and
                                 math.isclose(g2, w[1], rel_tol=1e-3, abs_tol=1e-6 * abs(w[0]) + 1e-9)):
                errors.append(f"stage {s}: NoiseScale's terms (tr Sigma {tr:.6g}, |G|^2 {g2:.6g}, {n} tensors) "
                              f"are not the single-process ({w[0]:.6g}, {w[1]:.6g}, {w[2]})")
        for s, grads in res["grads"].items():
            if int(s) in seen:
                errors.append(f"stage {s} reported by two ranks")
            seen.add(int(s))
            if len(grads) != len(want_grads[int(s)]):
                errors.append(f"stage {s}: {len(grads)} gradients, the model has {len(want_grads[int(s)])}")
            for g, w in zip(grads, want_grads[int(s)]):
                if not torch.allclose(torch.tensor(g), w, rtol=1e-5, atol=1e-6):
                    errors.append(f"stage {s}: gradient differs from the unpipelined model's")
    if seen != set(range(n_stages)):
        errors.append(f"stages reported: {sorted(seen)}, expected 0..{n_stages - 1}")
    if got_loss is None or abs(got_loss - want_loss) > 1e-5 * max(1.0, abs(want_loss)):
        errors.append(f"loss {got_loss} != unpipelined {want_loss}")
    n_actions = sum(len(r) for r in rows)
    print(f"{name}: {plan['schedule']}, {ranks} ranks, {n_stages} stages, {n_mb} microbatches, "
          f"{n_actions} actions{f' ({pairs} overlapped pairs, loaded as OVERLAP_F_B)' if pairs else ''}: "
          f"{'ok' if not errors else 'FAILED'}")
    for e in errors:
        print("  " + e)
    return not errors


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    tfc, specs = sys.argv[1], sys.argv[2:]
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for spec in specs:
            ok &= check_spec(tfc, spec, tmp)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
