"""An index set answered by a torch.distributed job: rank r opens parts
r, r + W, r + 2W, ... of the set (W ranks; one part each when W equals the
parts), answers for them, and the answers are gathered and merged with the
C library's merge (tfc_lcp.merge_topk). Every answer is exactly what one
index over all the shards gives (docs/lcp-index.md, "Index sets across
processes"). The same code runs on gloo (CPU tensors) and NCCL (pass
device="cuda"): only collectives move data.

    import torch.distributed as dist, tfc_lcp_dist
    dist.init_process_group("gloo")
    ds = tfc_lcp_dist.DistributedSet("corpus.set")
    numbers, lcps = ds.topk_batch(windows, k=10)  # windows given on rank src (default 0)
    dups = ds.dedup(min_lcp=32)                   # every rank gets the whole answer
    order = ds.order()

What moves between ranks:
  - top-k: the queries (broadcast from src), then each rank's merged
    answer for its parts (k numbers and LCPs per query);
  - dedup: a sequence is a duplicate when a smaller-numbered one shares its
    first min_lcp tokens. Within a part the part's index says (its own
    dedup); across parts only the part's first occurrences of each prefix
    can be one, and only of an earlier part, whose numbers are all smaller.
    So each rank sends the first min_lcp tokens of its parts' first
    occurrences (one per distinct prefix, in sorted order), each rank
    answers for its parts whether they hold each prefix of a later part (one
    walk along its sorted order per later part), and the flags come back;
  - order: sequence x of part p sits at its position in part p plus, for
    every other part, how many of that part's sequences come before x (a
    binary search there). Each rank sends its parts' sequences (seq_len
    tokens each, canonical uint32) and an all-reduce sums the counts: every
    rank receives every other part's tokens once, so memory and traffic are
    those of the corpus's windows (not its shards' bytes when stride <
    seq_len, more when stride > seq_len).
Standard library, numpy and torch.
"""
import json

import numpy as np
import torch
import torch.distributed as dist

import tfc_lcp

__all__ = ["DistributedSet"]


class DistributedSet:
    """This rank's share of an index set (parts rank, rank + world, ...)."""

    def __init__(self, set_path, group=None, device="cpu", verify=True):
        self.group, self.device = group, torch.device(device)
        self.rank, self.world = dist.get_rank(group), dist.get_world_size(group)
        try:  # the part count only; the C library checks the rest as it opens parts
            with open(set_path, "rb") as f:  # paths in it are bytes, as the file system's: UTF-8 or not
                self.n_parts = len(json.loads(f.read().decode("utf-8", "surrogateescape")).get("parts") or [])
        except (OSError, ValueError, AttributeError) as e:
            raise tfc_lcp.Error(f"{set_path}: error: not a readable index set: {e}", 4) from None
        if not 1 <= self.world <= self.n_parts:
            raise ValueError(f"{self.world} ranks for a set of {self.n_parts} parts: at most one rank per part")
        self.parts = {p: tfc_lcp.open_part(set_path, p, verify=verify)
                      for p in range(self.rank, self.n_parts, self.world)}
        one = self.parts[self.rank]
        self.seq_len, self.token_bytes, self.sequences = one.seq_len, one.token_bytes, one.total

    def close(self):
        for ix in self.parts.values():
            ix.close()
        self.parts = {}

    # -- collectives over numpy arrays --
    def _gather_ints(self, values):
        """Each rank's list of ints (any length), all ranks': a list per rank."""
        n = torch.tensor([len(values)], dtype=torch.int64, device=self.device)
        ns = [torch.empty_like(n) for _ in range(self.world)]
        dist.all_gather(ns, n, group=self.group)
        ns = [int(x.item()) for x in ns]
        buf = torch.zeros(max(ns), dtype=torch.int64, device=self.device)
        buf[:len(values)] = torch.tensor(values, dtype=torch.int64)
        out = [torch.empty_like(buf) for _ in range(self.world)]
        dist.all_gather(out, buf, group=self.group)
        return [o.cpu().tolist()[:k] for o, k in zip(out, ns)]

    def _gather(self, arrays, dtype=np.uint64):
        """Each rank's list of 1-D arrays (any lengths), all ranks': a list
        per rank, in rank order. dtype uint64 (numbers) or uint32 (tokens,
        flags: half the traffic), travelling as the signed type of its width."""
        wire = {np.dtype(np.uint64): (np.int64, torch.int64), np.dtype(np.uint32): (np.int32, torch.int32)}
        npw, tw = wire[np.dtype(dtype)]
        counts = self._gather_ints([len(a) for a in arrays])
        size = max(sum(c) for c in counts)
        buf = np.zeros(size, dtype=dtype)
        at = 0
        for a in arrays:
            buf[at:at + len(a)] = a
            at += len(a)
        out = [torch.empty(size, dtype=tw, device=self.device) for _ in range(self.world)]
        dist.all_gather(out, torch.from_numpy(buf.view(npw)).to(self.device), group=self.group)
        res = []
        for r, t in enumerate(out):
            v, at, mine = t.cpu().numpy().view(dtype), 0, []
            for n in counts[r]:
                mine.append(v[at:at + n])
                at += n
            res.append(mine)
        return res

    def _by_part(self, per_rank):
        """{part: array} from _gather's lists (each rank's parts in order)."""
        out = {}
        for r, arrays in enumerate(per_rank):
            for p, a in zip(range(r, self.n_parts, self.world), arrays):
                out[p] = a
        return out

    # -- answers --
    def topk_batch(self, windows, k, src=0):
        """Top-k for every row of windows (a 2-D array on rank src; ignored
        elsewhere): (numbers, lcps) on every rank, as one index answers."""
        k = int(k)
        # src checks the windows and every rank learns the outcome in the
        # first broadcast (shape -1: refused), so that all raise together
        # and none is left waiting on a collective the others skipped.
        shape = torch.full((2,), -1, dtype=torch.int64, device=self.device)
        why = None
        if self.rank == src:
            w = np.ascontiguousarray(windows)
            if w.dtype.kind not in "iu":
                why = f"tokens are integers; got {w.dtype}"
            elif w.ndim != 2 or w.shape[1] != self.seq_len:
                why = f"windows are rows of seq_len {self.seq_len} tokens; got shape {w.shape}"
            else:
                w = w.astype(np.int64)
                shape = torch.tensor(w.shape, dtype=torch.int64, device=self.device)
        dist.broadcast(shape, src, group=self.group)
        if int(shape[0]) < 0:
            raise ValueError(why or f"rank {src}'s windows were refused there")
        q = torch.from_numpy(w).to(self.device) if self.rank == src else \
            torch.empty(tuple(shape.tolist()), dtype=torch.int64, device=self.device)
        dist.broadcast(q, src, group=self.group)
        qn = q.cpu().numpy()
        mine = None
        for p in sorted(self.parts):
            ans = self.parts[p].topk_batch(qn, k)
            mine = ans if mine is None else tfc_lcp.merge_topk(mine, ans, k)
        nq = qn.shape[0]
        if nq == 0:  # every rank knows it: no exchange, and the shape one index gives, (0, k)
            return mine
        seqs = self._gather([mine[0].reshape(-1)])
        lcps = self._gather([mine[1].reshape(-1)], np.uint32)
        merged = None
        for r in range(self.world):
            s, l = seqs[r][0], lcps[r][0]
            cr = s.size // nq if nq else 0
            ans = (s.reshape(nq, cr), l.astype(np.uint32).reshape(nq, cr))
            merged = ans if merged is None else tfc_lcp.merge_topk(merged, ans, k)
        return merged

    def dedup(self, min_lcp):
        """The numbers of every sequence sharing min_lcp leading tokens with a
        smaller-numbered one, ascending, on every rank."""
        m = int(min_lcp)
        if not 1 <= m <= self.seq_len:
            raise ValueError(f"min_lcp is 1 to seq_len ({self.seq_len})")
        local, cand, prefixes = {}, {}, {}
        for p, ix in sorted(self.parts.items()):
            local[p] = np.asarray(ix.dedup(m), dtype=np.uint64)
            # The first occurrences in the part's sorted order, so that their
            # prefixes arrive sorted: each answering part walks its order once.
            order = np.asarray(ix.order(), dtype=np.uint64)
            firsts = order[~np.isin(order, local[p], assume_unique=True)]
            t = ix.canon(firsts, m)
            # A document's prefix past its end (canonical 2**32-1) is no other
            # document's: only documents mark it; in windows it is a token.
            whole = (t != np.uint32(0xFFFFFFFF)).all(axis=1) if ix.documents else np.ones(len(firsts), bool)
            cand[p], prefixes[p] = firsts[whole], t[whole]
        # Every part's first occurrences, to every rank.
        sent = self._by_part(self._gather([prefixes[p].reshape(-1) for p in sorted(self.parts)], np.uint32))
        # For each later part's prefixes, whether this rank's parts hold them.
        flags = []
        for p in sorted(self.parts):
            for q in range(p + 1, self.n_parts):
                flags.append(self.parts[p].has_prefix(sent[q].reshape(-1, m), sorted=True).astype(np.uint32))
        # Flag arrays, in the order each rank made them (its parts, then later parts).
        got = self._gather(flags, np.uint32)
        seen = {p: np.zeros(len(cand[p]), dtype=bool) for p in self.parts}
        for r, arrays in enumerate(got):
            i = 0
            for p in range(r, self.n_parts, self.world):
                for q in range(p + 1, self.n_parts):
                    if q in seen:
                        seen[q] |= arrays[i].astype(bool)
                    i += 1
        dups = [np.concatenate([local[p], cand[p][seen[p]]]) for p in sorted(self.parts)]
        every = self._gather([np.concatenate(dups) if dups else np.empty(0, np.uint64)])
        return np.sort(np.concatenate([a for arrays in every for a in arrays]))

    def order(self):
        """The sorted permutation of the whole set (uint64 numbers), on every rank."""
        perm, toks = {}, {}
        for p, ix in sorted(self.parts.items()):
            perm[p] = np.asarray(ix.order(), dtype=np.uint64)
            toks[p] = ix.canon(perm[p])
        mine = sorted(self.parts)
        sent_perm = self._by_part(self._gather([perm[p] for p in mine]))
        sent_toks = self._by_part(self._gather([toks[p].reshape(-1) for p in mine], np.uint32))
        starts = np.zeros(self.n_parts + 1, dtype=np.int64)
        for p in range(self.n_parts):
            starts[p + 1] = starts[p] + len(sent_perm[p])
        # pos of part p's j-th sorted sequence: j, plus every other part's
        # sequences before it; this rank adds its parts' counts.
        counts = np.zeros(int(starts[-1]), dtype=np.int64)
        for p in range(self.n_parts):
            t = sent_toks[p].reshape(-1, self.seq_len)
            for q in mine:
                if q != p:
                    counts[starts[p]:starts[p + 1]] += self.parts[q].count_before(t, sent_perm[p]).astype(np.int64)
        total = torch.from_numpy(counts).to(self.device)
        dist.all_reduce(total, group=self.group)
        pos = total.cpu().numpy()
        out = np.empty(int(starts[-1]), dtype=np.uint64)
        for p in range(self.n_parts):
            j = np.arange(len(sent_perm[p]), dtype=np.int64)
            out[pos[starts[p]:starts[p + 1]] + j] = sent_perm[p]
        return out
