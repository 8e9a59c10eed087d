#!/usr/bin/env python3
"""An independent reading of the first error position of every file under
tests/yaml_bad (ctest yaml_positions), held against the pinned table
positions.tsv: PyYAML's pure-Python parser (not libyaml, which tfc uses) gives
the problem mark of a syntax error, and its event marks locate the node each
spec error names (the second document's start, the first explicitly tagged
node, the first collection used as a key, the named key, the root). Rows
marked "oracle" must agree with it; rows marked "reviewed" give the reason
they differ. Every row's position must also be what tfc check prints.

    oracle.py TFC
"""
import os
import subprocess
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TFC = sys.argv[1]


def mk(m): return f"{m.line+1}:{m.column+1}"
def oracle(p, msg):
    text = open(p, "rb").read().decode("utf-8")
    try:
        events = list(yaml.parse(text, Loader=yaml.Loader))
    except yaml.MarkedYAMLError as e:
        return mk(e.problem_mark), "pyyaml syntax"
    if msg.startswith("YAML syntax error"):
        return "-", "pyyaml accepts"
    docs = [e for e in events if isinstance(e, yaml.DocumentStartEvent)]
    if msg.startswith("a spec is one YAML document"):
        return mk(docs[1].start_mark), "second document start"
    if msg.startswith("unsupported YAML tag"):
        for e in events:
            if isinstance(e, (yaml.ScalarEvent,)) and e.tag and not e.implicit[0] and not e.implicit[1]:
                return mk(e.start_mark), "first explicit tag"
            if isinstance(e, (yaml.MappingStartEvent, yaml.SequenceStartEvent)) and e.tag and not e.implicit:
                return mk(e.start_mark), "first explicit tag"
        return "-", "no explicit tag"
    # the root and the keys of the root mapping
    body = [e for e in events if not isinstance(e, (yaml.StreamStartEvent, yaml.DocumentStartEvent, yaml.StreamEndEvent, yaml.DocumentEndEvent))]
    if msg.startswith("spec is empty"):
        return "1:1", "empty"
    if not body:
        return "-", "?"
    root = body[0]
    if msg.startswith("mapping keys must be scalars"):
        # first mapping key that is a collection, anywhere: walk events with a stack
        stack = []  # entries: [kind, expecting_key]
        for e in events:
            if isinstance(e, (yaml.ScalarEvent, yaml.AliasEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                if stack and stack[-1][0] == "map":
                    if stack[-1][1] and not isinstance(e, (yaml.ScalarEvent, yaml.AliasEvent)):
                        return mk(e.start_mark), "first non-scalar key"
                    stack[-1][1] = not stack[-1][1]
            if isinstance(e, yaml.MappingStartEvent):
                stack.append(["map", True])
            elif isinstance(e, yaml.SequenceStartEvent):
                stack.append(["seq", False])
            elif isinstance(e, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                stack.pop()
        return "-", "no non-scalar key"
    if msg.startswith("unknown key"):
        key = msg.split('"')[1]
        depth = 0
        for i, e in enumerate(body):
            if isinstance(e, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
            elif isinstance(e, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
            elif depth == 1 and isinstance(e, yaml.ScalarEvent) and e.value == key:
                return mk(e.start_mark), "the key"
        return "-", "key not found"
    return mk(root.start_mark), "root"

failures = 0
rows = [l.rstrip("\n").split("\t") for l in open(os.path.join(HERE, "positions.tsv")) if not l.startswith("#")]
listed = {r[0] for r in rows}
on_disk = {d + "/" + f for d in ("suite", "valid_not_spec") for f in os.listdir(os.path.join(HERE, d)) if f.endswith(".yaml")}
if listed != on_disk:
    print(f"yaml_positions: the table and the corpus differ: {sorted(listed ^ on_disk)[:5]}", file=sys.stderr)
    failures += 1
for name, pos, frag, note in rows:
    path = os.path.join(HERE, name)
    r = subprocess.run([TFC, "check", path], capture_output=True, text=True)
    first = r.stderr.splitlines()[0] if r.stderr else ""
    got = first[len(path) + 1:].split(": error:")[0] if first.startswith(path + ":") else "?"
    msg = first.split(": error: ", 1)[1] if ": error: " in first else ""
    if got != pos or frag not in msg:
        print(f"{name}: tfc says {got} {msg[:80]!r}, the table {pos} {frag!r}", file=sys.stderr)
        failures += 1
    o, how = oracle(path, msg)
    if note.startswith("oracle") and o != pos:
        print(f"{name}: the table says {pos}, the independent reading {o} ({how})", file=sys.stderr)
        failures += 1
    if note.startswith("reviewed") and o == pos:
        print(f"{name}: marked reviewed, but the independent reading agrees now: mark it oracle", file=sys.stderr)
        failures += 1
n_oracle = sum(1 for r in rows if r[3].startswith("oracle"))
print(f"yaml_positions: {len(rows)} files, {n_oracle} positions confirmed by the independent reading, "
      f"{len(rows) - n_oracle} reviewed by hand; {failures} problems")
sys.exit(1 if failures else 0)
