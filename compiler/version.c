/* version: release string and linked library versions. */
#include "version.h"

#include <lpsolve/lp_lib.h>
#include <yaml.h>

#include "nvrtc_check.h"

#ifndef TFC_VERSION
#error "TFC_VERSION must be defined by the build"
#endif

const char *version_string(void) { return TFC_VERSION; }

void version_print(FILE *out)
{
    fprintf(out, "tfc %s\n", TFC_VERSION);
    fprintf(out, "libyaml %s\n", yaml_get_version_string());
    int maj, min, rel, build;
    lp_solve_version(&maj, &min, &rel, &build);
    fprintf(out, "lp_solve %d.%d.%d.%d\n", maj, min, rel, build);
    int nmaj = 0, nmin = 0;
    if (nvrtc_version(&nmaj, &nmin))
        fprintf(out, "NVRTC %d.%d\n", nmaj, nmin);
    else
        fprintf(out, "NVRTC not available (CUDA checks are skipped)\n");
}
