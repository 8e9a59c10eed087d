/* emit: the folder as a whole, and its MANIFEST. */
#define _POSIX_C_SOURCE 200809L
#include "emit.h"

#include <string.h>

#include "emit_util.h"
#include "sha256.h"
#include "version.h"

bool emit_folder(const emit_input *in, gen_folder *out, diag_list *d)
{
    emit_ctx c;
    if (!emit_ctx_init(&c, in)) {
        diag_nomem(d, "generating code");
        return false;
    }
    bool ok = true;
    if (c.sp->targets.c)
        ok = emit_c_files(&c, out, d);
    if (ok && c.sp->targets.cuda)
        ok = emit_cuda_files(&c, out, d);
    if (ok && c.sp->lcp_index.enabled)
        ok = emit_lcp_files(&c, out, d);
    if (ok)
        ok = emit_plan_files(&c, out, d);
    emit_ctx_free(&c);
    return ok;
}

tfc_status emit_manifest(const emit_input *in, gen_folder *out, diag_list *d)
{
    for (size_t i = 0; i < in->n_inputs; i++)
        if (!in->inputs[i].sha256[0]) {
            diag_error(d, in->inputs[i].path, 0, 0,
                       "no plan read this input, so the MANIFEST cannot record it (a tfc bug)");
            return TFC_IO;
        }
    gen_writer w;
    if (!gen_open(&w))
        return diag_nomem(d, "writing the MANIFEST");
    fprintf(w.f, "# tfc MANIFEST 1\n# tfc %s\n# spec %s  %s\n", version_string(), in->spec_sha256, in->spec_label);
    /* As the spec writes them, so that the folder does not depend on where
     * the spec is; never control characters (spec_read.c refuses them). */
    for (size_t i = 0; i < in->n_inputs; i++)
        fprintf(w.f, "# input %s  %s\n", in->inputs[i].sha256, in->inputs[i].written);
    fputs("# sha256 of every other file in this folder (check: grep -v '^#' MANIFEST | sha256sum -c)\n", w.f);
    for (size_t i = 0; i < out->n; i++) {
        char hex[65];
        sha256_hex(out->files[i].data, out->files[i].len, hex);
        fprintf(w.f, "%s  %s\n", hex, out->files[i].name);
    }
    return gen_close(out, "MANIFEST", &w) ? TFC_OK : diag_nomem(d, "writing the MANIFEST");
}

void emit_spec_label(const char *path, char *out, size_t cap)
{
    if (cap == 0)
        return;
    if (strcmp(path, "-") == 0 || strcmp(path, "<stdin>") == 0) {
        snprintf(out, cap, "stdin");
        return;
    }
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = 0;
    for (const char *p = base; *p && n + 1 < cap; p++) {
        char ch = *p;
        bool ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                  ch == '_' || ch == '+' || ch == '-';
        out[n++] = ok ? ch : '_';
    }
    out[n] = '\0';
    if (n == 0)
        snprintf(out, cap, "spec");
}
