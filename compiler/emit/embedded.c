/* embedded: lookup in the table tools/embed.c writes. */
#include "embedded.h"

#include <stddef.h>
#include <string.h>

/* Written by tools/embed.c at build time from templates/ and docs/. */
extern const char *const tfc_template_names[];
extern const char *const tfc_template_texts[];

const char *tmpl_get(const char *name)
{
    for (size_t i = 0; tfc_template_names[i]; i++)
        if (strcmp(tfc_template_names[i], name) == 0)
            return tfc_template_texts[i];
    return NULL;
}
