#!/usr/bin/env python3
"""A folder of plain-text files for `bench/batch_regime.sh --data DIR` (or
`bench/time_to_quality.sh --data DIR`), drawn from the files a machine
already has, the way docs/time-to-quality.md's held-out corpora were:

  - every regular file (not a link) under the ROOTs whose name ends in one
    of --ext, leaving out paths that contain an --exclude part;
  - the sorted paths shuffled by Python's random.Random(--seed), so the
    corpus samples the whole tree and tiny_trainer's parts (which split
    the corpus by file) see alike text;
  - files that are empty, over --max-file bytes or not UTF-8 skipped;
  - copied in that order as NNNNN_NAME until --limit bytes are reached (or
    the files run out), written to a new OUT (it must not exist) through a
    temporary folder renamed at the end.

Prints the files seen, the files copied and their bytes. The Perl
corpus of docs/time-to-quality.md (the same bytes on Debian bookworm's
perl 5.36): --ext .pm,.pl,.pod --limit 40000000 /usr/share/perl
/usr/share/perl5 /usr/lib/x86_64-linux-gnu/perl
/usr/lib/x86_64-linux-gnu/perl-base (17.8 MB: all there was). The YAML
corpus (google-cloud-cli 528.0.0's command and resource definitions):
--ext .yaml --limit 40000000 /usr/lib/google-cloud-sdk (7.8 MB: all there
was).

Usage: bench/text_corpus.py --out OUT --ext .a,.b [--exclude PART,...]
       [--limit BYTES] [--max-file BYTES] [--seed N] ROOT...
Standard library only."""
import argparse
import os
import random
import shutil
import sys


def select(roots, exts, exclude):
    """The sorted regular files under roots with one of exts, no exclude part."""
    out = set()
    for root in roots:
        for d, _, names in os.walk(root):
            for name in names:
                p = os.path.join(d, name)
                if name.endswith(exts) and not any(x in p for x in exclude) and os.path.isfile(p) \
                        and not os.path.islink(p):
                    out.add(p)
    return sorted(out)


def main():
    ap = argparse.ArgumentParser(prog="text_corpus.py", description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the folder to write (must not exist)")
    ap.add_argument("--ext", required=True, help="file name endings, comma-separated (.h or .pm,.pod)")
    ap.add_argument("--exclude", default="", help="path parts to leave out, comma-separated (/archs/)")
    ap.add_argument("--limit", type=float, default=45e6, help="stop once this many bytes are copied (45e6)")
    ap.add_argument("--max-file", type=float, default=400e3, help="skip files larger than this (400e3)")
    ap.add_argument("--seed", type=int, default=7, help="the shuffle's seed (7)")
    ap.add_argument("roots", nargs="+", metavar="ROOT")
    a = ap.parse_args()
    missing = [r for r in a.roots if not os.path.isdir(r)]
    if missing:
        ap.error(f"not a folder: {', '.join(missing)}")
    if os.path.lexists(a.out):
        ap.error(f"{a.out} exists: give a new folder")
    exts = tuple(e for e in a.ext.split(",") if e)
    exclude = [x for x in a.exclude.split(",") if x]
    paths = select(a.roots, exts, exclude)
    random.Random(a.seed).shuffle(paths)
    tmp = a.out.rstrip("/") + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    total = n = 0
    for p in paths:
        if total >= a.limit:
            break
        try:
            size = os.path.getsize(p)
            if size == 0 or size > a.max_file:
                continue
            with open(p, "rb") as f:
                data = f.read()
            data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        with open(os.path.join(tmp, f"{n:05d}_{os.path.basename(p)}"), "wb") as f:
            f.write(data)
        total, n = total + len(data), n + 1
    if n == 0:
        shutil.rmtree(tmp)
        print(f"text_corpus: no file under {', '.join(a.roots)} ends in {a.ext} and is UTF-8 text", file=sys.stderr)
        return 1
    os.rename(tmp, a.out)
    print(f"text_corpus: {len(paths)} files seen, {n} copied, {total} bytes in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
