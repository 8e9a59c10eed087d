/* spec_model: the pipeline and model sections: the schedule and stage
 * count, the stages and their parameter tensors, and the checks that hold
 * the stages' activation bytes to the pipeline (spec_read.h). */
#include "spec.h"

#include <stdio.h>
#include <string.h>

#include "real.h"
#include "spec_names.h"
#include "spec_read.h"
#include "text.h"

/* Parameter and stage names end up in C string literals, comments, JSON
 * and CSV. Keeping them to the characters real parameter names use (PyTorch:
 * "layers.0.attention.wq.weight") means no emitter ever has to escape them
 * and no name can close a string or comment: no quotes, backslashes, '*',
 * '?', spaces or non-ASCII. */
static bool is_name_char(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
           ch == '.' || ch == '-' || ch == ':' || ch == '/' || ch == '[' || ch == ']' || ch == '@' || ch == '+';
}

static const char *get_tensor_name(spec_reader *c, const ydoc_node *n, const char *path)
{
    const char *name = spec_get_string(c, n, path, SPEC_MAX_PARAM_NAME_BYTES);
    if (!name)
        return NULL;
    for (uint32_t i = 0; i < n->n; i++) {
        unsigned char ch = (unsigned char)name[i];
        if (!is_name_char(ch)) {
            char q[TEXT_QUOTE_CAP];
            char what[24];
            if (ch < 0x80)
                snprintf(what, sizeof what, "'%c'", (char)ch);
            else
                snprintf(what, sizeof what, "non-ASCII byte 0x%02X", ch);
            SPEC_ERR(c, n, "%s may hold only letters, digits and _ . - : / [ ] @ +; %s has %s at byte %u", path,
                     spec_describe(n, q, sizeof q), what, i);
            return NULL;
        }
    }
    return name;
}

/* Returns true when schedule, ranks and stages_per_rank are all valid, so
 * the stage count can be relied on. */
bool spec_read_pipeline(spec_reader *c, const ydoc_node *p)
{
    spec *s = c->s;
    if (!spec_check_map(c, p, "pipeline", spec_pipeline_keys))
        return false;
    bool ok = true;
    const ydoc_node *n;
    int sched = -1;
    if ((n = spec_require(c, p, "pipeline", "schedule", spec_pipeline_keys))) {
        s->pos_schedule = (spec_pos){n->line, n->col};
        sched = spec_get_enum(c, n, "pipeline.schedule", spec_schedule_names);
        if (sched >= 0)
            s->schedule = (spec_schedule)sched;
    }
    ok &= sched >= 0;
    if ((n = spec_require(c, p, "pipeline", "ranks", spec_pipeline_keys)))
        ok &= spec_get_u32(c, n, "pipeline.ranks", 1, SPEC_MAX_RANKS, &s->ranks);
    else
        ok = false;
    s->stages_per_rank = 1;
    const ydoc_node *spr = ydoc_get(p, "stages_per_rank");
    if (spr)
        ok &= spec_get_u32(c, spr, "pipeline.stages_per_rank", 1, SPEC_MAX_STAGES, &s->stages_per_rank);
    const ydoc_node *mb = spec_require(c, p, "pipeline", "microbatches", spec_pipeline_keys);
    bool mb_ok = false;
    if (mb) {
        s->pos_microbatches = (spec_pos){mb->line, mb->col};
        mb_ok = spec_get_u32(c, mb, "pipeline.microbatches", 1, SPEC_MAX_MICROBATCHES, &s->microbatches);
    }

    const ydoc_node *lim = ydoc_get(p, "memory_limit_bytes");
    if (lim) {
        s->pos_memory_limit = (spec_pos){lim->line, lim->col};
        s->has_memory_limit =
            spec_get_uint(c, lim, "pipeline.memory_limit_bytes", 1, SPEC_MAX_MEMORY_LIMIT, &s->memory_limit_bytes);
    }
    const ydoc_node *procs = ydoc_get(p, "processors");
    if (procs) {
        s->pos_processors = (spec_pos){procs->line, procs->col};
        if (!spec_get_u32(c, procs, "pipeline.processors", 1, SPEC_MAX_RANKS, &s->processors))
            s->processors = 0;
    }

    const ydoc_node *order = ydoc_get(p, "order");
    if (sched == SCHED_CUSTOM) {
        if ((n = spec_require(c, p, "pipeline", "order", spec_pipeline_keys))) {
            s->pos_order = (spec_pos){n->line, n->col};
            s->order = spec_get_string(c, n, "pipeline.order", SPEC_MAX_PATH_BYTES);
        }
    } else if (order && sched >= 0) {
        SPEC_ERR(c, order, "pipeline.order is only read with schedule: custom (schedule is %s)",
                 spec_schedule_names[sched]);
    }
    if (!ok)
        return false;

    const ydoc_node *at = spr ? spr : ydoc_get(p, "ranks");
    uint64_t stages = (uint64_t)s->ranks * s->stages_per_rank;
    if (stages > SPEC_MAX_STAGES) {
        SPEC_ERR(c, at, "pipeline.ranks x pipeline.stages_per_rank = %llu stages, more than the limit of %u",
                 (unsigned long long)stages, SPEC_MAX_STAGES);
        return false;
    }
    /* Shape rules that follow from what each schedule is; the schedule
     * module checks the rest (microbatch counts, orders). */
    const char *rule = NULL;
    switch (s->schedule) {
    case SCHED_GPIPE:
    case SCHED_1F1B:
        if (s->stages_per_rank != 1)
            rule = "runs one stage per rank: stages_per_rank must be 1";
        break;
    case SCHED_INTERLEAVED_1F1B:
        if (s->stages_per_rank < 2)
            rule = "interleaves several stages per rank: stages_per_rank must be at least 2";
        break;
    case SCHED_ZBV:
    case SCHED_DUALPIPEV:
        if (s->stages_per_rank != 2)
            rule = "places two stages per rank in a V: stages_per_rank must be 2";
        break;
    default:
        break;
    }
    if (rule) {
        SPEC_ERR(c, at, "schedule %s %s, got %u", spec_schedule_names[s->schedule], rule, s->stages_per_rank);
        return false;
    }
    if (mb_ok && stages * s->microbatches > SPEC_MAX_STAGE_MICROBATCHES) {
        SPEC_ERR(c, mb, "%llu stages x %u microbatches = %llu (stage, microbatch) pairs, more than the limit of %u",
                 (unsigned long long)stages, s->microbatches, (unsigned long long)(stages * s->microbatches),
                 SPEC_MAX_STAGE_MICROBATCHES);
        return false;
    }
    s->n_stages = (size_t)stages;
    return true;
}

static void read_param(spec_reader *c, const ydoc_node *n, const char *path, spec_param *out)
{
    char sub[SPEC_PATH_CAP];
    out->pos = (spec_pos){n->line, n->col};
    if (!spec_check_map(c, n, path, spec_param_keys))
        return;
    const ydoc_node *v;
    spec_path_key(sub, path, "name");
    if ((v = spec_require(c, n, path, "name", spec_param_keys))) {
        out->name = get_tensor_name(c, v, sub);
        out->pos = (spec_pos){v->line, v->col};
    }
    spec_path_key(sub, path, "numel");
    if ((v = spec_require(c, n, path, "numel", spec_param_keys)))
        spec_get_uint(c, v, sub, 1, SPEC_MAX_NUMEL, &out->numel);
    out->freeze_weight = 1.0;
    spec_path_key(sub, path, "freeze_weight");
    if ((v = ydoc_get(n, "freeze_weight"))) {
        out->has_freeze_weight = true;
        out->pos_freeze_weight = (spec_pos){v->line, v->col};
        if (spec_get_number(c, v, sub, 0.0, false, SPEC_MAX_FREEZE_WEIGHT, &out->freeze_weight) &&
            out->freeze_weight > 0 && out->freeze_weight < 1.0 / 65536)
            SPEC_ERR(c, v, "%s must be 0 or at least 1/65536 (the weights' fixed-point unit), got %s", sub,
                     real_shortest(out->freeze_weight).s);
    }
}

static void read_stage(spec_reader *c, const ydoc_node *n, size_t index, spec_stage *st)
{
    char path[SPEC_PATH_CAP], sub[SPEC_PATH_CAP];
    spec_path_index(path, "model.stages", index);
    st->pos = (spec_pos){n->line, n->col};
    if (!spec_check_map(c, n, path, spec_stage_keys))
        return;
    const ydoc_node *v = ydoc_get(n, "name");
    spec_path_key(sub, path, "name");
    if (v) {
        st->name = get_tensor_name(c, v, sub);
        st->pos = (spec_pos){v->line, v->col};
    } else {
        char def[32];
        snprintf(def, sizeof def, "stage%zu", index);
        st->name = arena_strndup(c->a, def, strlen(def));
        if (!st->name)
            spec_out_of_memory(c, n);
    }
    if ((v = ydoc_get(n, "activation_bytes"))) {
        spec_path_key(sub, path, "activation_bytes");
        spec_get_uint(c, v, sub, 0, SPEC_MAX_ACTIVATION_BYTES, &st->activation_bytes);
        st->has_activation_bytes = true;
    }
    spec_path_key(sub, path, "params");
    const ydoc_node *params = spec_require(c, n, path, "params", spec_stage_keys);
    if (!params)
        return;
    if (params->kind != YDOC_SEQ || params->n == 0) {
        char q[TEXT_QUOTE_CAP];
        if (params->kind == YDOC_SEQ)
            SPEC_ERR(c, params, "%s must list at least one parameter tensor", sub);
        else
            SPEC_ERR(c, params, "%s must be a sequence of {name, numel}, got %s", sub, spec_got(params, q, sizeof q));
        return;
    }
    /* The total was checked against SPEC_MAX_PARAMS before any stage was read. */
    st->params = arena_alloc_array(c->a, params->n, sizeof *st->params);
    spec_name_list names;
    if (!spec_name_list_init(&names, params->n) || !st->params) {
        spec_name_list_check(c, &names, "");
        spec_out_of_memory(c, params);
        return;
    }
    st->n_params = params->n;
    for (uint32_t i = 0; i < params->n && !diag_full(c->d); i++) {
        char ppath[SPEC_PATH_CAP];
        spec_path_index(ppath, sub, i);
        spec_param *p = &st->params[i];
        read_param(c, params->u.items[i], ppath, p);
        /* each <= 2^48: the sum is checked before it could overflow */
        if (st->numel + p->numel > SPEC_MAX_STAGE_NUMEL && st->numel <= SPEC_MAX_STAGE_NUMEL)
            SPEC_ERR(c, params->u.items[i], "%s: the stage's tensors add up to more than 2^60 elements", ppath);
        if (st->numel <= SPEC_MAX_STAGE_NUMEL)
            st->numel += p->numel;
        if (p->name)
            spec_name_list_add(&names, p->name, &p->pos);
    }
    spec_name_list_check(c, &names, "parameter name in this stage");
}

/* Returns false when model.stages disagrees with the pipeline's stage
 * count: the stages are still read and checked, but which count is meant
 * is unknown, so what depends on it (table lengths) is not checked. */
bool spec_read_model(spec_reader *c, const ydoc_node *m, bool stages_known)
{
    spec *s = c->s;
    if (!spec_check_map(c, m, "model", spec_model_keys))
        return true;
    const ydoc_node *stages = spec_require(c, m, "model", "stages", spec_model_keys);
    if (!stages)
        return true;
    char q[TEXT_QUOTE_CAP];
    if (stages->kind != YDOC_SEQ) {
        SPEC_ERR(c, stages, "model.stages must be a sequence of stages, got %s", spec_got(stages, q, sizeof q));
        return true;
    }
    if (stages->n == 0 || stages->n > SPEC_MAX_STAGES) {
        SPEC_ERR(c, stages, "model.stages must list 1 to %u stages, got %u", SPEC_MAX_STAGES, stages->n);
        return true;
    }
    bool count_ok = !stages_known || stages->n == s->n_stages;
    if (!count_ok)
        SPEC_ERR(c, stages,
                 "model.stages lists %u stage%s, but pipeline.ranks x pipeline.stages_per_rank = %u x %u = %zu",
                 stages->n, stages->n == 1 ? "" : "s", s->ranks, s->stages_per_rank, s->n_stages);
    uint64_t total = 0;
    for (uint32_t i = 0; i < stages->n; i++) {
        const ydoc_node *st = stages->u.items[i];
        const ydoc_node *params = st->kind == YDOC_MAP ? ydoc_get(st, "params") : NULL;
        if (params && params->kind == YDOC_SEQ)
            total += params->n;
    }
    if (total > SPEC_MAX_PARAMS) {
        SPEC_ERR(c, stages, "model.stages holds %llu parameter tensors, more than the limit of %u",
                 (unsigned long long)total, SPEC_MAX_PARAMS);
        return count_ok;
    }
    s->stages = arena_alloc_array(c->a, stages->n, sizeof *s->stages);
    spec_name_list names;
    if (!spec_name_list_init(&names, stages->n) || !s->stages) {
        spec_name_list_check(c, &names, "");
        spec_out_of_memory(c, stages);
        return count_ok;
    }
    for (uint32_t i = 0; i < stages->n && !diag_full(c->d); i++) {
        spec_stage *st = &s->stages[i];
        read_stage(c, stages->u.items[i], i, st);
        s->n_params += st->n_params;
        if (s->numel + st->numel > SPEC_MAX_TOTAL_NUMEL && s->numel <= SPEC_MAX_TOTAL_NUMEL)
            SPEC_ERR(c, stages->u.items[i], "model.stages[%u]: the model's tensors add up to more than 2^62 elements",
                     i);
        if (s->numel <= SPEC_MAX_TOTAL_NUMEL)
            s->numel += st->numel;
        if (st->name)
            spec_name_list_add(&names, st->name, &st->pos);
    }
    spec_name_list_check(c, &names, "stage name");
    if (!stages_known || !count_ok)
        s->n_stages = 0; /* unknown shape: the spec is invalid anyway */
    return count_ok;
}

/* pipeline.memory_limit_bytes is compared with activation bytes, so every
 * stage must give its model.stages[i].activation_bytes. */
void spec_check_memory_limit(spec_reader *c)
{
    const spec *s = c->s;
    if (!s->has_memory_limit || !s->stages)
        return;
    for (size_t i = 0; i < s->n_stages; i++)
        if (!s->stages[i].has_activation_bytes) {
            diag_error(c->d, c->file, s->pos_memory_limit.line, s->pos_memory_limit.col,
                       "pipeline.memory_limit_bytes is compared with activation memory: every stage needs "
                       "model.stages[i].activation_bytes, and stage %zu (%s) has none",
                       i, s->stages[i].name ? s->stages[i].name : "?");
            return;
        }
}

/* A rank's activation bytes are counted in 64 bits: every stage's bytes
 * times every microbatch, a bound on any rank's peak, must fit (2^63 bytes,
 * 8 EiB: far past any machine, so only a mistake reaches it). */
void spec_check_activation_total(spec_reader *c)
{
    const spec *s = c->s;
    if (!s->stages)
        return;
    uint64_t total = 0;
    for (size_t i = 0; i < s->n_stages; i++) {
        uint64_t all_mb;
        if (__builtin_mul_overflow(s->stages[i].activation_bytes, (uint64_t)s->microbatches, &all_mb) ||
            __builtin_add_overflow(total, all_mb, &total) || total > (UINT64_C(1) << 63)) {
            char which[64];
            snprintf(which, sizeof which, i ? "stages 0 to %zu" : "stage %zu", i);
            diag_error(c->d, c->file, s->stages[i].pos.line, s->stages[i].pos.col,
                       "the activations of all %u microbatches of %s pass 2^63 bytes (8 EiB) together, more than "
                       "tfc counts; activation_bytes is one microbatch's, in bytes",
                       s->microbatches, which);
            return;
        }
    }
}
