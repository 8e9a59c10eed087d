#!/usr/bin/env python3
"""tfc_lcp as pip installed it (its own build of the native library)
against the CLI on a small set: top-k, dedup and order (package_check.sh).

    lcp_package_check.py TFC WORKDIR
"""
import os
import random
import struct
import subprocess
import sys

import tfc_lcp

tfc, d = sys.argv[1], sys.argv[2]
os.makedirs(d)
rng = random.Random(3)


def shard(path, toks):
    with open(path, "wb") as f:
        f.write(struct.pack("<256i", 20240520, 1, len(toks), *([0] * 253)) + struct.pack(f"<{len(toks)}H", *toks))


def run(*args):
    return subprocess.run([tfc, *args], check=True, capture_output=True, text=True).stdout


set_args, flat = [], []
for p in range(3):
    toks = [rng.randrange(4) for _ in range(400)]
    shard(f"{d}/s{p}.bin", toks)
    run("index", "build", "--tokens", f"{d}/s{p}.bin", "--seq-len", "8", "-o", f"{d}/p{p}.idx", "-q")
    set_args += ["--part", f"{d}/p{p}.idx", "--tokens", f"{d}/s{p}.bin"]
    flat += toks
run("index", "set", "-o", f"{d}/all.set", *set_args, "-q")
qs = [flat[i:i + 8] for i in range(0, 1000, 37)]
shard(f"{d}/q.bin", [t for q in qs for t in q])
cli = run("index", "query", f"{d}/all.set", "--queries", f"{d}/q.bin", "-k", "4").splitlines()
dedup = run("index", "dedup", f"{d}/all.set", "--min-lcp", "5").split()
run("index", "order", f"{d}/all.set", "-o", f"{d}/o.bin")
with open(f"{d}/o.bin", "rb") as f:
    raw = f.read()
order = list(struct.unpack(f"<{len(raw) // 4}I", raw))
with tfc_lcp.open(f"{d}/all.set") as s:
    got = [" ".join(f"{a}:{b}" for a, b in zip(*s.topk(q, 4))) for q in qs]
    assert got == cli, "top-k differs from the CLI's"
    assert [str(x) for x in s.dedup(5)] == dedup, "dedup differs from the CLI's"
    assert list(s.order()) == order and len(order) == 150, "order differs from the CLI's"
print(f"package check: tfc_lcp built by pip answers {len(qs)} top-k queries, dedup and order as the CLI")
