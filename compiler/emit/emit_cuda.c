/* emit_cuda: one self-contained .cu per stage (templates/stage.cu.in). */
#define _POSIX_C_SOURCE 200809L
#include "emit_util.h"

#include <stdlib.h>

bool emit_cuda_files(const emit_ctx *c, gen_folder *out, diag_list *d)
{
    for (uint32_t st = 0; st < c->S; st++) {
        emit_stage_text t;
        if (!emit_stage_text_init(c, st, &t, d))
            return false;
        char prefix[112], file[112];
        snprintf(prefix, sizeof prefix, "%s_cu_", t.sp);
        snprintf(file, sizeof file, "%s.cu", t.sp);
        emit_vars vs = {0};
        emit_stage_vars(c, st, &t, &vs);
        char *core = emit_mask_core(prefix, true, d);
        bool ok = core != NULL;
        if (ok) {
            emit_var(&vs, "MASK_CORE", core);
            ok = emit_render(out, file, "stage.cu.in", &vs, d);
        }
        free(core);
        emit_stage_text_free(&t);
        if (!ok)
            return false;
    }
    return true;
}
