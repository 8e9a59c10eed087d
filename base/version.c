/* version: the release string, from the build. */
#include "version.h"

#ifndef TFC_VERSION
#error "TFC_VERSION must be defined by the build"
#endif

const char *version_string(void) { return TFC_VERSION; }
