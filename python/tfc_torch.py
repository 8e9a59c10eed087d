"""tfc_torch: tfc's plans inside PyTorch.

Three things a PyTorch trainer needs from tfc, each usable on its own:

  apply_plan(stage, plan, step)
      Freezing inside torch.distributed.pipelining: wraps a PipelineStage's
      forward_one_chunk, backward_one_chunk and backward_weight_one_chunk so
      that, before each call, every parameter of the stage has
      requires_grad set as the plan says for that (stage, microbatch, step).
      A tensor frozen on a microbatch then gets no weight gradient from it,
      and one frozen on every microbatch keeps .grad None, so optimisers
      skip it (docs/optimizer-contract.md).

  profile(step_fn, stages, out_dir, steps=K)
      Runs K steps of the caller's pipeline under torch.profiler on this
      rank, with nothing frozen and with everything frozen, and writes the
      two Chrome traces (plain .json) that `timing.source: trace` reads:
      the runtime labels each action PP:<stage><type><microbatch>.

  NoiseScale
      The gradient noise scale B_simple estimated during ordinary training
      from each microbatch's gradient and the step's accumulated one (the
      two-batch estimator), per stage and in total; it prints the spec's
      `training` keys.

Standard library only at import; torch is imported where it is used.
"""
import bisect
import json
import math
import os
import time

__all__ = ["apply_plan", "Freezer", "PlanMismatch", "profile", "profiler_scale", "timing_yaml", "NoiseScale"]


class PlanMismatch(ValueError):
    """The plan's tensors are not the stage's named_parameters()."""


def _load_plan(plan):
    """A tfc_plan.Plan from a Plan, a path to plan.json or its parsed dict."""
    import tfc_plan
    if isinstance(plan, tfc_plan.Plan):
        return plan
    if isinstance(plan, (str, os.PathLike)):
        return tfc_plan.Plan.load(os.fspath(plan))
    if isinstance(plan, dict):
        return tfc_plan.Plan(plan)
    raise TypeError(f"apply_plan: a plan is a tfc_plan.Plan, a path to plan.json, a plan dict, or a callable "
                    f"frozen(stage, microbatch, step) -> tensor names; got {type(plan).__name__}")


def check_stage(plan, stage_index, module, num_stages=None):
    """Raises PlanMismatch unless the plan's tensors of stage_index are the
    module's named_parameters(), name and element count, in order."""
    if num_stages is not None and num_stages != plan.stage_count:
        raise PlanMismatch(f"the plan has {plan.stage_count} stages, the pipeline {num_stages}")
    if not 0 <= stage_index < len(plan.params):
        raise PlanMismatch(f"stage {stage_index}: the plan has stages 0 to {len(plan.params) - 1}")
    want = plan.params[stage_index]
    have = [(n, p.numel()) for n, p in module.named_parameters()]
    for i, (w, h) in enumerate(zip(want, have)):
        if w != h:
            raise PlanMismatch(f"stage {stage_index}: tensor {i} is {h[0]!r} ({h[1]} elements) in the stage, "
                               f"{w[0]!r} ({w[1]} elements) in the plan")
    if len(want) != len(have):
        i = min(len(want), len(have))
        extra = f"the stage's {have[i][0]!r}" if len(have) > len(want) else f"the plan's {want[i][0]!r}"
        raise PlanMismatch(f"stage {stage_index}: the plan has {len(want)} tensors, the stage {len(have)}; "
                           f"the first unmatched is {extra}")


class Freezer:
    """What apply_plan installs on a stage. Set .step before each training
    step (or give apply_plan a callable step). A parameter whose
    requires_grad was False when the plan was applied (frozen by the
    trainer: a fine-tune's base weights) stays False throughout; the others
    follow the plan. .remove() restores the stage's methods and every
    parameter's requires_grad as it was when the plan was applied.
    .override: None (the plan), "none" (nothing frozen) or "all"."""

    _METHODS = ("forward_one_chunk", "backward_one_chunk", "backward_weight_one_chunk")

    def __init__(self, stage, stage_index, module, frozen, step, microbatches=None):
        self.stage, self.stage_index, self.module = stage, stage_index, module
        self._frozen, self._step = frozen, step
        self._microbatches = microbatches  # the plan's; None for a callable rule
        self.override = None
        self.calls = []  # (action name, frozen names) when .record is True
        self.record = False
        self.label = False  # each call inside torch.profiler's record_function("PP:<stage><type><mb>"),
        # True for every call, or a set of such names for those calls only
        self.keep = set()   # names override "all" leaves unfrozen
        self._params = list(module.named_parameters())
        self._names = {n for n, _ in self._params}
        self._was = [p.requires_grad for _, p in self._params]  # the trainer's own choice, kept
        self._saved = {}
        for m in self._METHODS:
            if hasattr(stage, m):
                self._saved[m] = getattr(stage, m)
                setattr(stage, m, self._wrap(m, self._saved[m]))
        stage._tfc_freezer = self

    @property
    def step(self):
        return self._step() if callable(self._step) else self._step

    @step.setter
    def step(self, value):
        self._step = value

    def frozen(self, microbatch):
        """The names frozen on microbatch at the current step."""
        if self.override == "none":
            return set()
        if self.override == "all":
            return set(self._names) - self.keep
        if self._microbatches is not None and not 0 <= microbatch < self._microbatches:
            raise PlanMismatch(f"stage {self.stage_index}: microbatch {microbatch}, but the plan has microbatches 0 "
                               f"to {self._microbatches - 1}: plan the spec with the schedule's microbatch count")
        names = set(self._frozen(self.stage_index, microbatch, self.step))
        unknown = names - self._names
        if unknown:
            raise PlanMismatch(f"stage {self.stage_index}: frozen(...) named {sorted(unknown)[0]!r}, "
                               f"not a parameter of the stage")
        return names

    def set(self, microbatch):
        """requires_grad of every parameter for microbatch; returns the frozen names."""
        off = self.frozen(microbatch)
        for (n, p), was in zip(self._params, self._was):
            want = was and n not in off
            if p.requires_grad != want:
                p.requires_grad_(want)
        return off

    def _wrap(self, method, original):
        kind = {"forward_one_chunk": "F", "backward_weight_one_chunk": "W"}.get(method)

        def call(*args, **kwargs):
            mb = args[0] if args else kwargs.get("fwd_chunk_id", kwargs.get("bwd_chunk_id"))
            off = self.set(mb)
            if self.record or self.label:
                full = kwargs.get("full_backward", args[2] if len(args) > 2 else True)
                name = f"{self.stage_index}{kind or ('B' if full else 'I')}{mb}"
                if self.record:
                    self.calls.append((name, sorted(off)))
                if self.label is True or (self.label and name in self.label):
                    from torch.profiler import record_function
                    with record_function("PP:" + name):
                        return original(*args, **kwargs)
            return original(*args, **kwargs)

        call.__name__ = method
        call.__wrapped__ = original
        return call

    def remove(self):
        for m, f in self._saved.items():
            setattr(self.stage, m, f)
        self._saved = {}
        for (_, p), was in zip(self._params, self._was):
            p.requires_grad_(was)
        if getattr(self.stage, "_tfc_freezer", None) is self:
            del self.stage._tfc_freezer


def apply_plan(stage, plan, step=0, *, module=None, stage_index=None):
    """Freezes a torch.distributed.pipelining PipelineStage's parameters as
    a tfc plan says, per microbatch, before every forward, backward and
    weight-backward call of the stage. Returns the Freezer; set its .step
    each training step (or pass step as a callable returning it).

    plan: a tfc_plan.Plan, a path to plan.json, or a callable
    frozen(stage, microbatch, step) -> names of the stage's parameters to
    freeze (for tests and hand-made rules). A plan is checked against the
    stage's named_parameters(): PlanMismatch names the first difference.

    module, stage_index: default to stage.submod and stage.stage_index; give
    them for any other object with the three methods."""
    module = stage.submod if module is None else module
    stage_index = stage.stage_index if stage_index is None else stage_index
    if getattr(stage, "_tfc_freezer", None) is not None:
        raise ValueError(f"stage {stage_index}: a plan is already applied (Freezer.remove() first)")
    if callable(plan) and not hasattr(plan, "frozen_names"):
        frozen = plan
    else:
        plan = _load_plan(plan)
        check_stage(plan, stage_index, module, getattr(stage, "num_stages", None))
        return Freezer(stage, stage_index, module, plan.frozen_names, step, plan.microbatches)
    return Freezer(stage, stage_index, module, frozen, step)


# ---- profiler traces as timings ----

def profile(step_fn, stages, out_dir, steps=5, warmup=1, rank=None, prefix="trace", schedule=None):
    """Runs step_fn() (one training step of the caller's pipeline on this
    rank) warmup + steps times with nothing frozen and as often with every
    parameter of `stages` frozen, the two modes alternating step by step
    (ABBA), the `steps` timed ones of each under one torch.profiler
    session; writes out_dir/PREFIX_unfrozen_rankR.json and
    PREFIX_frozen_rankR.json (plain JSON Chrome traces: the session's trace
    split by step, each event to the mode of the step it started in) and
    returns their paths. Alternating puts the machine's drift over the
    profile on both modes alike: profiled one mode after the other, a
    slower few seconds went into the frozen times alone and so into the
    plan's speed-up (bench/torch_step.py, docs/torch.md). Every rank calls
    it (the pipeline needs every rank); `stages` are this rank's
    PipelineStages. The optimiser is the caller's: step_fn
    should not change what is being timed (a fixed batch is fine).

    Actions: torch's multi-stage runtime (PipelineScheduleMulti: Interleaved1F1B,
    LoopedBFS, the zero-bubble schedules, DualPipeV) names each one
    PP:<stage><type><microbatch> itself (but for the halves of DualPipeV's
    overlapped pairs, labelled here from the schedule's pipeline_order);
    the single-stage schedules
    (Schedule1F1B, ScheduleGPipe) do not, so unless `schedule` is a
    PipelineScheduleMulti the stages' calls are labelled here, the same way.
    Pass `schedule`: without it, one stage on this rank is taken for a
    single-stage schedule's (a one-stage LoopedBFS rank would then be
    labelled twice) and several for a multi-stage schedule's.

    "Everything frozen" keeps one tensor on the first stage: its parameter
    nearest the input (the first of named_parameters() that requires grad). With every tensor
    of the first stage frozen, nothing there needs a gradient (its input is
    data) and autograd skips the stage's whole backward; with any tensor
    unfrozen, as at every ratio below 1, the backward runs down to it. The
    frozen time the plan interpolates towards is the second: the backward
    without its weight gradients. (Measured in bench/torch_step.py with a
    core per rank: the first stage's backward at ratio ~0.47 took 19.6 ms
    where the skipped-backward w_min of 0.2 ms gave 14.9 ms planned.)

    With the stages' parameters on a GPU, CUDA activity is recorded too, and
    the spec's durations are the GPU's (docs/spec.md, "Measured timings").

    The spec then reads them: timing: {source: trace, file: [...unfrozen
    of every rank], frozen_file: [...frozen of every rank]} (timing_yaml).
    Each mode's steps also run once more without the profiler, each step
    timed, into out_dir/PREFIX_steps_rankR.json: profiler_scale() turns
    them into timing.scale, the profiler's own cost taken off. Under
    torch.distributed, profile returns on a rank once every rank has
    written its files (a barrier), so rank 0 can plan from them at once."""
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
        raise ValueError(f"profile: steps must be an integer of at least 1 (the timed steps of each mode), "
                         f"got {steps!r}")
    if not isinstance(warmup, int) or isinstance(warmup, bool) or warmup < 0:
        raise ValueError(f"profile: warmup must be an integer of at least 0, got {warmup!r}")
    import torch
    from torch.profiler import ProfilerActivity
    from torch.profiler import profile as torch_profile
    if rank is None:
        rank = torch.distributed.get_rank() if torch.distributed.is_initialized() else 0
    os.makedirs(out_dir, exist_ok=True)
    installed = []
    for st in stages:
        if getattr(st, "_tfc_freezer", None) is None:
            installed.append(apply_plan(st, lambda s, m, t: (), 0))
    freezers = [st._tfc_freezer for st in stages]
    saved = [(fz.override, fz.label, fz.keep) for fz in freezers]
    from torch.distributed.pipelining.schedules import PipelineScheduleMulti
    # Without the schedule, several stages on this rank can only be a
    # multi-stage schedule's, which labels its actions itself.
    label = not isinstance(schedule, PipelineScheduleMulti) if schedule is not None else len(stages) == 1
    if not label and schedule is not None:
        # The multi-stage runtime labels an overlapped pair (DualPipeV's
        # OVERLAP_F_B) as one range, PP:(0F3;3B1)OVERLAP_F_B, and runs its
        # halves unlabelled: those are labelled here, the rest not twice.
        label = _overlapped(schedule, rank) or False
    for st, fz in zip(stages, freezers):
        fz.label = label
        first = getattr(st, "is_first", fz.stage_index == 0)
        # The first tensor that takes a gradient at all: one the trainer
        # froze itself (a fine-tune's embedding) stays frozen regardless.
        kept = [n for (n, _), was in zip(fz._params, fz._was) if was][:1]
        fz.keep = set(kept) if first else set()
    # On a GPU the actions' time is the kernels': with CUDA activity the
    # trace holds each PP: range on the device too ("gpu_user_annotation"),
    # and tfc takes those over the CPU's launch-side ranges.
    activities = [ProfilerActivity.CPU]
    if any(p.is_cuda for fz in freezers for _, p in fz._params):
        activities.append(ProfilerActivity.CUDA)
    modes = ("unfrozen", "frozen")

    def set_mode(mode):
        for fz in freezers:
            fz.override = "none" if mode == "unfrozen" else "all"

    def rounds(n):
        """The two modes alternating, ABBA (unfrozen, frozen, frozen,
        unfrozen, ...): the machine's drift over the profile lands on both
        alike instead of on the frozen times alone."""
        for i in range(n):
            yield from (modes if i % 2 == 0 else modes[::-1])

    steps_ms = {m: {"unprofiled_ms": [], "profiled_ms": [], "unprofiled_cpu_ms": 0.0} for m in modes}
    try:
        for mode in rounds(warmup):
            set_mode(mode)
            step_fn()
        # The same steps without the profiler, then under it: the
        # profiler's own cost (profiler_scale).
        for mode in rounds(steps):
            set_mode(mode)
            cpu0 = time.process_time()
            steps_ms[mode]["unprofiled_ms"].append(_timed(step_fn))
            steps_ms[mode]["unprofiled_cpu_ms"] += (time.process_time() - cpu0) * 1e3 / max(1, steps)
        with torch_profile(activities=activities) as prof:
            for mode in rounds(steps):
                set_mode(mode)
                with torch.profiler.record_function(_STEP_MARK + mode):
                    steps_ms[mode]["profiled_ms"].append(_timed(step_fn))
        whole = os.path.join(out_dir, f"{prefix}_rank{rank}.json.tmp")
        try:
            prof.export_chrome_trace(whole)
            paths = _split_trace(whole, modes, [os.path.join(out_dir, f"{prefix}_{m}_rank{rank}.json")
                                                for m in modes])
        finally:
            if os.path.exists(whole):
                os.remove(whole)
    finally:
        for fz, (o, lb, k) in zip(freezers, saved):
            fz.override, fz.label, fz.keep = o, lb, k
        for fz in installed:
            fz.remove()
    side = os.path.join(out_dir, f"{prefix}_steps_rank{rank}.json")
    with open(side + ".tmp", "w") as f:
        json.dump(steps_ms, f, indent=1)
    os.replace(side + ".tmp", side)
    # Every rank's files are written when profile returns on any rank (the
    # caller's rank 0 typically writes the spec and compiles next).
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        torch.distributed.barrier()
    return tuple(paths)


_STEP_MARK = "tfc_profile_step:"


def _overlapped(schedule, rank):
    """The names (0F3, 3B1, ...) of the actions a multi-stage schedule runs
    on this rank as halves of an overlapped pair (sub_actions)."""
    order = getattr(schedule, "pipeline_order", None) or {}
    acts = order.get(getattr(schedule, "rank", rank), ())
    return {str(sub) for a in acts if a is not None for sub in (getattr(a, "sub_actions", None) or ())}


def _split_trace(whole, modes, paths):
    """One profiler session's trace (the modes' steps alternating, each
    inside a _STEP_MARK + mode range) as one trace per mode (_split_events);
    the top-level keys (baseTimeNanoseconds: the clock tfc lines ranks up
    by) stay as they are. Writes each file atomically, an event a line;
    returns the paths."""
    with open(whole) as f:
        trace = json.load(f)
    split = _split_events(trace.get("traceEvents", []), modes)
    for m, path in zip(modes, paths):
        # One event a line, as torch.profiler writes them: tfc's messages
        # about a sample name its line (a one-line file: line 1 for all).
        head = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in trace.items() if k != "traceEvents"]
        events = ",\n".join("    " + json.dumps(e) for e in split[m])
        with open(path + ".tmp", "w") as f:
            f.write("{\n" + "".join(h + ",\n" for h in head) + '  "traceEvents": [\n' + events + "\n  ]\n}\n")
        os.replace(path + ".tmp", path)
    return tuple(paths)


def _split_events(events, modes):
    """{mode: events} by the step each event belongs to. The marks are
    ranges named _STEP_MARK + mode; with CUDA activity each also appears
    on the device (its gpu_user_annotation, under the device's pid), where
    the step's kernels run later than the host launched them. So an event
    goes by the marks of its own pid: to the mark whose range holds its
    start; on a pid with no marks, to the last mark started before it.
    Events without a start (metadata) go to every mode; events between
    the steps to none."""
    marks = {}
    for e in events:
        if e.get("ph") == "X" and str(e.get("name", "")).startswith(_STEP_MARK):
            a = float(e["ts"])
            marks.setdefault(e.get("pid"), []).append((a, a + float(e.get("dur", 0)), e["name"][len(_STEP_MARK):]))
    every = sorted(x for v in marks.values() for x in v)
    for v in marks.values():
        v.sort()
    starts = {pid: [a for a, _, _ in v] for pid, v in marks.items()}
    every_starts = [a for a, _, _ in every]
    split = {m: [] for m in modes}
    for e in events:
        if "ts" not in e:
            for m in modes:
                split[m].append(e)
            continue
        ts, pid = float(e["ts"]), e.get("pid")
        own = pid in marks
        spans, st = (marks[pid], starts[pid]) if own else (every, every_starts)
        j = bisect.bisect_right(st, ts) - 1
        if j >= 0 and (ts <= spans[j][1] or not own) and spans[j][2] in split:
            split[spans[j][2]].append(e)
    return split


def _timed(step_fn):
    t = time.perf_counter()
    step_fn()
    return (time.perf_counter() - t) * 1e3


def profiler_scale(out_dir, prefix="trace"):
    """timing.scale for the traces profile() wrote into out_dir: the
    median step without the profiler over the median step under it, with
    nothing frozen, the median over the ranks (profile() records both
    beside the traces, PREFIX_steps_rankR.json). torch.profiler records
    every operator, which lengthens each action by a share that depends on
    how many operators it runs: measured +11% a step with 2 ranks on 2
    cores and +23% with 4 (bench/torch_step.py). Never above 1: the
    profiler only adds work, and a ratio above 1 is the machine's noise
    between the two sets of steps. None when no rank's record is there."""
    import glob
    import statistics
    ratios = []
    for path in sorted(glob.glob(os.path.join(out_dir, f"{prefix}_steps_rank*.json"))):
        with open(path) as f:
            rec = json.load(f).get("unfrozen", {})
        plain, prof = rec.get("unprofiled_ms"), rec.get("profiled_ms")
        if plain and prof and statistics.median(prof) > 0:
            ratios.append(statistics.median(plain) / statistics.median(prof))
    return min(1.0, statistics.median(ratios)) if ratios else None


def timing_yaml(unfrozen, frozen, spec_dir=".", scale=None):
    """The spec's timing section for per-rank traces: paths relative to the
    spec's folder; `scale` (profiler_scale's) as timing.scale."""
    from tfc_spec import yaml_quoted

    def rel(ps):
        return "[" + ", ".join(yaml_quoted(os.path.relpath(p, spec_dir)) for p in ps) + "]"
    text = f"timing:\n  source: trace\n  file: {rel(unfrozen)}\n  frozen_file: {rel(frozen)}\n"
    return text + (f"  scale: {scale:.6g}\n" if scale is not None else "")


# ---- the gradient noise scale ----

class _Tally:
    """Per tensor within one step: the microbatches that computed it, the
    sum of their gradients' squared norms, and twice the sum of the
    pairwise dot products (so |sum g_i|^2 = sq + cross)."""
    __slots__ = ("count", "sq", "cross")

    def __init__(self):
        self.count, self.sq, self.cross = 0, 0.0, 0.0


class NoiseScale:
    """B_simple = tr(Sigma) / |G|^2 (the simple gradient noise scale), in
    the units of `microbatch_size` (tokens, usually), from what a training
    loop already has: each microbatch's gradient before accumulation (a
    hook on every parameter sees it) and the accumulated one. Per tensor
    with m >= 2 microbatches of b each in a step, from the mean squared
    microbatch norm a = sum|g_i|^2 / m and the accumulated s = |sum g_i|^2 / m^2:
        |G|^2 ~ (m s - a) / (m - 1),  tr(Sigma) ~ b m (a - s) / (m - 1)
    (both unbiased; a gradient's overall scale cancels in the ratio, so the
    loss may be summed or averaged, and the runtime may or may not divide
    by the microbatch count). They are summed over tensors, per group (a
    pipeline stage) and in total, and averaged over the steps observed
    (smoothing=None) or as an exponential moving average (smoothing=alpha,
    the weight of the past); B_simple is the ratio of the averages.

    Use: watch(module_or_stage, group=...) once; each training step run
    the microbatches' backward passes as usual, with gradients starting
    from None or zero (optimizer.zero_grad()), then call step() before the
    optimiser changes .grad. Tensors frozen on some microbatches count only
    those that computed them. Across pipeline ranks, step(all_reduce=True)
    sums the stages' terms over torch.distributed's default group so every
    rank sees the total."""

    def __init__(self, microbatch_size, smoothing=None):
        if not microbatch_size > 0:
            raise ValueError("NoiseScale: microbatch_size must be > 0")
        if smoothing is not None and not 0.0 <= smoothing < 1.0:
            raise ValueError("NoiseScale: smoothing is None or in [0, 1)")
        self.b = float(microbatch_size)
        self.smoothing = smoothing
        self.microbatches = None  # the most microbatches any tensor saw in a step
        self._tally = {}          # id(param) -> (group, _Tally)
        self._handles = []
        self._avg = {}            # group -> [S, G2, weight]
        self._last = {}           # group -> (S, G2) of the last step
        self.steps = 0

    def watch(self, module, group=0):
        """Hooks every parameter of module (a PipelineStage: its submod) into group."""
        module = getattr(module, "submod", module)
        for _, p in module.named_parameters():
            if id(p) in self._tally:
                continue
            t = _Tally()
            self._tally[id(p)] = (group, t)
            self._handles.append(p.register_hook(self._hook(p, t)))
        return self

    @staticmethod
    def _hook(p, t):
        def hook(g):
            g64 = g.detach().double()
            t.sq += float(g64.pow(2).sum())
            if p.grad is not None and t.count:
                t.cross += 2.0 * float((g64 * p.grad.detach().double()).sum())
            t.count += 1
        return hook

    def terms(self):
        """{group: (tr Sigma, |G|^2, tensors counted)} of the step so far."""
        out = {}
        for group, t in self._tally.values():
            s_sum, g2_sum, n = out.get(group, (0.0, 0.0, 0))
            m = t.count
            if m >= 2:
                a = t.sq / m
                s = (t.sq + t.cross) / (m * m)
                s_sum += self.b * m * (a - s) / (m - 1)
                g2_sum += (m * s - a) / (m - 1)
                n += 1
            out[group] = (s_sum, g2_sum, n)
        return out

    def step(self, all_reduce=False):
        """Ends a step: folds its terms into the averages and resets the
        tallies. Returns this step's {group: B_simple} (inf or negative
        when |G|^2 is not resolved by one step; the averages are what to
        use)."""
        terms = self.terms()
        m = max((t.count for _, t in self._tally.values()), default=0)
        self.microbatches = max(self.microbatches or 0, m)
        if all_reduce:
            terms = self._all_reduce(terms)
        a = self.smoothing
        for group, (s, g2, n) in terms.items():
            if not n:
                continue
            avg = self._avg.setdefault(group, [0.0, 0.0, 0.0])
            if a is None:
                avg[0] += s
                avg[1] += g2
                avg[2] += 1.0
            else:
                avg[0] = a * avg[0] + (1 - a) * s
                avg[1] = a * avg[1] + (1 - a) * g2
                avg[2] = a * avg[2] + (1 - a)
            self._last[group] = (s, g2)
        for _, t in self._tally.values():
            t.count, t.sq, t.cross = 0, 0.0, 0.0
        self.steps += 1
        return {g: _ratio(s, g2) for g, (s, g2, n) in terms.items() if n}

    @staticmethod
    def _all_reduce(terms):
        import torch
        import torch.distributed as dist
        if not (dist.is_available() and dist.is_initialized()):
            return terms
        groups = [None] * dist.get_world_size()
        dist.all_gather_object(groups, {g: v for g, v in terms.items()})
        out = {}
        for part in groups:
            for g, (s, g2, n) in part.items():
                if g in out and out[g][2] and n:
                    raise ValueError(f"NoiseScale: group {g!r} is watched on two ranks; name groups by stage")
                if n or g not in out:
                    out[g] = (s, g2, n)
        del torch
        return out

    def groups(self):
        """{group: B_simple} from the averages."""
        return {g: _ratio(v[0], v[1]) for g, v in sorted(self._avg.items(), key=lambda kv: str(kv[0]))}

    @property
    def b_simple(self):
        """The total over groups, from the averages (nan before any step)."""
        if not self._avg:
            return math.nan
        return _ratio(sum(v[0] for v in self._avg.values()), sum(v[1] for v in self._avg.values()))

    def training_yaml(self, steps=None):
        """The spec's `training` keys: batch_tokens (microbatch size x the
        microbatches a step), noise_scale_tokens (this estimate) and, when
        given, steps."""
        b = self.b_simple
        if not (b > 0 and math.isfinite(b)):
            raise ValueError(f"NoiseScale: no usable estimate yet (B_simple {b}): observe more steps")
        batch = int(round(self.b * (self.microbatches or 1)))
        text = f"training:\n  batch_tokens: {batch}\n  noise_scale_tokens: {_num(b)}\n"
        if steps is not None:
            text += f"  steps: {int(steps)}\n"
        return text

    def close(self):
        for h in self._handles:
            h.remove()
        self._handles = []


def _ratio(s, g2):
    if g2 == 0.0:
        return math.inf if s > 0 else math.nan
    return s / g2


def _num(x):
    return f"{x:.6g}" if abs(x) < 1e6 else str(int(round(x)))
