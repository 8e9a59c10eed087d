#!/usr/bin/env python3
"""Seeded random specs for the tests (the same specs every run).

    random_specs(count, folder)   small specs over the built-in schedules with
                                  random timings, latency and caps: the freeze
                                  LP's second opinion (tests/lp_oracle.py --random)
    varied_specs(count, folder)   every schedule kind (custom CSVs included),
                                  heterogeneous per-stage timings with decimals,
                                  several caps, per-action caps, balance modes,
                                  selection rules and tensor sizes: what the plan's
                                  arithmetic can meet (tests/crossbuild/check.sh)

    random_specs.py varied N DIR  writes varied_specs(N, DIR), prints the paths
"""
import os
import random
import sys


def random_specs(count, folder):
    """Small specs over every built-in schedule with random timings, latency
    and caps (seeded: the same specs every run)."""
    rng = random.Random(20261130)
    shapes = [("GPipe", 1), ("1F1B", 1), ("Interleaved1F1B", 2), ("ZBH1", 1), ("ZBH1", 2), ("ZBV", 2)]
    out = []
    for i in range(count):
        sched, v = shapes[i % len(shapes)]
        p = rng.randint(2, 4)
        m = p * rng.randint(1, 2) if sched != "GPipe" else rng.randint(1, 8)
        n = p * v
        fwd = [round(rng.uniform(1.0, 1.6), 3) for _ in range(n)]
        lines = [f"tfc: 1", f"name: r{i}", "model:", "  stages:"]
        lines += [f"    - params: [{{name: w, numel: 1}}]" for _ in range(n)]
        lines.append(f"pipeline: {{schedule: {sched}, ranks: {p}, stages_per_rank: {v}, microbatches: {m}}}")
        f = ", ".join(map(str, fwd))
        if sched in ("ZBH1", "ZBV"):
            w = ", ".join(str(round(x * rng.uniform(0.8, 1.2), 3)) for x in fwd)
            lines.append(f"timing: {{forward_ms: [{f}], backward_input_ms: [{f}], backward_weight_ms: [{w}], "
                         f"comm_ms: {rng.choice([0, 0.05, 0.3])}}}")
        else:
            b = ", ".join(str(round(2 * x, 3)) for x in fwd)
            lines.append(f"timing: {{forward_ms: [{f}], backward_ms: [{b}], backward_frozen_ms: [{f}], "
                         f"comm_ms: {rng.choice([0, 0.05, 0.3])}}}")
        lines.append(f"freeze: {{max_ratio: {rng.choice([0, 0.3, 0.5, 0.9, 1])}}}")
        path = os.path.join(folder, f"r{i}.yaml")
        with open(path, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        out.append(path)
    return out


# (schedule, stages per rank or None for 2-3, split backward)
_KINDS = [("GPipe", 1, False), ("1F1B", 1, False), ("Interleaved1F1B", None, False), ("LoopedBFS", None, False),
          ("ZBH1", 1, True), ("ZBV", 2, True), ("DualPipeV", 2, True), ("custom", 1, False)]


def _gpipe_csv(p, m):
    """A custom order: each rank's forwards, then its backwards (GPipe's)."""
    return "\n".join(",".join([f"{r}F{j}" for j in range(m)] + [f"{r}B{j}" for j in range(m)]) for r in range(p)) + "\n"


def varied_specs(count, folder):
    """count specs cycling through every schedule kind, seeded."""
    rng = random.Random(20261203)
    out = []
    for i in range(count):
        sched, v, split = _KINDS[i % len(_KINDS)]
        p = rng.randint(2, 4)
        v = v or rng.randint(2, 3)
        if sched == "DualPipeV":
            m = 2 * p * rng.randint(1, 2)
        elif sched in ("GPipe", "LoopedBFS", "custom"):
            m = rng.randint(1, 8) if sched != "custom" else rng.randint(2, 6)
        else:
            m = p * rng.randint(1, 2)
        n = p * v
        ms = lambda lo, hi: round(rng.uniform(lo, hi), 3)  # noqa: E731 (timings with decimals)
        fwd = [ms(0.5, 2.5) for _ in range(n)]
        lines = ["tfc: 1", f"name: v{i}", "model:", "  stages:"]
        select = rng.choice(["uniform", "front_first", "balanced", "weights"])
        for _ in range(n):
            params = []
            for j in range(rng.randint(1, 4)):
                numel = rng.choice([1, 7, 4096, rng.randint(1, 10 ** 9)])
                extra = ""
                if select == "weights":
                    extra = f", freeze_weight: {rng.choice([0, 1, round(rng.uniform(0.01, 4), 3)])}"
                params.append(f"{{name: t{j}, numel: {numel}{extra}}}")
            lines.append(f"    - params: [{', '.join(params)}]")
        pipe = f"schedule: {sched}, ranks: {p}, stages_per_rank: {v}, microbatches: {m}"
        if sched == "custom":
            csv = f"v{i}.csv"
            with open(os.path.join(folder, csv), "w") as fh:
                fh.write(_gpipe_csv(p, m))
            pipe = f"schedule: custom, ranks: {p}, microbatches: {m}, order: {csv}"
        lines.append(f"pipeline: {{{pipe}}}")
        f = ", ".join(map(str, fwd))
        comm = rng.choice([0, 0.05, 0.3, 0.123])
        if split:
            bi = ", ".join(str(round(x * rng.uniform(0.7, 1.3), 3)) for x in fwd)
            bw = [round(x * rng.uniform(0.5, 1.5), 3) for x in fwd]
            timing = f"forward_ms: [{f}], backward_input_ms: [{bi}], backward_weight_ms: [{', '.join(map(str, bw))}]"
            if rng.random() < 0.5:
                timing += f", backward_weight_frozen_ms: [{', '.join(str(round(w * rng.uniform(0.02, 0.3), 3)) for w in bw)}]"
        else:
            b = [round(x * rng.uniform(1.6, 2.4), 3) for x in fwd]
            bf = ", ".join(str(round(x * rng.uniform(0.3, 0.8), 3)) for x in b)
            timing = f"forward_ms: [{f}], backward_ms: [{', '.join(map(str, b))}], backward_frozen_ms: [{bf}]"
        lines.append(f"timing: {{{timing}, comm_ms: {comm}}}")
        freeze = [f"max_ratio: {rng.choice([0, 0.1, 0.3, 0.45, 0.5, 0.9, 1])}",
                  f"balance: {rng.choice(['none', 'minmax', 'leximin'])}", f"select: {select}",
                  f"warmup_steps: {rng.randint(0, 50)}", f"ramp_steps: {rng.randint(0, 300)}",
                  f"reselect_every: {rng.randint(1, 12)}", f"seed: {rng.randint(0, 2 ** 40)}"]
        if rng.random() < 0.3:
            freeze.append(f"max_action_ratio: {rng.choice([0.7, 0.95, 0.333])}")
        lines.append(f"freeze: {{{', '.join(freeze)}}}")
        path = os.path.join(folder, f"v{i}.yaml")
        with open(path, "w") as fh:
            fh.write("\n".join(lines) + "\n")
        out.append(path)
    return out


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] != "varied":
        sys.exit("usage: random_specs.py varied N DIR")
    for path in varied_specs(int(sys.argv[2]), sys.argv[3]):
        print(path)
