#!/usr/bin/env python3
"""tfc_torch.NoiseScale against the exact noise scale (ctest torch_noise).

A small model (two Linear layers, tanh) on a fixed synthetic dataset of N
samples, at fixed parameters. The exact B_simple = tr(Sigma) / |G|^2 comes
from every sample's own gradient (G their mean, Sigma their covariance).
The estimator sees only what a training loop has: steps of M microbatches
of b samples drawn with replacement, each microbatch's backward
accumulating into .grad (loss averaged over the microbatch, the way most
loops write it); it must land within 10% of the exact value. Checked at
two batch regimes (B_simple below and above the step's batch) and with
summed instead of averaged losses (the estimate must not change: a
gradient's scale cancels), and its `training` keys.

    noise_check.py
"""
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import tfc_torch  # noqa: E402

N, D, H = 512, 6, 12


def dataset(noise, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(N, D, generator=g, dtype=torch.float64)
    w = torch.randn(D, 1, generator=g, dtype=torch.float64)
    y = torch.tanh(x @ w) + noise * torch.randn(N, 1, generator=g, dtype=torch.float64)
    return x, y


def model(seed):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(D, H), torch.nn.Tanh(), torch.nn.Linear(H, 1)).double()


def exact(m, x, y):
    grads = []
    for i in range(N):
        m.zero_grad(set_to_none=True)
        torch.nn.functional.mse_loss(m(x[i:i + 1]), y[i:i + 1]).backward()
        grads.append(torch.cat([p.grad.flatten() for p in m.parameters()]))
    g = torch.stack(grads)
    mean = g.mean(0)
    tr_sigma = ((g - mean) ** 2).sum(1).mean().item()
    m.zero_grad(set_to_none=True)
    return tr_sigma / mean.pow(2).sum().item()


def estimate(m, x, y, b, mbs, steps, reduction, seed):
    ns = tfc_torch.NoiseScale(b).watch(m, group="model")
    g = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        m.zero_grad(set_to_none=True)
        for _ in range(mbs):
            i = torch.randint(0, N, (b,), generator=g)
            loss = torch.nn.functional.mse_loss(m(x[i]), y[i], reduction=reduction)
            (loss / mbs if reduction == "mean" else loss).backward()
        ns.step()
    ns.close()
    return ns


def main():
    errors = []
    for noise, b, mbs, steps in ((0.05, 4, 4, 400), (1.0, 4, 4, 400)):
        x, y = dataset(noise, 7)
        m = model(3)
        want = exact(m, x, y)
        for reduction in ("mean", "sum"):
            ns = estimate(m, x, y, b, mbs, steps, reduction, 11)
            got = ns.b_simple
            err = got / want - 1
            print(f"label noise {noise}: exact B_simple {want:.2f} samples (the step's batch {b * mbs}), "
                  f"estimated {got:.2f} over {steps} steps, loss {reduction}: {err:+.1%}")
            if not abs(err) <= 0.10:
                errors.append(f"noise {noise}, {reduction}: estimate {got:.3f} is {err:+.1%} from {want:.3f}")
            if ns.groups() != {"model": ns.b_simple}:
                errors.append(f"groups() {ns.groups()} is not the one group's total")
        text = ns.training_yaml(steps=100)
        keys = dict(line.strip().split(": ") for line in text.splitlines()[1:])
        if int(keys["batch_tokens"]) != b * mbs or not math.isclose(float(keys["noise_scale_tokens"]), got,
                                                                     rel_tol=1e-5):
            errors.append(f"training_yaml gives {keys}, expected batch {b * mbs} and {got}")
    for e in errors:
        print("  " + e)
    print("noise_check: " + ("ok" if not errors else "FAILED"))
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main())
