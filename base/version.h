/* version: which tfc release this is (stamped into every generated file). */
#ifndef TFC_VERSION_H
#define TFC_VERSION_H

/* The release, e.g. "0.1.0"; set by the build from CMakeLists.txt. */
const char *version_string(void);

#endif
