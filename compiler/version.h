/* version: what this tfc is and what it was built with (tfc --version). */
#ifndef TFC_VERSION_H
#define TFC_VERSION_H

#include <stdio.h>

/* The release, e.g. "0.1.0"; set by the build from CMakeLists.txt. */
const char *version_string(void);
/* One line per component: tfc, libyaml, lp_solve, NVRTC (or that it is absent). */
void version_print(FILE *out);

#endif
