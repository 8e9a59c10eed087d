/* spec_variant: a spec for another schedule and stage count. */
#include "spec_variant.h"

#include <stdio.h>
#include <string.h>

unsigned spec_times_complete(spec_times *t)
{
    const double s = SPEC_W_FLOOR_SHARE;
    unsigned how = 0;
    if ((t->i < 0 || t->w < 0) && t->b >= 0 && t->bf >= 0) {
        if (t->bf > s * t->b) {
            t->w = (t->b - t->bf) / (1.0 - s);
            t->i = t->b - t->w;
            t->wf = s * t->w;
        } else {
            t->i = t->bf / 2.0;
            t->w = t->b - t->i;
            t->wf = t->bf / 2.0;
        }
        how |= VARIANT_SPLIT_FROM_B;
    }
    if (t->wf < 0 && t->w >= 0)
        t->wf = s * t->w;
    if ((t->b < 0 || t->bf < 0) && t->i >= 0 && t->w >= 0) {
        t->b = t->i + t->w;
        t->bf = t->i + t->wf;
        how |= VARIANT_B_FROM_SPLIT;
    }
    return how;
}

bool spec_times_from_tables(const spec *sp, spec_times *t, unsigned *derived)
{
    const spec_timing *tm = &sp->timing;
    *derived = 0;
    if (!tm->forward_ms)
        return false;
    for (size_t st = 0; st < sp->n_stages; st++) {
#define AT(tab) (tm->tab ? tm->tab[st] : -1.0)
        t[st] = (spec_times){AT(forward_ms),        AT(backward_ms),        AT(backward_frozen_ms),
                             AT(backward_input_ms), AT(backward_weight_ms), AT(backward_weight_frozen_ms)};
#undef AT
        *derived |= spec_times_complete(&t[st]);
    }
    return true;
}

/* Boundaries of n contiguous groups of the tensors (cum: numel before each
 * tensor, cum[p] the total): group k starts at first[k]; each group gets
 * at least one tensor and ends nearest to k / n of the total. */
static void split_groups(const uint64_t *cum, size_t p, size_t n, size_t *first)
{
    first[0] = 0;
    size_t j = 1;
    for (size_t k = 1; k < n; k++) {
        double target = (double)cum[p] * (double)k / (double)n;
        if (j < first[k - 1] + 1)
            j = first[k - 1] + 1;
        while (j < p && (double)cum[j] < target)
            j++;
        /* cum[j] >= target: the boundary before tensor j, or j - 1 if nearer. */
        if (j > first[k - 1] + 1 && j <= p && target - (double)cum[j - 1] < (double)cum[j] - target)
            j--;
        size_t hi = p - (n - k); /* leave a tensor for each later group */
        first[k] = j < hi ? j : hi;
        j = first[k];
    }
    first[n] = p;
}

spec *spec_variant(const spec *sp, const spec_times *base, unsigned base_how, spec_schedule kind, uint32_t v, arena *a,
                   char *why, size_t why_cap, unsigned *how)
{
    const size_t n0 = sp->n_stages;
    const uint64_t n = (uint64_t)sp->ranks * v;
    bool split = spec_schedule_is_split(kind);
    *how = base_how & (VARIANT_MEASURED | (split ? VARIANT_SPLIT_FROM_B : VARIANT_B_FROM_SPLIT));
    if (n > SPEC_MAX_STAGES || n * sp->microbatches > SPEC_MAX_STAGE_MICROBATCHES) {
        snprintf(why, why_cap, "%llu stages x %u microbatches is past tfc's limits", (unsigned long long)n,
                 sp->microbatches);
        return NULL;
    }
    if (sp->n_params < n) {
        snprintf(why, why_cap, "the model has %zu parameter tensor%s, fewer than the %llu stages", sp->n_params,
                 sp->n_params == 1 ? "" : "s", (unsigned long long)n);
        return NULL;
    }
    const cost_model *m = sp->timing.has_model ? &sp->timing.model : NULL;
    if (n != n0 && m && m->layers < n) {
        snprintf(why, why_cap, "the cost model's %llu layers are fewer than the %llu stages",
                 (unsigned long long)m->layers, (unsigned long long)n);
        return NULL;
    }
    spec *out = arena_alloc(a, sizeof *out);
    spec_stage *stages = arena_alloc_array(a, n, sizeof *stages);
    spec_times *t = arena_alloc_array(a, n, sizeof *t);
    double *tab[6];
    for (int k = 0; k < 6; k++)
        tab[k] = arena_alloc_array(a, n, sizeof(double));
    if (!out || !stages || !t || !tab[0] || !tab[1] || !tab[2] || !tab[3] || !tab[4] || !tab[5]) {
        snprintf(why, why_cap, "out of memory");
        return NULL;
    }
    *out = *sp;
    if (n == n0) {
        for (size_t st = 0; st < n; st++) {
            stages[st] = sp->stages[st];
            t[st] = base[st];
        }
    } else {
        /* The tensors in model order, each with its stage. */
        size_t p = sp->n_params;
        uint64_t *cum = arena_alloc_array(a, p + 1, sizeof *cum);
        const spec_param **par = arena_alloc_array(a, p, sizeof *par);
        uint32_t *home = arena_alloc_array(a, p, sizeof *home);
        size_t *first = arena_alloc_array(a, n + 1, sizeof *first);
        spec_param *copy = arena_alloc_array(a, p, sizeof *copy);
        if (!cum || !par || !home || !first || !copy) {
            snprintf(why, why_cap, "out of memory");
            return NULL;
        }
        size_t q = 0;
        cum[0] = 0;
        for (size_t st = 0; st < n0; st++)
            for (size_t j = 0; j < sp->stages[st].n_params; j++, q++) {
                par[q] = &sp->stages[st].params[j];
                home[q] = (uint32_t)st;
                copy[q] = *par[q];
                cum[q + 1] = cum[q] + par[q]->numel;
            }
        split_groups(cum, p, n, first);
        bool bytes = true;
        for (size_t st = 0; st < n0; st++)
            bytes = bytes && sp->stages[st].has_activation_bytes;
        for (size_t k = 0; k < n; k++) {
            spec_stage *g = &stages[k];
            memset(g, 0, sizeof *g);
            char name[32];
            snprintf(name, sizeof name, "stage%zu", k);
            g->name = arena_strndup(a, name, strlen(name));
            g->params = copy + first[k];
            g->n_params = first[k + 1] - first[k];
            g->pos = par[first[k]]->pos;
            g->has_activation_bytes = bytes;
            spec_times sum = {0};
            double act = 0.0;
            for (size_t j = first[k]; j < first[k + 1]; j++) {
                const spec_stage *o = &sp->stages[home[j]];
                double share = o->numel ? (double)par[j]->numel / (double)o->numel : 1.0 / (double)o->n_params;
                const spec_times *b = &base[home[j]];
                g->numel += par[j]->numel;
                sum.f += share * b->f, sum.b += share * b->b, sum.bf += share * b->bf;
                sum.i += share * b->i, sum.w += share * b->w, sum.wf += share * b->wf;
                act += share * (double)o->activation_bytes;
            }
            g->activation_bytes = bytes ? (uint64_t)(act + 0.5) : 0;
            if (m) {
                cost_model even = *m;
                even.stage_layers = NULL;
                cost_stage_ms c = cost_model_stage_ms(&even, n, k, SPEC_W_FLOOR_SHARE);
                sum = (spec_times){c.forward, c.backward, c.backward_frozen, c.input, c.weight, c.weight_frozen};
            }
            t[k] = sum;
        }
        *how |= m ? VARIANT_MODEL : VARIANT_RESPLIT;
    }
    for (size_t st = 0; st < n; st++) {
        tab[0][st] = t[st].f, tab[1][st] = t[st].b, tab[2][st] = t[st].bf;
        tab[3][st] = t[st].i, tab[4][st] = t[st].w, tab[5][st] = t[st].wf;
    }
    out->schedule = kind;
    out->stages_per_rank = v;
    out->stages = stages;
    out->n_stages = (size_t)n;
    out->order = NULL;
    out->inputs = NULL; /* no order, no timing files */
    out->n_inputs = 0;
    out->timing.source = sp->timing.source == TIMING_MODEL ? TIMING_MODEL : TIMING_TABLE;
    out->timing.file = out->timing.frozen_file = (spec_files){0};
    out->timing.forward_ms = tab[0];
    out->timing.backward_ms = tab[1];
    out->timing.backward_frozen_ms = tab[2];
    out->timing.backward_input_ms = tab[3];
    out->timing.backward_weight_ms = tab[4];
    out->timing.backward_weight_frozen_ms = tab[5];
    if (n != n0)
        out->timing.model.stage_layers = NULL;
    return out;
}
