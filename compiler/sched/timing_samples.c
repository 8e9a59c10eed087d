/* timing_samples: the sample list and the file reading both measured-
 * timing readers share. */
#define _POSIX_C_SOURCE 200809L
#include "timing_samples.h"

#include <stdlib.h>

#include "fio.h"

bool samples_push(samples *s, sample x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 1024;
        sample *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return false;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return true;
}

tfc_status timing_read_input(const spec *sp, const char *path, spec_pos named_at, const char *key, char **buf,
                              size_t *len, diag_list *d)
{
    tfc_status fs = fio_read_all(path, SPEC_MAX_FILE_BYTES, buf, len, d);
    if (fs == TFC_OK)
        spec_input_read(sp, path, *buf, *len);
    if (fs == TFC_OK || fs == TFC_NOMEM)
        return fs;
    diag_note_in(d, sp->path, named_at.line, named_at.col, "named by timing.%s here", key);
    return fs;
}
