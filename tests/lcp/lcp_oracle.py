#!/usr/bin/env python3
"""tfc index against a brute-force oracle (ctest lcp_oracle).

For every data set: build with tfc, then check `order` (the permutation is
the sort of all windows by tokens, ties by number), `query` (top-k by
scanning all N: LCP descending, ties by smaller number, k > N included) and
`dedup` (a window repeats the first T tokens of a smaller-numbered one),
all recomputed here from the raw tokens. Data: random tokens with planted
shared prefixes, exact duplicates, real English text as byte tokens (files
under /usr/share/common-licenses), 4-byte raw tokens, several shards with an
empty one, seq_len 1, stride different from seq_len, llm.c's uint32
shards; every query also with --latency (its line's form and order).
Documents (--doc-sep): sequences are the non-empty runs between separators,
truncated, a shorter one sharing a prefix only up to its end; order by the
documented packing (past its end, a document holds the largest token + 1 +
its number); queries cut at their first separator, and with tokens equal to
a document's padding (which must match nothing); tokens at the documented limit
(2^32 - 2 - documents).

    lcp_oracle.py TFC
"""
import glob
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

TFC = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="tfc-lcp-")
failures = 0
checked = {"queries": 0, "datasets": 0}


def write_shard(path, tokens, raw_bytes=None):
    """llm.c's uint16 format (raw_bytes None), its uint32 LLaMA-3 format
    ("llmc32"), or raw tokens of raw_bytes bytes."""
    with open(path, "wb") as f:
        if raw_bytes is None:
            f.write(struct.pack("<256i", 20240520, 1, len(tokens), *([0] * 253)))
            f.write(struct.pack("<%dH" % len(tokens), *tokens))
        elif raw_bytes == "llmc32":
            f.write(struct.pack("<256i", 20240801, 7, len(tokens), *([0] * 253)))
            f.write(struct.pack("<%dI" % len(tokens), *tokens))
        else:
            f.write(struct.pack("<%d%s" % (len(tokens), "H" if raw_bytes == 2 else "I"), *tokens))


def run(*args, ok=True):
    r = subprocess.run([TFC, *args], capture_output=True, text=True)
    if ok and r.returncode != 0:
        raise SystemExit(f"tfc {' '.join(args)} failed ({r.returncode}): {r.stderr}")
    return r


def lcp(a, b):
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def body_checksum(data):
    """The index file's checksum of everything from byte 72 on, written from
    its description (docs/lcp-index.md): four multiply-xor lanes over
    little-endian 8-byte words in 32-byte blocks, the last block padded with
    zeros, folded with the byte count."""
    m64 = (1 << 64) - 1
    lanes = [(0x9e3779b97f4a7c15 * (i + 1)) & m64 for i in range(4)]
    padded = data + bytes(32 - len(data) % 32)  # a whole zero block when it ends on one
    for off in range(0, len(padded), 32):
        for i in range(4):
            w = int.from_bytes(padded[off + 8 * i:off + 8 * i + 8], "little")
            x = ((lanes[i] ^ w) * 0xff51afd7ed558ccd) & m64
            lanes[i] = x ^ (x >> 29)
    v = len(data)
    for x in lanes:
        v = ((v ^ x) * 0xc4ceb9fe1a85ec53) & m64
        v ^= v >> 31
    return v


def documents(shards, sep, seq_len):
    """The non-empty runs of tokens between separators, shard after shard."""
    docs = []
    for toks in shards:
        cur = []
        for t in list(toks) + [sep]:
            if t != sep:
                cur.append(t)
            elif cur:
                docs.append(tuple(cur[:seq_len]))
                cur = []
    return docs


def check(name, shards, seq_len, stride, queries, ks, min_lcps, raw_bytes=None, doc_sep=None):
    global failures
    paths = []
    for i, toks in enumerate(shards):
        p = os.path.join(WORK, f"{name}_{i}.bin")
        write_shard(p, toks, raw_bytes)
        paths.append(p)
    qpath = os.path.join(WORK, f"{name}_q.bin")
    write_shard(qpath, [t for q in queries for t in q], raw_bytes)
    idx = os.path.join(WORK, f"{name}.idx")
    raw = ["--raw", "--token-bytes", str(raw_bytes)] if raw_bytes in (2, 4) else []
    how = ["--doc-sep", str(doc_sep)] if doc_sep is not None else ["--stride", str(stride)]
    run("index", "build", "--tokens", *paths, "--seq-len", str(seq_len), *how, "-o", idx, "-q", *raw)
    seqs = []
    for toks in shards:
        for start in range(0, len(toks) - seq_len + 1, stride):
            seqs.append(tuple(toks[start:start + seq_len]))
    sort_key = lambda i: (seqs[i], i)
    if doc_sep is not None:
        seqs = documents(shards, doc_sep, seq_len)
        pad = max([doc_sep] + [t for toks in shards for t in toks]) + 1
        sort_key = lambda i: seqs[i] + (pad + i,) * (seq_len - len(seqs[i]))
        queries = [tuple(q[:q.index(doc_sep)]) if doc_sep in q else q for q in queries]
    n = len(seqs)

    order_path = os.path.join(WORK, f"{name}.order")
    run("index", "order", idx, "--tokens", *paths, "-o", order_path, *raw)
    got = list(struct.unpack("<%dI" % n, open(order_path, "rb").read()))
    want = want_order = sorted(range(n), key=sort_key)
    if got != want:
        print(f"{name}: order differs", file=sys.stderr)
        failures += 1
    # The stored adjacent LCPs (docs/lcp-index.md, "The file").
    blob = open(idx, "rb").read()
    n_shards = struct.unpack_from("<I", blob, 32)[0]
    lcp_bytes = struct.unpack_from("<I", blob, 36)[0]
    body = (72 + 24 * n_shards + 7) // 8 * 8
    fmt = {1: "B", 2: "H", 4: "I"}[lcp_bytes]
    # Format 3: the permutation bit-packed at the header's width (byte 56),
    # the fewest bits that hold n - 1, as a little-endian bit stream of
    # 32-bit words with one word past the last entry's.
    assert struct.unpack_from("<I", blob, 8)[0] == 3, "tfc writes index format 3"
    bits = struct.unpack_from("<I", blob, 56)[0]
    if bits != max(1, (n - 1).bit_length()):
        print(f"{name}: {bits} bits per permutation entry for {n} sequences", file=sys.stderr)
        failures += 1
    words = (n * bits + 31) // 32 + 1
    stream = int.from_bytes(blob[body:body + 4 * words], "little")
    packed = [(stream >> (j * bits)) & ((1 << bits) - 1) for j in range(n)]
    if packed != want or stream >> (n * bits):
        print(f"{name}: stored permutation differs", file=sys.stderr)
        failures += 1
    stored = list(struct.unpack_from("<%d%s" % (n, fmt), blob, body + 4 * words))
    if body + 4 * words + n * lcp_bytes != len(blob):
        print(f"{name}: index is {len(blob)} bytes, want {body + 4 * words + n * lcp_bytes}", file=sys.stderr)
        failures += 1
    adjacent = [0] + [lcp(seqs[want[j - 1]], seqs[want[j]]) for j in range(1, n)]
    if stored != adjacent:
        print(f"{name}: stored LCPs differ", file=sys.stderr)
        failures += 1

    for k in ks:
        r = run("index", "query", idx, "--tokens", *paths, "--queries", qpath, "-k", str(k), "--latency", *raw)
        out = r.stdout.splitlines()
        lat = re.fullmatch(r"latency: (\d+) queries, p50 ([\d.]+) us, p95 ([\d.]+) us, p99 ([\d.]+) us, max ([\d.]+) us",
                           r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "")
        if not lat or int(lat.group(1)) != len(queries) or \
                not float(lat.group(2)) <= float(lat.group(3)) <= float(lat.group(4)) <= float(lat.group(5)):
            print(f"{name}: --latency line wrong: {r.stderr.strip()[-200:]!r}", file=sys.stderr)
            failures += 1
        if len(out) != len(queries):
            print(f"{name}: {len(out)} answer lines for {len(queries)} queries", file=sys.stderr)
            failures += 1
            continue
        for q, line in zip(queries, out):
            scored = sorted(((-lcp(q, s), i) for i, s in enumerate(seqs)))[:k]
            want = " ".join(f"{i}:{-negl}" for negl, i in scored)
            if line != want:
                print(f"{name}: k={k} query {q[:8]}...: got {line[:120]} want {want[:120]}", file=sys.stderr)
                failures += 1
            checked["queries"] += 1

    # The formats earlier releases wrote (1: windows, 2: documents; the
    # permutation as plain uint32) are still read, with the same answers.
    old = bytearray(blob[:body])
    struct.pack_into("<I", old, 8, 2 if doc_sep is not None else 1)
    struct.pack_into("<I", old, 56, 0)
    old += struct.pack("<%dI" % n, *want_order) + blob[body + 4 * words:]
    struct.pack_into("<Q", old, 40, body_checksum(bytes(old[72:])))
    old_idx = idx + ".v1"
    open(old_idx, "wb").write(bytes(old))
    k = ks[-1]
    new_out = run("index", "query", idx, "--tokens", *paths, "--queries", qpath, "-k", str(k), *raw).stdout
    old_out = run("index", "query", old_idx, "--tokens", *paths, "--queries", qpath, "-k", str(k), *raw).stdout
    if old_out != new_out:
        print(f"{name}: an index in the earlier format answers differently", file=sys.stderr)
        failures += 1

    for t in min_lcps:
        out = run("index", "dedup", idx, "--tokens", *paths, "--min-lcp", str(t), *raw).stdout.split()
        seen = set()
        want = []
        for i, s in enumerate(seqs):
            key = s[:t] if t <= len(s) else None
            if key is not None and key in seen:
                want.append(i)
            if key is not None:
                seen.add(key)
        if [int(x) for x in out] != want:
            print(f"{name}: dedup {t} got {len(out)} want {len(want)}", file=sys.stderr)
            failures += 1
    checked["datasets"] += 1
    return paths, idx


def planted(rng, n_tokens, vocab, n_plant, plen):
    toks = [rng.randrange(vocab) for _ in range(n_tokens)]
    motifs = [[rng.randrange(vocab) for _ in range(plen)] for _ in range(8)]
    for _ in range(n_plant):
        m = rng.choice(motifs)
        at = rng.randrange(0, n_tokens - plen)
        cut = rng.randrange(1, plen + 1)
        toks[at:at + cut] = m[:cut]
    return toks


rng = random.Random(20261130)
# Random tokens over a small vocabulary (many ties), planted prefixes.
base = planted(rng, 6000, 6, 300, 24)
qs = [tuple(base[i:i + 16]) for i in range(0, 1600, 160)] + [tuple(rng.randrange(6) for _ in range(16)) for _ in range(6)]
check("planted", [base], 16, 16, qs, [1, 5, 40], [1, 3, 8, 16])
# Same with overlapping windows (stride 5), and k larger than N.
small = planted(rng, 400, 3, 30, 10)
check("stride", [small], 12, 5, [tuple(small[:12]), tuple([0] * 12)], [3, 1000], [2, 12])
# Exact duplicates: one block repeated, so whole tie groups are identical.
block = [rng.randrange(50) for _ in range(64)]
dups = block * 40 + [rng.randrange(50) for _ in range(640)]
check("dups", [dups], 8, 8, [tuple(block[:8]), tuple(block[8:16])], [3, 50, 400], [8, 4])
# Huge tie groups: 16 distinct sequences, about 1,250 copies each, so a
# level holds dozens of whole blocks of the index and top-k reads only the
# blocks holding the smallest numbers (k up to and past that path's limit
# of 32 picked blocks).
ties = [rng.randrange(2) for _ in range(4 * 20000)]
tq = [tuple(ties[i:i + 4]) for i in range(0, 64, 4)] + [(0, 0, 1, 2), (1, 2, 2, 2), (2, 2, 2, 2)]
check("ties", [ties], 4, 4, tq, [1, 10, 32, 33, 100], [3])
# Buckets (first tokens) of more than 65,536 sequences: the sort hands parts
# that large to the other thread (lcp_build.inc, SHARE). Three tokens, a
# long shared prefix in a third of the sequences, and exact duplicates.
# One bucket of 160,000 (first token 1); its first partition leaves two
# parts of about 80,000 (the next four tokens all 0 or all 2), and the
# rest random over three tokens or a copy of one row.
big = []
for i in range(160000):
    head = [1] + [rng.choice((0, 2))] * 4
    tail = [0, 1, 2, 0, 1, 2, 0] if i % 7 == 0 else [rng.randrange(3) for _ in range(7)]
    big.extend(head + tail)
bq = [tuple(big[0:12]), (1, 2, 2, 2, 2, 0, 1, 2, 0, 1, 2, 0), (1,) * 12, (1, 0, 0, 0, 0, 2, 2, 2, 2, 2, 2, 2)]
check("bigbuckets", [big], 12, 12, bq, [10], [6, 12])
# seq_len 1.
check("len1", [[rng.randrange(4) for _ in range(200)]], 1, 1, [(0,), (3,), (9,)], [1, 7, 300], [1])
# Several shards, one empty, and 4-byte raw tokens with big values.
wide = [[rng.choice([7, 70000, 1 << 31, 4000000000]) for _ in range(n)] for n in (300, 0, 157)]
check("wide", wide, 6, 3, [tuple(wide[0][:6]), (7,) * 6], [4, 30], [2, 6], raw_bytes=4)
# llm.c's LLaMA-3 shards (uint32 tokens, header magic 20240801), ids past 65,535.
llama = [[70000 + rng.randrange(5) * 20000 + rng.randrange(3) for _ in range(n)] for n in (900, 350)]
check("llmc32", llama, 8, 8, [tuple(llama[0][:8]), tuple(llama[1][40:48]), (70000,) * 8], [3, 40], [2, 8],
      raw_bytes="llmc32")
# Real text: English documents, bytes as tokens, long shared prefixes.
text = b"".join(open(p, "rb").read() for p in sorted(glob.glob("/usr/share/common-licenses/*")) if os.path.isfile(p))[:120000]
toks = list(text)
tq = [tuple(toks[i:i + 32]) for i in range(5000, 9000, 400)]
check("text", [toks[:60000], toks[60000:]], 32, 32, tq, [10], [8, 32])

# Documents: runs between separators of random lengths (empty ones between
# adjacent separators, a shard starting with one, one ending without one,
# an empty shard), many exact copies, copies with a changed tail, and
# documents that are prefixes of others; seq_len cuts the long ones.
def doc_corpus(rng, n_docs, vocab, sep, lo):
    pool = []
    out = []
    for _ in range(n_docs):
        r = rng.random()
        if pool and r < 0.25:
            d = list(rng.choice(pool))
        elif pool and r < 0.45:
            d = list(rng.choice(pool))
            d = d[:rng.randrange(len(d) + 1)] + [lo + rng.randrange(vocab) for _ in range(rng.randrange(4))]
        else:
            d = [lo + rng.randrange(vocab) for _ in range(rng.randrange(0, 40))]
        pool.append(d)
        out += d + [sep] * (1 if rng.random() < 0.9 else 2)
    return out


docs_a = doc_corpus(rng, 220, 4, 0, 1)
docs_b = [0] + doc_corpus(rng, 120, 4, 0, 1)[:-1]  # separator first (llm.c's), none at the end
dl = documents([docs_a, docs_b], 0, 16)
pad = max(docs_a + docs_b) + 1
dq = [dl[i] + (0,) * (16 - len(dl[i])) for i in range(0, 60, 6)]  # documents, then separators
dq += [(dl[i] + (pad + i,) * 16)[:16] for i in range(0, 40, 4)]  # each followed by its own padding value
dq += [tuple(rng.randrange(1, 5) for _ in range(16)) for _ in range(5)]  # random text past documents' ends
dq += [(1, 2, 0) + (1,) * 13, (0,) * 16]
check("docs", [docs_a, [], docs_b], 16, 16, dq, [1, 7, 60, 1000], [1, 4, 16], doc_sep=0)
# Documents of llm.c's uint32 shards: end-of-text 128001, tokens past 65,535.
d32 = doc_corpus(rng, 150, 3, 128001, 128000)
dl32 = documents([d32], 128001, 8)
dq32 = [(dl32[i] + (128001,) * 8)[:8] for i in range(0, 30, 3)] + [(128000,) * 8, (128002, 128001) + (128000,) * 6]
check("docs32", [d32], 8, 8, dq32, [5, 200], [2, 8], raw_bytes="llmc32", doc_sep=128001)
# A separator at the top of uint32 (2^32 - 1, and one below): no room for
# the ends' marks above it, but all they need is room above the tokens.
for top in (4294967295, 4294967294):
    dt = doc_corpus(rng, 80, 3, top, 7)
    dlt = documents([dt], top, 8)
    dqt = [(dlt[i] + (top,) * 8)[:8] for i in range(0, 30, 3)] + [(7,) * 8, (9, top) + (7,) * 6]
    check(f"docs32_sep{top}", [dt], 8, 8, dqt, [5, 200], [2, 8], raw_bytes="llmc32", doc_sep=top)
# At the documented limit: tokens below 2^32 - 1 - (number of documents), so
# the largest allowed is 2^32 - 2 - n (the last end mark then 2^32 - 2);
# with the separator below the tokens and at the top of uint32.
for sep in (0, 4294967295):
    dt = doc_corpus(rng, 60, 3, sep, 1)
    limit = 4294967294 - len(documents([dt], sep, 8))
    dt = [limit if t == 3 else t for t in dt]
    dlt = documents([dt], sep, 8)
    dqt = [(dlt[i] + (sep,) * 8)[:8] for i in range(0, 30, 3)] + [(limit,) * 8, (limit + 1,) * 8, (1, limit) + (2,) * 6]
    check(f"docs32_limit_sep{sep}", [dt], 8, 8, dqt, [5, 200], [2, 8], raw_bytes="llmc32", doc_sep=sep)

print(f"lcp_oracle: {checked['datasets']} data sets, {checked['queries']} queries checked against brute force, "
      f"{failures} differences")
subprocess.run(["rm", "-rf", WORK])
sys.exit(1 if failures else 0)
