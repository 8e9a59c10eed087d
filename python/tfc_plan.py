"""Load a tfc plan (plan.json, `tfc plan --json`) in Python, standard
library only, and ask it what the generated C answers: the freeze ratio of
a (stage, microbatch) backward at a training step, and which of the stage's
parameter tensors to freeze (the same bits as NAME_frozen_mask, under the
spec's freeze.select rule; the rules are documented in docs/codegen.md, "The
frozen mask").

    plan = Plan.load("generated/llama8b_1f1b/plan.json")
    plan.freeze_ratio(stage=3, microbatch=0, step=5000)    # float
    plan.frozen_tensors(stage=3, microbatch=0, step=5000)  # [tensor indices]
    plan.frozen_names(stage=3, microbatch=0, step=5000)    # [parameter names]

A PyTorch loop applies it by setting requires_grad (or skipping the
weight-gradient work) for those tensors in that microbatch's backward.
"""
import json
from math import gcd

_M64 = (1 << 64) - 1
FORMAT = "tfc-plan-1"


def _mix(z):
    z = (z + 0x9E3779B97F4A7C15) & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def _key(seed, stage, microbatch, window):
    return _mix(_mix(_mix(_mix(seed) ^ stage) ^ microbatch) ^ window)


def _budget(total, q):
    return total * q >> 32


def _walk(n, r):
    """Start and stride of a draw's visiting order (a permutation of n)."""
    start, stride = r % n, 1
    if n > 1:
        stride = 1 + _mix(r) % (n - 1)
        while gcd(stride, n) != 1:
            stride = stride % (n - 1) + 1
    return start, stride


def _select_uniform(numel, q, key):
    n, target = len(numel), _budget(sum(numel), q)
    pos, stride = _walk(n, _mix(key))
    frozen, chosen = 0, []
    for _ in range(n):
        if frozen >= target:
            break
        if numel[pos] <= target - frozen:
            frozen += numel[pos]
            chosen.append(pos)
        pos = (pos + stride) % n
    return sorted(chosen)


def _select_weighted(numel, weight, q, key):
    target, frozen, chosen, rnd = _budget(sum(numel), q), 0, set(), 0
    while frozen < target:
        room = target - frozen
        cand = [i for i in range(len(numel)) if i not in chosen and numel[i] <= room and weight[i] > 0]
        total_w = sum(weight[i] for i in cand)
        if total_w == 0:
            break
        r = _mix((key ^ _mix(rnd)) & _M64) % total_w
        for i in cand:
            if r < weight[i]:
                chosen.add(i)
                frozen += numel[i]
                break
            r -= weight[i]
        rnd += 1
    return sorted(chosen)


def _select_balanced(numel, q_ramped, m, key):
    n, total, mbs = len(numel), sum(numel), len(q_ramped)
    if total == 0 or q_ramped[m] == 0:
        return []
    full, cap = 1 << 32, (mbs - 1) << 32
    qsum = sum(q_ramped)
    over = qsum - cap if qsum > cap and any(q != full for q in q_ramped) else 0
    scaled = [q - (q * over + qsum - 1) // qsum if over else q for q in q_ramped]
    span = 2 * total
    off = (_mix(key) % span + sum(2 * _budget(total, scaled[j]) for j in range(m))) % span
    arc = 2 * _budget(total, scaled[m])
    target = arc // 2
    if target == 0:
        return []
    start, stride = _walk(n, _mix(_mix(key)))
    order, at, mids = [], 0, []
    pos = start
    for _ in range(n):
        mids.append((pos, 2 * at + numel[pos]))
        at += numel[pos]
        pos = (pos + stride) % n
    frozen, chosen = 0, []
    for pos, mid in [x for x in mids if x[1] >= off] + [x for x in mids if x[1] < off]:
        if (mid - off) % span < arc and numel[pos] <= target - frozen:
            frozen += numel[pos]
            chosen.append(pos)
    return sorted(chosen)


def _ramp_q(q, step, warmup, ramp):
    if step < warmup:
        return 0
    k = step - warmup
    if k >= ramp:
        return q
    while ramp > 0x80000000:  # as the C code: keeps q * k in 64 bits
        ramp >>= 1
        k >>= 1
    return q * k // ramp


class Plan:
    """A plan.json, with the queries of the generated C."""

    def __init__(self, data):
        if data.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} plan (format {data.get('format')!r})")
        self.data = data
        self.name = data["name"]
        fr = data["freeze"]
        self.warmup, self.ramp = fr["warmup_steps"], fr["ramp_steps"]
        self.reselect, self.seed = fr["reselect_every"], fr["seed"]
        self.select = fr.get("select", "uniform")
        if self.select not in ("uniform", "front_first", "balanced", "weights"):
            raise ValueError(f"unknown selection rule {self.select!r}")
        self.params = [[(p["name"], p["numel"]) for p in stage] for stage in data["stage_params"]]
        self.weights = [[p.get("weight", 65536) for p in stage] for stage in data["stage_params"]]
        self.microbatches = data["microbatches"]
        split = any(a["type"] == "W" for a in data["actions"])
        kind = "W" if split else "B"
        self.ratio = {(a["stage"], a["microbatch"]): a["freeze_ratio"] for a in data["actions"] if a["type"] == kind}

    @classmethod
    def load(cls, path):
        with open(path, encoding="utf-8") as f:
            return cls(json.load(f))

    def freeze_ratio(self, stage, microbatch, step):
        """0 before the warm-up ends, then rising linearly over the ramp, then the solved ratio."""
        r = self.ratio.get((stage, microbatch), 0.0)
        if step < self.warmup:
            return 0.0
        k = step - self.warmup
        if k >= self.ramp:
            return r
        return r * float(k) / float(self.ramp)

    def frozen_tensors(self, stage, microbatch, step):
        """Indices of the stage's tensors to freeze, ascending (the bits of NAME_frozen_mask)."""
        if stage >= len(self.params) or (stage, microbatch) not in self.ratio:
            return []
        numel = [n for _, n in self.params[stage]]
        if not numel:
            return []
        window = step // self.reselect
        step0 = window * self.reselect

        def q_at(m):
            return _ramp_q(int(self.ratio.get((stage, m), 0.0) * 2**32), step0, self.warmup, self.ramp)

        if self.select == "balanced":
            q_row = [q_at(m) for m in range(self.microbatches)]
            return _select_balanced(numel, q_row, microbatch, _key(self.seed, stage, _M64, window))
        q = q_at(microbatch)
        if q == 0:
            return []
        key = _key(self.seed, stage, microbatch, window)
        if self.select in ("front_first", "weights"):
            return _select_weighted(numel, self.weights[stage], q, key)
        return _select_uniform(numel, q, key)

    def frozen_names(self, stage, microbatch, step):
        return [self.params[stage][i][0] for i in self.frozen_tensors(stage, microbatch, step)]
