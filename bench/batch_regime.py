#!/usr/bin/env python3
"""The batch-regime sweep (bench/batch_regime.sh; docs/time-to-quality.md,
"The batch-regime sweep"): does freezing pay where the batch is large
against the gradient noise scale, and does the model tfc plans with
(python/tfc_plan.py predicted_time_to_quality, the same function as the
compiler's) predict it?

The fine-tuning scenario of bench/time_to_quality.py, with the narrow MLP
(tiny_trainer --model mlp_narrow) so that two cores can afford batches far
above the noise scale (--model gpt: the transformer, the same sweep). One
model pretrained without freezing; then, at each batch size (sequences
per microbatch, 8 microbatches a step):

  - its own profile (tiny_trainer profile at that size) and plans;
  - the no-freezing peak learning rate from a sweep (3 values, widened by
    3x until the best is not at an edge); the best run is the no-freezing
    run, and every run of the size uses its rate;
  - B_simple at the fine-tuning start (the pretrained parameters) and at
    the end (the no-freezing run's), per tensor too;
  - runs: no freezing; timely at caps 0.3, 0.6, 0.9 (balanced), freezing
    from half the run where the batch is below its noise scale (beta > 1)
    and from a quarter above it;
  - per run: steps to L* (the no-freezing run's final smoothed validation
    loss; frozen runs continue to 2N), the gap at equal steps, the model's
    prediction, the measured wall-clock speedup and the drift-free one
    (each step's time from the plan at that step's ratios: the trainer's
    plan_ms column).

--freeze-from S,...: the best cap at the smallest beta (and the --seed-caps)
again on every seed, freezing from S * N instead (a table of its own:
whether the rule's start is the right one, and whether the model's
dependence on it holds).

Seeds: 3 at the smallest beta for no freezing, the best cap and the cap
freeze.max_ratio: auto chooses there (when it is none of the three; one
seed of it in a one-seed --quick). Each
run is cached (its log and result) so that an interrupted sweep resumes.
Every noise measurement keeps |G|^2 and tr(Sigma) per stage and per tensor,
and the noise scale is measured once more in the middle of the frozen steps:
bench/ttq_models.py scores the model's candidates on them (the report's
last table).

The last line is exactly
  batch_regime points=K max_abs_err=E best_speedup=S best_beta=B best_cap=C
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import noise_weights as nw  # noqa: E402
import time_to_quality as ttq  # noqa: E402
import ttq_bound  # noqa: E402
import ttq_models  # noqa: E402
import tfc_plan  # noqa: E402

CAPS = (0.3, 0.6, 0.9)


# The settings a cached run's numbers depend on (Sweep refuses a cache made
# with others): the corpus (--data), and these of config().
RUN_KEYS = ("model", "steps", "pretrain", "pretrain_mb", "eval_every", "val_max", "profile_steps", "noise_batches",
            "lr0", "beta2", "ramp", "reselect")
# What a cache recorded before a key existed ran with: a cache without it is
# held to this (it was made with the value, whatever its record lacks).
BEFORE_KEY = {"model": "mlp_narrow"}
# Predictions a sequence gives each model (tiny_trainer's
# model_positions_per_seq: the MLPs predict 32 of their 48 bytes, the GPT 47).
POSITIONS = {"mlp_narrow": 32, "mlp": 32, "gpt": 47}
MODEL_NAMES = {"mlp_narrow": "narrow MLP", "mlp": "MLP", "gpt": "GPT-style transformer"}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def config(args):
    """Sizes by mode. mb: sequences per microbatch, smallest batch first."""
    if args.ci:  # it runs and writes its outputs; the numbers mean nothing
        c = dict(mb=[2, 8], steps=12, pretrain=12, pretrain_mb=2, eval_every=3, val_max=64, profile_steps=4,
                 noise_batches=8, seeds_small=1, lr0=3e-3, lr_sweep=False)
    elif args.quick:
        c = dict(mb=[32, 512], steps=60, pretrain=600, pretrain_mb=16, eval_every=4, val_max=2048, profile_steps=10,
                 noise_batches=200, seeds_small=1, lr0=3e-3, lr_sweep=True)
    else:
        c = dict(mb=[8, 32, 128, 512], steps=80, pretrain=600, pretrain_mb=16, eval_every=4, val_max=2048,
                 profile_steps=10, noise_batches=200, seeds_small=3, lr0=3e-3, lr_sweep=True)
    if args.mb:
        c["mb"] = [int(x) for x in args.mb.split(",")]
    if args.steps:
        c["steps"] = args.steps
    if args.seeds:
        c["seeds_small"] = args.seeds
    c["caps"] = [float(x) for x in args.caps.split(",")] if args.caps else list(CAPS)
    c["seed_caps"] = [float(x) for x in args.seed_caps.split(",")] if args.seed_caps else []
    c["weights"] = not args.no_weights
    c["freeze_from"] = []
    for x in (args.freeze_from.split(",") if args.freeze_from else []):
        try:
            v = float(x)
        except ValueError:
            v = float("nan")
        if not 0.0 <= v < 1.0:
            raise SystemExit(f"batch_regime: --freeze-from {x!r}: a share of N from 0 up to (not including) 1")
        c["freeze_from"].append(v)
    if args.beta2:
        c["beta2"] = args.beta2  # the trainer's AdamW beta2 in every fine-tuning run (default its 0.999)
    c["model"] = args.model
    c["positions"] = POSITIONS[args.model]
    c["ramp"] = max(1, c["steps"] // 10)
    c["reselect"] = max(1, c["steps"] // 20)
    return c


def run(cmd):
    return ttq.run(cmd)


def result_of(text):
    return ttq.parse_result(text)


def tensor_noise(text):
    """Per-tensor B_simple from tiny_trainer noise's lines."""
    out = {}
    for m in re.finditer(r"^noise: stage (\d) tensor (\S+): .* B_simple (-?[0-9.e+]+) predictions", text, re.M):
        out[m.group(2)] = float(m.group(3))
    return out


def noise_parts(text):
    """|G|^2 and tr(Sigma) per tensor (with its stage) and per stage, from
    tiny_trainer noise's lines: what a model per tensor or per stage needs."""
    num = r"(-?[0-9.e+]+)"
    tensors, stages = {}, {}
    for m in re.finditer(rf"^noise: stage (\d) tensor (\S+): \|G\|\^2 {num}, tr\(Sigma\) {num},", text, re.M):
        tensors[m.group(2)] = dict(stage=int(m.group(1)), g2=float(m.group(3)), tr=float(m.group(4)))
    for m in re.finditer(rf"^noise: stage (\d): \|G\|\^2 {num}, tr\(Sigma\) {num},", text, re.M):
        stages[m.group(1)] = dict(g2=float(m.group(2)), tr=float(m.group(3)))
    return dict(tensors=tensors, stages=stages)


class Sweep:
    def __init__(self, args, cfg):
        self.args, self.c = args, cfg
        self.out = args.out
        os.makedirs(os.path.join(self.out, "runs"), exist_ok=True)
        self.builders = {}
        self.cache = os.path.join(self.out, "cache.json")
        self.state = json.load(open(self.cache)) if os.path.exists(self.cache) else {}
        # What every cached run depends on. More batch sizes, caps or seeds
        # add to a cache; anything here changes what its runs mean.
        made = dict(data=os.path.abspath(args.data), **{k: cfg.get(k) for k in RUN_KEYS})
        if "made_with" not in self.state:  # a new cache, or one from before it was recorded: adopt it,
            try:  # held to the settings its last report wrote, where there is one
                with open(os.path.join(self.out, "summary.json")) as f:
                    last = json.load(f)["config"]
                was, source = {k: last.get(k, BEFORE_KEY.get(k)) for k in RUN_KEYS}, " (its summary.json)"
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                # no report to hold it to: a cache that exists predates every recorded key, BEFORE_KEY's too
                was, source = dict(BEFORE_KEY) if self.state else {}, " (a cache older than the model key)"
            self.refuse_other(was, made, source)
            self.state["made_with"] = made
            self.save()
        self.refuse_other(self.state["made_with"], made)
        lacks = {k: v for k, v in BEFORE_KEY.items() if k not in self.state["made_with"]}
        if lacks:  # recorded before these keys were: it ran with their values (refuse_other held it to them)
            self.state["made_with"].update(lacks)
            self.save()

    def refuse_other(self, was, made, source=""):
        """SystemExit naming each setting in was that made differs from (a
        key was lacks counts as BEFORE_KEY's value, where it has one)."""
        was = dict(BEFORE_KEY, **was) if was else was
        diff = ", ".join(f"{k} {was[k]!r} (now {made.get(k)!r})" for k in sorted(was) if was[k] != made.get(k))
        if diff:
            raise SystemExit(f"batch_regime: the runs cached in {self.out} were made with {diff}{source}; give "
                             f"another --out, or the same settings")

    def save(self):
        tmp = self.cache + ".tmp"
        with open(tmp, "w") as f:
            json.dump(self.state, f, indent=1, sort_keys=True)
        os.replace(tmp, self.cache)

    def batch(self, mb):
        """Predictions a step at mb sequences a microbatch (8 microbatches)."""
        return mb * 8 * self.c["positions"]

    def builder(self, mb):
        if mb not in self.builders:
            b = ttq.Builder(self.args.tfc, os.path.join(self.out, f"mb{mb}"), self.c["model"], self.args.data, mb)
            if not os.path.exists(os.path.join(b.profile_dir, "frozen.csv")):
                log(f"profiling at {mb} sequences a microbatch")
                b.profile(self.c["profile_steps"])
            self.builders[mb] = b
        return self.builders[mb]

    # -------------------------------------------------------------- the model

    def pretrain(self):
        path = os.path.join(self.out, "pretrained.bin")
        if os.path.exists(path):
            return path
        c = self.c
        binary = self.builder(c["pretrain_mb"]).variant("none", 0.0, "balanced", 0, 1)[0]
        log(f"pretraining {c['pretrain']} steps at {c['pretrain_mb']} sequences a microbatch")
        out = run([binary, "train", "--model", self.c["model"], "--data", self.args.data, "--part", "pretrain",
                   "--seed", "1", "--steps", str(c["pretrain"]), "--mb-seqs", str(c["pretrain_mb"]),
                   "--eval-every", str(max(1, c["pretrain"] // 10)), "--val-max", str(c["val_max"]),
                   "--lr", str(c["lr0"]), "--lr-warmup", str(max(1, c["pretrain"] // 20)),
                   "--lr-horizon", str(c["pretrain"]), "--no-freeze", "--order", "shuffled",
                   "--save", path + ".tmp", "--log", os.path.join(self.out, "runs", "pretrain.csv")])
        os.replace(path + ".tmp", path)
        self.state["pretrain_val_loss"] = result_of(out)["val_loss"]
        self.save()
        return path

    def noise(self, key, params):
        """B_simple (whole model and per tensor) at params on the finetune part."""
        if key in self.state.get("noise", {}):
            return self.state["noise"][key]
        binary = self.builder(self.c["mb"][0]).variant("none", 0.0, "balanced", 0, 1)[0]
        text = run([binary, "noise", "--model", self.c["model"], "--data", self.args.data, "--part", "finetune",
                    "--init", params, "--steps", str(self.c["noise_batches"])])
        res = result_of(text)
        got = dict(b_simple=res["b_simple"], tensors=tensor_noise(text), parts=noise_parts(text))
        self.state.setdefault("noise", {})[key] = got
        self.save()
        log(f"  B_simple ({key}): {got['b_simple']:.0f} predictions")
        return got

    # -------------------------------------------------------------- runs

    def train(self, key, mb, binary, seed, steps, lr, extra, save=None):
        """One fine-tuning run, cached by key: (log path, RESULT dict)."""
        runs = self.state.setdefault("runs", {})
        logpath = os.path.join(self.out, "runs", f"{key}.csv")
        if key in runs and os.path.exists(logpath) and (save is None or os.path.exists(save)):
            return logpath, runs[key]
        c = self.c
        n = c["steps"]
        cmd = [binary, "train", "--model", self.c["model"], "--data", self.args.data, "--part", "finetune",
               "--init", self.pretrained, "--seed", str(seed), "--steps", str(steps), "--mb-seqs", str(mb),
               "--eval-every", str(c["eval_every"]), "--val-max", str(c["val_max"]), "--lr", f"{lr:.6g}",
               "--lr-warmup", str(max(1, n // 20)), "--lr-horizon", str(n), "--order", "shuffled",
               "--log", logpath + ".tmp"] + (["--beta2", str(c["beta2"])] if c.get("beta2") else []) + extra
        if save:
            cmd += ["--save", save]
        t0 = time.time()
        res = result_of(run(cmd))
        os.replace(logpath + ".tmp", logpath)
        runs[key] = res
        self.save()
        log(f"  {key}: {time.time() - t0:.0f} s, final loss {res['val_loss']:.4f}, {int(res['steps'])} steps")
        return logpath, res

    def end_params(self, mb, lr):
        """Where the no-freezing run of seed 1 at this rate leaves its parameters
        (mb{mb}_end.bin in sweeps cached before the name had the rate)."""
        older = os.path.join(self.out, f"mb{mb}_end.bin")
        return older if os.path.exists(older) else os.path.join(self.out, f"mb{mb}_lr{lr:.3g}_end.bin")

    def noise_at_step(self, mb, step, tag):
        """The noise measurement ({b_simple, tensors, parts}) at the
        parameters the no-freezing run (seed 1) reaches at `step`: the run
        again up to there (the same steps: the schedule is the run's)."""
        e = self.state["points"][str(mb)]
        binary = self.builder(mb).variant("none", 0.0, "balanced", 0, 1)[0]
        path = os.path.join(self.out, f"mb{mb}_at_{tag}{step}.bin")
        self.train(f"mb{mb}_none_lr{e['lr']:.3g}_to_{tag}{step}", mb, binary, 1, step, e["lr"], ["--no-freeze"],
                   save=path)
        return self.noise(f"mb{mb}_at_{tag}{step}", path)

    def freeze_noise(self, mb):
        """B_simple where freezing starts (its warm-up step). The noise scale
        grows as the loss falls, so this is the batch regime the frozen steps
        meet."""
        e = self.state["points"][str(mb)]
        if "freeze_b_simple" not in e:
            got = self.noise_at_step(mb, e["warmup"], "w")
            e["freeze_b_simple"], e["freeze_tensors"] = got["b_simple"], got["tensors"]
            self.save()
        return e["freeze_b_simple"]

    def mid_noise(self, mb):
        """B_simple in the middle of the frozen steps ((warm-up + N) / 2):
        with the start's and the freezing start's, how the regime moves while
        the plan freezes (recorded for the model; docs/time-to-quality.md)."""
        e = self.state["points"][str(mb)]
        if "mid_b_simple" not in e:
            m = (e["warmup"] + self.c["steps"]) // 2
            e["mid_step"], e["mid_b_simple"] = m, self.noise_at_step(mb, m, "m")["b_simple"]
            self.save()
        return e["mid_b_simple"]

    def lr_for(self, mb):
        """The no-freezing peak rate: the best final smoothed loss of a sweep
        over x3 steps, widened until the best is not at an edge."""
        c = self.c
        b = self.builder(mb)
        binary = b.variant("none", 0.0, "balanced", 0, 1)[0]
        # A first guess that grows with the batch (square root), then the sweep.
        guess = c["lr0"] * math.sqrt(mb / c["pretrain_mb"])
        if not c["lr_sweep"]:
            return guess, {}
        tried = {}

        def loss_at(lr):
            key = none_key(mb, lr, 1)
            if lr not in tried:
                lp, _ = self.train(key, mb, binary, 1, c["steps"], lr, ["--no-freeze"], save=self.end_params(mb, lr))
                v = ttq.smooth(ttq.read_log(lp)[1])[-1][2]
                tried[lr] = v if math.isfinite(v) else float("inf")  # a rate that diverged
            return tried[lr]

        lrs = [guess / 3, guess, guess * 3]
        for _ in range(4):
            for lr in lrs:
                loss_at(lr)
            best = min(tried, key=tried.get)
            lo, hi = min(tried), max(tried)
            if best == lo:
                lrs = [lo / 3]
            elif best == hi:
                lrs = [hi * 3]
            else:
                break
        best = min(tried, key=tried.get)
        return best, {f"{k:.3g}": v for k, v in sorted(tried.items())}

    def batch_size(self, mb, smallest_beta):
        c, n = self.c, self.c["steps"]
        b = self.builder(mb)
        lr, sweep = self.lr_for(mb)
        entry = self.state.setdefault("points", {}).setdefault(str(mb), {})
        entry.update(lr=lr, lr_sweep=sweep, batch=self.batch(mb))
        beta = self.start_noise["b_simple"] / self.batch(mb)
        # Freezing from half the run below the noise scale (every skipped
        # gradient costs steps, docs/time-to-quality.md: +1.3% against +3.6%
        # from a tenth); from a quarter above it, where a skipped gradient is
        # nearly free and more of the run can take the shorter step.
        warmup = n // 2 if beta > 1 else n // 4
        # The optimiser contract (docs/optimizer-contract.md): below the noise
        # scale each tensor's gradient is rescaled over the microbatches that
        # computed it (mean); above it, shares (measured here: with shares
        # below it freezing cuts Adam's step instead of its batch).
        contract = "share" if beta > 1 else "mean"
        entry.update(beta=beta, warmup=warmup, contract=contract)
        seeds = list(range(1, (c["seeds_small"] if smallest_beta else 1) + 1))
        none_bin = b.variant("none", 0.0, "balanced", 0, 1)[0]
        for s in seeds:
            key = none_key(mb, lr, s)
            self.train(key, mb, none_bin, s, n, lr, ["--no-freeze"], save=self.end_params(mb, lr) if s == 1 else None)
        end = self.noise(f"mb{mb}_end", self.end_params(mb, lr))
        entry["end_b_simple"] = end["b_simple"]
        entry["end_tensors"] = end["tensors"]
        self.freeze_noise(mb)
        self.mid_noise(mb)
        for cap in c["caps"]:
            binary, plan = b.variant(f"timely_{cap}_w{warmup}", cap, "balanced", warmup, c["ramp"], "timely",
                                     c["reselect"])
            entry.setdefault("plans", {})[str(cap)] = plan_numbers(plan)
            for s in seeds[:1]:
                self.capped_run(mb, cap, "balanced", s, lr, binary, contract=contract)
        self.save()

    def capped_run(self, mb, cap, select, seed, lr, binary, tag="", extra=(), contract="share"):
        c, n = self.c, self.c["steps"]
        lstar = self.lstar(mb, seed)
        key = f"{run_stem(mb, cap, select, contract, tag)}_s{seed}"
        return self.train(key, mb, binary, seed, 2 * n, lr,
                          ["--stop-below", f"{lstar:.12g}", "--stop-from", str(n), "--grad", contract] + list(extra))

    def lstar(self, mb, seed):
        return ttq.smooth(ttq.read_log(self.none_log(mb, seed))[1])[-1][2]

    def run_all(self):
        c = self.c
        self.pretrained = self.pretrain()
        self.start_noise = self.noise("start", self.pretrained)
        self.state["start_b_simple"] = b0 = self.start_noise["b_simple"]
        if not (b0 > 0 and math.isfinite(b0)):  # every beta, the model's input and the chart's axis, needs it
            raise SystemExit(f"batch_regime: B_simple at the fine-tuning start measured {b0:.6g} over "
                             f"{c['noise_batches']} batches of the finetune part: |G|^2 is not resolved there, so "
                             f"beta (B_simple / batch) is undefined; give more text, or text the pretrained model "
                             f"still learns from")
        smallest = max(c["mb"])
        for mb in c["mb"]:
            log(f"batch size: {mb} sequences a microbatch ({self.batch(mb)} predictions a step)")
            self.batch_size(mb, mb == smallest)
        # The smallest beta: more seeds for the best cap, and weights from the
        # measured per-tensor noise scales against balanced at the same cap
        # (the same plan: the rule decides which tensors, not how many).
        best = self.best_cap(smallest)
        if c["seeds_small"] > 1 or not self.args.quick:
            entry = self.state["points"][str(smallest)]
            b = self.builder(smallest)
            warmup = entry["warmup"]
            binary = b.variant(f"timely_{best}_w{warmup}", best, "balanced", warmup, c["ramp"], "timely",
                               c["reselect"])[0]
            for s in range(2, c["seeds_small"] + 1):
                self.capped_run(smallest, best, "balanced", s, entry["lr"], binary, contract=entry["contract"])
            # --seed-caps: the same seeds for more caps (a pilot's spread over
            # seeds, bench/ttq_pilot.py --seed-ends)
            for cap in c["seed_caps"]:
                if cap != best:
                    self.seeded_cap(smallest, cap)
            if c["weights"]:
                weights = noise_weights(entry.get("freeze_tensors", self.start_noise["tensors"]), self.batch(smallest))
                entry["noise_weights"] = weights
                wbin = b.variant(f"timely_{best}_weights_w{warmup}", best, "weights", warmup, c["ramp"], "timely",
                                 c["reselect"], weights)[0]
                self.capped_run(smallest, best, "weights", 1, entry["lr"], wbin, tag="_noise",
                                contract=entry["contract"])
                self.save()
        # --freeze-from: the best cap there and the --seed-caps again,
        # freezing from other steps (the same seeds; the start the sweep's
        # rule gives is its own row)
        for cap in [best] + [x for x in c["seed_caps"] if x != best]:
            if c["freeze_from"] and str(cap) not in self.state["points"][str(smallest)]["plans"]:
                self.seeded_cap(smallest, cap)  # its row at the rule's start (a one-seed --quick skips them above)
            for share in c["freeze_from"]:
                self.freeze_start(smallest, cap, share)
        # What freeze.max_ratio: auto chooses at the smallest beta, measured
        # with the same seeds as the best cap (one in a one-seed --quick) when
        # it is not one of the sweep's caps, so that every sweep scores the
        # choice the plan would make.
        cap = auto_choice(self, smallest)[0]
        if 0 < cap and cap not in c["caps"]:
            self.seeded_cap(smallest, cap)

    def best_cap(self, mb):
        """The sweep's cap (balanced, its contract) with the best drift-free
        speed-up at batch size mb on seed 1, among those that reached L*
        there (the largest cap when none did). Seed 1 alone, which every cap
        has: a cap given more seeds since, or auto's added, does not change
        it when an interrupted sweep resumes."""
        contract = self.state["points"][str(mb)].get("contract", "share")
        got = {}
        for cap in self.c["caps"]:
            first = self.seed_runs(mb, run_stem(mb, cap, "balanced", contract), seeds=(1,))
            if first and first[0]["reached"]:
                got[cap] = first[0]["drift_free"]
        return max(got, key=got.get) if got else max(self.c["caps"])

    def freeze_start(self, mb, cap, share):
        """cap (balanced) at batch size mb on every seed, freezing from step
        share * N instead of the sweep's rule (nothing when the two agree):
        whether the rule's start is the right one, and whether the model's
        dependence on it holds (the report's freezing-start table)."""
        c, entry = self.c, self.state["points"][str(mb)]
        w = int(round(share * c["steps"]))
        if w == entry["warmup"]:
            return
        binary, plan = self.builder(mb).variant(f"timely_{cap}_w{w}", cap, "balanced", w, c["ramp"], "timely",
                                                c["reselect"])
        entry.setdefault("starts", {})[f"{cap}_w{w}"] = dict(cap=cap, warmup=w, plan=plan_numbers(plan))
        for s in range(1, c["seeds_small"] + 1):
            self.capped_run(mb, cap, "balanced", s, entry["lr"], binary, tag=f"_w{w}", contract=entry["contract"])
        self.save()

    def none_log(self, mb, seed):
        """The log of batch size mb's no-freezing run on seed, at its rate."""
        return os.path.join(self.out, "runs", none_key(mb, self.state["points"][str(mb)]["lr"], seed) + ".csv")

    def seed_runs(self, mb, stem, seeds=range(1, 10)):
        """The metrics of runs stem_s1, stem_s2, ... (those of seeds) cached
        with their seed's no-freezing run, each against its own."""
        e, n = self.state["points"][str(mb)], self.c["steps"]
        out = []
        for s in seeds:
            key = f"{stem}_s{s}"
            lp = os.path.join(self.out, "runs", f"{key}.csv")
            base = self.none_log(mb, s)
            if key in self.state.get("runs", {}) and os.path.exists(lp) and os.path.exists(base):
                out.append(metrics(base, lp, n))
        return out

    def seeded_cap(self, mb, cap):
        """cap (balanced) at batch size mb on every seed, 1 to seeds_small;
        added to the table's caps there when it is not one of the sweep's."""
        c, entry = self.c, self.state["points"][str(mb)]
        binary, plan = self.builder(mb).variant(f"timely_{cap}_w{entry['warmup']}", cap, "balanced",
                                                entry["warmup"], c["ramp"], "timely", c["reselect"])
        if cap not in c["caps"]:
            entry["plans"][str(cap)] = plan_numbers(plan)
            entry["extra_caps"] = sorted(set(entry.get("extra_caps", [])) | {cap})
        for s in range(1, c["seeds_small"] + 1):
            self.capped_run(mb, cap, "balanced", s, entry["lr"], binary, contract=entry["contract"])
        self.save()

    # -------------------------------------------------------------- metrics

    def points(self):
        """Every (batch size, cap) with its seeds' metrics, and the model's
        prediction."""
        c, n = self.c, self.c["steps"]
        out = []
        for mb_s, e in sorted(self.state.get("points", {}).items(), key=lambda kv: int(kv[0])):
            mb = int(mb_s)
            if "plans" not in e:
                continue
            for cap in sorted(float(k) for k in e["plans"]):  # every cap planned: the mode's and auto's
                for select, tag, contract in (("balanced", "", "share"), ("balanced", "", "mean"),
                                              ("weights", "_noise", "share"), ("weights", "_noise", "mean")):
                    seeds = self.seed_runs(mb, run_stem(mb, cap, select, contract, tag))
                    if not seeds:
                        continue
                    plan = e["plans"][str(cap)]

                    def model(beta):
                        return tfc_plan.predicted_time_to_quality(
                            beta=beta, frozen_share=plan["frozen_share"], step_ratio=plan["step_ratio"], steps=n,
                            warmup=e["warmup"], ramp=c["ramp"])
                    # beta at the fine-tuning start (the model's input, docs/time-to-quality.md); where
                    # freezing starts too, for comparison
                    beta_w = e.get("freeze_b_simple", e["beta"] * e["batch"]) / e["batch"]
                    pred = model(e["beta"])
                    pred_w = model(beta_w if beta_w > 0 else float("inf"))
                    out.append(dict(mb=mb, batch=e["batch"], beta=e["beta"], beta_freeze=beta_w, cap=cap,
                                    select=select, contract=contract,
                                    regime=contract == e.get("contract", "share"),  # this batch size's contract
                                    seeds=len(seeds), predicted=pred, predicted_freeze=pred_w, plan=plan,
                                    reached=all(x["reached"] for x in seeds),
                                    drift_free=statistics.mean(x["drift_free"] for x in seeds),
                                    drift_free_all=[x["drift_free"] for x in seeds],
                                    wall=statistics.mean(x["wall"] for x in seeds),
                                    steps_to=[x["steps_to"] for x in seeds], gap=[x["gap"] for x in seeds]))
        return out


def auto_choice(sweep, mb, pilot=None):
    """What freeze.max_ratio: auto chooses with this batch size's own
    measurements: its profile, the warm-up and ramp its runs used, and a
    training section from its batch and the noise scale measured at the
    fine-tuning start; with pilot (cap, measured drift-free speed-up), that
    pair as training.pilot. (cap, predicted speed-up, reason, lr_ratio)."""
    e, c = sweep.state["points"][str(mb)], sweep.c
    b = sweep.builder(mb)
    spec = os.path.join(b.out, "variants", "auto_pilot.yaml" if pilot else "auto.yaml")
    os.makedirs(os.path.dirname(spec), exist_ok=True)
    text = b.spec_text(0.9, "balanced", e["warmup"], c["ramp"], c["reselect"]).replace("max_ratio: 0.9", "max_ratio: auto")
    noise = sweep.state["start_b_simple"]  # at the fine-tuning start: the model's input
    more = f", pilot: {{max_ratio: {pilot[0]}, speedup: {pilot[1]:.6g}}}" if pilot else ""
    if e.get("freeze_b_simple", 0) > 0:  # where freezing starts: the upper bound's beta when smaller
        more += f", freeze_noise_scale_tokens: {e['freeze_b_simple']:.6g}"
    text += (f"training: {{batch_tokens: {e['batch']}, noise_scale_tokens: {noise}, "
             f"steps: {c['steps']}{more}}}\n")
    with open(spec, "w") as f:
        f.write(text)
    r = subprocess.run([sweep.args.tfc, "plan", spec, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        if pilot:  # a pilot the model cannot use (tfc says why)
            return None, None, r.stderr.strip().split("\n")[0], None
        raise SystemExit(f"batch_regime: tfc plan {spec}: {r.stderr[:400]}")
    t = json.loads(r.stdout)["time_to_quality"]
    # a float, as the sweep's caps are: plan.json writes cap 1 as 1, and the
    # runs' cache keys format the cap (mb8_timely_1.0_...)
    return float(t["cap"]), t["predicted_speedup"], t["reason"], t.get("lr_ratio")


def none_key(mb, lr, seed):
    """A no-freezing run's cache key (its log is runs/KEY.csv): batch size
    mb's run at rate lr on seed, the rate printed as the sweep picks it."""
    return f"mb{mb}_none_lr{lr:.3g}_s{seed}"


def run_stem(mb, cap, select, contract, tag=""):
    """A frozen run's cache key without its seed (_s1, ...): the contract
    named after the tag unless it is share (share runs keep the keys they
    had before contracts were named)."""
    return f"mb{mb}_timely_{cap}_{select}{tag}" + ("" if contract == "share" else f"_{contract}")


def start_rows(mb, e, cap):
    """--freeze-from's runs of cap (balanced) at batch size mb (its points
    entry e), by start: (warmup, plan numbers, run stem, the rule's start)."""
    rows = [(e["warmup"], e["plans"][str(cap)], run_stem(mb, cap, "balanced", e["contract"]), True)]
    rows += [(v["warmup"], v["plan"], run_stem(mb, cap, "balanced", e["contract"], f"_w{v['warmup']}"), False)
             for v in e.get("starts", {}).values() if v["cap"] == cap]
    return sorted(rows, key=lambda row: row[0])


def starts_table(sweep):
    """--freeze-from: per batch size that ran them, its cap freezing from
    each step against the sweep's rule's start (its own row), every seed
    against its own no-freezing run, beside the model's prediction for that
    start, without and with this sweep's pilot (the lr_ratio auto_choice
    found; call after it). (markdown, one summary line per cap)."""
    n, ramp = sweep.c["steps"], sweep.c["ramp"]
    lines, summaries = [], []
    for mb_s, e in sorted(sweep.state.get("points", {}).items(), key=lambda kv: int(kv[0])):
        if not e.get("starts"):
            continue
        mb = int(mb_s)
        k = (e.get("auto_pilot") or {}).get("lr_ratio")
        for cap in sorted({v["cap"] for v in e["starts"].values()}):
            done = []
            for w, plan, stem, rule in start_rows(mb, e, cap):
                seeds = sweep.seed_runs(mb, stem)
                if not seeds:
                    continue

                def model(lr_ratio, w=w, plan=plan):
                    return tfc_plan.predicted_time_to_quality(
                        beta=e["beta"], frozen_share=plan["frozen_share"], step_ratio=plan["step_ratio"], steps=n,
                        warmup=w, ramp=ramp, lr_ratio=lr_ratio)
                df = [x["drift_free"] for x in seeds]
                reached = all(x["reached"] for x in seeds)
                done.append(dict(w=w, df=statistics.mean(df), reached=reached, predicted=model(None)))
                mark = "" if reached else "<"
                spread = f" [{min(df):.3f}, {max(df):.3f}]" if len(df) > 1 else ""
                st = ", ".join("-" if x["steps_to"] is None else f"{x['steps_to']:.0f}" for x in seeds)
                lines.append(f"| {e['batch']:,} | {e['beta']:.3f} | {cap} | step {w}" + (" (the rule's)" if rule else "")
                             + f" | {plan['step_ratio']:.3f} | {plan['frozen_share']:.3f} | {len(seeds)} | {st} | "
                             f"{mark}{statistics.mean(df):.3f}{spread} | {model(None):.3f} | "
                             + (f"{model(k):.3f} |" if k is not None else "- |"))
            got = [d for d in done if d["reached"]]
            if len(done) > 1 and got:
                best = max(got, key=lambda d: d["df"])
                rule = next((d for d in done if d["w"] == e["warmup"]), None)
                pick = max(done, key=lambda d: d["predicted"])
                summaries.append(f"batch_regime_starts batch={e['batch']} cap={cap} rule_start={e['warmup']} "
                                 f"rule_speedup={rule['df'] if rule else float('nan'):.4f} best_start={best['w']} "
                                 f"best_speedup={best['df']:.4f} model_start={pick['w']}")
    if not lines:
        return "", summaries
    head = ["| batch (predictions) | beta at the start | cap | freezing from | step ratio (plan) | frozen share | "
            "seeds | steps to L* | drift-free speedup | predicted | predicted with the pilot |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    return "\n".join(head + lines), summaries


def plan_numbers(plan):
    """What the model needs from a plan: its step ratio and the frozen
    element share (each stage's mean ratio weighted by its elements)."""
    numel = [sum(p["numel"] for p in st) for st in plan["stage_params"]]
    share = sum(numel[s["stage"]] * s["mean_freeze_ratio"] for s in plan["stages"]) / sum(numel)
    return dict(step_ratio=plan["makespan_ms"] / plan["baseline_makespan_ms"], frozen_share=share,
                makespan_ms=plan["makespan_ms"], baseline_ms=plan["baseline_makespan_ms"],
                stage_numel=numel, stage_ratio=[s["mean_freeze_ratio"] for s in plan["stages"]],
                stage_tensors=[[p["name"] for p in st] for st in plan["stage_params"]])


def curve(path, n):
    rows, evals = ttq.read_log(path)
    plan_t, t = {}, 0.0
    for r in rows:
        t += float(r["plan_ms"])
        plan_t[int(r["step"])] = t
    # (step, wall_s, plan seconds, smoothed loss) at each evaluation
    sm = ttq.smooth(evals)
    return rows, [(s, w, plan_t.get(s, 0.0) / 1000.0, v) for s, w, v in sm]


def time_at(points, target, col):
    prev = None
    for p in points:
        if p[3] <= target:
            if prev is None or prev[3] <= p[3]:
                return p[col]
            return prev[col] + (p[col] - prev[col]) * (prev[3] - target) / (prev[3] - p[3])
        prev = p
    return None


def metrics(base_log, run_log, n):
    _, b = curve(base_log, n)
    rows, r = curve(run_log, n)
    lstar = b[-1][3]
    tb_plan, tb_wall, sb = time_at(b, lstar, 2), time_at(b, lstar, 1), time_at(b, lstar, 0)
    tr_plan, tr_wall, sr = time_at(r, lstar, 2), time_at(r, lstar, 1), time_at(r, lstar, 0)
    reached = tr_plan is not None
    if not reached:  # the bound V = T_none(L*) / T_run(end)
        tr_plan, tr_wall = r[-1][2], r[-1][1]
    at_n = ttq.interpolated_at(r, n - 1)
    gap = (at_n - lstar) / lstar if at_n is not None else float("nan")
    return dict(reached=reached, drift_free=tb_plan / tr_plan, wall=tb_wall / tr_wall,
                steps_to=(sr + 1) if reached else None, none_steps=sb + 1, gap=gap)


def noise_weights(tensors, batch):
    """freeze_weight per tensor from its noise scale (tools/noise_weights.py)."""
    return nw.weights(tensors, batch)


# ------------------------------------------------------------------ report

def table(points):
    lines = ["| batch (predictions) | beta at the start | beta where freezing starts | cap | select | contract | seeds | "
             "step ratio (plan) | frozen share | steps to L* (none: N) | gap at equal steps | predicted (from beta "
             "where freezing starts, for comparison) | drift-free speedup | wall-clock speedup |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for p in points:
        st = ["-" if s is None else f"{s:.0f}" for s in p["steps_to"]]
        df = p["drift_free_all"]
        spread = f" [{min(df):.3f}, {max(df):.3f}]" if len(df) > 1 else ""
        mark = "" if p["reached"] else "<"
        gaps = [g for g in p["gap"] if not math.isnan(g)]
        bw = p.get("beta_freeze", p["beta"])
        contract = p.get("contract", "share") + ("" if p.get("regime", True) else " (contrast)")
        lines.append(f"| {p['batch']:,} | {p['beta']:.3f} | {bw:.3f} | {p['cap']} | {p['select']} | {contract} | "
                     f"{p['seeds']} | {p['plan']['step_ratio']:.3f} | {p['plan']['frozen_share']:.3f} | "
                     f"{', '.join(st)} | {100 * statistics.mean(gaps) if gaps else float('nan'):+.2f}% | "
                     f"{p['predicted']:.3f} ({p.get('predicted_freeze', p['predicted']):.3f}) | "
                     f"{mark}{p['drift_free']:.3f}{spread} | {mark}{p['wall']:.3f} |")
    return "\n".join(lines)


def summary_line(points):
    errs = []
    for p in points:
        if p["select"] != "balanced" or not p.get("regime", True):
            continue
        if p["reached"]:
            errs.append(abs(p["predicted"] - p["drift_free"]))
        elif p["predicted"] > p["drift_free"]:  # only the bound, and only where the prediction is above it
            errs.append(p["predicted"] - p["drift_free"])
    bal = [p for p in points if p["select"] == "balanced" and p.get("regime", True)]
    reached = [p for p in bal if p["reached"]]
    best = max(reached, key=lambda p: p["drift_free"]) if reached else None
    k = len(bal)
    e = max(errs) if errs else 0.0
    if best:
        return (f"batch_regime points={k} max_abs_err={e:.4f} best_speedup={best['drift_free']:.4f} "
                f"best_beta={best['beta']:.4f} best_cap={best['cap']}")
    return f"batch_regime points={k} max_abs_err={e:.4f} best_speedup=0.0000 best_beta=0.0000 best_cap=0"


def svg(points, path, ramp_share):
    """Drift-free speedup against beta (log scale): measured points per cap,
    the model's curves at each cap's mean step ratio and frozen share, and
    each cap's break-even beta."""
    W, H, x0, y0, w, h = 940, 420, 70, 30, 560, 340
    bal = [p for p in points if p["select"] == "balanced" and p.get("regime", True)]
    if not bal:
        return
    def xb(p):  # the model's input: beta at the fine-tuning start
        return p["beta"]
    betas = [xb(p) for p in bal]
    lo, hi = math.floor(math.log10(min(betas) / 2)), min(3, math.ceil(math.log10(max(betas) * 2)))
    ys = [p["drift_free"] for p in bal] + [p["predicted"] for p in bal] + [1.0]
    ylo, yhi = math.floor(min(ys) * 10 - 1) / 10, math.ceil(max(ys) * 10 + 1) / 10
    px = lambda b: x0 + (math.log10(b) - lo) / (hi - lo) * w  # noqa: E731
    py = lambda v: y0 + h - (v - ylo) / (yhi - ylo) * h  # noqa: E731
    colours = {0.3: "#54a24b", 0.6: "#f58518", 0.9: "#e45756"}
    o = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H + 40}" font-family="sans-serif" '
         f'font-size="11">', f'<rect width="{W}" height="{H + 40}" fill="white"/>',
         f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#999"/>',
         f'<text x="{x0}" y="18" font-size="13">time-to-quality speedup (drift-free) against beta = B_simple / batch '
         'at the fine-tuning start</text>']
    for e in range(lo, hi + 1):
        o.append(f'<line x1="{px(10 ** e):.1f}" y1="{y0}" x2="{px(10 ** e):.1f}" y2="{y0 + h}" stroke="#eee"/>'
                 f'<text x="{px(10 ** e):.1f}" y="{y0 + h + 16}" text-anchor="middle">{10.0 ** e:g}</text>')
    v = ylo
    while v <= yhi + 1e-9:
        o.append(f'<line x1="{x0}" y1="{py(v):.1f}" x2="{x0 + w}" y2="{py(v):.1f}" stroke="#eee"/>'
                 f'<text x="{x0 - 6}" y="{py(v) + 4:.1f}" text-anchor="end">{v:.1f}</text>')
        v += 0.1
    o.append(f'<line x1="{x0}" y1="{py(1):.1f}" x2="{x0 + w}" y2="{py(1):.1f}" stroke="#333" stroke-dasharray="4 3"/>')
    o.append(f'<text x="{x0 + w / 2}" y="{y0 + h + 32}" text-anchor="middle">beta at the fine-tuning start (log scale; '
             f'above 1 the batch is below its noise scale)</text>')
    ly = y0 + 10
    for cap in sorted({p["cap"] for p in bal}):
        mine = [p for p in bal if p["cap"] == cap]
        col = colours.get(cap, "#4c78a8")  # a cap auto chose beside the sweep's
        r = statistics.mean(p["plan"]["step_ratio"] for p in mine)
        f = statistics.mean(p["plan"]["frozen_share"] for p in mine)
        pts = []
        for i in range(101):
            b = 10 ** (lo + (hi - lo) * i / 100)
            # the sweep's own warm-up rule: half the run below the noise scale, a quarter above it
            v = tfc_plan.predicted_time_to_quality(beta=b, frozen_share=f, step_ratio=r, steps=1000,
                                                   warmup=500, ramp=int(1000 * ramp_share))
            pts.append(f"{px(b):.1f},{py(max(ylo, min(yhi, v))):.1f}")
        o.append(f'<polyline fill="none" stroke="{col}" stroke-width="1.5" stroke-dasharray="5 3" '
                 f'points="{" ".join(pts)}"/>')
        be = tfc_plan.break_even_beta(frozen_share=f, step_ratio=r)
        if be and 10 ** lo < be < 10 ** hi:
            o.append(f'<line x1="{px(be):.1f}" y1="{y0}" x2="{px(be):.1f}" y2="{y0 + h}" stroke="{col}" '
                     f'stroke-width="0.8"/>')
        for p in mine:
            # the model's own prediction for this run (its warm-up): a cross
            xp, yp = px(min(xb(p), 10 ** hi)), py(max(ylo, min(yhi, p["predicted"])))
            o.append(f'<path d="M{xp - 4:.1f},{yp - 4:.1f} L{xp + 4:.1f},{yp + 4:.1f} M{xp - 4:.1f},{yp + 4:.1f} '
                     f'L{xp + 4:.1f},{yp - 4:.1f}" stroke="{col}" stroke-width="1.5"/>')
            mark = "circle" if p["reached"] else "rect"
            x, y = px(min(xb(p), 10 ** hi)), py(max(ylo, min(yhi, p["drift_free"])))
            if mark == "circle":
                o.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{col}"><title>cap {cap}, beta '
                         f'{xb(p):.3g}: {p["drift_free"]:.3f} (predicted {p["predicted"]:.3f})</title></circle>')
            else:
                o.append(f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="none" stroke="{col}">'
                         f'<title>cap {cap}, beta {xb(p):.3g}: never reached L*, at most {p["drift_free"]:.3f}'
                         f'</title></rect>')
        o.append(f'<circle cx="{x0 + w + 20}" cy="{ly}" r="4" fill="{col}"/><text x="{x0 + w + 30}" y="{ly + 4}">'
                 f'cap {cap}</text>')
        o.append(f'<text x="{x0 + w + 30}" y="{ly + 18}" fill="#555">r {r:.2f}, f {f:.2f}'
                 + (f', break-even {be:.2f}' if be else '') + '</text>')
        ly += 40
    for k, line in enumerate(["dots: measured; crosses: the model's", "prediction for that run (tfc's model);",
                              "dashed: the model at each cap's mean step", "ratio r and frozen share f, freezing",
                              "from N/2; vertical: the break-even beta;", "square: never reached L* (its bound)"]):
        o.append(f'<text x="{x0 + w + 12}" y="{ly + 4 + 14 * k}" fill="#555">{line}</text>')
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="the smallest beta's three caps and one middle batch size, one seed, and auto's cap there")
    ap.add_argument("--ci", action="store_true", help="a few steps of everything")
    ap.add_argument("--data", help="a folder of text (default: Debian's documentation, about 40 MB)")
    ap.add_argument("--out", help="output folder (default build/batch_regime_{full,quick,ci})")
    ap.add_argument("--tfc", default=os.path.join(ROOT, "build", "tfc"))
    ap.add_argument("--mb", help="sequences per microbatch, comma-separated (overrides the mode's)")
    ap.add_argument("--steps", type=int, help="N, the no-freezing run's steps")
    ap.add_argument("--seeds", type=int, help="seeds at the smallest beta (overrides the mode's: full 3, quick 1)")
    ap.add_argument("--caps", help="the caps every batch size runs, comma-separated (default 0.3,0.6,0.9)")
    ap.add_argument("--seed-caps", help="more caps run on every seed at the smallest beta, comma-separated "
                    "(the best cap always is)")
    ap.add_argument("--freeze-from", help="the best cap at the smallest beta and the --seed-caps again on every "
                    "seed, freezing from these shares of N instead of the rule's (half the run below the noise "
                    "scale, a quarter above it), comma-separated: e.g. 0,0.125,0.5")
    ap.add_argument("--no-weights", action="store_true", help="no freeze_weight run at the smallest beta")
    ap.add_argument("--beta2", type=float, help="AdamW's beta2 in the fine-tuning runs (default the trainer's, 0.999)")
    ap.add_argument("--model", choices=sorted(POSITIONS), default="mlp_narrow",
                    help="tiny_trainer's model (default mlp_narrow, the one two cores can afford at large batches; "
                    "gpt: the transformer, about 4x slower a prediction)")
    ap.add_argument("--report", action="store_true", help="only the report, from the runs cached in --out")
    args = ap.parse_args()
    mode = "ci" if args.ci else "quick" if args.quick else "full"
    args.out = os.path.abspath(args.out or os.path.join(ROOT, "build", f"batch_regime_{mode}"))
    os.makedirs(args.out, exist_ok=True)
    if not args.data:
        if args.ci:
            args.data = "/usr/share/common-licenses"
        else:
            args.data = os.path.join(args.out, "data")
            if not os.path.isdir(args.data):
                total, kept = ttq.debian_text(args.data + ".tmp", 40 << 20)
                os.replace(args.data + ".tmp", args.data)
                log(f"data: {kept} files, {total / 1e6:.1f} MB of Debian's documentation")
    cfg = config(args)
    t0 = time.time()
    sw = Sweep(args, cfg)
    if not args.report:
        sw.run_all()
    pts = sw.points()
    md = table(pts)
    st = sw.state
    beta2 = f"; AdamW beta2 {cfg['beta2']}" if cfg.get("beta2") else ""
    head = [f"# batch-regime sweep ({mode})", "",
            f"{MODEL_NAMES[cfg['model']]}, fine-tuning from {cfg['pretrain']} pretraining steps (validation loss "
            f"{st.get('pretrain_val_loss', float('nan')):.4f}); N = {cfg['steps']} steps, ramp {cfg['ramp']}, "
            f"re-drawn every {cfg['reselect']}{beta2}; B_simple at the fine-tuning start {st['start_b_simple']:.0f} "
            f"predictions; {time.time() - t0:.0f} s this run", "",
            "| batch (predictions) | sequences a step | peak lr (sweep: final loss) | B_simple at the end | "
            "freezing from | max_ratio: auto chooses | with a pilot (training.pilot: its largest cap that reached L*) |",
            "| --- | --- | --- | --- | --- | --- | --- |"]
    groups = ttq_models.sweep_groups(pts, st)  # per batch size, as the pilot table below takes them
    for mb_s, e in sorted(st.get("points", {}).items(), key=lambda kv: int(kv[0])):
        sweep = ", ".join(f"{k}: {v:.4f}" for k, v in e.get("lr_sweep", {}).items())
        cap, pred, why, _ = auto_choice(sw, int(mb_s))
        e["auto"] = dict(cap=cap, predicted=pred, reason=why)
        chosen = ttq_models.pick_pilot(groups.get(f"{e['batch']:,}", []))
        pilot = (chosen["cap"], chosen["df"]) if chosen else None
        with_pilot = "no cap reached L*"
        if pilot:
            pc, pp, pwhy, k = auto_choice(sw, int(mb_s), pilot)
            e["auto_pilot"] = dict(pilot=list(pilot), cap=pc, predicted=pp, reason=pwhy, lr_ratio=k)
            with_pilot = (f"pilot cap {pilot[0]} at {pilot[1]:.3f}: " +
                          (f"{pc} ({pp:.3f}x predicted; lr_ratio {k:.3f})" if pc is not None else pwhy))
        head.append(f"| {e['batch']:,} | {int(mb_s) * 8} | {e['lr']:.3g} ({sweep}) | "
                    f"{e.get('end_b_simple', float('nan')):.0f} | step {e.get('warmup', 0)} | "
                    f"{cap} ({pred:.3f}x predicted; {why}) | {with_pilot} |")
    text = "\n".join(head) + "\n\n" + md + "\n"
    cand = ttq_models.table(pts, st, cfg["steps"], cfg["ramp"])
    if cand:  # bench/ttq_models.py: the candidates, best first by the largest error
        text += ("\nThe model's candidates (bench/ttq_models.py), each point's predicted drift-free speed-up, "
                 "best first:\n\n" + cand + "\n")
    if groups:  # the planned model with a pilot pair per batch size (training.pilot)
        ptab, worst, k = ttq_models.pilot_table(groups, lambda _: cfg["steps"], lambda _: cfg["ramp"])
        text += ("\nWith a pilot (training.pilot): each batch size's largest cap that reached L* gives the "
                 "learning-rate ratio k, the model in Adam's form (the trainer's optimiser, training.optimizer's "
                 "default) predicts its other caps (bench/ttq_models.py, pilot_table); "
                 f"largest error {worst:.3f} over {k} points:\n\n" + ptab + "\n")
    if groups:  # the plan's upper bound (time_to_quality.upper_bound: the prediction at lr_ratio 0)
        blines, k, above, worst, cannot, paid = ttq_bound.score_sweeps(
            [("this sweep", cfg["steps"], cfg["ramp"], groups)], "adam")
        text += ("\nThe plan's upper bound (time_to_quality.upper_bound, the most freezing buys at any learning "
                 f"rate; bench/ttq_bound.py): {above} of {k} points measured above it, by at most {worst:.3f}; "
                 f"{cannot} bound at or below 1, {paid} of them measured above 1:\n\n" + "\n".join(blines) + "\n")
    stab, starts = starts_table(sw)
    if stab:  # --freeze-from
        text += ("\nWhere freezing starts (--freeze-from): the cap again from other steps, each seed against its "
                 "own no-freezing run; predicted by the model for that start, and with the pilot's lr_ratio "
                 "(found at the rule's start):\n\n" + stab + "\n\n" + "\n".join(starts) + "\n")
    with open(os.path.join(args.out, "results.md"), "w") as f:
        f.write(text)
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(dict(config=cfg, state=st, points=pts), f, indent=1, sort_keys=True, default=str)
    svg(pts, os.path.join(args.out, "speedup_vs_beta.svg"), cfg["ramp"] / cfg["steps"])
    print(text)
    print(summary_line(pts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
