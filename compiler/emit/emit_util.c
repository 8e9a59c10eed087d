/* emit_util: shared pieces of the emitters. */
#define _POSIX_C_SOURCE 200809L
#include "emit_util.h"

#include "select.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "embedded.h"
#include "real.h"
#include "version.h"

/* Every ratio of the plan's grid is a whole number of the masks' units. */
_Static_assert(PLAN_RATIO_GRID_BITS <= 32, "q = ratio * 2^32 must hold every grid ratio exactly");

bool emit_ctx_init(emit_ctx *c, const emit_input *in)
{
    memset(c, 0, sizeof *c);
    c->in = in;
    c->p = in->p;
    c->sp = in->p->sp;
    c->version = version_string();
    size_t i = 0;
    for (; c->sp->name[i] && i + 1 < sizeof c->uname; i++)
        c->uname[i] = (char)toupper((unsigned char)c->sp->name[i]);
    c->uname[i] = '\0';
    bool split = spec_schedule_is_split(c->sp->schedule);
    strcpy(c->freezable, c->sp->schedule == SCHED_DUALPIPEV ? "B or W" : split ? "W" : "B");
    const sched *s = c->p->s;
    c->S = s->n_stages;
    c->M = s->microbatches;
    size_t cells = (size_t)c->S * c->M;
    c->ratio = calloc(cells ? cells : 1, sizeof *c->ratio);
    c->q = calloc(cells ? cells : 1, sizeof *c->q);
    if (!c->ratio || !c->q) {
        emit_ctx_free(c);
        return false;
    }
    for (uint32_t st = 0; st < c->S; st++)
        for (uint32_t m = 0; m < c->M; m++) {
            uint32_t u = sched_find(s, ACT_W, st, m); /* W, or B (DualPipeV has both kinds) */
            if (u == SCHED_NONE)
                u = sched_find(s, ACT_B, st, m);
            double r = u == SCHED_NONE ? 0.0 : c->p->x[u];
            if (!(r > 0.0)) /* also NaN */
                r = 0.0;
            if (r > 1.0)
                r = 1.0;
            c->ratio[(size_t)st * c->M + m] = r;
            /* r is on the plan's grid (PLAN_RATIO_GRID_BITS = 32): scaling
             * by 2^32 is exact and gives an integer, so q and the printed
             * ratio are one value. */
            c->q[(size_t)st * c->M + m] = (uint64_t)ldexp(r, 32);
        }
    for (size_t st = 0; st < c->sp->n_stages; st++)
        if (c->sp->stages[st].n_params > c->max_params)
            c->max_params = (uint32_t)c->sp->stages[st].n_params;
    c->mask_words = (c->max_params + 63) / 64;
    return true;
}

void emit_ctx_free(emit_ctx *c)
{
    free(c->ratio);
    free(c->q);
    c->ratio = NULL;
    c->q = NULL;
}

void emit_var(emit_vars *vs, const char *key, const char *value)
{
    if (vs->n < EMIT_MAX_VARS)
        vs->v[vs->n++] = (tmpl_var){key, value};
}

void emit_var_u(emit_vars *vs, const char *key, unsigned long long value)
{
    if (vs->n >= EMIT_MAX_VARS)
        return;
    snprintf(vs->num[vs->n], sizeof vs->num[vs->n], "%llu", value);
    emit_var(vs, key, vs->num[vs->n]);
}

void emit_common_vars(const emit_ctx *c, emit_vars *vs)
{
    const spec *sp = c->sp;
    emit_var(vs, "NAME", sp->name);
    emit_var(vs, "UNAME", c->uname);
    emit_var(vs, "VERSION", c->version);
    emit_var(vs, "SPEC_FILE", c->in->spec_label);
    emit_var_u(vs, "MICROBATCHES", c->M);
    emit_var_u(vs, "WARMUP", sp->freeze.warmup_steps);
    emit_var_u(vs, "RAMP", sp->freeze.ramp_steps);
    emit_var_u(vs, "RESELECT", sp->freeze.reselect_every);
    emit_var_u(vs, "SEED", sp->freeze.seed);
    emit_var(vs, "FREEZABLE", c->freezable);
    emit_var(vs, "ARCH", sp->targets.cuda_arch);
    emit_var(vs, "SELECT", spec_select_name(sp->freeze.select));
    emit_var_u(vs, "SELECT_RULE", (unsigned)sp->freeze.select);
}

void emit_u64_rows(FILE *f, const uint64_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%lluull,%s", i % 8 ? " " : "    ", (unsigned long long)v[i], i % 8 == 7 || i + 1 == n ? "\n" : "");
}

void emit_double_rows(FILE *f, const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fputs(i % 8 ? " " : "    ", f);
        real_print(f, v[i]); /* the shortest text that reads back exactly; valid C */
        fprintf(f, ",%s", i % 8 == 7 || i + 1 == n ? "\n" : "");
    }
}

void emit_c_double(FILE *f, double v)
{
    real_text t = real_shortest(v);
    fputs(t.s, f);
    if (!strpbrk(t.s, ".eEn")) /* "nan" and "inf" never reach C: ratios and makespans are finite */
        fputs(".0", f);
}

void emit_c_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\' || *p == '?')
            fprintf(f, "\\%c", *p);
        else if (*p >= 0x20 && *p < 0x7f && *p != '*')
            fputc(*p, f);
        else
            fprintf(f, "\\%03o", *p); /* exactly three digits: the next character cannot extend it */
    }
    fputc('"', f);
}

char *emit_block_close(gen_writer *w)
{
    bool ok = !ferror(w->f);
    ok = (fclose(w->f) == 0) && ok;
    w->f = NULL;
    if (!ok) {
        free(w->buf);
        w->buf = NULL;
    }
    return w->buf;
}

char *emit_render_text(const char *name, const emit_vars *vs, diag_list *d)
{
    const char *text = tmpl_get(name);
    if (!text) {
        diag_error(d, NULL, 0, 0, "template %s is missing from this build", name);
        return NULL;
    }
    gen_writer w;
    if (!gen_open(&w)) {
        diag_nomem(d, "generating code");
        return NULL;
    }
    bool ok = tmpl_render(w.f, text, vs->v, vs->n, d);
    char *out = emit_block_close(&w);
    if (!ok || !out) {
        if (ok)
            diag_nomem(d, "generating code");
        free(out);
        return NULL;
    }
    return out;
}

const char *emit_qual(bool cuda) { return cuda ? "__host__ __device__ static inline" : "static inline"; }

char *emit_mask_core(const char *prefix, bool cuda, diag_list *d)
{
    emit_vars vs = {0};
    emit_var(&vs, "QUAL", emit_qual(cuda));
    emit_var(&vs, "U64", cuda ? "unsigned long long" : "uint64_t");
    emit_var(&vs, "U32", cuda ? "unsigned int" : "uint32_t");
    emit_var(&vs, "P", prefix);
    return emit_render_text("mask_core.inc", &vs, d);
}

bool emit_render(gen_folder *out, const char *file, const char *name, const emit_vars *vs, diag_list *d)
{
    const char *text = tmpl_get(name);
    if (!text) {
        diag_error(d, NULL, 0, 0, "template %s is missing from this build", name);
        return false;
    }
    gen_writer w;
    if (!gen_open(&w)) {
        diag_nomem(d, "generating code");
        return false;
    }
    bool ok = tmpl_render(w.f, text, vs->v, vs->n, d);
    if (!gen_close(out, file, &w)) {
        if (ok)
            diag_nomem(d, "writing %s", file);
        return false;
    }
    if (!ok)
        return false;
    return true;
}

bool emit_stage_text_init(const emit_ctx *c, uint32_t st, emit_stage_text *t, diag_list *d)
{
    memset(t, 0, sizeof *t);
    const spec_stage *g = &c->sp->stages[st];
    snprintf(t->sp, sizeof t->sp, "%s_stage%u", c->sp->name, st);
    snprintf(t->usp, sizeof t->usp, "%s_STAGE%u", c->uname, st);
    uint64_t *numel = malloc((g->n_params ? g->n_params : 1) * sizeof *numel);
    bool ok = numel != NULL;
    gen_writer w;
    if (ok && (ok = gen_open(&w))) {
        for (size_t i = 0; i < g->n_params; i++) {
            fputs("    ", w.f);
            emit_c_string(w.f, g->params[i].name);
            fputs(",\n", w.f);
        }
        ok = (t->param_names = emit_block_close(&w)) != NULL;
    }
    if (ok && (ok = gen_open(&w))) {
        for (size_t i = 0; i < g->n_params; i++)
            numel[i] = g->params[i].numel;
        emit_u64_rows(w.f, numel, g->n_params);
        ok = (t->param_numel = emit_block_close(&w)) != NULL;
    }
    if (ok && (ok = gen_open(&w))) {
        emit_double_rows(w.f, c->ratio + (size_t)st * c->M, c->M);
        ok = (t->ratio = emit_block_close(&w)) != NULL;
    }
    if (ok && (ok = gen_open(&w))) {
        emit_u64_rows(w.f, c->q + (size_t)st * c->M, c->M);
        ok = (t->q = emit_block_close(&w)) != NULL;
    }
    if (ok && (ok = gen_open(&w))) {
        for (size_t i = 0; i < g->n_params; i++)
            numel[i] = select_weight(c->sp->freeze.select, g, i);
        emit_u64_rows(w.f, numel, g->n_params);
        ok = (t->param_weight = emit_block_close(&w)) != NULL;
    }
    free(numel);
    if (!ok) {
        diag_nomem(d, "generating code");
        emit_stage_text_free(t);
    }
    return ok;
}

void emit_stage_text_free(emit_stage_text *t)
{
    free(t->param_names);
    free(t->param_numel);
    free(t->ratio);
    free(t->q);
    free(t->param_weight);
    t->param_names = t->param_numel = t->ratio = t->q = t->param_weight = NULL;
}

void emit_stage_vars(const emit_ctx *c, uint32_t st, const emit_stage_text *t, emit_vars *vs)
{
    const spec_stage *g = &c->sp->stages[st];
    emit_common_vars(c, vs);
    emit_var(vs, "SP", t->sp);
    emit_var(vs, "USP", t->usp);
    emit_var_u(vs, "S", st);
    emit_var_u(vs, "RANK", c->p->s->stage_rank[st]);
    emit_var_u(vs, "PARAMS", g->n_params);
    emit_var_u(vs, "MASK_WORDS", (g->n_params + 63) / 64);
    emit_var_u(vs, "NUMEL", g->numel);
    emit_var(vs, "PARAM_NAMES", t->param_names);
    emit_var(vs, "PARAM_NUMEL", t->param_numel);
    emit_var(vs, "RATIO", t->ratio);
    emit_var(vs, "Q", t->q);
    emit_var(vs, "PARAM_WEIGHT", t->param_weight);
}
