/* emit_lcp: the data loader's LCP index, from the same templates tfc's own
 * `tfc index` is built from (templates/lcp_types.inc, lcp_core.inc and
 * the parts it lists, lcp_build.inc), specialised to the spec's token width. */
#define _POSIX_C_SOURCE 200809L
#include "emit_util.h"

#include <stdlib.h>
#include <string.h>

/* Renders one of the shared LCP templates with prefix NAME_lcp_ for the
 * spec's tokens, or (docs) NAME_lcpd_ for the uint32 packed documents. */
static char *lcp_part(const emit_ctx *c, const char *name, bool cuda, bool docs, diag_list *d)
{
    char prefix[96], bits[8];
    uint32_t tb = docs ? 4 : c->sp->lcp_index.token_bytes;
    snprintf(prefix, sizeof prefix, "%s_lcp%s_", c->sp->name, docs ? "d" : "");
    snprintf(bits, sizeof bits, "%u", 8 * tb);
    emit_vars vs = {0};
    emit_var(&vs, "P", prefix);
    emit_var(&vs, "TOKEN", tb == 2 ? "uint16_t" : "uint32_t");
    emit_var(&vs, "TOKEN_BITS", bits);
    emit_var(&vs, "QUAL", emit_qual(cuda));
    return emit_render_text(name, &vs, d);
}

/* The queries' parts in the order they are pasted, a blank line between
 * (templates/lcp_core.inc says what each holds; CMakeLists.txt's
 * TFC_LCP_CORE_PARTS fills the same list for tfc's own copy). */
static const char *const core_parts[] = {"lcp_core.inc",   "lcp_levels.inc", "lcp_codes.inc", "lcp_search.inc",
                                         "lcp_select.inc", "lcp_runs.inc",   "lcp_query.inc"};

/* The core: every part rendered as lcp_part does, joined. */
static char *lcp_core(const emit_ctx *c, bool cuda, bool docs, diag_list *d)
{
    enum { N = sizeof core_parts / sizeof core_parts[0] };
    char *text[N];
    size_t len = 0, i = 0;
    for (; i < N; i++) {
        if (!(text[i] = lcp_part(c, core_parts[i], cuda, docs, d)))
            break;
        len += strlen(text[i]) + 1;
    }
    char *all = i == N ? malloc(len + 1) : NULL;
    if (all) {
        char *p = all;
        for (size_t j = 0; j < N; j++) {
            size_t n = strlen(text[j]);
            if (j)
                *p++ = '\n';
            memcpy(p, text[j], n);
            p += n;
        }
        *p = '\0';
    } else if (i == N) {
        diag_nomem(d, "rendering the LCP index");
    }
    for (size_t j = 0; j < i; j++)
        free(text[j]);
    return all;
}

bool emit_lcp_files(const emit_ctx *c, gen_folder *out, diag_list *d)
{
    const spec *sp = c->sp;
    char guard[96], h[96], cf[96], cu[96];
    snprintf(guard, sizeof guard, "%s_LCP_INDEX_H", c->uname);
    snprintf(h, sizeof h, "%s_lcp_index.h", sp->name);
    snprintf(cf, sizeof cf, "%s_lcp_index.c", sp->name);
    snprintf(cu, sizeof cu, "%s_lcp_index.cu", sp->name);
    char *types = lcp_part(c, "lcp_types.inc", false, false, d);
    char *core = types ? lcp_core(c, false, false, d) : NULL;
    char *build = core ? lcp_part(c, "lcp_build.inc", false, false, d) : NULL;
    char *core_cu = build ? lcp_core(c, true, false, d) : NULL;
    char *dtypes = core_cu ? lcp_part(c, "lcp_types.inc", false, true, d) : NULL;
    char *dcore = dtypes ? lcp_core(c, false, true, d) : NULL;
    char *dbuild = dcore ? lcp_part(c, "lcp_build.inc", false, true, d) : NULL;
    bool ok = dbuild != NULL;
    if (ok) {
        emit_vars vs = {0};
        emit_common_vars(c, &vs);
        emit_var(&vs, "GUARD", guard);
        emit_var_u(&vs, "TOKEN_BYTES", sp->lcp_index.token_bytes);
        emit_var_u(&vs, "SEQ_LEN", sp->lcp_index.seq_len);
        emit_var_u(&vs, "TOPK", sp->lcp_index.topk);
        emit_var(&vs, "TOKEN", sp->lcp_index.token_bytes == 2 ? "uint16_t" : "uint32_t");
        emit_var(&vs, "TYPES", types);
        emit_var(&vs, "CORE", core);
        emit_var(&vs, "DTYPES", dtypes);
        emit_var(&vs, "DCORE", dcore);
        emit_var(&vs, "DBUILD", dbuild);
        emit_var(&vs, "BUILD", build);
        if (sp->targets.c)
            ok = emit_render(out, h, "lcp_index.h.in", &vs, d) &&
                 emit_render(out, cf, "lcp_index.c.in", &vs, d);
        if (ok && sp->targets.cuda) {
            vs.n -= 5; /* BUILD, the documents' three, CORE: the device flavour instead */
            emit_var(&vs, "CORE", core_cu);
            ok = emit_render(out, cu, "lcp_index.cu.in", &vs, d);
        }
    }
    free(types);
    free(core);
    free(build);
    free(core_cu);
    free(dtypes);
    free(dcore);
    free(dbuild);
    return ok;
}
