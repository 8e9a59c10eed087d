#!/usr/bin/env python3
"""The planned model with a pilot pair (the spec's training.pilot), scored
on batch-regime sweeps already run: reads the tables bench/batch_regime.py
wrote (results.md, as kept in docs/batch_regime_runs/), takes each batch
size's largest cap that reached L* as its pilot, derives the learning-rate
ratio k from it (python/tfc_plan.py, lr_ratio_from_pilot) and predicts the
batch size's other caps (predicted_time_to_quality with k). Prints a table
and, last,

  ttq_pilot groups=G points=K max_abs_err=E

E by the sweep's error rule over the K predicted points (the pilots
excluded). The tables give 3 decimals; standard library only.

With --seed-ends, what one seed's pilot could have read instead: per
batch size with a cap run on several seeds (the table cell "mean [lowest,
highest]") that reached L*, the largest such cap is the pilot, taken once
at its seeds' mean and once at each end of their spread; each other cap is
predicted from all three, and its error is the larger of the two ends'.
The last line is then

  ttq_pilot_seeds groups=G points=K max_abs_err=E mean_pilot_max_abs_err=E0

(E0: the same rows predicted from the pilot's mean). A prediction falls
as k grows and k as the pilot's speed-up grows, so the ends bound every
speed-up between them.

With --one-k, whether one learning-rate ratio could stand in for the
pilot: for each file, the k on the grid 0, 0.05, ..., 1.95 whose largest
error over every point of the other files is least (no pilots: every
point predicted), and that k's largest error on the file itself, held out.
The last line is then

  ttq_one_k files=F held_out_max_abs_err=E worst_file=NAME best_k_all=K best_k_all_max_abs_err=E1

(K: the one k best over all files together, and its largest error).

With --k-floor, whether a better k could meet the sweep's target at all
with the planned run shape: per batch size (one group of one file), the k
on the grid 0, 0.01, ..., 1.95, or none (each run at its own best rate),
whose largest error over every point of the group, its pilot included, is
least: the floor of any model that gives the batch size one k, however it
finds it; the grid's k whose largest error is at most 0.10 (the sweep's
target), as an interval; and the best k from the run's length and beta,
both spec keys, k = a + b ln(N / 100) + c ln(beta) (clamped to the grid's
range, a, b on a grid of 0.1 and c of 0.05), fitted to every point of
every file at once: in-sample, so no better held out. Then the same for
every pair of seven inputs a user has before any frozen run (K_INPUTS:
the spec's steps, beta, noise scale where freezing starts and start, and
the no-freezing run's rate search: the rate chosen and the final loss's
rise one rate above and below it), k = a + b x + c y rounded to the grid
(a on 0.1 from -0.5 to 2, b and c on 0.1 from -2 to 2), least error
first; and for all seven at once, k = w0 + w . inputs, the least error E2
any w can give, found exactly by linear programming on each batch size's
interval of k within an error (a lower bound where those k are not one
interval; in-sample, and for any subset of the inputs too). The last line
is then

  ttq_k_floor groups=G points=P max_floor_err=E worst_group=NAME fitted_a=A fitted_b=B fitted_c=C fitted_max_abs_err=E1 every_input_bound=E2

With --cross, every point predicted by a pilot at another cap of its
batch size, the pilot's own included: for each point, the pilot is the
largest other cap that reached L* (freezing some but not all), so the
largest cap is predicted from the next one down (extrapolated) and the
others from the largest, as above. The last line is then

  ttq_pilot_cross groups=G points=K max_abs_err=E from_above_max_abs_err=E1 from_below_max_abs_err=E2

(E1 over the points whose pilot is a larger cap, E2 over those whose pilot
is a smaller one; a batch size with one point has no pilot for it).

Usage: bench/ttq_pilot.py [--optimizer adam|sgd] [--seed-ends | --one-k | --k-floor | --cross] RESULTS.md...
(--optimizer: the model's form, training.optimizer; adam, the trainer's,
by default)"""
import itertools
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
import ttq_models  # noqa: E402


SEPARATOR = re.compile(r"\|\s*:?-{3,}")  # a table's header rule: | --- |, |---|, | :--- |


def tables(text):
    """The markdown tables of text, each a list of rows of cells (header first)."""
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith("|") and not SEPARATOR.match(line):
            if cur is None:
                cur = []
                out.append(cur)
            cur.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif not SEPARATOR.match(line):
            cur = None
    return out


def tool_name():
    """The running tool's name, which starts its messages (ttq_pilot,
    ttq_bound, ttq_choice, ttq_probe: they share the reading below)."""
    return os.path.splitext(os.path.basename(sys.argv[0]))[0]


def read_sweep(path):
    """(N, ramp, {batch size: [point]}) from one results.md; SystemExit with
    the file and what is wrong where it cannot be read as one."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise SystemExit(f"{tool_name()}: {path}: cannot read it ({e.strerror if isinstance(e, OSError) else e})")
    try:
        return parse_sweep(path, text)
    except (ValueError, KeyError, IndexError, AttributeError) as e:
        raise SystemExit(f"{tool_name()}: {path}: not a batch-regime results table as bench/batch_regime.py writes "
                         f"it ({type(e).__name__}: {e})")


def parse_sweep(path, text):
    """read_sweep's work on the file's text."""
    m = re.search(r"N = (\d+) steps, ramp (\d+)", text)
    if not m:
        raise SystemExit(f"{tool_name()}: {path}: no 'N = .. steps, ramp ..' line")
    n, ramp = int(m.group(1)), int(m.group(2))
    tabs = tables(text)
    # the first such tables: batch_regime.py writes its batch sizes' and its points' first; a later table
    # with the same columns (--freeze-from's starts) is not the sweep's points
    sizes = next((t for t in tabs if t[0][0].startswith("batch") and "freezing from" in t[0]), None)
    runs = next((t for t in tabs if t[0][0].startswith("batch") and "drift-free speedup" in t[0]), None)
    if not sizes or not runs:
        raise SystemExit(f"{tool_name()}: {path}: not a batch-regime results table")
    col = {h: i for i, h in enumerate(runs[0])}
    warm = {r[0]: int(re.search(r"\d+", r[sizes[0].index("freezing from")]).group()) for r in sizes[1:]}
    rates = {r[0]: rate_sweep(r[sizes[0].index("peak lr (sweep: final loss)")]) for r in sizes[1:]}
    groups = {}
    for r in runs[1:]:
        if r[col["select"]] != "balanced":
            continue
        cell = r[col["drift-free speedup"]]
        df = cell.split()[0]
        spread = re.search(r"\[\s*([0-9.eE+-]+)\s*,\s*([0-9.eE+-]+)\s*\]", cell)  # several seeds: "mean [lowest, highest]"
        bw = float(r[col["beta where freezing starts"]]) if "beta where freezing starts" in col else math.nan
        groups.setdefault(r[0], []).append(dict(
            cap=float(r[col["cap"]]), beta=float(r[col["beta at the start"]]), f=float(r[col["frozen share"]]),
            r=float(r[col["step ratio (plan)"]]), warmup=warm[r[0]], df=float(df.lstrip("<")),
            reached=not df.startswith("<"), beta_w=bw if bw > 0 else math.nan,  # nan: not measured, or negative
            seed_ends=(float(spread.group(1)), float(spread.group(2))) if spread else None, **rates[r[0]]))
        p = groups[r[0]][-1]
        if not (p["beta"] >= 0 and 0 <= p["f"] <= 1 and 0 < p["r"] < math.inf and 0 < p["df"] < math.inf
                and 0 <= p["cap"] <= 1 and (not p["seed_ends"] or p["seed_ends"][0] <= p["df"] <= p["seed_ends"][1])):
            raise ValueError(f"the row of {r[0]} at cap {p['cap']}: beta {p['beta']}, frozen share {p['f']}, step "
                             f"ratio {p['r']}, drift-free {cell!r} (beta at least 0, the share and cap in [0, 1], "
                             f"the ratio and speed-up above 0 and finite, the mean inside its seeds' spread)")
    return n, ramp, groups


def rate_sweep(cell):
    """The no-freezing rate search of a batch size, from its cell "PEAK
    (rate: final loss, ...)": {lr: the peak chosen, rise_up, rise_down: the
    final loss one rate above and one below it, less the chosen one's}
    (nan where the search has no such rate)."""
    lr = float(cell.split()[0])
    tried = sorted((float(a), float(b)) for a, b in re.findall(r"([0-9.eE+-]+):\s*([0-9.eE+-]+)", cell))
    if lr not in [x for x, _ in tried]:
        return dict(lr=lr, rise_up=math.nan, rise_down=math.nan)
    at = [x for x, _ in tried].index(lr)
    loss = tried[at][1]
    return dict(lr=lr, rise_up=tried[at + 1][1] - loss if at + 1 < len(tried) else math.nan,
                rise_down=tried[at - 1][1] - loss if at > 0 else math.nan)


def cli_args(argv, doc, flags=()):
    """[--optimizer adam|adamw|sgd] [FLAG...] RESULTS.md... (options before
    or after the files): (optimizer, paths, the set of flags given among
    flags), or (None, exit status, None) once doc is printed (asked for) or
    what is wrong is said."""
    tool = tool_name()
    optimizer, given, paths, i = "adam", set(), [], 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(doc)
            return None, 0, None
        if a == "--optimizer":
            if i + 1 == len(argv) or argv[i + 1] not in ("adam", "adamw", "sgd"):
                print(f"{tool}: --optimizer takes adam, adamw or sgd", file=sys.stderr)
                return None, 2, None
            optimizer, i = "adam" if argv[i + 1] == "adamw" else argv[i + 1], i + 2
            continue
        if a in flags:
            given.add(a)
        elif a.startswith("-") and a != "-":
            print(f"{tool}: unknown option {a} (--help says what it takes)", file=sys.stderr)
            return None, 2, None
        else:
            paths.append(a)
        i += 1
    if not paths:
        print(doc)
        return None, 2, None
    return optimizer, paths, given


def labels(paths):
    """A short label per results file: its name, or where two share one
    (every sweep writes results.md), the path as given."""
    names = [os.path.basename(p) for p in paths]
    return [n if names.count(n) == 1 else p for n, p in zip(names, paths)]


def named_groups(paths):
    """Every batch size of the results files at paths, named "SIZE (N = N,
    LABEL)": ({name: [point]}, name -> N, name -> ramp)."""
    groups, n_of, ramp_of = {}, {}, {}
    for path, label in zip(paths, labels(paths)):
        n, ramp, g = read_sweep(path)
        for size, pts in g.items():
            name = f"{size} (N = {n}, {label})"
            groups[name], n_of[name], ramp_of[name] = pts, n, ramp
    return groups, n_of.get, ramp_of.get


def cross_rows(groups, n_of, ramp_of, optimizer="adam"):
    """--cross: [(name, point, pilot, k, prediction, error)], each point
    predicted from the largest other cap of its batch size that reached
    L* (ttq_models.pick_pilot without it); points with no such pilot, or
    whose pilot gives no k, are left out."""
    import tfc_plan
    out = []
    for name, pts in groups.items():
        n, ramp = n_of(name), ramp_of(name)
        for p in pts:
            pilot = ttq_models.pick_pilot([q for q in pts if q is not p])
            if pilot is None:
                continue
            k = tfc_plan.lr_ratio_from_pilot(pilot["beta"], pilot["f"], pilot["r"], n, pilot["warmup"], ramp,
                                             pilot["df"], optimizer)
            if k is None:
                continue
            v = tfc_plan.predicted_time_to_quality(p["beta"], p["f"], p["r"], n, p["warmup"], ramp, k, optimizer)
            out.append((name, p, pilot, k, v, ttq_models.point_error(p, v)))
    return out


def cross_table(rows):
    """Markdown of cross_rows; (text, largest error, largest from a larger
    pilot cap, largest from a smaller one)."""
    lines = ["| batch size | cap | pilot cap | k from it | measured | predicted | error |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    worst = {True: 0.0, False: 0.0}
    for name, p, pilot, k, v, e in rows:
        above = pilot["cap"] > p["cap"]
        worst[above] = max(worst[above], e)
        lines.append(f"| {name} | {p['cap']} | {pilot['cap']} | {k:.3f} | {'' if p['reached'] else '<'}"
                     f"{p['df']:.3f} | {v:.3f} | {e:.3f} |")
    return "\n".join(lines), max(worst.values()), worst[True], worst[False]


def seed_end_rows(groups, n_of, ramp_of, optimizer="adam"):
    """--seed-ends: [(name, pilot, (k at the mean, at the lowest, at the
    highest seed), [(point, (prediction from each), error at the mean,
    worse end's error)])], one per batch size with a pilot run on several
    seeds."""
    import tfc_plan
    out = []
    for name, pts in groups.items():
        n, ramp = n_of(name), ramp_of(name)
        pilot = ttq_models.pick_pilot([p for p in pts if p["seed_ends"]])
        if pilot is None:
            continue
        ks = tuple(tfc_plan.lr_ratio_from_pilot(pilot["beta"], pilot["f"], pilot["r"], n, pilot["warmup"], ramp, s,
                                                optimizer) for s in (pilot["df"],) + pilot["seed_ends"])
        if any(k is None for k in ks):
            continue
        rows = []
        for p in pts:
            if p is pilot:
                continue
            v = tuple(tfc_plan.predicted_time_to_quality(p["beta"], p["f"], p["r"], n, p["warmup"], ramp, k, optimizer)
                      for k in ks)
            e = [ttq_models.point_error(p, x) for x in v]
            rows.append((p, v, e[0], max(e[1], e[2])))
        out.append((name, pilot, ks, rows))
    return out


def seed_end_table(res):
    """Markdown of seed_end_rows; (text, worst error of the ends, worst at
    the mean, rows)."""
    lines = ["| batch size | pilot cap | its seeds: mean [lowest, highest] | k from them | cap | measured | "
             "predicted from them | error at the mean | worse end's error |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    worst = worst_mean = 0.0
    count = 0
    for name, pilot, ks, rows in res:
        lo, hi = pilot["seed_ends"]
        for p, v, e_mean, e_end in rows:
            worst, worst_mean, count = max(worst, e_end), max(worst_mean, e_mean), count + 1
            lines.append(f"| {name} | {pilot['cap']} | {pilot['df']:.3f} [{lo:.3f}, {hi:.3f}] | "
                         f"{ks[0]:.3f} [{ks[1]:.3f}, {ks[2]:.3f}] | {p['cap']} | "
                         f"{'' if p['reached'] else '<'}{p['df']:.3f} | {v[0]:.3f} [{v[1]:.3f}, {v[2]:.3f}] | "
                         f"{e_mean:.3f} | {e_end:.3f} |")
    return "\n".join(lines), worst, worst_mean, count


ONE_K_GRID = [i / 20 for i in range(40)]  # 0 to 1.95: lr_ratio is below 2


def group_error(pts, n, ramp, k, optimizer):
    """The largest error over a group's points, each predicted at k (None:
    each run at its own best rate)."""
    import tfc_plan
    return max((ttq_models.point_error(p, tfc_plan.predicted_time_to_quality(p["beta"], p["f"], p["r"], n,
                                                                             p["warmup"], ramp, k, optimizer))
                for p in pts), default=0.0)


def file_error(n, ramp, groups, k, optimizer):
    """The largest error over a file's points, each predicted at k."""
    return max((group_error(pts, n, ramp, k, optimizer) for pts in groups.values()), default=0.0)


def one_k(sweeps, optimizer):
    """--one-k: (table text, [(label, k chosen without it, its error there)],
    (k best over all, its error)). sweeps: [(label, N, ramp, groups)]."""
    err = {(label, k): file_error(n, ramp, g, k, optimizer) for label, n, ramp, g in sweeps for k in ONE_K_GRID}
    labels = [s[0] for s in sweeps]
    rows, lines = [], ["| file (held out) | k best on the others | their largest error at it | its own largest error |",
                       "| --- | --- | --- | --- |"]
    for label in labels:
        others = [o for o in labels if o != label]
        k = min(ONE_K_GRID, key=lambda k: max(err[(o, k)] for o in others))  # the smallest k among equals
        rows.append((label, k, err[(label, k)]))
        lines.append(f"| {label} | {k:.2f} | {max(err[(o, k)] for o in others):.3f} | {err[(label, k)]:.3f} |")
    k_all = min(ONE_K_GRID, key=lambda k: max(err[(o, k)] for o in labels))
    return "\n".join(lines), rows, (k_all, max(err[(o, k_all)] for o in labels))


FLOOR_GRID = [i / 100 for i in range(196)]  # 0 to 1.95
TARGET = 0.10  # the sweep's target on max_abs_err (issue #37)
FIT_A = [i / 10 for i in range(-5, 21)]  # k = a + b ln(N / 100) + c ln(beta)
FIT_B = [i / 10 for i in range(-5, 11)]
FIT_C = [i / 20 for i in range(-10, 11)]


def fitted_k(a, b, c, n, beta):
    """The length-and-beta form of k, clamped to [0, 1.95]; beta 0 (no
    noise) takes the grid's lowest k."""
    if beta <= 0.0:
        return 0.0
    return min(max(a + b * math.log(n / 100.0) + c * math.log(beta), 0.0), FLOOR_GRID[-1])


def grid_errors(groups, n_of, ramp_of, optimizer):
    """{group name: [its largest error at each k of FLOOR_GRID]}, which
    --k-floor's floor, pair fits and bound all read."""
    return {name: [group_error(pts, n_of(name), ramp_of(name), k, optimizer) for k in FLOOR_GRID]
            for name, pts in groups.items()}


def k_floor(groups, n_of, ramp_of, optimizer, grid_errs):
    """--k-floor: ([(name, points, best k or None, its error, (lowest, highest)
    k of the grid within TARGET or None, error at no k)], ((a, b, c), the
    fitted form's largest error over every point)); grid_errs: grid_errors'."""
    rows = []
    for name, pts in groups.items():
        n, ramp = n_of(name), ramp_of(name)
        errs = dict(zip(FLOOR_GRID, grid_errs[name]))
        none = group_error(pts, n, ramp, None, optimizer)
        best = min(FLOOR_GRID, key=lambda k: errs[k])  # the smallest k among equals
        best, e = (None, none) if none <= errs[best] else (best, errs[best])
        within = [k for k in FLOOR_GRID if errs[k] <= TARGET]
        rows.append((name, len(pts), best, e, (within[0], within[-1]) if within else None, none))
    keys = [(n_of(name), pts[0]["beta"], name) for name, pts in groups.items()]
    return rows, least_worst(itertools.product(FIT_A, FIT_B, FIT_C), keys, lambda abc, key: group_error(
        groups[key[2]], key[0], ramp_of(key[2]), fitted_k(*abc, key[0], key[1]), optimizer))


def least_worst(candidates, items, error):
    """The first of candidates whose largest error(candidate, item) over
    items is least, and that error: (candidate, error)."""
    fit, fit_err = None, math.inf
    for cand in candidates:
        worst = 0.0
        for item in items:
            worst = max(worst, error(cand, item))
            if worst >= fit_err:
                break
        if worst < fit_err:
            fit, fit_err = cand, worst
    return fit, fit_err


def _log(x):
    return math.log(x) if x > 0 else math.nan


# What a user has before any frozen run, as inputs to a fitted k: the
# spec's training keys (steps N, beta, the noise scale where freezing
# starts, the start w) and the no-freezing run's rate search (the peak
# rate chosen and how the final loss rises one rate above and below it).
# Each is f(N, a point of the batch size), nan where the file lacks it.
K_INPUTS = (
    ("ln(N/100)", lambda n, p: math.log(n / 100.0)),
    ("ln(beta)", lambda n, p: _log(p["beta"])),
    ("ln(beta_w/beta)", lambda n, p: _log(p["beta_w"] / p["beta"]) if p["beta"] > 0 else math.nan),
    ("w/N", lambda n, p: p["warmup"] / n),
    ("ln(lr/0.01)", lambda n, p: _log(p["lr"] / 0.01)),
    ("ln(rise_up/0.1)", lambda n, p: _log(p["rise_up"] / 0.1)),
    ("ln(rise_down/0.1)", lambda n, p: _log(p["rise_down"] / 0.1)),
)
PAIR_A = [i / 10 for i in range(-5, 21)]  # k = a + b x + c y, rounded to FLOOR_GRID
PAIR_C = [i / 10 for i in range(-20, 21)]


def pair_k(a, b, c, x, y):
    """The pair form's k: a + b x + c y clamped to [0, 1.95] and rounded
    to the floor's grid of 0.01."""
    return round(min(max(a + b * x + c * y, 0.0), FLOOR_GRID[-1]), 2)


def k_input_fits(groups, n_of, errs):
    """--k-floor's second table: for each pair of K_INPUTS, the (a, b, c)
    on the grids whose k = pair_k(a, b, c, x, y) has the least largest
    error over every point of every group (errs: grid_errors'), in-sample:
    [(x name, y name, (a, b, c) or None where some group lacks an input,
    its error)], least first (ties in K_INPUTS' order)."""
    out = []
    for i, (xn, xf) in enumerate(K_INPUTS):
        for yn, yf in K_INPUTS[i + 1:]:
            xy = [(errs[name], xf(n_of(name), pts[0]), yf(n_of(name), pts[0])) for name, pts in groups.items()]
            if any(not (math.isfinite(x) and math.isfinite(y)) for _, x, y in xy):
                out.append((xn, yn, None, math.nan))
                continue
            fit, fit_err = least_worst(itertools.product(PAIR_A, PAIR_C, PAIR_C), xy,
                                       lambda abc, exy: exy[0][round(pair_k(*abc, exy[1], exy[2]) * 100)])
            out.append((xn, yn, fit, fit_err))
    return sorted(out, key=lambda r: math.inf if r[2] is None else r[3])


def feasible_point(rows, rhs, eps=1e-9):
    """A point x with rows[i] . x <= rhs[i] for every i (x free), or None
    where there is none: phase 1 of the simplex method on x = u - v with
    slacks, and an artificial variable for each row whose rhs is negative,
    Bland's rule (no cycling)."""
    m, n = len(rows), len(rows[0]) if rows else 0
    art = [i for i in range(m) if rhs[i] < 0]
    width = 2 * n + m + len(art)
    tab, basis = [], []
    for i in range(m):
        sign = -1.0 if rhs[i] < 0 else 1.0
        row = [sign * a for a in rows[i]] + [-sign * a for a in rows[i]] + [0.0] * (m + len(art)) + [sign * rhs[i]]
        row[2 * n + i] = sign
        if rhs[i] < 0:
            j = 2 * n + m + art.index(i)
            row[j] = 1.0
            basis.append(j)
        else:
            basis.append(2 * n + i)
        tab.append(row)
    # phase-1 objective (minimise the artificials' sum) as reduced costs: -(sum of the artificial rows)
    cost = [0.0] * (width + 1)
    for i in art:
        for j in range(width + 1):
            cost[j] -= tab[i][j]
    for j in range(2 * n + m, width):
        cost[j] += 1.0
    while True:
        enter = next((j for j in range(width) if cost[j] < -eps), None)
        if enter is None:
            break
        leave, best = None, None
        for i in range(m):
            if tab[i][enter] > eps:
                ratio = tab[i][-1] / tab[i][enter]
                if best is None or ratio < best - eps or (ratio <= best + eps and basis[i] < basis[leave]):
                    leave, best = i, ratio
        if leave is None:  # unbounded: cannot happen in phase 1 (the objective is bounded below by 0)
            break
        p = tab[leave][enter]
        tab[leave] = [v / p for v in tab[leave]]
        for i in range(m):
            if i != leave and tab[i][enter] != 0.0:
                f = tab[i][enter]
                tab[i] = [a - f * b for a, b in zip(tab[i], tab[leave])]
        f = cost[enter]
        cost = [a - f * b for a, b in zip(cost, tab[leave])]
        basis[leave] = enter
    if -cost[-1] > 1e-7:
        return None
    x = [0.0] * (2 * n)
    for i, j in enumerate(basis):
        if j < 2 * n:
            x[j] = tab[i][-1]
    return [x[j] - x[n + j] for j in range(n)]


def input_vector(n, p):
    """1 (the intercept) and every one of K_INPUTS for a batch size of an
    N-step sweep, p one of its points."""
    return [1.0] + [f(n, p) for _, f in K_INPUTS]


def linear_k_bound(groups, n_of, grid_errs):
    """--k-floor's bound on every form k = w0 + w . (all of K_INPUTS): the
    least error E among the groups' errors on the grid at which some w puts
    each group's k between the lowest and the highest k of the grid with
    error at most E (a relaxation where the k within E are not one
    interval, so a lower bound, in-sample, for any such form and so for any
    subset of the inputs; grid_errs: grid_errors'): (E, w), or (nan, None)
    where some group lacks an input."""
    errs, xs = [], []
    for name, pts in groups.items():
        x = input_vector(n_of(name), pts[0])
        if not all(math.isfinite(v) for v in x):
            return math.nan, None
        errs.append(grid_errs[name])
        xs.append(x)

    def at(e):
        rows, rhs = [], []
        for err, x in zip(errs, xs):
            within = [k for k, v in zip(FLOOR_GRID, err) if v <= e]
            if not within:
                return None
            if within[0] > FLOOR_GRID[0]:  # a k below the grid is clamped to its lowest
                rows.append([-v for v in x])
                rhs.append(-within[0])
            if within[-1] < FLOOR_GRID[-1]:
                rows.append(x)
                rhs.append(within[-1])
        return feasible_point(rows, rhs) if rows else [0.0] * len(xs[0])
    cands = sorted({v for err in errs for v in err})
    lo, hi = 0, len(cands) - 1  # the largest candidate admits every group's whole grid
    while lo < hi:
        mid = (lo + hi) // 2
        if at(cands[mid]) is None:
            lo = mid + 1
        else:
            hi = mid
    return cands[lo], at(cands[lo])


def linear_k_error(groups, n_of, ramp_of, optimizer, w):
    """The largest error over every point with k = w0 + w . (all of
    K_INPUTS), clamped to [0, 1.95]."""
    out = 0.0
    for name, pts in groups.items():
        k = min(max(sum(a * b for a, b in zip(w, input_vector(n_of(name), pts[0]))), 0.0), FLOOR_GRID[-1])
        out = max(out, group_error(pts, n_of(name), ramp_of(name), k, optimizer))
    return out


def k_input_table(fits):
    lines = ["| k = a + b x + c y: x | y | a | b | c | largest error (in-sample) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for xn, yn, fit, e in fits:
        lines.append(f"| {xn} | {yn} | " + ("not in every file | | | |" if fit is None else
                                             f"{fit[0]:.1f} | {fit[1]:.1f} | {fit[2]:.1f} | {e:.3f} |"))
    return "\n".join(lines)


def k_floor_table(rows):
    lines = ["| batch size | points | best k | its largest error | k within 0.10 | no k (each at its best rate) |",
             "| --- | --- | --- | --- | --- | --- |"]
    for name, count, k, e, within, none in rows:
        lines.append(f"| {name} | {count} | {'none' if k is None else f'{k:.2f}'} | {e:.3f} | "
                     f"{'none' if within is None else f'{within[0]:.2f} to {within[1]:.2f}'} | {none:.3f} |")
    return "\n".join(lines)


def main():
    optimizer, args, flags = cli_args(sys.argv[1:], __doc__, ("--seed-ends", "--one-k", "--k-floor", "--cross"))
    if optimizer is None:
        return args
    if len(flags) > 1:
        print(f"ttq_pilot: {' and '.join(sorted(flags))} are separate tables: give one", file=sys.stderr)
        return 2
    if "--k-floor" in flags:
        groups, n_of, ramp_of = named_groups(args)
        grid_errs = grid_errors(groups, n_of, ramp_of, optimizer)
        rows, ((a, b, c), fit_err) = k_floor(groups, n_of, ramp_of, optimizer, grid_errs)
        print(k_floor_table(rows))
        print()
        print(k_input_table(k_input_fits(groups, n_of, grid_errs)))
        bound, w = linear_k_bound(groups, n_of, grid_errs)
        if w is not None:
            print()
            print("every input at once, k = w0 + " + " + ".join(f"w{i + 1} {name}" for i, (name, _) in
                                                              enumerate(K_INPUTS)) +
                  f": every w is off by {bound:.4f} or more somewhere (in-sample), w there "
                  f"({', '.join(f'{v:.9f}' for v in w)}) by {linear_k_error(groups, n_of, ramp_of, optimizer, w):.4f}")
        worst = max(rows, key=lambda r: r[3])
        print(f"ttq_k_floor groups={len(rows)} points={sum(r[1] for r in rows)} max_floor_err={worst[3]:.4f} "
              f"worst_group={worst[0].replace(' ', '_')} fitted_a={a:.2f} fitted_b={b:.2f} fitted_c={c:.2f} "
              f"fitted_max_abs_err={fit_err:.4f} every_input_bound={bound:.4f}")
        return 0
    if "--one-k" in flags:
        sweeps = [(label,) + read_sweep(path) for path, label in zip(args, labels(args))]
        if len(sweeps) < 2:
            raise SystemExit("ttq_pilot: --one-k holds each file out against the others: give two or more")
        text, rows, (k_all, e_all) = one_k(sweeps, optimizer)
        print(text)
        worst = max(rows, key=lambda r: r[2])
        print(f"ttq_one_k files={len(rows)} held_out_max_abs_err={worst[2]:.4f} worst_file={worst[0]} "
              f"best_k_all={k_all:.2f} best_k_all_max_abs_err={e_all:.4f}")
        return 0
    groups, n_of, ramp_of = named_groups(args)
    if "--cross" in flags:
        rows = cross_rows(groups, n_of, ramp_of, optimizer)
        text, worst, above, below = cross_table(rows)
        print(text)
        print(f"ttq_pilot_cross groups={len(groups)} points={len(rows)} max_abs_err={worst:.4f} "
              f"from_above_max_abs_err={above:.4f} from_below_max_abs_err={below:.4f}")
        return 0
    if "--seed-ends" in flags:
        res = seed_end_rows(groups, n_of, ramp_of, optimizer)
        text, worst, worst_mean, k = seed_end_table(res)
        print(text)
        print(f"ttq_pilot_seeds groups={len(res)} points={k} max_abs_err={worst:.4f} "
              f"mean_pilot_max_abs_err={worst_mean:.4f}")
        return 0
    text, worst, k = ttq_models.pilot_table(groups, n_of, ramp_of, optimizer)
    print(text)
    print(f"ttq_pilot groups={len(groups)} points={k} max_abs_err={worst:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
