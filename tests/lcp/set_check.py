#!/usr/bin/env python3
"""Index sets against one index over all the shards (ctest lcp_set).

For each data set, the shards are cut into parts (each part its own
`tfc index build`, one part with several shards, one part of an empty
shard) and `tfc index set` names them; then `query`,
`dedup` and `order` over the set must print exactly what the single index
over all the shards, in the same order, prints: the single index is the
oracle (tests/lcp/lcp_oracle.py checks it against brute force). Data:
uniform random tokens, skewed tokens (a 3-token vocabulary: long shared
prefixes, many ties), real English text as byte tokens, exact duplicates
spread over parts, documents (--doc-sep) with short ones, 4-byte raw tokens
(10,000 queries of each kind but the last, 2,000 there),
a stride other than seq_len, parts over disjoint token ranges (the merged
directory's edges: lcp/lcp_setdir.h), ten parts of windows shorter than a
key, one-token windows of 4 bytes; k from 1 to past N.

Each set's top-k also goes through setdir_check (tests/lcp/setdir_check.c)
when its path is given: the set with its merged directory at every step
against the same set without one.

Then the set file's errors: a missing part or shard (exit 4), a part listed
twice, parts in the wrong order, a part naming the set itself, absolute
paths, a huge part count, a rebuilt part (checksum), a changed shard, a
format or version that is not a set's, broken JSON, a NUL in a path, a
part index rebuilt from other shards (named at the set's line and column),
and the command line's own mistakes (exit 2); never a partial answer, never
a crash. Last, paths through links: the set spells them as given (a folder
holding a set and a link to its parts moves whole), resolved where ".."
would climb out of a linked set folder.

    set_check.py TFC [SETDIR_CHECK]
"""
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lcp_cli import write_shard  # noqa: E402

TFC = sys.argv[1]
SETDIR_CHECK = sys.argv[2] if len(sys.argv) > 2 else None
W = tempfile.mkdtemp(prefix="tfc-lcp-set-")
failures = 0
stats = {"datasets": 0, "queries": 0, "directories": 0}


def fail(msg):
    global failures
    failures += 1
    print("lcp_set: " + msg, file=sys.stderr)


def tfc(*args):
    return subprocess.run([TFC, *args], capture_output=True)


def must(*args):
    r = tfc(*args)
    if r.returncode != 0:
        raise SystemExit(f"tfc {' '.join(args)} failed ({r.returncode}): {r.stderr.decode()}")
    return r.stdout


def check(name, shards_per_part, seq_len, width=2, raw=False, stride=None, doc_sep=None, queries=None, ks=(1, 5),
          min_lcps=(1, 4)):
    """Builds the parts, the set and the single index; compares answers."""
    d = os.path.join(W, name)
    os.makedirs(os.path.join(d, "parts"))
    os.makedirs(os.path.join(d, "sets"))
    fmt = ["--raw", "--token-bytes", str(width)] if raw else []
    kind = ["--doc-sep", str(doc_sep)] if doc_sep is not None else (["--stride", str(stride)] if stride else [])
    all_shards, set_args = [], []
    for p, shards in enumerate(shards_per_part):
        paths = []
        for s, toks in enumerate(shards):
            path = os.path.join(d, "parts", f"p{p}s{s}.bin")
            write_shard(path, toks, width, raw)
            paths.append(path)
        idx = os.path.join(d, "parts", f"p{p}.idx")
        must("index", "build", "--tokens", *paths, "--seq-len", str(seq_len), *kind, *fmt, "-o", idx, "-q")
        all_shards += paths
        set_args += ["--part", idx, "--tokens", *paths]
    one = os.path.join(d, "one.idx")
    must("index", "build", "--tokens", *all_shards, "--seq-len", str(seq_len), *kind, *fmt, "-o", one, "-q")
    st = os.path.join(d, "sets", "all.set")
    must("index", "set", "-o", st, *set_args, *fmt, "-q")
    doc = json.load(open(st))
    if any(os.path.isabs(p["index"]) or not p["index"].startswith("../parts/") for p in doc["parts"]):
        fail(f"{name}: the set's paths are not relative to its folder: {[p['index'] for p in doc['parts']]}")
    q = os.path.join(d, "q.bin")
    write_shard(q, queries, width, raw)
    for k in ks:
        a = must("index", "query", one, "--tokens", *all_shards, *fmt, "--queries", q, "-k", str(k))
        b = last = must("index", "query", st, "--queries", q, "-k", str(k))
        stats["queries"] += a.count(b"\n")
        if a != b:
            la, lb = a.decode().splitlines(), b.decode().splitlines()
            i = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
            fail(f"{name}: query -k {k} differs at query {i}: one index {la[i] if i < len(la) else None!r}, "
                 f"set {lb[i] if i < len(lb) else None!r}")
    for m in min_lcps:
        a = must("index", "dedup", one, "--tokens", *all_shards, *fmt, "--min-lcp", str(m))
        b = must("index", "dedup", st, "--min-lcp", str(m))
        if a != b:
            fail(f"{name}: dedup --min-lcp {m}: one index {len(a.splitlines())} lines, set {len(b.splitlines())}")
    oa, ob = os.path.join(d, "one.order"), os.path.join(d, "set.order")
    must("index", "order", one, "--tokens", *all_shards, *fmt, "-o", oa)
    must("index", "order", st, "-o", ob)
    if open(oa, "rb").read() != open(ob, "rb").read():
        fail(f"{name}: order differs")
    if SETDIR_CHECK:
        r = subprocess.run([SETDIR_CHECK, st, q, *map(str, ks)], capture_output=True)
        if r.returncode != 0:
            fail(f"{name}: setdir_check exit {r.returncode}: {r.stderr.decode().strip()[:400]}")
        else:
            words = r.stdout.split()
            built, bracketed = int(words[4]), int(words[6])
            stats["directories"] += built
            # Windows get a directory at every step (documents none), and it brackets places.
            if doc_sep is None and (built != 6 * len(ks) or not bracketed):
                fail(f"{name}: setdir_check built {built} directories, bracketed {bracketed} places")
    # The set moves with its files: the whole folder elsewhere answers the same.
    moved = d + "_moved"
    shutil.copytree(d, moved)
    c = must("index", "query", os.path.join(moved, "sets", "all.set"), "--queries", q, "-k", str(ks[-1]))
    if c != last:
        fail(f"{name}: a moved set answers differently")
    stats["datasets"] += 1
    return d, st


rng = random.Random(1234)


def windows_of(toks, n, L):
    out = []
    for _ in range(n):
        i = rng.randrange(0, max(1, len(toks) - L))
        w = toks[i:i + L]
        out += w + [rng.randrange(0, 3)] * (L - len(w))
    return out


# Uniform tokens: short LCPs, most queries' top-k decided by numbers.
u = [[rng.randrange(0, 50000) for _ in range(3000)] for _ in range(5)]
check("uniform", [[u[0]], [u[1], u[2]], [[]], [u[3]], [u[4]]], 8,
      queries=windows_of(u[3], 5000, 8) + [rng.randrange(0, 50000) for _ in range(8 * 5000)], ks=(1, 3, 20))
# Skewed: a 3-token vocabulary, long shared prefixes and ties across parts.
sk = [[rng.choice((0, 0, 0, 1, 2)) for _ in range(2000)] for _ in range(4)]
check("skewed", [[sk[0]], [sk[1]], [sk[2], sk[3]]], 16, queries=windows_of(sk[1], 10000, 16), ks=(1, 7, 50),
      min_lcps=(1, 5, 12, 16))
# Exact duplicates spread over parts, a stride other than seq_len.
base = [rng.randrange(0, 30) for _ in range(600)]
check("duplicates", [[base], [base[:300] + base], [[rng.randrange(0, 30) for _ in range(500)]], [base]], 12, stride=5,
      queries=windows_of(base, 10000, 12), ks=(1, 4, 30), min_lcps=(3, 12))
# Real English text as byte tokens.
text = b""
for f in sorted(glob.glob("/usr/share/common-licenses/*"))[:6]:
    if os.path.isfile(f):
        text += open(f, "rb").read()[:20000]
tt = list(text) or [rng.randrange(0, 256) for _ in range(60000)]
n = len(tt) // 3
check("text", [[tt[:n]], [tt[n:2 * n]], [tt[2 * n:]]], 24, queries=windows_of(tt, 10000, 24), ks=(1, 10),
      min_lcps=(8, 24))
# Documents: a separator, documents of 1 to 40 tokens, copies across parts.
docs = [[rng.randrange(1, 20) for _ in range(rng.randrange(1, 40))] for _ in range(120)]
parts_docs = []
for p in range(3):
    chosen = [docs[rng.randrange(0, len(docs))] for _ in range(60)]
    parts_docs.append([sum(([0] + dd for dd in chosen), [])])
check("documents", parts_docs, 16, doc_sep=0, queries=[t for dd in (docs[i % len(docs)] for i in range(10000)) for t in (dd + [0] * 16)[:16]],
      ks=(1, 5, 40), min_lcps=(1, 6, 16))
# 4-byte raw tokens.
big = [[rng.randrange(0, 1 << 20) for _ in range(900)] for _ in range(3)]
big[2][:300] = big[0][:300]
check("raw32", [[big[0]], [big[1]], [big[2]]], 10, width=4, raw=True, queries=windows_of(big[0], 2000, 10), ks=(1, 6))

# The merged directory's edges (lcp/lcp_setdir.h). Part 2: windows 7 7 a b
# (a below 100) and, last in its order, twenty 7 8 c d; part 0: 7 7 a b with
# a from 200: between part 2's last entry and a query 7 8 c d lie more than
# LCP_SETDIR_SCAN (1,024) merged entries, so part 2 is searched on its own,
# and its best answers are in its last stretch. Part 0 also holds 0 0 0 0:
# for a query between the two ranges its entry 0 is too far below and its
# entry 1 just above (its place is 1, and on equal LCPs its numbers win).
# Queries below and above every sequence of a part (its place at its
# start, or in its last stretch), an empty part (no entries), a part of
# random tokens.
def rows(n, a, b):
    return [t for _ in range(n) for t in (7, 7, rng.randrange(a, b), rng.randrange(0, 50))]


low = rows(45000, 0, 100) + [t for _ in range(20) for t in (7, 8, rng.randrange(0, 50), rng.randrange(0, 50))]
high = [0, 0, 0, 0] + rows(45000, 200, 300)  # its entry 0 far below the rest: a gap of more than 1,024 entries
mixed = [rng.randrange(0, 10) for _ in range(4 * 15000)]
check("disjoint", [[high], [[]], [low], [mixed]], 4,
      queries=windows_of(low, 2000, 4) + windows_of(high, 2000, 4) +
      [t for _ in range(2000) for t in (7, 8, rng.randrange(0, 60), rng.randrange(0, 60))] +
      [rng.randrange(0, 400) for _ in range(4 * 4000)] + [0, 0, 0, 0] + [399] * 4 + [7, 7, 150, 0] + [7, 9, 0, 0],
      ks=(1, 12), min_lcps=(2,))

# Ten parts (a query's parts searched eight, then two, at a time), windows
# of 2 tokens (shorter than a 64-bit key's 4) and k past the set's size.
many = [[[rng.randrange(0, 6) for _ in range(2 * rng.randrange(20, 40))]] for _ in range(10)]
check("many", many, 2, queries=[rng.randrange(0, 7) for _ in range(2 * 2000)], ks=(1, 9, 700), min_lcps=(1, 2))
# 4-byte tokens, windows of one token (shorter than a key's 2).
one_tok = [[[rng.randrange(0, 40) for _ in range(300)]] for _ in range(3)]
check("raw32_one", one_tok, 1, width=4, raw=True, queries=[rng.randrange(0, 45) for _ in range(2000)], ks=(1, 50, 1000),
      min_lcps=(1,))

# ---- errors ----
d, st = os.path.join(W, "uniform"), os.path.join(W, "uniform", "sets", "all.set")
good = json.load(open(st))


def bad_set(label, doc, code, needle, text=None):
    p = os.path.join(d, "sets", "bad.set")
    open(p, "w").write(text if text is not None else json.dumps(doc, indent=1))
    q = os.path.join(d, "q.bin")
    for args in (["query", p, "--queries", q, "-k", "3"], ["dedup", p, "--min-lcp", "2"]):
        r = tfc("index", *args)
        err = r.stderr.decode()
        if r.returncode != code or needle not in err or r.stdout:
            fail(f"{label}: {args[0]} exit {r.returncode} (want {code}), stdout {len(r.stdout)} bytes, "
                 f"stderr {err.strip()[:200]!r} (want {needle!r})")
        if "Sanitizer" in err or "Segmentation" in err:
            fail(f"{label}: crashed: {err[:300]}")


def edit(f):
    doc = json.loads(json.dumps(good))
    f(doc)
    return doc


bad_set("missing part", edit(lambda x: x["parts"][1].update(index="../parts/nope.idx")), 4, "nope.idx")
bad_set("missing shard", edit(lambda x: x["parts"][0]["shards"][0].update(path="../parts/nope.bin")), 4, "nope.bin")
bad_set("part twice", edit(lambda x: x["parts"].__setitem__(1, dict(x["parts"][0], first=x["parts"][1]["first"]))),
        1, "listed twice")
bad_set("wrong order", edit(lambda x: x["parts"].reverse()), 1, "out of order")
bad_set("names itself", edit(lambda x: x["parts"][0].update(index="bad.set")), 1, "the set itself")
bad_set("absolute path", edit(lambda x: x["parts"][0].update(index=os.path.join(d, "parts", "p0.idx"))), 1, "absolute")
bad_set("huge part count", edit(lambda x: x.update(parts=x["parts"] * 2000)), 1, "1 to 4096 parts")
bad_set("another seq_len", edit(lambda x: x.update(seq_len=9)), 1, "does not match the set: seq_len")
bad_set("sum", edit(lambda x: x.update(sequences=x["sequences"] + 1)), 1, "parts' sum")
bad_set("checksum", edit(lambda x: x["parts"][2].update(checksum="0123456789abcdef")), 1, "checksum")
bad_set("fingerprint", edit(lambda x: x["parts"][1]["shards"][1].update(fingerprint="0000000000000000")), 1,
        "fingerprint")
bad_set("not a set", {"traceEvents": []}, 1, "not an LCP index set")
bad_set("later version", edit(lambda x: x.update(version=2)), 1, "version 1")
bad_set("stride and doc_sep", edit(lambda x: x.update(doc_sep=0)), 1, "one of them")
bad_set("no parts", edit(lambda x: x.update(parts=[])), 1, "1 to 4096 parts")
bad_set("part not an object", edit(lambda x: x["parts"].__setitem__(0, "p0.idx")), 1, "a part is an object")
bad_set("broken JSON", None, 1, "bad.set:", text='{"format": "tfc-lcp-set", "parts": [')
bad_set("an index as a set", None, 1, "bad.set:", text=open(os.path.join(d, "parts", "p0.idx"), "rb").read()
        .decode("latin-1"))


def position(text, needle):
    """'LINE:COL' (1-based) of needle's first byte in text."""
    at = text.index(needle)
    return f"{text.count(chr(10), 0, at) + 1}:{at - text.rfind(chr(10), 0, at)}"


# A NUL in a path (it would cut the path short: p0.idx opened in its place).
nul = json.dumps(edit(lambda x: x["parts"][0].update(index="../parts/p0.idx\0.old")), indent=1)
bad_set("NUL in a path", None, 1, f"bad.set:{position(nul, chr(92) + 'u0000')}: error: \\u0000 in a string", text=nul)
# A shard rewritten since: caught by the index (its table) or the set.
sh = os.path.join(d, "parts", "p1s0.bin")
orig = open(sh, "rb").read()
open(sh, "wb").write(orig[:-2])
r = tfc("index", "query", st, "--queries", os.path.join(d, "q.bin"), "-k", "2")
if r.returncode != 1 or r.stdout:
    fail(f"a truncated shard: exit {r.returncode}, {r.stderr.decode()[:200]}")
open(sh, "wb").write(orig)
# A part's index rebuilt since, from other shards: named at the set's entry
# for that part (not at a shard of it), with what does not match.
p1 = os.path.join(d, "parts", "p1.idx")
orig = open(p1, "rb").read()
text = open(st).read()
entry = position(text, '{"index": "../parts/p1.idx"')
for shards in (["p1s1.bin", "p1s0.bin"], ["p0s0.bin"]):
    must("index", "build", "--tokens", *(os.path.join(d, "parts", f) for f in shards), "--seq-len", "8", "-o", p1, "-q")
    r = tfc("index", "query", st, "--queries", os.path.join(d, "q.bin"), "-k", "2")
    want = f"{st}:{entry}: error: part's index does not match the set: checksum"
    if r.returncode != 1 or r.stdout or not r.stderr.decode().startswith(want):
        fail(f"a part rebuilt from {shards}: exit {r.returncode}, {r.stderr.decode()[:300]!r} (want {want!r})")
open(p1, "wb").write(orig)
# Writing: mismatched parts and command-line mistakes.
p0, p1 = os.path.join(d, "parts", "p0.idx"), os.path.join(d, "parts", "p1.idx")
s0, s10, s11 = (os.path.join(d, "parts", f) for f in ("p0s0.bin", "p1s0.bin", "p1s1.bin"))
other = os.path.join(W, "skewed", "parts", "p0.idx")
cases = [
    (["-o", st + "2", "--part", p0, "--tokens", s0, "--part", p0, "--tokens", s0], 1, "listed twice"),
    (["-o", st + "2", "--part", p0, "--tokens", s0, "--part", other, "--tokens",
      os.path.join(W, "skewed", "parts", "p0s0.bin")], 1, "differs from the first part"),
    (["-o", st + "2", "--part", p0, "--tokens", s10], 1, ""),
    (["-o", st + "2", "--part", p0], 2, "--tokens"),
    (["-o", st + "2", "--tokens", s0], 2, "--part"),
    (["--part", p0, "--tokens", s0], 2, "-o SET"),
    (["-o", st + "2", "--part", p0, "--tokens", s0, "-k", "3"], 2, "set takes"),
    (["-o", st + "2", "--part", os.path.join(d, "nope.idx"), "--tokens", s0], 4, "nope.idx"),
]
for args, code, needle in cases:
    r = tfc("index", "set", *args)
    if r.returncode != code or needle not in r.stderr.decode() or os.path.exists(st + "2"):
        fail(f"index set {args[2:]}: exit {r.returncode} (want {code}), {r.stderr.decode().strip()[:200]!r}")
r = tfc("index", "query", st, "--raw", "--token-bytes", "2", "--queries", os.path.join(d, "q.bin"), "-k", "2")
if r.returncode != 2:
    fail(f"a set with --raw: exit {r.returncode}")
ok = tfc("index", "set", "-o", st + "3", "--part", p0, "--tokens", s0, "--part", p1, "--tokens", s10, s11)
if ok.returncode != 0:
    fail(f"a two-part set: {ok.stderr.decode()}")

# ---- paths through links ----
# A set spells its files' paths as given, relative to its folder as given:
# a folder holding the set and a link to its parts moves as a whole (the
# link is absolute, so it still reaches them).
p0, s0 = os.path.join(d, "parts", "p0.idx"), os.path.join(d, "parts", "p0s0.bin")
one = must("index", "query", p0, "--tokens", s0, "--queries", os.path.join(d, "q.bin"), "-k", "3")
lk = os.path.join(W, "linked")
os.makedirs(os.path.join(lk, "sets"))
os.symlink(os.path.join(d, "parts"), os.path.join(lk, "parts"))
ls = os.path.join(lk, "sets", "all.set")
must("index", "set", "-o", ls, "--part", os.path.join(lk, "parts", "p0.idx"), "--tokens",
     os.path.join(lk, "parts", "p0s0.bin"), "-q")
if [p["index"] for p in json.load(open(ls))["parts"]] != ["../parts/p0.idx"]:
    fail(f"a part through a link: the set says {open(ls).read()[:400]!r}")
os.makedirs(os.path.join(W, "elsewhere"))
mv = os.path.join(W, "elsewhere", "linked_moved")
os.rename(lk, mv)
r = tfc("index", "query", os.path.join(mv, "sets", "all.set"), "--queries", os.path.join(d, "q.bin"), "-k", "3")
if r.returncode != 0 or r.stdout != one:
    fail(f"a folder holding a set and a link to its parts, moved: exit {r.returncode}, {r.stderr.decode()[:300]!r}")
# The set's folder a link: ".." climbs out of the link's target, so a part
# beside the link is written resolved (spelt, it would not be reached), and
# one named through the target where that climbs less.
away = os.path.join(W, "away", "sets")
os.makedirs(away)
os.symlink(away, os.path.join(W, "setlink"))
os.symlink(d, os.path.join(W, "dlink"))
for name, part, want in (("setlink", p0, "../../uniform/parts/p0.idx"),
                         ("dlink", p0, "../parts/p0.idx")):
    sp = os.path.join(W, name, "sets" if name == "dlink" else "", "l.set")
    must("index", "set", "-o", sp, "--part", part, "--tokens", s0, "-q")
    got = [p["index"] for p in json.load(open(sp))["parts"]]
    r = tfc("index", "query", sp, "--queries", os.path.join(d, "q.bin"), "-k", "3")
    if got != [want] or r.returncode != 0 or r.stdout != one:
        fail(f"a set in {name}: {got} (want {[want]}), exit {r.returncode}, {r.stderr.decode()[:300]!r}")

shutil.rmtree(W)
print(f"lcp_set: {stats['datasets']} data sets, {stats['queries']} queries, dedup and order against one index over "
      f"all the shards, {stats['directories']} merged directories against none, and the set file's errors: " +
      (f"{failures} problems" if failures else "identical, ok"))
sys.exit(1 if failures else 0)
