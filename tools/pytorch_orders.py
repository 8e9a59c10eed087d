#!/usr/bin/env python3
"""Writes tests/golden/pytorch_orders.txt: the per-rank compute orders that
torch.distributed.pipelining executes, for a grid of (schedule, ranks,
stages_per_rank, microbatches), or the error its constructor raises.

Dev-time only (needs `pip install torch`; CI never runs it). tfc's schedule
generators are written from the schedules' definitions; this file is the
independent oracle the tests compare them with.

How the orders are read:
- ScheduleGPipe / Schedule1F1B (one stage per rank): their _step_microbatches
  is run against a recording stage, so the order is what actually executes
  (their _get_pipeline_order IR differs from the runtime for the last rank).
- ScheduleInterleaved1F1B / ScheduleInterleavedZeroBubble /
  ScheduleZBVZeroBubble / ScheduleLoopedBFS / ScheduleDualPipeV: the runtime
  executes pipeline_order rank by rank; idle slots (None) are dropped.
  DualPipeV's overlapped pairs are written in torch's own notation,
  "(0F3;7B1)OVERLAP_F_B" (the runtime runs the forward, then the backward).

    tools/pytorch_orders.py > tests/golden/pytorch_orders.txt
"""
import sys
import warnings

warnings.filterwarnings("ignore")
import torch  # noqa: E402
from torch.distributed.pipelining import schedules as S  # noqa: E402


class Stage:
    """Enough of a pipeline stage for the schedules' constructors; records
    the compute calls of single-stage runtimes."""

    def __init__(self, index, num_stages, group_size, group_rank, log=None):
        self.stage_index = index
        self.num_stages = num_stages
        self.group_size = group_size
        self.group_rank = group_rank
        self.is_first = index == 0
        self.is_last = index == num_stages - 1
        self.stage_index_to_group_rank = {}
        self.submod = torch.nn.Linear(1, 1)
        self.has_backward = True
        self.device = torch.device("cpu")
        self.log = log

    def __getattr__(self, name):
        if name.startswith("get_") and name.endswith("_ops"):
            return lambda *a, **k: []
        return lambda *a, **k: None

    def forward_one_chunk(self, mb, *a, **k):
        self.log.append(f"{self.stage_index}F{mb}")

    def backward_one_chunk(self, mb, *a, **k):
        self.log.append(f"{self.stage_index}B{mb}")


COMPUTE = {"F", "B", "I", "W"}


def orders(kind, p, v, m):
    n = p * v
    if kind in ("GPipe", "1F1B"):
        cls = S.ScheduleGPipe if kind == "GPipe" else S.Schedule1F1B
        rows = []
        for r in range(p):
            log = []
            sch = cls(Stage(r, n, p, r, log), m)
            sch._step_microbatches([()] * m, [{}] * m, None, None, return_outputs=False)
            rows.append(log)
        return rows
    if kind in ("ZBV", "DualPipeV"):
        stage_sets = [[Stage(r, n, p, r), Stage(n - 1 - r, n, p, r)] for r in range(p)]
    else:
        stage_sets = [[Stage(r + i * p, n, p, r) for i in range(v)] for r in range(p)]
    cls = {
        "Interleaved1F1B": S.ScheduleInterleaved1F1B,
        "ZBH1": S.ScheduleInterleavedZeroBubble,
        "ZBV": S.ScheduleZBVZeroBubble,
        "LoopedBFS": S.ScheduleLoopedBFS,
        "DualPipeV": S.ScheduleDualPipeV,
    }[kind]
    rows = []
    for r in range(p):
        sch = cls(stage_sets[r], m)
        acts = [a for a in sch.pipeline_order[r] if a is not None]
        rows.append([str(a) for a in acts if a.sub_actions is not None or str(a)[len(str(a.stage_index))] in COMPUTE])
    return rows


def grid():
    ps = [1, 2, 3, 4, 6]
    ms = [1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16]
    for kind, vs in [("GPipe", [1]), ("1F1B", [1]), ("Interleaved1F1B", [2, 3, 4]),
                     ("ZBH1", [1, 2, 3]), ("ZBV", [2]), ("LoopedBFS", [1, 2, 3, 4]), ("DualPipeV", [2])]:
        for p in ps:
            for v in vs:
                for m in ms:
                    yield kind, p, v, m


def main():
    print(f"# torch {torch.__version__}: per-rank compute orders; written by tools/pytorch_orders.py")
    print("# == SCHEDULE RANKS STAGES_PER_RANK MICROBATCHES, then one line per rank, or ERROR")
    for kind, p, v, m in grid():
        print(f"== {kind} {p} {v} {m}")
        try:
            for row in orders(kind, p, v, m):
                print(",".join(row))
        except Exception as e:  # the constructor refused the configuration
            msg = str(e).splitlines()[0] if str(e) else ""
            print(f"ERROR {type(e).__name__}: {msg}")


if __name__ == "__main__":
    sys.exit(main())
