/* fio: checked file input. Every failure becomes a diagnostic naming the
 * file and the reason; nothing here prints or exits. */
#ifndef TFC_FIO_H
#define TFC_FIO_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

/* Reads the whole of path ("-" = standard input) into a malloc'd buffer with
 * a NUL after the last byte. Refuses directories and anything over limit
 * bytes without reading more than limit + 1 bytes. On success the caller
 * frees *buf. TFC_INVALID: more than limit bytes (an input error, reported
 * at 1:1); TFC_IO: could not open or read (missing, a directory, permission,
 * ...); TFC_NOMEM. */
tfc_status fio_read_all(const char *path, size_t limit, char **buf, size_t *len, diag_list *d);

/* Writes len bytes to path through a temporary file in the same folder,
 * flushed and renamed into place: path is either untouched or complete.
 * TFC_IO (the reason filed under path) or TFC_NOMEM on failure. */
tfc_status fio_write_atomic(const char *path, const void *data, size_t len, diag_list *d);

#endif
