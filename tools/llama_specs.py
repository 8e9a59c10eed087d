#!/usr/bin/env python3
"""Writes the example specs in specs/: one LLaMA-3-8B-like model per schedule.

    tools/llama_specs.py [--out DIR]   (rewrites DIR/llama8b_*.yaml and .csv;
                                        DIR defaults to specs/)

The model: 32 layers, dim 4096, 32 heads / 8 KV heads of 128, FFN 14336,
vocabulary 128256, untied output (8,030,261,248 parameters). Layers are split
evenly over the stages; stage 0 also holds the embedding, the last stage the
final norm and the output projection. Forward time follows the matmul
parameters a stage holds: 1.25 ms per layer (218M), +3 ms for the output
projection (525M); full backward = 2 x forward; frozen backward = forward;
split schedules take I = W = forward.
"""
import argparse
import os

DIM, LAYERS, VOCAB, FFN, KV = 4096, 32, 128256, 14336, 1024
LAYER_TENSORS = [
    ("attention_norm.weight", DIM), ("attention.wq.weight", DIM * DIM), ("attention.wk.weight", KV * DIM),
    ("attention.wv.weight", KV * DIM), ("attention.wo.weight", DIM * DIM), ("ffn_norm.weight", DIM),
    ("feed_forward.w1.weight", FFN * DIM), ("feed_forward.w2.weight", DIM * FFN),
    ("feed_forward.w3.weight", FFN * DIM),
]

HEADER = """# {title}
#
# A LLaMA-3-8B-like model (32 layers, dim 4096, 32 heads / 8 KV heads, FFN
# 14336, vocabulary 128256: 8,030,261,248 parameters) split into {n} pipeline
# stages of {per} layers{placement}.
#
# Timings are per microbatch and stage, in milliseconds. Forward time follows
# the matmul parameters a stage holds: {per} layers take {f_layers:g} ms; the last
# stage also runs the 525M-parameter output projection (+3 ms), so it is the
# slowest at {f_last:g} ms. {backward_note}
# Written by tools/llama_specs.py.
"""


def fmt(xs):
    return "[" + ", ".join(f"{x:.1f}" for x in xs) + "]"


def spec(name, title, schedule, ranks, spr, mbs, split, placement="", order=None, extra_note=""):
    n = ranks * spr
    per = LAYERS // n
    fwd = [1.25 * per + (3.0 if s == n - 1 else 0.0) for s in range(n)]
    if split:
        backward_note = ("The backward is split: input-gradient I and weight-gradient W\n"
                         "# each take as long as the forward; freezing shortens W.")
    else:
        backward_note = ("A full backward is 2 x forward; with every parameter frozen\n"
                         "# the weight-gradient half disappears and the backward costs one forward.")
    out = [HEADER.format(title=title, n=n, per=per, placement=placement, f_layers=fwd[0], f_last=fwd[-1],
                         backward_note=backward_note).rstrip("\n")]
    if extra_note:
        out.append(extra_note)
    out += ["tfc: 1", f"name: {name}", "model:", "  stages:"]
    for s in range(n):
        out += [f"    - name: stage{s}", "      params:"]
        if s == 0:
            out.append(f"        - {{name: tok_embeddings.weight, numel: {VOCAB * DIM}}}")
        for layer in range(s * per, (s + 1) * per):
            for t, numel in LAYER_TENSORS:
                out.append(f"        - {{name: layers.{layer}.{t}, numel: {numel}}}")
        if s == n - 1:
            out.append(f"        - {{name: norm.weight, numel: {DIM}}}")
            out.append(f"        - {{name: output.weight, numel: {VOCAB * DIM}}}")
    out += ["pipeline:", f"  schedule: {schedule}", f"  ranks: {ranks}", f"  stages_per_rank: {spr}",
            f"  microbatches: {mbs}"]
    if order:
        out.append(f"  order: {order}")
    out.append("timing:")
    out.append(f"  forward_ms:         {fmt(fwd)}")
    if split:
        out.append(f"  backward_input_ms:  {fmt(fwd)}")
        out.append(f"  backward_weight_ms: {fmt(fwd)}")
    else:
        out.append(f"  backward_ms:        {fmt([2 * f for f in fwd])}")
        out.append(f"  backward_frozen_ms: {fmt(fwd)}")
    out += ["  comm_ms: 0.2                  # activation / gradient transfer between ranks",
            "freeze:",
            "  max_ratio: 0.9                # per-stage cap on the mean freeze ratio (the accuracy budget)",
            "  warmup_steps: 1000            # no freezing before; measured: freeze in the second half of a run",
            "  ramp_steps: 3000", "  reselect_every: 10", "  seed: 42",
            "  select: balanced              # every tensor keeps some microbatch's gradient each step",
            "                                # (docs/time-to-quality.md)",
            "targets:", "  c: true", "  cuda: {enabled: true, arch: sm_90}",
            "data:", "  lcp_index: {token_bytes: 4, seq_len: 1024, topk: 8}   # 128,256 token ids: uint32"]
    return "\n".join(out) + "\n"


def two_waves_csv(ranks, mbs):
    """Per rank: forwards then backwards of the first half of the
    microbatches, then of the second half (two GPipe waves in one step)."""
    rows = []
    half = mbs // 2
    for r in range(ranks):
        acts = []
        for lo, hi in ((0, half), (half, mbs)):
            acts += [f"{r}F{m}" for m in range(lo, hi)] + [f"{r}B{m}" for m in range(lo, hi)]
        rows.append(",".join(acts))
    return "\n".join(rows) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="For other models: python/tfc_spec.py (docs/import.md).")
    ap.add_argument("--out", metavar="DIR", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                                                                  "specs"),
                    help="where the specs go (default: the repository's specs/)")
    here = ap.parse_args().out
    files = {
        "llama8b_1f1b.yaml": spec("llama8b_1f1b", "Default spec: 1F1B over 4 ranks, 8 microbatches.", "1F1B", 4, 1,
                                  8, False, ", one per rank"),
        "llama8b_gpipe.yaml": spec("llama8b_gpipe", "GPipe over 4 ranks, 8 microbatches.", "GPipe", 4, 1, 8, False,
                                   ", one per rank"),
        "llama8b_interleaved.yaml": spec("llama8b_interleaved", "Interleaved 1F1B: 4 ranks x 2 stages, 8 microbatches.",
                                         "Interleaved1F1B", 4, 2, 8, False, ";\n# rank r holds stages r and r + 4"),
        "llama8b_zbh1.yaml": spec("llama8b_zbh1", "Zero bubble (ZB-H1): 4 ranks, 8 microbatches, split backward.",
                                  "ZBH1", 4, 1, 8, True, ", one per rank"),
        "llama8b_zbv.yaml": spec("llama8b_zbv", "Zero bubble V (ZBV): 4 ranks x 2 stages, 8 microbatches.", "ZBV", 4,
                                 2, 8, True, ";\n# rank r holds stages r and 7 - r (a V)"),
        "llama8b_loopedbfs.yaml": spec("llama8b_loopedbfs", "Looped BFS: 4 ranks x 2 stages, 8 microbatches.",
                                       "LoopedBFS", 4, 2, 8, False, ";\n# rank r holds stages r and r + 4"),
        "llama8b_dualpipev.yaml": spec("llama8b_dualpipev",
                                       "DualPipeV: 4 ranks x 2 stages, 8 microbatches, overlapped forward-backward pairs.",
                                       "DualPipeV", 4, 2, 8, True, ";\n# rank r holds stages r and 7 - r (a V)",
                                       extra_note="# Its full backwards B (in the overlapped pairs) take I + W; "
                                                  "freezing shortens B and W."),
        "llama8b_custom.yaml": spec("llama8b_custom", "Custom schedule from a CSV: two GPipe waves of 4 microbatches.",
                                    "custom", 4, 1, 8, False, ", one per rank", order="llama8b_custom.csv",
                                    extra_note="# The order (llama8b_custom.csv) runs microbatches 0-3 forward and "
                                               "back, then 4-7:\n# GPipe's activation memory halved, at some bubble."),
        "llama8b_custom.csv": two_waves_csv(4, 8),
    }
    for name, text in files.items():
        with open(os.path.join(here, name), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
