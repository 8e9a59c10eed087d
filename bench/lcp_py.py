#!/usr/bin/env python3
"""The Python binding's batch top-k against the C library (bench/lcp_scale.sh):
tfc_lcp.open(SET).topk_batch on the first N windows of QSHARD, best of 3,
in queries per second; the C library's figure comes from bench_lcp_set in
the same run.
    lcp_py.py SET QSHARD N K      (TFC_LCP_LIBRARY names the library)
Prints 'python_qps=Q'."""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import numpy as np  # noqa: E402
import tfc_lcp  # noqa: E402

set_path, qpath, n, k = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
with tfc_lcp.open(set_path, verify=False) as s:
    q = np.fromfile(qpath, dtype="<u2", offset=1024)
    q = q[:(q.size // s.seq_len) * s.seq_len].reshape(-1, s.seq_len)[:n]
    best = float("inf")
    for _ in range(10):
        t0 = time.perf_counter()
        s.topk_batch(q, k)
        best = min(best, time.perf_counter() - t0)
print(f"python_qps={len(q) / best:.0f}")
