#!/usr/bin/env python3
"""Apply a tfc plan in a PyTorch training loop (examples/pytorch_freeze).

The model is a stack of pipeline stages (here run in one process, one
microbatch after another); before a stage's forward on microbatch m at
step t, each of its parameter tensors gets requires_grad = False when the
plan freezes it for (stage, m, t), True otherwise. A frozen tensor then
gets no weight gradient from that microbatch (autograd skips that work)
while the gradient still flows through the stage to the ones before it.

    train.py PLAN_JSON [--steps N] [--lr LR] [--check]

PLAN_JSON: plan.json of `tfc compile examples/pytorch_freeze/tiny.yaml`.
--check: every step, also compute each microbatch's full gradient and
verify that the accumulated gradient of every tensor is the sum over the
microbatches that did not freeze it; that each (stage, microbatch)'s frozen
share is at most the plan's ratio and short of it by less than one tensor;
and at the end that the loss went down. Exit 1 on any difference.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
from tfc_plan import Plan  # noqa: E402

WIDTH = 32
MB_SIZE = 16


LAYERS = 4


def make_stage():
    layers = []
    for _ in range(LAYERS):
        layers += [torch.nn.Linear(WIDTH, WIDTH), torch.nn.Tanh()]
    return torch.nn.Sequential(*layers)


def check_shapes(plan, stages):
    """The plan's parameter tables must be the model's, name for name."""
    if len(plan.params) != len(stages):
        sys.exit(f"train.py: the plan has {len(plan.params)} stages, the model {len(stages)}")
    for s, stage in enumerate(stages):
        have = [(n, p.numel()) for n, p in stage.named_parameters()]
        if have != plan.params[s]:
            sys.exit(f"train.py: stage {s}: the plan's tensors {plan.params[s]} are not the model's {have}")


def forward(stages, x, frozen=None):
    """Runs x through the stages; frozen[s]: tensor indices to freeze."""
    h = x
    for s, stage in enumerate(stages):
        for i, p in enumerate(stage.parameters()):
            p.requires_grad_(frozen is None or i not in frozen[s])
        h = stage(h)
    return h


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("plan")
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--lr", type=float, default=0.5)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()

    plan = Plan.load(args.plan)
    n_mb = plan.data["microbatches"]
    torch.manual_seed(0)
    stages = [make_stage() for _ in plan.params]
    check_shapes(plan, stages)
    teacher = torch.nn.Sequential(*[make_stage() for _ in plan.params])
    for p in teacher.parameters():
        p.requires_grad_(False)
    params = [p for st in stages for p in st.parameters()]
    opt = torch.optim.SGD(params, lr=args.lr)
    bad = 0
    losses = []
    for step in range(args.steps):
        x = torch.randn(n_mb * MB_SIZE, WIDTH)
        y = teacher(x)
        frozen = [[set(plan.frozen_tensors(s, m, step)) for s in range(len(stages))] for m in range(n_mb)]
        if args.check:
            # Each microbatch's full gradient, nothing frozen.
            full = []
            for m, (xm, ym) in enumerate(zip(x.chunk(n_mb), y.chunk(n_mb))):
                opt.zero_grad(set_to_none=True)
                (torch.nn.functional.mse_loss(forward(stages, xm), ym) / n_mb).backward()
                full.append([p.grad.clone() for p in params])
        opt.zero_grad(set_to_none=True)
        total = 0.0
        for m, (xm, ym) in enumerate(zip(x.chunk(n_mb), y.chunk(n_mb))):
            loss = torch.nn.functional.mse_loss(forward(stages, xm, frozen[m]), ym) / n_mb
            if loss.requires_grad:  # False when the plan freezes every tensor for m
                loss.backward()
            total += loss.item()
        frozen_numel = sum(plan.params[s][i][1] for m in range(n_mb) for s in range(len(stages)) for i in frozen[m][s])
        planned = sum(plan.freeze_ratio(s, m, step) * sum(n for _, n in plan.params[s])
                      for m in range(n_mb) for s in range(len(stages)))
        n_weights = n_mb * sum(p.numel() for p in params)
        if args.check:
            k = 0
            for s, stage in enumerate(stages):
                for i, p in enumerate(stage.parameters()):
                    want = sum((full[m][k] for m in range(n_mb) if i not in frozen[m][s]), torch.zeros_like(p))
                    got = p.grad if p.grad is not None else torch.zeros_like(p)
                    if not torch.allclose(got, want, rtol=1e-5, atol=1e-7):
                        print(f"step {step}: stage {s} tensor {i}: gradient is not the unfrozen microbatches' sum")
                        bad += 1
                    k += 1
            for m in range(n_mb):
                for s in range(len(stages)):
                    numel = [n for _, n in plan.params[s]]
                    f = sum(numel[i] for i in frozen[m][s]) / sum(numel)
                    r = plan.freeze_ratio(s, m, step)
                    smallest = min((numel[i] for i in range(len(numel)) if i not in frozen[m][s]), default=0)
                    # Every rule stays within the ratio; the draws of one
                    # microbatch alone also fill it to within the smallest
                    # tensor left out (balanced leaves each tensor one free
                    # microbatch instead: checked per step below).
                    short = plan.select != "balanced" and (r - f) * sum(numel) >= max(smallest, 1)
                    if f > r + 1e-12 or short:
                        print(f"step {step}: ({s}, {m}) frozen share {f:.4f} against ratio {r:.4f}")
                        bad += 1
            if plan.select == "balanced":
                for s in range(len(stages)):
                    everywhere = set.intersection(*(frozen[m][s] for m in range(n_mb)))
                    if everywhere and any(plan.freeze_ratio(s, m, step) < 1 for m in range(n_mb)):
                        print(f"step {step}: stage {s} tensors {sorted(everywhere)} frozen on every microbatch")
                        bad += 1
        opt.step()
        losses.append(total)
        print(f"step {step:3d}  loss {total:.6f}  weight gradients frozen {frozen_numel / n_weights:.3f}"
              f" (the plan's ratios: {planned / n_weights:.3f})")
    for p in params:
        p.requires_grad_(True)
    if args.check and not (len(losses) < 2 or losses[-1] < losses[0]):
        print(f"the loss did not go down: {losses[0]:.6f} -> {losses[-1]:.6f}")
        bad += 1
    if args.check:
        print("check: " + ("ok" if not bad else f"{bad} differences"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
