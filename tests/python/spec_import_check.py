#!/usr/bin/env python3
"""python/tfc_spec.py against facts it did not compute (ctest spec_import):

- the parameter totals of published models (their Hugging Face model
  cards' safetensors totals) from their config.json (tests/python/hf_configs/),
  both as tfc_spec.py reports them and as `tfc check` counts the spec it
  wrote (plus the tied copy on the last stage where the head is tied);
- every written spec passes `tfc check` under every schedule;
- --split params: the largest stage equals the brute-force optimum over all
  contiguous splits; every stage holds >= 1 layer; stage_layers names
  the layers each stage lists;
- token_bytes 4 exactly when the vocabulary exceeds 65,536;
- --help, and errors (unsupported model type, mixture of experts, a
  missing file, too many stages) exit 1 with a message and write nothing.

    spec_import_check.py TFC
"""
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(SRC, "python"))
import tfc_spec  # noqa: E402

TFC = sys.argv[1]
TOOL = [sys.executable, os.path.join(SRC, "python", "tfc_spec.py")]
CONFIGS = os.path.join(HERE, "hf_configs")
W = tempfile.mkdtemp(prefix="tfc-import-")
# Published totals (the models' safetensors parameter counts).
PUBLISHED = {
    "Meta-Llama-3-8B": 8_030_261_248,
    "Llama-2-7b-hf": 6_738_415_616,
    "Mistral-7B-v0.1": 7_241_732_096,
    "Qwen2.5-0.5B": 494_032_768,
    "Llama-3.2-1B": 1_235_814_400,
}
bad = 0


def fail(msg):
    global bad
    print("spec_import: " + msg, file=sys.stderr)
    bad += 1


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def stages_of(text):
    """[(stage name, [tensor names])] from a written spec (its own layout)."""
    out = []
    for line in text.splitlines():
        m = re.match(r"    - name: (\S+)$", line)
        if m:
            out.append((m.group(1), []))
        m = re.match(r"        - \{name: \"?([^\",]+)\"?, numel: (\d+)\}$", line)
        if m:
            out[-1][1].append(m.group(1))
    return out


for model, published in PUBLISHED.items():
    cfg_path = os.path.join(CONFIGS, model + ".json")
    cfg = json.load(open(cfg_path))
    tied = cfg.get("tie_word_embeddings", False)
    for sched, ranks, split in (("1F1B", 4, "layers"), ("ZBV", 4, "params"), ("GPipe", 1, "layers"),
                                ("Interleaved1F1B", 2, "params"), ("ZBH1", 8, "layers")):
        out = os.path.join(W, f"{model}-{sched}.yaml")
        r = run(TOOL + ["from-hf", cfg_path, "--schedule", sched, "--ranks", str(ranks), "--split", split,
                        "--microbatches", "8", "-o", out])
        if r.returncode:
            fail(f"{model} {sched}: exit {r.returncode}: {r.stderr.strip()}")
            continue
        said = int(re.search(r"([\d,]+) parameters", r.stderr).group(1).replace(",", ""))
        if said != published:
            fail(f"{model}: tfc_spec.py says {said:,} parameters, published {published:,}")
        c = run([TFC, "check", out])
        if c.returncode:
            fail(f"{model} {sched}: tfc check: {c.stderr.strip()[:300]}")
            continue
        counted = int(re.search(r"(\d+) parameters", c.stdout).group(1))
        n = ranks * (2 if sched in ("ZBV", "Interleaved1F1B") else 1)
        copy = cfg["vocab_size"] * cfg["hidden_size"] if tied and n > 1 else 0
        if counted != published + copy:
            fail(f"{model} {sched}: tfc check counts {counted:,}, published {published:,} + tied copy {copy:,}")
        text = open(out).read()
        want_tb = 4 if cfg["vocab_size"] > 65536 else 2
        if f"token_bytes: {want_tb}," not in text:
            fail(f"{model}: token_bytes is not {want_tb} for a vocabulary of {cfg['vocab_size']}")
        st = stages_of(text)
        if len(st) != n:
            fail(f"{model} {sched}: {len(st)} stages, want {n}")
            continue
        per = [len({int(m.group(1)) for t in names for m in [re.search(r"layers\.(\d+)\.", t)] if m})
               for _, names in st]
        declared = [int(x) for x in re.search(r"stage_layers: \[([\d, ]+)\]", text).group(1).split(",")]
        if per != declared or min(per) < 1 or sum(per) != cfg["num_hidden_layers"]:
            fail(f"{model} {sched}: stages list layers {per}, stage_layers says {declared}")
        order = [int(m.group(1)) for _, names in st for t in names for m in [re.search(r"layers\.(\d+)\.", t)] if m]
        if order != sorted(order):
            fail(f"{model} {sched}: layers are not in order over the stages")

# --split params against brute force: every composition of the layers into n
# stages, the smallest possible largest stage.
for model in ("Meta-Llama-3-8B", "Qwen2.5-0.5B", "Llama-3.2-1B"):
    cfg = json.load(open(os.path.join(CONFIGS, model + ".json")))
    cfg = dict(cfg, num_hidden_layers=min(cfg["num_hidden_layers"], 12))
    m = tfc_spec.hf_model(cfg)
    w = [sum(x for _, x in layer) for layer in m.layers]
    first = sum(x for _, x in m.pre)
    for n in (2, 3, 4, 5):
        last = sum(x for _, x in m.post) + (m.tied_copy[2] if m.tied_copy and n > 1 else 0)
        best = None
        for cuts in itertools.combinations(range(1, len(w)), n - 1):
            b = (0,) + cuts + (len(w),)
            loads = [sum(w[b[k]:b[k + 1]]) for k in range(n)]
            loads[0] += first
            loads[-1] += last
            best = max(loads) if best is None else min(best, max(loads))
        got = tfc_spec.split_layers(m, n, "params")
        idx = [0]
        for c in got:
            idx.append(idx[-1] + c)
        loads = [sum(w[idx[k]:idx[k + 1]]) for k in range(n)]
        loads[0] += first
        loads[-1] += last
        if min(got) < 1 or sum(got) != len(w) or max(loads) != best:
            fail(f"{model} {len(w)} layers / {n}: split {got} has largest stage {max(loads):,}, brute force {best:,}")

# The token width at the boundary: uint16 holds ids 0..65535.
for vocab, want in ((65536, 2), (65537, 4)):
    p = os.path.join(W, "v.json")
    json.dump(dict(json.load(open(os.path.join(CONFIGS, "Mistral-7B-v0.1.json"))), vocab_size=vocab), open(p, "w"))
    r = run(TOOL + ["from-hf", p, "-q"])
    if r.returncode or f"token_bytes: {want}," not in r.stdout:
        fail(f"vocabulary {vocab}: want token_bytes {want}")

# --train-steps N: once the ramp is over, every step of the run freezes
# something (the frozen set is drawn per reselect_every window at the
# window's first step's ratio; a window starting at the ramp's ratio 0 once
# left all of a 20-step run's frozen half unfrozen).
from tfc_plan import Plan  # noqa: E402
for n in (12, 20, 40, 100, 1000):
    spec, out = os.path.join(W, f"steps{n}.yaml"), os.path.join(W, f"steps{n}")
    r = run(TOOL + ["from-hf", os.path.join(CONFIGS, "Llama-3.2-1B.json"), "--ranks", "4", "--train-steps", str(n),
                    "--max-ratio", "0.5", "-o", spec, "-q"])
    c = run([TFC, "compile", spec, "-o", out, "--skip-cuda-check", "-q"]) if r.returncode == 0 else r
    if c.returncode:
        fail(f"--train-steps {n}: {c.stderr.strip()[:300]}")
        continue
    plan = Plan.load(os.path.join(out, "plan.json"))
    start = plan.warmup + plan.ramp
    idle = [t for t in range(start, n) if not any(plan.frozen_tensors(st, m, t) for st in range(plan.stage_count)
                                                  for m in range(plan.microbatches))]
    if start >= n or idle:
        fail(f"--train-steps {n}: warm-up {plan.warmup}, ramp {plan.ramp}, reselect {plan.reselect}: "
             f"steps {idle[:5]} of {start}..{n - 1} freeze nothing")

# --help, and errors that write nothing.
r = run(TOOL + ["--help"])
if r.returncode or "from-hf" not in r.stdout or "from-torchtitan" not in r.stdout:
    fail(f"--help: exit {r.returncode}, {r.stdout[:200]}")
r = run(TOOL + ["from-hf", "--help"])
if r.returncode or "--seq-len" not in r.stdout or "--split" not in r.stdout:
    fail(f"from-hf --help: exit {r.returncode}")
base = json.load(open(os.path.join(CONFIGS, "Mistral-7B-v0.1.json")))
cases = [("gpt2", dict(base, model_type="gpt2"), "not supported"),
         ("moe", dict(base, num_local_experts=8), "mixture-of-experts"),
         ("no hidden_size", {k: v for k, v in base.items() if k != "hidden_size"}, "hidden_size"),
         ("head_dim a string", dict(base, head_dim="16"), "head_dim must be a positive integer"),
         ("no kv heads", dict(base, num_key_value_heads=0), "num_key_value_heads must be a positive integer"),
         ("not an object", [1, 2], "not a JSON object")]
for label, cfg, needle in cases:
    p = os.path.join(W, "bad.json")
    json.dump(cfg, open(p, "w"))
    out = os.path.join(W, "bad.yaml")
    r = run(TOOL + ["from-hf", p, "-o", out])
    if r.returncode != 1 or needle not in r.stderr or os.path.exists(out):
        fail(f"{label}: exit {r.returncode}, {r.stderr.strip()[:200]}")
out = os.path.join(W, "bad.yaml")
for args, needle in ((["from-hf", os.path.join(W, "missing.json")], "No such file"),
                     (["from-hf", os.path.join(CONFIGS, "Llama-3.2-1B.json"), "--ranks", "17"], "only 16 layers"),
                     # Option values the spec cannot take are the option's error, not the spec's later
                     (["from-hf", os.path.join(CONFIGS, "Llama-3.2-1B.json"), "--comm-ms", "-5"], "--comm-ms"),
                     (["from-hf", os.path.join(CONFIGS, "Llama-3.2-1B.json"), "--train-steps", "0"],
                      "--train-steps must be a positive integer, got 0"),
                     (["from-hf", os.path.join(CONFIGS, "Llama-3.2-1B.json"), "--train-steps", "-5"], "--train-steps"),
                     (["from-hf", os.path.join(CONFIGS, "Llama-3.2-1B.json"), "--peak-tflops", "nan"], "--peak-tflops"),
                     (["from-hf", os.path.join(CONFIGS, "Llama-3.2-1B.json"), "--comm-ms", "inf"], "--comm-ms")):
    r = run(TOOL + args + ["-o", out])
    if r.returncode != 1 or needle not in r.stderr or os.path.exists(out):
        fail(f"{args}: exit {r.returncode}, {r.stderr.strip()[:200]}")

# An output that cannot be written (no such folder, a folder): an error
# naming it, no traceback, nothing left behind.
for out, needle in ((os.path.join(W, "no", "such", "dir", "x.yaml"), "No such file"), (W, "cannot write")):
    before = sorted(os.listdir(W))
    r = run(TOOL + ["from-hf", os.path.join(CONFIGS, "Llama-3.2-1B.json"), "-o", out])
    if r.returncode != 1 or needle not in r.stderr or "Traceback" in r.stderr or sorted(os.listdir(W)) != before:
        fail(f"-o {out}: exit {r.returncode}, {r.stderr.strip()[-300:]}")

# Tensor names YAML would read as numbers, booleans or null are quoted, so
# tfc reads them back as the names they are (a stage's nn.ParameterList
# names its tensors "0", "1", ...); checked by tfc itself.
odd = ["0", "1e3", "0x10", "true", "null", "y", "0.weight", "-1", ".5", "layers.0.w"]
m = tfc_spec.group_tensors([(n, 64) for n in odd],
                           shape={"layers": 1, "hidden": 8, "ffn": 8, "heads": 1, "kv_heads": 1, "vocab": 8})
text, _ = tfc_spec.spec_text(m, ranks=1, microbatches=2, seq_len=8)
p = os.path.join(W, "odd_names.yaml")
open(p, "w").write(text)
r = run([TFC, "plan", p, "--json"])
got = [t["name"] for st in json.loads(r.stdout)["stage_params"] for t in st] if r.returncode == 0 else r.stderr
if got != odd:
    fail(f"names YAML would not read as strings: tfc read {got}, want {odd}")

# tools/llama_specs.py: --help only prints; --out DIR writes what specs/ holds.
specs = os.path.join(SRC, "specs")
before = {f: os.stat(os.path.join(specs, f)).st_mtime_ns for f in os.listdir(specs)}
r = run([sys.executable, os.path.join(SRC, "tools", "llama_specs.py"), "--help"])
after = {f: os.stat(os.path.join(specs, f)).st_mtime_ns for f in os.listdir(specs)}
if r.returncode or "usage" not in r.stdout or before != after:
    fail(f"tools/llama_specs.py --help: exit {r.returncode}, specs/ {'rewritten' if before != after else 'kept'}")
gen = os.path.join(W, "specs")
os.mkdir(gen)
r = run([sys.executable, os.path.join(SRC, "tools", "llama_specs.py"), "--out", gen])
for f in sorted(os.listdir(gen)):
    if open(os.path.join(gen, f)).read() != open(os.path.join(specs, f)).read():
        fail(f"tools/llama_specs.py writes a different {f} than specs/ holds")

subprocess.run(["rm", "-rf", W])
print(f"spec_import: {len(PUBLISHED)} published models x 5 schedules, split against brute force, "
      f"{len(cases) + 11} error/help cases; {bad} problems")
sys.exit(1 if bad else 0)
