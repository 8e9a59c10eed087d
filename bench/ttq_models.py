"""Candidate time-to-quality models, scored on the batch-regime sweep's
points (bench/batch_regime.py --report prints the table;
docs/time-to-quality.md says which one tfc plans with and why).

Every candidate keeps the run's shape the planned model has (full steps
to w = warm-up + ramp / 2, then steps that last r of a full one and
progress rho as far), and differs only in rho, a frozen step's progress
against a full one's:

  sgd:  rho = (1 + beta) / (1 + beta / (1 - f))   steps ~ 1 + B_noise / B
  adam: rho = sqrt of the same                    Adam's update is the
        gradient over the root of its second moment, so a coordinate's
        expected progress per step goes as G / sqrt(G^2 + sigma^2 / B):
        the square root of SGD's G^2 / (G^2 + sigma^2 / B)
  half: SGD's form at beta / 2: Adam's first-order cost of noise (half
        SGD's at small beta) with SGD's limit 1 - f far below the noise
        scale, where Adam's steps scale with the batch as SGD's do (the
        square-root learning-rate rule keeps steps ~ 1 / B)

and in what it is evaluated over:

  mean:   one beta (the whole model's) and the element-weighted frozen share
  stages: per stage, its mean ratio, with the whole model's beta, weighted
          by the stage's elements (all a spec without per-stage noise has)
  stage:  per stage, its own beta and mean ratio, weighted by the stage's
          share of |G|^2 (a step's first-order progress is the sum of its
          blocks'; the weights sum to one and the stages' betas average,
          weighted so, to the whole model's beta)
  tensor: per tensor likewise, each tensor at its stage's ratio (the
          balanced rule freezes every tensor of a stage at about its ratio)

with beta measured at the fine-tuning start (the spec's
noise_scale_tokens), where freezing starts, in the middle of the frozen
steps, or at the end of the no-freezing run (where the last frozen steps
are; a negative estimate, |G|^2 below what the batches resolve, counts as
no signal: beta infinite). Standard library only."""
import math

RULES = ("sgd", "adam", "half")
SCOPES = ("mean", "stages", "stage", "tensor")
WHERE = ("start", "freeze", "mid", "end")


def phi(rule, beta, f):
    """A frozen step's progress against a full one's at a share f of the
    batch skipped, beta = B_simple / batch (inf: no signal resolved)."""
    f = min(max(f, 0.0), 1.0)
    if f >= 1.0:
        return 0.0
    if rule == "half":
        beta = beta / 2.0
    rho = 1.0 - f if math.isinf(beta) else (1.0 + beta) / (1.0 + beta / (1.0 - f))
    return math.sqrt(rho) if rule == "adam" else rho


def speedup(rho, r, steps, warmup, ramp):
    if rho <= 0.0:
        return 0.0
    w = min(warmup + ramp / 2.0, float(steps))
    return steps / (w + (steps - w) * r / rho)


def _blocks(parts, batch, scope, plan):
    """(signal weight, beta, frozen share) per block."""
    ratio = plan["stage_ratio"]
    if scope == "stage":
        items = [(int(s), v["g2"], v["tr"]) for s, v in parts["stages"].items()]
    else:
        items = [(v["stage"], v["g2"], v["tr"]) for v in parts["tensors"].values()]
    pos = sum(max(g2, 0.0) for _, g2, _ in items)
    out = []
    for s, g2, tr in items:
        if s >= len(ratio):
            continue
        w = max(g2, 0.0) / pos if pos > 0 else 0.0
        beta = tr / g2 / batch if g2 > 0 else math.inf
        out.append((w, beta, ratio[s]))
    return out


def rho_of(rule, scope, noise, batch, plan):
    """rho for one plan from a noise measurement ({b_simple, parts})."""
    b = noise["b_simple"]
    beta = b / batch if b > 0 else math.inf
    if scope == "mean":
        return phi(rule, beta, plan["frozen_share"])
    if scope == "stages":
        n = plan["stage_numel"]
        return sum(n[s] * phi(rule, beta, f) for s, f in enumerate(plan["stage_ratio"])) / sum(n)
    if "parts" not in noise:
        return float("nan")
    blocks = _blocks(noise["parts"], batch, scope, plan)
    if not blocks:
        return float("nan")
    if not any(w > 0 for w, _, _ in blocks):  # no block's |G|^2 resolved: no signal anywhere (beta infinite)
        return phi(rule, math.inf, plan["frozen_share"])
    return sum(w * phi(rule, beta, f) for w, beta, f in blocks)


def noise_at(state, mb, where):
    e = state["points"][str(mb)]
    if where == "start":
        return state["noise"].get("start")
    if where == "freeze":
        return state["noise"].get(f"mb{mb}_at_w{e['warmup']}")
    if where == "end":
        return state["noise"].get(f"mb{mb}_end")
    return state["noise"].get(f"mb{mb}_at_m{e['mid_step']}") if "mid_step" in e else None


def error(p, pred):
    """The sweep's error rule: |pred - measured| where L* was reached, else
    only the excess over the bound."""
    if p["reached"]:
        return abs(pred - p["drift_free"])
    return max(0.0, pred - p["drift_free"])


def point_error(p, pred):
    """error() of a table point ({reached, df}) predicted pred."""
    return error(dict(reached=p["reached"], drift_free=p["df"]), pred)


def score(points, state, steps, ramp):
    """{(rule, scope, where): (max error, mean error, [per-point
    predictions])} over the balanced points of each batch size's own
    contract, the points the sweep's last line scores."""
    pts = [p for p in points if p["select"] == "balanced" and p.get("regime", True)]
    out = {}
    for rule in RULES:
        for scope in SCOPES:
            for where in WHERE:
                preds, errs = [], []
                for p in pts:
                    noise = noise_at(state, p["mb"], where)
                    e = state["points"][str(p["mb"])]
                    if not noise or (scope in ("stage", "tensor") and "parts" not in noise) or "stage_ratio" not in p["plan"]:
                        preds = None
                        break
                    v = speedup(rho_of(rule, scope, noise, p["batch"], p["plan"]), p["plan"]["step_ratio"], steps,
                                e["warmup"], ramp)
                    preds.append(v)
                    errs.append(error(p, v))
                if preds:
                    out[(rule, scope, where)] = (max(errs), sum(errs) / len(errs), preds)
    return out


def table(points, state, steps, ramp):
    res = score(points, state, steps, ramp)
    if not res:
        return ""
    pts = [p for p in points if p["select"] == "balanced" and p.get("regime", True)]
    head = ("| rule | over | beta from | max error | mean error | "
            + " | ".join(f"{p['batch']:,} cap {p['cap']}" for p in pts) + " |")
    lines = [head, "|" + " --- |" * (5 + len(pts)),
             "| measured | | | | | " + " | ".join(("" if p["reached"] else "<") + f"{p['drift_free']:.3f}"
                                                 for p in pts) + " |"]
    for (rule, scope, where), (mx, mean, preds) in sorted(res.items(), key=lambda kv: kv[1][0]):
        lines.append(f"| {rule} | {scope} | {where} | {mx:.3f} | {mean:.3f} | "
                     + " | ".join(f"{v:.3f}" for v in preds) + " |")
    return "\n".join(lines)


# ------------------------------------------------------------ the pilot
#
# The planned model with a learning-rate ratio k (python/tfc_plan.py,
# frozen_step_progress; the spec's training.pilot): one pilot pair per
# batch size, at its largest cap that reached L* (the largest frozen share
# says the most about k: a small cap's speed-up is mostly its step ratio),
# gives k; the model then predicts the batch size's other caps. Scored on
# those other points only, by the sweep's error rule.


def pick_pilot(pts):
    """A batch size's pilot among its points ({cap, f, reached, ...}): the
    largest cap that reached L* and freezes some but not all; None if none."""
    usable = [p for p in pts if p["reached"] and 0.0 < p["f"] < 1.0]
    return max(usable, key=lambda p: (p["cap"], p["f"])) if usable else None


def pilot_k(pts, n, ramp, optimizer="adam"):
    """(the batch size's pilot (pick_pilot), the learning-rate ratio k it
    gives, python/tfc_plan.py's lr_ratio_from_pilot); (None, None) without
    a pilot, k None where the model cannot use it."""
    import tfc_plan
    pilot = pick_pilot(pts)
    if pilot is None:
        return None, None
    return pilot, tfc_plan.lr_ratio_from_pilot(pilot["beta"], pilot["f"], pilot["r"], n, pilot["warmup"], ramp,
                                               pilot["df"], optimizer)


def pilot_scores(groups, steps_of, ramp_of, optimizer="adam"):
    """groups: {name: [point]}, a point {cap, beta, f, r, warmup, df,
    reached} (beta at the fine-tuning start). Returns [(name, pilot cap, k,
    [(point, prediction, error)])], k None when no pilot could say;
    optimizer: training.optimizer's form (the trainer's is Adam)."""
    import tfc_plan
    out = []
    for name, pts in groups.items():
        n, ramp = steps_of(name), ramp_of(name)
        pilot, k = pilot_k(pts, n, ramp, optimizer)
        if pilot is None:
            out.append((name, None, None, []))
            continue
        rows = []
        for p in pts:
            if p is pilot or k is None:
                continue
            v = tfc_plan.predicted_time_to_quality(p["beta"], p["f"], p["r"], n, p["warmup"], ramp, k, optimizer)
            rows.append((p, v, point_error(p, v)))
        out.append((name, pilot["cap"], k, rows))
    return out


def sweep_groups(points, state):
    """The sweep's balanced points as pilot_scores' groups, one per batch size."""
    groups = {}
    for p in points:
        if p["select"] != "balanced" or not p.get("regime", True) or "stage_ratio" not in p["plan"]:
            continue
        e = state["points"][str(p["mb"])]
        groups.setdefault(f"{p['batch']:,}", []).append(dict(
            cap=p["cap"], beta=e["beta"], f=p["plan"]["frozen_share"], r=p["plan"]["step_ratio"],
            warmup=e["warmup"], df=p["drift_free"], reached=p["reached"],
            beta_w=p["beta_freeze"] if p.get("beta_freeze", 0) > 0 else float("nan")))
    return groups


def pilot_table(groups, steps_of, ramp_of, optimizer="adam"):
    """Markdown: per batch size the pilot, its k, and each other cap's
    measured and predicted speed-up; the largest error; the points."""
    res = pilot_scores(groups, steps_of, ramp_of, optimizer)
    lines = ["| batch size | pilot cap | k from it | cap | measured | predicted | error |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    worst = 0.0
    for name, cap, k, rows in res:
        if k is None:
            lines.append(f"| {name} | {cap if cap is not None else 'none'} | (no pilot reached L*) | | | | |")
            continue
        for p, v, e in rows:
            worst = max(worst, e)
            lines.append(f"| {name} | {cap} | {k:.3f} | {p['cap']} | {'' if p['reached'] else '<'}{p['df']:.3f} | "
                         f"{v:.3f} | {e:.3f} |")
    return "\n".join(lines), worst, sum(len(r) for _, _, _, r in res)
