#!/usr/bin/env python3
"""bench/text_corpus.py on a small tree made here (ctest text_corpus):

  - with a limit above the tree's text, exactly the eligible files are
    copied (name ending, not excluded, not a link, not empty, not over
    --max-file, UTF-8), each byte for byte, numbered 00000_ on without gaps;
  - the order is the sorted paths shuffled by random.Random(seed): the same
    seed gives the same folder, another seed another order;
  - with a limit, copying stops at the first file that reaches it;
  - an existing OUT, a missing ROOT and a tree with nothing to copy are
    refused, with nothing written (no OUT, no OUT.tmp).

Usage: text_corpus_check.py SOURCE_DIR
"""
import os
import random
import subprocess
import sys
import tempfile

src = sys.argv[1]
tool = os.path.join(src, "bench", "text_corpus.py")
bad = []


def run(*args):
    return subprocess.run([sys.executable, tool, *args], capture_output=True, text=True)


def listing(out):
    """[(name, bytes)] of out, sorted by name."""
    return [(n, open(os.path.join(out, n), "rb").read()) for n in sorted(os.listdir(out))]


def main():
    with tempfile.TemporaryDirectory() as work:
        root = os.path.join(work, "tree")
        eligible = {}
        for i in range(30):
            d = os.path.join(root, f"d{i % 4}", "sub" if i % 3 else "")
            os.makedirs(d, exist_ok=True)
            p = os.path.join(d, f"f{i:02d}.pm")
            data = (f"package F{i};\n" + "x" * (i * 37)).encode()
            open(p, "wb").write(data)
            eligible[p] = data
        odd = {"empty.pm": b"", "latin1.pm": b"caf\xe9\n", "big.pm": b"y" * 5000, "note.txt": b"text\n"}
        for name, data in odd.items():
            open(os.path.join(root, "d0", name), "wb").write(data)
        os.makedirs(os.path.join(root, "archs", "x"))
        open(os.path.join(root, "archs", "x", "skip.pm"), "wb").write(b"excluded\n")
        os.symlink(os.path.join(root, "d1", "sub", "f01.pm"), os.path.join(root, "d2", "link.pm"))  # a live link

        # shuffled among every file the name selects (the empty, large and
        # Latin-1 ones too: they are skipped after the shuffle, as documented)
        named = sorted(list(eligible) + [os.path.join(root, "d0", n) for n in odd if n.endswith(".pm")])
        random.Random(7).shuffle(named)
        want = [p for p in named if p in eligible]
        out = os.path.join(work, "all")
        r = run("--out", out, "--ext", ".pm", "--exclude", "/archs/", "--max-file", "4000", "--limit", "1e9", root)
        got = listing(out) if r.returncode == 0 else []
        exp = [(f"{n:05d}_{os.path.basename(p)}", eligible[p]) for n, p in enumerate(want)]
        if r.returncode != 0 or got != exp or os.path.exists(out + ".tmp"):
            bad.append(f"all eligible files, seed 7: rc {r.returncode}, {len(got)} files against {len(exp)}, "
                       f"{r.stderr[-200:]!r}")
        again = os.path.join(work, "again")
        run("--out", again, "--ext", ".pm", "--exclude", "/archs/", "--max-file", "4000", "--limit", "1e9", root)
        other = os.path.join(work, "other")
        run("--out", other, "--ext", ".pm", "--exclude", "/archs/", "--max-file", "4000", "--limit", "1e9",
            "--seed", "8", root)
        if os.path.isdir(again) and listing(again) != got:
            bad.append("the same seed gave another folder")
        if not os.path.isdir(other) or listing(other) == got or \
                sorted(d for _, d in listing(other)) != sorted(d for _, d in got):
            bad.append("seed 8: not the same files in another order")

        # a limit: stop at the first file whose bytes reach it
        sizes = [len(eligible[p]) for p in want]
        limit = sum(sizes[:5])  # reached exactly by the fifth file
        part = os.path.join(work, "part")
        r = run("--out", part, "--ext", ".pm", "--exclude", "/archs/", "--max-file", "4000", "--limit",
                str(limit), root)
        if r.returncode != 0 or listing(part) != exp[:5]:
            bad.append(f"limit {limit}: {len(listing(part)) if os.path.isdir(part) else 0} files, want 5")

        for args, what in ((("--out", out, "--ext", ".pm", root), "an existing OUT"),
                           (("--out", os.path.join(work, "n1"), "--ext", ".pm", os.path.join(work, "none")),
                            "a missing ROOT"),
                           (("--out", os.path.join(work, "n2"), "--ext", ".zzz", root), "nothing to copy")):
            r = run(*args)
            o = args[1]
            if r.returncode == 0 or "Traceback" in r.stderr or (o != out and os.path.exists(o)) or \
                    os.path.exists(o + ".tmp"):
                bad.append(f"{what}: rc {r.returncode}, {r.stderr[-200:]!r}")
    for b in bad:
        print("text_corpus check:", b)
    if bad:
        return 1
    print("text_corpus check: selection, order, limit and refusals as documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
