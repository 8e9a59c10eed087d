#!/usr/bin/env python3
"""tfc_lcp_dist on 4 gloo processes against one index (ctest lcp_dist).

Data sets, each cut into parts (`tfc index build` per part, `tfc index
set`) and also built as one index over all the shards, whose CLI answers
are the oracle (tests/lcp/lcp_oracle.py checks the CLI against brute
force):
  - skewed 2-byte tokens (a 3-token vocabulary: long shared prefixes, many
    ties and duplicates across parts), windows, 4 parts on 4 ranks;
  - documents (--doc-sep) with short ones and repeats, 6 parts on 4 ranks
    (ranks 0 and 1 answer for two parts each);
  - 4-byte raw tokens at the top of uint32 (2**32-1 included), 4 parts,
    one of them an empty shard, in files whose names are not UTF-8.
On each: DistributedSet.topk_batch for queries taken from the corpus and
random ones at k 1, 5 and past the sequences, dedup at three min_lcp,
order; every rank's answer must equal the CLI's on the single index. On
the first, batches rank 0 refuses raise on every rank (and the ranks stay
in step), and an empty batch answers (0, k).

    dist_check.py TFC PYTHON_DIR
"""
import os
import random
import socket
import sys

TFC, PYDIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, PYDIR)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lcp_cli import Cli  # noqa: E402

RANKS = 4


def worker(rank, cases, port, errq):
    import numpy as np
    import torch.distributed as dist
    import tfc_lcp_dist
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=RANKS)
    bad = []
    try:
        for name, d, queries, want_topk, want_dedup, want_order in cases:
            ds = tfc_lcp_dist.DistributedSet(os.path.join(d, "all.set"))
            q = np.array(queries, dtype=np.int64) if rank == 0 else None
            if name == cases[0][0]:
                # A batch rank 0 refuses (a row too long, float tokens) raises on
                # every rank, and the ranks stay in step for the next; an empty
                # batch answers (0, k) as one index does.
                n = len(queries[0])
                for refused in (np.zeros((3, n + 1), np.int64), np.full((2, n), 4.7)):
                    try:
                        ds.topk_batch(refused if rank == 0 else None, 3)
                        bad.append(f"{name}: rank 0 refused a batch of {refused.dtype} {refused.shape}, rank {rank} "
                                   "raised nothing")
                    except ValueError:
                        pass
                seq, lcp = ds.topk_batch(np.zeros((0, n), np.int64) if rank == 0 else None, 5)
                if seq.shape != (0, 5) or lcp.shape != (0, 5):
                    bad.append(f"{name}: an empty batch answered {seq.shape} and {lcp.shape}, not (0, 5)")
            for k, want in want_topk.items():
                seq, lcp = ds.topk_batch(q, k)
                got = [list(zip(s.tolist(), l.tolist())) for s, l in zip(seq, lcp)]
                if got != want:
                    i = next(i for i in range(len(want)) if i >= len(got) or got[i] != want[i])
                    g, w = (got[i] if i < len(got) else []), want[i]
                    j = next(j for j in range(max(len(g), len(w))) if j >= len(g) or j >= len(w) or g[j] != w[j])
                    bad.append(f"{name}: top-{k} query {i}, entry {j}: {g[j:j + 3]}, one index {w[j:j + 3]}")
            for m, want in want_dedup.items():
                got = ds.dedup(m).tolist()
                if got != want:
                    bad.append(f"{name}: dedup --min-lcp {m}: {len(got)} numbers, one index {len(want)}"
                               f" (first difference {next((a, b) for a, b in zip(got + [None], want + [None]) if a != b)})")
            got = ds.order().tolist()
            if got != want_order:
                bad.append(f"{name}: order differs from one index's at {next(i for i, (a, b) in enumerate(zip(got, want_order)) if a != b)}")
            ds.close()
    except Exception as e:  # noqa: BLE001 (reported, then the run fails)
        import traceback
        bad.append(f"rank {rank}: {traceback.format_exc()}")
        errq.put((rank, bad))
        # os._exit skips the queue's feeder thread: flush it first, or the
        # report is lost and the test waits out its timeout.
        errq.close()
        errq.join_thread()
        os._exit(1)
    errq.put((rank, bad))
    dist.destroy_process_group()


def main():
    try:
        import numpy  # noqa: F401
        import torch.multiprocessing as mp
    except ImportError as e:
        print(f"lcp_dist: needs torch and numpy ({e})", file=sys.stderr)
        sys.exit(77)
    rng = random.Random(11)
    cli = Cli(TFC, "tfc-lcp-dist-")
    cases = []

    # Skewed windows: 4 parts, copies of one part's runs in another.
    L = 12
    parts = [[rng.choice((0, 0, 1, 2)) for _ in range(rng.randrange(300, 500))] for _ in range(4)]
    parts[2][100:160] = parts[0][40:100]
    d, tok = cli.build("skewed", parts, L, ["--stride", "2"])
    flat = [t for p in parts for t in p]
    qs = [flat[i:i + L] for i in (rng.randrange(len(flat) - L) for _ in range(120))]
    qs += [[rng.randrange(3) for _ in range(L)] for _ in range(40)]
    n = sum((len(p) - L) // 2 + 1 for p in parts)
    cases.append(("skewed", d, qs, *cli.answers(os.path.join(d, "one.idx"), tok, qs, (1, 5, n + 3), (1, 4, L), 2, False)))

    # Documents: 6 parts on 4 ranks; short documents, repeats across parts.
    sep, L = 0, 8
    docs = [[rng.randrange(1, 5) for _ in range(rng.choice((1, 2, 3, 8, 12)))] for _ in range(60)]
    docs[0] = [3, 1]  # every part starts with it: ties between parts' first (local 0) documents
    parts = []
    for p in range(6):
        pick = [docs[0]] + [rng.choice(docs) for _ in range(rng.randrange(8, 20))]
        parts.append([t for doc in pick for t in doc + [sep]])
    d, tok = cli.build("docs", parts, L, ["--doc-sep", str(sep)])
    qs = [(doc + [sep] * L)[:L] for doc in rng.sample(docs, 30)] + [[rng.randrange(1, 5) for _ in range(L)]
                                                                    for _ in range(20)]
    cases.append(("docs", d, qs, *cli.answers(os.path.join(d, "one.idx"), tok, qs, (1, 4), (1, 3, L), 2, False)))

    # 4-byte raw tokens at the top of uint32 (2**32-1 is a token in windows,
    # not a document's end: dedup must find prefixes holding it), one part empty.
    L = 6
    parts = [[rng.randrange((1 << 32) - 4, 1 << 32) for _ in range(rng.randrange(100, 200))] for _ in range(3)] + [[]]
    parts[1], parts[3] = parts[3], parts[1]
    d, tok = cli.build("u32", parts, L, [], width=4, raw=True, tag="\udcff")  # file names not UTF-8
    flat = [t for p in parts for t in p]
    qs = [flat[i:i + L] for i in (rng.randrange(len(flat) - L) for _ in range(40))]
    cases.append(("u32", d, qs, *cli.answers(os.path.join(d, "one.idx"), tok, qs, (1, 3), (2, L), 4, True)))

    ctx = mp.get_context("spawn")
    errq = ctx.Queue()
    with socket.socket() as sock:  # a port the system says is free
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    procs = [ctx.Process(target=worker, args=(r, cases, port, errq)) for r in range(RANKS)]
    for p in procs:
        p.start()
    reports = [errq.get(timeout=600) for _ in procs]
    for p in procs:
        p.join(60)
    bad = [b for _, bs in sorted(reports) for b in bs]
    for b in bad[:20]:
        print("lcp_dist: " + b, file=sys.stderr)
    if bad or any(p.exitcode for p in procs):
        sys.exit(1)
    print(f"lcp_dist: {len(cases)} sets on {RANKS} gloo ranks (skewed windows, documents on 6 parts, 4-byte tokens): "
          "top-k, dedup and order equal one index's on every rank")


if __name__ == "__main__":
    main()
