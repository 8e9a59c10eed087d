#!/usr/bin/env python3
"""Can a step's line search stand in for the pilot? The learning-rate
ratio k of the time-to-quality model (docs/time-to-quality.md, "The
learning-rate ratio") is the run's rate against the one that makes a single
full step progress the most. A line search measures exactly that on the
no-freezing run: after a step, the validation loss along the update it
made, at 0, 0.5, 1, 1.5, 2 and 3 times its length (tiny_trainer train
--probe-every), fitted as L0 - A c + B c^2, whose best length is A / (2 B),
so k = 2 B / A (0 when no curvature shows, 2 when the step did not descend).
The frozen steps' k is the mean over the probes from where freezing takes
hold (warm-up + ramp / 2) to the run's end, chosen before any was scored.

  run SWEEP_DIR DATA_DIR [--beta2 X]
      reruns each batch size's no-freezing run of a batch-regime sweep
      (bench/batch_regime.py's cache: its rate, steps, schedule, seed 1 and
      pretrained parameters) with about 16 probes, and writes
      SWEEP_DIR/probe_mb{MB}.txt (the trainer's output; the run's final
      loss must equal the sweep's, or it stops). Minutes per batch size.
  score SWEEP_DIR=RESULTS.md ...
      scores k from those probes on the sweep's table (results.md, as kept
      in docs/batch_regime_runs/): every balanced point predicted with it,
      against its measured drift-free speed-up, beside the planned model
      without k; the sweep's error rule (a point that never reached L*
      counts only with the excess over its bound). Prints a table and, last,

  ttq_probe groups=G points=P max_abs_err=E mean_abs_err=M no_k_max_abs_err=E0 no_k_mean_abs_err=M0

Standard library only (score); run needs a C compiler and build/tfc."""
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
import batch_regime  # noqa: E402
import tfc_plan  # noqa: E402
import ttq_pilot  # noqa: E402

EX = os.path.join(ROOT, "examples", "tiny_trainer")
PREDICTIONS_PER_SEQ_STEP = 256  # 8 microbatches x 32 predictions a sequence: a sweep's batch is mb x 256
PROBES = 16


def fit(scales, losses):
    """(A, B) of the least-squares L0 - A c + B c^2 (normal equations, 3 x 3)."""
    rows = [(1.0, -c, c * c) for c in scales]
    m = [[sum(r[i] * r[j] for r in rows) for j in range(3)] for i in range(3)]
    v = [sum(r[i] * y for r, y in zip(rows, losses)) for i in range(3)]
    for i in range(3):  # Gauss-Jordan with partial pivoting
        p = max(range(i, 3), key=lambda r: abs(m[r][i]))
        m[i], m[p], v[i], v[p] = m[p], m[i], v[p], v[i]
        for r in range(3):
            if r != i:
                q = m[r][i] / m[i][i]
                m[r] = [a - q * b for a, b in zip(m[r], m[i])]
                v[r] -= q * v[i]
    return v[1] / m[1][1], v[2] / m[2][2]


def k_of(scales, losses):
    """The step's learning-rate ratio: 2 B / A, in [0, 2)."""
    a, b = fit(scales, losses)
    if not a > 0.0:
        return tfc_plan.LR_RATIO_MAX - 1e-3  # the step did not descend: at or past no progress
    return min(max(2.0 * b / a, 0.0), tfc_plan.LR_RATIO_MAX - 1e-3)


def probes(path):
    """[(step, k)] and the META dict of a probe file; SystemExit naming the
    file and line where it cannot be read as `run` writes it."""
    out, meta = [], {}
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise SystemExit(f"ttq_probe: {path}: cannot read it ({e})")
    for i, line in enumerate(lines, 1):
        try:
            m = re.match(r"PROBE step=(\d+) lr=\S+ scales=(\S+) losses=(\S+)", line)
            if m:
                scales = [float(x) for x in m.group(2).split(",")]
                losses = [float(x) for x in m.group(3).split(",")]
                if len(scales) != len(losses) or len(set(scales)) < 3:
                    raise ValueError("a line search needs three or more scales, each with its loss")
                if not all(math.isfinite(x) for x in scales + losses):
                    raise ValueError("a scale or loss that is not a finite number")
                out.append((int(m.group(1)), k_of(scales, losses)))
            m = re.match(r"META (.*)", line)
            if m:
                meta = dict(kv.split("=", 1) for kv in m.group(1).split())
                int(meta["warmup"])
        except (ValueError, KeyError, ZeroDivisionError) as e:
            raise SystemExit(f"ttq_probe: {path}:{i}: not a probe line as `run` writes it ({type(e).__name__}: {e})")
    if out and "warmup" not in meta:
        raise SystemExit(f"ttq_probe: {path}: no META line (written by `run`)")
    return out, meta


def run(sweep, data, beta2):
    state = json.load(open(os.path.join(sweep, "cache.json")))
    binary = os.path.join(sweep, "probe_tiny_trainer")
    if not os.path.exists(binary):
        gen = os.path.join(sweep, "probe_gen")
        subprocess.run([os.path.join(ROOT, "build", "tfc"), "compile", os.path.join(EX, "tiny_narrow.yaml"), "-o", gen,
                        "-q", "--skip-cuda-check"], check=True)
        srcs = [os.path.join(EX, f) for f in ("main.c", "model.c", "mlp.c", "gpt.c", "corpus.c", "pipe.c", "plot.c")]
        subprocess.run([os.environ.get("CC", "cc"), "-std=c11", "-O3", f"-I{gen}", f"-I{EX}", "-o", binary] + srcs +
                       [os.path.join(gen, "tiny.c"), os.path.join(gen, "tiny_lcp_index.c"), "-pthread", "-lm"],
                       check=True)
    for mb, point in sorted(state["points"].items(), key=lambda kv: int(kv[0])):
        out = os.path.join(sweep, f"probe_mb{mb}.txt")
        if os.path.exists(out):
            continue
        lr = point["lr"]
        key = batch_regime.none_key(mb, lr, 1)
        n = int(state["runs"][key]["steps"])
        cmd = [binary, "train", "--model", "mlp_narrow", "--data", data, "--part", "finetune", "--init",
               os.path.join(sweep, "pretrained.bin"), "--seed", "1", "--steps", str(n), "--mb-seqs", mb,
               "--eval-every", "4", "--val-max", "2048", "--lr", f"{lr:.6g}", "--lr-warmup", str(max(1, n // 20)),
               "--lr-horizon", str(n), "--order", "shuffled", "--no-freeze", "--probe-every",
               str(max(1, n // PROBES))] + (["--beta2", str(beta2)] if beta2 else [])
        text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        got = float(re.search(r"^RESULT val_loss=(\S+)", text, re.M).group(1))
        want = state["runs"][key]["val_loss"]
        if abs(got - want) > 5e-7:
            raise SystemExit(f"ttq_probe: {key}: final loss {got}, the sweep's {want}: not the same run")
        with open(out + ".tmp", "w") as f:
            f.write(text + f"META mb={mb} n={n} warmup={point['warmup']} lr={lr}\n")
        os.replace(out + ".tmp", out)
        print(f"ttq_probe: {out}", flush=True)


def score(pairs):
    lines = ["| batch size | k from the probes (frozen steps' mean) | each probe's k | cap | measured | with k | "
             "error | without k | error |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    errs, errs0, groups = [], [], 0
    for sweep, md in pairs:
        n, ramp, table = ttq_pilot.read_sweep(md)
        if not os.path.isdir(sweep):
            raise SystemExit(f"ttq_probe: {sweep}: not a folder (a sweep's --out, with the probes `run` wrote)")
        for name in sorted(os.listdir(sweep)):
            m = re.fullmatch(r"probe_mb(\d+)\.txt", name)
            if not m:
                continue
            pr, meta = probes(os.path.join(sweep, name))
            label = f"{int(m.group(1)) * PREDICTIONS_PER_SEQ_STEP:,}"
            pts = table.get(label)
            if not pts or not pr:
                continue
            w = int(meta["warmup"]) + ramp / 2.0
            frozen = [k for s, k in pr if s >= w] or [pr[-1][1]]
            k = sum(frozen) / len(frozen)
            groups += 1
            each = " ".join(f"{kk:.3f}" for _, kk in pr)
            for p in pts:
                v = tfc_plan.predicted_time_to_quality(p["beta"], p["f"], p["r"], n, p["warmup"], ramp, k)
                v0 = tfc_plan.predicted_time_to_quality(p["beta"], p["f"], p["r"], n, p["warmup"], ramp, None)
                e = abs(v - p["df"]) if p["reached"] else max(0.0, v - p["df"])
                e0 = abs(v0 - p["df"]) if p["reached"] else max(0.0, v0 - p["df"])
                errs.append(e)
                errs0.append(e0)
                lines.append(f"| {label} (N = {n}, {os.path.basename(md)}) | {k:.3f} | {each} | {p['cap']:g} | "
                             f"{'' if p['reached'] else '<'}{p['df']:.3f} | {v:.3f} | {e:.3f} | {v0:.3f} | {e0:.3f} |")
    print("\n".join(lines))
    if not errs:
        raise SystemExit("ttq_probe: no probed batch size matches a table row")
    print(f"ttq_probe groups={groups} points={len(errs)} max_abs_err={max(errs):.4f} "
          f"mean_abs_err={sum(errs) / len(errs):.4f} no_k_max_abs_err={max(errs0):.4f} "
          f"no_k_mean_abs_err={sum(errs0) / len(errs0):.4f}")


def main(argv):
    if len(argv) in (3, 5) and argv[0] == "run" and (len(argv) == 3 or argv[3] == "--beta2"):
        try:
            beta2 = float(argv[4]) if len(argv) == 5 else None
        except ValueError:
            raise SystemExit(f"ttq_probe: --beta2 takes a number, got {argv[4]!r}")
        if not os.path.isfile(os.path.join(argv[1], "cache.json")) or not os.path.isdir(argv[2]):
            raise SystemExit(f"ttq_probe: run takes a sweep's --out (with its cache.json) and its corpus folder, "
                             f"got {argv[1]} and {argv[2]}")
        run(argv[1], argv[2], beta2)
        return 0
    if len(argv) >= 2 and argv[0] == "score" and all("=" in a and a[0] != "=" and a[-1] != "=" for a in argv[1:]):
        score([tuple(a.split("=", 1)) for a in argv[1:]])
        return 0
    print(__doc__)
    return 0 if argv[:1] in (["-h"], ["--help"]) else 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
