#!/usr/bin/env python3
"""Second opinion on tfc's freeze LP: solves the LP tfc dumps (`tfc plan
SPEC --dump-lp FILE`, format in docs/freeze-lp.md) with scipy's HiGHS, both
phases, and compares T* and the phase-2 total freezing with what tfc's own
lp_solve run reports (`tfc plan SPEC --json`, field "lp").

    lp_oracle.py TFC SPEC [SPEC ...]     exit 0 if all agree to 1e-6 relative
    lp_oracle.py TFC --random N          the same on N random small specs
    lp_oracle.py --time DUMP             print HiGHS's phase-1 solve time
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    from scipy.optimize import linprog
    from scipy.sparse import csr_matrix
except ImportError:  # ctest reads 77 as "skipped"
    print("skipped: scipy is not installed (Debian: apt-get install python3-scipy)")
    sys.exit(77)


def load(path):
    with open(path) as f:
        lp = json.load(f)
    assert lp["format"] == "tfc-freeze-lp-1"
    n = lp["cols"]
    data, indices, indptr, b = [], [], [0], []
    for row in lp["rows"]:
        sense, rhs, terms = row[0], row[1], row[2:]
        sign = -1.0 if sense == ">=" else 1.0  # linprog wants A_ub x <= b_ub
        for j in range(0, len(terms), 2):
            indices.append(terms[j])
            data.append(sign * terms[j + 1])
        indptr.append(len(indices))
        b.append(sign * rhs)
    A = csr_matrix((data, indices, indptr), shape=(len(b), n))
    bounds = [(0, None)] * n
    for c in lp["x_cols"]:
        bounds[c] = (0, 1)
    return lp, A, np.array(b), bounds


def phase1(lp, A, b, bounds):
    """min T with HiGHS; returns (T*, seconds spent in linprog)."""
    c1 = np.zeros(lp["cols"])
    c1[lp["t_col"]] = 1.0
    t0 = time.perf_counter()
    r1 = linprog(c1, A_ub=A, b_ub=b, bounds=bounds, method="highs")
    dt = time.perf_counter() - t0
    if r1.status != 0:
        raise SystemExit(f"HiGHS phase 1: {r1.message}")
    return r1.fun, dt


def solve(lp, A, b, bounds):
    n = lp["cols"]
    t_star, t1 = phase1(lp, A, b, bounds)
    bounds2 = list(bounds)
    bounds2[lp["t_col"]] = (0, t_star * (1 + lp["rel_tol"]) + lp["abs_tol"])
    c2 = np.zeros(n)
    c2[lp["x_cols"]] = 1.0
    r2 = linprog(c2, A_ub=A, b_ub=b, bounds=bounds2, method="highs")
    if r2.status != 0:
        raise SystemExit(f"HiGHS phase 2: {r2.message}")
    return t_star, r2.fun, t1


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


def close(a, b, rel=1e-6, abs_=1e-6):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + abs_


def main(argv):
    if len(argv) == 3 and argv[1] == "--time":
        t_star, dt = phase1(*load(argv[2]))
        print(f"{dt:.6f} {t_star:.17g}")
        return 0
    tfc, specs = argv[1], argv[2:]
    tmp = tempfile.TemporaryDirectory()
    if len(specs) == 2 and specs[0] == "--random":
        specs = random_specs(int(specs[1]), tmp.name)
    bad = 0
    for spec in specs:
        with tempfile.TemporaryDirectory() as d:
            dump = os.path.join(d, "lp.json")
            subprocess.run([tfc, "plan", spec, "--dump-lp", dump], check=True)
            plan = json.loads(subprocess.run([tfc, "plan", spec, "--json"], check=True, capture_output=True,
                                             text=True).stdout)
            t_star, total, _ = solve(*load(dump))
        mine = plan["lp"]
        ok = close(mine["t_star_ms"], t_star) and close(mine["total_freeze"], total)
        bad += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {os.path.basename(spec)}: T* tfc {mine['t_star_ms']:.9g} "
              f"HiGHS {t_star:.9g}; total freeze tfc {mine['total_freeze']:.9g} HiGHS {total:.9g}")
    print(f"{len(specs) - bad} passed, {bad} failed")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
