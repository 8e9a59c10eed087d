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

From the shell (python3 tfc_plan.py --help):

    tfc_plan.py summary PLAN.json                 # the plan in a few lines
    tfc_plan.py mask PLAN.json --stage S --microbatch M --step N [--json]
"""
import json
import math
import operator
from math import gcd

_M64 = (1 << 64) - 1
FORMAT = "tfc-plan-2"
# Format 1 named the stage count "stages", as the per-stage array: readers
# that keep the last value (json.load does) lost the count, which this
# module never needed (docs/plan-json.md, "Formats").
FORMATS = ("tfc-plan-1", FORMAT)


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
    budgets = [_budget(total, q) for q in q_ramped]
    if total == 0 or budgets[m] == 0:
        return []
    span = 2 * total
    off0 = _mix(key) % span
    starts = [(off0 + sum(2 * b for b in budgets[:j])) % span for j in range(mbs)]
    off, target = starts[m], budgets[m]
    start, stride = _walk(n, _mix(_mix(key)))
    walk, at, pos = [], 0, start
    for _ in range(n):
        walk.append((pos, 2 * at + numel[pos]))
        at += numel[pos]
        pos = (pos + stride) % n
    along = [x for x in walk if x[1] >= off] + [x for x in walk if x[1] < off]  # in order along the arc

    def free(mid):  # the microbatch on which the tensor at mid is never frozen
        miss = [j for j in range(mbs) if (mid - starts[j]) % span >= 2 * budgets[j]]
        if miss:
            return min(miss, key=lambda j: (budgets[j], j))
        j = min(range(mbs), key=lambda j: (budgets[j], j))
        return j if budgets[j] < total else mbs

    frozen, chosen = 0, set()
    for in_arc in (True, False):  # the arc, then past its end
        for t, mid in along:
            if t in chosen or numel[t] > target - frozen or ((mid - off) % span < 2 * target) != in_arc:
                continue
            if free(mid) != m:
                frozen += numel[t]
                chosen.add(t)
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
        if not isinstance(data, dict) or data.get("format") not in FORMATS:
            raise ValueError(f"not a tfc plan of a format this module reads ({', '.join(FORMATS)}): "
                             f"format {data.get('format') if isinstance(data, dict) else type(data).__name__!r}")
        self.data = data
        try:
            self._read(data)
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"plan.json: a field is missing or of the wrong type ({type(e).__name__}: {e})")

    def _read(self, data):
        self.name = data["name"]
        fr = data["freeze"]
        self.warmup, self.ramp = fr["warmup_steps"], fr["ramp_steps"]
        self.reselect, self.seed = fr["reselect_every"], fr["seed"]
        for key, v, low in (("warmup_steps", self.warmup, 0), ("ramp_steps", self.ramp, 0),
                            ("reselect_every", self.reselect, 1), ("seed", self.seed, 0)):
            if not isinstance(v, int) or isinstance(v, bool) or v < low:
                raise ValueError(f"plan.json: freeze.{key} must be an integer of at least {low}, got {v!r}")
        self.select = fr.get("select", "uniform")
        if self.select not in ("uniform", "front_first", "balanced", "weights"):
            raise ValueError(f"unknown selection rule {self.select!r}")
        self.params = [[(p["name"], p["numel"]) for p in stage] for stage in data["stage_params"]]
        bad = next((n for stage in self.params for _, n in stage
                    if not isinstance(n, int) or isinstance(n, bool) or n < 1), None)
        if bad is not None:
            raise ValueError(f"plan.json: a tensor's numel must be an integer of at least 1, got {bad!r}")
        self.weights = [[p.get("weight", 65536) for p in stage] for stage in data["stage_params"]]
        self.microbatches = data["microbatches"]
        if not isinstance(self.microbatches, int) or self.microbatches < 1:
            raise ValueError(f"plan.json: microbatches must be an integer of at least 1, got {self.microbatches!r}")
        self.stage_count = data.get("stage_count", len(self.params))
        # Each (stage, microbatch) has one freezable backward: its W when the
        # backward is split, else its B (DualPipeV has both kinds).
        self.ratio = {(a["stage"], a["microbatch"]): a["freeze_ratio"] for a in data["actions"] if a["type"] == "B"}
        self.ratio.update({(a["stage"], a["microbatch"]): a["freeze_ratio"] for a in data["actions"] if a["type"] == "W"})
        bad = next((r for r in self.ratio.values() if not isinstance(r, (int, float)) or not 0.0 <= r <= 1.0), None)
        if bad is not None:
            raise ValueError(f"plan.json: a freeze_ratio must be a number in [0, 1], got {bad!r}")

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
        try:
            k = operator.index(step)  # int, numpy's and torch's integers; not 100.5
        except TypeError:
            k = -1
        if k < 0:
            raise ValueError(f"step must be an integer of at least 0 (a training step), got {step!r}")
        step = k
        if stage >= len(self.params) or (stage, microbatch) not in self.ratio:
            return []
        numel = [n for _, n in self.params[stage]]
        if not numel:
            return []
        window = step // self.reselect
        step0 = window * self.reselect

        def q_at(m):  # floor(r * 2^32) of r clamped to [0, 1], as tfc bakes it
            r = min(max(self.ratio.get((stage, m), 0.0), 0.0), 1.0)
            return _ramp_q(int(r * 2**32), step0, self.warmup, self.ramp)

        if self.select == "balanced" and self.microbatches > 1:
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


LR_RATIO_MAX = 2.0  # the compiler's TTQ_LR_RATIO_MAX: at 2 a full step makes no progress
OPTIMIZERS = ("adam", "sgd")  # training.optimizer (the compiler's ttq_optimizer); "adamw" is "adam"


def _optimizer(name):
    name = "adam" if name == "adamw" else name
    if name not in OPTIMIZERS:
        raise ValueError(f"optimizer must be one of adam, sgd, adamw, got {name!r}")
    return name


def _lr_ratio(k):
    """k as the spec takes training.lr_ratio: None (unknown), or 0 <= k < 2."""
    if k is not None and not 0.0 <= k < LR_RATIO_MAX:
        raise ValueError(f"lr_ratio must be None or at least 0 and below {LR_RATIO_MAX:g}, got {k!r}")
    return k


def _beta(beta, name="beta"):
    """beta = B_simple / batch, at least 0 (0: no noise, inf: no signal; the
    spec's noise_scale_tokens and batch_tokens are above 0). A measured
    B_simple below 0 (|G|^2 not resolved) is not a beta, nor is NaN:
    ValueError."""
    beta = float(beta)
    if not beta >= 0.0:  # False for NaN
        raise ValueError(f"{name} must be at least 0 (B_simple / batch; 0: no noise, inf: no signal), got {beta!r}")
    return beta


def _finite(x, name, low=0.0, above=False):
    """x as a float, finite and at least low (above: more than low); else
    ValueError naming it (the spec's steps, warm-up and ramp are counts,
    its step ratio positive)."""
    x = float(x)
    if not (math.isfinite(x) and (x > low if above else x >= low)):
        raise ValueError(f"{name} must be a finite number {'above' if above else 'at least'} {low:g}, got {x!r}")
    return x


def _share(f):
    """A frozen share: NaN is refused (ValueError), the rest clamped to [0, 1]
    as the compiler clamps it."""
    f = float(f)
    if math.isnan(f):
        raise ValueError("frozen_share must be a number, got nan")
    return min(max(f, 0.0), 1.0)


def _no_signal(beta, f):
    """beta / (1 - f) past the largest float: no signal, as beta infinite is
    (the limit; computed as written it would be inf / huge or inf / inf)."""
    return beta / (1.0 - f) == float("inf")


def _noise_growth(beta, f):
    """(1 + beta / (1 - f)) / (1 + beta): a step's noise term on (1 - f) of
    the batch against a full one's; 1 / (1 - f) with no signal."""
    return 1.0 / (1.0 - f) if _no_signal(beta, f) else (1.0 + beta / (1.0 - f)) / (1.0 + beta)


def frozen_step_progress(beta, frozen_share, lr_ratio=None, optimizer="adam"):
    """rho, a frozen step's progress against a full one's when a share f of
    the batch is skipped, at beta = B_simple / batch (inf: no signal). With
    n = (1 + beta / (1 - f)) / (1 + beta), the step's noise term on (1 - f)
    of the batch against a full one's:

    lr_ratio None: each run at its own best rate, steps to a loss
    S = S_min (1 + B_noise / B), so rho = 1 / n = (1 + beta) / (1 + beta /
    (1 - f)), for either optimizer.

    lr_ratio k (0 <= k < 2): the run's rate is k times the one that makes a
    single full step progress the most, and the frozen steps keep it. A step
    at rate e progresses a e - b e^2, its best at e* = a / (2 b); at e = k e*
    a full step progresses a e (1 - k / 2).

      optimizer "sgd": the noisier step's second-order term grows n-fold,
          rho = (1 - k n / 2) / (1 - k / 2), 1 at k = 0;
      optimizer "adam" (and AdamW): the running mean square grows n-fold,
          so the step's signal shrinks sqrt(n)-fold while its size does not,
          rho = (1 / sqrt(n) - k / 2) / (1 - k / 2), 1 / sqrt(n) at k = 0.

    Not below 0. The compiler's ttq_rho. ValueError for an optimizer other
    than adam, adamw and sgd, a ratio outside [0, 2), or beta below 0 or NaN."""
    optimizer, lr_ratio, beta = _optimizer(optimizer), _lr_ratio(lr_ratio), _beta(beta)
    f = _share(frozen_share)
    if f >= 1.0:
        return 0.0
    if lr_ratio is None:
        return 1.0 - f if _no_signal(beta, f) else (1.0 + beta) / (1.0 + beta / (1.0 - f))
    n = _noise_growth(beta, f)
    if optimizer == "sgd":
        rho = (1.0 - lr_ratio * n / 2.0) / (1.0 - lr_ratio / 2.0)
    else:
        rho = (1.0 / math.sqrt(n) - lr_ratio / 2.0) / (1.0 - lr_ratio / 2.0)
    return rho if rho > 0.0 else 0.0


def predicted_time_to_quality(beta, frozen_share, step_ratio, steps, warmup, ramp, lr_ratio=None, optimizer="adam"):
    """The batch-regime model (docs/time-to-quality.md, "The batch regime"):
    the predicted time-to-quality speed-up of a run that freezes a share f
    of its elements from step warmup (over ramp steps) with steps step_ratio
    as long as without freezing, against the same run without freezing, of
    `steps` steps, at beta = B_simple / batch. A frozen step progresses
    rho = frozen_step_progress(beta, f, lr_ratio, optimizer) as far as a full
    one.
    Freezing from w = warmup + ramp / 2, the run reaches the no-freezing
    run's loss after w + (steps - w) / rho steps, of which the last
    (steps - w) / rho take step_ratio of the time:

        speedup = steps / (w + (steps - w) step_ratio / rho)

    The same function as the compiler's (compiler/plan/ttq.c); 1 with
    nothing frozen or when the run ends before freezing takes hold (steps
    <= w), else 0 when a frozen step makes no progress. ValueError as
    frozen_step_progress's, whatever is frozen."""
    optimizer, lr_ratio, beta = _optimizer(optimizer), _lr_ratio(lr_ratio), _beta(beta)
    f = _share(frozen_share)
    step_ratio, steps = _finite(step_ratio, "step_ratio", above=True), _finite(steps, "steps")
    warmup, ramp = _finite(warmup, "warmup"), _finite(ramp, "ramp")
    if steps <= 0 or f <= 0.0:
        return 1.0
    # a run that ends before freezing takes hold is the run without freezing,
    # whatever a frozen step would cost
    w = warmup + ramp / 2.0
    if not steps > w:
        return 1.0
    rho = frozen_step_progress(beta, f, lr_ratio, optimizer)
    if not rho > 0.0:
        return 0.0
    return steps / (w + (steps - w) * step_ratio / rho)


def time_to_quality_bound(beta, frozen_share, step_ratio, steps, warmup, ramp, optimizer="adam", freeze_beta=None):
    """The most freezing buys whatever the learning rate: the prediction at
    lr_ratio 0, a run its rate rather than its gradient noise limits (a
    frozen step's progress falls as the ratio grows, so no ratio gives
    more, nor the best-rate form). With "sgd" the shorter step alone; with
    "adam" a frozen step still loses signal, rho = 1 / sqrt(n). At the
    smaller of beta and freeze_beta, the beta where freezing starts
    (training.freeze_noise_scale_tokens / batch_tokens; None or NaN: not
    measured). The compiler's ttq_upper_bound as plan.c takes it
    (plan.json's time_to_quality.upper_bound). ValueError as
    predicted_time_to_quality's, or for a freeze_beta given below 0."""
    beta = _beta(beta)
    if freeze_beta is not None and not math.isnan(freeze_beta):
        _beta(freeze_beta, "freeze_beta")
    if freeze_beta is not None and freeze_beta < beta:  # False for NaN
        beta = freeze_beta
    return predicted_time_to_quality(beta, frozen_share, step_ratio, steps, warmup, ramp, 0.0, optimizer)


def lr_ratio_from_pilot(beta, frozen_share, step_ratio, steps, warmup, ramp, speedup, optimizer="adam"):
    """The learning-rate ratio k that makes predicted_time_to_quality give a
    pilot's measured speed-up (a run pair, no freezing and one cap, measured
    to the no-freezing run's loss): rho = (steps - w) r / (steps / speedup -
    w), then frozen_step_progress solved for k: (1 - rho) / (n / 2 - rho / 2)
    for "sgd", 2 (1 / sqrt(n) - rho) / (1 - rho) for "adam"; 0 when rho is at
    or above what k = 0 gives (1, or 1 / sqrt(n) with Adam), a speed-up above
    the shorter step's alone included (the spec refuses that pilot: tfc
    plan's error; this function, as ttq_lr_ratio, does not check it). None
    when the pilot cannot say (nothing or everything frozen, a speed-up at or
    above steps / w that no count of frozen steps gives, no k below 2). The
    compiler's ttq_lr_ratio (training.pilot).
    ValueError for an unknown optimizer, or beta below 0 or NaN."""
    optimizer, beta = _optimizer(optimizer), _beta(beta)
    f = _share(frozen_share)
    step_ratio, steps = _finite(step_ratio, "step_ratio", above=True), _finite(steps, "steps")
    warmup, ramp = _finite(warmup, "warmup"), _finite(ramp, "ramp")
    if not 0.0 < f < 1.0 or not steps > 0 or not speedup > 0.0:
        return None
    w = min(warmup + ramp / 2.0, float(steps))
    left = steps / speedup - w
    if not left > 0.0 or not steps > w:
        return None
    rho = (steps - w) * step_ratio / left
    n = _noise_growth(beta, f)
    if optimizer == "adam":
        top = 1.0 / math.sqrt(n)  # rho at k = 0
        if rho >= top:
            return 0.0
        k = 2.0 * (top - rho) / (1.0 - rho)
        return k if 0.0 <= k < LR_RATIO_MAX else None
    if rho >= 1.0:
        return 0.0
    k = (1.0 - rho) / (n / 2.0 - rho / 2.0)
    return k if 0.0 <= k < LR_RATIO_MAX else None


# Below this beta the optimiser contract is "mean", above it "share" (the
# compiler's TTQ_RESCALE_BELOW; docs/optimizer-contract.md).
RESCALE_BELOW = 1.0


def optimizer_contract(beta):
    """"mean" (rescale each tensor's gradient over the microbatches that
    computed it) below the noise scale, "share" at or above it: the contract
    the predicted time to quality assumes, as plan.json's
    time_to_quality.optimizer_contract says. ValueError for beta below 0 or NaN."""
    return "mean" if _beta(beta) < RESCALE_BELOW else "share"


def break_even_beta(frozen_share, step_ratio, lr_ratio=None, optimizer="adam"):
    """The beta below which freezing a share f at step ratio r can pay
    (rho = r): without lr_ratio (1 / r - 1) / (1 / (1 - f) - 1 / r); with
    k and "sgd", (q - k) / (k / (1 - f) - q), q = 2 (1 - r (1 - k / 2));
    with k and "adam", (1 / q^2 - 1) / (1 / (1 - f) - 1 / q^2), q = r (1 -
    k / 2) + k / 2. None when it never pays (r >= 1), inf when it always
    does (plan.json writes both as null: its reason says which; it is null
    too where the run ends before freezing takes hold, steps at or below
    warmup + ramp / 2, which this function does not take). ValueError as
    frozen_step_progress's."""
    optimizer, lr_ratio = _optimizer(optimizer), _lr_ratio(lr_ratio)
    f, r = _share(frozen_share), float(step_ratio)
    if math.isnan(r):
        raise ValueError("step_ratio must be a number, got nan")
    if not 0.0 < f < 1.0 or r >= 1.0 or r <= 0.0:
        return None
    if lr_ratio is None:
        denom = 1.0 / (1.0 - f) - 1.0 / r
        return float("inf") if denom <= 0.0 else (1.0 / r - 1.0) / denom
    k = lr_ratio
    if optimizer == "adam":
        q = r * (1.0 - k / 2.0) + k / 2.0
        iq2 = 1.0 / (q * q) if q * q > 0.0 else math.inf  # q * q underflows below r ~ 1e-162: C's 1 / 0
        denom = 1.0 / (1.0 - f) - iq2
        return float("inf") if denom <= 0.0 else (iq2 - 1.0) / denom
    q2 = 2.0 * (1.0 - r * (1.0 - k / 2.0))
    denom = k / (1.0 - f) - q2
    return float("inf") if denom <= 0.0 else (q2 - k) / denom


def _summary(plan, out):
    d = plan.data
    out.write(f"{d['name']}: {d['schedule']}, {d['ranks']} ranks, {plan.stage_count} stages, "
              f"{plan.microbatches} microbatches; policy {d['policy']}, cap {d['max_ratio']:g}, "
              f"select {plan.select}\n")
    out.write(f"step: {d['baseline_makespan_ms']:.3f} ms without freezing, {d['makespan_ms']:.3f} ms with it "
              f"({d['speedup']:.3f}x)\n")
    sh = d.get("shared")
    if sh:
        out.write(f"on {sh['processors']} processors the ranks share: {sh['baseline_makespan_ms']:.3f} ms without "
                  f"freezing, {sh['makespan_ms']:.3f} ms with it ({sh['speedup']:.3f}x)\n")
    out.write(f"freezing from step {plan.warmup} over {plan.ramp} steps, re-drawn every {plan.reselect}\n")
    out.write("stage  rank  tensors  elements        mean ratio  max ratio\n")
    for st in d["stages"]:
        s = st["stage"]
        numel = sum(n for _, n in plan.params[s]) if s < len(plan.params) else 0
        out.write(f"{s:5}  {st['rank']:4}  {len(plan.params[s]):7}  {numel:14}  {st['mean_freeze_ratio']:10.4f}  "
                  f"{st['max_freeze_ratio']:9.4f}\n")


def main(argv=None):
    import argparse
    import sys
    ap = argparse.ArgumentParser(
        prog="tfc_plan.py",
        description="Read a tfc plan (plan.json or tfc plan --json; formats " + ", ".join(FORMATS) +
        ") and answer what the generated C answers.")
    sub = ap.add_subparsers(dest="command", required=True)
    s = sub.add_parser("summary", help="the plan in a few lines: schedule, step times, per-stage freezing")
    s.add_argument("plan", help="plan.json")
    m = sub.add_parser("mask", help="the tensors a stage freezes in one microbatch's backward at a step")
    m.add_argument("plan", help="plan.json")
    m.add_argument("--stage", type=int, required=True)
    m.add_argument("--microbatch", type=int, required=True)
    m.add_argument("--step", type=int, required=True, help="training step (0-based)")
    m.add_argument("--json", action="store_true", help="as JSON: ratio, indices, names")
    a = ap.parse_args(argv)
    try:
        plan = Plan.load(a.plan)
    except (OSError, ValueError, KeyError) as e:
        print(f"tfc_plan.py: {a.plan}: {e}", file=sys.stderr)
        return 1
    if a.command == "summary":
        try:
            _summary(plan, sys.stdout)
        except (KeyError, IndexError, TypeError, ValueError) as e:  # fields summary reads and Plan() does not
            print(f"tfc_plan.py: {a.plan}: a field summary reads is missing or wrong ({type(e).__name__}: {e})",
                  file=sys.stderr)
            return 1
        return 0
    if not 0 <= a.stage < plan.stage_count or not 0 <= a.microbatch < plan.microbatches or a.step < 0:
        print(f"tfc_plan.py: stage must be 0-{plan.stage_count - 1}, microbatch 0-{plan.microbatches - 1}, "
              "step >= 0", file=sys.stderr)
        return 2
    idx = plan.frozen_tensors(a.stage, a.microbatch, a.step)
    ratio = plan.freeze_ratio(a.stage, a.microbatch, a.step)
    names = [plan.params[a.stage][i][0] for i in idx]
    if a.json:
        json.dump({"stage": a.stage, "microbatch": a.microbatch, "step": a.step, "freeze_ratio": ratio,
                   "frozen": idx, "frozen_names": names}, sys.stdout)
        sys.stdout.write("\n")
    else:
        total = sum(n for _, n in plan.params[a.stage])
        frozen = sum(plan.params[a.stage][i][1] for i in idx)
        print(f"stage {a.stage}, microbatch {a.microbatch}, step {a.step}: ratio {ratio:.6f}; "
              f"{len(idx)} of {len(plan.params[a.stage])} tensors frozen ({frozen} of {total} elements)")
        for i, n in zip(idx, names):
            print(f"  {i}  {n}")
    return 0


def cli():
    """The command line (`tfc-plan`, `python -m tfc_plan`): main() with
    `| head` ending the output quietly."""
    import signal
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    raise SystemExit(main())


if __name__ == "__main__":
    cli()
