/* sched_builtin: the built-in schedules' per-rank orders, written from each
 * schedule's definition so that a trainer running PyTorch's
 * torch.distributed.pipelining class of the same name executes exactly these
 * orders (tests/golden/pytorch_orders.txt holds PyTorch's own output for a
 * grid of configurations). Idle slots are not part of a program: when an
 * action may start is the DAG's business, not the order's.
 *
 * p = ranks, v = stages per rank, m = microbatches. */
#include "sched_builtin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

typedef struct prog {
    sched_action *v;
    size_t n, cap;
    bool oom;
} prog;

static void emit(prog *p, uint32_t stage, act_type type, uint32_t mb)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 1024;
        sched_action *v = realloc(p->v, cap * sizeof *v);
        if (!v) {
            p->oom = true;
            return;
        }
        p->v = v;
        p->cap = cap;
    }
    p->v[p->n++] = (sched_action){stage, mb, (uint8_t)type, SCHED_PAIR_NONE};
}

/* GPipe: every forward, then every backward, in microbatch order. */
static void gen_gpipe(prog *out, uint32_t rank, uint32_t m)
{
    for (uint32_t i = 0; i < m; i++)
        emit(out, rank, ACT_F, i);
    for (uint32_t i = 0; i < m; i++)
        emit(out, rank, ACT_B, i);
}

/* 1F1B: rank r warms up with min(m, p - r) forwards (the last rank with one),
 * then alternates one backward and one forward until the forwards run out,
 * then drains the backwards. */
static void gen_1f1b(prog *out, uint32_t rank, uint32_t p, uint32_t m)
{
    uint32_t warmup = p - rank < m ? p - rank : m;
    uint32_t f = 0, b = 0;
    while (f < warmup)
        emit(out, rank, ACT_F, f++);
    for (;;) {
        emit(out, rank, ACT_B, b++);
        if (f == m)
            break;
        emit(out, rank, ACT_F, f++);
    }
    while (b < m)
        emit(out, rank, ACT_B, b++);
}

/* Interleaved 1F1B and interleaved zero bubble (ZB1P) share one shape. The
 * microbatches are taken in rounds of mpr = m / max(1, m / p) (m must divide
 * into whole rounds). Rank r holds stages r, r + p, ...; its forwards walk
 * its local stages upwards one round at a time, its backwards downwards.
 *   warmup   = min((v - 1) * mpr + k * (p - 1 - r), v * m) forwards, with
 *              k = 2 for 1F1B and k = 1 for zero bubble;
 *   steady   = v * m - warmup pairs of one forward and one backward;
 *   cooldown = warmup backwards.
 * With zero bubble the backward is its input half I, and the weight half W
 * of the oldest pending I follows each I once r of them are in flight
 * (counted from the first steady step); the rest drain at the end. */
typedef struct interleave {
    uint32_t p, v, m, rank, mpr, warmup;
    bool zero_bubble;
    uint32_t *fwd_mb, *bwd_mb, *w_mb; /* per global stage */
    uint64_t *bwd_ops;                /* op number of each backward so far */
} interleave;

static uint32_t fwd_stage(const interleave *it, uint64_t op)
{
    return (uint32_t)((op / it->mpr) % it->v) * it->p + it->rank;
}

static uint32_t bwd_stage(const interleave *it, uint64_t op)
{
    return (uint32_t)(it->v - 1 - ((op - it->warmup) / it->mpr) % it->v) * it->p + it->rank;
}

static void gen_interleaved(prog *out, interleave *it)
{
    const uint64_t v = it->v, m = it->m, p = it->p, r = it->rank;
    const uint64_t per_round_last = (v - 1) * it->mpr;
    uint64_t warmup = per_round_last + (it->zero_bubble ? 1 : 2) * (p - 1 - r);
    if (warmup > v * m)
        warmup = v * m;
    it->warmup = (uint32_t)warmup;
    const uint64_t steady = v * m - warmup, total = v * m + warmup;
    const act_type back = it->zero_bubble ? ACT_I : ACT_B;
    uint64_t n_bwd = 0, n_w = 0;

    for (uint64_t op = 0; op < total; op++) {
        if (op < warmup + steady) {
            uint32_t s = fwd_stage(it, op);
            emit(out, s, ACT_F, it->fwd_mb[s]++);
            if (op < warmup)
                continue;
        }
        uint32_t s = bwd_stage(it, op);
        emit(out, s, back, it->bwd_mb[s]++);
        it->bwd_ops[n_bwd++] = op;
        if (it->zero_bubble && op - warmup >= r) {
            uint32_t ws = bwd_stage(it, it->bwd_ops[n_w++]);
            emit(out, ws, ACT_W, it->w_mb[ws]++);
        }
    }
    while (it->zero_bubble && n_w < n_bwd) {
        uint32_t ws = bwd_stage(it, it->bwd_ops[n_w++]);
        emit(out, ws, ACT_W, it->w_mb[ws]++);
    }
}

/* ZB-V: rank r holds stage c0 = r (the V's way down) and c1 = 2p - 1 - r (its
 * way up). Built as if there were n = max(2p - 1, m) microbatches, then the
 * actions of microbatches >= m are dropped, as PyTorch does:
 *   2(p - r) - 1 forwards of c0;
 *   r times: forward c1, forward c0;
 *   p - r times: forward c1, then I and W of c1;
 *   while c1 lags c0 or c0 has forwards left: [forward c0], I and W of c0,
 *     forward c1, I and W of c1;
 *   r times: I of c0, I of c1;  p - r times: I of c0, W of c0;
 *   the remaining W of c1, then of c0. */
static void emit_below(prog *out, uint32_t stage, act_type t, uint32_t mb, uint32_t m)
{
    if (mb < m)
        emit(out, stage, t, mb);
}

static void gen_zbv(prog *out, uint32_t r, uint32_t p, uint32_t m)
{
    const uint32_t n = 2 * p - 1 > m ? 2 * p - 1 : m;
    const uint32_t c0 = r, c1 = 2 * p - 1 - r;
    uint32_t f0 = 0, f1 = 0, b0 = 0, b1 = 0;
    for (uint32_t k = 0; k < 2 * (p - r) - 1; k++)
        emit_below(out, c0, ACT_F, f0++, m);
    for (uint32_t k = 0; k < r; k++) {
        emit_below(out, c1, ACT_F, f1++, m);
        emit_below(out, c0, ACT_F, f0++, m);
    }
    for (uint32_t k = 0; k < p - r; k++) {
        emit_below(out, c1, ACT_F, f1++, m);
        emit_below(out, c1, ACT_I, b1, m);
        emit_below(out, c1, ACT_W, b1++, m);
    }
    while (f1 < f0 || f0 < n) {
        if (f0 < n)
            emit_below(out, c0, ACT_F, f0++, m);
        emit_below(out, c0, ACT_I, b0, m);
        emit_below(out, c0, ACT_W, b0++, m);
        emit_below(out, c1, ACT_F, f1++, m);
        emit_below(out, c1, ACT_I, b1, m);
        emit_below(out, c1, ACT_W, b1++, m);
    }
    uint32_t w0 = b0, w1 = b1;
    for (uint32_t k = 0; k < r; k++) {
        emit_below(out, c0, ACT_I, b0++, m);
        emit_below(out, c1, ACT_I, b1++, m);
    }
    for (uint32_t k = 0; k < p - r; k++) {
        emit_below(out, c0, ACT_I, b0++, m);
        emit_below(out, c0, ACT_W, w0++, m);
    }
    while (w1 < b1)
        emit_below(out, c1, ACT_W, w1++, m);
    while (w0 < b0)
        emit_below(out, c0, ACT_W, w0++, m);
}

/* Looped BFS: rank r's forwards stage by stage upwards, every microbatch of
 * a stage in order before the next stage; then its backwards stage by stage
 * downwards, the microbatches last to first. */
static void gen_looped_bfs(prog *out, uint32_t r, uint32_t p, uint32_t v, uint32_t m)
{
    for (uint32_t k = 0; k < v; k++)
        for (uint32_t i = 0; i < m; i++)
            emit(out, r + k * p, ACT_F, i);
    for (uint32_t k = v; k-- > 0;)
        for (uint32_t i = m; i-- > 0;)
            emit(out, r + k * p, ACT_B, i);
}

/* DualPipeV (DeepSeek's DualPipe in a V): rank r holds stages c0 = r and
 * c1 = 2p - 1 - r. Counters per (stage, kind) give each action its
 * microbatch; a full backward or an input backward advances its stage's
 * backward counter, and an input backward queues its weight half, which
 * runs where the schedule asks for a pending one (the oldest first). The
 * eight steps are those of PyTorch's ScheduleDualPipeV: F0 x 2(p - r - 1);
 * (F0 F1) x (r + 1); (I1 W? F1) x (p - r - 1); the main step, (F0|B1)
 * (F1|B0) overlapped pairs x (m - 2p + r + 1), the last rank's first F0 B1
 * not overlapped; (B1 (F1|B0)) x (p - r - 1); (B1 B0) x (r + 1), the second
 * half as I (from the middle on: B1 first on even ranks, B0 first on odd);
 * (W? B0|I0) x (p - r - 1); W? x (r + 1). */
typedef struct dpv {
    prog *out;
    uint32_t fwd[2], bwd[2]; /* next microbatch per local stage (0: c0, 1: c1) */
    uint32_t stage[2];
    uint32_t *q_stage, *q_mb; /* the pending weight halves: 2m places each (two stages' microbatches) */
    size_t q_head, q_tail;
} dpv;

static void dpv_action(dpv *d, int k, act_type t)
{
    if (t == ACT_F) {
        emit(d->out, d->stage[k], ACT_F, d->fwd[k]++);
        return;
    }
    uint32_t mb = d->bwd[k]++;
    emit(d->out, d->stage[k], t, mb);
    if (t == ACT_I) {
        d->q_stage[d->q_tail] = d->stage[k];
        d->q_mb[d->q_tail++] = mb;
    }
}

static void dpv_pair(dpv *d, int kf, int kb)
{
    dpv_action(d, kf, ACT_F);
    if (!d->out->oom)
        d->out->v[d->out->n - 1].pair = SCHED_PAIR_FIRST;
    dpv_action(d, kb, ACT_B);
    if (!d->out->oom)
        d->out->v[d->out->n - 1].pair = SCHED_PAIR_SECOND;
}

static void dpv_weight(dpv *d)
{
    if (d->q_head < d->q_tail) {
        emit(d->out, d->q_stage[d->q_head], ACT_W, d->q_mb[d->q_head]);
        d->q_head++;
    }
}

static void gen_dualpipev(prog *out, uint32_t r, uint32_t p, uint32_t m, uint32_t *queue)
{
    dpv d = {.out = out, .stage = {r, 2 * p - 1 - r}, .q_stage = queue, .q_mb = queue + 2 * (size_t)m};
    for (uint32_t k = 0; k < 2 * (p - r - 1); k++)
        dpv_action(&d, 0, ACT_F);
    for (uint32_t k = 0; k < r + 1; k++) {
        dpv_action(&d, 0, ACT_F);
        dpv_action(&d, 1, ACT_F);
    }
    for (uint32_t k = 0; k < p - r - 1; k++) {
        dpv_action(&d, 1, ACT_I);
        dpv_weight(&d);
        dpv_action(&d, 1, ACT_F);
    }
    for (uint32_t i = 0; i < m - 2 * p + r + 1; i++) {
        if (i == 0 && r == p - 1) {
            dpv_action(&d, 0, ACT_F);
            dpv_action(&d, 1, ACT_B);
        } else {
            dpv_pair(&d, 0, 1);
        }
        dpv_pair(&d, 1, 0);
    }
    for (uint32_t k = 0; k < p - r - 1; k++) {
        dpv_action(&d, 1, ACT_B);
        dpv_pair(&d, 1, 0);
    }
    bool zb = false;
    uint32_t steps6 = r + 1;
    for (uint32_t i = 0; i < steps6; i++) {
        if (i == steps6 / 2 && r % 2 == 1)
            zb = true;
        dpv_action(&d, 1, zb ? ACT_I : ACT_B);
        if (i == steps6 / 2 && r % 2 == 0)
            zb = true;
        dpv_action(&d, 0, zb ? ACT_I : ACT_B);
    }
    for (uint32_t k = 0; k < p - r - 1; k++) {
        dpv_weight(&d);
        dpv_action(&d, 0, zb ? ACT_I : ACT_B);
    }
    for (uint32_t k = 0; k < r + 1; k++)
        dpv_weight(&d);
}

/* The configurations each schedule takes, as PyTorch's constructors do. */
static bool accepts(spec_schedule kind, uint32_t p, uint32_t v, uint32_t m, diag_list *d, const char *file, spec_pos at)
{
    switch (kind) {
    case SCHED_GPIPE:
    case SCHED_1F1B:
        if (v != 1) {
            diag_error(d, file, at.line, at.col, "%s runs one stage per rank (stages_per_rank is %u)", spec_schedule_name(kind), v);
            return false;
        }
        if (kind == SCHED_1F1B && m < p) {
            diag_error(d, file, at.line, at.col, "1F1B needs at least as many microbatches as stages: %u microbatch%s, %u stages", m,
                     m == 1 ? "" : "es", p);
            return false;
        }
        return true;
    case SCHED_INTERLEAVED_1F1B:
    case SCHED_ZBH1: {
        if (kind == SCHED_INTERLEAVED_1F1B && v < 2) {
            diag_error(d, file, at.line, at.col, "Interleaved1F1B needs at least 2 stages per rank (stages_per_rank is %u)", v);
            return false;
        }
        uint32_t rounds = m / p > 1 ? m / p : 1;
        if (m % rounds != 0) {
            diag_error(d, file, at.line, at.col,
                     "%s takes microbatches in rounds of about one per rank: %u microbatches make %u rounds "
                     "(%u / %u, rounded down), and %u is not a multiple of %u; a multiple of %u (the rank count) always works",
                     spec_schedule_name(kind), m, rounds, m, p, m, rounds, p);
            return false;
        }
        return true;
    }
    case SCHED_ZBV:
        if (v != 2) {
            diag_error(d, file, at.line, at.col, "ZBV needs exactly 2 stages per rank (stages_per_rank is %u)", v);
            return false;
        }
        return true;
    case SCHED_LOOPED_BFS:
        return true;
    case SCHED_DUALPIPEV:
        if (v != 2) {
            diag_error(d, file, at.line, at.col, "DualPipeV needs exactly 2 stages per rank (stages_per_rank is %u)", v);
            return false;
        }
        if (m < 2 * p) {
            diag_error(d, file, at.line, at.col,
                       "DualPipeV needs at least as many microbatches as stages: %u microbatch%s, %u stages", m,
                       m == 1 ? "" : "es", 2 * p);
            return false;
        }
        return true;
    case SCHED_CUSTOM:
        break;
    }
    diag_error(d, file, at.line, at.col, "custom schedules are read from a CSV, not generated");
    return false;
}

tfc_status sched_builtin(spec_schedule kind, uint32_t ranks, uint32_t stages_per_rank, uint32_t microbatches,
                         arena *a, diag_list *d, const char *file, spec_pos at, sched **out)
{
    const uint32_t p = ranks, v = stages_per_rank, m = microbatches, n = p * v;
    *out = NULL;
    if (!accepts(kind, p, v, m, d, file, at))
        return TFC_INVALID;

    sched *s = arena_alloc(a, sizeof *s);
    uint32_t *stage_rank = arena_alloc_array(a, n, sizeof *stage_rank);
    size_t *rank_start = arena_alloc_array(a, (size_t)p + 1, sizeof *rank_start);
    interleave it = {.p = p, .v = v, .m = m, .mpr = m / (m / p > 1 ? m / p : 1)};
    bool interleaved = kind == SCHED_INTERLEAVED_1F1B || kind == SCHED_ZBH1;
    if (interleaved) {
        it.zero_bubble = kind == SCHED_ZBH1;
        it.fwd_mb = calloc(n, sizeof *it.fwd_mb);
        it.bwd_mb = calloc(n, sizeof *it.bwd_mb);
        it.w_mb = calloc(n, sizeof *it.w_mb);
        it.bwd_ops = calloc((size_t)v * m, sizeof *it.bwd_ops);
    }
    prog pr = {0};
    uint32_t *queue = kind == SCHED_DUALPIPEV ? calloc(4 * (size_t)m + 1, sizeof *queue) : NULL;
    bool ok = s && stage_rank && rank_start && (!interleaved || (it.fwd_mb && it.bwd_mb && it.w_mb && it.bwd_ops)) &&
              (kind != SCHED_DUALPIPEV || queue);
    for (uint32_t r = 0; ok && r < p; r++) {
        rank_start[r] = pr.n;
        switch (kind) {
        case SCHED_GPIPE:
            gen_gpipe(&pr, r, m);
            break;
        case SCHED_1F1B:
            gen_1f1b(&pr, r, p, m);
            break;
        case SCHED_INTERLEAVED_1F1B:
        case SCHED_ZBH1:
            it.rank = r;
            memset(it.fwd_mb, 0, n * sizeof *it.fwd_mb);
            memset(it.bwd_mb, 0, n * sizeof *it.bwd_mb);
            memset(it.w_mb, 0, n * sizeof *it.w_mb);
            gen_interleaved(&pr, &it);
            break;
        case SCHED_ZBV:
            gen_zbv(&pr, r, p, m);
            break;
        case SCHED_LOOPED_BFS:
            gen_looped_bfs(&pr, r, p, v, m);
            break;
        case SCHED_DUALPIPEV:
            gen_dualpipev(&pr, r, p, m, queue);
            break;
        case SCHED_CUSTOM:
            break;
        }
        ok = !pr.oom;
    }
    if (ok) {
        rank_start[p] = pr.n;
        for (uint32_t st = 0; st < n; st++)
            stage_rank[st] = (kind == SCHED_ZBV || kind == SCHED_DUALPIPEV) && st >= p ? 2 * p - 1 - st : st % p;
        s->actions = arena_alloc_array(a, pr.n ? pr.n : 1, sizeof *s->actions);
        ok = s->actions != NULL;
    }
    if (ok) {
        memcpy(s->actions, pr.v, pr.n * sizeof *pr.v);
        s->ranks = p;
        s->n_stages = n;
        s->microbatches = m;
        s->stage_rank = stage_rank;
        s->rank_start = rank_start;
        s->n_actions = pr.n;
    }
    free(pr.v);
    free(it.fwd_mb);
    free(it.bwd_mb);
    free(it.w_mb);
    free(it.bwd_ops);
    free(queue);
    if (!ok)
        return diag_nomem(d, "building the %s schedule", spec_schedule_name(kind));
    /* The generators are meant to be complete by construction; say so loudly if not. */
    size_t before = diag_count(d);
    if (!sched_index(s, a, d, NULL)) {
        if (d->nomem)
            return TFC_NOMEM;
        if (diag_count(d) == before)
            diag_error(d, file, at.line, at.col, "internal error: the generated %s schedule is not complete",
                       spec_schedule_name(kind));
        else
            diag_note(d, 0, 0, "internal error: the generated %s schedule is not complete", spec_schedule_name(kind));
        return TFC_INVALID;
    }
    *out = s;
    return TFC_OK;
}
