/* emit_cuda: one self-contained .cu per stage (templates/stage.cu.in). */
#define _POSIX_C_SOURCE 200809L
#include "emit_util.h"

#include <stdlib.h>

/* The four tables' bytes a stage may keep in __constant__ memory (64 KiB a
 * program, less what the compiler puts there); past it they go to global
 * memory, which is slower to broadcast but has room for any spec. */
#define EMIT_CUDA_CONSTANT_BUDGET 49152u

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
        /* numel and weight per tensor, ratio and q per microbatch: 8 bytes each */
        uint64_t table_bytes = 16u * ((uint64_t)c->sp->stages[st].n_params + c->M);
        bool constant = table_bytes <= EMIT_CUDA_CONSTANT_BUDGET;
        emit_var(&vs, "TABLE_SPACE", constant ? "__constant__" : "__device__ const");
        emit_var(&vs, "TABLE_SPACE_NOTE",
                 constant ? "__constant__ memory" : "global memory (too large for __constant__)");
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
