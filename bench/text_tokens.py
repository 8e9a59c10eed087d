#!/usr/bin/env python3
"""Real English text as token shards, for bench/lcp_speed.sh.

Reads the text that ships on a Debian machine: the man pages
(/usr/share/man, roff markup dropped) and /usr/share/doc (plain and .gz
files that decode as UTF-8), in sorted path order. Tokens are words,
numbers and single punctuation characters; ids by frequency rank (1 = the
most frequent), the 65,533 most frequent kept, the rest mapped to 65,534;
0 ends each document (llm.c's end-of-text convention), so
`tfc index build --doc-sep 0` can cut sequences at documents. Writes an
llm.c uint16 shard and prints what it wrote.

With QSHARD NQ, also NQ queries of L tokens (default 64) as a second
shard, for `bench_lcp query ... QSHARD`: alternately a sequence of the
data (window i of L tokens) with one token replaced by another word of the
text, and a window of the text that starts between two sequences' starts
(real text the index holds only shifted); fixed seed.

    text_tokens.py SHARD [MAX_TOKENS (0: all)] [QSHARD NQ [L]]
"""
import array
import gzip
import os
import random
import re
import struct
import sys
from collections import Counter

ROOTS = ["/usr/share/man", "/usr/share/doc"]
WORD = re.compile(r"[A-Za-z]+(?:'[a-z]+)?|[0-9]+|[^\sA-Za-z0-9]")
ROFF = re.compile(r"\\f[BIRP]|\\\(..|\\[-&e]|\\s[-+]?\d")
UNKNOWN, KEEP = 65534, 65533


def documents():
    for root in ROOTS:
        for dirpath, dirnames, files in os.walk(root):
            dirnames.sort()
            for f in sorted(files):
                p = os.path.join(dirpath, f)
                if os.path.islink(p) or not os.path.isfile(p):
                    continue
                try:
                    raw = gzip.open(p).read() if f.endswith(".gz") else open(p, "rb").read()
                    text = raw.decode("utf-8")
                except (OSError, UnicodeDecodeError, EOFError):
                    continue
                if root.endswith("man"):
                    lines = [ROFF.sub("", l) for l in text.splitlines() if not l.startswith((".\\\"", "'\\\""))]
                    text = "\n".join(l[l.find(" ") + 1:] if l.startswith(".") else l for l in lines)
                words = WORD.findall(text)
                if words:
                    yield words


def write_shard(path, tokens):
    with open(path, "wb") as f:
        f.write(struct.pack("<256i", 20240520, 1, len(tokens), *([0] * 253)))
        a = array.array("H", tokens)
        if sys.byteorder == "big":
            a.byteswap()
        a.tofile(f)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    cap = (int(sys.argv[2]) if len(sys.argv) > 2 else 0) or 1 << 40  # 0: all of it
    docs, total = [], 0
    for words in documents():
        docs.append(words)
        total += len(words) + 1
        if total >= cap:
            break
    freq = Counter(w for d in docs for w in d)
    ids = {w: i + 1 for i, (w, _) in enumerate(freq.most_common(KEEP))}
    out = []
    for d in docs:
        out.extend(ids.get(w, UNKNOWN) for w in d)
        out.append(0)
    out = out[:cap]
    write_shard(sys.argv[1], out)
    if len(sys.argv) > 4:
        nq = int(sys.argv[4])
        L = int(sys.argv[5]) if len(sys.argv) > 5 else 64
        rng = random.Random(20240520)
        n = len(out) // L
        qs = []
        for q in range(nq):
            if q % 2 == 0:
                s = rng.randrange(n) * L
                row = out[s:s + L]
                row[rng.randrange(L)] = out[rng.randrange(len(out))]
            else:
                start = rng.randrange(n - 1) * L + rng.randrange(1, L)
                row = out[start:start + L]
            qs.extend(row)
        write_shard(sys.argv[3], qs)
    print(f"text_tokens: {len(docs)} documents, {len(out)} tokens, {len(freq)} distinct words "
          f"({min(len(freq), KEEP)} kept)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
