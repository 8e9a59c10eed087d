#!/usr/bin/env python3
"""timing.source: model against the formula in docs/spec.md ("The cost
model"), recomputed here for several shapes, stage counts and schedules;
and the model's input errors (ctest cost_model).

    cost_model_check.py TFC
"""
import json
import os
import subprocess
import sys
import tempfile

TFC = sys.argv[1]
W = tempfile.mkdtemp(prefix="tfc-cm-")
bad = 0


def spec(name, n, sched, tr, dev, extra=""):
    stages = "\n".join("    - params: [{name: a, numel: 10}]" for _ in range(n))
    tr_s = ", ".join(f"{k}: {v}" for k, v in tr.items())
    dev_s = ", ".join(f"{k}: {v}" for k, v in dev.items())
    text = (f"tfc: 1\nname: {name}\nmodel:\n  stages:\n{stages}\n"
            f"pipeline: {{schedule: {sched}, ranks: {n}, microbatches: {2 * n}}}\n"
            f"timing:\n  source: model\n  transformer: {{{tr_s}}}\n  device: {{{dev_s}}}\n{extra}"
            f"freeze: {{max_ratio: 0.5}}\n")
    path = os.path.join(W, name + ".yaml")
    open(path, "w").write(text)
    return path


def forward_ms(tr, dev, n, i):
    b, s, h, f, V = tr["microbatch_size"], tr["seq_len"], tr["hidden"], tr["ffn"], tr["vocab"]
    kv = h * tr["kv_heads"] / tr["heads"]
    layer = 2 * b * s * (2 * h * h + 2 * h * kv) + 4 * b * s * s * h + 6 * b * s * h * f
    if "stage_layers" in tr:
        layers = tr["stage_layers"][i]
    else:
        layers = tr["layers"] // n + (1 if i < tr["layers"] % n else 0)
    flops = layers * layer + (2 * b * s * h * V if i == n - 1 else 0)
    return flops / (dev["peak_tflops"] * 1e12 * dev["mfu"]) * 1e3


shapes = [
    ({"layers": 32, "hidden": 4096, "ffn": 14336, "heads": 32, "kv_heads": 8, "vocab": 128256, "seq_len": 1024,
      "microbatch_size": 1}, {"peak_tflops": 989, "mfu": 0.4}, 4, "1F1B"),
    ({"layers": 30, "hidden": 2048, "ffn": 5632, "heads": 16, "kv_heads": 16, "vocab": 32000, "seq_len": 2048,
      "microbatch_size": 2}, {"peak_tflops": 312, "mfu": 0.5}, 8, "GPipe"),
    ({"layers": 7, "hidden": 512, "ffn": 2048, "heads": 8, "kv_heads": 1, "vocab": 50257, "seq_len": 256,
      "microbatch_size": 4}, {"peak_tflops": 100, "mfu": 0.3}, 3, "ZBH1"),
    ({"layers": 12, "hidden": 768, "ffn": 3072, "heads": 12, "kv_heads": 4, "vocab": 151936, "seq_len": 512,
      "microbatch_size": 1, "stage_layers": [5, 4, 2, 1]}, {"peak_tflops": 989, "mfu": 0.4}, 4, "1F1B"),
]
for k, (tr, dev, n, sched) in enumerate(shapes):
    p = spec(f"m{k}", n, sched, tr, dev)
    plan = json.loads(subprocess.run([TFC, "plan", p, "--json"], check=True, capture_output=True, text=True).stdout)
    for a in plan["actions"]:
        f = forward_ms(tr, dev, n, a["stage"])
        want = {"F": f, "B": 2 * f, "I": f, "W": f}[a["type"]]
        if abs(a["baseline_duration_ms"] - want) > 1e-9 * want:
            print(f"m{k}: {a['type']} of stage {a['stage']}: {a['baseline_duration_ms']} != {want}", file=sys.stderr)
            bad += 1
            break

good_tr, good_dev = shapes[0][0], shapes[0][1]
errors = [
    ("table and model", spec("e1", 4, "1F1B", good_tr, good_dev, "  forward_ms: 1\n"), "computed by the cost model"),
    ("measured keys and model", spec("e12", 4, "1F1B", good_tr, good_dev, "  file: nothere.csv\n"),
     "timing.file is for measured timings, not the cost model"),
    ("scale and model", spec("e13", 4, "1F1B", good_tr, good_dev, "  scale: 2\n"),
     "timing.scale is for measured timings, not the cost model"),
    ("kv_heads", spec("e2", 4, "1F1B", dict(good_tr, kv_heads=5), good_dev), "must divide heads"),
    ("layers < stages", spec("e3", 4, "1F1B", dict(good_tr, layers=3), good_dev), "fewer than the 4 stages"),
    ("mfu > 1", spec("e4", 4, "1F1B", good_tr, dict(good_dev, mfu=1.5)), "timing.device.mfu"),
    ("stage_layers sum", spec("e7", 4, "1F1B", dict(good_tr, stage_layers=[8, 8, 8, 7]), good_dev),
     "sums to 31 layers"),
    ("stage_layers count", spec("e8", 4, "1F1B", dict(good_tr, stage_layers=[16, 16]), good_dev), "has 2 entries"),
    ("stage_layers zero", spec("e9", 4, "1F1B", dict(good_tr, stage_layers=[0, 16, 8, 8]), good_dev),
     "stage_layers[0] must be an integer from 1"),
    ("uint16 ids, vocab 128256", spec("e10", 4, "1F1B", good_tr, good_dev,
                                      "data: {lcp_index: {token_bytes: 2, seq_len: 8}}\n"), "use token_bytes: 4"),
    ("default width, vocab 128256", spec("e11", 4, "1F1B", good_tr, good_dev, "data: {lcp_index: {seq_len: 8}}\n"),
     "token_bytes is 2"),
    ("missing key", spec("e5", 4, "1F1B", {k: v for k, v in good_tr.items() if k != "vocab"}, good_dev), "vocab"),
]
for label, path, needle in errors:
    r = subprocess.run([TFC, "check", path], capture_output=True, text=True)
    if r.returncode != 1 or needle not in r.stderr or ":" not in r.stderr.split("error")[0]:
        print(f"{label}: exit {r.returncode}, {r.stderr.strip()[:200]}", file=sys.stderr)
        bad += 1
measured = os.path.join(W, "x.yaml")
open(measured, "w").write(open(spec("e6", 2, "1F1B", good_tr, good_dev)).read().replace("source: model", "source: measured"))
r = subprocess.run([TFC, "check", measured], capture_output=True, text=True)
if r.returncode != 1 or "does not go with measured timings" not in r.stderr:
    print(f"measured with the cost model's keys: exit {r.returncode}; {r.stderr.strip()[:200]}", file=sys.stderr)
    bad += 1

subprocess.run(["rm", "-rf", W])
print(f"cost_model_check: {len(shapes)} shapes against the documented formula, {len(errors) + 1} error cases, "
      f"{bad} problems")
sys.exit(1 if bad else 0)
