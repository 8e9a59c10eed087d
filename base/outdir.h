/* outdir: writing a generated folder so that readers only ever see the old
 * folder or the new one, whole. */
#ifndef TFC_OUTDIR_H
#define TFC_OUTDIR_H

#include "diag.h"
#include "gen.h"
#include "status.h"

/* Writes g as the folder dir: every file into a new temporary sibling
 * (".NAME.tfc-PID-XXXXXX"), each flushed to disk, then one rename puts it in
 * place (an atomic exchange when dir exists), then the old folder is
 * removed. Missing parent folders are created. An existing dir is replaced
 * only when it is empty or a tfc output folder (its MANIFEST starts with
 * "# tfc MANIFEST") of the same kind (its MANIFEST lists a file g has:
 * not a compile's code under a --sweep); anything else is refused. A dir
 * beside an entry whose name differs from its own only in letter case (one
 * entry on a case-insensitive file system) is written with a warning. On any
 * failure dir is left as it was, the temporary folder is removed, and the
 * reason is in d:
 * TFC_IO, the errors filed under dir (which must outlive d). Temporary
 * siblings of dir left by a killed tfc (".NAME.tfc-PID-...", PID no longer
 * running) are removed first. */
tfc_status outdir_write(const char *dir, const gen_folder *g, diag_list *d);

#endif
