/* lp_problem: the freeze LP's size without building it, the kept-edge
 * rule, phase names, and the memory probe for lp_solve (lp_problem.h). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include "lp_problem.h"

#include <lpsolve/lp_lib.h>
#include <pthread.h>

#include <sys/mman.h>

const char *lp_phase_name(lp_phase phase)
{
    switch (phase) {
    case LP_PHASE_MAKESPAN: return "phase 1 of the freeze LP (minimise the makespan)";
    case LP_PHASE_FREEZE: return "phase 2 of the freeze LP (least freezing at the best makespan)";
    case LP_PHASE_BALANCE: break;
    }
    return "phase 3 of the freeze LP (the most even freezing)";
}

bool lp_kept_edge(const sched *s, uint32_t u, uint32_t v, bool *program_done)
{
    if (dag_cross_rank(s, u, v))
        return true;
    /* Same rank: only the program-order edge carries information. */
    if (v != u + 1 || *program_done)
        return false;
    *program_done = true;
    return true;
}

/* Whether stage st has a freezable action: its actions are found through
 * the schedule's (type, stage, microbatch) index, so no per-stage table is
 * needed. */
static bool stage_has_freezable(const lp_problem *pb, uint32_t st)
{
    const sched *s = pb->s;
    for (int t = 0; t < ACT_TYPES; t++)
        for (uint32_t mb = 0; mb < s->microbatches; mb++) {
            uint32_t u = sched_find(s, (act_type)t, st, mb);
            if (u != SCHED_NONE && pb->freezable[u])
                return true;
        }
    return false;
}

/* The rows of lp_direct.c's LP, counted: per action, one row per kept
 * dependency and one more when it has no successors (T's row), each with
 * -t_u, D_u x_u when u is freezable and D_u is not 0 (zero terms are
 * dropped), and t_v or T; then one budget row per stage with freezable
 * actions, one term per action. */
lp_size lp_problem_size(const lp_problem *pb)
{
    const sched *s = pb->s;
    const dag *g = pb->g;
    lp_size z = {0};
    size_t work_terms = 0;
    z.actions = s->n_actions;
    for (size_t u = 0; u < z.actions; u++) {
        size_t rows_u = 0;
        bool program_done = false;
        for (uint32_t e = g->succ_start[u]; e < g->succ_start[u + 1]; e++)
            rows_u += lp_kept_edge(s, (uint32_t)u, g->succ[e], &program_done);
        if (g->succ_start[u + 1] == g->succ_start[u])
            rows_u++;
        bool x_term = pb->freezable[u] && pb->w_max[u] - pb->w_min[u] != 0.0;
        z.rows += rows_u;
        z.nonzeros += rows_u * (x_term ? 3 : 2);
        z.freezable += pb->freezable[u];
        work_terms += x_term;
    }
    for (uint32_t st = 0; st < s->n_stages; st++)
        z.rows += stage_has_freezable(pb, st);
    z.nonzeros += z.freezable;
    if (lp_work_row(pb)) { /* T and every ratio that shortens its action */
        z.rows++;
        z.nonzeros += work_terms + 1;
    }
    z.cols = z.actions + z.freezable + 1;
    return z;
}

/* The probe's size: PROBE_FIXED_BYTES (lp_solve's start-up: its
 * factorisation package and work arrays, whatever the size) plus
 * PROBE_BYTES_PER_ENTRY per row, column and nonzero. Measured with
 * ulimit -v, the smallest limit at which lp_solve on the whole LP (ZBV,
 * --lp-method direct) finished, above what tfc needs without the LP:
 * 1.0 MB at 2,505 entries (384 actions), 3.1 MB at 10,385, 6.3 MB at
 * 20,753, about 16 MB at 41,489 (6,144 actions): some 300-480 bytes per
 * entry at the margin, growing a little with the size. The factors below
 * ask for two to three times that (and 1 MB), and the ulimit -v sweeps of
 * docs/freeze-lp.md ("Out of memory") showed no crash with them. */
#define PROBE_FIXED_BYTES ((size_t)1 << 20)
#define PROBE_BYTES_PER_ENTRY ((size_t)1024)

tfc_status lp_problem_headroom(size_t rows, size_t cols, size_t nonzeros, diag_list *d, const char *what)
{
    size_t entries = rows + cols + nonzeros;
    size_t bytes = PROBE_FIXED_BYTES;
    if (entries > (SIZE_MAX - bytes) / PROBE_BYTES_PER_ENTRY)
        return diag_nomem(d, "%s", what);
    bytes += entries * PROBE_BYTES_PER_ENTRY;
    /* mmap rather than malloc: the address space (what ulimit -v bounds)
     * and commit charge are checked the same way, no page is touched, and
     * malloc's adaptive thresholds, which a freed block of this size would
     * move, stay as they are. */
    void *probe = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (probe == MAP_FAILED)
        return diag_nomem(d, "%s", what);
    munmap(probe, bytes);
    return TFC_OK;
}

static pthread_mutex_t solve_lock = PTHREAD_MUTEX_INITIALIZER;

/* lp_solve asks this between simplex iterations (put_abortfunc): stop
 * past the solve's iteration limit. */
static int __WINAPI past_limit(lprec *lp, void *limit)
{
    return get_total_iter(lp) > *(const long long *)limit;
}

int lp_problem_solve(lprec *lp)
{
    return lp_problem_solve_within(lp, LP_SOLVE_ITER_BASE +
                                           LP_SOLVE_ITER_PER * ((long long)get_Nrows(lp) + get_Ncolumns(lp)));
}

int lp_problem_solve_within(lprec *lp, long long limit)
{
    /* A degenerate LP can make lp_solve cycle, with no end (seen on the
     * decomposition's phase-3 masters of small interleaved schedules):
     * a limit in iterations, far above what a solve takes (a few per row
     * and column), ends it as USERABORT, which every caller takes as a
     * failed solve. Counted, not timed: the same spec stops at the same
     * place on every machine. */
    put_abortfunc(lp, past_limit, &limit);
    pthread_mutex_lock(&solve_lock);
    int ret = solve(lp);
    pthread_mutex_unlock(&solve_lock);
    put_abortfunc(lp, NULL, NULL);
    return ret;
}
