/* spec_names: repeated names in a list the spec reader checks (stages, a
 * stage's tensors, the paths a timing key lists), each reported where it
 * repeats with a note where it was first used (compiler/front only). */
#ifndef TFC_SPEC_NAMES_H
#define TFC_SPEC_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "spec.h"
#include "spec_read.h"
#include "text.h"

/* A list of names being checked for repeats; entries for names that failed
 * their own checks are simply not added. */
typedef struct spec_name_list {
    text_ref *refs;
    const spec_pos **pos;
    size_t n;
} spec_name_list;

/* Room for cap names; false on out of memory (spec_name_list_check still
 * frees what was allocated). */
bool spec_name_list_init(spec_name_list *l, size_t cap);
/* name and pos must outlive the list. */
void spec_name_list_add(spec_name_list *l, const char *name, const spec_pos *pos);
/* Reports each name that repeats an earlier one, then frees the list. */
void spec_name_list_check(spec_reader *c, spec_name_list *l, const char *what);

#endif
