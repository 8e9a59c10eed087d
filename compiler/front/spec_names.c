/* spec_names: duplicate names in a list (spec_names.h). */
#include "spec_names.h"

#include <stdlib.h>
#include <string.h>

typedef struct named_ctx {
    spec_reader *c;
    const char *what;
    const spec_pos *const *pos; /* by text_ref.index */
} named_ctx;

static bool report_named(const text_ref *first, const text_ref *dup, void *p)
{
    named_ctx *nc = p;
    char q[TEXT_QUOTE_CAP];
    const spec_pos *a = nc->pos[first->index], *b = nc->pos[dup->index];
    if (a->line == b->line && a->col == b->col) { /* one node, reached twice through a YAML alias */
        diag_error(nc->c->d, nc->c->file, b->line, b->col,
                   "duplicate %s %s: this entry is used twice, through an alias (*name) of its anchor", nc->what,
                   text_quote(q, sizeof q, dup->s, dup->len));
        return !diag_full(nc->c->d);
    }
    diag_error(nc->c->d, nc->c->file, b->line, b->col, "duplicate %s %s", nc->what,
               text_quote(q, sizeof q, dup->s, dup->len));
    diag_note(nc->c->d, a->line, a->col, "first used here");
    return !diag_full(nc->c->d);
}

bool spec_name_list_init(spec_name_list *l, size_t cap)
{
    l->n = 0;
    l->refs = malloc((cap ? cap : 1) * sizeof *l->refs);
    l->pos = malloc((cap ? cap : 1) * sizeof *l->pos);
    return l->refs && l->pos;
}

void spec_name_list_add(spec_name_list *l, const char *name, const spec_pos *pos)
{
    l->refs[l->n] = (text_ref){name, strlen(name), l->n};
    l->pos[l->n] = pos;
    l->n++;
}

/* Reports each name that repeats an earlier one, then frees the list. */
void spec_name_list_check(spec_reader *c, spec_name_list *l, const char *what)
{
    named_ctx nc = {c, what, l->pos};
    if (l->refs && l->pos)
        text_report_duplicates(l->refs, l->n, report_named, &nc);
    free(l->refs);
    free(l->pos);
}
