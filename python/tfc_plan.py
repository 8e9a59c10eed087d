"""Load a tfc plan (plan.json, `tfc plan --json`) in Python, standard
library only, and ask it what the generated C answers: the freeze ratio of
a (stage, microbatch) backward at a training step, and which of the stage's
parameter tensors to freeze (the same bits as NAME_frozen_mask; the rule is
documented in docs/codegen.md, "The frozen mask").

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
        self.params = [[(p["name"], p["numel"]) for p in stage] for stage in data["stage_params"]]
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
        n, total = len(numel), sum(numel)
        window = step // self.reselect
        q = _ramp_q(int(self.ratio[(stage, microbatch)] * 2**32), window * self.reselect, self.warmup, self.ramp)
        if n == 0 or q == 0:
            return []
        target = total * q >> 32
        r = _mix(_key(self.seed, stage, microbatch, window))
        pos, stride = r % n, 1
        if n > 1:
            stride = 1 + _mix(r) % (n - 1)
            while gcd(stride, n) != 1:
                stride = stride % (n - 1) + 1
        frozen, chosen = 0, []
        for _ in range(n):
            if frozen >= target:
                break
            if numel[pos] <= target - frozen:
                frozen += numel[pos]
                chosen.append(pos)
            pos = (pos + stride) % n
        return sorted(chosen)

    def frozen_names(self, stage, microbatch, step):
        return [self.params[stage][i][0] for i in self.frozen_tensors(stage, microbatch, step)]
