#!/usr/bin/env python3
"""The Python binding, tfc_lcp, against the CLI (ctest lcp_binding).

Data sets cut into parts (tests/lcp/lcp_cli.py): uniform and skewed 2-byte
windows, English text as byte tokens, documents with short ones, 4-byte raw
tokens at the top of uint32 (2**32-1 included) with an empty part. For each, tfc_lcp.open on the set and on the
one index over all the shards must answer top-k (windows given as lists,
array.array and, with numpy, 1-D arrays and topk_batch), dedup and order
exactly as `tfc index` does on the one index; every part opened alone
(open_part) as `tfc index` does on that part's own index, numbers shifted;
the parts' top-k merged with merge_topk as the one index; count_before
summed over the parts is each sequence's place in the order; has_prefix,
searching and walking (sorted=True), agrees with a scan of every
sequence's tokens. Two threads querying one
index at once get the same answers. Errors: a missing set (status 4, the
path in the message), a rebuilt part (status 1), a shard that is not the
index's, windows of the wrong length or with tokens too wide, a closed
index, a part past the set's last, a library of another ABI.

    binding_check.py TFC PYTHON_DIR   (TFC_LCP_LIBRARY names the library)
"""
import array
import os
import random
import sys
import threading

TFC, PYDIR = sys.argv[1], sys.argv[2]
sys.path.insert(0, PYDIR)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tfc_lcp  # noqa: E402
from lcp_cli import Cli  # noqa: E402

try:
    import numpy as np
except ImportError:
    np = None

failures = []
stats = {"sets": 0, "queries": 0}


def expect(cond, msg):
    if not cond:
        failures.append(msg)


def pairs(seq, lcp):
    return [(int(a), int(b)) for a, b in zip(seq, lcp)]


def check(cli, name, parts, seq_len, kind, queries, ks, min_lcps, width=2, raw=False):
    d, tok = cli.build(name, parts, seq_len, kind, width, raw)
    one_path = os.path.join(d, "one.idx")
    want_topk, want_dedup, want_order = cli.answers(one_path, tok, queries, ks, min_lcps, width, raw)
    shards = tok[1:len(parts) + 1]
    stats["sets"] += 1
    with tfc_lcp.open(os.path.join(d, "all.set")) as s, \
            tfc_lcp.open(one_path, tokens=shards, raw=raw, token_bytes=width if raw else None) as one:
        expect(s.sequences == one.sequences == len(want_order), f"{name}: sequence counts")
        expect(s.parts == len(parts) and one.parts == 1, f"{name}: part counts")
        for ix, what in ((s, "set"), (one, "index")):
            for k, want in want_topk.items():
                code = "H" if width == 2 else "I"
                for qi, q in enumerate(queries):
                    stats["queries"] += 1
                    got = pairs(*ix.topk(q, k))
                    expect(got == want[qi], f"{name} {what}: top-{k} of query {qi} (list): {got[:4]}, CLI {want[qi][:4]}")
                    got = pairs(*ix.topk(array.array(code, q), k))
                    expect(got == want[qi], f"{name} {what}: top-{k} of query {qi} (array)")
                    if np is not None:
                        sq, lq = ix.topk(np.array(q, dtype=np.int64), k)
                        expect(isinstance(sq, np.ndarray) and pairs(sq, lq) == want[qi],
                               f"{name} {what}: top-{k} of query {qi} (numpy)")
                if np is not None:
                    sq, lq = ix.topk_batch(np.array(queries, dtype=np.int64), k)
                    got = [pairs(a, b) for a, b in zip(sq, lq)]
                    expect(got == want, f"{name} {what}: topk_batch k {k}")
            if max(ks) >= len(want_order):  # a k far past every sequence: all of them, nothing allocated for k
                got = pairs(*ix.topk(queries[0], 1 << 40))
                expect(got == want_topk[max(ks)][0], f"{name} {what}: top-2^40")
            for m, want in want_dedup.items():
                got = [int(x) for x in ix.dedup(m)]
                expect(got == want, f"{name} {what}: dedup {m}: {len(got)} numbers, CLI {len(want)}")
            got = [int(x) for x in ix.order()]
            expect(got == want_order, f"{name} {what}: order")
        if np is None:
            return
        # Each part alone: its own index's answers, numbers shifted.
        qa = np.array(queries, dtype=np.int64)
        k = max(ks)
        merged, first = None, 0
        for p in range(len(parts)):
            with tfc_lcp.open_part(os.path.join(d, "all.set"), p) as part:
                expect(part.first == first and part.total == s.sequences, f"{name}: part {p}'s first number")
                pt, _, pord = cli.answers(os.path.join(d, f"p{p}.idx"), ["--tokens", shards[p], *cli.fmt],
                                          queries, (k,), (), width, raw)
                sq, lq = part.topk_batch(qa, k)
                got = [[(a - first, b) for a, b in pairs(x, y)] for x, y in zip(sq, lq)]
                expect(got == pt[k], f"{name}: part {p} alone: top-{k}")
                expect([int(x) - first for x in part.order()] == pord, f"{name}: part {p} alone: order")
                merged = (sq, lq) if merged is None else tfc_lcp.merge_topk(merged, (sq, lq), k)
                if p == 0:
                    counts = np.zeros(s.sequences, dtype=np.uint64)
                    every = np.arange(s.sequences, dtype=np.uint64)
                    toks = s.canon(every)
                counts += part.count_before(toks, every) if s.sequences else 0
                first += part.sequences
        got = [pairs(a, b) for a, b in zip(*merged)]
        expect(got == want_topk[k], f"{name}: the parts' top-{k} merged with merge_topk")
        place = {g: j for j, g in enumerate(want_order)}
        expect(all(int(counts[g]) == place[g] for g in range(s.sequences)),
               f"{name}: count_before summed over the parts is not the place in the order")
        # has_prefix against a scan of every sequence's canonical tokens.
        rows = [tuple(r) for r in toks.tolist()]
        for m in sorted({1, max(1, seq_len // 2), seq_len}):
            # A document's end (canonical 2**32-1) starts nothing; in windows it is a token.
            whole = (lambda r: 0xFFFFFFFF not in r) if s.documents else (lambda r: True)
            probes = [list(r[:m]) for r in rows[:50] if whole(r[:m])]
            probes += [[random.Random(m).randrange(6) for _ in range(m)] for _ in range(20)]
            have = {r[:m] for r in rows if whole(r[:m])}
            got = s.has_prefix(np.array(probes, dtype=np.uint32)).tolist() if probes else []
            expect(got == [tuple(p) in have for p in probes], f"{name}: has_prefix with {m} tokens")
            probes.sort()
            got = s.has_prefix(np.array(probes, dtype=np.uint32), sorted=True).tolist() if probes else []
            expect(got == [tuple(p) in have for p in probes], f"{name}: has_prefix(sorted=True) with {m} tokens")
        # Two threads at once on one index.
        res = [None, None]

        def run(i):
            res[i] = [pairs(a, b) for a, b in zip(*one.topk_batch(qa, k))]
        ts = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        expect(res[0] == res[1] == want_topk[k], f"{name}: two threads on one index")


def errors(cli):
    d, tok = cli.build("errors", [[1, 2, 3, 4, 5, 6] * 20, [2, 3, 4, 5] * 30], 4, [])
    setp = os.path.join(d, "all.set")
    try:
        tfc_lcp.open(os.path.join(d, "missing.set"))
        failures.append("a missing set opened")
    except tfc_lcp.Error as e:
        expect(e.status == 4 and "missing.set" in str(e), f"a missing set: status {e.status}, {e}")
    try:
        tfc_lcp.open(os.path.join(d, "one.idx"), tokens=[tok[2]])
        failures.append("an index opened over another's shard")
    except tfc_lcp.Error as e:
        expect(e.status == 1 and str(e), f"an index over the wrong shard: status {e.status}, {e}")
    try:
        tfc_lcp.open_part(setp, 2)
        failures.append("part 2 of a set of 2 parts opened")
    except tfc_lcp.Error as e:
        expect(e.status == 1 and "no part 2" in str(e), f"a part past the last: status {e.status}, {e}")
    with tfc_lcp.open(setp) as s:
        for bad, what in (([1, 2, 3], "a short window"), ([1, 2, 3, 70000], "a token past uint16")):
            try:
                s.topk(bad, 3)
                failures.append(f"{what} was answered")
            except ValueError:
                pass
        try:
            s.dedup(0)
            failures.append("dedup 0 was answered")
        except ValueError:
            pass
    s.close()
    try:
        s.topk([1, 2, 3, 4], 1)
        failures.append("a closed index answered")
    except ValueError:
        pass
    cli.must("index", "build", "--tokens", tok[1], "--seq-len", "3", "-o", os.path.join(d, "p0.idx"), "-q")
    try:
        tfc_lcp.open(setp)
        failures.append("a set whose part was rebuilt opened")
    except tfc_lcp.Error as e:
        expect(e.status == 1 and "does not match" in str(e), f"a rebuilt part: status {e.status}, {e}")
    saved = tfc_lcp.ABI
    tfc_lcp.ABI, tfc_lcp._lib = saved + 1, None
    try:
        tfc_lcp.open(setp)
        failures.append("a library of another ABI was used")
    except tfc_lcp.Error as e:
        expect("ABI" in str(e), f"another ABI: {e}")
    tfc_lcp.ABI, tfc_lcp._lib = saved, None


def main():
    rng = random.Random(5)
    cli = Cli(TFC, "tfc-lcp-binding-")
    L = 10
    uni = [[rng.randrange(6) for _ in range(rng.randrange(200, 400))] for _ in range(3)]
    flat = [t for p in uni for t in p]
    qs = [flat[i:i + L] for i in (rng.randrange(len(flat) - L) for _ in range(25))]
    qs += [[rng.randrange(6) for _ in range(L)] for _ in range(10)]
    check(cli, "uniform", uni, L, ["--stride", "3"], qs, (1, 5), (1, 3, L))

    sk = [[rng.choice((0, 0, 0, 1, 2)) for _ in range(rng.randrange(150, 300))] for _ in range(4)]
    sk[3][10:60] = sk[0][100:150]
    flat = [t for p in sk for t in p]
    n = sum(len(p) - L + 1 for p in sk)
    qs = [flat[i:i + L] for i in (rng.randrange(len(flat) - L) for _ in range(15))] + [[0] * L]
    check(cli, "skewed", sk, L, [], qs, (1, 7, n + 2), (2, L))

    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "docs", "lcp-index.md"), "rb") as f:
        text = list(f.read()[:6000])
    tx = [text[:2500], text[2500:4000], text[4000:]]
    qs = [text[i:i + 16] for i in (rng.randrange(len(text) - 16) for _ in range(20))]
    check(cli, "text", tx, 16, ["--stride", "5"], qs, (1, 4), (4, 16))

    sep, L = 0, 6
    docs = [[rng.randrange(1, 4) for _ in range(rng.choice((1, 2, 6, 9)))] for _ in range(30)]
    docs[0] = [1, 2]  # every part starts and ends with it: ties with each part's first (local 0) document
    parts = [[t for doc in [docs[0]] + [rng.choice(docs) for _ in range(rng.randrange(5, 12))] + [docs[0]]
              for t in doc + [sep]]
             for _ in range(3)]
    qs = [(doc + [sep] * L)[:L] for doc in docs[:15]] + [[1, 2, 3, 1, 2, 3]]
    check(cli, "docs", parts, L, ["--doc-sep", str(sep)], qs, (1, 3), (1, 2, L))

    # The top of uint32, 2**32-1 included: a token in windows, not an end.
    big = (1 << 32) - 3
    parts = [[big + rng.randrange(3) for _ in range(120)], [], [big + rng.randrange(3) for _ in range(90)]]
    flat = parts[0] + parts[2]
    qs = [flat[i:i + 5] for i in range(0, 100, 7)]
    check(cli, "u32", parts, 5, [], qs, (1, 4), (2, 5), width=4, raw=True)

    errors(cli)
    for f in failures[:20]:
        print("lcp_binding: " + f, file=sys.stderr)
    if failures:
        sys.exit(1)
    print(f"lcp_binding: {stats['sets']} data sets, {stats['queries']} windows: tfc_lcp answers as the CLI "
          f"({'with' if np is not None else 'without'} numpy: "
          f"{'batches, parts alone, merge, count_before, has_prefix, two threads' if np is not None else 'lists and arrays'}); "
          "errors raised with the C library's message")


if __name__ == "__main__":
    main()
