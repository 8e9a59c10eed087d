#!/usr/bin/env python3
"""Time to quality in the plan (ctest ttq_model; docs/time-to-quality.md,
docs/plan-json.md):

  - parity: for every spec in specs/ and 60 varied random specs, each given
    a training section (random batch, noise scale and steps), plan.json's
    time_to_quality recomputed here from the plan's own fields: the frozen
    element share (each stage's mean ratio weighted by its elements), the
    step ratio, and python/tfc_plan.py's predicted_time_to_quality and
    break_even_beta, bit for bit;
  - the model's own consistency: at the break-even beta the predicted
    speed-up is 1; it falls as beta grows; nothing frozen predicts 1;
  - freeze.max_ratio: auto against an oracle written here: the spec planned
    at each cap 0, 0.1, ..., 1 on its own, the best predicted speed-up
    taken (the lowest cap among equals, 0 unless it beats 1); auto's plan is
    that cap's plan, action for action; at beta 10 no cap pays (cap 0, the
    optimised makespan the baseline, a reason naming the break-even);
  - without training, plan.json has no time_to_quality and tfc plan says it
    cannot predict one;
  - training.lr_ratio's bound: python's LR_RATIO_MAX is refused by tfc, the
    largest double below it taken as given;
  - the upper bound (time_to_quality.upper_bound): python's
    time_to_quality_bound bit for bit, at the smaller of the start's beta
    and training.freeze_noise_scale_tokens' (given in 40% of the specs), at or above the prediction, against
    its written-out form and every learning-rate ratio; where auto finds no
    cap that pays, its reason names the cap that bounds highest;
  - with auto, --dump-lp writes the chosen cap's LP and --policy none
    plans that cap (nothing frozen).

Usage: ttq_check.py TFC SOURCE_DIR
"""
import csv
import glob
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

tfc, src = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(src, "python"))
sys.path.insert(0, os.path.join(src, "tests", "support"))
import tfc_plan  # noqa: E402
from random_specs import varied_specs  # noqa: E402

bad = []


def plan_json(spec):
    r = subprocess.run([tfc, "plan", spec, "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"ttq check: tfc plan {spec} exited {r.returncode}: {r.stderr[:300]}")
    return json.loads(r.stdout)


def with_training(text, batch, noise, steps, cap=None, warmup=None, ramp=None, extra=""):
    """The spec with a training section (and, given, a freeze mapping of its
    own; extra: more training keys, ", lr_ratio: 0.5")."""
    lines = text.rstrip("\n").split("\n")
    if cap is not None:
        # drop the spec's freeze mapping (flow or block) and write one
        out, skip = [], False
        for l in lines:
            if re.match(r"freeze:", l):
                skip = not l.rstrip().endswith("}") and "{" not in l
                continue
            if skip and (l.startswith(" ") or not l.strip()):
                continue
            skip = False
            out.append(l)
        lines = out + [f"freeze: {{max_ratio: {cap}, warmup_steps: {warmup}, ramp_steps: {ramp}}}"]
    lines.append(f"training: {{batch_tokens: {batch}, noise_scale_tokens: {noise}, steps: {steps}{extra}}}")
    return "\n".join(lines) + "\n"


def recompute(plan, spec_yaml_text, where, optimizer="adam"):
    """plan.json's time_to_quality against python's model on the plan's
    own fields; optimizer: the spec's training.optimizer, as the test wrote
    it (adamw is adam)."""
    t = plan.get("time_to_quality")
    if t is None:
        bad.append(f"{where}: no time_to_quality in plan.json")
        return None
    numel = [sum(p["numel"] for p in st) for st in plan["stage_params"]]
    total, frozen = 0.0, 0.0
    for st in plan["stages"]:
        total += float(numel[st["stage"]])
        frozen += float(numel[st["stage"]]) * st["mean_freeze_ratio"]
    f = frozen / total if total > 0 else 0.0
    r = plan["makespan_ms"] / plan["baseline_makespan_ms"] if plan["baseline_makespan_ms"] > 0 else 1.0
    beta = t["noise_scale_tokens"] / t["batch_tokens"]
    fz = plan["freeze"]
    k = t.get("lr_ratio")
    want = tfc_plan.predicted_time_to_quality(beta=beta, frozen_share=f, step_ratio=r, steps=t["steps"],
                                              warmup=fz["warmup_steps"], ramp=fz["ramp_steps"], lr_ratio=k,
                                              optimizer=optimizer)
    w = fz["warmup_steps"] + fz["ramp_steps"] / 2
    # no beta pays where nothing is frozen, or where the run ends before freezing takes hold
    be = tfc_plan.break_even_beta(f, r, k, optimizer) if f > 0 and t["steps"] > w else None
    # the bound at the smaller beta: the start's or where freezing starts (training.freeze_noise_scale_tokens)
    fn = t.get("freeze_noise_scale_tokens")
    bound = tfc_plan.time_to_quality_bound(beta=beta, frozen_share=f, step_ratio=r, steps=t["steps"],
                                           warmup=fz["warmup_steps"], ramp=fz["ramp_steps"], optimizer=optimizer,
                                           freeze_beta=None if fn is None else fn / t["batch_tokens"])
    if t.get("optimizer") != ("sgd" if optimizer == "sgd" else "adam"):
        bad.append(f"{where}: time_to_quality.optimizer {t.get('optimizer')!r}, the spec's {optimizer}")
    if not t.get("upper_bound", -1.0) >= t["predicted_speedup"]:  # no learning-rate ratio gives more
        bad.append(f"{where}: upper_bound {t.get('upper_bound')!r} below predicted_speedup {t['predicted_speedup']!r}")
    checks = [("beta", t["beta"], beta), ("frozen_share", t["frozen_share"], f), ("step_ratio", t["step_ratio"], r),
              ("predicted_speedup", t["predicted_speedup"], want), ("upper_bound", t.get("upper_bound"), bound),
              ("break_even_beta", t["break_even_beta"], be if be is not None and math.isfinite(be) else None),
              ("cap", t["cap"], plan["max_ratio"]),
              ("optimizer_contract", t["optimizer_contract"], tfc_plan.optimizer_contract(beta))]
    for key, got, exp in checks:
        if got != exp:
            bad.append(f"{where}: time_to_quality.{key} {got!r}, recomputed {exp!r}")
    # "none" gives its cause: a step no shorter is said as that, everything frozen as that
    if ("break-even none (the step is no shorter)" in t["reason"]) != (f > 0 and r >= 1 and t["steps"] > w and
                                                                       t["predicted_speedup"] <= 1 and not t["auto"]):
        bad.append(f"{where}: step ratio {r}, frozen share {f}: reason {t['reason']!r}")
    if f >= 1 and not t["auto"] and t["steps"] > w and \
            not t["reason"].endswith("break-even none at cap 1; everything is frozen, so the run never reaches the loss"
                                     "; not even if the rate limits the run (at most 0.000x)"):
        bad.append(f"{where}: everything frozen, reason {t['reason']!r}")
    late = f"freezing does not pay: it takes hold at step {w:g} (freeze.warmup_steps + ramp_steps / 2), not before " \
           f"the run's {t['steps']} steps end"
    if (f > 0 or t["auto"]) and not t["steps"] > w:
        # the run ends before freezing takes hold: that is the reason, no bound
        if t["reason"] != late or t["predicted_speedup"] != 1.0 or t["upper_bound"] != 1.0:
            bad.append(f"{where}: a run of {t['steps']} steps, freezing from step {w:g}: predicted "
                       f"{t['predicted_speedup']}, bound {t['upper_bound']}, reason {t['reason']!r}, wanted {late!r}")
        late_runs[t["auto"]] += 1
    elif not t["auto"] and k is None and f > 0 and t["predicted_speedup"] <= 1:
        # a cap that does not pay says what it could buy at any learning rate
        note = (r"; at most (\S+)x if the rate, not the noise, limits the run" if bound > 1 else
                r"; not even if the rate limits the run \(at most (\S+)x\)")
        notes[bound > 1] += 1
        m = re.search(note, t["reason"])
        if not t["reason"].startswith("freezing does not pay") or not m or not rounds_to(m.group(1), bound):
            bad.append(f"{where}: the reason lacks {note!r} with {bound!r}: {t['reason']}")
    elif "if the rate" in t["reason"] and not t["auto"]:
        bad.append(f"{where}: the bound named where the prediction pays or lr_ratio is known: {t['reason']}")
    sides(t["reason"], t["predicted_speedup"], t["beta"], t["break_even_beta"], where)
    return t


def beta_of(t):
    return t["noise_scale_tokens"] / t["batch_tokens"]


def rounds_to(text, v):
    """Whether text is v rounded to its own decimals (at least 3 of them,
    or as many as 3 significant digits take below 1)."""
    dec = len(text.split(".")[1]) if "." in text else 0
    return abs(float(text) - v) <= 0.5 * 10 ** -dec * (1 + 1e-9) and (dec >= 3 or abs(v) >= 1)


sided = {"beta": 0, "bound": 0, "speed-up": 0}  # reasons whose numbers' sides were checked


def sides(reason, speedup, beta, break_even, where):
    """A reason's numbers read back compare as the values behind them do: a
    beta named beside its break-even is below it where freezing pays, above
    or on it where it does not; a bound above 1 is written above 1, one at
    or below 1 not above it; auto's predicted speed-up above 1."""
    m = re.search(r"at beta (\S+): break-even ([0-9][0-9.e+-]*)", reason)
    if m and break_even is not None and abs(beta / break_even - 1) > 1e-12:
        sided["beta"] += 1
        if (float(m.group(1)) < float(m.group(2))) != (beta < break_even) or \
                ("freezing pays" in reason) != (beta < break_even and speedup > 1):
            bad.append(f"{where}: beta {beta!r}, break-even {break_even!r}, predicted {speedup!r}: {reason!r}")
    for m in re.finditer(r"at most (\S+)x(?: at cap \S+)?( if the rate)?", reason):
        sided["bound"] += 1
        if (float(m.group(1)) > 1) != bool(m.group(2)):
            bad.append(f"{where}: a bound written on the wrong side of 1: {reason!r}")
    m = re.search(r"to 1 at beta \S+: (\S+)x \(break-even", reason)
    if m:
        sided["speed-up"] += 1
        if not float(m.group(1)) > 1:
            bad.append(f"{where}: auto's cap pays, its speed-up is written {m.group(1)}: {reason!r}")


notes = {False: 0, True: 0}  # reasons checked with the bound above 1, at or below it
auto_notes = {False: 0, True: 0}  # the same, of auto's choices of cap 0
k_lines = {False: 0, True: 0}  # auto's plans without and with the line saying no learning-rate ratio is given
late_runs = {False: 0, True: 0}  # plans of runs that end before freezing takes hold (auto's: True)


def check_pilot(t, text, batch, noise, steps, pilot, path, name, optimizer="adam"):
    """training.pilot: lr_ratio is what python's lr_ratio_from_pilot derives
    from the spec planned at the pilot's cap on its own (bit for bit), and
    with it the model predicts the pilot's own speed-up at that cap (the
    inversion, checked forwards); the reason notes the extrapolation where,
    and only where, this plan freezes a larger share than the pilot cap's
    own plan. Returns whether it does (None: not checked)."""
    at = path + ".cap.yaml"
    with open(at, "w") as fh:
        fh.write(with_training(text, batch, noise, steps))
    try:
        own = plan_json_at(at, pilot[0])
    finally:
        os.remove(at)
    o = own["time_to_quality"]
    fz = own["freeze"]
    want = tfc_plan.lr_ratio_from_pilot(o["beta"], o["frozen_share"], o["step_ratio"], steps, fz["warmup_steps"],
                                        fz["ramp_steps"], pilot[1], optimizer)
    if t.get("lr_ratio") != want or t.get("pilot") != {"max_ratio": pilot[0], "speedup": pilot[1]}:
        bad.append(f"{name}: lr_ratio {t.get('lr_ratio')!r} pilot {t.get('pilot')}, "
                   f"from the pilot cap's plan {want!r}")
        return None
    back = tfc_plan.predicted_time_to_quality(o["beta"], o["frozen_share"], o["step_ratio"], steps,
                                              fz["warmup_steps"], fz["ramp_steps"], want, optimizer)
    if want > 0 and abs(back - pilot[1]) > 1e-9 * pilot[1]:
        bad.append(f"{name}: with lr_ratio {want} the pilot cap {pilot[0]} predicts {back}, not the pilot's {pilot[1]}")
    above = t["frozen_share"] > o["frozen_share"] + 1e-6
    note = re.search(r"; extrapolated: cap (\S+) freezes more than the pilot's cap (\S+) \(", t["reason"])
    if bool(note) != above or (note and float(note.group(2)) != pilot[0]):
        bad.append(f"{name}: frozen share {t['frozen_share']} against the pilot cap {pilot[0]}'s {o['frozen_share']}, "
                   f"reason {t['reason']!r}")
    return above


def plan_json_at(path, cap):
    """plan.json of the spec at path with freeze.max_ratio set to cap (the
    spec's own freeze mapping otherwise)."""
    text = open(path).read()
    m = re.search(r"max_ratio: *[^,}\n]+", text)
    if "freeze:" in text and m:
        text = text[:m.start()] + f"max_ratio: {cap}" + text[m.end():]
    else:
        text = text.rstrip("\n") + f"\nfreeze: {{max_ratio: {cap}}}\n"
    with open(path, "w") as fh:
        fh.write(text)
    return plan_json(path)


def main():
    rng = random.Random(20261203)
    with tempfile.TemporaryDirectory() as work:
        # 1. parity
        specs = sorted(glob.glob(os.path.join(src, "specs", "*.yaml")))
        os.makedirs(os.path.join(work, "random"))
        specs += varied_specs(60, os.path.join(work, "random"))
        n = n_pilot = n_pilot_refused = n_freeze_noise = 0
        n_above = {True: 0, False: 0}
        for spec in specs:
            text = open(spec).read()
            batch = rng.choice([512, 4096, 65536, 1 << 20])
            noise = round(batch * 10 ** rng.uniform(-2.5, 1.5), 3)
            path = os.path.join(os.path.dirname(spec) if "random" in spec else work, "ttq_" + os.path.basename(spec))
            if "order:" in text and "random" not in spec:  # a custom order next to the spec
                path = os.path.join(os.path.dirname(spec), ".ttq_" + os.path.basename(spec))
            steps = rng.choice([100, 1000, 50000])
            kind = n % 3  # 0: the batch regime alone, 1: lr_ratio given, 2: a pilot
            k = round(rng.uniform(0.0, 1.95), 4)
            pilot = (rng.choice([0.3, 0.6, 0.9]), round(rng.uniform(0.5, 1.3), 3))
            extra = ["", f", lr_ratio: {k}", f", pilot: {{max_ratio: {pilot[0]}, speedup: {pilot[1]}}}"][kind]
            opt = rng.choice([None, "adam", "adamw", "sgd"])  # None: the default, adam
            if opt:
                extra += f", optimizer: {opt}"
            freeze_noise = None
            if rng.random() < 0.4:  # the noise scale where freezing starts, below or above the start's
                freeze_noise = round(noise * 10 ** rng.uniform(-1.5, 0.5), 3) or 1.0
                extra += f", freeze_noise_scale_tokens: {freeze_noise}"
            opt = opt or "adam"
            with open(path, "w") as fh:
                fh.write(with_training(text, batch, noise, steps, extra=extra))
            try:
                name = os.path.basename(spec)
                r = subprocess.run([tfc, "plan", path, "--json"], capture_output=True, text=True)
                if kind == 2 and r.returncode != 0:
                    # the pilot's speed-up may be more than its plan's step allows, or its cap freeze nothing
                    if not re.search(r":\d+:\d+: error: training\.pilot: ", r.stderr):
                        bad.append(f"{name}: a pilot the model cannot use fails without a training.pilot "
                                   f"error: {r.stderr[:300]}")
                    n_pilot_refused += 1
                    continue
                if r.returncode != 0:
                    raise SystemExit(f"ttq check: tfc plan {path} exited {r.returncode}: {r.stderr[:300]}")
                t = recompute(json.loads(r.stdout), text, name, opt)
                n += 1
                if not t:
                    continue
                if t.get("freeze_noise_scale_tokens") != freeze_noise:
                    bad.append(f"{name}: freeze_noise_scale_tokens {t.get('freeze_noise_scale_tokens')!r}, the "
                               f"spec's {freeze_noise!r}")
                n_freeze_noise += freeze_noise is not None and freeze_noise / batch < beta_of(t)
                if kind == 0 and ("lr_ratio" in t or "pilot" in t):
                    bad.append(f"{name}: lr_ratio in plan.json without training.lr_ratio or pilot")
                if kind == 1 and t.get("lr_ratio") != k:
                    bad.append(f"{name}: lr_ratio {t.get('lr_ratio')!r}, the spec's {k!r}")
                if kind == 2:
                    above = check_pilot(t, text, batch, noise, steps, pilot, path, name, opt)
                    if above is not None:
                        n_above[above] += 1
                    n_pilot += 1
            finally:
                if os.path.basename(path).startswith(".ttq_"):
                    os.remove(path)
        print(f"ttq check: {n} plans' time_to_quality recomputed from their own fields, bit for bit "
              f"({n_pilot} with a pilot, its lr_ratio from the pilot cap's own plan; {n_pilot_refused} pilots "
              f"refused as the model cannot use them)")
        if n_freeze_noise < 5:
            bad.append(f"only {n_freeze_noise} plans bounded at a smaller beta where freezing starts: too thin")
        if n_pilot < 5:
            bad.append(f"only {n_pilot} pilots were usable: the parity check of training.pilot is too thin")
        if min(n_above.values()) < 2:
            bad.append(f"plans freezing more than their pilot / not: {n_above[True]} / {n_above[False]}: too few of "
                       f"one kind to check the extrapolation note")
        print(f"ttq check: {n_above[True]} pilot plans freeze more than their pilot cap's (the reason notes it), "
              f"{n_above[False]} not")

        # 2. the model's consistency
        for f, r in ((0.3, 0.9), (0.69, 0.79), (0.5, 0.6), (0.1, 0.99)):
            be = tfc_plan.break_even_beta(f, r)
            at = tfc_plan.predicted_time_to_quality(beta=be, frozen_share=f, step_ratio=r, steps=1000, warmup=0, ramp=0)
            if abs(at - 1) > 1e-12:
                bad.append(f"at the break-even beta {be} (f {f}, r {r}) the prediction is {at}, not 1")
            s = [tfc_plan.predicted_time_to_quality(beta=b, frozen_share=f, step_ratio=r, steps=1000, warmup=400,
                                                    ramp=100) for b in (0.001, 0.1, 1, 10)]
            if not all(a > b for a, b in zip(s, s[1:])):
                bad.append(f"the prediction does not fall as beta grows: {s}")
        # a step ratio so small that q^2 underflows: freezing always pays
        # (the compiler's 1 / 0 is inf), at any lr_ratio and either form
        for k in (0.0, 1e-300, 0.5):
            for opt in ("adam", "sgd"):
                be = tfc_plan.break_even_beta(0.5, 1e-200, k, opt)
                if be != math.inf:
                    bad.append(f"break_even_beta(0.5, 1e-200, {k}, {opt}) is {be}, not inf")
        if tfc_plan.predicted_time_to_quality(beta=0.01, frozen_share=0, step_ratio=0.5, steps=10, warmup=0,
                                              ramp=0) != 1.0:
            bad.append("nothing frozen does not predict 1")
        # what the spec refuses, python refuses too: a ratio outside [0, 2)
        # (beyond it the model's "no ratio gives more than the bound" fails),
        # an unknown optimizer even where nothing is frozen
        for fn, args in ((tfc_plan.predicted_time_to_quality, (0.1, 0.5, 0.7, 10000, 5000, 1000, 5.0)),
                         (tfc_plan.predicted_time_to_quality, (0.1, 0.5, 0.7, 10000, 5000, 1000, 2.0)),
                         (tfc_plan.predicted_time_to_quality, (0.1, 0.5, 0.7, 10000, 5000, 1000, -0.1)),
                         (tfc_plan.predicted_time_to_quality, (0.1, 0.0, 0.7, 10000, 5000, 1000, None, "lion")),
                         (tfc_plan.frozen_step_progress, (0.1, 0.5, 2.5)),
                         (tfc_plan.break_even_beta, (0.5, 0.7, -1.0)),
                         # beta at least 0 (0 and inf the limits): a measured
                         # B_simple below 0 is not one, even with nothing frozen
                         (tfc_plan.predicted_time_to_quality, (-0.75, 0.5, 0.7, 10000, 5000, 1000)),
                         (tfc_plan.predicted_time_to_quality, (-1e-9, 0.0, 0.7, 10000, 5000, 1000)),
                         (tfc_plan.predicted_time_to_quality, (float("nan"), 0.5, 0.7, 10000, 5000, 1000, 0.5)),
                         (tfc_plan.frozen_step_progress, (-3.0, 0.5, None, "sgd")),
                         (tfc_plan.time_to_quality_bound, (-0.5, 0.5, 0.7, 10000, 5000, 1000)),
                         (tfc_plan.time_to_quality_bound, (0.5, 0.5, 0.7, 10000, 5000, 1000, "adam", -0.1)),
                         (tfc_plan.lr_ratio_from_pilot, (-0.75, 0.5, 0.7, 10000, 5000, 1000, 1.05)),
                         (tfc_plan.optimizer_contract, (-1.0,)),
                         # the run's shape as the spec gives it: a positive step
                         # ratio, counts at least 0, a frozen share a number
                         (tfc_plan.predicted_time_to_quality, (0.5, 0.5, -1.0, 100, 10, 10)),
                         (tfc_plan.predicted_time_to_quality, (0.5, 0.5, float("nan"), 100, 10, 10)),
                         (tfc_plan.predicted_time_to_quality, (0.5, 0.5, 0.7, float("inf"), 10, 10)),
                         (tfc_plan.predicted_time_to_quality, (0.5, 0.5, 0.7, 100, -5, 10)),
                         (tfc_plan.predicted_time_to_quality, (0.5, 0.5, 0.7, 100, 10, float("nan"))),
                         (tfc_plan.predicted_time_to_quality, (0.5, float("nan"), 0.7, 100, 10, 10)),
                         (tfc_plan.frozen_step_progress, (0.5, float("nan"))),
                         (tfc_plan.lr_ratio_from_pilot, (0.5, 0.5, 0.7, 100, -10, 10, 1.05)),
                         (tfc_plan.break_even_beta, (0.5, float("nan")))):
            try:
                got = fn(*args)
                bad.append(f"{fn.__name__}{args} gave {got!r}, not ValueError")
            except ValueError:
                pass
        # a beta past what beta / (1 - f) can hold is the no-signal limit, as
        # inf is, for every function that takes one (computed as written it
        # gave 0 or NaN: inf / inf)
        for opt in ("sgd", "adam"):
            for k in (None, 0.0, 0.7):
                for f in (0.3, 0.75):
                    huge = [tfc_plan.predicted_time_to_quality(b, f, 0.7, 100, 10, 10, k, opt) for b in (1.7e308, 1e308)]
                    limit = tfc_plan.predicted_time_to_quality(math.inf, f, 0.7, 100, 10, 10, k, opt)
                    near = tfc_plan.predicted_time_to_quality(1e300, f, 0.7, 100, 10, 10, k, opt)
                    bound = [tfc_plan.time_to_quality_bound(b, f, 0.7, 100, 10, 10, opt) for b in (1.7e308, math.inf)]
                    if not all(abs(h - limit) <= 1e-12 and abs(near - limit) <= 1e-12 for h in huge) \
                            or bound[0] != bound[1]:
                        bad.append(f"{opt} k {k} f {f}: beta 1.7e308 and 1e308 predict {huge}, 1e300 {near}, inf "
                                   f"{limit}; bounds {bound}")
        # with a learning-rate ratio, for each optimizer: rho against a
        # second formulation (a step at rate e progresses a e - b e^2,
        # written out with arbitrary a, b: SGD's noisier step has b n, Adam's
        # a / sqrt(n)); the break-even holds; k = 0 is the step ratio alone
        # with SGD, Adam's first-order cost 1 / sqrt(n) with Adam; a frozen
        # step's progress falls as k grows (the run noisier-limited); k near
        # 1 is costlier than the best-rate form; lr_ratio_from_pilot inverts
        # the prediction
        for opt in ("sgd", "adam"):
            for f, r in ((0.3, 0.9), (0.69, 0.79), (0.5, 0.6), (0.1, 0.99)):
                for beta in (0.05, 0.5, 12.0):
                    n = (1 + beta / (1 - f)) / (1 + beta)
                    for k in (0.0, 0.4, 1.0, 1.7):
                        a, b2 = 1.7, 0.3
                        e = k * a / (2 * b2)
                        full = a * e - b2 * e * e
                        frozen = a * e - b2 * n * e * e if opt == "sgd" else a * e / math.sqrt(n) - b2 * e * e
                        want = max(frozen / full, 0.0) if k > 0 else (1.0 if opt == "sgd" else 1 / math.sqrt(n))
                        got = tfc_plan.frozen_step_progress(beta, f, k, opt)
                        if abs(got - want) > 1e-12:
                            bad.append(f"{opt} k {k}: rho {got}, the second formulation {want} (beta {beta}, f {f})")
                for k in (0.2, 0.9, 1.6):
                    be = tfc_plan.break_even_beta(f, r, k, opt)
                    if be is not None and math.isfinite(be):
                        at = tfc_plan.predicted_time_to_quality(be, f, r, 1000, 0, 0, k, opt)
                        if abs(at - 1) > 1e-9:
                            bad.append(f"{opt} k {k}: at the break-even beta {be} (f {f}, r {r}) the prediction is "
                                       f"{at}")
                    elif be is None:
                        bad.append(f"{opt} k {k}: no break-even for f {f}, r {r} < 1")
                    else:  # pays at every beta: so with no signal too
                        if not tfc_plan.predicted_time_to_quality(math.inf, f, r, 1000, 0, 0, k, opt) > 1:
                            bad.append(f"{opt} k {k}: break-even inf (f {f}, r {r}) but no gain without signal")
                rho0 = 1.0 if opt == "sgd" else 1 / math.sqrt((1 + 0.5 / (1 - f)) / 1.5)
                if abs(tfc_plan.predicted_time_to_quality(0.5, f, r, 1000, 200, 100, 0.0, opt) -
                       1000 / (250 + 750 * r / rho0)) > 1e-12:
                    bad.append(f"{opt}: k 0 is not {'the step ratio alone' if opt == 'sgd' else '1 / sqrt(n)'} "
                               f"(f {f}, r {r})")
                rhos = [tfc_plan.frozen_step_progress(0.5, f, k, opt) for k in (0.0, 0.5, 1.0, 1.5, 1.9)]
                if not all(a > b for a, b in zip(rhos, rhos[1:])) and rhos[-1] != 0.0:
                    bad.append(f"{opt}: a frozen step's progress does not fall as k grows: {rhos}")
                if not tfc_plan.frozen_step_progress(0.5, f, 1.0, opt) < tfc_plan.frozen_step_progress(0.5, f):
                    bad.append(f"{opt}: k 1 is not costlier than each run at its best rate (f {f})")
                for k in (0.0, 0.3, 1.0, 1.8):
                    for beta in (0.05, 1.0, 12.0, math.inf):
                        s = tfc_plan.predicted_time_to_quality(beta, f, r, 300, 75, 30, k, opt)
                        back = tfc_plan.lr_ratio_from_pilot(beta, f, r, 300, 75, 30, s, opt) if s > 0 else None
                        if s > 0 and (back is None or abs(back - k) > 1e-9):
                            bad.append(f"{opt}: lr_ratio_from_pilot does not invert k {k} (beta {beta}, f {f}, "
                                       f"r {r}): {back}")
        # the upper bound, written out: SGD's the shorter step alone, Adam's
        # a frozen step at 1 / sqrt(n) of a full one's progress; no ratio k
        # in [0, 2) nor the best-rate form predicts more
        for opt in ("sgd", "adam"):
            for f, r in ((0.3, 0.9), (0.69, 0.79), (0.5, 0.6), (0.1, 0.99)):
                for beta in (0.01, 0.5, 12.0, math.inf):
                    n = 1 / (1 - f) if beta == math.inf else (1 + beta / (1 - f)) / (1 + beta)
                    rho0 = 1.0 if opt == "sgd" else 1 / math.sqrt(n)
                    got = tfc_plan.time_to_quality_bound(beta, f, r, 1000, 300, 100, opt)
                    if abs(got - 1000 / (350 + 650 * r / rho0)) > 1e-12:
                        bad.append(f"{opt}: the bound {got} is not the written-out k 0 form (beta {beta}, f {f}, r {r})")
                    others = [tfc_plan.predicted_time_to_quality(beta, f, r, 1000, 300, 100, k, opt)
                              for k in [i / 100 for i in range(0, 200, 7)] + [None]]
                    if max(others) > got:
                        bad.append(f"{opt}: a learning-rate ratio predicts {max(others)}, above the bound {got} "
                                   f"(beta {beta}, f {f}, r {r})")
        # the two forms cross: with x = 1 / sqrt(n), rho_adam - rho_sgd has
        # the sign of k (1 + x) / (2 x^2) - 1: at k >= 1 Adam pays a frozen
        # step less (its normalised step keeps its size), near k = 0 more
        # (SGD's noisier step then costs nothing, Adam's still loses signal)
        for f in (0.2, 0.6, 0.9):
            adam = [tfc_plan.frozen_step_progress(2.0, f, k, "adam") for k in (0.05, 1.0, 1.5)]
            sgd = [tfc_plan.frozen_step_progress(2.0, f, k, "sgd") for k in (0.05, 1.0, 1.5)]
            if not (adam[0] < sgd[0] and adam[1] >= sgd[1] and adam[2] >= sgd[2]):
                bad.append(f"adam's and sgd's rho do not cross as the forms say (f {f}): {adam} against {sgd}")
        if tfc_plan.lr_ratio_from_pilot(0.2, 0.5, 0.7, 300, 75, 30, 300 / 90) is not None:
            bad.append("a pilot speed-up no frozen step could give (steps / speedup = w) gave an lr_ratio")

        # 3. auto against its oracle
        llama = open(os.path.join(src, "specs", "llama8b_1f1b.yaml")).read()
        # and three random specs whose cap 0.1 bounds below 1 at beta 1000 (so auto may say "not even")
        cases = [(llama, noise, batch, extra) for noise, batch, extra in (
            (20000, 1 << 20, ""), (300000, 1 << 20, ""), (10 << 20, 1 << 20, ""), (1000 << 20, 1 << 20, ""),
            (300000, 1 << 20, ", lr_ratio: 1.2"), (20000, 1 << 20, ", lr_ratio: 0.1"))]
        for spec in specs:
            text = open(spec).read()
            if "random" not in spec or "freeze_weight" in text or "order:" in text:
                continue
            p = os.path.join(work, "screen.yaml")
            with open(p, "w") as fh:
                fh.write(with_training(text, 1 << 20, 1000 << 20, 10000, 0.1, 5000, 1000))
            if plan_json(p)["time_to_quality"]["upper_bound"] <= 1:  # a cheap screen: cap 0.1 bounds below 1
                cases.append((text, 1000 << 20, 1 << 20, ""))
                if len(cases) == 9:
                    break
        for base, noise, batch, extra in cases:
            per_cap = {}
            for i in range(11):
                cap = i / 10
                p = os.path.join(work, f"cap{i}.yaml")
                with open(p, "w") as fh:
                    fh.write(with_training(base, batch, noise, 10000, cap, 5000, 1000, extra))
                per_cap[cap] = plan_json(p)
            for cap, pj in per_cap.items():
                recompute(pj, base, f"cap {cap} at beta {noise / batch:.3g}{extra}")
            best = 0.0
            for cap in sorted(per_cap):
                if per_cap[cap]["time_to_quality"]["predicted_speedup"] > \
                        per_cap[best]["time_to_quality"]["predicted_speedup"]:
                    best = cap
            if not per_cap[best]["time_to_quality"]["predicted_speedup"] > 1:
                best = 0.0
            p = os.path.join(work, "auto.yaml")
            with open(p, "w") as fh:
                fh.write(with_training(base, batch, noise, 10000, "auto", 5000, 1000, extra))
            got = plan_json(p)
            t = recompute(got, base, f"auto at beta {noise / batch:.3g}")
            want = per_cap[best]
            if got["max_ratio"] != best or not t or not t["auto"]:
                bad.append(f"auto at beta {noise / batch:.3g}: chose {got['max_ratio']}, the oracle {best}")
            elif [a["freeze_ratio"] for a in got["actions"]] != [a["freeze_ratio"] for a in want["actions"]] or \
                    got["makespan_ms"] != want["makespan_ms"]:
                bad.append(f"auto at beta {noise / batch:.3g}: its plan is not cap {best}'s")
            print(f"ttq check: auto at beta {noise / batch:.3g}{extra} chose cap {got['max_ratio']} "
                  f"(predicted {t['predicted_speedup']:.4f}): {t['reason']}")
            if noise / batch > 5 and base is llama:
                if best != 0.0 or got["makespan_ms"] != got["baseline_makespan_ms"] or \
                        not re.search(r"does not pay at beta .*: break-even [0-9.]+ at cap", t["reason"]):
                    bad.append(f"at beta {noise / batch:.3g} auto should freeze nothing and say why: {t['reason']}")
            if best == 0.0:
                # and the most a cap could buy at any learning rate, at the cap whose plan bounds highest
                hope = max((c for c in sorted(per_cap) if per_cap[c]["time_to_quality"]["frozen_share"] > 0),
                           key=lambda c: per_cap[c]["time_to_quality"]["upper_bound"])
                most = per_cap[hope]["time_to_quality"]["upper_bound"]
                if "lr_ratio" not in extra:
                    auto_notes[most > 1] += 1
                m = re.search(r"; (?:at most ([0-9.]+)x at cap ([0-9.]+) if the rate, not the noise, limits the run|"
                              r"not even if the rate limits the run \(at most ([0-9.]+)x at cap ([0-9.]+)\))",
                              t["reason"])
                if "lr_ratio" in extra:
                    if m:
                        bad.append(f"auto with a known lr_ratio still names the bound: {t['reason']}")
                elif not m or float(m.group(2) or m.group(4)) != hope or \
                        not rounds_to(m.group(1) or m.group(3), most) or (m.group(1) is not None) != (most > 1):
                    bad.append(f"auto at beta {noise / batch:.3g}: the reason should name the bound {most:.3f} at "
                               f"cap {hope}: {t['reason']}")
            text = subprocess.run([tfc, "plan", p], capture_output=True, text=True).stdout
            if f"freeze.max_ratio: auto chose {got['max_ratio']:g}" not in text:
                bad.append(f"tfc plan does not say what auto chose: {text[:400]}")
            # a plan that freezes without a learning-rate ratio says it lacks one
            # (the input the prediction needs), one with a ratio prints it instead
            lacks = "learning-rate ratio  not given   (" in text
            numeric = bool(re.search(r"^learning-rate ratio +[0-9]", text, re.M))
            if lacks != ("lr_ratio" not in t and t["frozen_share"] > 0) or numeric != ("lr_ratio" in t):
                bad.append(f"auto at beta {noise / batch:.3g}{extra}: lr_ratio {t.get('lr_ratio')}, frozen share "
                           f"{t['frozen_share']}, the learning-rate ratio line: {text[:900]!r}")
            k_lines[lacks] += 1
            # cap 0's own bound is 1; where the reason names another cap's, the
            # `at most` line points there rather than contradict it
            if ("; at most " in t["reason"]) != ("nothing is frozen at the cap auto chose; the reason above says what "
                                                  "another cap could buy" in text):
                bad.append(f"auto at beta {noise / batch:.3g}: the at most line against the reason: {text[-900:]!r}")
            if base is llama:
                # --dump-lp and --policy none: the cap the freeze LP's plans choose, not cap 0's
                dump = subprocess.run([tfc, "plan", p, "--dump-lp", "-"], capture_output=True).stdout
                at = os.path.join(work, f"cap{round(best * 10)}.yaml")
                with open(at, "w") as fh:
                    fh.write(with_training(base, batch, noise, 10000, best, 5000, 1000, extra))
                want_dump = subprocess.run([tfc, "plan", at, "--dump-lp", "-"], capture_output=True).stdout
                if not dump or dump != want_dump:
                    bad.append(f"auto at beta {noise / batch:.3g}: --dump-lp is not cap {best}'s LP")
                none = json.loads(subprocess.run([tfc, "plan", p, "--json", "--policy", "none"], capture_output=True,
                                                 text=True).stdout)
                if none["max_ratio"] != best or none["makespan_ms"] != none["baseline_makespan_ms"]:
                    bad.append(f"auto at beta {noise / batch:.3g} under --policy none: cap {none['max_ratio']}, "
                               f"the freeze LP's choice {best}")
                # its reason says nothing is frozen before what auto chose, and predicts 1
                tn = none["time_to_quality"]
                if tn["predicted_speedup"] != 1.0 or (best > 0) != tn["reason"].startswith(
                        f"nothing is frozen under --policy none at the cap auto chose, {best:g}: "):
                    bad.append(f"auto at beta {noise / batch:.3g} under --policy none: predicted "
                               f"{tn['predicted_speedup']}, reason {tn['reason']!r}")
                if subprocess.run([tfc, "check", p, "-q"]).returncode != 0:
                    bad.append(f"tfc check refused an auto spec at beta {noise / batch:.3g}")

        if min(k_lines.values()) < 1:
            bad.append(f"the learning-rate ratio line is not checked both ways: {k_lines}")
        print(f"ttq check: reasons name the bound: a cap's {notes[True]} times above 1, {notes[False]} at or below; "
              f"auto's {auto_notes[True]} above, {auto_notes[False]} at or below")
        if min(notes.values()) < 1 or min(auto_notes.values()) < 1:
            bad.append("the bound's two wordings are not both checked, for a cap and for auto")

        base = llama  # the cases above rebound it

        # 3b. --sweep and --compare with training: each cap's predicted time
        # to quality is that cap's own plan's, the best is marked.
        p = os.path.join(work, "sweep.yaml")
        with open(p, "w") as fh:
            fh.write(with_training(base, 1 << 20, 200000, 10000, 0.9, 5000, 1000))
        sweep = os.path.join(work, "sweep")
        subprocess.run([tfc, "plan", p, "--sweep", sweep], check=True, capture_output=True)
        rows = [r for r in csv.DictReader(open(os.path.join(sweep, "pareto.csv"))) if r["policy"] == "timely"]
        best = None
        for r in rows:
            q = os.path.join(work, "swcap.yaml")
            with open(q, "w") as fh:
                fh.write(with_training(base, 1 << 20, 200000, 10000, r["max_ratio"], 5000, 1000))
            want = plan_json(q)["time_to_quality"]["predicted_speedup"]
            if float(r["predicted_time_to_quality"]) != want:
                bad.append(f"--sweep at cap {r['max_ratio']}: {r['predicted_time_to_quality']}, the plan's {want!r}")
            if best is None or want > best[1]:
                best = (r["max_ratio"], want)
        svg_text = open(os.path.join(sweep, "pareto.svg")).read()
        if f"cap {best[0]}, {best[1]:.3f}x" not in svg_text or 'class="best-ttq"' not in svg_text:
            bad.append(f"pareto.svg does not mark cap {best[0]} ({best[1]:.3f}x) as the best time to quality")
        cmp_dir = os.path.join(work, "compare")
        subprocess.run([tfc, "plan", p, "--compare", cmp_dir], check=True, capture_output=True)
        own = [r for r in csv.DictReader(open(os.path.join(cmp_dir, "compare.csv"))) if r["spec_schedule"] == "yes"]
        want = plan_json(p)["time_to_quality"]["predicted_speedup"]
        if len(own) != 1 or float(own[0]["predicted_time_to_quality"]) != want:
            bad.append(f"--compare's row for the spec's schedule does not predict {want!r}: {own}")
        # across schedules: each row's time per no-freezing step's progress is
        # its own baseline over its own speed-up, and the soonest to the loss
        # is named (JSON, CSV, text), which the step's speed-up alone cannot
        # say; with auto the header says auto, each row its own cap
        # (the ZBH1 spec: there the fastest step, DualPipeV's 248.97 ms, is
        # not the soonest to the loss, ZBV's at 249.59 ms with less freezing;
        # on the 1F1B spec the two tie at 246.657 ms and the tie goes to
        # the one freezing less, which is also the soonest)
        q = os.path.join(work, "cmp_auto.yaml")
        zbh1 = open(os.path.join(src, "specs", "llama8b_zbh1.yaml")).read()
        with open(q, "w") as fh:
            fh.write(with_training(zbh1, 1 << 20, 300000, 10000, "auto", 1000, 3000))
        cj = json.loads(subprocess.run([tfc, "plan", q, "--compare", os.path.join(work, "compare_auto"), "--json"],
                                       check=True, capture_output=True, text=True).stdout)
        ctext = subprocess.run([tfc, "plan", q, "--compare", os.path.join(work, "compare_auto2")], check=True,
                               capture_output=True, text=True).stdout
        crows = [r for r in cj["schedules"] if r["applicable"]]
        soonest = min(crows, key=lambda r: r["baseline_makespan_ms"] / r["time_to_quality"]["predicted_speedup"])
        for r in crows:
            t = r["time_to_quality"]
            if t["ms_per_step_of_progress"] != r["baseline_makespan_ms"] / t["predicted_speedup"]:
                bad.append(f"--compare {r['schedule']}: ms_per_step_of_progress {t['ms_per_step_of_progress']!r}, "
                           f"baseline over speed-up {r['baseline_makespan_ms'] / t['predicted_speedup']!r}")
        caps = {r["time_to_quality"]["cap"] for r in crows}
        if cj["max_ratio"] != "auto" or cj["fastest_to_quality"] != soonest["schedule"] or len(caps) < 2 or \
                "freeze.max_ratio auto (each schedule its own cap)" not in ctext or \
                not re.search(rf"fastest to quality: {re.escape(soonest['schedule'])}[(),= v0-9]*, "
                              rf"{soonest['time_to_quality']['ms_per_step_of_progress']:.3f} ms", ctext):
            bad.append(f"--compare with auto: max_ratio {cj['max_ratio']!r}, fastest_to_quality "
                       f"{cj['fastest_to_quality']!r} (soonest {soonest['schedule']}), caps {caps}, {ctext[-600:]!r}")
        ccsv = list(csv.DictReader(open(os.path.join(work, "compare_auto2", "compare.csv"))))
        if [r["schedule"] for r in ccsv if r["fastest_to_quality"] == "yes"] != [soonest["schedule"]]:
            bad.append(f"compare.csv's fastest_to_quality column does not name {soonest['schedule']}")
        if cj["recommended"] == soonest["schedule"]:
            bad.append("the --compare case does not tell the step's recommendation from the soonest to quality")
        # where no schedule reaches the loss (a frozen step makes no progress
        # near lr_ratio 2), none is named the soonest
        q = os.path.join(work, "cmp_never.yaml")
        with open(q, "w") as fh:
            fh.write(with_training(base, 1 << 20, 300000, 10000, 0.6, 1000, 3000, ", lr_ratio: 1.9999999999"))
        cj = json.loads(subprocess.run([tfc, "plan", q, "--compare", os.path.join(work, "compare_never"), "--json"],
                                       check=True, capture_output=True, text=True).stdout)
        ctext = subprocess.run([tfc, "plan", q, "--compare", os.path.join(work, "compare_never2")], check=True,
                               capture_output=True, text=True).stdout
        ccsv = list(csv.DictReader(open(os.path.join(work, "compare_never2", "compare.csv"))))
        speeds = [r["time_to_quality"]["predicted_speedup"] for r in cj["schedules"] if r["applicable"]]
        if any(v != 0 for v in speeds) or cj["fastest_to_quality"] is not None or \
                "fastest to quality: none (no schedule is predicted to reach" not in ctext or \
                any(r["fastest_to_quality"] == "yes" for r in ccsv):
            bad.append(f"--compare where no schedule reaches the loss: speed-ups {speeds}, fastest_to_quality "
                       f"{cj['fastest_to_quality']!r}, {ctext[-300:]!r}")
        print(f"ttq check: --sweep's {len(rows)} caps and --compare's own row predict as their plans do; "
              f"best cap {best[0]} marked")

        # 3c. the learning-rate ratio's input errors, each at its place
        for extra, want in ((", lr_ratio: 2", r"training\.lr_ratio must be a number of at least 0 and below 2, got \"2\""),
                            (", lr_ratio: -0.1", r"training\.lr_ratio must be a number of at least 0 and below 2, got "
                                                 r"\"-0\.1\""),
                            (", lr_ratio: 0.5, pilot: {max_ratio: 0.9, speedup: 0.9}", r"keep one"),
                            (", pilot: {max_ratio: 0.9}", r"missing required key training\.pilot\.speedup"),
                            (", pilot: {max_ratio: 0.9, speedup: 50}", r"training\.pilot: a speed-up of 50 at cap 0\.9"),
                            (", pilot: {max_ratio: 0.9, speed: 1}", r"unknown key \"speed\" in training\.pilot"),
                            (", pilot: {max_ratio: 0.5, speedup: 0.9}", r"training\.pilot: freezing takes hold at step "
                                                                          r"5500 .* not before the run's 5400 steps")):
            p = os.path.join(work, "bad_pilot.yaml")
            with open(p, "w") as fh:
                fh.write(with_training(base, 1 << 20, 200000, 10000, 0.9, 5000, 1000, extra).replace(
                    "steps: 10000, pilot: {max_ratio: 0.5", "steps: 5400, pilot: {max_ratio: 0.5"))
            # a wrong speed-up is reported at its value, the pilot's own
            # problems at the mapping: the position found in the text here
            text = open(p).read()
            key = "speedup: " if "speed-up of" in want else "pilot: "
            at = text.find(key, text.find("pilot:") if key == "speedup: " else 0)
            line = text.count("\n", 0, at) + 1
            col = at - text.rfind("\n", 0, at) + len(key)  # the value: the number, or the mapping's "{"
            for verb in ("plan", "check"):  # check plans the pilot's cap too (the LP's plan, not --policy none's)
                r = subprocess.run([tfc, verb, p], capture_output=True, text=True)
                if r.returncode == 0 or not re.search(r"bad_pilot\.yaml:\d+:\d+: error: .*" + want, r.stderr):
                    bad.append(f"tfc {verb}, training{extra}: rc {r.returncode}, {r.stderr[:300]!r}, wanted {want}")
                elif "training\\.pilot:" in want and f"bad_pilot.yaml:{line}:{col}: error:" not in r.stderr:
                    bad.append(f"tfc {verb}, training{extra}: not at {line}:{col}: {r.stderr[:300]!r}")

        # far above the noise scale (beta 1e-300: the noise term rounds to 1)
        # no ratio below 2 gives a pilot below the shorter step alone: the
        # error says so, not that the pilot is above the step alone
        p = os.path.join(work, "bad_pilot.yaml")
        with open(p, "w") as fh:
            fh.write(with_training(base, 1 << 20, 1e-300, 10000, 0.9, 5000, 1000,
                                   ", pilot: {max_ratio: 0.6, speedup: 1.01}"))
        r = subprocess.run([tfc, "plan", p], capture_output=True, text=True)
        m = re.search(r"bad_pilot\.yaml:\d+:\d+: error: training\.pilot: no learning-rate ratio below 2 gives a "
                      r"speed-up of 1\.01 at cap 0\.6 at beta [0-9.e-]+: .*\(the shorter step alone gives ([0-9.]+)\)",
                      r.stderr)
        if r.returncode == 0 or not m or not float(m.group(1)) > 1.01:
            bad.append(f"a pilot at beta 1e-300: rc {r.returncode}, {r.stderr[:400]!r}")

        # python's LR_RATIO_MAX is the compiler's bound: the largest double
        # below it is taken as given, it itself refused
        below = math.nextafter(tfc_plan.LR_RATIO_MAX, 0.0)
        p = os.path.join(work, "edge_lr.yaml")
        for k, ok in ((below, True), (tfc_plan.LR_RATIO_MAX, False)):
            with open(p, "w") as fh:
                fh.write(with_training(base, 1 << 20, 200000, 10000, 0.9, 5000, 1000, f", lr_ratio: {k!r}"))
            r = subprocess.run([tfc, "plan", p, "--json"], capture_output=True, text=True)
            got = json.loads(r.stdout)["time_to_quality"].get("lr_ratio") if r.returncode == 0 else None
            if (got == k) != ok or (not ok and "training.lr_ratio must be a number of at least 0 and below 2" not in r.stderr):
                bad.append(f"lr_ratio {k!r} against python's LR_RATIO_MAX {tfc_plan.LR_RATIO_MAX}: "
                           f"rc {r.returncode}, lr_ratio {got!r}, {r.stderr[:200]!r}")

        # a pilot above what the model gives at k 0 (Adam's: 1 / sqrt(n)): k 0,
        # said; above what the shorter step alone gives (SGD's k 0, recomputed
        # here from the plan's fields): an error, with either form
        p = os.path.join(work, "fast_pilot.yaml")
        with open(p, "w") as fh:
            fh.write(with_training(base, 1 << 20, 200000, 10000, 0.9, 5000, 1000))
        t = plan_json(p)["time_to_quality"]
        fields = (t["beta"], t["frozen_share"], t["step_ratio"], 10000, 5000, 1000)
        most, alone = tfc_plan.time_to_quality_bound(*fields), tfc_plan.time_to_quality_bound(*fields, optimizer="sgd")
        if not 1.0 < most < alone:
            bad.append(f"the fast pilot's plan: Adam's bound {most!r}, the shorter step's {alone!r}")
        # (the 4-decimal speed-ups just above a bound: the bound printed must
        # fall below them, not round onto or past them)
        just_above = lambda v: math.floor(v * 1e4 + 1) / 1e4
        for opt, speedup, want in (("", round((most + alone) / 2, 4), "warning: training\\.pilot: a speed-up of {} at "
                                    "cap 0\\.9 is above the ([0-9.]+) the model gives at the least cost; taken as "
                                    "lr_ratio 0"),
                                   ("", just_above(most), "warning: training\\.pilot: a speed-up of {} at "
                                    "cap 0\\.9 is above the ([0-9.]+) the model gives at the least cost; taken as "
                                    "lr_ratio 0"),
                                   ("", just_above(alone), "error: training\\.pilot: a speed-up of {} at cap 0\\.9 "
                                    "is more than the shorter step alone gives, ([0-9.]+) "),
                                   ("", round(alone + 0.01, 4), "error: training\\.pilot: a speed-up of {} at cap 0\\.9 "
                                    "is more than the shorter step alone gives, ([0-9.]+) "),
                                   (", optimizer: sgd", round(alone + 0.01, 4), "error: training\\.pilot: a speed-up of "
                                    "{} at cap 0\\.9 is more than the shorter step alone gives, ([0-9.]+) ")):
            with open(p, "w") as fh:
                fh.write(with_training(base, 1 << 20, 200000, 10000, 0.9, 5000, 1000,
                                       f", pilot: {{max_ratio: 0.9, speedup: {speedup}}}" + opt))
            r = subprocess.run([tfc, "plan", p, "--json"], capture_output=True, text=True)
            m = re.search(r"fast_pilot\.yaml:\d+:\d+: " + want.format(re.escape(str(speedup))), r.stderr)
            if "warning" in want:
                ok = m and r.returncode == 0 and json.loads(r.stdout)["time_to_quality"].get("lr_ratio") == 0.0 \
                    and float(m.group(1)) < speedup and abs(float(m.group(1)) - most) <= 0.0051
            else:
                ok = m and r.returncode == 1 and not r.stdout and abs(float(m.group(1)) - alone) <= 0.0051 \
                    and float(m.group(1)) < speedup
            if not ok:
                bad.append(f"a pilot of {speedup}{opt} (k 0 gives {most!r}, the step alone {alone!r}): "
                           f"rc {r.returncode}, {r.stderr[:300]!r}")
        # the pilot ran tfc's plan, the freeze LP's: its lr_ratio is the same
        # whatever --policy this plan is made under
        with open(p, "w") as fh:
            fh.write(with_training(base, 1 << 20, 200000, 10000, 0.9, 5000, 1000,
                                   f", pilot: {{max_ratio: 0.9, speedup: {round(most * 0.98, 4)}}}"))
        ks = {pol: json.loads(subprocess.run([tfc, "plan", p, "--json", "--policy", pol], capture_output=True,
                                             text=True).stdout or "{}").get("time_to_quality", {}).get("lr_ratio")
              for pol in ("timely", "uniform", "none")}
        if len(set(ks.values())) != 1 or not 0 < ks["timely"] < 2:
            bad.append(f"a pilot's lr_ratio under each --policy: {ks}")
        # the reason notes the extrapolation where the plan freezes a larger
        # share than the pilot cap's own plan (read from that plan), whatever
        # the cap's number says: not at the pilot's cap, nor where --policy
        # none freezes nothing above it
        with open(p, "w") as fh:
            fh.write(with_training(base, 1 << 20, 200000, 10000, 0.3, 5000, 1000))
        own = plan_json(p)["time_to_quality"]
        pil = f", pilot: {{max_ratio: 0.3, speedup: {round(own['upper_bound'] * 0.98, 4)}}}"
        seen = {}
        for cap, pol in ((0.3, "timely"), (0.2, "timely"), (0.9, "timely"), ("auto", "timely"), (0.9, "none"),
                         (0.3, "uniform"), (0.9, "uniform")):
            with open(p, "w") as fh:
                fh.write(with_training(base, 1 << 20, 200000, 10000, cap, 5000, 1000, pil))
            r = subprocess.run([tfc, "plan", p, "--json", "--policy", pol], capture_output=True, text=True)
            t = json.loads(r.stdout or "{}").get("time_to_quality", {})
            above = t.get("frozen_share", -1) > own["frozen_share"] + 1e-6
            # above the pilot's cap the cap says why; at it or below, the policy (the pilot's plan is the LP's)
            # (the timely policy is the pilot's own: its plan at a smaller cap)
            wording = rf"cap {t.get('cap', -1):g} freezes more than the pilot's cap 0\.3 \(" \
                if t.get("cap", -1) > 0.3 else \
                rf"the plan at cap {t.get('cap', -1):g} freezes more than the pilot's at cap 0\.3 \(" \
                if pol == "timely" else rf"the {pol} policy freezes more at cap {t.get('cap', -1):g} than " \
                                        rf"the freeze LP's plan of the pilot's cap 0\.3 \("
            note = re.search(r"; extrapolated: " + wording, t.get("reason", ""))
            seen[(cap, pol)] = above
            if r.returncode != 0 or bool(note) != above or t.get("reason", "").count("; extrapolated: ") != above:
                bad.append(f"pilot at 0.3 (frozen share {own['frozen_share']}), cap {cap} under --policy {pol}: rc "
                           f"{r.returncode}, frozen share {t.get('frozen_share')}, reason {t.get('reason')!r}")
        if [seen[(0.3, "timely")], seen[(0.9, "timely")], seen[(0.9, "none")], seen[(0.3, "uniform")]] != \
                [False, True, False, True]:
            bad.append(f"the extrapolation cases are not what they test: {seen}")
        # the freeze LP itself can freeze more at a cap below the pilot's (a
        # longer step to reach, on stages whose frozen backward is free): the
        # note then names the two caps' plans, not a policy (the pilot's own)
        numels = (18719902, 193, 1857781609, 104118242, 247, 17937264, 494736206, 7530312)
        lp_more = "tfc: 1\nname: r\nmodel:\n  stages:\n" + "".join(
            f"    - params: [{{name: w, numel: {n}}}]\n" for n in numels) + (
            "pipeline: {schedule: DualPipeV, ranks: 4, stages_per_rank: 2, microbatches: 8}\n"
            "timing:\n  forward_ms: [13.339, 16.03, 10.462, 6.935, 7.324, 15.16, 1.398, 1.356]\n"
            "  backward_ms: [26.965, 27.01, 18.419, 14.568, 14.408, 33.153, 3.312, 3.018]\n"
            "  backward_frozen_ms: [13.482, 13.505, 9.21, 0.0, 0.0, 0.0, 0.0, 0.0]\n"
            "  backward_input_ms: [14.693, 17.754, 9.39, 7.779, 6.198, 14.567, 1.631, 1.479]\n"
            "  backward_weight_ms: [11.16, 16.263, 8.377, 4.561, 7.436, 13.762, 0.998, 1.151]\n"
            "  comm_ms: 0.5\n")
        with open(p, "w") as fh:
            fh.write(with_training(lp_more, 39909671030503, 27001416489313.91, 878608, 1, 5000, 0,
                                   ", optimizer: sgd"))
        at_pilot = plan_json(p)["time_to_quality"]["frozen_share"]
        with open(p, "w") as fh:
            fh.write(with_training(lp_more, 39909671030503, 27001416489313.91, 878608, 0.6, 5000, 0,
                                   ", optimizer: sgd, pilot: {max_ratio: 1, speedup: 1.668}"))
        t = plan_json(p)["time_to_quality"]
        want = "; extrapolated: the plan at cap 0.6 freezes more than the pilot's at cap 1 ("
        if not t["frozen_share"] > at_pilot + 1e-6 or want not in t["reason"]:
            bad.append(f"the freeze LP freezing more below the pilot's cap (frozen share {t['frozen_share']} "
                       f"against {at_pilot} at the pilot's cap 1): reason {t['reason']!r}")
        # ... and where the noise scale falls where freezing starts, the
        # warning places the pilot against plan.json's upper_bound too (the
        # bound at the smaller beta, recomputed here from the plan's fields)
        fz = ", freeze_noise_scale_tokens: 20000"
        with open(p, "w") as fh:
            fh.write(with_training(base, 1 << 20, 200000, 10000, 0.9, 5000, 1000, fz))
        t = plan_json(p)["time_to_quality"]
        most = tfc_plan.time_to_quality_bound(t["beta"], t["frozen_share"], t["step_ratio"], 10000, 5000, 1000)
        bound = tfc_plan.time_to_quality_bound(t["beta"], t["frozen_share"], t["step_ratio"], 10000, 5000, 1000,
                                               freeze_beta=20000 / (1 << 20))
        alone = tfc_plan.time_to_quality_bound(t["beta"], t["frozen_share"], t["step_ratio"], 10000, 5000, 1000,
                                               optimizer="sgd")
        if not most < bound < alone:
            bad.append(f"freeze_noise_scale_tokens 20000: the bounds {most!r}, {bound!r}, the step alone {alone!r}")
        for pilot, where in ((round((most + bound) / 2, 4), "within"), (round((bound + alone) / 2, 4), "above even")):
            with open(p, "w") as fh:
                fh.write(with_training(base, 1 << 20, 200000, 10000, 0.9, 5000, 1000,
                                       f", pilot: {{max_ratio: 0.9, speedup: {pilot}}}" + fz))
            r = subprocess.run([tfc, "plan", p, "--json"], capture_output=True, text=True)
            ub = json.loads(r.stdout)["time_to_quality"].get("upper_bound") if r.returncode == 0 else None
            m = re.search(r"warning: training\.pilot: a speed-up of [0-9.]+ at cap 0\.9 is above the [0-9.]+ the model "
                          r"gives at the least cost; " + where + r" the ([0-9.]+) bound at the noise scale where "
                          r"freezing starts; taken as lr_ratio 0", r.stderr)
            if ub is None or m is None or abs(float(m.group(1)) - ub) > 0.0051:
                bad.append(f"a pilot of {pilot} {where} the freezing start's bound {bound!r}: rc {r.returncode}, "
                           f"upper_bound {ub!r}, {r.stderr[:400]!r}")

        # a run that ends before freezing takes hold: warned at training.steps,
        # and auto keeps cap 0 saying why (recompute checks the reason)
        # (also where a frozen step would make no progress once it took
        # hold: a learning-rate ratio near 2, or everything frozen at cap 1;
        # the run never gets there, so it is still the run without freezing)
        p = os.path.join(work, "late.yaml")
        for cap, extra, policy in ((0.6, "", []), ("auto", "", []), (0.6, ", lr_ratio: 1.99", []),
                                   ("auto", ", lr_ratio: 1.99", []), (1, "", ["--policy", "uniform"])):
            with open(p, "w") as fh:
                fh.write(with_training(base, 1 << 20, 20000, 5500, cap, 5000, 1000, extra))
            r = subprocess.run([tfc, "plan", p, "--json"] + policy, capture_output=True, text=True)
            line = next((i + 1 for i, l in enumerate(open(p)) if l.startswith("training:")), 0)
            if r.returncode != 0 or not re.search(rf"late\.yaml:{line}:\d+: warning: training\.steps 5500 ends before "
                                                  r"freezing takes hold at step 5500 \(", r.stderr):
                bad.append(f"a 5500-step run freezing from step 5500, cap {cap}: rc {r.returncode}, {r.stderr[:300]!r}")
                continue
            got = json.loads(r.stdout)
            recompute(got, open(p).read(), f"late run, cap {cap}{extra} {' '.join(policy)}")  # break_even_beta null too
            if cap == 1 and got["time_to_quality"]["frozen_share"] != 1.0:
                bad.append(f"late run at cap 1 under --policy uniform: frozen share {got['time_to_quality']['frozen_share']}")
            if cap != "auto":
                # every cap of --sweep is such a run too
                sweep_late = os.path.join(work, "sweep_late")
                shutil.rmtree(sweep_late, ignore_errors=True)
                subprocess.run([tfc, "plan", p, "--sweep", sweep_late, "-q"], check=True, capture_output=True)
                for row in csv.DictReader(open(os.path.join(sweep_late, "pareto.csv"))):
                    if float(row["predicted_time_to_quality"]) != 1.0:
                        bad.append(f"late run{extra}: --sweep predicts {row['predicted_time_to_quality']} at cap "
                                   f"{row['max_ratio']} ({row['policy']}), not 1")
            if cap == "auto" and got["max_ratio"] != 0:
                bad.append(f"auto chose cap {got['max_ratio']} for a run that ends before freezing takes hold")
        if min(late_runs.values()) < 1:
            bad.append(f"runs that end before freezing takes hold checked: {late_runs}")

        # break-even none, in its two causes (recompute checks the wording):
        # everything frozen at cap 1 (the step much shorter), and a frozen
        # backward no shorter, frozen anyway under --policy uniform
        one = ("tfc: 1\nname: t\nmodel: {stages: [{params: [{name: a, numel: 4}]}]}\n"
               "pipeline: {schedule: GPipe, ranks: 1, microbatches: 2}\n"
               "timing: {forward_ms: 1, backward_ms: 2, backward_frozen_ms: FROZEN}\n"
               "freeze: {max_ratio: CAP, warmup_steps: 10, ramp_steps: 4}\n"
               "training: {batch_tokens: 1000, noise_scale_tokens: 100, steps: 100}\n")
        for frozen_ms, cap, policy, share, shorter in (("1", "1", "timely", 1.0, True),
                                                       ("2", "0.5", "uniform", 0.5, False)):
            p = os.path.join(work, "none.yaml")
            with open(p, "w") as fh:
                fh.write(one.replace("FROZEN", frozen_ms).replace("CAP", cap))
            r = subprocess.run([tfc, "plan", p, "--json", "--policy", policy], capture_output=True, text=True)
            got = json.loads(r.stdout or "{}")
            t = recompute(got, open(p).read(), f"break-even none, cap {cap} under --policy {policy}") if got else None
            if not t or t["frozen_share"] != share or (t["step_ratio"] < 1) != shorter or \
                    t["break_even_beta"] is not None:
                bad.append(f"break-even none, cap {cap} under --policy {policy}: rc {r.returncode}, {t}")

        # the reason's numbers in words: SGD at lr_ratio 0 loses nothing to a
        # frozen step, so any beta pays (break-even infinite, not "inf"); SGD
        # at 1.5 with beta 10 makes no progress frozen (rho (1 - 1.5 n / 2) /
        # 0.25 < 0 for n > 4 / 3), so the prediction is 0 and says why; a
        # ratio that 4 decimals round to 2 is printed in full
        for extra, cap, want in ((", lr_ratio: 0, optimizer: sgd", 0.9, "break-even infinite (any beta pays) at cap 0.9"),
                                 (", lr_ratio: 1.5, optimizer: sgd", 0.9, "; a frozen step makes no progress at "
                                  "lr_ratio 1.5, so the run never reaches the loss"),
                                 (", lr_ratio: 1.99999", 0.9, None)):
            p = os.path.join(work, "words.yaml")
            noise = 200000 if "lr_ratio: 0," in extra else 10 * (1 << 20)
            with open(p, "w") as fh:
                fh.write(with_training(base, 1 << 20, noise, 10000, cap, 5000, 1000, extra))
            t = plan_json(p)["time_to_quality"]
            text = subprocess.run([tfc, "plan", p], capture_output=True, text=True).stdout
            if want is None:
                if "learning-rate ratio    1.99999 " not in text:
                    bad.append(f"lr_ratio 1.99999 is not printed in full: {text[-700:]!r}")
            elif want not in t["reason"] or "inf " in t["reason"] or ("progress" in want) != (t["predicted_speedup"] == 0):
                bad.append(f"training{extra}: predicted {t['predicted_speedup']!r}, reason {t['reason']!r}, wanted {want!r}")

        # 4. beside the break-even: a beta a millionth or a billionth either
        # side of it, at one cap and under auto, is written on its side of
        # the break-even, the speed-up on its side of 1 (a reason reading
        # "pays at beta 0.848: break-even 0.848" or "1.0000x predicted"
        # beside "freezing pays" says nothing)
        spec1 = os.path.join(src, "specs", "llama8b_1f1b.yaml")
        base1 = open(spec1).read()
        p = os.path.join(work, "edge.yaml")

        def at_beta(cap, beta):
            with open(p, "w") as fh:
                fh.write(with_training(base1, 1000, repr(beta * 1000), 20000, cap, 1000, 3000))
            return plan_json(p), subprocess.run([tfc, "plan", p], capture_output=True, text=True).stdout

        be = {c / 10: at_beta(c / 10, 0.1)[0]["time_to_quality"]["break_even_beta"] for c in range(1, 11)}
        top = max((c for c in be if be[c] is not None), key=lambda c: be[c])
        n_edge = 0
        for cap in (0.9, top, "auto"):
            b0 = be[top] if cap == "auto" else be[cap]
            for eps in (-1e-6, 1e-6, -1e-9, 1e-9):
                got, text = at_beta(cap, b0 * (1 + eps))
                t = recompute(got, base1, f"cap {cap} at beta {b0!r} x (1 + {eps:g})")
                if cap == "auto":  # the break-even named is the top cap's, paying or not
                    sides(t["reason"], t["predicted_speedup"], t["beta"], b0, f"auto at {b0!r} x (1 + {eps:g})")
                m = re.search(r"^time to quality +(\S+)x predicted", text, re.M)
                pays = t["predicted_speedup"] > 1
                if not m or (float(m.group(1)) > 1) != pays or pays != (eps < 0) or \
                        (cap == "auto" and pays != (got["max_ratio"] == top)):
                    bad.append(f"cap {cap} at beta {b0!r} x (1 + {eps:g}): predicted {t['predicted_speedup']!r}, "
                               f"cap {got['max_ratio']}: {text[:600]!r}")
                n_edge += 1
        print(f"ttq check: {n_edge} plans beside a break-even; reasons' numbers on their sides: {sided}")
        # 5. without training
        plain = plan_json(os.path.join(src, "specs", "llama8b_1f1b.yaml"))
        if "time_to_quality" in plain:
            bad.append("a spec without training has time_to_quality in plan.json")
        text = subprocess.run([tfc, "plan", os.path.join(src, "specs", "llama8b_1f1b.yaml")], capture_output=True,
                              text=True).stdout
        if "time to quality     not predicted: the spec has no training section" not in text:
            bad.append("tfc plan without training does not say it cannot predict time to quality")
    for b in bad[:20]:
        print("ttq check:", b)
    if bad:
        print(f"ttq check: {len(bad)} problem(s)")
        return 1
    print("ttq check: the model, plan.json's time_to_quality and freeze.max_ratio: auto as documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
