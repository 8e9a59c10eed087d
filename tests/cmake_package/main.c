/* Uses what tfc_generate added: the plan's queries and the LCP index. */
#include <stdio.h>

#include "pkg.h"
#include "pkg_lcp_index.h"
#include "pkg_stage1.h"

int main(void)
{
    uint64_t mask[PKG_MASK_WORDS];
    double sum = 0;
    for (uint32_t m = 0; m < PKG_MICROBATCHES; m++)
        sum += pkg_freeze_ratio(1, m, 100);
    uint64_t frozen = pkg_frozen_mask(1, 0, 100, mask);
    printf("stage 1: mean freeze ratio %.3f, microbatch 0 freezes %llu of %llu elements (%s)\n", sum / PKG_MICROBATCHES,
           (unsigned long long)frozen, (unsigned long long)pkg_stage_numel[1], pkg_stage1_param_name[0]);
    return sum / PKG_MICROBATCHES <= 0.5 + 1e-9 && PKG_LCP_SEQ_LEN == 8 ? 0 : 1;
}
