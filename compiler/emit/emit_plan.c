/* emit_plan: the plan as files people and other tools read: plan.json
 * (docs/plan-json.md), schedule.csv (PyTorch's compute-only pipeline CSV,
 * one row per rank), timeline.json (Chrome trace events: one process per
 * plan, one thread per rank) and timeline.svg (a Gantt chart). */
#define _POSIX_C_SOURCE 200809L
#include "emit_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "json.h"
#include "plan_print.h"
#include "real.h"

static bool plan_json(const emit_ctx *c, gen_folder *out)
{
    gen_writer w;
    if (!gen_open(&w))
        return false;
    plan_print_json(c->p, w.f);
    return gen_close(out, "plan.json", &w);
}

static bool schedule_csv(const emit_ctx *c, gen_folder *out)
{
    const sched *s = c->p->s;
    gen_writer w;
    if (!gen_open(&w))
        return false;
    for (uint32_t r = 0; r < s->ranks; r++) {
        sched_write_rank(s, r, w.f);
        fputc('\n', w.f);
    }
    return gen_close(out, "schedule.csv", &w);
}

/* Microseconds, the trace format's unit, from milliseconds. */
static void trace_us(FILE *f, double ms) { json_number(f, ms * 1000.0); }

static bool timeline_json(const emit_ctx *c, gen_folder *out, diag_list *d)
{
    const plan *p = c->p;
    const sched *s = p->s;
    gen_writer w;
    if (!gen_open(&w))
        return false;
    const char *names[2] = {"baseline (nothing frozen)", "optimised"};
    bool first = true;
    for (int pid = 0; pid < 2; pid++) {
        fprintf(w.f, "%s    {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"tid\": 0, \"args\": {\"name\": ",
                first ? "" : ",\n", pid + 1);
        json_string(w.f, names[pid]);
        fputs("}}", w.f);
        first = false;
        for (uint32_t r = 0; r < s->ranks; r++)
            fprintf(w.f, ",\n    {\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %d, \"tid\": %u, \"args\": "
                         "{\"name\": \"rank %u\"}}",
                    pid + 1, r, r);
        for (size_t i = 0; i < s->n_actions; i++) {
            char name[32];
            const sched_action *a = &s->actions[i];
            double start = pid ? p->opt.start[i] : p->base.start[i];
            double dur = pid ? p->opt_dur[i] : p->dur[i];
            fprintf(w.f, ",\n    {\"ph\": \"X\", \"name\": \"%s\", \"cat\": \"%c\", \"pid\": %d, \"tid\": %u, \"ts\": ",
                    sched_action_name(s, i, name, sizeof name), sched_act_letter(a->type), pid + 1, s->rank_of[i]);
            trace_us(w.f, start);
            fputs(", \"dur\": ", w.f);
            trace_us(w.f, dur);
            fprintf(w.f, ", \"args\": {\"stage\": %u, \"microbatch\": %u, \"freeze_ratio\": ", a->stage, a->mb);
            json_number(w.f, pid ? p->x[i] : 0.0);
            fputs("}}", w.f);
        }
    }
    char *events = emit_block_close(&w);
    if (!events) {
        diag_nomem(d, "writing the plan files");
        return false;
    }
    gen_writer v;
    char base_ms[48], opt_ms[48];
    bool ok = gen_open(&v);
    char *nums = NULL;
    if (ok) {
        json_number(v.f, p->base.makespan);
        fputc('\n', v.f);
        json_number(v.f, p->opt.makespan);
        nums = emit_block_close(&v);
        ok = nums && sscanf(nums, "%47s %47s", base_ms, opt_ms) == 2;
    }
    free(nums);
    if (ok) {
        emit_vars vs = {0};
        emit_common_vars(c, &vs);
        emit_var(&vs, "BASE_MS", base_ms);
        emit_var(&vs, "OPT_MS", opt_ms);
        emit_var(&vs, "EVENTS", events);
        ok = emit_render(out, "timeline.json", "timeline.json.in", &vs, d);
    } else {
        diag_nomem(d, "writing the plan files");
    }
    free(events);
    return ok;
}

/* ---- timeline.svg ---- */

/* A colour per stage (ten, then again: the stages of one rank never share
 * one in ZBV, and in Interleaved1F1B unless ranks x k is a multiple of
 * ten), shaded per action type: F as it is, B and I darker, W lighter. */
static const unsigned stage_hue[10] = {0x4c78a8, 0xf58518, 0x54a24b, 0xe45756, 0x72b7b2,
                                       0xb279a2, 0xff9da6, 0x9d755d, 0x8c8c8c, 0xeeca3b};
static const char *const type_word[ACT_TYPES] = {"forward", "backward", "input grad", "weight grad"};

static void fill_of(uint32_t stage, act_type t, char out[8])
{
    unsigned c = stage_hue[stage % 10], rgb[3] = {c >> 16, (c >> 8) & 0xff, c & 0xff};
    for (int k = 0; k < 3; k++) {
        if (t == ACT_B || t == ACT_I)
            rgb[k] = rgb[k] * 3 / 4; /* darker */
        else if (t == ACT_W)
            rgb[k] = rgb[k] + (255 - rgb[k]) * 9 / 20; /* lighter */
    }
    snprintf(out, 8, "#%02x%02x%02x", rgb[0] & 0xffu, rgb[1] & 0xffu, rgb[2] & 0xffu);
}

/* Overall bubble: idle time over ranks x makespan. */
static double bubble(const sim_result *r, uint32_t ranks)
{
    double idle = 0;
    for (uint32_t k = 0; k < ranks; k++)
        idle += r->idle[k];
    return r->makespan > 0 ? idle / (r->makespan * ranks) : 0.0;
}

static void svg_panel(const emit_ctx *c, FILE *f, int which, double y0, double x0, double scale, double row_h)
{
    const plan *p = c->p;
    const sched *s = p->s;
    const sim_result *r = which ? &p->opt : &p->base;
    fprintf(f, "  <text x=\"%s\" y=\"%s\" font-size=\"12\" font-weight=\"bold\">%s: makespan %s ms, bubble %s%%",
            real_fixed(x0, 1).s, real_fixed(y0 - 8, 1).s, which ? "optimised" : "baseline",
            real_fixed(r->makespan, 3).s, real_fixed(100.0 * bubble(r, s->ranks), 1).s);
    if (which)
        fprintf(f, " (policy %s, %sx faster)", plan_policy_name(p->policy),
                real_fixed(p->opt.makespan > 0 ? p->base.makespan / p->opt.makespan : 1.0, 3).s);
    else
        fputs(" (nothing frozen)", f);
    fputs("</text>\n", f);
    for (uint32_t k = 0; k < s->ranks; k++) {
        double y = y0 + k * row_h;
        fprintf(f, "  <text x=\"%s\" y=\"%s\" text-anchor=\"end\">rank %u</text>\n", real_fixed(x0 - 6, 1).s,
                real_fixed(y + row_h * 0.65, 1).s, k);
        fprintf(f, "  <rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"#f2f2f2\"/>\n", real_fixed(x0, 1).s,
                real_fixed(y + 1, 1).s, real_fixed(r->makespan * scale, 1).s, real_fixed(row_h - 2, 1).s);
    }
    for (size_t i = 0; i < s->n_actions; i++) {
        const sched_action *a = &s->actions[i];
        double dur = which ? p->opt_dur[i] : p->dur[i];
        double x = x0 + r->start[i] * scale, wd = dur * scale, y = y0 + s->rank_of[i] * row_h + 2;
        char name[32];
        sched_action_name(s, i, name, sizeof name);
        fprintf(f, "  <g><title>%s rank %u: %s-%s ms", name, s->rank_of[i], real_fixed(r->start[i], 3).s,
                real_fixed(r->start[i] + dur, 3).s);
        if (which && p->freezable[i])
            fprintf(f, ", freeze ratio %s", real_fixed(p->x[i], 3).s);
        fputs("</title>", f);
        char colour[8];
        fill_of(a->stage, (act_type)a->type, colour);
        fprintf(f,
                "<rect class=\"act %c\" x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"%s\" "
                "stroke=\"#ffffff\" stroke-width=\"0.6\"/>",
                sched_act_letter((act_type)a->type), real_fixed(x, 2).s, real_fixed(y, 1).s, real_fixed(wd, 2).s,
                real_fixed(row_h - 4, 1).s, colour);
        if (which && p->freezable[i] && p->x[i] > 0) {
            /* Hatched: the freeze ratio's share of the bar, at its end. */
            double share = p->x[i] > 1 ? 1 : p->x[i];
            fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" fill=\"url(#frozen)\"/>",
                    real_fixed(x + wd * (1 - share), 2).s, real_fixed(y, 1).s, real_fixed(wd * share, 2).s,
                    real_fixed(row_h - 4, 1).s);
        }
        if (wd >= 7.0 * (double)strlen(name))
            fprintf(f, "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\" fill=\"%s\" font-size=\"10\">%s</text>",
                    real_fixed(x + wd / 2, 2).s, real_fixed(y + (row_h - 4) * 0.7, 1).s,
                    a->type == ACT_W ? "#222222" : "#ffffff", name);
        fputs("</g>\n", f);
    }
}

/* Two legend rows under the title: the stages' colours; then the action
 * types the schedule has (shaded as drawn, in stage 0's colour), the
 * hatching when anything is frozen, and the makespan line. */
static void svg_legend(const emit_ctx *c, FILE *f, double x0)
{
    const plan *p = c->p;
    const sched *s = p->s;
    bool present[ACT_TYPES] = {false}, frozen = false;
    for (size_t i = 0; i < s->n_actions; i++) {
        present[s->actions[i].type] = true;
        frozen = frozen || (p->freezable[i] && p->x[i] > 0);
    }
    double x = x0, y = 30;
    fprintf(f, "  <g class=\"legend stages\"><text x=\"%s\" y=\"%s\">stage</text>", real_fixed(x, 1).s,
            real_fixed(y + 10, 1).s);
    x += 40;
    for (uint32_t st = 0; st < s->n_stages && st < 40; st++) {
        char colour[8];
        fill_of(st, ACT_F, colour);
        fprintf(f, "<rect x=\"%s\" y=\"%s\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                   "<text x=\"%s\" y=\"%s\">%u</text>",
                real_fixed(x, 1).s, real_fixed(y, 1).s, colour, real_fixed(x + 15, 1).s, real_fixed(y + 10, 1).s, st);
        x += st < 10 ? 30 : 36;
    }
    if (s->n_stages > 40)
        fprintf(f, "<text x=\"%s\" y=\"%s\">... (colours repeat every 10 stages)</text>", real_fixed(x, 1).s,
                real_fixed(y + 10, 1).s);
    fputs("</g>\n", f);
    x = x0, y = 48;
    fputs("  <g class=\"legend types\">", f);
    for (int t = 0; t < ACT_TYPES; t++) {
        if (!present[t])
            continue;
        char colour[8];
        fill_of(0, (act_type)t, colour);
        fprintf(f,
                "<rect class=\"key %c\" x=\"%s\" y=\"%s\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                "<text x=\"%s\" y=\"%s\">%c %s</text>",
                sched_act_letter((act_type)t), real_fixed(x, 1).s, real_fixed(y, 1).s, colour, real_fixed(x + 16, 1).s,
                real_fixed(y + 10, 1).s, sched_act_letter((act_type)t), type_word[t]);
        x += 30 + 7.0 * (double)strlen(type_word[t]);
    }
    if (frozen) {
        char colour[8];
        fill_of(0, present[ACT_W] ? ACT_W : ACT_B, colour);
        fprintf(f,
                "<rect class=\"key frozen\" x=\"%s\" y=\"%s\" width=\"12\" height=\"12\" fill=\"%s\"/>"
                "<rect x=\"%s\" y=\"%s\" width=\"12\" height=\"12\" fill=\"url(#frozen)\"/>"
                "<text x=\"%s\" y=\"%s\">freeze ratio (share of the bar)</text>",
                real_fixed(x, 1).s, real_fixed(y, 1).s, colour, real_fixed(x, 1).s, real_fixed(y, 1).s,
                real_fixed(x + 16, 1).s, real_fixed(y + 10, 1).s);
        x += 220;
    }
    fprintf(f,
            "<line class=\"key makespan\" x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#d62728\" "
            "stroke-dasharray=\"4 3\"/><text x=\"%s\" y=\"%s\">optimised makespan (%s ms)</text>",
            real_fixed(x, 1).s, real_fixed(y + 6, 1).s, real_fixed(x + 14, 1).s, real_fixed(y + 6, 1).s,
            real_fixed(x + 18, 1).s, real_fixed(y + 10, 1).s, real_fixed(p->opt.makespan, 3).s);
    fputs("</g>\n", f);
}

static bool timeline_svg(const emit_ctx *c, gen_folder *out, diag_list *d)
{
    const plan *p = c->p;
    const sched *s = p->s;
    const double x0 = 70, width = 1200, row_h = 20, plot_w = width - x0 - 20;
    double span = p->base.makespan > p->opt.makespan ? p->base.makespan : p->opt.makespan;
    double scale = span > 0 ? plot_w / span : 1;
    double panel_h = row_h * s->ranks;
    double y_base = 86, y_opt = y_base + panel_h + 50, y_axis = y_opt + panel_h;
    double height = y_axis + 40;
    gen_writer w;
    if (!gen_open(&w)) {
        diag_nomem(d, "writing the plan files");
        return false;
    }
    svg_panel(c, w.f, 0, y_base, x0, scale, row_h);
    svg_panel(c, w.f, 1, y_opt, x0, scale, row_h);
    /* The shared time axis, and the optimised makespan marked on both panels. */
    chart_axis ax = chart_axis_for(span, 8.0); /* about 8 ticks from 0 to the longer makespan */
    ax.last = (int64_t)floor(span * (1 + 1e-9) / ax.step);
    fprintf(w.f, "  <line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#333333\"/>\n", real_fixed(x0, 1).s,
            real_fixed(y_axis + 4, 1).s, real_fixed(x0 + span * scale, 1).s, real_fixed(y_axis + 4, 1).s);
    for (int64_t k = 0; k <= ax.last; k++) {
        double x = x0 + chart_tick(&ax, k) * scale;
        fprintf(w.f,
                "  <line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#333333\"/>"
                "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\">%s</text>\n",
                real_fixed(x, 1).s, real_fixed(y_axis + 4, 1).s, real_fixed(x, 1).s, real_fixed(y_axis + 9, 1).s,
                real_fixed(x, 1).s, real_fixed(y_axis + 21, 1).s, chart_tick_label(&ax, k).s);
    }
    fprintf(w.f, "  <text x=\"%s\" y=\"%s\" text-anchor=\"end\">ms</text>\n", real_fixed(width - 12, 1).s,
            real_fixed(y_axis + 34, 1).s);
    double xm = x0 + p->opt.makespan * scale;
    fprintf(w.f, "  <line x1=\"%s\" y1=\"%s\" x2=\"%s\" y2=\"%s\" stroke=\"#d62728\" stroke-dasharray=\"4 3\"/>\n",
            real_fixed(xm, 1).s, real_fixed(y_base - 4, 1).s, real_fixed(xm, 1).s, real_fixed(y_axis + 4, 1).s);
    svg_legend(c, w.f, x0);
    char *body = emit_block_close(&w);
    if (!body) {
        diag_nomem(d, "writing the plan files");
        return false;
    }
    char title[256];
    snprintf(title, sizeof title, "%s: %s, %u rank%s, %u microbatch%s", c->sp->name,
             spec_schedule_name(c->sp->schedule), s->ranks, s->ranks == 1 ? "" : "s", s->microbatches,
             s->microbatches == 1 ? "" : "es");
    real_text wbuf = real_fixed(width, 0), hbuf = real_fixed(height, 0);
    emit_vars vs = {0};
    emit_common_vars(c, &vs);
    emit_var(&vs, "WIDTH", wbuf.s);
    emit_var(&vs, "HEIGHT", hbuf.s);
    emit_var(&vs, "TITLE", title);
    emit_var(&vs, "BODY", body);
    bool ok = emit_render(out, "timeline.svg", "timeline.svg.in", &vs, d);
    free(body);
    return ok;
}

bool emit_plan_files(const emit_ctx *c, gen_folder *out, diag_list *d)
{
    if (!plan_json(c, out) || !schedule_csv(c, out)) {
        diag_nomem(d, "writing the plan");
        return false;
    }
    return timeline_json(c, out, d) && timeline_svg(c, out, d);
}
