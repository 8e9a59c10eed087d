/* fio: reading whole input files with a size cap. */
#define _POSIX_C_SOURCE 200809L
#include "fio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

tfc_status fio_read_all(const char *path, size_t limit, char **buf, size_t *len, diag_list *d)
{
    *buf = NULL;
    *len = 0;
    bool is_stdin = strcmp(path, "-") == 0;
    const char *label = is_stdin ? "<stdin>" : path;
    tfc_status bad = TFC_IO;
    int fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        diag_error(d, label, 0, 0, "cannot open: %s", strerror(errno));
        return TFC_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        diag_error(d, label, 0, 0, "cannot stat: %s", strerror(errno));
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        diag_error(d, label, 0, 0, "is a directory, not a file");
        goto fail;
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
    char *b = malloc(cap + 1);
    if (!b) {
        bad = diag_nomem(d, "reading %zu bytes", cap);
        goto fail;
    }
    size_t n = 0;
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

tfc_status fio_write_atomic(const char *path, const void *data, size_t len, diag_list *d)
{
    size_t n = strlen(path) + 32;
    char *tmp = malloc(n);
    if (!tmp)
        return diag_nomem(d, "writing %s", path);
    snprintf(tmp, n, "%s.tfc-tmp-%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    bool ok = fd >= 0;
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
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        diag_error(d, path, 0, 0, "cannot write: %s", strerror(err ? err : EIO));
        unlink(tmp);
    }
    free(tmp);
    return ok ? TFC_OK : TFC_IO;
}
