#!/usr/bin/env python3
"""freeze_weight for every tensor of a spec from measured per-tensor
gradient noise scales, so that `freeze.select: weights` freezes first where
a skipped gradient costs least (docs/time-to-quality.md, "The batch-regime
sweep").

    noise_weights.py SPEC NOISE BATCH -o OUT
      SPEC   a spec whose params are flow mappings ({name: ..., numel: ...})
      NOISE  per-tensor B_simple: `tiny_trainer noise` output ("noise: stage S
             tensor NAME: ... B_simple X predictions" lines), or JSON
             {"NAME": X, ...}
      BATCH  predictions per optimizer step
      OUT    the spec with freeze_weight on every param and select: weights

Skipping a share of tensor k's microbatch gradients costs its progress
about beta_k / (1 + beta_k) of a step (beta_k = B_simple_k / BATCH: the
batch regime per tensor), and a weight gradient's work is the same per
element for every matrix, which is what the freezing budget counts; so a
tensor's odds of being frozen go as 1 / beta_k, scaled so that the cheapest
tensor has weight 1, at least 1/64 (a tensor whose estimate is not positive
gets the floor).
"""
import json
import os
import re
import sys


def read_text(path, what):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise SystemExit(f"noise_weights: {what} {path}: cannot read it "
                         f"({e.strerror if isinstance(e, OSError) else e})")


def read_noise(path):
    text = read_text(path, "NOISE")
    if text.lstrip().startswith("{"):
        try:
            got = json.loads(text)
            if not isinstance(got, dict):
                raise ValueError("not an object")
            return {k: float(v) for k, v in got.items()}
        except (ValueError, TypeError) as e:
            raise SystemExit(f"noise_weights: {path}: not a JSON object of numbers {{\"NAME\": B_simple}} ({e})")
    out = {}
    for m in re.finditer(r"^noise: stage \d+ tensor (\S+): .* B_simple (-?[0-9.e+]+) predictions", text, re.M):
        out[m.group(1)] = float(m.group(2))
    if not out:
        raise SystemExit(f"noise_weights: {path}: no per-tensor B_simple (tiny_trainer noise lines or JSON)")
    return out


def weights(noise, batch):
    """{name: freeze_weight} for the tensors in noise."""
    inv = {k: 1.0 / max(v / batch, 1e-6) for k, v in noise.items() if v > 0}
    top = max(inv.values()) if inv else 1.0
    return {k: max(round(inv.get(k, 0.0) / top, 4), 1 / 64) for k in noise}


def write_spec(spec_text, w):
    """spec_text with freeze_weight on every flow-mapping param named in w
    and freeze.select set to weights (flow or block freeze mapping)."""
    missing = []

    def param(m):
        body = m.group(1)
        name = re.search(r"\bname:\s*([^,}\s]+)", body)
        if not name or "numel" not in body:
            return m.group(0)
        if name.group(1) not in w:
            missing.append(name.group(1))
            return m.group(0)
        body = re.sub(r",\s*freeze_weight:\s*[^,}]+", "", body)
        return "{" + body + f", freeze_weight: {w[name.group(1)]:g}" + "}"

    out = re.sub(r"\{([^{}]*\bnumel:[^{}]*)\}", param, spec_text)
    if missing:
        more = f" and {len(missing) - 5} more" if len(missing) > 5 else ""
        raise SystemExit(f"noise_weights: no noise scale for tensor(s) {', '.join(missing[:5])}{more}")
    lines = out.split("\n")
    for i, l in enumerate(lines):
        if re.match(r"freeze:\s*\{", l):
            lines[i] = re.sub(r",?\s*select:\s*\w+", "", l)
            lines[i] = re.sub(r"\}(\s*(#.*)?)$", r", select: weights}\1", lines[i], count=1)
            break
        if re.match(r"freeze:\s*(#.*)?$", l):
            j = i + 1
            while j < len(lines) and (lines[j].startswith(" ") or not lines[j].strip()):
                if re.match(r"\s+select:", lines[j]):
                    lines[j] = re.sub(r"select:\s*\w+", "select: weights", lines[j])
                    break
                j += 1
            else:
                lines.insert(i + 1, "  select: weights")
            break
    else:
        raise SystemExit("noise_weights: the spec has no freeze mapping to set select: weights in")
    return "\n".join(lines)


def main(argv):
    if len(argv) != 6 or argv[4] != "-o":
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    spec, noise, out = argv[1], argv[2], argv[5]
    try:
        batch = float(argv[3])
    except ValueError:
        batch = float("nan")
    if not (batch >= 1 and batch < float("inf")):
        print(f"noise_weights: BATCH must be a number of predictions per step, at least 1, got {argv[3]!r}",
              file=sys.stderr)
        return 2
    w = weights(read_noise(noise), batch)
    text = write_spec(read_text(spec, "SPEC"), w)
    tmp = out + ".tmp"
    try:
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, out)
    except OSError as e:
        raise SystemExit(f"noise_weights: cannot write {out} ({e.strerror})")
    for k, v in sorted(w.items(), key=lambda kv: -kv[1]):
        print(f"{k}: freeze_weight {v:g}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
