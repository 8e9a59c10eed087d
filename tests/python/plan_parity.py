#!/usr/bin/env python3
"""python/tfc_plan.py against the generated C: every mask and ratio in
vendor_default's dump (tests/codegen/vendor_default.c), recomputed from the
folder's plan.json by the Python loader, must be identical.

    plan_parity.py DUMP PLAN_JSON
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
from tfc_plan import Plan  # noqa: E402

plan = Plan.load(sys.argv[2])
bad = masks = ratios = 0
for line in open(sys.argv[1]):
    f = line.split()
    if f[0] == "mask":
        s, m, step, frozen = int(f[1]), int(f[2]), int(f[3]), int(f[4])
        words = [int(w, 16) for w in f[5:]]
        got = plan.frozen_tensors(s, m, step)
        want = [i for i in range(64 * len(words)) if words[i // 64] >> (i % 64) & 1]
        n = sum(plan.params[s][i][1] for i in got)
        if got != want or n != frozen:
            print(f"mask differs at {s} {m} {step}", file=sys.stderr)
            bad += 1
        masks += 1
    elif f[0] == "ratio_at":
        s, m, step, r = int(f[1]), int(f[2]), int(f[3]), float(f[4])
        if plan.freeze_ratio(s, m, step) != r:
            print(f"ratio differs at {s} {m} {step}", file=sys.stderr)
            bad += 1
        ratios += 1
print(f"plan_parity: {masks} masks and {ratios} ratios from python/tfc_plan.py against the generated C, "
      f"{bad} differences")
sys.exit(1 if bad or not masks else 0)
