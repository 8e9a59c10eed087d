#!/usr/bin/env python3
"""Write a tfc spec (v1) for a real model, so no tensor is listed by hand.

    tfc_spec.py from-hf CONFIG.json [OPTIONS]        a Hugging Face config.json
                                                     (LLaMA, Mistral, Qwen2, Qwen3)
    tfc_spec.py from-torchtitan FLAVOUR [OPTIONS]    a torchtitan llama3 flavour
                                                     (debugmodel, 1B, 8B, ...; needs
                                                     torch and torchtitan importable)

    from tfc_spec import spec_from_modules           the stages as PyTorch modules
    text = spec_from_modules([stage0, stage1], name="mymodel", ...)

Every tensor is listed with its exact element count, in the order PyTorch's
named_parameters() gives it. Stage 0 holds the embedding, the last stage
the final norm and the output projection; the layers are split over the
stages evenly by count (--split layers) or so that the largest stage holds
as few parameters as possible (--split params). A tied output projection
(tie_word_embeddings) is listed on the last stage as a copy of the
embedding when the model has more than one stage (pipeline stages hold
their own copy) and counted once in the total.

Timings come from tfc's cost model (timing.source: model, docs/spec.md):
a config does not say the sequence length, the microbatch size or the GPU,
so they are options with the defaults below. The spec is written to -o
FILE (atomically) or stdout; a summary goes to stderr unless -q.

Standard library only; torch only for from-torchtitan and spec_from_modules.
"""
import argparse
import json
import math
import os
import re
import sys
import tempfile
import warnings

# Dense bf16 peaks, TFLOP/s, and the CUDA arch the spec targets.
DEVICES = {
    "a100": (312.0, "sm_80"),
    "h100": (989.0, "sm_90"),
    "h200": (989.0, "sm_90"),
    "b200": (2250.0, "sm_100"),
}
DEFAULTS = {
    "schedule": "1F1B", "ranks": 4, "microbatches": 8, "split": "layers", "seq_len": 4096,
    "microbatch_size": 1, "device": "h100", "mfu": 0.4, "link_gbps": 50.0, "max_ratio": 0.5,
}
SCHEDULES = ("GPipe", "1F1B", "Interleaved1F1B", "ZBH1", "ZBV", "LoopedBFS", "DualPipeV")
# Schedules that place several stages on a rank (two by default).
MULTI_STAGE = ("Interleaved1F1B", "ZBV", "LoopedBFS", "DualPipeV")
HF_TYPES = ("llama", "mistral", "qwen2", "qwen3")
NAME_CHARS = re.compile(r"^[A-Za-z0-9_.\-:/\[\]@+]{1,512}$")
PLAIN_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.\-/]*$")
# Plain scalars YAML reads as something other than a string (a number, a
# boolean, null): such a name must be quoted ("0", "1e3", "0x10", "true").
NOT_A_STRING = re.compile(r"^(?:[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][-+]?[0-9]+)?"
                          r"|[-+]?0[xXoObB][0-9A-Fa-f_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN)|~"
                          r"|(?:[Nn]ull|NULL|[Tt]rue|TRUE|[Ff]alse|FALSE|[Yy]es|YES|[Nn]o|NO|[Oo]n|ON|[Oo]ff|OFF|[YyNn]))$")
LAYER_RE = re.compile(r"(?:^|\.)layers\.(\d+)\.")


class SpecError(Exception):
    """A model or option tfc_spec cannot turn into a spec."""


class Model:
    """A decoder as tfc sees it: tensors before the layers, the layers' tensors,
    tensors after them; the shape the cost model needs; the tied copy."""

    def __init__(self, name, pre, layers, post, shape, tied_copy=None, source=""):
        self.name, self.pre, self.layers, self.post = name, pre, layers, post
        self.shape, self.tied_copy, self.source = shape, tied_copy, source

    def params(self):
        """Parameters counted once (the tied copy is the embedding's)."""
        return sum(n for group in [self.pre, self.post] + self.layers for _, n in group)


def group_tensors(named, name="model", shape=None, source=""):
    """(name, numel) pairs in module order -> Model: tensors named
    `...layers.N....` form layer N, the others go before or after them."""
    pre, post, layers, seen = [], [], {}, False
    for tname, numel in named:
        m = LAYER_RE.search(tname)
        if m:
            layers.setdefault(int(m.group(1)), []).append((tname, numel))
            seen = True
        else:
            (post if seen else pre).append((tname, numel))
    if not layers:
        raise SpecError("no tensor is named like layers.N.*: cannot find the model's layers")
    idx = sorted(layers)
    if idx != list(range(len(idx))):
        raise SpecError(f"the layers are not numbered 0..{len(idx) - 1}")
    return Model(name, pre, [layers[i] for i in idx], post, shape, source=source)


# -- Hugging Face configs ---------------------------------------------------

def _need(cfg, key, path):
    v = cfg.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v < 1:
        raise SpecError(f"{path}: {key} must be a positive integer, got {v!r}")
    return v


def hf_model(cfg, path="config.json"):
    """A LLaMA/Mistral/Qwen2/Qwen3-style decoder config -> Model, tensor names
    and shapes as transformers' modules have them."""
    kind = cfg.get("model_type")
    if kind not in HF_TYPES:
        raise SpecError(f"{path}: model_type {kind!r} is not supported (supported: {', '.join(HF_TYPES)}); "
                        "for other models use spec_from_modules()")
    for moe in ("num_local_experts", "num_experts", "n_routed_experts"):
        if cfg.get(moe):
            raise SpecError(f"{path}: {moe} is set: mixture-of-experts models are not supported")
    h = _need(cfg, "hidden_size", path)
    nl = _need(cfg, "num_hidden_layers", path)
    heads = _need(cfg, "num_attention_heads", path)
    kv = _need(cfg, "num_key_value_heads", path) if cfg.get("num_key_value_heads") is not None else heads
    ffn = _need(cfg, "intermediate_size", path)
    vocab = _need(cfg, "vocab_size", path)
    hd = _need(cfg, "head_dim", path) if cfg.get("head_dim") is not None else h // heads
    if heads % kv:
        raise SpecError(f"{path}: num_key_value_heads ({kv}) must divide num_attention_heads ({heads})")
    tied = bool(cfg.get("tie_word_embeddings", False))
    qkv_bias = kind == "qwen2" or bool(cfg.get("attention_bias", False))
    o_bias = bool(cfg.get("attention_bias", False)) and kind in ("llama", "qwen3")
    mlp_bias = bool(cfg.get("mlp_bias", False))
    named = [("model.embed_tokens.weight", vocab * h)]
    for i in range(nl):
        p = f"model.layers.{i}."
        a = p + "self_attn."
        named += [(a + "q_proj.weight", heads * hd * h)] + ([(a + "q_proj.bias", heads * hd)] if qkv_bias else [])
        named += [(a + "k_proj.weight", kv * hd * h)] + ([(a + "k_proj.bias", kv * hd)] if qkv_bias else [])
        named += [(a + "v_proj.weight", kv * hd * h)] + ([(a + "v_proj.bias", kv * hd)] if qkv_bias else [])
        named += [(a + "o_proj.weight", h * heads * hd)] + ([(a + "o_proj.bias", h)] if o_bias else [])
        if kind == "qwen3":
            named += [(a + "q_norm.weight", hd), (a + "k_norm.weight", hd)]
        for proj, n in (("gate_proj", ffn), ("up_proj", ffn), ("down_proj", h)):
            named.append((p + f"mlp.{proj}.weight", ffn * h))
            if mlp_bias:
                named.append((p + f"mlp.{proj}.bias", n))
        named += [(p + "input_layernorm.weight", h), (p + "post_attention_layernorm.weight", h)]
    named.append(("model.norm.weight", h))
    if not tied:
        named.append(("lm_head.weight", vocab * h))
    shape = {"layers": nl, "hidden": h, "ffn": ffn, "heads": heads, "kv_heads": kv, "vocab": vocab}
    m = group_tensors(named, shape=shape, source=f"{path} (model_type {kind})")
    if tied:
        m.tied_copy = ("lm_head.weight", "model.embed_tokens.weight", vocab * h)
    return m


def hf_name(path, cfg):
    """A default spec name: the config's folder (or file) name, else the model type."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if stem == "config":
        stem = os.path.basename(os.path.dirname(os.path.abspath(path)))
    return c_name(stem or cfg.get("model_type", "model"))


# -- torchtitan -------------------------------------------------------------

def torchtitan_model(flavour):
    """torchtitan's llama3 flavour -> Model, built on the meta device (no memory)."""
    try:
        import torch
        from torchtitan.models.llama3 import llama3_configs
    except ImportError as e:
        raise SpecError(f"from-torchtitan needs torch and torchtitan importable ({e})")
    if flavour not in llama3_configs:
        raise SpecError(f"torchtitan has no llama3 flavour {flavour!r} (it has: {', '.join(llama3_configs)})")
    cfg = llama3_configs[flavour]("flex")
    with torch.device("meta"):
        module = cfg.build()
    a, ff = cfg.layers[0].attention, cfg.layers[0].feed_forward
    shape = {"layers": len(cfg.layers), "hidden": cfg.dim, "ffn": ff.w1.out_features, "heads": a.n_heads,
             "kv_heads": a.n_kv_heads or a.n_heads, "vocab": cfg.vocab_size}
    named = [(n, p.numel()) for n, p in module.named_parameters()]
    m = group_tensors(named, name=c_name("llama3_" + flavour), shape=shape,
                      source=f"torchtitan llama3 flavour {flavour}")
    if getattr(cfg, "enable_weight_tying", False):
        m.tied_copy = ("lm_head.weight", "tok_embeddings.weight", cfg.vocab_size * cfg.dim)
    return m


# -- the split --------------------------------------------------------------

def split_layers(model, n, by):
    """Layers per stage, each >= 1. `layers`: the cost model's even split (the
    first layers % n stages one more); `params`: contiguous, the largest
    stage's parameters (embedding on stage 0, norm and head on the last)
    as small as possible."""
    nl = len(model.layers)
    if n > nl:
        raise SpecError(f"{n} stages but only {nl} layers: every stage needs a layer")
    if by == "layers":
        return [nl // n + (1 if s < nl % n else 0) for s in range(n)]
    w = [sum(x for _, x in layer) for layer in model.layers]
    first = sum(x for _, x in model.pre)
    last = sum(x for _, x in model.post) + (model.tied_copy[2] if model.tied_copy and n > 1 else 0)
    pre = [0]
    for x in w:
        pre.append(pre[-1] + x)
    # best[i]: (largest stage, sum of squared stages, counts) over splits of
    # layers [0, i) into the stages so far; the largest stage first, then
    # the sum of squares, so equal maxima still spread the rest evenly.
    best = {0: (0, 0, [])}
    for s in range(n):
        nxt = {}
        lo_i = s + 1
        hi_i = nl - (n - 1 - s)
        for i in range(lo_i, hi_i + 1):
            if s == n - 1 and i != nl:
                continue
            cand = None
            for j, (mx, sq, counts) in best.items():
                if j >= i:
                    continue
                load = pre[i] - pre[j] + (first if s == 0 else 0) + (last if s == n - 1 else 0)
                key = (max(mx, load), sq + load * load)
                if cand is None or key < cand[:2]:
                    cand = (key[0], key[1], counts + [i - j])
            if cand:
                nxt[i] = cand
        best = nxt
    return best[nl][2]


# -- writing ----------------------------------------------------------------

C_KEYWORDS = set("""auto break case char const continue default do double else enum extern float for goto if
inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void
volatile while bool true false""".split())


def c_name(s):
    """s as a spec name: a C identifier of at most 64 bytes, not reserved."""
    s = re.sub(r"[^A-Za-z0-9_]+", "_", s).strip("_")
    s = re.sub(r"_+", "_", s)
    if not s or not (s[0].isalpha()):
        s = "m_" + s
    s = s[:64].rstrip("_")
    return s + "_" if s in C_KEYWORDS else s


def _yname(s):
    if not NAME_CHARS.match(s):
        raise SpecError(f"tensor name {s!r} has characters a spec does not allow (letters, digits, _ . - : / [ ] @ +) "
                        "or is longer than 512 bytes")
    return s if PLAIN_NAME.match(s) and not NOT_A_STRING.match(s) else '"' + s + '"'


def activation_bytes(shape, layers, last, tokens):
    """One microbatch's activations a stage keeps from its forward to its
    backward, in bytes: bf16, attention that keeps no score matrix
    (FlashAttention-style), no recomputation. Per token and layer: the two
    norms' inputs and outputs (4 h), Q and the attention output (2 h), K and
    V (2 kv each), the MLP's gate, up and their product (3 ffn), 2 bytes
    each; the last stage adds the final norm (2 h) and the logits in fp32
    for the loss (4 vocab)."""
    h, f, kv = shape["hidden"], shape["ffn"], shape["hidden"] * shape["kv_heads"] // shape["heads"]
    per_token = layers * 2 * (6 * h + 2 * kv + 3 * f)
    if last:
        per_token += 2 * 2 * h + 4 * shape["vocab"]
    return per_token * tokens


def _stage_lines(stages, act=None):
    out = ["model:", "  stages:"]
    for k, (sname, tensors) in enumerate(stages):
        out += [f"    - name: {_yname(sname)}"]
        if act is not None:
            out.append(f"      activation_bytes: {act[k]}")
        out.append("      params:")
        seen = set()
        for tname, numel in tensors:
            if tname in seen:
                raise SpecError(f"stage {sname}: tensor {tname} is listed twice")
            seen.add(tname)
            if not isinstance(numel, int) or not 1 <= numel <= 1 << 48:
                raise SpecError(f"tensor {tname}: numel {numel!r} is outside 1..2^48")
            out.append(f"        - {{name: {_yname(tname)}, numel: {numel}}}")
    return out


def resolve(opts):
    """Options with the defaults filled in and checked."""
    o = dict(DEFAULTS)
    o.update({k: v for k, v in opts.items() if v is not None})
    if o["schedule"] not in SCHEDULES:
        raise SpecError(f"--schedule must be one of {', '.join(SCHEDULES)}, got {o['schedule']!r}")
    if o.get("stages_per_rank") is None:
        o["stages_per_rank"] = 2 if o["schedule"] in MULTI_STAGE else 1
    if o["device"] not in DEVICES:
        raise SpecError(f"--device must be one of {', '.join(DEVICES)}, got {o['device']!r}")
    peak, arch = DEVICES[o["device"]]
    o.setdefault("arch", arch)
    if o.get("peak_tflops") is None:
        o["peak_tflops"] = peak
    for k in ("ranks", "stages_per_rank", "microbatches", "seq_len", "microbatch_size"):
        if not isinstance(o[k], int) or o[k] < 1:
            raise SpecError(f"--{k.replace('_', '-')} must be a positive integer, got {o[k]!r}")
    if o.get("processors") is not None:
        k = "processors"
        if not isinstance(o[k], int) or o[k] < 1:
            raise SpecError(f"--{k.replace('_', '-')} must be a positive integer, got {o[k]!r}")
    if o.get("train_steps") is not None and (not isinstance(o["train_steps"], int) or o["train_steps"] < 1):
        raise SpecError(f"--train-steps must be a positive integer, got {o['train_steps']!r}")
    if not 0 < o["peak_tflops"] < math.inf:
        raise SpecError(f"--peak-tflops must be a positive number, got {o['peak_tflops']}")
    if o.get("comm_ms") is not None and not 0 <= o["comm_ms"] < math.inf:
        raise SpecError(f"--comm-ms must be a non-negative number, got {o['comm_ms']}")
    if not 0 < o["mfu"] <= 1:
        raise SpecError(f"--mfu must be in (0, 1], got {o['mfu']}")
    if not 0 <= o["max_ratio"] <= 1:
        raise SpecError(f"--max-ratio must be in [0, 1], got {o['max_ratio']}")
    if o["split"] not in ("layers", "params"):
        raise SpecError(f"--split must be layers or params, got {o['split']!r}")
    return o


def _tail(o, hidden, vocab):
    """pipeline, comm, freeze, targets and data sections (after timing's tables)."""
    # One microbatch's activations (bf16) over one link, one way.
    comm = (o["microbatch_size"] * o["seq_len"] * hidden * 2) / (o["link_gbps"] * 1e9) * 1e3 if hidden else 0.0
    comm = o["comm_ms"] if o.get("comm_ms") is not None else comm
    out = [f"  comm_ms: {comm:.4g}", "freeze:", f"  max_ratio: {o['max_ratio']:g}", "  select: balanced"]
    if o.get("train_steps"):
        # The frozen set is drawn per window of reselect_every steps at the
        # window's first step's ratio; the default 10 on a short run would
        # leave the first window after the warm-up (ratio 0 at the ramp's
        # start) unfrozen, all of a 20-step run's frozen half.
        n = o["train_steps"]
        out += [f"  warmup_steps: {n // 2}", f"  ramp_steps: {max(1, n // 10)}",
                f"  reselect_every: {max(1, min(10, n // 20))}"]
    out += ["targets:", "  c: true", f"  cuda: {{enabled: true, arch: {o['arch']}}}"]
    if vocab:
        out += ["data:", f"  lcp_index: {{token_bytes: {4 if vocab > 65536 else 2}, seq_len: {o['seq_len']}, topk: 8}}"]
    return out


def _pipeline(o):
    lines = ["pipeline:", f"  schedule: {o['schedule']}", f"  ranks: {o['ranks']}",
             f"  stages_per_rank: {o['stages_per_rank']}", f"  microbatches: {o['microbatches']}"]
    if o.get("processors"):
        lines.append(f"  processors: {o['processors']}")
    return lines


def spec_text(model, **opts):
    """The spec for a Model (from hf_model, torchtitan_model or group_tensors
    with a shape)."""
    o = resolve(opts)
    n = o["ranks"] * o["stages_per_rank"]
    if model.tied_copy and n > 1 and model.source.startswith("torchtitan"):
        raise SpecError(f"{model.source} ties its output projection to the embedding, which torchtitan does not "
                        f"build under pipeline parallelism ({n} stages: NotImplementedError); take an untied "
                        "flavour, or one stage")
    counts = split_layers(model, n, o["split"])
    name = c_name(o.get("name") or model.name)
    stages, i = [], 0
    for s, c in enumerate(counts):
        tensors = (model.pre if s == 0 else []) + [t for layer in model.layers[i:i + c] for t in layer]
        if s == n - 1:
            tensors = tensors + model.post
            if model.tied_copy and n > 1:
                tensors.append((model.tied_copy[0], model.tied_copy[2]))
        stages.append((f"stage{s}", tensors))
        i += c
    sh = model.shape
    head = [f"# {name}: {model.params():,} parameters, from {model.source}.",
            f"# {n} stages of {'/'.join(map(str, counts))} layers (split by {o['split']}); "
            f"timings from the cost model at sequence length {o['seq_len']}, microbatch size "
            f"{o['microbatch_size']}, {o['device']} ({o['peak_tflops']:g} TFLOP/s, MFU {o['mfu']:g})."]
    if model.tied_copy and n > 1:
        head.append(f"# {model.tied_copy[0]} on the last stage is the tied copy of {model.tied_copy[1]} "
                    "(counted once above).")
    head.append("# Written by python/tfc_spec.py.")
    tokens = o["seq_len"] * o["microbatch_size"]
    act = [activation_bytes(sh, c, s == n - 1, tokens) for s, c in enumerate(counts)]
    head.append("# activation_bytes: bf16, attention keeping no score matrix, no recomputation; the last "
                "stage's logits in fp32.")
    lines = head + ["tfc: 1", f"name: {name}"] + _stage_lines(stages, act) + _pipeline(o)
    lines += ["timing:", "  source: model", "  transformer:"]
    lines += [f"    {k}: {sh[k]}" for k in ("layers", "hidden", "ffn", "heads", "kv_heads", "vocab")]
    lines += [f"    seq_len: {o['seq_len']}", f"    microbatch_size: {o['microbatch_size']}",
              f"    stage_layers: [{', '.join(map(str, counts))}]",
              "  device:", f"    peak_tflops: {o['peak_tflops']:g}", f"    mfu: {o['mfu']:g}"]
    lines += _tail(o, sh["hidden"], sh["vocab"])
    return "\n".join(lines) + "\n", counts


def spec_from_modules(stages, *, name, schedule=None, ranks=None, stages_per_rank=None, microbatches=None,
                      timing=None, seq_len=None, microbatch_size=None, device=None, peak_tflops=None, mfu=None,
                      comm_ms=None, max_ratio=None, train_steps=None, vocab=None, hidden=None, processors=None):
    """The spec for a model already split into pipeline stages (a list of
    torch.nn.Module, one per stage, in stage order), from each stage's
    named_parameters(). `ranks` defaults to len(stages) / stages_per_rank.

    Timings: `timing` a dict of per-stage tables (forward_ms, backward_ms,
    ... as docs/spec.md names them) written as given; or {"source": "trace"
    (or "measured"), "file": FILES, "frozen_file": FILES} with a path or a
    list of paths each (tfc_torch.profile's per-rank traces) and optionally
    "scale" (timing.scale: tfc_torch.profiler_scale); else estimated per
    stage from its parameters, 2 FLOPs per parameter per token for the
    forward (embedding tables excluded: a lookup is not a matmul) at the
    device's peak x mfu, with the cost model's rules for the backward
    (B = 2 F, B frozen = F, I = W = F). `vocab` sets the data loader's
    token width; `hidden` the default comm_ms; `processors` the processors
    the ranks share (pipeline.processors; None: one per rank)."""
    import torch
    spr = stages_per_rank or (2 if schedule in MULTI_STAGE else 1)
    o = resolve({"schedule": schedule, "ranks": ranks or max(1, len(stages) // spr), "stages_per_rank": spr,
                 "microbatches": microbatches, "seq_len": seq_len, "microbatch_size": microbatch_size,
                 "device": device, "peak_tflops": peak_tflops, "mfu": mfu, "comm_ms": comm_ms,
                 "max_ratio": max_ratio, "train_steps": train_steps, "processors": processors})
    if len(stages) != o["ranks"] * o["stages_per_rank"]:
        raise SpecError(f"{len(stages)} stage modules, but ranks x stages_per_rank is "
                        f"{o['ranks'] * o['stages_per_rank']}")
    listed, fwd = [], []
    for s, mod in enumerate(stages):
        if not isinstance(mod, torch.nn.Module):
            raise SpecError(f"stage {s} is a {type(mod).__name__}, not a torch.nn.Module")
        embed = {id(p) for m in mod.modules() if isinstance(m, torch.nn.Embedding) for p in m.parameters()}
        tensors = [(n, p.numel()) for n, p in mod.named_parameters()]
        if not tensors:
            raise SpecError(f"stage {s} has no parameters: a spec's stage needs at least one tensor")
        fixed = [n for n, p in mod.named_parameters() if not p.requires_grad]
        if fixed:
            warnings.warn(f"tfc_spec: stage {s}: {len(fixed)} parameter(s) do not require grad ({fixed[0]!r} first): "
                          "they are listed (tfc_torch.apply_plan matches every named parameter, and keeps these "
                          "frozen), but a plan's ratio counts their elements too, so the freezing it buys is "
                          "less than planned; leave them out of the stage modules to plan without them",
                          stacklevel=2)
        listed.append((f"stage{s}", tensors))
        dense = sum(p.numel() for p in mod.parameters() if id(p) not in embed)
        tokens = o["seq_len"] * o["microbatch_size"]
        fwd.append(max(2.0 * dense * tokens / (o["peak_tflops"] * 1e12 * o["mfu"]) * 1e3, 1e-6))
    if timing is None:
        timing = {"forward_ms": fwd, "backward_ms": [2 * f for f in fwd], "backward_frozen_ms": fwd,
                  "backward_input_ms": fwd, "backward_weight_ms": fwd}
    lines = [f"# {name}: {sum(n for _, t in listed for _, n in t):,} parameters in {len(stages)} stage modules.",
             "# Written by python/tfc_spec.py (spec_from_modules)."]
    lines += ["tfc: 1", f"name: {c_name(name)}"] + _stage_lines(listed) + _pipeline(o) + ["timing:"]
    if timing.get("source") in ("trace", "measured"):
        # Measured per action: files (one, or a list, e.g. one per rank as
        # tfc_torch.profile writes them), relative to the spec's folder.
        extra = set(timing) - {"source", "file", "frozen_file", "scale"}
        if extra:
            raise SpecError(f"timing source {timing['source']} takes file, frozen_file and scale, not {sorted(extra)}")
        lines.append(f"  source: {timing['source']}")
        if timing.get("scale") is not None:
            if not isinstance(timing["scale"], (int, float)) or isinstance(timing["scale"], bool) \
                    or not 0 < float(timing["scale"]) <= 1000:
                raise SpecError(f"timing scale must be in (0, 1000], got {timing['scale']!r}")
            lines.append(f"  scale: {float(timing['scale']):.6g}")
        for k in ("file", "frozen_file"):
            v = timing.get(k)
            if not v:
                raise SpecError(f"timing source {timing['source']} needs {k}")
            vals = [v] if isinstance(v, (str, os.PathLike)) else list(v)
            lines.append(f"  {k}: [{', '.join(yaml_quoted(os.fspath(x)) for x in vals)}]")
        return "\n".join(lines + _tail(o, hidden, vocab)) + "\n"
    for k, v in timing.items():
        vals = v if isinstance(v, (list, tuple)) else [v] * len(stages)
        if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in vals):
            raise SpecError(f"timing {k} must be a number or a list of numbers (ms per stage), got {v!r}"
                            + ("; source is trace or measured, with file and frozen_file" if k == "source" else ""))
        lines.append(f"  {k}: [{', '.join(f'{x:.6g}' for x in vals)}]")
    return "\n".join(lines + _tail(o, hidden, vocab)) + "\n"


def yaml_quoted(text):
    """A YAML double-quoted scalar (backslashes and quotes escaped)."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_atomic(path, text):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tfc_spec.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="tfc_spec.py", description=__doc__.split("\n\n")[0],
        epilog="Then: tfc check SPEC; tfc plan SPEC; tfc compile SPEC. Spec keys: docs/spec.md.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="{from-hf,from-torchtitan}")
    common = argparse.ArgumentParser(add_help=False)
    g = common.add_argument_group("the spec")
    g.add_argument("-o", "--output", metavar="FILE", help="write the spec here (atomically); default stdout")
    g.add_argument("--name", help="spec name (a C identifier); default from the config's folder or the flavour")
    g.add_argument("--schedule", choices=SCHEDULES, help=f"default {DEFAULTS['schedule']}")
    g.add_argument("--ranks", type=int, help=f"default {DEFAULTS['ranks']}")
    g.add_argument("--stages-per-rank", type=int, help="default 2 for Interleaved1F1B, ZBV, LoopedBFS and DualPipeV, else 1")
    g.add_argument("--microbatches", type=int, help=f"default {DEFAULTS['microbatches']}")
    g.add_argument("--split", choices=("layers", "params"),
                   help="layers over stages: evenly by count, or balancing parameters; default layers")
    g.add_argument("--max-ratio", type=float, help=f"freeze.max_ratio; default {DEFAULTS['max_ratio']} "
                   "(docs/time-to-quality.md)")
    g.add_argument("--train-steps", type=int, help="the run's length: freezing warms up for half of it, "
                   "ramps over a tenth and redraws the frozen set every twentieth (1 to 10 steps); default "
                   "the spec's defaults (1000, 3000, 10)")
    t = common.add_argument_group("timings (the cost model)")
    t.add_argument("--seq-len", type=int, help=f"tokens per sequence; default {DEFAULTS['seq_len']}")
    t.add_argument("--microbatch-size", type=int, help=f"sequences per microbatch; default "
                   f"{DEFAULTS['microbatch_size']}")
    t.add_argument("--device", choices=sorted(DEVICES), help=f"GPU (dense bf16 peak, CUDA arch); default "
                   f"{DEFAULTS['device']}")
    t.add_argument("--peak-tflops", type=float, help="override the device's peak")
    t.add_argument("--mfu", type=float, help=f"share of the peak reached; default {DEFAULTS['mfu']}")
    t.add_argument("--comm-ms", type=float, help="cross-rank latency per transfer; default one microbatch's "
                   f"bf16 activations over a {DEFAULTS['link_gbps']:g} GB/s link")
    g.add_argument("-q", "--quiet", action="store_true", help="no summary on stderr")
    p = sub.add_parser("from-hf", parents=[common], help="from a Hugging Face config.json",
                       description="A LLaMA, Mistral, Qwen2 or Qwen3 config.json (transformers' format).")
    p.add_argument("config", metavar="CONFIG.json")
    p = sub.add_parser("from-torchtitan", parents=[common], help="from a torchtitan llama3 flavour",
                       description="A torchtitan llama3 flavour (debugmodel, 1B, 3B, 8B, 70B, 405B), built on "
                                   "the meta device; needs torch and torchtitan.")
    p.add_argument("flavour", metavar="FLAVOUR")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "from-hf":
            try:
                with open(a.config) as f:
                    cfg = json.load(f)
            except (OSError, ValueError) as e:
                raise SpecError(f"{a.config}: {e}")
            if not isinstance(cfg, dict):
                raise SpecError(f"{a.config}: not a JSON object")
            model = hf_model(cfg, a.config)
            model.name = hf_name(a.config, cfg)
        else:
            model = torchtitan_model(a.flavour)
        opts = {k: getattr(a, k) for k in ("name", "schedule", "ranks", "stages_per_rank", "microbatches", "split",
                                           "seq_len", "microbatch_size", "device", "peak_tflops", "mfu", "comm_ms",
                                           "max_ratio", "train_steps")}
        text, counts = spec_text(model, **opts)
        if a.output:
            try:
                write_atomic(a.output, text)
            except OSError as e:
                raise SpecError(f"{a.output}: cannot write: {e.strerror or e}")
        else:
            sys.stdout.write(text)
    except SpecError as e:
        print(f"tfc_spec.py: error: {e}", file=sys.stderr)
        return 1
    if not a.quiet:
        print(f"tfc_spec.py: {model.params():,} parameters, {len(model.layers)} layers -> "
              f"{len(counts)} stages of {'/'.join(map(str, counts))} layers", file=sys.stderr)
    return 0


def cli():
    """The command line (`tfc-spec`, `python -m tfc_spec`): main() with
    `| head` ending the output quietly."""
    import signal
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())


if __name__ == "__main__":
    cli()
