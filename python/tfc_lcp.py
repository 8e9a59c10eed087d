"""tfc's LCP index from Python: one index or an index set, queried in
place through the C library (ctypes over lcp/lcp_ffi.h; docs/lcp-index.md,
"From Python").

    import tfc_lcp
    with tfc_lcp.open("corpus.set") as ix:              # a set (tfc index set)
        numbers, lcps = ix.topk(window, k=10)          # one window of seq_len tokens
        numbers, lcps = ix.topk_batch(windows, k=10)   # a 2-D numpy array, one window per row
        dups = ix.dedup(min_lcp=32)                    # ascending numbers
        order = ix.order()                             # the sorted permutation
    ix = tfc_lcp.open("part.idx", tokens=["a.bin", "b.bin"])  # an index and its shards

Answers are exactly `tfc index query / dedup / order`'s. A window is a
sequence of ints, an array.array or a numpy array; topk answers a numpy
window with numpy arrays and anything else with lists. dedup and order give
numpy arrays (uint64) where numpy is installed, array('Q') otherwise.
Errors are tfc_lcp.Error, carrying the C library's message and tfc's exit
status (1 invalid input, 4 I/O, 6 out of memory: the command line's
codes).

The native library: `pip install ./python` builds _tfc_lcp beside this
module where a C compiler is found (python/setup.py); TFC_LCP_LIBRARY names
another (libtfc_lcp.so from CMake's build) and wins. Standard library only;
numpy where the caller uses it. Queries release the GIL: threads may share
an index.
"""
import array
import ctypes
import glob
import importlib.machinery
import os
import sys

ABI = 2
__all__ = ["open", "open_part", "Index", "Error", "merge_topk", "library_path"]


class Error(Exception):
    """A failure in the C library: str() is its message, .status tfc's exit status."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status


_lib = None
_u64p, _u32p = ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint32)


def library_path():
    """The native library this module uses: TFC_LCP_LIBRARY, or _tfc_lcp beside it."""
    env = os.environ.get("TFC_LCP_LIBRARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        found = sorted(glob.glob(os.path.join(here, "_tfc_lcp" + suffix)))
        if found:
            return found[0]
    return None


def _load():
    global _lib
    if _lib is not None:
        return _lib
    path = library_path()
    if path is None:
        raise Error("tfc_lcp: no native library: `pip install ./python` builds one where a C compiler is found; "
                    "or set TFC_LCP_LIBRARY to libtfc_lcp.so from tfc's CMake build", 4)
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise Error(f"tfc_lcp: cannot load {path}: {e}", 4) from None
    if lib.tfc_lcp_abi() != ABI:
        raise Error(f"tfc_lcp: {path} has ABI {lib.tfc_lcp_abi()}, this module needs {ABI}", 1)
    c = ctypes
    sig = {
        "tfc_lcp_open": (c.c_void_p, [c.c_char_p, c.POINTER(c.c_char_p), c.c_uint32, c.c_uint32, c.c_int64, c.c_int,
                                      c.POINTER(c.c_int), c.c_char_p, c.c_size_t]),
        "tfc_lcp_close": (None, [c.c_void_p]),
        "tfc_lcp_info": (None, [c.c_void_p, _u64p]),
        "tfc_lcp_topk": (c.c_int64, [c.c_void_p, c.c_void_p, c.c_uint64, c.c_uint64, _u64p, _u32p, c.c_char_p,
                                     c.c_size_t]),
        "tfc_lcp_dedup": (c.c_int64, [c.c_void_p, c.c_uint32, c.POINTER(_u64p), c.c_char_p, c.c_size_t]),
        "tfc_lcp_order": (c.c_int, [c.c_void_p, _u64p, c.c_char_p, c.c_size_t]),
        "tfc_lcp_free": (None, [c.c_void_p]),
        "tfc_lcp_topk_merge": (c.c_int64, [c.c_uint64, c.c_uint64, _u64p, _u32p, c.c_uint64, _u64p, _u32p,
                                           c.c_uint64, _u64p, _u32p]),
        "tfc_lcp_canon": (c.c_int, [c.c_void_p, _u64p, c.c_uint64, c.c_uint32, _u32p]),
        "tfc_lcp_count_before": (None, [c.c_void_p, _u32p, _u64p, c.c_uint64, _u64p]),
        "tfc_lcp_has_prefix": (None, [c.c_void_p, _u32p, c.c_uint64, c.c_uint32, c.c_int, c.POINTER(c.c_uint8)]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    _lib = lib
    return lib


def _np():
    try:
        import numpy
        return numpy
    except ImportError:
        return None


def _is_np(x):
    return type(x).__module__ == "numpy" and hasattr(x, "ndim")


def _ptr(buf, ptype):
    """A ctypes pointer into a numpy array, array.array or ctypes array."""
    if _is_np(buf):
        return buf.ctypes.data_as(ptype)
    if isinstance(buf, array.array):
        addr, _ = buf.buffer_info()
        return ctypes.cast(addr, ptype)
    return ctypes.cast(buf, ptype)


def _u64_array(n):
    np = _np()
    return np.empty(n, dtype=np.uint64) if np else array.array("Q", bytes(8 * n))


_ERR = 4096


def _err_buf():
    return ctypes.create_string_buffer(_ERR)


class Index:
    """An open index, set, or one part of a set (tfc_lcp.open, open_part)."""

    def __init__(self, path, tokens=None, raw=False, token_bytes=None, part=-1, verify=True):
        lib = _load()
        path = os.fspath(path)
        shards = [os.fsencode(os.fspath(t)) for t in (tokens or [])]
        if raw and token_bytes not in (2, 4):
            raise ValueError("raw shards need token_bytes 2 or 4")
        if shards and part >= 0:
            raise ValueError("part is for a set: an index with tokens is one part already")
        arr = (ctypes.c_char_p * max(1, len(shards)))(*shards)
        status, err = ctypes.c_int(0), _err_buf()
        self._lib = lib  # kept: close() must work while the module is torn down
        self._h = lib.tfc_lcp_open(os.fsencode(path), arr, len(shards), token_bytes if raw else 0, part,
                                   1 if verify else 0, ctypes.byref(status), err, _ERR)
        if not self._h:
            raise Error(err.value.decode(errors="replace"), status.value)
        info = (ctypes.c_uint64 * 8)()
        lib.tfc_lcp_info(self._h, info)
        self.path = path
        self.sequences, self.seq_len, self.token_bytes = info[0], info[1], info[2]
        self.documents, self.doc_sep, self.parts = bool(info[3]), info[4] if info[3] else None, info[5]
        self.first, self.total = info[6], info[7]
        self.part = part if part >= 0 else None

    # -- lifetime --
    def close(self):
        if getattr(self, "_h", None):
            self._lib.tfc_lcp_close(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def __len__(self):
        return self.sequences

    def __repr__(self):
        what = f"part {self.part} of " if self.part is not None else ""
        return (f"<tfc_lcp.Index {what}{self.path!r}: {self.sequences} sequences of {self.seq_len} "
                f"uint{8 * self.token_bytes} tokens>")

    def _handle(self):
        if not self._h:
            raise ValueError("the index is closed")
        return self._h

    # -- queries --
    def _window_bytes(self, window):
        """One window as token_bytes-wide little-endian bytes (range checked)."""
        code = "H" if self.token_bytes == 2 else "I"
        if _is_np(window):
            if window.ndim != 1:
                raise ValueError(f"a window is 1-D; got shape {window.shape} (topk_batch takes 2-D)")
            return self._np_rows(window.reshape(1, -1)).tobytes()
        if isinstance(window, array.array) and window.typecode == code and window.itemsize == self.token_bytes:
            a = window
        else:
            a = array.array(code)
            try:
                a.extend(window)
            except OverflowError:
                raise ValueError(f"a token does not fit uint{8 * self.token_bytes}") from None
        if len(a) != self.seq_len:
            raise ValueError(f"a window has seq_len {self.seq_len} tokens; got {len(a)}")
        if sys.byteorder != "little":
            a = array.array(code, a)
            a.byteswap()
        return a.tobytes()

    def _np_rows(self, q):
        np = _np()
        want = np.dtype("<u2" if self.token_bytes == 2 else "<u4")
        if q.ndim != 2 or q.shape[1] != self.seq_len:
            raise ValueError(f"windows are rows of seq_len {self.seq_len} tokens; got shape {q.shape}")
        if q.dtype != want:
            if q.dtype.kind not in "iu":
                raise ValueError(f"tokens are integers; got {q.dtype}")
            if q.size and (int(q.min()) < 0 or int(q.max()) > np.iinfo(want).max):
                raise ValueError(f"a token does not fit uint{8 * self.token_bytes}")
            q = q.astype(want)
        return np.ascontiguousarray(q)

    def topk(self, window, k):
        """The k sequences sharing the longest prefixes with one window:
        (numbers, lcps), best first, ties by number."""
        k = self._k(k)
        q = self._window_bytes(window)
        c = min(k, self.sequences)
        np = _np() if _is_np(window) else None
        if np is not None:
            seq, lcp = np.empty(c, dtype=np.uint64), np.empty(c, dtype=np.uint32)
        else:
            seq, lcp = (ctypes.c_uint64 * max(1, c))(), (ctypes.c_uint32 * max(1, c))()
        self._topk(q, 1, k, _ptr(seq, _u64p), _ptr(lcp, _u32p))
        if np is not None:
            return seq, lcp
        return list(seq[:c]), list(lcp[:c])

    def topk_batch(self, windows, k):
        """topk for every row of a 2-D numpy array: (numbers, lcps), each of
        shape (rows, min(k, sequences))."""
        np = _np()
        if np is None or not _is_np(windows):
            raise TypeError("topk_batch takes a 2-D numpy array (one window per row)")
        k = self._k(k)
        q = self._np_rows(windows)
        c = min(k, self.sequences)
        seq = np.empty((q.shape[0], c), dtype=np.uint64)
        lcp = np.empty((q.shape[0], c), dtype=np.uint32)
        if q.shape[0] and c:
            self._topk(q.ctypes.data_as(ctypes.c_void_p), q.shape[0], k, _ptr(seq, _u64p), _ptr(lcp, _u32p))
        return seq, lcp

    def _topk(self, q, nq, k, seq, lcp):
        err = _err_buf()
        if self._lib.tfc_lcp_topk(self._handle(), q, nq, k, seq, lcp, err, _ERR) < 0:
            raise Error(err.value.decode(errors="replace"), 6)  # only memory can fail it

    @staticmethod
    def _k(k):
        k = int(k)
        if k < 1:
            raise ValueError("k is at least 1")
        return k

    def dedup(self, min_lcp):
        """Numbers of the sequences sharing min_lcp leading tokens with a
        smaller-numbered one, ascending (one part of a set: within itself)."""
        min_lcp = int(min_lcp)
        if not 1 <= min_lcp <= self.seq_len:
            raise ValueError(f"min_lcp is 1 to seq_len ({self.seq_len})")
        out, err = _u64p(), _err_buf()
        n = self._lib.tfc_lcp_dedup(self._handle(), min_lcp, ctypes.byref(out), err, _ERR)
        if n < 0:
            raise Error(err.value.decode(errors="replace"), 6)  # only memory can fail it
        try:
            res = _u64_array(n)
            if n:
                ctypes.memmove(_ptr(res, _u64p), out, 8 * n)
        finally:
            self._lib.tfc_lcp_free(out)
        return res

    def order(self):
        """The sorted permutation: element j is the number of the j-th sequence in sorted order."""
        res, err = _u64_array(self.sequences), _err_buf()
        if self.sequences and self._lib.tfc_lcp_order(self._handle(), _ptr(res, _u64p), err, _ERR) < 0:
            msg = err.value.decode(errors="replace")  # memory, or a set whose parts disagree
            raise Error(msg, 6 if "out of memory" in msg else 1)
        return res

    # -- for a process answering for one part (tfc_lcp_dist) --
    def canon(self, numbers, m=None):
        """The first m (default seq_len) tokens of sequences this index holds,
        canonical (uint32; a document's positions past its end 2**32-1): a
        numpy array of shape (len(numbers), m)."""
        np = _np()
        m = self.seq_len if m is None else int(m)
        nums = np.ascontiguousarray(numbers, dtype=np.uint64)
        out = np.empty((nums.size, m), dtype=np.uint32)
        if nums.size and self._lib.tfc_lcp_canon(self._handle(), _ptr(nums, _u64p), nums.size, m, _ptr(out, _u32p)):
            raise ValueError(f"a number this index does not hold, or m above seq_len ({self.seq_len})")
        return out

    def count_before(self, tokens, numbers):
        """For each sequence (canonical tokens, number): how many of this
        index's sequences come before it in sorted order."""
        np = _np()
        t = np.ascontiguousarray(tokens, dtype=np.uint32).reshape(-1, self.seq_len)
        nums = np.ascontiguousarray(numbers, dtype=np.uint64)
        if t.shape[0] != nums.size:
            raise ValueError("one number per sequence")
        out = np.empty(nums.size, dtype=np.uint64)
        if nums.size:
            self._lib.tfc_lcp_count_before(self._handle(), _ptr(t, _u32p), _ptr(nums, _u64p), nums.size, _ptr(out, _u64p))
        return out

    def has_prefix(self, prefixes, sorted=False):  # noqa: A002 (the C flag's name)
        """For each row of m canonical tokens: whether a sequence here starts
        with it. sorted=True promises the rows in ascending order (as an
        index sorts them): one walk along the order instead of a search
        each, much faster for many rows."""
        np = _np()
        t = np.ascontiguousarray(prefixes, dtype=np.uint32)
        if t.ndim != 2 or t.shape[1] > self.seq_len:
            raise ValueError(f"prefixes are rows of at most seq_len ({self.seq_len}) tokens")
        out = np.zeros(t.shape[0], dtype=np.uint8)
        if t.shape[0]:
            self._lib.tfc_lcp_has_prefix(self._handle(), _ptr(t, _u32p), t.shape[0], t.shape[1], 1 if sorted else 0,
                                         out.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)))
        return out.astype(bool)


def open(path, tokens=None, raw=False, token_bytes=None, verify=True):  # noqa: A001 (the module's verb)
    """An index set (tokens None), or an index over its shards (tokens a
    list of paths; raw=True with token_bytes 2 or 4 for raw shards)."""
    return Index(path, tokens=tokens, raw=raw, token_bytes=token_bytes, verify=verify)


def open_part(set_path, part, verify=True):
    """Part `part` of a set alone, numbers global: what a process that
    answers for one part opens (tfc_lcp_dist)."""
    if int(part) < 0:
        raise ValueError("part is at least 0")
    return Index(set_path, part=int(part), verify=verify)


def merge_topk(a, b, k):
    """Two batches of top-k answers ((numbers, lcps), 2-D numpy arrays with
    one row per query, best first) merged by the C library: (numbers, lcps)
    of shape (rows, min(k, na + nb))."""
    np = _np()
    lib = _load()
    (asq, al), (bsq, bl) = a, b
    asq, bsq = (np.ascontiguousarray(x, dtype=np.uint64) for x in (asq, bsq))
    al, bl = (np.ascontiguousarray(x, dtype=np.uint32) for x in (al, bl))
    if asq.ndim != 2 or bsq.ndim != 2 or asq.shape[0] != bsq.shape[0] or asq.shape != al.shape or bsq.shape != bl.shape:
        raise ValueError("answers are 2-D, numbers and lcps of one shape, the same rows in both")
    nq, c = asq.shape[0], min(int(k), asq.shape[1] + bsq.shape[1])
    os_, ol = np.empty((nq, c), dtype=np.uint64), np.empty((nq, c), dtype=np.uint32)
    if nq and c:
        lib.tfc_lcp_topk_merge(nq, int(k), _ptr(asq, _u64p), _ptr(al, _u32p), asq.shape[1], _ptr(bsq, _u64p),
                               _ptr(bl, _u32p), bsq.shape[1], _ptr(os_, _u64p), _ptr(ol, _u32p))
    return os_, ol
