#!/usr/bin/env python3
"""A PyTorch data loader over tfc's LCP index (examples/lcp_loader/README.md).

The corpus: text files as byte tokens (default /usr/share/common-licenses,
whose licences repeat each other's passages), cut into two parts, each
indexed on its own (`tfc index build`), named by an index set. Then, from
Python (python/tfc_lcp.py):
  - dedup: windows whose first --min-lcp tokens repeat an earlier window's
    are dropped;
  - order: the rest are served in sorted order, so a batch holds windows
    that share prefixes (batches are shuffled, windows within a batch not);
  - contamination: held-out windows whose top-1 LCP against the corpus
    reaches --min-lcp are flagged.
    loader.py TFC [--text DIR] [--seq-len L] [--min-lcp N] [--batch B] [--out DIR] [--check]
"""
import argparse
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, Sampler

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import tfc_lcp  # noqa: E402


class Windows(Dataset):
    """Window i of the set's shards, read in place (numbers as the set numbers them)."""

    def __init__(self, shards, seq_len, stride):
        self.L, self.stride, self.maps, self.first = seq_len, stride, [], [0]
        for path in shards:
            m = np.memmap(path, dtype="<u2", mode="r", offset=1024)
            self.maps.append(m)
            n = 0 if m.size < seq_len else (m.size - seq_len) // stride + 1
            self.first.append(self.first[-1] + n)

    def __len__(self):
        return self.first[-1]

    def __getitem__(self, i):
        s = int(np.searchsorted(self.first, i, side="right") - 1)
        at = (i - self.first[s]) * self.stride
        return torch.from_numpy(self.maps[s][at:at + self.L].astype(np.int64))


class PrefixGrouped(Sampler):
    """The index's sorted order without the duplicates, cut into batches of
    neighbours; the batches' order shuffled per epoch."""

    def __init__(self, order, drop, batch, seed=0):
        keep = np.ones(int(order.max()) + 1 if len(order) else 0, dtype=bool)
        keep[np.asarray(drop, dtype=np.int64)] = False
        o = np.asarray(order, dtype=np.int64)
        self.order, self.batch, self.seed = o[keep[o]], batch, seed

    def __iter__(self):
        nb = (len(self.order) + self.batch - 1) // self.batch
        for b in np.random.default_rng(self.seed).permutation(nb):
            yield from self.order[b * self.batch:(b + 1) * self.batch].tolist()

    def __len__(self):
        return len(self.order)


def shard(path, toks):
    with open(path, "wb") as f:
        f.write(struct.pack("<256i", 20240520, 1, len(toks), *([0] * 253)))
        f.write(np.asarray(toks, dtype="<u2").tobytes())


def shared(a, b):
    n = min(len(a), len(b))
    d = np.nonzero(a[:n] != b[:n])[0]
    return int(d[0]) if d.size else n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tfc")
    ap.add_argument("--text", default="/usr/share/common-licenses")
    ap.add_argument("--seq-len", type=int, default=64)
    ap.add_argument("--min-lcp", type=int, default=32)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--out")
    ap.add_argument("--check", action="store_true", help="check every claim against plain Python")
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix="tfc-lcp-loader-")
    os.makedirs(out, exist_ok=True)
    files = sorted(os.path.join(a.text, f) for f in os.listdir(a.text) if os.path.isfile(os.path.join(a.text, f)))
    if len(files) < 2:
        sys.exit(f"loader: {a.text} holds fewer than 2 files")
    data = [open(f, "rb").read() for f in files]
    half = len(files) // 2
    stride = a.seq_len // 2
    shards, set_args = [], []
    for p, chunk in enumerate((data[:half], data[half:])):
        toks = np.frombuffer(b"".join(chunk), dtype=np.uint8).astype(np.uint16)
        s, ix = os.path.join(out, f"part{p}.bin"), os.path.join(out, f"part{p}.idx")
        shard(s, toks)
        subprocess.run([a.tfc, "index", "build", "--tokens", s, "--seq-len", str(a.seq_len), "--stride", str(stride),
                        "-o", ix, "-q"], check=True)
        shards.append(s)
        set_args += ["--part", ix, "--tokens", s]
    set_path = os.path.join(out, "corpus.set")
    subprocess.run([a.tfc, "index", "set", "-o", set_path, *set_args, "-q"], check=True)

    ds = Windows(shards, a.seq_len, stride)
    with tfc_lcp.open(set_path) as ix:
        assert ix.sequences == len(ds), (ix.sequences, len(ds))
        dups, order = ix.dedup(a.min_lcp), ix.order()
        sampler = PrefixGrouped(order, dups, a.batch)
        loader = DataLoader(ds, batch_size=a.batch, sampler=sampler)
        seen, grouped = [], []
        for batch in loader:
            grouped += [shared(batch[i].numpy(), batch[i + 1].numpy()) for i in range(len(batch) - 1)]
            seen.append(batch)
        rng = np.random.default_rng(1)
        rand = [shared(ds[int(i)].numpy(), ds[int(j)].numpy()) for i, j in rng.integers(0, len(ds), (2000, 2))]
        # Held-out windows: half copies of corpus windows with their tail changed, half other text.
        probe = np.stack([ds[int(i)].numpy() for i in rng.integers(0, len(ds), 100)])
        probe[:50, a.min_lcp + 4:] = ord("#")
        probe[50:] = rng.integers(ord("a"), ord("z") + 1, probe[50:].shape)
        _, lcps = ix.topk_batch(probe, 1)
        flagged = int((lcps[:, 0] >= a.min_lcp).sum())
    print(f"loader: {len(ds)} windows of {a.seq_len} byte tokens from {len(files)} files in 2 parts; "
          f"{len(dups)} share their first {a.min_lcp} tokens with an earlier window and are dropped")
    print(f"loader: {sum(len(b) for b in seen)} windows served in {len(seen)} batches of {a.batch}; neighbours in a "
          f"batch share {np.mean(grouped):.1f} leading tokens on average, random pairs {np.mean(rand):.2f}")
    print(f"loader: contamination: {flagged} of 100 held-out windows reach LCP {a.min_lcp} against the corpus "
          "(50 are corpus windows with their tail changed)")
    if a.check:
        # Plain Python: the first window with each min_lcp-prefix is kept, every later one dropped.
        first, want = set(), []
        for i in range(len(ds)):
            key = bytes(ds[i].numpy()[:a.min_lcp].astype(np.uint8))
            if key in first:
                want.append(i)
            first.add(key)
        assert list(dups) == want, "dedup differs from a scan of every window's prefix"
        served = sorted(tuple(r) for b in seen for r in b.tolist())
        kept = sorted(tuple(ds[i].tolist()) for i in sorted(set(range(len(ds))) - set(want)))
        assert served == kept, "the loader did not serve every kept window once"
        keys = [tuple(ds[int(i)].numpy().tolist()) for i in order]
        assert keys == sorted(keys), "order is not sorted"
        assert np.mean(grouped) > 4 * np.mean(rand), "batches of neighbours share no more than random pairs"
        assert flagged >= 50, "a copied window was not flagged"
        print("loader: checked: dedup against a scan, every kept window served once, order sorted, flags")


if __name__ == "__main__":
    main()
