#!/usr/bin/env python3
"""tfc_torch.profile's trace split, on a trace built by hand (no torch).

profile() runs the two modes alternating in one torch.profiler session,
each step inside a tfc_profile_step:MODE range, and splits the session's
trace into one file per mode. The trace below has a host (pid 100) whose
marks are ABBA, and a device (pid 0) whose copies of the marks lag the
host's, as a GPU's kernels do: a device event belongs to the step of the
device's mark around it, even where the host had moved on to the next
step. The expected file of every event is written here from that rule,
by hand; the split must give exactly it, keep the top-level keys, and
write nothing else.

    trace_split_check.py SOURCE_DIR
"""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.join(sys.argv[1] if len(sys.argv) > 1 else ".", "python"))
import tfc_torch  # noqa: E402

U, F = "unfrozen", "frozen"
MARK = "tfc_profile_step:"


def mark(pid, a, b, mode):
    return {"ph": "X", "cat": "user_annotation" if pid else "gpu_user_annotation", "name": MARK + mode,
            "pid": pid, "tid": 1, "ts": a, "dur": b - a}


def ev(pid, ts, name, dur=5.0):
    return {"ph": "X", "cat": "cpu_op" if pid else "kernel", "name": name, "pid": pid, "tid": 1, "ts": ts, "dur": dur}


def main():
    marks = [mark(100, 0, 100, U), mark(100, 110, 200, F), mark(100, 210, 300, F), mark(100, 310, 400, U),
             mark(0, 20, 140, U), mark(0, 150, 260, F), mark(0, 265, 330, F), mark(0, 335, 450, U)]
    # (event, the mode whose file must hold it, or None: no file)
    cases = [
        (ev(100, 10, "PP:0F0"), U),          # inside the host's first step
        (ev(100, 120, "PP:0F1"), F),         # the host's second step
        (ev(100, 200, "PP:0F2"), F),         # on the second step's last microsecond
        (ev(100, 205, "PP:0F3"), None),      # between two host steps
        (ev(100, 250, "PP:0F4"), F),
        (ev(100, 350, "PP:0F5"), U),
        (ev(0, 130, "PP:0B0"), U),           # device, in its first mark: the host is in step 2 by then
        (ev(0, 262, "PP:0B1"), None),        # between two device marks
        (ev(0, 270, "PP:0B2"), F),
        (ev(0, 420, "PP:0B3"), U),           # device, after every host mark ended
        (ev(7, 305, "gloo:recv"), F),        # a pid with no marks: the last mark begun, the device's at 265
        (ev(7, -5, "early"), None),          # before any mark
    ]
    meta = {"ph": "M", "name": "process_name", "pid": 100, "args": {"name": "rank 0"}}
    trace = {"schemaVersion": 1, "baseTimeNanoseconds": 1733000000123456789,
             "traceEvents": [meta] + marks + [e for e, _ in cases]}
    errors = []
    with tempfile.TemporaryDirectory() as d:
        whole = os.path.join(d, "whole.json")
        with open(whole, "w") as f:
            json.dump(trace, f)
        paths = [os.path.join(d, f"t_{m}.json") for m in (U, F)]
        got = tfc_torch._split_trace(whole, (U, F), paths)
        if tuple(got) != tuple(paths):
            errors.append(f"returned {got}, wrote {paths}")
        if sorted(os.listdir(d)) != sorted(["whole.json", "t_unfrozen.json", "t_frozen.json"]):
            errors.append(f"files left: {sorted(os.listdir(d))}")
        files = {m: json.load(open(p)) for m, p in zip((U, F), paths)}
        # An event a line, as torch.profiler writes them: tfc names a
        # sample by its line, which must tell the events apart.
        for m, p in zip((U, F), paths):
            lines = [l for l in open(p).read().splitlines() if '"ph":' in l]
            if len(lines) != len(files[m]["traceEvents"]) or any(l.count('"ph":') != 1 for l in lines):
                errors.append(f"{m}: {len(files[m]['traceEvents'])} events on {len(lines)} lines, not one a line")
    for m, t in files.items():
        if {k: v for k, v in t.items() if k != "traceEvents"} != {k: v for k, v in trace.items() if k != "traceEvents"}:
            errors.append(f"{m}: top-level keys changed")
        names = [e["name"] for e in t["traceEvents"]]
        want = ["process_name"] + [x["name"] for x in marks if x["name"] == MARK + m] + \
               [e["name"] for e, mode in cases if mode == m]
        if sorted(names) != sorted(want):
            errors.append(f"{m}: holds {sorted(names)}, expected {sorted(want)}")
    for e in errors:
        print("  " + e)
    print("trace split check: " + ("ok" if not errors else "FAILED") + f" ({len(cases)} events, 8 marks)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
