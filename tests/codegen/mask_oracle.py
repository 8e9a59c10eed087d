#!/usr/bin/env python3
"""An independent implementation of the frozen-mask rule (docs/codegen.md),
checked against what the generated C code answered (vendor_default's dump).

It also checks the dump's inputs against their sources, not against the
generated code: tensor sizes and names against the spec's text, ratios
against `tfc plan --json`.

    mask_oracle.py DUMP SPEC PLAN_JSON      exit 0 when everything agrees
"""
import json
from math import gcd
import re
import sys

M64 = (1 << 64) - 1


def mix(z):
    z = (z + 0x9E3779B97F4A7C15) & M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M64
    return z ^ (z >> 31)


def key(seed, stage, mb, window):
    return mix(mix(mix(mix(seed) ^ stage) ^ mb) ^ window)


def ramp_q(q, step, warmup, ramp):
    if step < warmup:
        return 0
    k = step - warmup
    if k >= ramp:
        return q
    # The generated code halves both until ramp fits 31 bits; exact
    # arithmetic here, then the same halving to match it.
    while ramp > 0x80000000:
        ramp >>= 1
        k >>= 1
    return q * k // ramp


def select(numel, q, k):
    n = len(numel)
    total = sum(numel)
    frozen_set = []
    if n == 0 or q == 0:
        return 0, frozen_set
    target = total * q >> 32  # exact: the C code's split product is exact too
    r = mix(k)
    pos = r % n
    stride = 1
    if n > 1:
        stride = 1 + mix(r) % (n - 1)
        while gcd(stride, n) != 1:
            stride = stride % (n - 1) + 1
    frozen = 0
    for _ in range(n):
        if frozen >= target:
            break
        if numel[pos] <= target - frozen:
            frozen += numel[pos]
            frozen_set.append(pos)
        pos = (pos + stride) % n
    return frozen, frozen_set


def main():
    dump, spec_path, plan_path = sys.argv[1:4]
    consts = None
    params = {}
    ratios = {}
    masks = []
    ratio_at = []
    for line in open(dump):
        f = line.split()
        if f[0] == "const":
            consts = [int(v) for v in f[1:]]
        elif f[0] == "param":
            params.setdefault(int(f[1]), []).append((int(f[3]), f[4]))
        elif f[0] == "ratio":
            ratios[(int(f[1]), int(f[2]))] = float(f[3])
        elif f[0] == "mask":
            masks.append((int(f[1]), int(f[2]), int(f[3]), int(f[4]), [int(w, 16) for w in f[5:]]))
        elif f[0] == "ratio_at":
            ratio_at.append((int(f[1]), int(f[2]), int(f[3]), float(f[4])))
    warmup, ramp, reselect, seed = consts
    bad = 0

    # Inputs against their sources.
    spec_params = re.findall(r"\{name: ([^,]+), numel: (\d+)\}", open(spec_path).read())
    flat = [(int(n), name) for name, n in spec_params]
    dumped = [p for s in sorted(params) for p in params[s]]
    if flat != dumped:
        print("parameter tables differ from the spec", file=sys.stderr)
        bad += 1
    plan = json.load(open(plan_path))
    for a in plan["actions"]:
        if a["type"] in ("B", "W"):
            if ratios[(a["stage"], a["microbatch"])] != a["freeze_ratio"]:
                print("ratio differs from tfc plan:", a, file=sys.stderr)
                bad += 1

    # Every answer recomputed.
    for s, m, step, frozen, words in masks:
        numel = [n for n, _ in params[s]]
        r = ratios[(s, m)]
        q = int(r * 2**32)  # exact scaling; int() truncates like the C cast
        window = step // reselect
        qq = ramp_q(q, window * reselect, warmup, ramp)
        want, chosen = select(numel, qq, key(seed, s, m, window))
        want_words = [0] * len(words)
        for i in chosen:
            want_words[i // 64] |= 1 << (i % 64)
        if want != frozen or want_words != words:
            print(f"mask differs at stage {s} microbatch {m} step {step}: {frozen} vs {want}", file=sys.stderr)
            bad += 1
    for s, m, step, got in ratio_at:
        r = ratios[(s, m)]
        if step < warmup:
            want = 0.0
        elif step - warmup >= ramp:
            want = r
        else:
            want = r * float(step - warmup) / float(ramp)
        if want != got:
            print(f"freeze ratio differs at {s} {m} {step}: {got!r} vs {want!r}", file=sys.stderr)
            bad += 1
    print(f"mask_oracle: {len(masks)} masks and {len(ratio_at)} ratios recomputed, {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
