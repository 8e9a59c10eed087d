/* sweep: one plan per (cap, policy), then the table and the chart. */
#define _POSIX_C_SOURCE 200809L
#include "sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "chart.h"
#include "json.h"
#include "real.h"
#include "embedded.h"
#include "tmpl.h"
#include "version.h"

tfc_status sweep_run(const spec *sp, const plan_options *opt, unsigned steps, arena *a, diag_list *d,
                      sweep_result *out)
{
    memset(out, 0, sizeof *out);
    tfc_status pst = plan_resolve_pilot(sp, opt, a, d, &sp); /* once, at the spec's own policy */
    if (pst != TFC_OK)
        return pst;
    out->pt = arena_alloc_array(a, (size_t)steps + 1, sizeof *out->pt);
    if (!out->pt) {
        return diag_nomem(d, "in the freeze sweep");
    }
    for (unsigned i = 0; i <= steps; i++) {
        spec copy = *sp;
        copy.freeze.max_ratio = (double)i / steps;
        copy.freeze.max_ratio_auto = false; /* the sweep sets the cap itself */
        sweep_point *p = &out->pt[i];
        p->max_ratio = copy.freeze.max_ratio;
        for (int k = 0; k < 2; k++) {
            plan_options o = *opt;
            o.policy = k ? POLICY_UNIFORM : POLICY_TIMELY;
            plan *pl;
            tfc_status st = plan_build(&copy, &o, a, d, &pl);
            if (st != TFC_OK)
                return st;
            p->makespan[k] = plan_step_ms(pl, true);
            double sum = 0;
            size_t cnt = 0;
            for (size_t u = 0; u < pl->s->n_actions; u++)
                if (pl->freezable[u]) {
                    sum += pl->x[u];
                    cnt++;
                }
            p->mean_ratio[k] = cnt ? sum / (double)cnt : 0.0;
            p->ttq[k] = pl->ttq_speedup;
            out->ttq_known = pl->ttq_known;
            out->ttq_beta = pl->ttq_beta;
            out->baseline_ms = plan_step_ms(pl, false);
        }
        out->n = i + 1;
    }
    return TFC_OK;
}

void sweep_write_csv(const sweep_result *r, FILE *f)
{
    fprintf(f, "max_ratio,policy,makespan_ms,speedup,mean_freeze_ratio%s\n",
            r->ttq_known ? ",predicted_time_to_quality" : "");
    for (size_t i = 0; i < r->n; i++)
        for (int k = 0; k < 2; k++) {
            json_number(f, r->pt[i].max_ratio);
            fprintf(f, ",%s,", k ? "uniform" : "timely");
            json_number(f, r->pt[i].makespan[k]);
            fputc(',', f);
            json_number(f, r->pt[i].makespan[k] > 0 ? r->baseline_ms / r->pt[i].makespan[k] : 1.0);
            fputc(',', f);
            json_number(f, r->pt[i].mean_ratio[k]);
            if (r->ttq_known) {
                fputc(',', f);
                json_number(f, r->pt[i].ttq[k]);
            }
            fputc('\n', f);
        }
}

size_t sweep_best_ttq(const sweep_result *r)
{
    size_t best = 0;
    for (size_t i = 1; i < r->n; i++)
        if (r->pt[i].ttq[0] > r->pt[best].ttq[0])
            best = i;
    return best;
}

bool sweep_write_svg(const spec *sp, const char *spec_label, const sweep_result *r, FILE *f)
{
    const char *text = tmpl_get("pareto.svg.in");
    if (!text || r->n == 0)
        return false;
    const double x0 = 80, y0 = 70, w = 620, h = 340;
    double lo = r->pt[0].makespan[0], hi = lo;
    for (size_t i = 0; i < r->n; i++)
        for (int k = 0; k < 2; k++) {
            lo = fmin(lo, r->pt[i].makespan[k]);
            hi = fmax(hi, r->pt[i].makespan[k]);
        }
    chart_axis ay = chart_axis_for(hi - lo > 0 ? hi - lo : hi * 0.1 + 1, 6.0);
    chart_axis_cover(&ay, lo, hi);
    lo = chart_tick(&ay, ay.first);
    hi = chart_tick(&ay, ay.last);
    /* x: the freezing spent (mean ratio over the freezable actions), to the
     * next tenth above the most any point spends. */
    double xmax = 0.0;
    for (size_t i = 0; i < r->n; i++)
        for (int k = 0; k < 2; k++)
            xmax = fmax(xmax, r->pt[i].mean_ratio[k]);
    xmax = fmin(1.0, fmax(0.1, ceil(xmax * 10.0 - 1e-9) / 10.0));
    char *body = NULL;
    size_t len = 0;
    FILE *b = open_memstream(&body, &len);
    if (!b)
        return false;
#define PX(r_) (x0 + (r_) / xmax * w)
#define PY(ms_) (y0 + h - ((ms_) - lo) / (hi - lo) * h)
    chart_frame(b, &ay, x0, y0, w, h);
    int ticks = (int)lround(xmax * 10.0);
    for (int t = 0; t <= ticks; t++)
        fprintf(b, "  <text x=\"%s\" y=\"%s\" text-anchor=\"middle\">%s</text>\n", real_fixed(PX(t / 10.0), 1).s,
                real_fixed(y0 + h + 18, 1).s, real_fixed(t / 10.0, 1).s);
    fprintf(b, "  <text x=\"%s\" y=\"%s\" text-anchor=\"middle\">freezing spent: mean freeze ratio of the "
               "freezable actions</text>\n",
            real_fixed(x0 + w / 2, 1).s, real_fixed(y0 + h + 38, 1).s);
    fprintf(b, "  <text x=\"18\" y=\"%s\" transform=\"rotate(-90 18 %s)\" text-anchor=\"middle\">makespan "
               "(ms)</text>\n",
            real_fixed(y0 + h / 2, 1).s, real_fixed(y0 + h / 2, 1).s);
    const char *colour[2] = {"#d62728", "#1f77b4"};
    for (int k = 1; k >= 0; k--) {
        fprintf(b, "  <polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\"%s points=\"", colour[k],
                k ? " stroke-dasharray=\"6 4\"" : "");
        for (size_t i = 0; i < r->n; i++)
            fprintf(b, "%s%s,%s", i ? " " : "", real_fixed(PX(r->pt[i].mean_ratio[k]), 1).s,
                    real_fixed(PY(r->pt[i].makespan[k]), 1).s);
        fputs("\"/>\n", b);
        for (size_t i = 0; i < r->n; i++) {
            double x = PX(r->pt[i].mean_ratio[k]), y = PY(r->pt[i].makespan[k]);
            if (k)
                fprintf(b, "  <rect x=\"%s\" y=\"%s\" width=\"7\" height=\"7\" fill=\"%s\">", real_fixed(x - 3.5, 1).s,
                        real_fixed(y - 3.5, 1).s, colour[k]);
            else
                fprintf(b, "  <circle cx=\"%s\" cy=\"%s\" r=\"3.5\" fill=\"%s\">", real_fixed(x, 1).s,
                        real_fixed(y, 1).s, colour[k]);
            fprintf(b, "<title>%s, max_ratio %s: %s ms, mean ratio %s</title></%s>\n", k ? "uniform" : "timely",
                    real_shortest(r->pt[i].max_ratio).s, real_fixed(r->pt[i].makespan[k], 3).s,
                    real_fixed(r->pt[i].mean_ratio[k], 3).s, k ? "rect" : "circle");
            /* Every other cap written beside its point (tooltips do not print). */
            if (i % 2 == 0 && i > 0)
                fprintf(b, "  <text x=\"%s\" y=\"%s\" font-size=\"9\" fill=\"%s\"%s>%s</text>\n",
                        real_fixed(k ? x + 6 : x - 6, 1).s, real_fixed(k ? y - 6 : y + 13, 1).s, colour[k],
                        k ? "" : " text-anchor=\"end\"", real_shortest(r->pt[i].max_ratio).s);
        }
    }
    if (r->ttq_known) { /* the best predicted time to quality, timely: a ring and a line under the title */
        size_t i = sweep_best_ttq(r);
        double x = PX(r->pt[i].mean_ratio[0]), y = PY(r->pt[i].makespan[0]);
        fprintf(b, "  <circle class=\"best-ttq\" cx=\"%s\" cy=\"%s\" r=\"8\" fill=\"none\" stroke=\"#2ca02c\" "
                   "stroke-width=\"2\"/>\n",
                real_fixed(x, 1).s, real_fixed(y, 1).s);
        fprintf(b, "  <text x=\"%s\" y=\"%s\" fill=\"#2ca02c\">", real_fixed(x0, 1).s, real_fixed(y0 - 8, 1).s);
        if (r->pt[i].ttq[0] > 1.0)
            fprintf(b, "best predicted time to quality at beta %s: cap %s, %sx (timely)</text>\n",
                    real_brief(r->ttq_beta).s, real_shortest(r->pt[i].max_ratio).s,
                    real_fixed_apart(r->pt[i].ttq[0], 3, 1.0).s);
        else
            fprintf(b, "at beta %s no cap beats no freezing in predicted time to quality</text>\n",
                    real_brief(r->ttq_beta).s);
    }
#undef PX
#undef PY
    bool ok = !ferror(b);
    ok = (fclose(b) == 0) && ok;
    char title[160], base[48];
    snprintf(title, sizeof title, "%s: %s, %u rank%s, %u microbatch%s", sp->name, spec_schedule_name(sp->schedule),
             sp->ranks, sp->ranks == 1 ? "" : "s", sp->microbatches, sp->microbatches == 1 ? "" : "es");
    snprintf(base, sizeof base, "%s", real_fixed(r->baseline_ms, 3).s);
    char safe[256];
    chart_comment_text(spec_label, safe, sizeof safe);
    tmpl_var vars[] = {{"SPEC_FILE", safe}, {"NAME", sp->name},   {"VERSION", version_string()},
                       {"TITLE", title},          {"BASE_MS", base},     {"BODY", body ? body : ""}};
    diag_list d;
    diag_init(&d, DIAG_DEFAULT_MAX);
    ok = ok && tmpl_render(f, text, vars, sizeof vars / sizeof *vars, &d);
    diag_free(&d); /* the template is tfc's own: a failure here is out of memory or a bug */
    free(body);
    return ok && !ferror(f);
}

bool sweep_folder(const spec *sp, const char *spec_label, const sweep_result *r, gen_folder *out, diag_list *d)
{
    gen_writer w;
    if (!gen_open(&w)) {
        diag_nomem(d, "writing pareto.csv");
        return false;
    }
    sweep_write_csv(r, w.f);
    if (!gen_close(out, "pareto.csv", &w)) {
        diag_nomem(d, "writing pareto.csv");
        return false;
    }
    if (!gen_open(&w)) {
        diag_nomem(d, "writing pareto.svg");
        return false;
    }
    bool ok = sweep_write_svg(sp, spec_label, r, w.f);
    if (!gen_close(out, "pareto.svg", &w)) {
        diag_nomem(d, "writing pareto.svg");
        return false;
    }
    if (!ok)
        diag_error(d, NULL, 0, 0, "internal error: the template pareto.svg.in is missing from this build");
    return ok;
}
