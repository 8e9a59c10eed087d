"""What the tests of the Python binding and the distributed runner share:
data sets cut into parts, built with the tfc CLI as a set and as one index
over all the shards, and the CLI's answers on that one index (the oracle;
tests/lcp/lcp_oracle.py checks the CLI against brute force)."""
import atexit
import os
import shutil
import struct
import subprocess
import tempfile


def write_shard(path, tokens, width=2, raw=False):
    with open(path, "wb") as f:
        if not raw:
            magic, version = (20240520, 1) if width == 2 else (20240801, 7)
            f.write(struct.pack("<256i", magic, version, len(tokens), *([0] * 253)))
        f.write(struct.pack("<%d%s" % (len(tokens), "H" if width == 2 else "I"), *tokens))


class Cli:
    """tfc's index commands on data sets under one temporary folder."""

    def __init__(self, tfc, prefix):
        self.tfc, self.root = tfc, tempfile.mkdtemp(prefix=prefix)
        atexit.register(shutil.rmtree, self.root, True)

    def run(self, *args):
        return subprocess.run([self.tfc, *args], capture_output=True)

    def must(self, *args):
        r = self.run(*args)
        if r.returncode != 0:
            raise SystemExit(f"tfc {' '.join(args)} failed ({r.returncode}): {r.stderr.decode()}")
        return r.stdout

    def build(self, name, parts, seq_len, kind, width=2, raw=False, tag=""):
        """Shard s{p}{tag}.bin holds parts[p]; each part its own index
        p{p}{tag}.idx, the set all.set naming them, one.idx over all the
        shards. Returns the folder and the arguments naming one.idx's
        shards. A tag "\udcff" names files with the byte 0xff (not UTF-8)."""
        d = os.path.join(self.root, name)
        os.makedirs(d)
        self.fmt = fmt = ["--raw", "--token-bytes", str(width)] if raw else []
        shards, set_args = [], []
        for p, toks in enumerate(parts):
            s, ix = os.path.join(d, f"s{p}{tag}.bin"), os.path.join(d, f"p{p}{tag}.idx")
            write_shard(s, toks, width, raw)
            self.must("index", "build", "--tokens", s, "--seq-len", str(seq_len), *kind, *fmt, "-o", ix, "-q")
            shards.append(s)
            set_args += ["--part", ix, "--tokens", s]
        one = os.path.join(d, "one.idx")
        self.must("index", "build", "--tokens", *shards, "--seq-len", str(seq_len), *kind, *fmt, "-o", one, "-q")
        self.must("index", "set", "-o", os.path.join(d, "all.set"), *set_args, *fmt, "-q")
        return d, ["--tokens", *shards, *fmt]

    def answers(self, index, tokargs, queries, ks, min_lcps, width=2, raw=False):
        """The CLI's top-k ({k: [[(number, lcp), ...] per query]}), dedup
        ({min_lcp: [numbers]}) and order ([numbers]) for index (an index
        with tokargs, or a set with tokargs [])."""
        d = os.path.dirname(index)
        qpath = os.path.join(d, "q.bin")
        write_shard(qpath, [t for q in queries for t in q], width, raw)
        topk = {}
        for k in ks:
            out = self.must("index", "query", index, *tokargs, "--queries", qpath, "-k", str(k)).decode().splitlines()
            topk[k] = [[tuple(int(x) for x in e.split(":")) for e in line.split()] for line in out]
        dedup = {m: [int(x) for x in self.must("index", "dedup", index, *tokargs, "--min-lcp", str(m)).split()]
                 for m in min_lcps}
        opath = os.path.join(d, "cli.order")
        self.must("index", "order", index, *tokargs, "-o", opath)
        with open(opath, "rb") as f:
            raw_order = f.read()
        order = list(struct.unpack("<%dI" % (len(raw_order) // 4), raw_order))
        return topk, dedup, order
