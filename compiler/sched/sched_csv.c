/* sched_csv: reading a compute-only pipeline CSV into a schedule. Row r is
 * rank r's program; a cell is "<stage><F|B|I|W><microbatch>", an
 * overlapped pair "(<forward>;<backward>)OVERLAP_F_B" (PyTorch's notation,
 * DualPipeV's), or empty (an idle slot, which carries no meaning here).
 * Spaces around cells are ignored. Anything else is an error at its line
 * and column. */
#include "sched_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "text.h"

typedef struct cell {
    sched_action act;
    uint32_t row;
    spec_pos pos;
} cell;

typedef struct cells {
    cell *v;
    size_t n, cap;
} cells;

static bool push(cells *c, cell x)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 256;
        cell *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return false;
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n++] = x;
    return true;
}

static bool is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Digits at s[*i..] as a number below limit; false if none or too big. */
static bool number(const char *s, size_t len, size_t *i, uint32_t limit, uint32_t *out)
{
    uint64_t v = 0;
    size_t start = *i;
    while (*i < len && is_digit(s[*i])) {
        v = v * 10 + (uint64_t)(s[*i] - '0');
        if (v > UINT32_MAX)
            v = UINT32_MAX; /* saturate: still >= limit */
        (*i)++;
    }
    *out = (uint32_t)v;
    return *i > start && v < limit;
}

/* Parses one trimmed cell; on error writes the reason. */
static bool parse_action(const char *s, size_t len, const spec *sp, sched_action *out, char *why, size_t cap)
{
    const uint32_t n_stages = (uint32_t)sp->n_stages;
    size_t i = 0;
    uint32_t stage, mb;
    char q[TEXT_QUOTE_CAP];
    text_quote(q, sizeof q, s, len);
    if (!is_digit(s[0]) || len < 3) {
        snprintf(why, cap, "%s is not an action; write <stage><F|B|I|W><microbatch>, e.g. 0F0", q);
        return false;
    }
    bool stage_ok = number(s, len, &i, n_stages, &stage);
    const char *types = "FBIW";
    const char *t = i < len ? strchr(types, s[i]) : NULL;
    if (i < len && s[i] != '\0' && strchr("fbiw", s[i])) {
        snprintf(why, cap, "%s: action types are upper case (F, B, I or W), as PyTorch reads them", q);
        return false;
    }
    if (!t || s[i] == '\0') {
        snprintf(why, cap,
                 "%s is not a compute action (F, B, I or W); communication actions have no place in a "
                 "compute-only CSV",
                 q);
        return false;
    }
    i++;
    size_t mb_start = i;
    bool mb_ok = number(s, len, &i, sp->microbatches, &mb);
    if (i != len || i == mb_start) {
        snprintf(why, cap, "%s is not an action; write <stage><F|B|I|W><microbatch>, e.g. 0F0", q);
        return false;
    }
    if (!stage_ok) {
        snprintf(why, cap, "%s: stage out of range; the pipeline has stages 0 to %u", q, n_stages - 1);
        return false;
    }
    if (!mb_ok) {
        snprintf(why, cap, "%s: microbatch out of range; the pipeline has microbatches 0 to %u", q,
                 sp->microbatches - 1);
        return false;
    }
    *out = (sched_action){stage, mb, (uint8_t)(t - types), SCHED_PAIR_NONE};
    return true;
}

/* "(<F action>;<B or I action>)OVERLAP_F_B" into two actions marked as a pair. */
static bool parse_pair(const char *s, size_t len, const spec *sp, sched_action out[2], char *why, size_t cap)
{
    static const char tail[] = ")OVERLAP_F_B";
    size_t tl = sizeof tail - 1;
    const char *semi = memchr(s, ';', len);
    char q[TEXT_QUOTE_CAP];
    text_quote(q, sizeof q, s, len);
    if (len < tl + 2 || memcmp(s + len - tl, tail, tl) != 0 || !semi) {
        snprintf(why, cap, "%s is not an overlapped pair; write (<forward>;<backward>)OVERLAP_F_B, e.g. (0F3;7B1)OVERLAP_F_B",
                 q);
        return false;
    }
    const char *a = s + 1, *b = semi + 1;
    size_t al = (size_t)(semi - a), bl = (size_t)(s + len - tl - b);
    while (al && (*a == ' ' || *a == '\t'))
        a++, al--;
    while (al && (a[al - 1] == ' ' || a[al - 1] == '\t'))
        al--;
    while (bl && (*b == ' ' || *b == '\t'))
        b++, bl--;
    while (bl && (b[bl - 1] == ' ' || b[bl - 1] == '\t'))
        bl--;
    if (!al || !bl || !parse_action(a, al, sp, &out[0], why, cap) || !parse_action(b, bl, sp, &out[1], why, cap)) {
        if (!al || !bl)
            snprintf(why, cap, "%s: an overlapped pair holds two actions", q);
        return false;
    }
    if (out[0].type != ACT_F || (out[1].type != ACT_B && out[1].type != ACT_I)) {
        snprintf(why, cap, "%s: an overlapped pair is a forward then a backward (B or I)", q);
        return false;
    }
    out[0].pair = SCHED_PAIR_FIRST;
    out[1].pair = SCHED_PAIR_SECOND;
    return true;
}

/* 1-based column of byte `at` on the line starting at `start`, counted in
 * characters (UTF-8 lead bytes), as the YAML diagnostics count them. */
static uint32_t column(const char *buf, size_t start, size_t at)
{
    uint32_t col = 1;
    for (size_t i = start; i < at; i++)
        col += ((unsigned char)buf[i] & 0xC0) != 0x80;
    return col;
}

/* Whether row [pos, end) is a header: some cell, and none that starts as
 * an action or a pair does (a digit or '('), quoted or not. */
static bool is_header(const char *buf, size_t pos, size_t end)
{
    bool any = false;
    for (size_t k = pos; k < end; k++) {
        char ch = buf[k];
        if (ch == ' ' || ch == '\t' || ch == '"')
            continue;
        if (ch == ',')
            continue;
        if ((ch >= '0' && ch <= '9') || ch == '(')
            return false;
        any = true;
        while (k + 1 < end && buf[k + 1] != ',') /* the rest of the cell */
            k++;
    }
    return any;
}

/* Splits buf into rows and cells; collects actions with their positions. */
static bool scan(const spec *sp, const char *file, const char *buf, size_t len, diag_list *d, cells *out,
                 uint32_t *rows)
{
    size_t before = diag_count(d);
    uint32_t line = 1;
    size_t pos = 0;
    *rows = 0;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        pos = 3; /* a byte order mark, as spreadsheets write it */
    while (pos < len && !diag_full(d)) {
        /* Rows end at LF, CR LF or a lone CR. */
        size_t eol = pos;
        while (eol < len && buf[eol] != '\n' && buf[eol] != '\r')
            eol++;
        size_t end = eol;
        size_t next = eol + 1;
        if (eol + 1 < len && buf[eol] == '\r' && buf[eol + 1] == '\n')
            next = eol + 2;
        uint32_t row = line - 1;
        if (line == 1 && is_header(buf, pos, end)) {
            /* one error, not one a cell and a row too many */
            char q[TEXT_QUOTE_CAP];
            diag_error(d, file, 1, 1, "row 1 reads as a header (%s), but a compute-only CSV has none: row r is "
                       "rank r's program, each cell an action such as 0F0",
                       text_quote(q, sizeof q, buf + pos, end - pos));
            return false;
        }
        if (row >= sp->ranks) {
            /* Extra rows are an error unless they are blank. */
            bool blank = true;
            for (size_t k = pos; k < end; k++)
                blank &= buf[k] == ' ' || buf[k] == '\t' || buf[k] == ',';
            if (!blank) {
                diag_error(d, file, line, 1, "row %u would be rank %u, but pipeline.ranks is %u", line, row,
                           sp->ranks);
                return false;
            }
        }
        size_t c = pos;
        while (c <= end && !diag_full(d)) {
            size_t ce = c;
            while (ce < end && buf[ce] != ',')
                ce++;
            size_t a = c, b = ce;
            while (a < b && (buf[a] == ' ' || buf[a] == '\t'))
                a++;
            while (b > a && (buf[b - 1] == ' ' || buf[b - 1] == '\t'))
                b--;
            if (b - a >= 2 && buf[a] == '"' && buf[b - 1] == '"') {
                a++; /* a quoted cell, as spreadsheets write them; an action holds no quote */
                b--;
            }
            if (b > a) {
                char why[TEXT_QUOTE_CAP + 160];
                sched_action act[2];
                spec_pos at = {line, column(buf, pos, a)};
                bool pair = buf[a] == '(';
                if (!(pair ? parse_pair(buf + a, b - a, sp, act, why, sizeof why)
                           : parse_action(buf + a, b - a, sp, &act[0], why, sizeof why))) {
                    diag_error(d, file, at.line, at.col, "%s", why);
                } else if (out->n + (pair ? 2u : 1u) > (size_t)ACT_TYPES * sp->n_stages * sp->microbatches) {
                    diag_error(d, file, at.line, at.col, "more actions than a schedule can hold; some repeat");
                    return false;
                } else if (!push(out, (cell){act[0], row, at}) || (pair && !push(out, (cell){act[1], row, at}))) {
                    diag_nomem(d, "reading the schedule");
                    return false;
                }
            }
            c = ce + 1;
        }
        if (row < sp->ranks)
            *rows = row + 1;
        pos = next;
        line++;
    }
    return diag_count(d) == before;
}

bool sched_csv_parse(const spec *sp, const char *file, const char *buf, size_t len, arena *a, diag_list *d,
                     sched **out)
{
    *out = NULL;
    size_t bad;
    const char *why;
    if (!text_check_yaml_chars(buf, len, &bad, &why)) {
        unsigned line, col;
        text_position(buf, len, bad, &line, &col);
        diag_error(d, file, line, col, "%s in the schedule CSV", why);
        return false;
    }
    cells cs = {0};
    uint32_t rows;
    bool ok = scan(sp, file, buf, len, d, &cs, &rows);
    if (ok && rows < sp->ranks) {
        diag_error(d, file, rows + 1, 1, "the CSV has %u row%s, but pipeline.ranks is %u: one row per rank", rows,
                   rows == 1 ? "" : "s", sp->ranks);
        ok = false;
    }
    sched *s = NULL;
    if (ok) {
        s = arena_alloc(a, sizeof *s);
        uint32_t n = (uint32_t)sp->n_stages;
        if (s) {
            s->ranks = sp->ranks;
            s->n_stages = n;
            s->microbatches = sp->microbatches;
            s->stage_rank = arena_alloc_array(a, n, sizeof *s->stage_rank);
            s->rank_start = arena_alloc_array(a, (size_t)sp->ranks + 1, sizeof *s->rank_start);
            s->actions = arena_alloc_array(a, cs.n ? cs.n : 1, sizeof *s->actions);
            s->src = arena_alloc_array(a, cs.n ? cs.n : 1, sizeof *s->src);
            s->src_file = file;
        }
        if (!s || !s->stage_rank || !s->rank_start || !s->actions || !s->src) {
            diag_nomem(d, "reading the schedule");
            ok = false;
        }
    }
    if (ok) {
        /* Rows come in order, so cells are already grouped by rank. */
        for (uint32_t st = 0; st < s->n_stages; st++)
            s->stage_rank[st] = UINT32_MAX;
        uint32_t r = 0;
        for (size_t i = 0; i < cs.n; i++) {
            while (r <= cs.v[i].row)
                s->rank_start[r++] = i;
            s->actions[i] = cs.v[i].act;
            s->src[i] = cs.v[i].pos;
            uint32_t *owner = &s->stage_rank[cs.v[i].act.stage];
            if (*owner == UINT32_MAX)
                *owner = cs.v[i].row; /* a stage runs where it first appears */
        }
        while (r <= s->ranks)
            s->rank_start[r++] = cs.n;
        s->n_actions = cs.n;
        for (uint32_t st = 0; st < s->n_stages; st++) {
            if (s->stage_rank[st] == UINT32_MAX) {
                diag_error(d, file, 0, 0, "stage %u has no actions; every stage 0 to %u must run", st,
                           s->n_stages - 1);
                ok = false;
            }
        }
        for (uint32_t rk = 0; ok && rk < s->ranks; rk++) {
            uint32_t held = 0;
            for (uint32_t st = 0; st < s->n_stages; st++)
                held += s->stage_rank[st] == rk;
            if (held == 0) {
                diag_error(d, file, rk + 1, 1,
                           "rank %u runs no stage; PyTorch's runtime cannot build a schedule for a rank without "
                           "one (each rank runs pipeline.stages_per_rank = %u)",
                           rk, sp->stages_per_rank);
                ok = false;
            } else if (held != sp->stages_per_rank) {
                diag_warning(d, file, rk + 1, 1, "rank %u runs %u stage%s, but pipeline.stages_per_rank is %u", rk,
                             held, held == 1 ? "" : "s", sp->stages_per_rank);
            }
        }
        ok = ok && sched_index(s, a, d, file);
    }
    free(cs.v);
    if (ok)
        *out = s;
    return ok;
}

tfc_status sched_csv_read(const spec *sp, arena *a, diag_list *d, sched **out)
{
    *out = NULL;
    const char *path = spec_relative_path(sp, sp->order, a);
    if (!path) {
        return diag_nomem(d, "reading the schedule");
    }
    char *buf;
    size_t len;
    tfc_status st = fio_read_all(path, SPEC_MAX_FILE_BYTES, &buf, &len, d);
    if (st != TFC_OK) {
        diag_note_in(d, sp->path, sp->pos_order.line, sp->pos_order.col, "named by pipeline.order here");
        return st;
    }
    spec_input_read(sp, path, buf, len);
    bool ok = sched_csv_parse(sp, path, buf, len, a, d, out);
    free(buf);
    return ok ? TFC_OK : diag_status(d, TFC_INVALID);
}
