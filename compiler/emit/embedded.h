/* embedded: the files compiled into tfc at build time (tools/embed.c
 * writes templates_data.c): every template of templates/ and the reference
 * pages of docs/ that tfc help prints. */
#ifndef TFC_EMBEDDED_H
#define TFC_EMBEDDED_H

/* The text of an embedded file by its name ("stage.cu.in", "spec.md"), or
 * NULL when this build has none of that name. */
const char *tmpl_get(const char *name);

#endif
