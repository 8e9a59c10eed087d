/* lcp_set: index sets, written and read, and their merged answers. */
#define _XOPEN_SOURCE 700 /* realpath, getcwd */
#include "lcp_set.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fio.h"
#include "json.h"
#include "json_read.h"
#include "lcp_merge.h"
#include "text.h"

/* ---- paths ---- */

/* The folder of path ("." when it has none), in the arena. */
static const char *folder_of(const char *path, arena *a)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ".";
    if (slash == path)
        return "/";
    return arena_strndup(a, path, (size_t)(slash - path));
}

static const char *join(const char *dir, const char *rel, arena *a)
{
    size_t n = strlen(dir), m = strlen(rel);
    char *p = arena_alloc(a, n + m + 2);
    if (p)
        snprintf(p, n + m + 2, "%s/%s", dir, rel);
    return p;
}

/* The absolute path to, relative to the absolute folder from (both free of
 * "." and ".." components), in the arena; *ups: its leading ".."s. */
static const char *spelled_from(const char *from, const char *to, size_t *ups, arena *a)
{
    /* Components after the leading '/': the common ones, then ".." for each
     * of from's left and to's own. */
    const char *x = from + 1, *y = to + 1;
    for (;;) {
        size_t nx = strcspn(x, "/"), ny = strcspn(y, "/");
        if (!nx || nx != ny || memcmp(x, y, nx) != 0)
            break;
        x += nx + (x[nx] == '/');
        y += ny + (y[ny] == '/');
    }
    *ups = 0;
    for (const char *c = x; *c; c += strcspn(c, "/"), c += *c == '/')
        (*ups)++;
    char *out = arena_alloc(a, 3 * *ups + strlen(y) + 2);
    if (!out)
        return NULL;
    for (size_t k = 0; k < *ups; k++)
        strcat(out, "../");
    strcat(out, y);
    size_t n = strlen(out);
    if (n && out[n - 1] == '/')
        out[n - 1] = '\0';
    return out;
}

/* path as spelt, made absolute (the working folder before a relative one)
 * with "." and empty components dropped and each ".." taking the component
 * before it, links not followed; in the arena (NULL: no memory, or no
 * working folder). */
static const char *spelled_absolute(const char *path, arena *a)
{
    char cwd[PATH_MAX] = "";
    if (path[0] != '/' && !getcwd(cwd, sizeof cwd))
        return NULL;
    size_t n = strlen(cwd) + strlen(path) + 3;
    char *out = arena_alloc(a, n);
    if (!out)
        return NULL;
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (const char *c = pass ? path : cwd; *c;) {
            size_t m = strcspn(c, "/");
            if (m == 2 && c[0] == '.' && c[1] == '.') {
                while (k && out[--k] != '/')
                    ;
            } else if (m && !(m == 1 && c[0] == '.')) {
                out[k++] = '/';
                memcpy(out + k, c, m);
                k += m;
            }
            c += m + (c[m] == '/');
        }
    if (!k)
        out[k++] = '/';
    out[k] = '\0';
    return out;
}

/* target as the set at set_path (in folder dir) writes it: relative to dir
 * as spelt, links kept, so that a folder holding the set and its files
 * (links to them included) moves and copies as a whole. ".." is resolved
 * by the system from where dir really is, though: where the spelt path
 * does not reach target that way (dir, or a folder of it that ".." climbs
 * out of, is a link) or climbs further than the resolved one, the path
 * between the two resolved (links followed) instead. NULL with an error
 * when either cannot be resolved. */
static const char *relative_to(const char *set_path, const char *dir, const char *target, arena *a, diag_list *d)
{
    char rd[PATH_MAX], rt[PATH_MAX];
    struct stat st;
    if (!realpath(dir, rd)) { /* named by the caller's path: dir is in the arena */
        diag_error(d, set_path, 0, 0, "cannot resolve the set's folder: %s", strerror(errno));
        return NULL;
    }
    if (!realpath(target, rt) || stat(rt, &st) != 0) {
        diag_error(d, target, 0, 0, "cannot resolve: %s", strerror(errno));
        return NULL;
    }
    size_t ups = 0, ups_spelt = 0;
    const char *resolved = spelled_from(rd, rt, &ups, a);
    const char *sd = spelled_absolute(dir, a), *stg = spelled_absolute(target, a);
    const char *spelt = sd && stg ? spelled_from(sd, stg, &ups_spelt, a) : NULL;
    const char *reached = spelt && ups_spelt <= ups ? join(dir, spelt, a) : NULL;
    if (reached && fio_same_file(reached, &st))
        return spelt;
    if (!resolved)
        diag_nomem(d, "writing the set");
    return resolved;
}

/* ---- writing ---- */

static void close_parts(lcp_set_part *p, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (p[i].open) {
            lcp_index_close(&p[i].ix);
            lcp_shards_close(&p[i].sh);
            p[i].open = false;
        }
}

/* Opens part p's shards and index; TFC_OK or the failure. */
static tfc_status open_part(lcp_set_part *p, bool raw, uint32_t token_bytes, bool verify, diag_list *d)
{
    tfc_status st = lcp_shards_open(p->shard_paths, p->n_shards, raw, token_bytes, &p->sh, d);
    if (st != TFC_OK)
        return st;
    st = lcp_index_open(p->index_path, &p->sh, verify, &p->ix, d);
    if (st != TFC_OK) {
        lcp_shards_close(&p->sh);
        return st;
    }
    p->open = true;
    return TFC_OK;
}

/* What differs between index x and the kind of sequences a set holds
 * (token width, seq_len, windows or documents, separator or stride), or
 * NULL. */
static const char *kind_differs(const lcp_index *x, uint32_t token_bytes, uint32_t seq_len, bool docs, uint32_t doc_sep,
                                uint32_t stride)
{
    return x->token_bytes != token_bytes           ? "token width"
           : x->seq_len != seq_len                 ? "seq_len"
           : (x->docs != NULL) != docs             ? "kind (windows or documents)"
           : docs && x->doc_sep != doc_sep         ? "document separator"
           : !docs && x->stride != stride          ? "stride"
                                                   : NULL;
}

/* Part p against part 0: the same kind of sequences. */
static bool same_kind(const lcp_set_part *p0, const lcp_set_part *p, diag_list *d)
{
    const lcp_index *a = &p0->ix;
    const char *what = kind_differs(&p->ix, a->token_bytes, a->seq_len, a->docs != NULL, a->doc_sep, a->stride);
    if (what)
        diag_error(d, p->index_path, 0, 0, "its %s differs from the first part's (%s): a set's parts are cut from one "
                   "corpus with one build command", what, p0->index_path);
    return what == NULL;
}

/* A file by device and inode (have false: it could not be stat'ed): a part
 * listed twice, however spelt, is found by comparing these, one stat a
 * part (realpath for every pair took 22 s at 4,096 parts). */
typedef struct file_id {
    dev_t dev;
    ino_t ino;
    bool have;
} file_id;

static file_id id_of(const char *path)
{
    struct stat sb;
    file_id f = {0, 0, false};
    if (stat(path, &sb) == 0)
        f = (file_id){sb.st_dev, sb.st_ino, true};
    return f;
}

/* The earlier of ids[0..i) that is the same file as ids[i], or i. */
static uint32_t earlier_same(const file_id *ids, uint32_t i)
{
    for (uint32_t j = 0; ids[i].have && j < i; j++)
        if (ids[j].have && ids[j].dev == ids[i].dev && ids[j].ino == ids[i].ino)
            return j;
    return i;
}

tfc_status lcp_set_write(const char *path, const lcp_set_input *in, uint32_t n_parts, bool raw, uint32_t token_bytes,
                         bool verify, diag_list *d)
{
    if (n_parts == 0 || n_parts > LCP_SET_MAX_PARTS) {
        diag_error(d, path, 0, 0, "a set has 1 to %u parts, got %u", LCP_SET_MAX_PARTS, n_parts);
        return TFC_INVALID;
    }
    arena a;
    arena_init(&a, 0);
    lcp_set_part *parts = arena_alloc_array(&a, n_parts, sizeof *parts);
    file_id *ids = arena_alloc_array(&a, n_parts, sizeof *ids);
    const char *dir = folder_of(path, &a);
    char *text = NULL;
    size_t text_len = 0;
    FILE *f = NULL;
    tfc_status st = parts && ids && dir ? TFC_OK : diag_nomem(d, "writing the set %s", path);
    for (uint32_t i = 0; st == TFC_OK && i < n_parts; i++) {
        parts[i].index_path = in[i].index;
        parts[i].shard_paths = (const char **)in[i].shards;
        parts[i].n_shards = in[i].n_shards;
        st = open_part(&parts[i], raw, token_bytes, verify, d);
        if (st == TFC_OK && i && !same_kind(&parts[0], &parts[i], d))
            st = TFC_INVALID;
        ids[i] = id_of(in[i].index);
        uint32_t j = st == TFC_OK ? earlier_same(ids, i) : i;
        if (j < i) {
            diag_error(d, in[i].index, 0, 0, "listed twice (parts %u and %u): its sequences would count twice", j, i);
            st = TFC_INVALID;
        }
    }
    if (st == TFC_OK && !(f = open_memstream(&text, &text_len)))
        st = diag_nomem(d, "writing the set %s", path);
    uint64_t total = 0;
    if (st == TFC_OK) {
        const lcp_index *x = &parts[0].ix;
        fprintf(f, "{\n  \"format\": \"%s\",\n  \"version\": %u,\n  \"token_bytes\": %u,\n  \"raw\": %s,\n"
                   "  \"seq_len\": %u,\n",
                LCP_SET_FORMAT, LCP_SET_VERSION, x->token_bytes, raw ? "true" : "false", x->seq_len);
        if (x->docs)
            fprintf(f, "  \"doc_sep\": %u,\n", x->doc_sep);
        else
            fprintf(f, "  \"stride\": %u,\n", x->stride);
        for (uint32_t i = 0; i < n_parts; i++)
            total += parts[i].ix.n;
        fprintf(f, "  \"sequences\": %llu,\n  \"parts\": [", (unsigned long long)total);
    }
    uint64_t first = 0;
    for (uint32_t i = 0; st == TFC_OK && i < n_parts; i++) {
        const lcp_set_part *p = &parts[i];
        const char *rel = relative_to(path, dir, p->index_path, &a, d);
        if (!rel) {
            st = TFC_IO;
            break;
        }
        fprintf(f, "%s\n    {\"index\": ", i ? "," : "");
        json_string(f, rel);
        fprintf(f, ", \"first\": %llu, \"sequences\": %llu, \"checksum\": \"%016llx\",\n     \"shards\": [",
                (unsigned long long)first, (unsigned long long)p->ix.n,
                (unsigned long long)lcp_index_checksum(&p->ix));
        for (uint32_t j = 0; j < p->n_shards; j++) {
            const char *srel = relative_to(path, dir, p->shard_paths[j], &a, d);
            if (!srel) {
                st = TFC_IO;
                break;
            }
            fprintf(f, "%s\n       {\"path\": ", j ? "," : "");
            json_string(f, srel);
            fprintf(f, ", \"bytes\": %llu, \"tokens\": %llu, \"fingerprint\": \"%016llx\"}",
                    (unsigned long long)p->sh.s[j].file_size, (unsigned long long)p->sh.s[j].n_tokens,
                    (unsigned long long)p->sh.s[j].fingerprint);
        }
        fprintf(f, "]}");
        first += p->ix.n;
    }
    if (f) {
        if (st == TFC_OK)
            fprintf(f, "\n  ]\n}\n");
        if (fclose(f) != 0 && st == TFC_OK)
            st = diag_nomem(d, "writing the set %s", path);
    }
    if (st == TFC_OK)
        st = fio_write_atomic(path, text, text_len, d);
    free(text);
    if (parts)
        close_parts(parts, n_parts);
    arena_free(&a);
    return st;
}

/* ---- reading ---- */

typedef struct reader {
    const char *path, *buf;
    size_t len;
    diag_list *d;
} reader;

static tfc_status bad_at(const reader *r, const jv *v, const char *fmt, const char *what)
{
    unsigned line = 0, col = 0;
    if (v)
        text_position(r->buf, r->len, v->off, &line, &col);
    diag_error(r->d, r->path, line, col, fmt, what);
    return TFC_INVALID;
}

/* An integer member in [lo, hi] (numbers are doubles: exact to 2^53). */
static bool get_uint(const reader *r, const jv *obj, const char *key, uint64_t lo, uint64_t hi, uint64_t *out,
                     tfc_status *st)
{
    const jv *v = jv_get(obj, key);
    if (!v) {
        *st = bad_at(r, obj, "missing \"%s\"", key);
        return false;
    }
    if (v->kind != JV_NUM || !(v->num >= (double)lo && v->num <= (double)hi) || v->num != (double)(uint64_t)v->num) {
        unsigned line, col;
        text_position(r->buf, r->len, v->off, &line, &col);
        diag_error(r->d, r->path, line, col, "\"%s\" must be an integer from %llu to %llu", key,
                   (unsigned long long)lo, (unsigned long long)hi);
        *st = TFC_INVALID;
        return false;
    }
    *out = (uint64_t)v->num;
    return true;
}

/* A hex string of 16 digits (a checksum or fingerprint). */
static bool get_hex64(const reader *r, const jv *obj, const char *key, uint64_t *out, tfc_status *st)
{
    const jv *v = jv_get(obj, key);
    if (!v || v->kind != JV_STR || strlen(v->str) != 16 || strspn(v->str, "0123456789abcdef") != 16) {
        *st = bad_at(r, v ? v : obj, "\"%s\" must be 16 lowercase hex digits", key);
        return false;
    }
    *out = strtoull(v->str, NULL, 16);
    return true;
}

/* A relative path member, joined with the set's folder. */
static const char *get_path(const reader *r, const jv *obj, const char *key, const char *dir, arena *a,
                            tfc_status *st)
{
    const jv *v = jv_get(obj, key);
    if (!v || v->kind != JV_STR || !v->str[0]) {
        *st = bad_at(r, v ? v : obj, "\"%s\" must be a non-empty path", key);
        return NULL;
    }
    if (v->str[0] == '/') {
        *st = bad_at(r, v, "\"%s\" is absolute: a set names its files relative to its folder, so it moves with "
                           "them", key);
        return NULL;
    }
    const char *p = join(dir, v->str, a);
    if (!p)
        *st = diag_nomem(r->d, "reading the set %s", r->path);
    return p;
}

static tfc_status read_part(const reader *r, const jv *pv, uint32_t i, const char *dir, lcp_set *s, uint64_t first,
                            uint64_t (**recp)[3], uint64_t *checksum)
{
    tfc_status st = TFC_OK;
    lcp_set_part *p = &s->parts[i];
    if (pv->kind != JV_OBJ)
        return bad_at(r, pv, "%s", "a part is an object: {\"index\", \"first\", \"sequences\", \"checksum\", \"shards\"}");
    uint64_t f;
    if (!(p->index_path = get_path(r, pv, "index", dir, &s->a, &st)) ||
        !get_uint(r, pv, "first", 0, (uint64_t)1 << 53, &f, &st) ||
        !get_uint(r, pv, "sequences", 0, (uint64_t)1 << 32, &p->n, &st) || !get_hex64(r, pv, "checksum", checksum, &st))
        return st;
    if (f != first)
        return bad_at(r, jv_get(pv, "first"), "%s", "\"first\" is not the sequences of the parts before it: parts out "
                                                    "of order, or one missing");
    p->first = first;
    const jv *sv = jv_get(pv, "shards");
    if (!sv || sv->kind != JV_ARR || sv->n == 0 || sv->n > LCP_INDEX_MAX_SHARDS)
        return bad_at(r, sv ? sv : pv, "%s", "\"shards\" must be a list of 1 to 65,536 shards");
    p->n_shards = (uint32_t)sv->n;
    p->shard_paths = arena_alloc_array(&s->a, sv->n, sizeof *p->shard_paths);
    uint64_t(*rec)[3] = arena_alloc_array(&s->a, sv->n, sizeof *rec);
    if (!p->shard_paths || !rec)
        return diag_nomem(r->d, "reading the set %s", r->path);
    *recp = rec;
    for (size_t j = 0; j < sv->n; j++) {
        const jv *e = &sv->items[j];
        if (e->kind != JV_OBJ)
            return bad_at(r, e, "%s", "a shard is an object: {\"path\", \"bytes\", \"tokens\", \"fingerprint\"}");
        if (!(p->shard_paths[j] = get_path(r, e, "path", dir, &s->a, &st)) ||
            !get_uint(r, e, "bytes", 0, (uint64_t)1 << 53, &rec[j][0], &st) ||
            !get_uint(r, e, "tokens", 0, (uint64_t)1 << 53, &rec[j][1], &st) ||
            !get_hex64(r, e, "fingerprint", &rec[j][2], &st))
            return st;
    }
    return TFC_OK;
}

/* Opens part p of the set (its entry pv) as the set recorded it: its shards
 * and index must be the files the set was written with, and where they are
 * not, the set's entry is named (an index rebuilt, from other shards say,
 * would otherwise be reported at the shard it no longer matches). rec: the
 * shards' recorded size, token count and fingerprint. */
static tfc_status open_recorded(const reader *r, const jv *pv, lcp_set_part *p, const lcp_set *s,
                                uint64_t (*rec)[3], uint64_t checksum, bool verify)
{
    tfc_status st = lcp_shards_open(p->shard_paths, p->n_shards, s->raw, s->token_bytes, &p->sh, r->d);
    if (st != TFC_OK)
        return st;
    const jv *sv = jv_get(pv, "shards");
    for (uint32_t j = 0; j < p->n_shards; j++) {
        const lcp_shard *h = &p->sh.s[j];
        const char *what = h->file_size != rec[j][0]     ? "size"
                           : h->n_tokens != rec[j][1]    ? "token count"
                           : h->fingerprint != rec[j][2] ? "fingerprint"
                                                         : NULL;
        if (what) {
            lcp_shards_close(&p->sh);
            return bad_at(r, &sv->items[j], "shard does not match the set: its %s (changed since the set was written)",
                          what);
        }
    }
    st = lcp_index_map(p->index_path, verify, &p->ix, r->d);
    if (st == TFC_OK && lcp_index_checksum(&p->ix) != checksum) {
        char what[128];
        snprintf(what, sizeof what, "checksum %016llx, the set records %016llx",
                 (unsigned long long)lcp_index_checksum(&p->ix), (unsigned long long)checksum);
        lcp_index_close(&p->ix);
        st = bad_at(r, pv, "part's index does not match the set: %s (the index was rebuilt since the set was "
                           "written: write the set again, or put the index back)", what);
    }
    if (st == TFC_OK)
        st = lcp_index_attach(&p->ix, p->index_path, &p->sh, r->d);
    if (st != TFC_OK) {
        lcp_shards_close(&p->sh);
        return st;
    }
    p->open = true;
    return TFC_OK;
}

static void drop_directory(lcp_set *s)
{
    if (s->dir)
        lcp_setdir_free(s->dir);
    free(s->dir);
    s->dir = NULL;
}

bool lcp_set_directory(lcp_set *s, uint32_t step)
{
    if (!step || s->n_parts < 2 || s->n_parts > LCP_SETDIR_MAX_PARTS) {
        drop_directory(s);
        return !step;
    }
    const lcp_index *ix[LCP_SETDIR_MAX_PARTS];
    uint64_t first[LCP_SETDIR_MAX_PARTS];
    for (uint32_t p = 0; p < s->n_parts; p++) {
        if (!s->parts[p].open)
            return false;
        ix[p] = &s->parts[p].ix, first[p] = s->parts[p].first;
    }
    lcp_setdir *m = malloc(sizeof *m);
    if (m && lcp_setdir_build(m, ix, first, s->n_parts, step)) { /* the old one goes only once the new one is there */
        drop_directory(s);
        s->dir = m;
        return true;
    }
    free(m);
    return false;
}

static tfc_status set_open(const char *path, uint32_t only, bool verify, bool derive, lcp_set *s, diag_list *d)
{
    memset(s, 0, sizeof *s);
    arena_init(&s->a, 0);
    char *buf;
    size_t len;
    tfc_status st = fio_read_all(path, LCP_SET_MAX_BYTES, &buf, &len, d);
    if (st != TFC_OK)
        return st;
    reader r = {path, buf, len, d};
    jv *root = NULL;
    st = json_parse(buf, len, path, false, &s->a, d, &root);
    const char *dir = folder_of(path, &s->a);
    uint64_t v, tb = 0, seq_len = 0, stride = 0, sep = 0, total = 0;
    const jv *fmt = st == TFC_OK ? jv_get(root, "format") : NULL;
    if (st == TFC_OK && (root->kind != JV_OBJ || !fmt || fmt->kind != JV_STR || strcmp(fmt->str, LCP_SET_FORMAT) != 0))
        st = bad_at(&r, fmt ? fmt : root, "not an LCP index set (\"format\": \"%s\")", LCP_SET_FORMAT);
    if (st == TFC_OK && get_uint(&r, root, "version", 1, UINT32_MAX, &v, &st) && v != LCP_SET_VERSION)
        st = bad_at(&r, jv_get(root, "version"), "a set of a later format version: this tfc reads version 1%s", "");
    const jv *rawv = st == TFC_OK ? jv_get(root, "raw") : NULL;
    if (st == TFC_OK && (!rawv || rawv->kind != JV_BOOL))
        st = bad_at(&r, rawv ? rawv : root, "%s", "\"raw\" must be true or false");
    if (st == TFC_OK && get_uint(&r, root, "token_bytes", 2, 4, &tb, &st) && tb == 3)
        st = bad_at(&r, jv_get(root, "token_bytes"), "%s", "\"token_bytes\" must be 2 or 4");
    if (st == TFC_OK)
        get_uint(&r, root, "seq_len", 1, 1u << 20, &seq_len, &st);
    if (st == TFC_OK) {
        s->docs = jv_get(root, "doc_sep") != NULL;
        if (s->docs == (jv_get(root, "stride") != NULL))
            st = bad_at(&r, root, "%s", "a set has \"stride\" (windows) or \"doc_sep\" (documents), one of them");
        else if (s->docs)
            get_uint(&r, root, "doc_sep", 0, UINT32_MAX, &sep, &st);
        else
            get_uint(&r, root, "stride", 1, 1u << 30, &stride, &st);
    }
    if (st == TFC_OK)
        get_uint(&r, root, "sequences", 0, (uint64_t)1 << 53, &total, &st);
    const jv *pv = st == TFC_OK ? jv_get(root, "parts") : NULL;
    if (st == TFC_OK && (!pv || pv->kind != JV_ARR || pv->n == 0 || pv->n > LCP_SET_MAX_PARTS))
        st = bad_at(&r, pv ? pv : root, "\"parts\" must be a list of 1 to %s parts", "4096");
    if (st == TFC_OK && only != UINT32_MAX && only >= pv->n) {
        diag_error(d, path, 0, 0, "no part %u: the set has %zu", only, pv->n);
        st = TFC_INVALID;
    }
    if (st == TFC_OK) {
        s->token_bytes = (uint32_t)tb, s->seq_len = (uint32_t)seq_len, s->raw = rawv->b;
        s->stride = s->docs ? s->seq_len : (uint32_t)stride, s->doc_sep = (uint32_t)sep;
        s->n_parts = (uint32_t)pv->n;
        if (!(s->parts = arena_alloc_array(&s->a, pv->n, sizeof *s->parts)))
            st = diag_nomem(d, "reading the set %s", path);
    }
    file_id *ids = st == TFC_OK ? arena_alloc_array(&s->a, pv->n, sizeof *ids) : NULL;
    if (st == TFC_OK && !ids)
        st = diag_nomem(d, "reading the set %s", path);
    file_id self = id_of(path);
    uint64_t first = 0;
    for (uint32_t i = 0; st == TFC_OK && i < s->n_parts; i++) {
        lcp_set_part *p = &s->parts[i];
        uint64_t checksum, (*rec)[3] = NULL; /* the recorded shards: bytes, tokens, fingerprint */
        st = read_part(&r, &pv->items[i], i, dir, s, first, &rec, &checksum);
        if (st != TFC_OK)
            break;
        ids[i] = id_of(p->index_path);
        if (ids[i].have && self.have && ids[i].dev == self.dev && ids[i].ino == self.ino) {
            st = bad_at(&r, jv_get(&pv->items[i], "index"), "%s", "part names the set itself");
            break;
        }
        if (earlier_same(ids, i) < i) {
            st = bad_at(&r, jv_get(&pv->items[i], "index"), "%s", "part listed twice: its sequences would count twice");
            break;
        }
        if (st == TFC_OK && only != UINT32_MAX && i != only) {
            first += p->n; /* another's part: as the set file says */
            continue;
        }
        st = open_recorded(&r, &pv->items[i], p, s, rec, checksum, verify);
        if (st != TFC_OK)
            break;
        const lcp_index *x = &p->ix;
        const char *what = kind_differs(x, s->token_bytes, s->seq_len, s->docs, s->doc_sep, s->stride);
        if (!what && x->n != p->n)
            what = "sequence count";
        if (what) {
            st = bad_at(&r, &pv->items[i], "part's index does not match the set: %s", what);
            break;
        }
        if (derive)
            st = lcp_index_derive(&p->ix, p->index_path, d);
        first += p->n;
    }
    if (st == TFC_OK && first != total)
        st = bad_at(&r, jv_get(root, "sequences"), "%s", "\"sequences\" is not the parts' sum");
    s->n = first;
    free(buf);
    if (st == TFC_OK && derive && only == UINT32_MAX)
        lcp_set_directory(s, LCP_SETDIR_STEP); /* where it applies, and memory allows */
    if (st != TFC_OK && s->parts) /* the arena stays: the errors name its paths */
        close_parts(s->parts, s->n_parts);
    return st;
}

tfc_status lcp_set_open(const char *path, bool verify, bool derive, lcp_set *s, diag_list *d)
{
    return set_open(path, UINT32_MAX, verify, derive, s, d);
}

tfc_status lcp_set_open_part(const char *path, uint32_t part, bool verify, bool derive, lcp_set *s, diag_list *d)
{
    return set_open(path, part, verify, derive, s, d);
}

void lcp_set_close(lcp_set *s)
{
    drop_directory(s);
    if (s->parts)
        close_parts(s->parts, s->n_parts);
    s->parts = NULL;
    s->n_parts = 0;
    arena_free(&s->a);
}

/* ---- answers ---- */

bool lcp_set_work_init(lcp_set_work *w, uint64_t k)
{
    w->k = k;
    w->pseq = malloc(k * sizeof *w->pseq);
    w->plcp = malloc(k * sizeof *w->plcp);
    w->mseq = malloc(k * sizeof *w->mseq);
    w->mlcp = malloc(k * sizeof *w->mlcp);
    w->gseq = malloc(k * sizeof *w->gseq);
    if (w->pseq && w->plcp && w->mseq && w->mlcp && w->gseq)
        return true;
    lcp_set_work_free(w);
    return false;
}

void lcp_set_work_free(lcp_set_work *w)
{
    free(w->pseq);
    free(w->plcp);
    free(w->mseq);
    free(w->mlcp);
    free(w->gseq);
    memset(w, 0, sizeof *w);
}

/* Part p's share of a merged top-k: its answer for the query merged into
 * the cnt held in seq and lcp (those of parts 0..p-1); returns the new
 * count, min(k, the sequences of parts 0..p) whatever the query. pl: the
 * query's place in the part (lcp_index_places). */
static uint64_t topk_part(const lcp_set *s, uint32_t p, const void *query, const lcp_index_place *pl, lcp_set_work *w,
                          uint64_t *seq, uint32_t *lcp, uint64_t cnt)
{
    const lcp_set_part *pt = &s->parts[p];
    uint64_t k = w->k;
    /* Part p's numbers are above every one held: once k are held, it can
     * only enter with an LCP above the k-th's, and its search stops at the
     * levels that cannot (one search, no second pass over a prefix range). */
    int64_t above = cnt == k ? (int64_t)lcp[k - 1] : -1;
    if (above >= (int64_t)s->seq_len)
        return cnt;
    uint64_t got = lcp_index_topk_at(&pt->ix, query, pl, k, above, w->pseq, w->plcp);
    if (got == 0)
        return cnt;
    for (uint64_t j = 0; j < got; j++)
        w->gseq[j] = pt->first + w->pseq[j];
    uint64_t m = lcp_topk_merge(seq, lcp, cnt, w->gseq, w->plcp, got, k, w->mseq, w->mlcp);
    memcpy(seq, w->mseq, m * sizeof *seq);
    memcpy(lcp, w->mlcp, m * sizeof *lcp);
    return m;
}

/* Searches run AT_ONCE at a time (lcp_index_places: the first steps of
 * each over all of them, so that their waits on memory overlap), then each
 * is answered from its place. */
enum { AT_ONCE = 8 };

uint64_t lcp_set_topk(const lcp_set *s, const void *query, lcp_set_work *w, uint64_t *seq, uint32_t *lcp)
{
    uint64_t cnt = 0;
    lcp_index_bracket br[LCP_SETDIR_MAX_PARTS];
    if (s->dir) /* each part's two samples around the query, from one search */
        lcp_setdir_brackets(s->dir, query, br);
    for (uint32_t a = 0; a < s->n_parts; a += AT_ONCE) { /* the parts, AT_ONCE at a time */
        uint32_t m = s->n_parts - a < AT_ONCE ? s->n_parts - a : AT_ONCE;
        const lcp_index *ix[AT_ONCE];
        const void *qs[AT_ONCE];
        lcp_index_place pl[AT_ONCE];
        for (uint32_t i = 0; i < m; i++)
            ix[i] = &s->parts[a + i].ix, qs[i] = query;
        lcp_index_places_from(ix, qs, m, s->dir ? br + a : NULL, pl);
        for (uint32_t i = 0; i < m; i++)
            cnt = topk_part(s, a + i, query, &pl[i], w, seq, lcp, cnt);
    }
    return cnt;
}

uint64_t lcp_set_topk_batch(const lcp_set *s, const void *queries, uint64_t nq, lcp_set_work *w, uint64_t *seq,
                            uint32_t *lcp)
{
    uint64_t c = w->k < s->n ? w->k : s->n, cnt = 0, next = 0;
    size_t qbytes = (size_t)s->seq_len * s->token_bytes;
    const unsigned char *q = queries;
    if (s->dir) { /* one search each over the merged directory beats the parts' arrays kept in cache */
        for (uint64_t i = 0; i < nq; i++)
            lcp_set_topk(s, q + i * qbytes, w, seq + i * c, lcp + i * c);
        return c;
    }
    /* Part by part, AT_ONCE queries at a time: a part's search arrays stay
     * in cache across the queries (docs/lcp-index.md, "Index sets at
     * scale"). */
    for (uint32_t p = 0; p < s->n_parts; p++, cnt = next)
        for (uint64_t a = 0; a < nq; a += AT_ONCE) {
            uint32_t m = nq - a < AT_ONCE ? (uint32_t)(nq - a) : AT_ONCE;
            const lcp_index *ix[AT_ONCE];
            const void *qs[AT_ONCE];
            lcp_index_place pl[AT_ONCE];
            for (uint32_t i = 0; i < m; i++)
                ix[i] = &s->parts[p].ix, qs[i] = q + (a + i) * qbytes;
            lcp_index_places(ix, qs, m, pl);
            for (uint32_t i = 0; i < m; i++)
                next = topk_part(s, p, qs[i], &pl[i], w, seq + (a + i) * c, lcp + (a + i) * c, cnt);
        }
    return c;
}

/* Sequence a (part pa, number na) against b in the single index's order:
 * tokens, a document's end above every token, ties by number. */
static int compare(const lcp_set *s, const lcp_set_part *pa, uint64_t na, const lcp_set_part *pb, uint64_t nb)
{
    const void *ta = lcp_index_seq(&pa->ix, na), *tb = lcp_index_seq(&pb->ix, nb);
    if (!s->docs) {
        uint32_t j = lcp_first_difference(ta, tb, s->seq_len, s->token_bytes);
        if (j < s->seq_len) {
            uint32_t x = s->token_bytes == 2 ? ((const uint16_t *)ta)[j] : ((const uint32_t *)ta)[j];
            uint32_t y = s->token_bytes == 2 ? ((const uint16_t *)tb)[j] : ((const uint32_t *)tb)[j];
            return x < y ? -1 : 1;
        }
        uint64_t ga = pa->first + na, gb = pb->first + nb;
        return ga < gb ? -1 : ga > gb;
    }
    for (uint32_t j = 0; j < s->seq_len; j++) {
        uint64_t x, y;
        if (s->docs) {
            uint32_t u = ((const uint32_t *)ta)[j], v = ((const uint32_t *)tb)[j];
            bool ea = u >= pa->ix.pad_base, eb = v >= pb->ix.pad_base;
            if (ea && eb)
                break;
            x = ea ? UINT64_MAX : u, y = eb ? UINT64_MAX : v;
        } else if (s->token_bytes == 2) {
            x = ((const uint16_t *)ta)[j], y = ((const uint16_t *)tb)[j];
        } else {
            x = ((const uint32_t *)ta)[j], y = ((const uint32_t *)tb)[j];
        }
        if (x != y)
            return x < y ? -1 : 1;
    }
    uint64_t ga = pa->first + na, gb = pb->first + nb;
    return ga < gb ? -1 : ga > gb;
}

typedef struct head {
    uint32_t part;
    uint64_t j, number; /* sorted position in the part, its number there */
} head;

static bool before(const lcp_set *s, const head *a, const head *b)
{
    return compare(s, &s->parts[a->part], a->number, &s->parts[b->part], b->number) < 0;
}

static void sift_down(const lcp_set *s, head *h, uint32_t n, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && before(s, &h[l], &h[m]))
            m = l;
        if (r < n && before(s, &h[r], &h[m]))
            m = r;
        if (m == i)
            return;
        head t = h[i];
        h[i] = h[m], h[m] = t, i = m;
    }
}

/* Whether two sequences share their first m tokens (a document's end
 * shares nothing). */
static bool share(const lcp_set *s, const lcp_set_part *pa, uint64_t na, const lcp_set_part *pb, uint64_t nb, uint32_t m)
{
    const void *ta = lcp_index_seq(&pa->ix, na), *tb = lcp_index_seq(&pb->ix, nb);
    if (s->docs) {
        const uint32_t *u = ta, *v = tb;
        for (uint32_t j = 0; j < m; j++)
            if (u[j] >= pa->ix.pad_base || v[j] >= pb->ix.pad_base || u[j] != v[j]) /* pads differ per part */
                return false;
        return true;
    }
    return memcmp(ta, tb, (size_t)m * s->token_bytes) == 0;
}

/* Starts the merge of the parts' sorted orders: the heap of their heads. */
static uint32_t heads_init(const lcp_set *s, head *h)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < s->n_parts; p++)
        if (s->parts[p].n)
            h[n++] = (head){p, 0, lcp_index_perm(&s->parts[p].ix, 0)};
    for (uint32_t i = n / 2; i-- > 0;)
        sift_down(s, h, n, i);
    return n;
}

/* How far ahead in a part's sorted order the merge asks for tokens: each
 * step reads a sequence at a random place in the shards, and the reads of
 * the next few overlap (order over 8 parts of 2M: 7.2 s without, see
 * docs/lcp-index.md). */
enum { MERGE_PREFETCH = 16 };

/* Moves the smallest head on; returns the heap's new size. */
static uint32_t heads_next(const lcp_set *s, head *h, uint32_t n)
{
    const lcp_set_part *pt = &s->parts[h[0].part];
    if (h[0].j + MERGE_PREFETCH < pt->n)
        __builtin_prefetch(lcp_index_seq(&pt->ix, lcp_index_perm(&pt->ix, h[0].j + MERGE_PREFETCH)));
    if (++h[0].j < pt->n)
        h[0].number = lcp_index_perm(&pt->ix, h[0].j);
    else
        h[0] = h[--n];
    sift_down(s, h, n, 0);
    return n;
}

uint64_t lcp_set_dedup(const lcp_set *s, uint32_t min_lcp, void (*emit)(void *ctx, uint64_t number), void *ctx,
                       diag_list *d)
{
    if (min_lcp > s->seq_len)
        return 0;
    /* The parts' orders merged are the whole set's: sequences sharing their
     * first min_lcp tokens are one run of it, and every member but the
     * smallest-numbered is a duplicate. One bit per sequence marks them,
     * so they come out in ascending order. */
    uint8_t *mark = calloc((size_t)(s->n / 8 + 1), 1);
    head *h = malloc((size_t)s->n_parts * sizeof *h);
    if (!mark || !h) {
        free(mark);
        free(h);
        diag_nomem(d, "finding duplicates across the set");
        return UINT64_MAX;
    }
    uint32_t n = heads_init(s, h);
    bool have_prev = false;
    head prev = {0};
    uint64_t run_min = 0, run_len = 0;
    while (n || run_len) {
        bool same = n && have_prev &&
                    share(s, &s->parts[prev.part], prev.number, &s->parts[h[0].part], h[0].number, min_lcp);
        if (!same) {
            if (run_len >= 2)
                mark[run_min / 8] &= (uint8_t)~(1u << (run_min % 8));
            run_len = 0;
            if (!n)
                break;
        }
        uint64_t g = s->parts[h[0].part].first + h[0].number;
        if (same && run_len == 1) { /* the run's first member, now known to be one */
            uint64_t f = s->parts[prev.part].first + prev.number;
            mark[f / 8] |= (uint8_t)(1u << (f % 8));
        }
        if (same)
            mark[g / 8] |= (uint8_t)(1u << (g % 8));
        run_min = run_len == 0 || g < run_min ? g : run_min;
        run_len++;
        prev = h[0], have_prev = true;
        n = heads_next(s, h, n);
    }
    uint64_t found = 0;
    for (uint64_t g = 0; g < s->n; g++)
        if (mark[g / 8] >> (g % 8) & 1u) {
            emit(ctx, g);
            found++;
        }
    free(mark);
    free(h);
    return found;
}

tfc_status lcp_set_order_each(const lcp_set *s, bool (*emit)(void *ctx, uint64_t number), void *ctx, diag_list *d)
{
    head *h = malloc((size_t)s->n_parts * sizeof *h);
    if (!h)
        return diag_nomem(d, "ordering the set");
    uint32_t n = heads_init(s, h);
    bool ok = true;
    while (n && ok) {
        ok = emit(ctx, s->parts[h[0].part].first + h[0].number);
        n = heads_next(s, h, n);
    }
    free(h);
    return ok ? TFC_OK : TFC_IO;
}

typedef struct order_out {
    FILE *f;
    size_t used, w;
    unsigned char buf[8 * 4096];
} order_out;

static bool order_write(void *ctx, uint64_t g)
{
    order_out *o = ctx;
    for (size_t b = 0; b < o->w; b++)
        o->buf[o->used + b] = (unsigned char)(g >> (8 * b));
    o->used += o->w;
    if (o->used < sizeof o->buf)
        return true;
    bool ok = fwrite(o->buf, 1, o->used, o->f) == o->used;
    o->used = 0;
    return ok;
}

tfc_status lcp_set_order(const lcp_set *s, FILE *f, const char *path, diag_list *d)
{
    order_out *o = malloc(sizeof *o);
    if (!o)
        return diag_nomem(d, "ordering the set");
    o->f = f, o->used = 0, o->w = s->n > UINT32_MAX ? 8 : 4;
    tfc_status st = lcp_set_order_each(s, order_write, o, d);
    if (st == TFC_IO || (st == TFC_OK && o->used && fwrite(o->buf, 1, o->used, f) != o->used)) {
        diag_error(d, path, 0, 0, "cannot write: %s", strerror(errno));
        st = TFC_IO;
    }
    free(o);
    return st;
}
