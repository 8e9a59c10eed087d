/* outdir: temporary sibling, fsync, rename (renameat2 RENAME_EXCHANGE over
 * an existing folder), then removal of the old tree. */
#define _GNU_SOURCE
#include "outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Removes the tree at path (files and folders under it, then it); depth
 * bounded so that a hostile tree cannot exhaust the stack. */
static bool remove_tree(const char *path, int depth)
{
    if (depth > 32)
        return false;
    DIR *dp = opendir(path);
    if (!dp)
        return unlink(path) == 0 || errno == ENOENT;
    bool ok = true;
    struct dirent *e;
    while ((e = readdir(dp))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *child;
        if (asprintf(&child, "%s/%s", path, e->d_name) < 0) {
            ok = false;
            break;
        }
        struct stat st;
        if (lstat(child, &st) == 0 && S_ISDIR(st.st_mode))
            ok = remove_tree(child, depth + 1) && ok;
        else
            ok = (unlink(child) == 0 || errno == ENOENT) && ok;
        free(child);
    }
    closedir(dp);
    return (rmdir(path) == 0 || errno == ENOENT) && ok;
}

static bool fsync_path(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return false;
    bool ok = fsync(fd) == 0 || errno == EINVAL; /* some file systems cannot sync folders */
    close(fd);
    return ok;
}

static bool mkdir_p(char *path)
{
    if (!*path)
        return true;
    struct stat st;
    if (stat(path, &st) == 0)
        return S_ISDIR(st.st_mode) ? true : (errno = ENOTDIR, false);
    char *slash = strrchr(path, '/');
    if (slash && slash != path) {
        *slash = '\0';
        bool ok = mkdir_p(path);
        *slash = '/';
        if (!ok)
            return false;
    }
    return mkdir(path, 0777) == 0 || errno == EEXIST;
}

/* Removes temporary siblings ".BASE.tfc-PID-XXXXXX" (and "-old-") left by
 * a tfc that was killed: those whose PID is no longer running. An "-old-"
 * one is the previous folder, moved aside by the two-rename fallback of a
 * tfc killed before the second rename: when the folder is missing it is
 * put back instead (the new folder, its sibling, is then removed as
 * stale). */
static void remove_stale(const char *parent, const char *base, const char *dir)
{
    DIR *dp = opendir(parent);
    if (!dp)
        return;
    size_t bl = strlen(base);
    struct dirent *e;
    while ((e = readdir(dp))) {
        const char *nm = e->d_name;
        if (nm[0] != '.' || strncmp(nm + 1, base, bl) != 0 || strncmp(nm + 1 + bl, ".tfc-", 5) != 0)
            continue;
        const char *p = nm + 1 + bl + 5;
        bool old = strncmp(p, "old-", 4) == 0;
        if (old)
            p += 4;
        char *end;
        long pid = strtol(p, &end, 10);
        if (end == p || *end != '-' || pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH)) {
            char *path;
            if (end != p && *end == '-' && pid > 0 && asprintf(&path, "%s/%s", parent, nm) >= 0) {
                struct stat st;
                if (!(old && lstat(dir, &st) != 0 && errno == ENOENT && rename(path, dir) == 0))
                    (void)remove_tree(path, 0);
                free(path);
            }
        }
    }
    closedir(dp);
}

/* The entry of parent (malloc'd) whose name is base's but for the case of
 * its (ASCII) letters, or NULL: on a case-insensitive file system (macOS,
 * Windows) the two are one entry, so writing one replaces the other. */
static char *case_twin(const char *parent, const char *base)
{
    DIR *dp = opendir(parent);
    if (!dp)
        return NULL;
    char *twin = NULL;
    struct dirent *e;
    while (!twin && (e = readdir(dp)))
        if (strcasecmp(e->d_name, base) == 0 && strcmp(e->d_name, base) != 0)
            twin = strdup(e->d_name);
    closedir(dp);
    return twin;
}

static bool replaceable(const char *dir);
static const char *other_kind(const char *dir, const gen_folder *g);
static char *unlisted(const char *dir);

/* Whether dir (lstat st, when it exists) may be replaced by g: a real
 * folder, empty or written by tfc as the same kind of output; the reason
 * filed otherwise. */
static bool check_target(const char *dir, const char *dir_arg, bool exists, const struct stat *st,
                         const gen_folder *g, diag_list *d)
{
    if (exists && S_ISLNK(st->st_mode)) {
        diag_error(d, dir_arg, 0, 0, "is a symbolic link; tfc replaces output folders whole: give the real folder");
        return false;
    }
    if (exists && !S_ISDIR(st->st_mode)) {
        diag_error(d, dir_arg, 0, 0, "exists and is not a folder; refusing to replace it");
        return false;
    }
    if (exists && !replaceable(dir)) {
        diag_error(d, dir_arg, 0, 0,
                   "exists and is not a tfc output folder (no MANIFEST written by tfc); refusing to replace it");
        return false;
    }
    char *extra = exists ? unlisted(dir) : NULL;
    if (extra) {
        diag_error(d, dir_arg, 0, 0,
                   "holds %s, which its MANIFEST does not list (tfc did not write it); tfc replaces the folder whole, "
                   "so it would be lost: move it out, or remove the folder first", extra);
        free(extra);
        return false;
    }
    const char *kept = exists ? other_kind(dir, g) : NULL;
    if (kept) {
        diag_error(d, dir_arg, 0, 0,
                   "holds another kind of tfc output (its MANIFEST lists %s, and none of the files this command "
                   "writes: a compile folder and a --sweep or --compare folder, say); refusing to replace it: give "
                   "another folder, or remove this one first", kept);
        free((char *)kept);
        return false;
    }
    return true;
}

/* The first file dir's MANIFEST lists (malloc'd) when it lists none that
 * g writes: the folder holds another command's output. NULL when they
 * share a file, or there is no MANIFEST to read (an empty folder). */
static const char *other_kind(const char *dir, const gen_folder *g)
{
    char *m;
    if (asprintf(&m, "%s/MANIFEST", dir) < 0)
        return NULL;
    int fd = open(m, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    free(m);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "r");
    if (!f) {
        close(fd);
        return NULL;
    }
    char line[4096], *first = NULL;
    bool shared = false;
    while (!shared && fgets(line, sizeof line, f)) {
        char *name = line[0] == '#' ? NULL : strstr(line, "  ");
        if (!name)
            continue;
        name += 2;
        name[strcspn(name, "\r\n")] = '\0';
        if (gen_find(g, name))
            shared = true;
        else if (!first)
            first = strdup(name);
    }
    fclose(f);
    if (shared || !first) {
        free(first);
        return NULL;
    }
    return first;
}

/* Whether name is listed in the MANIFEST f ("SHA256  NAME" lines). */
static bool listed(FILE *f, const char *name)
{
    rewind(f);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char *at = line[0] == '#' ? NULL : strstr(line, "  ");
        if (!at)
            continue;
        at += 2;
        at[strcspn(at, "\r\n")] = '\0';
        if (strcmp(at, name) == 0)
            return true;
    }
    return false;
}

/* The first entry of dir by name, MANIFEST aside, that its MANIFEST does
 * not list (malloc'd): a file a person put in a folder tfc wrote, which a
 * replacement would delete. NULL when there is none or no MANIFEST to read
 * (replaceable decides then). */
static char *unlisted(const char *dir)
{
    char *m;
    if (asprintf(&m, "%s/MANIFEST", dir) < 0)
        return NULL;
    int fd = open(m, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    free(m);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    DIR *dp = opendir(dir);
    char *first = NULL;
    struct dirent *e;
    while (dp && (e = readdir(dp))) {
        const char *nm = e->d_name;
        if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0 || strcmp(nm, "MANIFEST") == 0 ||
            (first && strcmp(nm, first) >= 0) || listed(f, nm))
            continue;
        free(first);
        first = strdup(nm);
    }
    if (dp)
        closedir(dp);
    fclose(f);
    return first;
}

/* Empty, or holding a MANIFEST tfc wrote. */
static bool replaceable(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return false;
    bool empty = true;
    struct dirent *e;
    while ((e = readdir(dp)) && empty)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            empty = false;
    closedir(dp);
    if (empty)
        return true;
    char *m;
    if (asprintf(&m, "%s/MANIFEST", dir) < 0)
        return false;
    /* Non-blocking and a regular file only: a FIFO named MANIFEST must not
     * stop the compile. */
    int fd = open(m, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    free(m);
    if (fd < 0)
        return false;
    struct stat st;
    char head[16] = {0};
    ssize_t got = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? read(fd, head, 14) : -1;
    close(fd);
    return got == 14 && memcmp(head, "# tfc MANIFEST", 14) == 0;
}

static bool write_file(const char *dir, const gen_file *gf)
{
    char *path;
    if (asprintf(&path, "%s/%s", dir, gf->name) < 0)
        return false;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    free(path);
    if (fd < 0)
        return false;
    size_t off = 0;
    while (off < gf->len) {
        ssize_t w = write(fd, gf->data + off, gf->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            errno = e;
            return false;
        }
        off += (size_t)w;
    }
    if (fsync(fd) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return false;
    }
    return close(fd) == 0;
}

tfc_status outdir_write(const char *dir_arg, const gen_folder *g, diag_list *d)
{
    char *dir = strdup(dir_arg);
    char *parent = NULL, *tmp = NULL;
    tfc_status result = TFC_IO;
    if (!dir) {
        return diag_nomem(d, "writing the output folder");
    }
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        dir[--len] = '\0';
    const char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : dir;
    if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0) {
        diag_error(d, dir_arg, 0, 0, "cannot write the output folder here: name a folder (e.g. -o out/NAME)");
        goto out;
    }
    parent = slash ? strndup(dir, (size_t)(slash - dir) + (slash == dir)) : strdup(".");
    if (!parent || asprintf(&tmp, "%s/.%s.tfc-%ld-XXXXXX", parent, base, (long)getpid()) < 0) {
        tmp = NULL;
        result = diag_nomem(d, "writing the output folder");
        goto out;
    }
    if (!mkdir_p(parent)) {
        diag_error(d, dir_arg, 0, 0, "cannot create the parent folder %s: %s", parent, strerror(errno));
        goto out;
    }
    remove_stale(parent, base, dir);
    /* Two folders here, one there: said, not refused (this file system
     * tells them apart, and the folder beside may be no business of tfc's). */
    char *twin = case_twin(parent, base);
    if (twin) {
        diag_warning(d, dir_arg, 0, 0,
                     "differs only in letter case from %s beside it: on a case-insensitive file system (macOS, "
                     "Windows) the two are one folder, and writing one replaces the other; give a name that differs "
                     "in more than case (for a folder named after its spec, the spec's name: the generated macros, "
                     "the name in capitals, are the same for both too)", twin);
        free(twin);
    }
    /* Test hooks (tests/codegen/crash.sh): take the two-rename fallback as
     * if the file system had no RENAME_EXCHANGE, and stop between its
     * renames so that a test can kill tfc there. */
    bool no_exchange = getenv("TFC_TEST_OUTDIR_NO_EXCHANGE") != NULL;
    bool stop_between = getenv("TFC_TEST_OUTDIR_STOP_BETWEEN") != NULL;
    struct stat st;
    bool exists = lstat(dir, &st) == 0;
    if (!check_target(dir, dir_arg, exists, &st, g, d))
        goto out;
    if (!mkdtemp(tmp)) {
        diag_error(d, dir_arg, 0, 0, "cannot create a temporary folder in %s: %s", parent, strerror(errno));
        free(tmp);
        tmp = NULL;
        goto out;
    }
    mode_t mask = umask(0);
    umask(mask);
    if (chmod(tmp, 0777 & ~mask) != 0) {
        diag_error(d, dir_arg, 0, 0, "cannot set the permissions of %s: %s", tmp, strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < g->n; i++)
        if (!write_file(tmp, &g->files[i])) {
            diag_error(d, dir_arg, 0, 0, "cannot write %s: %s", g->files[i].name, strerror(errno));
            goto out;
        }
    if (!fsync_path(tmp)) {
        diag_error(d, dir_arg, 0, 0, "cannot flush the new folder to disk: %s", strerror(errno));
        goto out;
    }
    /* Another tfc may create or replace the folder meanwhile (parallel
     * builds): a new folder that appeared is replaced like an old one. */
    for (int attempt = 0; !exists; attempt++) {
        if (rename(tmp, dir) == 0) {
            free(tmp);
            tmp = NULL;
            break;
        }
        if ((errno != ENOTEMPTY && errno != EEXIST) || attempt == 8) {
            diag_error(d, dir_arg, 0, 0, "cannot create the folder: %s", strerror(errno));
            goto out;
        }
        exists = lstat(dir, &st) == 0;
        if (exists && !check_target(dir, dir_arg, exists, &st, g, d))
            goto out;
    }
    if (tmp) {
        if (no_exchange || renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_EXCHANGE) != 0) {
            if (!no_exchange && errno != EINVAL && errno != ENOSYS) {
                diag_error(d, dir_arg, 0, 0, "cannot replace the folder: %s", strerror(errno));
                goto out;
            }
            /* No atomic exchange on this file system: two renames, so
             * for a moment the folder is absent. */
            char *old = NULL;
            if (asprintf(&old, "%s/.%s.tfc-old-%ld-XXXXXX", parent, base, (long)getpid()) < 0) {
                result = diag_nomem(d, "writing the output folder");
                goto out;
            }
            if (!mkdtemp(old) || rmdir(old) != 0 || rename(dir, old) != 0) {
                diag_error(d, dir_arg, 0, 0, "cannot replace the folder: %s", strerror(errno));
                free(old);
                goto out;
            }
            if (stop_between)
                (void)raise(SIGSTOP);
            if (rename(tmp, dir) != 0) {
                int e = errno;
                (void)rename(old, dir);
                free(old);
                diag_error(d, dir_arg, 0, 0, "cannot replace the folder: %s", strerror(e));
                goto out;
            }
            free(tmp);
            tmp = old;
        }
        /* tmp now holds the old folder. */
    }
    (void)fsync_path(parent);
    result = TFC_OK;
out:
    if (tmp && strstr(tmp, ".tfc-")) {
        struct stat ts;
        if (lstat(tmp, &ts) == 0 && !remove_tree(tmp, 0) && result == TFC_OK)
            diag_warning(d, dir_arg, 0, 0,
                         "the folder is written, but the previous one, moved aside to %s, could not be removed "
                         "(%s): remove it by hand",
                         tmp, strerror(errno));
    }
    free(tmp);
    free(parent);
    free(dir);
    return result;
}
