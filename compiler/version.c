/* version: release string and linked library versions. */
#include "version.h"

#include <lpsolve/lp_lib.h>
#include <yaml.h>

#ifdef TFC_HAVE_NVRTC
#include <nvrtc.h>
#endif

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
#ifdef TFC_HAVE_NVRTC
    int nmaj = 0, nmin = 0;
    if (nvrtcVersion(&nmaj, &nmin) == NVRTC_SUCCESS)
        fprintf(out, "NVRTC %d.%d\n", nmaj, nmin);
    else
        fprintf(out, "NVRTC unavailable at run time\n");
#else
    fprintf(out, "NVRTC not built in (CUDA checks are skipped)\n");
#endif
}
