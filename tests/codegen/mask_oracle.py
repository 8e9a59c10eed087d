#!/usr/bin/env python3
"""An independent implementation of the frozen-mask rules (docs/codegen.md,
"The frozen mask" and "Selection rules": uniform, front_first, balanced,
weights), written from the docs' text alone, checked against what the
generated C code answered (a dump by tests/codegen/vendor_default.c or
tests/codegen/mask_dump.c).

It also checks the dump's inputs against their sources, not against the
generated code: tensor sizes and names against the spec's text, ratios
against `tfc plan --json`, the rule against the spec's `freeze.select`, and
the plan's per-tensor weights (front_first, weights) against the docs'
formula (front_first: from the stage's tensor count; weights: from each
param's `freeze_weight` in the spec's text).

Besides the exact recomputation, properties the docs promise whatever the
bits: the frozen count is the mask's and never above the budget at the
window's first step; under weights no planned ratio past the share of
the tensors of non-zero weight (its budget past the least that holds them
all); under uniform, front_first and weights no unfrozen
tensor of non-zero weight would still fit; under weights a tensor of weight
0 is never frozen; under balanced no unfrozen tensor that is not on its
free microbatch would still fit, none is frozen on its free microbatch, and,
per (stage, step), no tensor is frozen on every microbatch unless every
ramped ratio is 1; under front_first
tensors of a stage's first half are frozen at least as often as
equal-sized ones of its second half (statistical, pooled over the dump,
checked only with 2,000 events or more).

    mask_oracle.py DUMP SPEC PLAN_JSON      exit 0 when everything agrees

The dump's rule is its `select` line (uniform when there is none, as in
vendor_default's dump).
"""
from fractions import Fraction
import json
from math import gcd
import re
import sys

M64 = (1 << 64) - 1
ONE = 1 << 32  # ratio 1 in the mask's fixed point
RULES = {"uniform": 0, "front_first": 1, "balanced": 2, "weights": 3}


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


def budget(total, q):
    return total * q >> 32  # floor(stage_numel * q / 2^32), exact


def walk(r, n):
    """Step 4: the permutation of n tensors drawn by r."""
    if n == 0:
        return []
    pos = r % n
    stride = 1
    if n > 1:
        stride = 1 + mix(r) % (n - 1)
        while gcd(stride, n) != 1:
            stride = stride % (n - 1) + 1
    out = []
    for _ in range(n):
        out.append(pos)
        pos = (pos + stride) % n
    return out


def select_uniform(numel, total, q, k):
    b = budget(total, q)
    frozen = 0
    chosen = []
    for i in walk(mix(k), len(numel)):
        if frozen + numel[i] <= b:
            frozen += numel[i]
            chosen.append(i)
    return frozen, chosen


def select_weighted(numel, weight, total, q, k):
    b = budget(total, q)
    # The candidates: not yet frozen, and fitting in what is left. The room
    # only shrinks, so a tensor that does not fit never fits again.
    cands = list(range(len(numel)))
    frozen = 0
    chosen = []
    rnd = 0
    while frozen < b:
        room = b - frozen
        cands = [i for i in cands if numel[i] <= room]
        s = sum(weight[i] for i in cands)
        if s == 0:
            break
        r = mix(k ^ mix(rnd)) % s
        pick = None
        for i in cands:
            if r < weight[i]:
                pick = i
                break
            r -= weight[i]
        cands.remove(pick)
        frozen += numel[pick]
        chosen.append(pick)
        rnd += 1
    return frozen, chosen


def balanced_layout(numel, total, qs, kb):
    """The (stage, window) draw of rule balanced: every microbatch's budget
    and arc start, the tensors' midpoints in walk order, and each tensor's
    free microbatch (None when every budget is the whole stage)."""
    circle = 2 * total
    b = [budget(total, q) for q in qs]
    offs = [mix(kb) % circle]
    for j in range(len(qs) - 1):
        offs.append((offs[j] + 2 * b[j]) % circle)
    a = 0
    placed = []
    for t in walk(mix(mix(kb)), len(numel)):
        placed.append((t, 2 * a + numel[t]))
        a += numel[t]
    free = {}
    for t, mid in placed:
        if all(x == total for x in b):
            free[t] = None
            continue
        miss = [j for j in range(len(qs)) if (mid - offs[j]) % circle >= 2 * b[j]]
        pool = miss if miss else list(range(len(qs)))
        free[t] = min(pool, key=lambda j: (b[j], j))
    return b, offs, placed, free


def select_balanced(numel, total, layout, mb):
    b_all, offs, placed, free = layout
    circle = 2 * total
    off, b = offs[mb], b_all[mb]
    order = [p for p in placed if p[1] >= off] + [p for p in placed if p[1] < off]
    frozen = 0
    chosen = []
    for inside in (True, False):
        for t, mid in order:
            if ((mid - off) % circle < 2 * b) == inside and free[t] != mb and frozen + numel[t] <= b:
                frozen += numel[t]
                chosen.append(t)
    return frozen, chosen


def round_half_up(x):
    return int((x + Fraction(1, 2)) // 1)


def main():
    dump, spec_path, plan_path = sys.argv[1:4]
    consts = None
    rule = "uniform"
    rule_no = None
    params = {}
    ratios = {}
    masks = []
    ratio_at = []
    for line in open(dump):
        f = line.split()
        if f[0] == "const":
            consts = [int(v) for v in f[1:]]
        elif f[0] == "select":
            rule = f[1]
            rule_no = int(f[2]) if len(f) > 2 else None
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

    def report(msg):
        nonlocal bad
        if bad < 20:
            print(msg, file=sys.stderr)
        bad += 1

    if rule not in RULES:
        report(f"unknown rule {rule!r} in the dump")
        return 1
    if rule_no is not None and rule_no != RULES[rule]:
        report(f"rule {rule} is number {RULES[rule]}, the dump says {rule_no}")

    # Inputs against their sources.
    text = open(spec_path).read()
    spec_params = re.findall(r"\{name: ([^,{}]+), numel: (\d+)(?:, freeze_weight: ([-+0-9.eE]+))?\}", text)
    if len(spec_params) != len(re.findall(r"\bnumel:", text)):
        report("could not read every param entry of the spec's text")
    flat = [(int(n), name) for name, n, _ in spec_params]
    dumped = [p for s in sorted(params) for p in params[s]]
    if flat != dumped:
        report("parameter tables differ from the spec")
    sel = re.findall(r"\bselect: *([A-Za-z_]+)", text)
    spec_rule = sel[0] if sel else "balanced"  # the documented default (docs/spec.md)
    if spec_rule != rule:
        report(f"the dump's rule {rule} is not the spec's {spec_rule}")
    plan = json.load(open(plan_path))
    if plan["freeze"].get("select", "uniform") != rule:
        report(f"plan.json's freeze.select {plan['freeze'].get('select')} is not the dump's {rule}")
    for a in plan["actions"]:
        if a["type"] in ("B", "W"):
            if ratios[(a["stage"], a["microbatch"])] != a["freeze_ratio"]:
                report(f"ratio differs from tfc plan: {a}")
    plan_params = [(p["numel"], p["name"]) for st in plan["stage_params"] for p in st]
    if plan_params != dumped:
        report("plan.json's stage_params differ from the dump's tables")

    # Weights: from the docs' formula and the spec's text, then plan.json's.
    weights = {}
    spec_w = iter(spec_params)
    for s in sorted(params):
        n = len(params[s])
        ws = []
        for i in range(n):
            fw_text = next(spec_w)[2]
            if rule == "front_first":
                ws.append(65536 if n == 1 else 65536 * (10 * (n - 1) - 9 * i) // (10 * (n - 1)))
            elif rule == "weights":
                if not fw_text:
                    ws.append(65536)
                    continue
                exact = round_half_up(Fraction(fw_text) * 65536)
                double = round_half_up(Fraction(float(fw_text)) * 65536)
                frac = Fraction(fw_text) * 65536 % 1
                if exact != double or frac == Fraction(1, 2):
                    report(f"freeze_weight {fw_text}: round(65536 x) is a tie or depends on reading it as a double")
                ws.append(exact)
            else:
                ws.append(65536)
        weights[s] = ws
        if rule in ("front_first", "weights"):
            got = [p.get("weight") for p in plan["stage_params"][s]]
            if got != ws:
                report(f"plan.json's weights of stage {s} are {got}, the docs' formula gives {ws}")
    if rule != "weights" and any(fw for _, _, fw in spec_params):
        report("freeze_weight in a spec whose rule is not weights (tfc check should refuse it)")

    # The plan never asks a stage for more than its masks can freeze: under
    # weights, no ratio's budget goes past the least one that holds every
    # tensor of non-zero weight (q_top = ceil(live 2^32 / total), exactly),
    # so the makespan tfc reports is one the masks carry out.
    if rule == "weights":
        for (s, m), r in ratios.items():
            numel = [n for n, _ in params[s]]
            total, live = sum(numel), sum(n for n, w in zip(numel, weights[s]) if w)
            q_top = -(-live * 2**32 // total) if total else 0
            if Fraction(r) * 2**32 > q_top:
                report(f"stage {s} microbatch {m} planned at ratio {r}, past what its masks can freeze "
                       f"({live} of {total} elements have a non-zero weight: ratio {q_top / 2**32})")

    # Every answer recomputed, and the rule-independent promises.
    mbs = {s: sorted(m for (t, m) in ratios if t == s) for s in params}
    qfix = {sm: int(r * 2**32) for sm, r in ratios.items()}  # exact; int() truncates like the C cast
    balanced_cache = {}
    got_sets = {}
    answers = {}  # (stage, microbatch, window): one draw per window
    for s, m, step, frozen, words in masks:
        numel = [n for n, _ in params[s]]
        total = sum(numel)
        window = step // reselect
        first = window * reselect
        qq = ramp_q(qfix[(s, m)], first, warmup, ramp)
        memo = (s, m, window)
        # docs/codegen.md: with a single microbatch balanced draws as uniform.
        r_eff = "uniform" if rule == "balanced" and len(mbs[s]) == 1 else rule
        if memo in answers:
            want, chosen = answers[memo]
        elif r_eff == "uniform":
            want, chosen = select_uniform(numel, total, qq, key(seed, s, m, window))
        elif r_eff == "balanced":
            ck = (s, window)
            if ck not in balanced_cache:
                qs = [ramp_q(qfix[(s, j)], first, warmup, ramp) for j in mbs[s]]
                balanced_cache[ck] = balanced_layout(numel, total, qs, key(seed, s, M64, window))
            want, chosen = select_balanced(numel, total, balanced_cache[ck], m)
        else:
            want, chosen = select_weighted(numel, weights[s], total, qq, key(seed, s, m, window))
        answers[memo] = (want, chosen)
        want_words = [0] * len(words)
        for i in chosen:
            want_words[i // 64] |= 1 << (i % 64)
        if want != frozen or want_words != words:
            report(f"mask differs ({rule}) at stage {s} microbatch {m} step {step}: {frozen} vs {want}")
        # Properties on the C's answer itself.
        got = [i for i in range(len(numel)) if words[i // 64] >> (i % 64) & 1]
        if any(words[i // 64] >> (i % 64) & 1 for i in range(len(numel), 64 * len(words))):
            report(f"bits past the stage's tensors at {s} {m} {step}")
        got_sets[(s, m, step)] = (got, qq)
        count = sum(numel[i] for i in got)
        b = budget(total, qq)
        if count != frozen:
            report(f"count {frozen} is not the mask's {count} at {s} {m} {step}")
        if count > b:
            report(f"over the budget ({count} > {b}) at {s} {m} {step}")
        gs = set(got)
        if r_eff == "balanced":
            free = balanced_cache[(s, window)][3]
            for i in range(len(numel)):
                if i not in gs and free[i] != m and count + numel[i] <= b:
                    report(f"tensor {i} still fits (balanced, not its free microbatch) at {s} {m} {step}")
                    break
            if any(free[i] == m for i in got):
                report(f"a tensor frozen on its free microbatch at {s} {m} {step}")
        else:
            for i in range(len(numel)):
                if i not in gs and weights[s][i] and count + numel[i] <= b:
                    report(f"tensor {i} still fits ({rule}) at {s} {m} {step}")
                    break
            if rule == "weights" and any(weights[s][i] == 0 for i in got):
                report(f"a tensor of weight 0 frozen at {s} {m} {step}")

    props = 0
    if rule == "balanced":
        steps_of = {}
        for (s, m, step) in got_sets:
            steps_of.setdefault((s, step), []).append(m)
        for (s, step), ms in steps_of.items():
            if sorted(ms) != mbs[s] or len(ms) == 1:
                continue  # not every microbatch dumped at this step, or drawn as uniform
            numel = [n for n, _ in params[s]]
            total = sum(numel)
            first = step // reselect * reselect
            qs = [ramp_q(qfix[(s, j)], first, warmup, ramp) for j in mbs[s]]
            cnt = [0] * len(numel)
            for m in ms:
                for i in got_sets[(s, m, step)][0]:
                    cnt[i] += 1
            if max(cnt) == len(ms) and not all(q == ONE for q in qs):
                report(f"balanced: a tensor frozen on every microbatch at stage {s} step {step}")
            props += 1
    if rule == "front_first":
        # Statistical, not a bit-exact promise: the docs give the first
        # tensors the larger weights. Between two tensors of equal size the
        # heavier one is at least as likely to be drawn (the fit test treats
        # them alike), so over every mask of a ratio strictly between 0 and 1
        # the first half of a stage, paired with equal-sized tensors of its
        # second half, is frozen at least as often. Tensors of different
        # sizes are left out (small tensors fill gaps whatever their weight,
        # so raw halves can come out either way on a stage like tiny's), and
        # the check needs 2,000 events pooled over the stages: on the llama
        # specs the margin is well over ten standard deviations.
        front = back = 0
        for s in params:
            numel = [n for n, _ in params[s]]
            n = len(numel)
            if n < 4:
                continue
            h = n // 2
            rest = list(range(n - h, n))
            pairs = []
            for i in range(h):
                for j in rest:
                    if numel[j] == numel[i]:
                        pairs.append((i, j))
                        rest.remove(j)
                        break
            for (t, m, step), (got, qq) in got_sets.items():
                if t == s and 0 < qq < ONE:
                    gs = set(got)
                    front += sum(1 for i, _ in pairs if i in gs)
                    back += sum(1 for _, j in pairs if j in gs)
        if front + back >= 2000:
            props += 1
            if front < back:
                report(f"front_first: the first halves frozen {front} times, the equal-sized second halves {back}")
        else:
            print(f"mask_oracle: front_first: only {front + back} events in equal-sized pairs, "
                  f"the statistical check skipped ({front} front, {back} back)", file=sys.stderr)

    for s, m, step, got in ratio_at:
        r = ratios[(s, m)]
        if step < warmup:
            want = 0.0
        elif step - warmup >= ramp:
            want = r
        else:
            want = r * float(step - warmup) / float(ramp)
        if want != got:
            report(f"freeze ratio differs at {s} {m} {step}: {got!r} vs {want!r}")
    print(f"mask_oracle: {rule}: {len(masks)} masks and {len(ratio_at)} ratios recomputed, "
          f"{props} group properties, {bad} differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
