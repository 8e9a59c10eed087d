/* fio: reading whole input files with a size cap. */
#define _POSIX_C_SOURCE 200809L
#include "fio.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool fio_same_file(const char *path, const struct stat *st)
{
    struct stat o;
    return stat(path, &o) == 0 && o.st_dev == st->st_dev && o.st_ino == st->st_ino;
}

const char *fio_kind(unsigned mode)
{
    return S_ISDIR(mode)    ? "a directory"
           : S_ISCHR(mode)  ? "a character device"
           : S_ISBLK(mode)  ? "a block device"
           : S_ISFIFO(mode) ? "a FIFO"
           : S_ISSOCK(mode) ? "a socket"
           : S_ISREG(mode)  ? "a regular file"
                            : "not a regular file";
}

int fio_open_regular(const char *path, const char *what, diag_list *d)
{
    /* Non-blocking, so that a FIFO at path cannot stop the open itself. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        diag_error(d, path, 0, 0, "cannot open the %s: %s", what, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        diag_error(d, path, 0, 0, "cannot stat the %s: %s", what, strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        diag_error(d, path, 0, 0, "is %s, not a regular file (the %s is memory-mapped)", fio_kind(st.st_mode), what);
        close(fd);
        return -1;
    }
    return fd;
}

/* Opens path for fio_read_all: without blocking on a FIFO, and refusing
 * what is not a file or a pipe. A pipe or FIFO with no writer (nobody has
 * it open to write, and it holds nothing) is refused at once; one with a
 * writer is read to its end, blocking as a pipe does. *first holds what a
 * FIFO's first read gave (up to cap bytes; *nfirst of them). */
static int open_input(const char *path, struct stat *st, char *first, size_t cap, size_t *nfirst, diag_list *d)
{
    *nfirst = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) {
        diag_error(d, path, 0, 0, "cannot open: %s", strerror(errno));
        return -1;
    }
    if (fstat(fd, st) != 0) {
        diag_error(d, path, 0, 0, "cannot stat: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (!S_ISREG(st->st_mode) && !S_ISFIFO(st->st_mode)) {
        diag_error(d, path, 0, 0, "is %s, not a file", fio_kind(st->st_mode));
        close(fd);
        return -1;
    }
    if (S_ISFIFO(st->st_mode)) {
        /* Non-blocking, a read says which: data, EAGAIN (a writer that has
         * not written yet) or 0 (no writer yet). A writer gets a second to
         * open it (a producer started just before tfc), then it is refused:
         * waiting for one could be for ever. */
        ssize_t r;
        for (int waited_ms = 0;; waited_ms += 10) {
            do
                r = read(fd, first, cap);
            while (r < 0 && errno == EINTR);
            if (r != 0 || waited_ms >= 1000)
                break;
            (void)poll(NULL, 0, 10);
        }
        if (r == 0) {
            diag_error(d, path, 0, 0, "is a FIFO or pipe with no writer: nothing to read");
            close(fd);
            return -1;
        }
        if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            diag_error(d, path, 0, 0, "read error: %s", strerror(errno));
            close(fd);
            return -1;
        }
        *nfirst = r > 0 ? (size_t)r : 0;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

tfc_status fio_read_all(const char *path, size_t limit, char **buf, size_t *len, diag_list *d)
{
    *buf = NULL;
    *len = 0;
    bool is_stdin = strcmp(path, "-") == 0;
    const char *label = is_stdin ? "<stdin>" : path;
    tfc_status bad = TFC_IO;
    struct stat st;
    char first[4096];
    size_t nfirst = 0;
    int fd = STDIN_FILENO;
    if (is_stdin) {
        if (fstat(fd, &st) != 0) {
            diag_error(d, label, 0, 0, "cannot stat: %s", strerror(errno));
            return TFC_IO;
        }
        if (S_ISDIR(st.st_mode)) {
            diag_error(d, label, 0, 0, "is a directory, not a file");
            return TFC_IO;
        }
    } else if ((fd = open_input(path, &st, first, sizeof first, &nfirst, d)) < 0) {
        return TFC_IO;
    }
    if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > limit) {
        diag_error(d, label, 1, 1, "file is %lld bytes, larger than the limit of %zu bytes",
                   (long long)st.st_size, limit);
        if (!is_stdin)
            close(fd);
        return TFC_INVALID;
    }
    /* Read in growing steps, never more than limit + 1 bytes: pipes and
     * devices give no size up front. */
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
    if (cap > limit + 1)
        cap = limit + 1;
    if (cap < nfirst)
        cap = nfirst;
    char *b = malloc(cap + 1);
    if (!b) {
        bad = diag_nomem(d, "reading %zu bytes", cap);
        goto fail;
    }
    memcpy(b, first, nfirst);
    size_t n = nfirst;
    for (;;) {
        if (n == cap) {
            if (cap == limit + 1)
                break;
            size_t ncap = cap > (limit + 1) / 2 ? limit + 1 : cap * 2;
            char *nb = realloc(b, ncap + 1);
            if (!nb) {
                free(b);
                bad = diag_nomem(d, "reading %zu bytes", ncap);
                goto fail;
            }
            b = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            diag_error(d, label, 0, 0, "read error: %s", strerror(errno));
            free(b);
            goto fail;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    if (!is_stdin)
        close(fd);
    if (n > limit) {
        free(b);
        diag_error(d, label, 1, 1, "input is larger than the limit of %zu bytes", limit);
        return TFC_INVALID;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return TFC_OK;
fail:
    if (!is_stdin)
        close(fd);
    return bad;
}

FILE *fio_open_output(const char *path, diag_list *d)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0666);
    if (fd < 0) {
        if (errno == ENXIO)
            diag_error(d, path, 0, 0, "cannot write: a FIFO with no reader");
        else
            diag_error(d, path, 0, 0, "cannot write: %s", strerror(errno));
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "w");
    if (!f) {
        diag_error(d, path, 0, 0, "cannot write: %s", strerror(errno));
        close(fd);
    }
    return f;
}

/* A device at path (/dev/null, /dev/stdout's terminal): written in place,
 * never replaced by a renamed file (as root that would swap the device
 * for a regular file). */
static bool is_device(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && (S_ISCHR(sb.st_mode) || S_ISBLK(sb.st_mode));
}

/* Creates path's temporary sibling (path.tfc-tmp-PID) for writing: its
 * descriptor in *fd and its malloc'd name in *tmp. On failure the reason is
 * filed under path and nothing is left behind (*tmp NULL). */
static tfc_status open_tmp(const char *path, int *fd, char **tmp, diag_list *d)
{
    size_t n = strlen(path) + 32;
    *fd = -1;
    *tmp = malloc(n);
    if (!*tmp)
        return diag_nomem(d, "writing %s", path);
    snprintf(*tmp, n, "%s.tfc-tmp-%ld", path, (long)getpid());
    *fd = open(*tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (*fd < 0) {
        diag_error(d, path, 0, 0, "cannot write: %s", strerror(errno));
        free(*tmp);
        *tmp = NULL;
        return TFC_IO;
    }
    return TFC_OK;
}

tfc_status fio_stage(const char *path, const void *data, size_t len, diag_list *d, char **tmp_out)
{
    *tmp_out = NULL;
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) { /* rename would fail only after the work */
        diag_error(d, path, 0, 0, "cannot write: %s", strerror(EISDIR));
        return TFC_IO;
    }
    if (is_device(path)) {
        FILE *f = fio_open_output(path, d);
        if (!f)
            return TFC_IO;
        bool ok = fwrite(data, 1, len, f) == len;
        if (fclose(f) != 0 || !ok) {
            diag_error(d, path, 0, 0, "cannot write: %s", strerror(errno ? errno : EIO));
            return TFC_IO;
        }
        return TFC_OK; /* *tmp_out stays NULL: nothing to commit */
    }
    char *tmp;
    int fd;
    tfc_status st = open_tmp(path, &fd, &tmp, d);
    if (st != TFC_OK)
        return st;
    bool ok = true;
    const char *p = data;
    size_t off = 0;
    while (ok && off < len) {
        ssize_t w = write(fd, p + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        ok = w > 0;
        if (ok)
            off += (size_t)w;
    }
    ok = ok && fsync(fd) == 0;
    int err = errno;
    if (close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        diag_error(d, path, 0, 0, "cannot write: %s", strerror(err ? err : EIO));
        unlink(tmp);
        free(tmp);
        return TFC_IO;
    }
    *tmp_out = tmp;
    return TFC_OK;
}

tfc_status fio_commit(char *tmp, const char *path, diag_list *d)
{
    if (!tmp) /* written in place (a device) */
        return TFC_OK;
    bool ok = rename(tmp, path) == 0;
    if (!ok) {
        diag_error(d, path, 0, 0, "cannot write: %s", strerror(errno ? errno : EIO));
        unlink(tmp);
    }
    free(tmp);
    return ok ? TFC_OK : TFC_IO;
}

void fio_discard(char *tmp)
{
    if (tmp)
        unlink(tmp);
    free(tmp);
}

bool fio_out_open(fio_out *o, const char *path, diag_list *d)
{
    o->path = path;
    o->tmp = NULL;
    o->f = NULL;
    struct stat sb;
    bool exists = stat(path, &sb) == 0;
    if (exists && S_ISDIR(sb.st_mode)) {
        diag_error(d, path, 0, 0, "cannot write: %s", strerror(EISDIR));
        return false;
    }
    if (exists && !S_ISREG(sb.st_mode)) /* a device, or a FIFO with a reader: in place */
        return (o->f = fio_open_output(path, d)) != NULL;
    int fd;
    if (open_tmp(path, &fd, &o->tmp, d) != TFC_OK)
        return false;
    o->f = fdopen(fd, "w");
    if (!o->f) {
        diag_nomem(d, "writing %s", path);
        close(fd);
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return false;
    }
    return true;
}

tfc_status fio_out_close(fio_out *o, bool ok, diag_list *d)
{
    if (!o->f)
        return TFC_IO;
    bool wrote = ok && !ferror(o->f) && fflush(o->f) == 0 && (!o->tmp || fsync(fileno(o->f)) == 0);
    int err = errno;
    if (fclose(o->f) != 0 && wrote) {
        wrote = false;
        err = errno;
    }
    o->f = NULL;
    if (ok && !wrote)
        diag_error(d, o->path, 0, 0, "cannot write: %s", strerror(err ? err : EIO));
    tfc_status st = wrote ? TFC_OK : TFC_IO;
    if (o->tmp) {
        if (wrote)
            st = fio_commit(o->tmp, o->path, d);
        else
            fio_discard(o->tmp);
        o->tmp = NULL;
    }
    return st;
}

tfc_status fio_write_atomic(const char *path, const void *data, size_t len, diag_list *d)
{
    char *tmp;
    tfc_status st = fio_stage(path, data, len, d, &tmp);
    return st == TFC_OK ? fio_commit(tmp, path, d) : st;
}
