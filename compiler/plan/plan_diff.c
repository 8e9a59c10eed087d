/* plan_diff: plan.json read back (json_read), actions matched by (stage,
 * microbatch, type), differences beyond a tolerance listed. */
#define _POSIX_C_SOURCE 200809L
#include "plan_diff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "json.h"
#include "json_read.h"
#include "real.h"
#include "spec.h"
#include "text.h"

typedef struct loader {
    const char *path, *text;
    size_t len;
    diag_list *d;
} loader;

static bool bad(const loader *l, const jv *at, const char *what)
{
    unsigned line = 1, col = 1;
    if (at)
        text_position(l->text, l->len, at->off, &line, &col);
    diag_error(l->d, l->path, line, col, "not a tfc plan: %s", what);
    return false;
}

static bool get_num(const loader *l, const jv *obj, const char *key, double *v)
{
    const jv *x = jv_get_kind(obj, key, JV_NUM);
    if (!x) {
        char msg[96];
        snprintf(msg, sizeof msg, "\"%s\" is missing or not a number", key);
        return bad(l, obj, msg);
    }
    *v = x->num;
    return true;
}

static bool get_u32(const loader *l, const jv *obj, const char *key, uint32_t *v)
{
    double x = 0;
    if (!get_num(l, obj, key, &x))
        return false;
    if (x < 0 || x > 4294967295.0 || x != floor(x)) {
        char msg[96];
        snprintf(msg, sizeof msg, "\"%s\" is not a count", key);
        return bad(l, jv_get(obj, key), msg);
    }
    *v = (uint32_t)x;
    return true;
}

static bool get_str(const loader *l, const jv *obj, const char *key, const char **v)
{
    const jv *x = jv_get_kind(obj, key, JV_STR);
    if (!x) {
        char msg[96];
        snprintf(msg, sizeof msg, "\"%s\" is missing or not a string", key);
        return bad(l, obj, msg);
    }
    *v = x->str;
    return true;
}

tfc_status plan_doc_load(const char *path, arena *a, diag_list *d, plan_doc *out)
{
    char *buf;
    size_t len;
    tfc_status st = fio_read_all(path, PLAN_JSON_MAX_BYTES, &buf, &len, d);
    if (st != TFC_OK)
        return st;
    st = plan_doc_parse(path, buf, len, a, d, out);
    free(buf);
    return st;
}

tfc_status plan_doc_parse(const char *path, const char *buf, size_t len, arena *a, diag_list *d, plan_doc *out)
{
    memset(out, 0, sizeof *out);
    out->path = path;
    tfc_status st;
    char *text = arena_strndup(a, buf, len);
    if (!text)
        return diag_nomem(d, "reading %s", path);
    loader l = {path, text, len, d};
    jv *root;
    /* Format 1 had "stages" twice (the count, then the array). */
    st = json_parse(text, len, path, true, a, d, &root);
    if (st != TFC_OK)
        return st;
    if (root->kind != JV_OBJ)
        return bad(&l, root, "the file is not a JSON object"), TFC_INVALID;
    if (!get_str(&l, root, "format", &out->format))
        return TFC_INVALID;
    bool v1 = strcmp(out->format, "tfc-plan-1") == 0;
    if (!v1 && strcmp(out->format, "tfc-plan-2") != 0)
        return bad(&l, jv_get(root, "format"), "\"format\" is neither tfc-plan-1 nor tfc-plan-2"), TFC_INVALID;
    if (!v1) { /* format 2 has no key twice */
        for (size_t i = 0; i < root->n; i++)
            for (size_t j = 0; j < i; j++)
                if (strcmp(root->keys[i], root->keys[j]) == 0)
                    return bad(&l, &root->items[i], "a key appears twice (format tfc-plan-2 has none)"), TFC_INVALID;
    }
    const jv *stages = jv_get_kind(root, "stages", JV_ARR), *actions = jv_get_kind(root, "actions", JV_ARR);
    if (!get_str(&l, root, "tfc_version", &out->tfc_version) || !get_str(&l, root, "name", &out->name) ||
        !get_str(&l, root, "schedule", &out->schedule) || !get_u32(&l, root, "ranks", &out->ranks) ||
        !get_u32(&l, root, v1 ? "stages" : "stage_count", &out->stage_count) ||
        !get_u32(&l, root, "microbatches", &out->microbatches) ||
        !get_num(&l, root, "baseline_makespan_ms", &out->baseline_ms) ||
        !get_num(&l, root, "makespan_ms", &out->makespan_ms) || !get_num(&l, root, "speedup", &out->speedup))
        return TFC_INVALID;
    if (!stages || !actions)
        return bad(&l, root, "\"stages\" or \"actions\" is missing or not an array"), TFC_INVALID;
    if (stages->n != out->stage_count)
        return bad(&l, stages, "\"stages\" does not have one entry per stage"), TFC_INVALID;
    const jv *ttq = jv_get(root, "time_to_quality");
    if (ttq) {
        if (ttq->kind != JV_OBJ)
            return bad(&l, ttq, "\"time_to_quality\" is not an object"), TFC_INVALID;
        if (!get_num(&l, ttq, "predicted_speedup", &out->ttq_predicted) || !get_num(&l, ttq, "cap", &out->ttq_cap))
            return TFC_INVALID;
        out->has_ttq = true;
    }
    out->stage_mean = arena_alloc_array(a, stages->n ? stages->n : 1, sizeof *out->stage_mean);
    out->actions = arena_alloc_array(a, actions->n ? actions->n : 1, sizeof *out->actions);
    if (!out->stage_mean || !out->actions)
        return diag_nomem(d, "reading %s", path);
    for (size_t i = 0; i < stages->n; i++)
        if (!get_num(&l, &stages->items[i], "mean_freeze_ratio", &out->stage_mean[i]))
            return TFC_INVALID;
    for (size_t i = 0; i < actions->n; i++) {
        const jv *x = &actions->items[i];
        plan_doc_action *pa = &out->actions[i];
        const char *type = "";
        if (!get_u32(&l, x, "rank", &pa->rank) || !get_u32(&l, x, "stage", &pa->stage) ||
            !get_u32(&l, x, "microbatch", &pa->microbatch) || !get_str(&l, x, "type", &type) ||
            !get_num(&l, x, "start_ms", &pa->start_ms) || !get_num(&l, x, "duration_ms", &pa->duration_ms) ||
            !get_num(&l, x, "freeze_ratio", &pa->ratio))
            return TFC_INVALID;
        if (strlen(type) != 1 || !strchr("FBIW", type[0]))
            return bad(&l, jv_get(x, "type"), "an action's \"type\" is not F, B, I or W"), TFC_INVALID;
        pa->type = type[0];
    }
    out->n_actions = actions->n;
    out->text = text;
    out->freeze = jv_get(root, "freeze");
    out->stage_params = jv_get(root, "stage_params");
    return TFC_OK;
}

/* ---- comparing ---- */

static int key_cmp(const plan_doc_action *x, const plan_doc_action *y)
{
    if (x->stage != y->stage)
        return x->stage < y->stage ? -1 : 1;
    if (x->microbatch != y->microbatch)
        return x->microbatch < y->microbatch ? -1 : 1;
    return (x->type > y->type) - (x->type < y->type);
}

static const plan_doc_action *g_sort_base;
static int index_cmp(const void *p, const void *q)
{
    return key_cmp(&g_sort_base[*(const size_t *)p], &g_sort_base[*(const size_t *)q]);
}

/* Positions of doc's actions in key order (malloc'd). */
static size_t *by_key(const plan_doc *doc)
{
    size_t *ix = malloc((doc->n_actions ? doc->n_actions : 1) * sizeof *ix);
    if (!ix)
        return NULL;
    for (size_t i = 0; i < doc->n_actions; i++)
        ix[i] = i;
    g_sort_base = doc->actions;
    qsort(ix, doc->n_actions, sizeof *ix, index_cmp);
    return ix;
}

typedef struct change {
    const plan_doc_action *a, *b; /* b NULL: only in a; a NULL: only in b */
} change;

typedef struct plan_delta {
    bool header, makespans, ttq;
    /* The masks' inputs beside the ratios: the names of freeze's keys that
     * differ (or "freeze" itself), and the first stage whose tensors differ. */
    const char *freeze_keys[8];
    size_t n_freeze_keys;
    bool params;
    uint32_t params_stage;
    uint32_t stages_changed;
    change *changes;
    size_t n_changes, only_a, only_b, moved;
} plan_delta;

static bool differs(double x, double y, double tol) { return fabs(x - y) > tol; }

/* Which of the masks' inputs differ: freeze's keys by name (each key of
 * either plan whose value the other lacks or has otherwise), and the first
 * stage whose stage_params entry differs. */
static void mask_inputs(const plan_doc *a, const plan_doc *b, plan_delta *out)
{
    const jv *fa = a->freeze, *fb = b->freeze;
    if (!jv_equal(fa, a->text, fb, b->text)) {
        if (!fa || !fb || fa->kind != JV_OBJ || fb->kind != JV_OBJ) {
            out->freeze_keys[out->n_freeze_keys++] = "freeze";
        } else {
            const jv *side[2] = {fa, fb};
            for (int k = 0; k < 2; k++)
                for (size_t i = 0; i < side[k]->n; i++) {
                    const char *key = side[k]->keys[i];
                    const char *tk = k ? b->text : a->text, *to = k ? a->text : b->text;
                    if ((k == 1 && jv_get(fa, key)) || jv_equal(&side[k]->items[i], tk, jv_get(side[!k], key), to))
                        continue;
                    if (out->n_freeze_keys < sizeof out->freeze_keys / sizeof *out->freeze_keys)
                        out->freeze_keys[out->n_freeze_keys++] = key;
                }
        }
    }
    const jv *pa = a->stage_params, *pb = b->stage_params;
    if (!jv_equal(pa, a->text, pb, b->text)) {
        out->params = true;
        out->params_stage = 0;
        if (pa && pb && pa->kind == JV_ARR && pb->kind == JV_ARR)
            while (out->params_stage < pa->n && out->params_stage < pb->n &&
                   jv_equal(&pa->items[out->params_stage], a->text, &pb->items[out->params_stage], b->text))
                out->params_stage++;
    }
}

/* The differences; false when memory runs out. */
static bool delta(const plan_doc *a, const plan_doc *b, double tol, plan_delta *out)
{
    memset(out, 0, sizeof *out);
    out->header = strcmp(a->name, b->name) != 0 || strcmp(a->schedule, b->schedule) != 0 || a->ranks != b->ranks ||
                  a->stage_count != b->stage_count || a->microbatches != b->microbatches;
    out->makespans = differs(a->baseline_ms, b->baseline_ms, tol) || differs(a->makespan_ms, b->makespan_ms, tol) ||
                     differs(a->speedup, b->speedup, tol);
    for (uint32_t s = 0; s < a->stage_count && s < b->stage_count; s++)
        out->stages_changed += differs(a->stage_mean[s], b->stage_mean[s], tol);
    out->ttq = a->has_ttq != b->has_ttq || (a->has_ttq && (differs(a->ttq_predicted, b->ttq_predicted, tol) ||
                                                           differs(a->ttq_cap, b->ttq_cap, tol)));
    mask_inputs(a, b, out);
    size_t *ia = by_key(a), *ib = by_key(b);
    out->changes = malloc((a->n_actions + b->n_actions + 1) * sizeof *out->changes);
    if (!ia || !ib || !out->changes) {
        free(ia), free(ib), free(out->changes);
        out->changes = NULL;
        return false;
    }
    size_t i = 0, j = 0;
    while (i < a->n_actions || j < b->n_actions) {
        const plan_doc_action *x = i < a->n_actions ? &a->actions[ia[i]] : NULL;
        const plan_doc_action *y = j < b->n_actions ? &b->actions[ib[j]] : NULL;
        int c = !x ? 1 : !y ? -1 : key_cmp(x, y);
        if (c < 0) {
            out->changes[out->n_changes++] = (change){x, NULL};
            out->only_a++;
            i++;
        } else if (c > 0) {
            out->changes[out->n_changes++] = (change){NULL, y};
            out->only_b++;
            j++;
        } else {
            if (x->rank != y->rank || differs(x->ratio, y->ratio, tol) || differs(x->start_ms, y->start_ms, tol)) {
                out->changes[out->n_changes++] = (change){x, y};
                out->moved++;
            }
            i++, j++;
        }
    }
    free(ia), free(ib);
    return true;
}

static bool delta_any(const plan_delta *dl)
{
    return dl->header || dl->makespans || dl->ttq || dl->stages_changed || dl->n_changes || dl->n_freeze_keys ||
           dl->params;
}

/* "1.1869x predicted at cap 0.8", or "not predicted (no training section)". */
static void ttq_text(const plan_doc *p, char *out, size_t cap)
{
    if (p->has_ttq)
        snprintf(out, cap, "%sx predicted at cap %s", real_fixed(p->ttq_predicted, 4).s, real_shortest(p->ttq_cap).s);
    else
        snprintf(out, cap, "not predicted (no training section)");
}

int plan_diff_same(const plan_doc *a, const plan_doc *b, double tol)
{
    plan_delta dl;
    if (!delta(a, b, tol, &dl))
        return -1;
    bool same = !delta_any(&dl);
    free(dl.changes);
    return same ? 1 : 0;
}

static void action_name(const plan_doc_action *x, char *out, size_t cap)
{
    snprintf(out, cap, "%u%c%u (rank %u)", x->stage, x->type, x->microbatch, x->rank);
}

static void print_side(FILE *f, char side, const plan_doc *p)
{
    fprintf(f, "%c: %s: %s, %s, %u rank%s, %u stage%s, %u microbatch%s (%s, tfc %s)\n", side, p->path, p->name,
            p->schedule, p->ranks, p->ranks == 1 ? "" : "s", p->stage_count, p->stage_count == 1 ? "" : "s",
            p->microbatches, p->microbatches == 1 ? "" : "es", p->format, p->tfc_version);
}

static void print_text(const plan_doc *a, const plan_doc *b, const plan_delta *dl, double tol, FILE *f)
{
    print_side(f, 'A', a);
    print_side(f, 'B', b);
    if (!delta_any(dl)) {
        fprintf(f, "same plan (makespans, freezing, every action's ratio and start, and the predicted time to quality "
                   "within %s; the masks' inputs, freeze and stage_params, equal)\n", real_shortest(tol).s);
        return;
    }
    if (dl->header)
        fprintf(f, "different pipelines: actions are compared by (stage, microbatch, type)\n");
    fprintf(f, "baseline makespan   %12s ms -> %12s ms\n", real_fixed(a->baseline_ms, 3).s,
            real_fixed(b->baseline_ms, 3).s);
    real_text pct =
        real_fixed(a->makespan_ms > 0 ? 100.0 * (b->makespan_ms - a->makespan_ms) / a->makespan_ms : 0.0, 3);
    fprintf(f, "optimised makespan  %12s ms -> %12s ms  (%s%s%%)\n", real_fixed(a->makespan_ms, 3).s,
            real_fixed(b->makespan_ms, 3).s, pct.s[0] == '-' ? "" : "+", pct.s);
    fprintf(f, "speed-up            %12sx   -> %12sx\n", real_fixed(a->speedup, 4).s, real_fixed(b->speedup, 4).s);
    if (a->has_ttq || b->has_ttq) {
        char ta[160], tb[160];
        ttq_text(a, ta, sizeof ta);
        ttq_text(b, tb, sizeof tb);
        fprintf(f, "time to quality     %s -> %s\n", ta, tb);
    }
    for (uint32_t s = 0; s < a->stage_count || s < b->stage_count; s++) {
        bool ha = s < a->stage_count, hb = s < b->stage_count;
        if (ha && hb && !differs(a->stage_mean[s], b->stage_mean[s], tol))
            continue;
        fprintf(f, "stage %u mean freeze ", s);
        if (ha)
            fprintf(f, "%s", real_fixed(a->stage_mean[s], 4).s);
        else
            fprintf(f, "-");
        fprintf(f, " -> ");
        if (hb)
            fprintf(f, "%s\n", real_fixed(b->stage_mean[s], 4).s);
        else
            fprintf(f, "-\n");
    }
    if (dl->n_freeze_keys) {
        fprintf(f, "masks: freeze differs in");
        for (size_t i = 0; i < dl->n_freeze_keys; i++)
            fprintf(f, "%s %s", i ? "," : "", dl->freeze_keys[i]);
        fprintf(f, " (which tensors a ratio freezes, and from which step)\n");
    }
    if (dl->params)
        fprintf(f, "masks: stage_params differ from stage %u on (tensors, numels or freeze weights)\n",
                dl->params_stage);
    fprintf(f, "actions: %zu changed beyond %s (ratio or start), %zu only in A, %zu only in B\n", dl->moved,
            real_shortest(tol).s, dl->only_a, dl->only_b);
    size_t shown = 0;
    for (size_t i = 0; i < dl->n_changes && shown < 50; i++, shown++) {
        const change *c = &dl->changes[i];
        char name[64];
        action_name(c->a ? c->a : c->b, name, sizeof name);
        if (!c->b)
            fprintf(f, "  %s: only in A\n", name);
        else if (!c->a)
            fprintf(f, "  %s: only in B\n", name);
        else
            fprintf(f, "  %s: ratio %s -> %s, start %s -> %s ms%s\n", name, real_fixed(c->a->ratio, 6).s,
                    real_fixed(c->b->ratio, 6).s, real_fixed(c->a->start_ms, 3).s, real_fixed(c->b->start_ms, 3).s,
                    c->a->rank != c->b->rank ? ", on another rank" : "");
    }
    if (dl->n_changes > shown)
        fprintf(f, "  ... and %zu more (--json lists them all)\n", dl->n_changes - shown);
}

static void json_side(FILE *f, const plan_doc *p)
{
    fprintf(f, "{\"path\": ");
    json_string(f, p->path);
    fprintf(f, ", \"format\": ");
    json_string(f, p->format);
    fprintf(f, ", \"tfc_version\": ");
    json_string(f, p->tfc_version);
    fprintf(f, ", \"name\": ");
    json_string(f, p->name);
    fprintf(f, ", \"schedule\": ");
    json_string(f, p->schedule);
    fprintf(f, ", \"ranks\": %u, \"stage_count\": %u, \"microbatches\": %u, \"baseline_makespan_ms\": ", p->ranks,
            p->stage_count, p->microbatches);
    json_number(f, p->baseline_ms);
    fprintf(f, ", \"makespan_ms\": ");
    json_number(f, p->makespan_ms);
    fprintf(f, ", \"speedup\": ");
    json_number(f, p->speedup);
    fprintf(f, ", \"mean_freeze_ratio\": [");
    for (uint32_t s = 0; s < p->stage_count; s++) {
        fprintf(f, s ? ", " : "");
        json_number(f, p->stage_mean[s]);
    }
    fprintf(f, "], \"time_to_quality\": ");
    if (p->has_ttq) {
        fprintf(f, "{\"predicted_speedup\": ");
        json_number(f, p->ttq_predicted);
        fprintf(f, ", \"cap\": ");
        json_number(f, p->ttq_cap);
        fprintf(f, "}");
    } else {
        fprintf(f, "null");
    }
    fprintf(f, "}");
}

static void json_action(FILE *f, const plan_doc_action *x)
{
    if (!x) {
        fprintf(f, "null");
        return;
    }
    fprintf(f, "{\"rank\": %u, \"freeze_ratio\": ", x->rank);
    json_number(f, x->ratio);
    fprintf(f, ", \"start_ms\": ");
    json_number(f, x->start_ms);
    fprintf(f, ", \"duration_ms\": ");
    json_number(f, x->duration_ms);
    fprintf(f, "}");
}

/* "freeze.KEY" (or "freeze" where one plan has no freeze object) as a
 * JSON string. */
static void mask_key_json(FILE *f, const char *key)
{
    if (strcmp(key, "freeze") == 0) {
        fputs("\"freeze\"", f);
        return;
    }
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    if (m) {
        json_string(m, key);
        fclose(m);
    }
    /* json_string's text without its opening quote, after "freeze. */
    fprintf(f, "\"freeze.%s", text && len > 1 ? text + 1 : "\"");
    free(text);
}

static void print_json(const plan_doc *a, const plan_doc *b, const plan_delta *dl, double tol, FILE *f)
{
    fprintf(f, "{\n  \"format\": \"tfc-diff-1\",\n  \"same\": %s,\n  \"tolerance\": ", delta_any(dl) ? "false" : "true");
    json_number(f, tol);
    fprintf(f, ",\n  \"same_pipeline\": %s,\n  \"a\": ", dl->header ? "false" : "true");
    json_side(f, a);
    fprintf(f, ",\n  \"b\": ");
    json_side(f, b);
    fprintf(f, ",\n  \"mask_inputs_changed\": [");
    for (size_t i = 0; i < dl->n_freeze_keys; i++) {
        fprintf(f, "%s", i ? ", " : "");
        mask_key_json(f, dl->freeze_keys[i]);
    }
    if (dl->params)
        fprintf(f, "%s\"stage_params\"", dl->n_freeze_keys ? ", " : "");
    fprintf(f, "]");
    fprintf(f, ",\n  \"actions_changed\": %zu, \"only_in_a\": %zu, \"only_in_b\": %zu,\n  \"actions\": [", dl->moved,
            dl->only_a, dl->only_b);
    for (size_t i = 0; i < dl->n_changes; i++) {
        const change *c = &dl->changes[i];
        const plan_doc_action *k = c->a ? c->a : c->b;
        fprintf(f, "%s\n    {\"stage\": %u, \"microbatch\": %u, \"type\": \"%c\", \"a\": ", i ? "," : "", k->stage,
                k->microbatch, k->type);
        json_action(f, c->a);
        fprintf(f, ", \"b\": ");
        json_action(f, c->b);
        fprintf(f, "}");
    }
    fprintf(f, "%s]\n}\n", dl->n_changes ? "\n  " : "");
}

int plan_diff_print(const plan_doc *a, const plan_doc *b, double tol, bool json, FILE *out)
{
    plan_delta dl;
    if (!delta(a, b, tol, &dl))
        return -1;
    if (json)
        print_json(a, b, &dl, tol, out);
    else
        print_text(a, b, &dl, tol, out);
    bool any = delta_any(&dl);
    free(dl.changes);
    return any ? 1 : 0;
}
