/* emit_c: the public header and C file (every stage, queries indexed by
 * stage) and one specialised header and C file per stage. */
#define _POSIX_C_SOURCE 200809L
#include "emit_util.h"
#include "select.h"

#include <stdlib.h>
#include <string.h>

/* Blocks of the public C file, each malloc'd. */
enum { B_PROGRAM, B_PROGRAM_START, B_STAGE_RANK, B_RATIO, B_Q, B_PARAM_TABLES, B_PARAM_POINTERS, B_PARAM_COUNT,
       B_STAGE_NUMEL, B_NUMEL_TABLES, B_NUMEL_POINTERS, B_ACTION_MS, B_ACTION_FROZEN_MS, B_PLAN_START_MS,
       B_PLAN_MS_TABLE, B_COMM_MS, B_BASE_MS, B_PLAN_MS, B_MASK_CORE, B_WEIGHT_TABLES, B_WEIGHT_POINTERS, B_COUNT };

static const char *const block_keys[B_COUNT] = {
    "PROGRAM",    "PROGRAM_START", "STAGE_RANK",  "RATIO",         "Q",        "PARAM_TABLES",
    "PARAM_POINTERS", "PARAM_COUNT", "STAGE_NUMEL", "NUMEL_TABLES", "NUMEL_POINTERS", "ACTION_MS",
    "ACTION_FROZEN_MS", "PLAN_START_MS", "PLAN_MS_TABLE", "COMM_MS", "BASE_MS", "PLAN_MS", "MASK_CORE",
    "WEIGHT_TABLES", "WEIGHT_POINTERS",
};

static const char *const type_macro[ACT_TYPES] = {"F", "B", "I", "W"};

/* Writes block b of the public C file to f. */
static void public_block(const emit_ctx *c, int b, FILE *f)
{
    const sched *s = c->p->s;
    const spec *sp = c->sp;
    const char *name = sp->name;
    switch (b) {
    case B_PROGRAM:
        for (uint32_t r = 0; r < s->ranks; r++) {
            fprintf(f, "    /* rank %u */\n", r);
            for (size_t i = s->rank_start[r]; i < s->rank_start[r + 1]; i++) {
                const sched_action *a = &s->actions[i];
                fprintf(f, "    {%u, %u, %s_%s},\n", a->stage, a->mb, c->uname, type_macro[a->type]);
            }
        }
        break;
    case B_PROGRAM_START:
        for (uint32_t r = 0; r <= s->ranks; r++)
            fprintf(f, "%s%zu", r ? ", " : "", s->rank_start[r]);
        break;
    case B_STAGE_RANK:
        for (uint32_t st = 0; st < c->S; st++)
            fprintf(f, "%s%u", st ? ", " : "", s->stage_rank[st]);
        break;
    case B_RATIO:
    case B_Q:
        for (uint32_t st = 0; st < c->S; st++) {
            fprintf(f, "    /* stage %u */\n    {\n", st);
            if (b == B_RATIO)
                emit_double_rows(f, c->ratio + (size_t)st * c->M, c->M);
            else
                emit_u64_rows(f, c->q + (size_t)st * c->M, c->M);
            fputs("    },\n", f);
        }
        break;
    case B_PARAM_TABLES:
        for (size_t st = 0; st < sp->n_stages; st++) {
            const spec_stage *g = &sp->stages[st];
            fprintf(f, "/* Stage %zu's parameter tensors (name, elements), indexed by tensor. */\n", st);
            fprintf(f, "static const %s_param %s_params%zu[%zu] = {\n", name, name, st, g->n_params);
            for (size_t i = 0; i < g->n_params; i++) {
                fputs("    {", f);
                emit_c_string(f, g->params[i].name);
                fprintf(f, ", %lluull},\n", (unsigned long long)g->params[i].numel);
            }
            fputs("};\n", f);
        }
        break;
    case B_PARAM_POINTERS:
    case B_NUMEL_POINTERS:
    case B_WEIGHT_POINTERS:
        for (size_t st = 0; st < sp->n_stages; st++)
            fprintf(f, "%s%s_%s%zu", st ? ", " : "", name,
                    b == B_PARAM_POINTERS ? "params" : b == B_NUMEL_POINTERS ? "numel" : "weight", st);
        break;
    case B_PARAM_COUNT:
        for (size_t st = 0; st < sp->n_stages; st++)
            fprintf(f, "%s%zu", st ? ", " : "", sp->stages[st].n_params);
        break;
    case B_STAGE_NUMEL:
        for (size_t st = 0; st < sp->n_stages; st++)
            fprintf(f, "%s%lluull", st ? ", " : "", (unsigned long long)sp->stages[st].numel);
        break;
    case B_NUMEL_TABLES:
    case B_WEIGHT_TABLES: /* per stage, indexed by tensor: elements, or the selection rule's weights */
        for (size_t st = 0; st < sp->n_stages; st++) {
            const spec_stage *g = &sp->stages[st];
            fprintf(f, "static const uint64_t %s_%s%zu[%zu] = {\n", name, b == B_NUMEL_TABLES ? "numel" : "weight", st,
                    g->n_params);
            for (size_t i = 0; i < g->n_params; i++) {
                uint64_t v = b == B_NUMEL_TABLES ? g->params[i].numel : select_weight(sp->freeze.select, g, i);
                fprintf(f, "%s%lluull,%s", i % 8 ? " " : "    ", (unsigned long long)v,
                        i % 8 == 7 || i + 1 == g->n_params ? "\n" : "");
            }
            fputs("};\n", f);
        }
        break;
    case B_ACTION_MS:
        emit_double_rows(f, c->p->dur, s->n_actions);
        break;
    case B_ACTION_FROZEN_MS:
        emit_double_rows(f, c->p->w_min, s->n_actions);
        break;
    case B_PLAN_START_MS:
        emit_double_rows(f, c->p->opt.start, s->n_actions);
        break;
    case B_PLAN_MS_TABLE:
        emit_double_rows(f, c->p->opt_dur, s->n_actions);
        break;
    case B_COMM_MS:
        emit_c_double(f, sp->timing.comm_ms);
        break;
    case B_BASE_MS:
        emit_c_double(f, c->p->base.makespan);
        break;
    case B_PLAN_MS:
        emit_c_double(f, c->p->opt.makespan);
        break;
    default:
        break;
    }
}

static bool emit_public(const emit_ctx *c, gen_folder *out, diag_list *d)
{
    const spec *sp = c->sp;
    const sched *s = c->p->s;
    char *blocks[B_COUNT] = {0};
    bool ok = true;
    for (int b = 0; b < B_COUNT && ok; b++) {
        if (b == B_MASK_CORE) {
            char prefix[96];
            snprintf(prefix, sizeof prefix, "%s_", sp->name);
            ok = (blocks[b] = emit_mask_core(prefix, false, d)) != NULL;
            continue;
        }
        gen_writer w;
        ok = gen_open(&w);
        if (ok) {
            public_block(c, b, w.f);
            ok = (blocks[b] = emit_block_close(&w)) != NULL;
        }
        if (!ok)
            diag_nomem(d, "generating the C files");
    }
    char guard[96], hfile[96], cfile[96];
    snprintf(guard, sizeof guard, "%s_H", c->uname);
    snprintf(hfile, sizeof hfile, "%s.h", sp->name);
    snprintf(cfile, sizeof cfile, "%s.c", sp->name);
    emit_vars vs = {0};
    emit_common_vars(c, &vs);
    emit_var(&vs, "GUARD", guard);
    emit_var(&vs, "SCHEDULE", spec_schedule_name(sp->schedule));
    emit_var_u(&vs, "RANKS", s->ranks);
    emit_var_u(&vs, "SPR", sp->stages_per_rank);
    emit_var_u(&vs, "STAGES", c->S);
    emit_var_u(&vs, "ACTIONS", s->n_actions);
    emit_var_u(&vs, "MAX_PARAMS", c->max_params);
    emit_var_u(&vs, "MASK_WORDS", c->mask_words);
    for (int b = 0; b < B_COUNT; b++)
        emit_var(&vs, block_keys[b], blocks[b] ? blocks[b] : "");
    /* The optimiser contract for the plan's batch regime: rescaled below the
     * noise scale (a training section saying so), shares otherwise. */
    char *contract = ok ? emit_render_text(c->p->ttq_rescale ? "contract_mean.inc" : "contract_share.inc", &vs, d)
                        : NULL;
    ok = ok && contract;
    emit_var(&vs, "OPTIMIZER_CONTRACT", contract ? contract : "");
    ok = ok && emit_render(out, hfile, "public.h.in", &vs, d);
    ok = ok && emit_render(out, cfile, "public.c.in", &vs, d);
    for (int b = 0; b < B_COUNT; b++)
        free(blocks[b]);
    free(contract);
    return ok;
}

static bool emit_stage(const emit_ctx *c, uint32_t st, gen_folder *out, diag_list *d)
{
    emit_stage_text t;
    if (!emit_stage_text_init(c, st, &t, d))
        return false;
    char guard[112], prefix[112], hfile[112], cfile[112];
    snprintf(guard, sizeof guard, "%s_H", t.usp);
    snprintf(prefix, sizeof prefix, "%s_", t.sp);
    snprintf(hfile, sizeof hfile, "%s.h", t.sp);
    snprintf(cfile, sizeof cfile, "%s.c", t.sp);
    emit_vars vs = {0};
    emit_stage_vars(c, st, &t, &vs);
    emit_var(&vs, "GUARD", guard);
    char *core = emit_mask_core(prefix, false, d);
    bool ok = core != NULL;
    if (ok) {
        emit_var(&vs, "MASK_CORE", core);
        ok = emit_render(out, hfile, "stage.h.in", &vs, d) && emit_render(out, cfile, "stage.c.in", &vs, d);
    }
    free(core);
    emit_stage_text_free(&t);
    return ok;
}

bool emit_c_files(const emit_ctx *c, gen_folder *out, diag_list *d)
{
    if (!emit_public(c, out, d))
        return false;
    for (uint32_t st = 0; st < c->S; st++)
        if (!emit_stage(c, st, out, d))
            return false;
    return true;
}
