/* spec_timing: the timing section: per-stage tables as written, computed
 * by the cost model (timing.source: model), or the names of measured
 * timing files (measured, trace), and the rules that tie the tables to
 * the schedule (spec_read.h). */
#include "spec.h"

#include <stdio.h>

#include "cost_model.h"
#include "real.h"
#include "spec_names.h"
#include "spec_read.h"
#include "text.h"

/* A per-stage table: a sequence of n numbers, or one number for every stage. */
static double *read_table(spec_reader *c, const ydoc_node *n, const char *path, size_t stages, double min,
                          bool min_open)
{
    char q[TEXT_QUOTE_CAP];
    double *out = NULL;
    if (stages)
        out = arena_alloc_array(c->a, stages, sizeof *out);
    if (stages && !out) {
        spec_out_of_memory(c, n);
        return NULL;
    }
    if (n->kind == YDOC_SCALAR) {
        double v;
        if (!spec_get_number(c, n, path, min, min_open, SPEC_MAX_MS, &v) || !stages)
            return NULL;
        for (size_t i = 0; i < stages; i++)
            out[i] = v;
        return out;
    }
    if (n->kind != YDOC_SEQ) {
        SPEC_ERR(c, n, "%s must be a sequence of numbers (one per stage) or one number, got %s", path,
                 spec_got(n, q, sizeof q));
        return NULL;
    }
    if (stages && n->n != stages) {
        SPEC_ERR(c, n, "%s has %u entr%s, but the pipeline has %zu stages", path, n->n, n->n == 1 ? "y" : "ies",
                 stages);
        return NULL;
    }
    bool ok = true;
    for (uint32_t i = 0; i < n->n && !diag_full(c->d); i++) {
        char sub[SPEC_PATH_CAP];
        spec_path_index(sub, path, i);
        double v = 0;
        const ydoc_node *item = n->u.items[i];
        if (item->kind != YDOC_SCALAR) {
            SPEC_ERR(c, item, "%s must be a number, got %s", sub, spec_got(item, q, sizeof q));
            ok = false;
            continue;
        }
        if (!spec_get_number(c, item, sub, min, min_open, SPEC_MAX_MS, &v))
            ok = false;
        else if (out)
            out[i] = v;
    }
    return ok ? out : NULL;
}

/* timing.transformer.stage_layers: n layer counts, each >= 1, summing to
 * timing.transformer.layers (how an importer split the model). */
static const uint64_t *read_stage_layers(spec_reader *c, const ydoc_node *v, size_t n, uint64_t layers)
{
    const char *path = "timing.transformer.stage_layers";
    char q[TEXT_QUOTE_CAP];
    if (v->kind != YDOC_SEQ) {
        SPEC_ERR(c, v, "%s must be a sequence of integers (layers per stage), got %s", path, spec_got(v, q, sizeof q));
        return NULL;
    }
    if (v->n != n) {
        SPEC_ERR(c, v, "%s has %u entr%s, but the pipeline has %zu stages", path, v->n, v->n == 1 ? "y" : "ies", n);
        return NULL;
    }
    uint64_t *out = arena_alloc_array(c->a, n, sizeof *out);
    if (!out) {
        spec_out_of_memory(c, v);
        return NULL;
    }
    uint64_t sum = 0;
    bool ok = true;
    for (uint32_t i = 0; i < v->n; i++) {
        char sub[SPEC_PATH_CAP];
        spec_path_index(sub, path, i);
        const ydoc_node *item = v->u.items[i];
        if (item->kind != YDOC_SCALAR) {
            SPEC_ERR(c, item, "%s must be an integer, got %s", sub, spec_got(item, q, sizeof q));
            ok = false;
        } else if (!spec_get_uint(c, item, sub, 1, layers, &out[i])) {
            ok = false;
        } else {
            sum += out[i];
        }
    }
    if (ok && sum != layers) {
        SPEC_ERR(c, v, "%s sums to %llu layers, but timing.transformer.layers is %llu", path, (unsigned long long)sum,
                 (unsigned long long)layers);
        ok = false;
    }
    return ok ? out : NULL;
}

/* timing.source: model: the tables from the transformer's shape and the
 * device (cost_model.c): B = 2 F (input and weight gradients each about
 * the forward), B frozen = F, I = W = F. */
static void read_cost_model(spec_reader *c, const ydoc_node *t, size_t n)
{
    spec_timing *tm = &c->s->timing;
    static const char *const tables[] = {"forward_ms", "backward_ms", "backward_frozen_ms", "backward_input_ms",
                                         "backward_weight_ms", "backward_weight_frozen_ms", NULL};
    for (size_t i = 0; tables[i]; i++) {
        const ydoc_node *v = ydoc_get(t, tables[i]);
        if (v)
            SPEC_ERR(c, v, "timing.%s is computed by the cost model (timing.source: model); remove it", tables[i]);
    }
    static const char *const measured[] = {"file", "frozen_file", "scale", NULL};
    for (size_t i = 0; measured[i]; i++) {
        const ydoc_node *v = ydoc_get(t, measured[i]);
        if (v)
            SPEC_ERR(c, v, "timing.%s is for measured timings, not the cost model (timing.source: model); remove it",
                     measured[i]);
    }
    const ydoc_node *tr = spec_require(c, t, "timing", "transformer", spec_timing_keys);
    const ydoc_node *dv = spec_require(c, t, "timing", "device", spec_timing_keys);
    const ydoc_node *v;
    if ((v = ydoc_get(t, "comm_ms")))
        spec_get_number(c, v, "timing.comm_ms", 0.0, false, SPEC_MAX_MS, &tm->comm_ms);
    if (!tr || !dv || !spec_check_map(c, tr, "timing.transformer", spec_transformer_keys) ||
        !spec_check_map(c, dv, "timing.device", spec_device_keys))
        return;
    cost_model m = {0};
    uint64_t *f[] = {&m.layers, &m.hidden, &m.ffn, &m.heads, &m.kv_heads, &m.vocab, &m.seq_len, &m.microbatch_size};
    const uint64_t max[] = {100000, 1u << 20, 1u << 22, 4096, 4096, 1u << 24, 1u << 22, 1u << 20};
    bool ok = true;
    char path[64];
    for (size_t i = 0; i < SPEC_TRANSFORMER_REQUIRED; i++) {
        snprintf(path, sizeof path, "timing.transformer.%s", spec_transformer_keys[i]);
        if ((v = spec_require(c, tr, "timing.transformer", spec_transformer_keys[i], spec_transformer_keys)))
            ok = spec_get_uint(c, v, path, 1, max[i], f[i]) && ok;
        else
            ok = false;
    }
    if ((v = spec_require(c, dv, "timing.device", "peak_tflops", spec_device_keys)))
        ok = spec_get_number(c, v, "timing.device.peak_tflops", 0.0, true, 1e6, &m.peak_tflops) && ok;
    else
        ok = false;
    if ((v = spec_require(c, dv, "timing.device", "mfu", spec_device_keys)))
        ok = spec_get_number(c, v, "timing.device.mfu", 0.0, true, 1.0, &m.mfu) && ok;
    else
        ok = false;
    if (!ok)
        return;
    tm->vocab = m.vocab;
    if (m.heads % m.kv_heads) {
        SPEC_ERR(c, ydoc_get(tr, "kv_heads"), "timing.transformer.kv_heads (%llu) must divide heads (%llu)",
                 (unsigned long long)m.kv_heads, (unsigned long long)m.heads);
        return;
    }
    if (n && m.layers < n) {
        SPEC_ERR(c, ydoc_get(tr, "layers"),
                 "timing.transformer.layers (%llu) is fewer than the %zu stages: every stage "
                 "needs a layer",
                 (unsigned long long)m.layers, n);
        return;
    }
    if (!n)
        return;
    if ((v = ydoc_get(tr, "stage_layers")) && !(m.stage_layers = read_stage_layers(c, v, n, m.layers)))
        return;
    double **out[] = {&tm->forward_ms, &tm->backward_ms, &tm->backward_frozen_ms, &tm->backward_input_ms,
                      &tm->backward_weight_ms, &tm->backward_weight_frozen_ms};
    for (size_t k = 0; k < 6; k++)
        if (!(*out[k] = arena_alloc_array(c->a, n, sizeof(double)))) {
            spec_out_of_memory(c, t);
            return;
        }
    for (size_t st = 0; st < n; st++) {
        cost_stage_ms ms = cost_model_stage_ms(&m, n, st, SPEC_W_FLOOR_SHARE);
        if (!(ms.forward > 0) || ms.forward > SPEC_MAX_MS) {
            SPEC_ERR(c, t, "the cost model gives stage %zu a forward of %s ms, outside (0, %s]", st,
                     real_shortest(ms.forward).s, real_shortest(SPEC_MAX_MS).s);
            return;
        }
        tm->forward_ms[st] = ms.forward;
        tm->backward_ms[st] = ms.backward;
        tm->backward_frozen_ms[st] = ms.backward_frozen;
        tm->backward_input_ms[st] = ms.input;
        tm->backward_weight_ms[st] = ms.weight;
        tm->backward_weight_frozen_ms[st] = ms.weight_frozen;
    }
    tm->model = m;
    tm->has_model = true;
}

/* timing.file or timing.frozen_file: one path, kept as it always was, or a
 * sequence of paths (each checked as a path on its own, errors at the
 * item), none repeated: a repeat would count its samples twice. */
static void read_files(spec_reader *c, const ydoc_node *v, const char *key, spec_files *out)
{
    char path[SPEC_PATH_CAP], q[TEXT_QUOTE_CAP];
    spec_path_key(path, "timing", key);
    out->at = (spec_pos){v->line, v->col};
    if (v->kind != YDOC_SEQ) {
        if (v->kind == YDOC_MAP) {
            SPEC_ERR(c, v, "%s must be a path or a sequence of paths, got %s", path, spec_got(v, q, sizeof q));
            return;
        }
        out->path = arena_alloc_array(c->a, 1, sizeof *out->path);
        out->pos = arena_alloc_array(c->a, 1, sizeof *out->pos);
        if (!out->path || !out->pos) {
            spec_out_of_memory(c, v);
            return;
        }
        out->pos[0] = out->at;
        if ((out->path[0] = spec_get_string(c, v, path, SPEC_MAX_PATH_BYTES)))
            out->n = 1;
        return;
    }
    out->listed = true;
    if (v->n == 0) {
        SPEC_ERR(c, v, "%s must list at least one file", path);
        return;
    }
    if (v->n > SPEC_MAX_TIMING_FILES) {
        SPEC_ERR(c, v->u.items[SPEC_MAX_TIMING_FILES], "%s lists %u files, more than the limit of %u", path, v->n,
                 SPEC_MAX_TIMING_FILES);
        return;
    }
    out->path = arena_alloc_array(c->a, v->n, sizeof *out->path);
    out->pos = arena_alloc_array(c->a, v->n, sizeof *out->pos);
    spec_name_list names;
    bool names_ok = spec_name_list_init(&names, v->n);
    if (!out->path || !out->pos || !names_ok) {
        spec_name_list_check(c, &names, "");
        spec_out_of_memory(c, v);
        return;
    }
    size_t errors = diag_count(c->d);
    uint32_t i = 0;
    for (; i < v->n && !diag_full(c->d); i++) {
        const ydoc_node *item = v->u.items[i];
        char at[SPEC_PATH_CAP];
        spec_path_index(at, path, i);
        out->pos[i] = (spec_pos){item->line, item->col};
        if ((out->path[i] = spec_get_string(c, item, at, SPEC_MAX_PATH_BYTES)))
            spec_name_list_add(&names, out->path[i], &out->pos[i]);
    }
    char what[SPEC_PATH_CAP + 8];
    snprintf(what, sizeof what, "%s path", path);
    spec_name_list_check(c, &names, what);
    if (i == v->n && diag_count(c->d) == errors)
        out->n = v->n;
}

/* timing.source: measured or trace: files of samples, read with the
 * schedule (timing_csv.c); here only their names. */
static void read_measured(spec_reader *c, const ydoc_node *t)
{
    spec_timing *tm = &c->s->timing;
    static const char *const not_here[] = {"forward_ms", "backward_ms", "backward_frozen_ms", "backward_input_ms",
                                           "backward_weight_ms", "backward_weight_frozen_ms", "transformer",
                                           "device", NULL};
    for (size_t i = 0; not_here[i]; i++) {
        const ydoc_node *v = ydoc_get(t, not_here[i]);
        if (v)
            SPEC_ERR(c, v, "timing.%s does not go with measured timings (the durations come from timing.file)",
                     not_here[i]);
    }
    const ydoc_node *v;
    if ((v = spec_require(c, t, "timing", "file", spec_timing_keys)))
        read_files(c, v, "file", &tm->file);
    if ((v = spec_require(c, t, "timing", "frozen_file", spec_timing_keys)))
        read_files(c, v, "frozen_file", &tm->frozen_file);
    if ((v = ydoc_get(t, "comm_ms")))
        spec_get_number(c, v, "timing.comm_ms", 0.0, false, SPEC_MAX_MS, &tm->comm_ms);
    if ((v = ydoc_get(t, "scale"))) {
        tm->scale_at = (spec_pos){v->line, v->col};
        spec_get_number(c, v, "timing.scale", 0.0, true, SPEC_MAX_TIMING_SCALE, &tm->scale);
    }
}

/* stages_known: the pipeline's schedule and stage count are valid; n: the
 * stage count the tables must have, 0 when it is unknown (not checked). */
void spec_read_timing(spec_reader *c, const ydoc_node *t, bool stages_known, size_t n)
{
    spec *s = c->s;
    spec_timing *tm = &s->timing;
    if (!spec_check_map(c, t, "timing", spec_timing_keys))
        return;
    s->pos_timing = (spec_pos){t->line, t->col};
    const ydoc_node *v;
    if ((v = ydoc_get(t, "source"))) {
        static const char *const sources[] = {"table", "model", "measured", "trace", NULL};
        int src = spec_get_enum(c, v, "timing.source", sources);
        if (src < 0)
            return;
        tm->source = (spec_timing_source)src;
        if (tm->source == TIMING_MODEL) {
            read_cost_model(c, t, n);
            return;
        }
        if (tm->source == TIMING_MEASURED || tm->source == TIMING_TRACE) {
            read_measured(c, t);
            return;
        }
    }
    const ydoc_node *tr = ydoc_get(t, "transformer"), *dv = ydoc_get(t, "device");
    if (tr || dv)
        SPEC_ERR(c, tr ? tr : dv, "timing.%s is for the cost model: add timing.source: model",
                 tr ? "transformer" : "device");
    const ydoc_node *tf = ydoc_get(t, "file"), *tff = ydoc_get(t, "frozen_file"), *sc = ydoc_get(t, "scale");
    if (tf || tff || sc)
        SPEC_ERR(c, tf ? tf : tff ? tff : sc,
                 "timing.%s is for measured timings: add timing.source: measured (or trace)",
                 tf ? "file" : tff ? "frozen_file" : "scale");
    if ((v = spec_require(c, t, "timing", "forward_ms", spec_timing_keys)))
        tm->forward_ms = read_table(c, v, "timing.forward_ms", n, 0.0, true);
    const ydoc_node *b = ydoc_get(t, "backward_ms");
    const ydoc_node *bf = ydoc_get(t, "backward_frozen_ms");
    const ydoc_node *bi = ydoc_get(t, "backward_input_ms");
    const ydoc_node *bw = ydoc_get(t, "backward_weight_ms");
    if (b)
        tm->backward_ms = read_table(c, b, "timing.backward_ms", n, 0.0, true);
    if (bf)
        tm->backward_frozen_ms = read_table(c, bf, "timing.backward_frozen_ms", n, 0.0, false);
    if (bi)
        tm->backward_input_ms = read_table(c, bi, "timing.backward_input_ms", n, 0.0, true);
    if (bw)
        tm->backward_weight_ms = read_table(c, bw, "timing.backward_weight_ms", n, 0.0, false);
    const ydoc_node *bwf = ydoc_get(t, "backward_weight_frozen_ms");
    if (bwf)
        tm->backward_weight_frozen_ms = read_table(c, bwf, "timing.backward_weight_frozen_ms", n, 0.0, false);
    if ((v = ydoc_get(t, "comm_ms")))
        spec_get_number(c, v, "timing.comm_ms", 0.0, false, SPEC_MAX_MS, &tm->comm_ms);

    /* A key written with a typo has had its "did you mean" (spec_check_map):
     * the rules below take it as given, so as not to say it is missing. */
    bool has_b = b || spec_misspelt_in(t, "backward_ms", spec_timing_keys);
    bool has_bf = bf || spec_misspelt_in(t, "backward_frozen_ms", spec_timing_keys);
    bool has_bi = bi || spec_misspelt_in(t, "backward_input_ms", spec_timing_keys);
    bool has_bw = bw || spec_misspelt_in(t, "backward_weight_ms", spec_timing_keys);
    if (bwf && !has_bw)
        SPEC_ERR(c, bwf, "timing.backward_weight_frozen_ms needs timing.backward_weight_ms");
    bool full_half = (bf && !has_b) || (b && !has_bf), split_half = (bi && !has_bw) || (bw && !has_bi);
    if (bf && !has_b)
        SPEC_ERR(c, bf, "timing.backward_frozen_ms needs timing.backward_ms (the unfrozen backward it shortens)");
    if (b && !has_bf)
        SPEC_ERR(c, b, "timing.backward_ms needs timing.backward_frozen_ms (the same backward with every "
                       "parameter frozen)");
    if (split_half)
        SPEC_ERR(c, bi ? bi : bw, "timing.backward_input_ms and timing.backward_weight_ms go together");

    /* What the schedule needs, where a pair's error above has not said it
     * already (half of it given); naming only the keys that are missing. */
    if (stages_known) {
        bool split = spec_schedule_is_split(s->schedule);
        const char *name = spec_schedule_names[s->schedule];
        if (split && !split_half && !(has_bi && has_bw))
            SPEC_ERR(c, t, "schedule %s splits the backward: timing needs %s", name,
                     !has_bi && !has_bw ? "backward_input_ms and backward_weight_ms"
                     : !has_bi          ? "backward_input_ms"
                                        : "backward_weight_ms");
        if (!split && s->schedule != SCHED_CUSTOM && !full_half && !(has_b && has_bf))
            SPEC_ERR(c, t, "schedule %s needs %s", name,
                     !has_b && !has_bf ? "timing.backward_ms and timing.backward_frozen_ms"
                     : !has_b          ? "timing.backward_ms"
                                       : "timing.backward_frozen_ms");
        if (s->schedule == SCHED_CUSTOM && !full_half && !split_half && !(has_b && has_bf) && !(has_bi && has_bw))
            SPEC_ERR(c, t, "a custom schedule needs backward_ms and backward_frozen_ms, or backward_input_ms "
                           "and backward_weight_ms");
    }
    if (tm->backward_weight_ms && tm->backward_weight_frozen_ms) {
        for (size_t i = 0; i < n && !diag_full(c->d); i++) {
            if (tm->backward_weight_frozen_ms[i] > tm->backward_weight_ms[i]) {
                const ydoc_node *at = bwf->kind == YDOC_SEQ ? bwf->u.items[i] : bwf;
                SPEC_ERR(c, at,
                         "timing.backward_weight_frozen_ms[%zu] = %s is longer than "
                         "timing.backward_weight_ms[%zu] = %s",
                         i, real_shortest(tm->backward_weight_frozen_ms[i]).s, i,
                         real_shortest(tm->backward_weight_ms[i]).s);
                if (bwf->kind != YDOC_SEQ)
                    break;
            }
        }
    }
    if (tm->backward_ms && tm->backward_frozen_ms) {
        for (size_t i = 0; i < n && !diag_full(c->d); i++) {
            if (tm->backward_frozen_ms[i] > tm->backward_ms[i]) {
                const ydoc_node *at = bf->kind == YDOC_SEQ ? bf->u.items[i] : bf;
                SPEC_ERR(c, at, "timing.backward_frozen_ms[%zu] = %s is longer than timing.backward_ms[%zu] = %s; "
                                "freezing cannot make a backward slower",
                         i, real_shortest(tm->backward_frozen_ms[i]).s, i, real_shortest(tm->backward_ms[i]).s);
                if (bf->kind != YDOC_SEQ)
                    break;
            }
        }
    }
}
