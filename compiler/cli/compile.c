/* compile: the steps of tfc compile, in order, each one able to stop the
 * run before anything is written. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "compile.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "fio.h"
#include "emit.h"
#include "gen.h"
#include "nvrtc_check.h"
#include "outdir.h"

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* NVRTC over every .cu of g. */
static tfc_status check_cuda(const spec *sp, const gen_folder *g, const compile_options *o, arena *a, diag_list *d,
                              compile_report *rep)
{
    for (size_t i = 0; i < g->n; i++)
        rep->cu_files += ends_with(g->files[i].name, ".cu");
    if (!rep->cu_files)
        return TFC_OK;
    if (o->skip_cuda_check) {
        snprintf(rep->cuda_note, sizeof rep->cuda_note, "skipped (--skip-cuda-check)");
        return TFC_OK;
    }
    tfc_status result = TFC_OK;
    for (size_t i = 0; i < g->n; i++) {
        const gen_file *f = &g->files[i];
        if (!ends_with(f->name, ".cu"))
            continue;
        char *log = NULL;
        const char *why = "";
        nvrtc_result r = nvrtc_compile(f->name, f->data, sp->targets.cuda_arch, &log, &why);
        if (r == NVRTC_UNAVAILABLE) {
            free(log);
            if (o->require_cuda_check) {
                diag_error(d, sp->path, 0, 0, "--require-cuda-check: the generated CUDA cannot be checked: %s", why);
                return TFC_NVRTC;
            }
            snprintf(rep->cuda_note, sizeof rep->cuda_note, "skipped: %s", why);
            return TFC_OK;
        }
        if (r == NVRTC_ERROR) {
            char *file = arena_strndup(a, f->name, strlen(f->name));
            diag_error(d, file ? file : "tfc", 0, 0, "generated CUDA failed the NVRTC check for %s: %s",
                       sp->targets.cuda_arch, why);
            if (log)
                diag_note(d, 0, 0, "NVRTC's log:\n%s", log);
            result = TFC_NVRTC;
        } else {
            rep->cu_checked++;
        }
        free(log);
    }
    return result;
}

/* s with Make's special characters escaped (space, '#', ':', '$', '\\'):
 * GNU Make and Ninja read "\\:" as ':'. */
static void make_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '$')
            fputc('$', f);
        else if (*s == ' ' || *s == '#' || *s == ':' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
}

/* "DIR/F1 DIR/F2 ...: SPEC INPUT..." into a temporary file beside depfile
 * (fio_stage: *tmp, renamed into place once the folder is written). */
static tfc_status stage_depfile(const char *depfile, const char *spec_path, const spec *sp, const char *dir,
                                const gen_folder *g, arena *a, diag_list *d, char **tmp)
{
    *tmp = NULL;
    const char **inputs;
    size_t n_inputs = spec_inputs(sp, a, &inputs);
    if (n_inputs == SIZE_MAX)
        return diag_nomem(d, "writing the depfile");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return diag_nomem(d, "writing the depfile");
    for (size_t i = 0; i < g->n; i++) {
        if (i)
            fputs(" \\\n ", f);
        make_escape(f, dir);
        fputc('/', f);
        make_escape(f, g->files[i].name);
    }
    fputc(':', f);
    if (strcmp(spec_path, "-") != 0) {
        fputc(' ', f);
        make_escape(f, spec_path);
    }
    for (size_t i = 0; i < n_inputs; i++) {
        fputc(' ', f);
        make_escape(f, inputs[i]);
    }
    fputc('\n', f);
    bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok || !text) {
        free(text);
        return diag_nomem(d, "writing the depfile");
    }
    tfc_status st = fio_stage(depfile, text, len, d, tmp);
    free(text);
    return st;
}

/* Whether the depfile's folder is dir or inside it (both as they resolve
 * now): compile replaces dir whole, and the depfile would go with the old
 * folder. A folder that does not exist yet holds nothing. */
static bool depfile_inside(const char *depfile, const char *dir)
{
    char *real_dir = realpath(dir, NULL);
    if (!real_dir)
        return false;
    const char *slash = strrchr(depfile, '/');
    char *parent = slash ? strndup(depfile, (size_t)(slash - depfile) + (slash == depfile)) : strdup(".");
    char *real_parent = parent ? realpath(parent, NULL) : NULL;
    size_t n = strlen(real_dir);
    bool inside = real_parent && strncmp(real_parent, real_dir, n) == 0 &&
                  (real_parent[n] == '\0' || real_parent[n] == '/' || strcmp(real_dir, "/") == 0);
    free(real_parent);
    free(parent);
    free(real_dir);
    return inside;
}

tfc_status compile_in_memory(const char *path, const compile_options *o, arena *a, diag_list *d, gen_folder *g,
                             compile_report *rep)
{
    memset(rep, 0, sizeof *rep);
    double t0 = clock_now_s();
    const spec *sp;
    plan *p = NULL;
    tfc_status st = spec_load_file(path, a, d, &sp);
    if (st == TFC_OK)
        st = plan_build(sp, &o->plan, a, d, &p);
    rep->plan_s = clock_now_s() - t0;
    if (st != TFC_OK)
        return st;
    rep->p = p;
    return compile_emit(p, o->spec_name ? o->spec_name : path, o, a, d, g, rep);
}

tfc_status compile_emit(const plan *p, const char *spec_name, const compile_options *o, arena *a, diag_list *d,
                        gen_folder *g, compile_report *rep)
{
    const spec *sp = p->sp;
    char label[256];
    emit_spec_label(spec_name, label, sizeof label);
    emit_input in = {p, label, sp->sha256, sp->inputs, sp->n_inputs};
    double t0 = clock_now_s();
    if (!emit_folder(&in, g, d)) {
        gen_folder_free(g);
        return diag_status(d, TFC_IO);
    }
    rep->emit_s = clock_now_s() - t0;
    t0 = clock_now_s();
    tfc_status st = check_cuda(sp, g, o, a, d, rep);
    rep->nvrtc_s = clock_now_s() - t0;
    if (st == TFC_OK)
        st = emit_manifest(&in, g, d);
    if (st != TFC_OK)
        gen_folder_free(g);
    return st;
}

tfc_status compile_spec(const char *path, const compile_options *o, arena *a, diag_list *d, compile_report *rep)
{
    gen_folder g = {0};
    tfc_status st = compile_in_memory(path, o, a, d, &g, rep);
    if (st != TFC_OK)
        return st;
    const spec *sp = rep->p->sp;
    double t0;
    if (st == TFC_OK) {
        const char *dir = o->out_dir;
        if (!dir) {
            size_t n = strlen("generated/") + strlen(sp->name) + 1;
            char *buf = arena_alloc(a, n);
            if (buf)
                snprintf(buf, n, "generated/%s", sp->name);
            dir = buf;
        }
        if (!dir) {
            st = diag_nomem(d, "naming the output folder");
        } else {
            t0 = clock_now_s();
            /* The depfile first, beside its place: a depfile that cannot be
             * written leaves the folder as it was. */
            char *dep_tmp = NULL;
            if (o->depfile && depfile_inside(o->depfile, dir)) {
                int n = (int)strlen(dir);
                while (n > 1 && dir[n - 1] == '/')
                    n--;
                diag_error(d, o->depfile, 0, 0,
                           "--depfile is inside the output folder %.*s, which compile replaces whole: write it beside "
                           "the folder (e.g. %.*s.d)", n, dir, n, dir);
                st = TFC_IO;
            }
            if (o->depfile && st == TFC_OK)
                st = stage_depfile(o->depfile, path, sp, dir, &g, a, d, &dep_tmp);
            if (st == TFC_OK)
                st = outdir_write(dir, &g, d);
            if (dep_tmp)
                st = st == TFC_OK ? fio_commit(dep_tmp, o->depfile, d) : (fio_discard(dep_tmp), st);
            rep->write_s = clock_now_s() - t0;
            rep->out_dir = dir;
            rep->files = g.n;
        }
    }
    gen_folder_free(&g);
    return st;
}
