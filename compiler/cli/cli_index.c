/* cli_index: argument parsing and output for tfc index. */
#define _POSIX_C_SOURCE 200809L
#include "cli_index.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "cli_exit.h"
#include "diag.h"
#include "lcp_index.h"
#include "fio.h"
#include "lcp_set.h"
#include "lcp_shard.h"
#include "real.h"

const char cli_index_help[] =
    "usage: tfc index build --tokens SHARD... --seq-len L [--stride S | --doc-sep TOKEN]\n"
    "                       [--raw --token-bytes 2|4] -o INDEX [--quiet]\n"
    "       tfc index query INDEX --tokens SHARD... --queries QSHARD -k K [--latency]\n"
    "                       [--raw --token-bytes 2|4] [--no-verify]\n"
    "       tfc index dedup INDEX --tokens SHARD... --min-lcp N [-o FILE]\n"
    "                       [--raw --token-bytes 2|4] [--no-verify]\n"
    "       tfc index order INDEX --tokens SHARD... -o FILE [--raw --token-bytes 2|4]\n"
    "                       [--no-verify]\n"
    "       tfc index set -o SET --part INDEX --tokens SHARD... [--part INDEX --tokens SHARD...]...\n"
    "                       [--raw --token-bytes 2|4] [--no-verify] [--quiet]\n"
    "       tfc index query|dedup|order SET ...   (the same, over every part of the set)\n"
    "\n"
    "An LCP index sorts every window of L tokens (stride S, default L) of the\n"
    "shards, in order, and records adjacent common-prefix lengths\n"
    "(docs/lcp-index.md). Shards are llm.c token files (256 int32 header: magic\n"
    "20240520 with uint16 tokens, or 20240801 with uint32 tokens as llm.c writes\n"
    "for LLaMA-3) unless --raw (headerless little-endian tokens of --token-bytes\n"
    "bytes); the index never copies them: give the same shards to every\n"
    "command (each shard's size and a sample of its contents are checked:\n"
    "docs/lcp-index.md).\n"
    "  --doc-sep TOKEN  sequences are documents, not windows: each non-empty run\n"
    "               of tokens between TOKENs (llm.c writes its end-of-text token\n"
    "               there) is one sequence of its first L tokens; a shorter one\n"
    "               shares a prefix only up to its own end. Numbers count\n"
    "               documents; a query's tokens from a TOKEN on match nothing.\n"
    "  query   for each window of L tokens in QSHARD (same format), the K\n"
    "          sequences sharing the longest prefix with it, best first, ties by\n"
    "          smaller number: one line per query, 'IDX:LCP IDX:LCP ...'\n"
    "  dedup   the numbers of sequences whose first N tokens equal those of a\n"
    "          smaller-numbered one (prefix near-duplicates), one per line\n"
    "  order   the sorted permutation (neighbours share long prefixes) as\n"
    "          little-endian uint32 to FILE, for prefix-grouped batching\n"
    "  set     writes SET, a JSON file naming part indexes (each built by\n"
    "          'tfc index build' over its own shards, anywhere) and their shards\n"
    "          by paths relative to SET's folder; parts in order, their\n"
    "          sequences numbered after the parts before. query, dedup and order\n"
    "          then take SET alone (no --tokens) and answer exactly what one\n"
    "          index over all the shards would; order writes uint64 numbers when\n"
    "          the set holds 2^32 sequences or more (docs/lcp-index.md, \"Index sets\")\n"
    "  --latency    after the answers, one line on stderr: 'latency: N queries,\n"
    "               p50 X us, p95 Y us, p99 Z us, max W us' (each search timed\n"
    "               alone, one thread)\n"
    "  --no-verify  skip the index checksum (format and ranges are still checked)\n"
    "  -q, --quiet  build and set: no summary line (nor build's progress on a terminal)\n"
    "Exit 0 ok, 1 invalid input (bad shard, corrupt or mismatched index), 2 usage,\n"
    "4 I/O error, 6 out of memory.\n";

typedef struct index_args {
    const char *verb;
    const char *index;       /* positional (query/dedup/order) */
    const char **tokens;     /* --tokens values */
    int n_tokens;
    const char *queries, *out;
    unsigned long long seq_len, stride, k, min_lcp, token_bytes, doc_sep;
    bool raw, quiet, no_verify, latency;
    bool have_seq_len, have_k, have_min_lcp, have_token_bytes, have_doc_sep;
    bool is_set;             /* query/dedup/order over a set: no --tokens */
    const char **part_index; /* set: --part values, each with its --tokens range */
    int *part_first, *part_n, n_parts;
} index_args;

static int usage(const char *msg, const char *arg)
{
    if (arg)
        fprintf(stderr, "tfc: error: index: %s '%s'\nTry 'tfc index --help'.\n", msg, arg);
    else
        fprintf(stderr, "tfc: error: index: %s\nTry 'tfc index --help'.\n", msg);
    return 2;
}

static bool parse_u(const char *s, unsigned long long lo, unsigned long long hi, unsigned long long *out)
{
    if (!s || !isdigit((unsigned char)*s)) /* digits only: strtoull would take a sign or leading spaces */
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* -1 to go on, else an exit code. */
static int parse(int argc, char **argv, index_args *a)
{
    memset(a, 0, sizeof *a);
    if (argc < 1)
        return usage("missing command: build, query, dedup, order or set", NULL);
    if (strcmp(argv[0], "-h") == 0 || strcmp(argv[0], "--help") == 0) {
        fputs(cli_index_help, stdout);
        return 0;
    }
    a->verb = argv[0];
    if (strcmp(a->verb, "build") && strcmp(a->verb, "query") && strcmp(a->verb, "dedup") && strcmp(a->verb, "order") &&
        strcmp(a->verb, "set"))
        return usage("unknown command (build, query, dedup, order, set):", a->verb);
    bool set = strcmp(a->verb, "set") == 0;
    a->tokens = calloc((size_t)argc, sizeof *a->tokens);
    a->part_index = calloc((size_t)argc, sizeof *a->part_index);
    a->part_first = calloc((size_t)argc, sizeof *a->part_first);
    a->part_n = calloc((size_t)argc, sizeof *a->part_n);
    if (!a->tokens || !a->part_index || !a->part_first || !a->part_n) { /* not a usage error: exit 6 like every other out of memory */
        fputs("tfc: error: out of memory reading the command line\n", stderr);
        return EXIT_NOMEM;
    }
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
            fputs(cli_index_help, stdout);
            return 0;
        }
        if (strcmp(o, "--tokens") == 0) {
            int from = a->n_tokens;
            if (set && (a->n_parts == 0 || a->part_n[a->n_parts - 1]))
                return usage("in 'index set', each --tokens follows its --part INDEX", NULL);
            if (!set && from)
                return usage("--tokens is given once, with every shard", NULL);
            while (i + 1 < argc && argv[i + 1][0] != '-')
                a->tokens[a->n_tokens++] = argv[++i];
            if (a->n_tokens == from)
                return usage("--tokens needs at least one shard", NULL);
            if (set)
                a->part_first[a->n_parts - 1] = from, a->part_n[a->n_parts - 1] = a->n_tokens - from;
            continue;
        }
        if (strcmp(o, "--part") == 0) {
            if (!set)
                return usage("--part is for 'index set'", NULL);
            if (!v || !*v)
                return usage("--part needs an INDEX", NULL);
            if (a->n_parts && !a->part_n[a->n_parts - 1])
                return usage("--part needs its --tokens SHARD... before the next --part:", a->part_index[a->n_parts - 1]);
            a->part_index[a->n_parts++] = v;
            i++;
            continue;
        }
        bool takes = strcmp(o, "--seq-len") == 0 || strcmp(o, "--stride") == 0 || strcmp(o, "--token-bytes") == 0 ||
                     strcmp(o, "-o") == 0 || strcmp(o, "--queries") == 0 || strcmp(o, "-k") == 0 ||
                     strcmp(o, "--min-lcp") == 0 || strcmp(o, "--doc-sep") == 0;
        if (takes && !v)
            return usage("option needs a value:", o);
        if (strcmp(o, "--seq-len") == 0) {
            if (!parse_u(v, 1, 1u << 20, &a->seq_len))
                return usage("--seq-len must be an integer from 1 to 1048576, got", v);
            a->have_seq_len = true;
        } else if (strcmp(o, "--stride") == 0) {
            if (!parse_u(v, 1, 1u << 30, &a->stride))
                return usage("--stride must be an integer from 1 to 2^30, got", v);
        } else if (strcmp(o, "--doc-sep") == 0) {
            if (!parse_u(v, 0, UINT32_MAX, &a->doc_sep))
                return usage("--doc-sep must be a token id from 0 to 4294967295, got", v);
            a->have_doc_sep = true;
        } else if (strcmp(o, "--token-bytes") == 0) {
            if (!parse_u(v, 2, 4, &a->token_bytes) || a->token_bytes == 3)
                return usage("--token-bytes must be 2 or 4, got", v);
            a->have_token_bytes = true;
        } else if (strcmp(o, "-k") == 0) {
            if (!parse_u(v, 1, 1u << 20, &a->k))
                return usage("-k must be an integer from 1 to 1048576, got", v);
            a->have_k = true;
        } else if (strcmp(o, "--min-lcp") == 0) {
            if (!parse_u(v, 1, 1u << 20, &a->min_lcp))
                return usage("--min-lcp must be an integer from 1 to 1048576, got", v);
            a->have_min_lcp = true;
        } else if (strcmp(o, "-o") == 0) {
            if (!*v)
                return usage("-o needs a file name", NULL);
            a->out = v;
        } else if (strcmp(o, "--queries") == 0) {
            a->queries = v;
        } else if (strcmp(o, "--raw") == 0) {
            a->raw = true;
            continue;
        } else if (strcmp(o, "--quiet") == 0 || strcmp(o, "-q") == 0) {
            a->quiet = true;
            continue;
        } else if (strcmp(o, "--no-verify") == 0) {
            a->no_verify = true;
            continue;
        } else if (strcmp(o, "--latency") == 0) {
            a->latency = true;
            continue;
        } else if (o[0] == '-' && o[1]) {
            return usage("unknown option", o);
        } else {
            if (strcmp(a->verb, "build") == 0 || set || a->index)
                return usage("unexpected argument", o);
            a->index = o;
            continue;
        }
        i++;
    }
    if (set) {
        if (!a->n_parts)
            return usage("set needs --part INDEX --tokens SHARD... for each part", NULL);
        if (!a->part_n[a->n_parts - 1])
            return usage("--part needs its --tokens SHARD...:", a->part_index[a->n_parts - 1]);
        if (!a->out)
            return usage("set needs -o SET", NULL);
        if (a->have_seq_len || a->stride || a->have_doc_sep || a->have_k || a->have_min_lcp || a->queries || a->latency)
            return usage("set takes -o, --part, --tokens, --raw, --token-bytes, --no-verify and --quiet only", NULL);
        if (a->raw != a->have_token_bytes)
            return usage(a->raw ? "--raw needs --token-bytes 2|4" : "--token-bytes goes with --raw", NULL);
        return -1;
    }
    a->is_set = a->n_tokens == 0 && strcmp(a->verb, "build") != 0;
    if (a->is_set && (a->raw || a->have_token_bytes))
        return usage("a set records --raw and --token-bytes; give SET alone", NULL);
    if (a->n_tokens == 0 && !a->is_set)
        return usage("--tokens SHARD... is required", NULL);
    if (a->raw != a->have_token_bytes)
        return usage(a->raw ? "--raw needs --token-bytes 2|4" : "--token-bytes goes with --raw", NULL);
    if (strcmp(a->verb, "build") == 0) {
        if (!a->have_seq_len)
            return usage("build needs --seq-len", NULL);
        if (!a->out)
            return usage("build needs -o INDEX", NULL);
        if (a->stride && a->have_doc_sep)
            return usage("--stride is for windows; --doc-sep makes each document one sequence", NULL);
        if (!a->stride)
            a->stride = a->seq_len;
        return -1;
    }
    if (a->have_doc_sep)
        return usage("--doc-sep is for build; the index records it", NULL);
    if (!a->index)
        return usage(a->is_set ? "missing INDEX --tokens SHARD... or SET" : "missing INDEX", NULL);
    if (a->have_seq_len)
        return usage("--seq-len is for build; the index records it", NULL);
    if (strcmp(a->verb, "query") == 0 && (!a->queries || !a->have_k))
        return usage("query needs --queries QSHARD and -k K", NULL);
    if (a->latency && strcmp(a->verb, "query") != 0)
        return usage("--latency is for query", NULL);
    if (strcmp(a->verb, "dedup") == 0 && !a->have_min_lcp)
        return usage("dedup needs --min-lcp N", NULL);
    if (strcmp(a->verb, "dedup") != 0 && a->have_min_lcp)
        return usage("--min-lcp is for dedup", NULL);
    if (strcmp(a->verb, "query") != 0 && (a->have_k || a->queries))
        return usage("-k and --queries are for query", NULL);
    if (strcmp(a->verb, "query") == 0 && a->out)
        return usage("query prints its answers; -o is for build, dedup, order and set", NULL);
    if (strcmp(a->verb, "order") == 0 && !a->out)
        return usage("order needs -o FILE", NULL);
    return -1;
}

static int exit_code(tfc_status st) { return cli_exit_code(st); }

static int finish(diag_list *d, tfc_status st, int code)
{
    if (diag_status(d, st) == TFC_NOMEM)
        code = EXIT_NOMEM;
    diag_print(d, stderr);
    diag_free(d);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "tfc: error: cannot write to standard output\n");
        return 4;
    }
    return code;
}

static int run_build(const index_args *a, diag_list *d)
{
    /* The index goes in through a renamed temporary file: what is at -o is
     * replaced, which a device (say /dev/null, as root) must never be. */
    struct stat ob;
    if (lstat(a->out, &ob) == 0 && !S_ISREG(ob.st_mode)) {
        diag_error(d, a->out, 0, 0, "is %s; an index is a regular file (it is memory-mapped): give a file name",
                   S_ISLNK(ob.st_mode) ? "a symbolic link, which would be replaced, not followed" : fio_kind(ob.st_mode));
        return finish(d, TFC_IO, EXIT_IO);
    }
    lcp_shards sh;
    tfc_status st = lcp_shards_open(a->tokens, (uint32_t)a->n_tokens, a->raw, (uint32_t)a->token_bytes, &sh, d);
    if (st != TFC_OK)
        return finish(d, st, exit_code(st));
    lcp_build_stats bs;
    bool progress = !a->quiet && isatty(2);
    if (a->have_doc_sep && sh.token_bytes == 2 && a->doc_sep > 0xffff) {
        diag_error(d, a->tokens[0], 0, 0, "--doc-sep %llu is not a uint16 token", a->doc_sep);
        st = TFC_INVALID;
    } else if (a->have_doc_sep) {
        st = lcp_index_build_docs(&sh, (uint32_t)a->seq_len, (uint32_t)a->doc_sep, a->out, progress, d, &bs);
    } else {
        st = lcp_index_build(&sh, (uint32_t)a->seq_len, (uint32_t)a->stride, a->out, progress, d, &bs);
    }
    lcp_shards_close(&sh);
    if (st == TFC_OK && !a->quiet)
        printf("%s: %llu %s of %llu tokens, %llu bytes (%s per sequence); sorted in %s s, written in %s s\n", a->out,
               (unsigned long long)bs.n, a->have_doc_sep ? "documents (their first)" : "sequences", a->seq_len,
               (unsigned long long)bs.file_bytes, real_fixed(bs.n ? (double)bs.file_bytes / (double)bs.n : 0.0, 2).s,
               real_fixed(bs.sort_s, 2).s, real_fixed(bs.write_s, 2).s);
    return finish(d, st, exit_code(st));
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The nearest-rank percentile p of n sorted values. */
static double percentile(const double *v, uint64_t n, double p)
{
    uint64_t r = (uint64_t)(p * (double)n + 0.999999);
    return v[(r ? r : 1) - 1];
}

static void print_latency(double *us, uint64_t n)
{
    if (!n) {
        fprintf(stderr, "latency: 0 queries\n");
        return;
    }
    qsort(us, (size_t)n, sizeof *us, cmp_double);
    fprintf(stderr, "latency: %llu queries, p50 %s us, p95 %s us, p99 %s us, max %s us\n", (unsigned long long)n,
            real_fixed(percentile(us, n, 0.50), 2).s, real_fixed(percentile(us, n, 0.95), 2).s,
            real_fixed(percentile(us, n, 0.99), 2).s, real_fixed(us[n - 1], 2).s);
}

/* A top-k over an index or a set: up to k numbers and LCPs, best first. */
typedef uint64_t (*topk_fn)(void *ctx, const void *query, uint64_t *seq, uint32_t *lcp);

/* Answers every whole query of seq_len tokens in qs, one line each
 * ('N:LCP ...'); --latency's line after them. */
static tfc_status answer_queries(const index_args *a, const lcp_shards *qs, uint32_t seq_len, topk_fn topk, void *ctx,
                                 diag_list *d)
{
    uint64_t nq = qs->s[0].n_tokens / seq_len;
    uint64_t *seq = malloc(a->k * sizeof *seq);
    uint32_t *lcp = malloc(a->k * sizeof *lcp);
    double *lat = a->latency ? malloc((nq ? nq : 1) * sizeof *lat) : NULL;
    tfc_status st = !seq || !lcp || (a->latency && !lat) ? diag_nomem(d, "answering the index command") : TFC_OK;
    for (uint64_t q = 0; st == TFC_OK && q < nq; q++) {
        const unsigned char *qt = (const unsigned char *)qs->s[0].tokens + q * seq_len * qs->token_bytes;
        double t0 = a->latency ? clock_now_s() : 0.0;
        uint64_t got = topk(ctx, qt, seq, lcp);
        if (a->latency)
            lat[q] = (clock_now_s() - t0) * 1e6;
        for (uint64_t i = 0; i < got; i++)
            printf("%s%llu:%u", i ? " " : "", (unsigned long long)seq[i], lcp[i]);
        putchar('\n');
    }
    if (st == TFC_OK && qs->s[0].n_tokens % seq_len)
        fprintf(stderr, "%s: note: the last %llu tokens do not fill a query of %u and were not asked\n", a->queries,
                (unsigned long long)(qs->s[0].n_tokens % seq_len), seq_len);
    if (st == TFC_OK && a->latency)
        print_latency(lat, nq);
    free(lat);
    free(seq);
    free(lcp);
    return st;
}

typedef struct index_topk {
    const lcp_index *ix;
    uint64_t k;
    uint32_t *seq; /* the index's own numbers, widened */
} index_topk;

static uint64_t topk_index(void *ctx, const void *query, uint64_t *seq, uint32_t *lcp)
{
    index_topk *t = ctx;
    uint64_t got = lcp_index_topk(t->ix, query, t->k, t->seq, lcp);
    for (uint64_t i = 0; i < got; i++)
        seq[i] = t->seq[i];
    return got;
}

typedef struct set_topk {
    const lcp_set *set;
    lcp_set_work w;
} set_topk;

static uint64_t topk_set(void *ctx, const void *query, uint64_t *seq, uint32_t *lcp)
{
    set_topk *t = ctx;
    return lcp_set_topk(t->set, query, &t->w, seq, lcp);
}

static int run_query_like(const index_args *a, diag_list *d)
{
    lcp_shards sh, qs = {0};
    tfc_status st = lcp_shards_open(a->tokens, (uint32_t)a->n_tokens, a->raw, (uint32_t)a->token_bytes, &sh, d);
    if (st != TFC_OK)
        return finish(d, st, exit_code(st));
    lcp_index ix;
    st = lcp_index_open(a->index, &sh, !a->no_verify, &ix, d);
    if (st != TFC_OK) {
        lcp_shards_close(&sh);
        return finish(d, st, exit_code(st));
    }
    if (strcmp(a->verb, "query") == 0) {
        const char *qp[1] = {a->queries};
        st = lcp_index_derive(&ix, a->index, d);
        if (st == TFC_OK)
            st = lcp_shards_open(qp, 1, a->raw, (uint32_t)a->token_bytes, &qs, d);
        if (st == TFC_OK && qs.token_bytes != sh.token_bytes) {
            diag_error(d, a->queries, 0, 0, "uint%u tokens, but the indexed shards have uint%u", 8 * qs.token_bytes,
                       8 * sh.token_bytes);
            lcp_shards_close(&qs);
            st = TFC_INVALID;
        }
        if (st == TFC_OK) {
            index_topk t = {&ix, a->k, malloc(a->k * sizeof *t.seq)};
            st = t.seq ? answer_queries(a, &qs, ix.seq_len, topk_index, &t, d)
                       : diag_nomem(d, "answering the index command");
            free(t.seq);
            lcp_shards_close(&qs);
        }
    } else if (strcmp(a->verb, "dedup") == 0) {
        uint8_t *dup = a->min_lcp > ix.seq_len ? NULL : malloc(ix.n ? ix.n : 1);
        if (a->min_lcp > ix.seq_len) { /* no two sequences share more than seq_len tokens: "none" would mislead */
            diag_error(d, a->index, 0, 0, "--min-lcp %llu is past the index's sequence length %u: give 1 to %u",
                       a->min_lcp, ix.seq_len, ix.seq_len);
            st = TFC_INVALID;
        } else if (!dup) {
            st = diag_nomem(d, "answering the index command");
        } else {
            fio_out o = {stdout, NULL, NULL};
            if (a->out && !fio_out_open(&o, a->out, d)) {
                st = TFC_IO;
            } else {
                lcp_index_dedup(&ix, (uint32_t)a->min_lcp, dup);
                for (uint64_t i = 0; i < ix.n; i++)
                    if (dup[i])
                        fprintf(o.f, "%llu\n", (unsigned long long)i);
                if (a->out)
                    st = fio_out_close(&o, true, d); /* whole, or nothing at a->out */
            }
            free(dup);
        }
    } else { /* order: whole, or nothing at a->out */
        fio_out o;
        bool ok = fio_out_open(&o, a->out, d);
        uint32_t buf[4096]; /* uint32 numbers, one per sorted position, as before the permutation was packed */
        for (uint64_t j = 0; ok && j < ix.n; j += 4096) {
            size_t c = ix.n - j < 4096 ? (size_t)(ix.n - j) : 4096;
            for (size_t i = 0; i < c; i++)
                buf[i] = lcp_index_perm(&ix, j + i);
            ok = fwrite(buf, 4, c, o.f) == c;
        }
        st = o.f ? fio_out_close(&o, true, d) : TFC_IO; /* a failed fwrite leaves ferror set: closed as failed */
    }
    lcp_index_close(&ix);
    lcp_shards_close(&sh);
    return finish(d, st, exit_code(st));
}

static int run_set_write(const index_args *a, diag_list *d)
{
    lcp_set_input *in = calloc((size_t)a->n_parts, sizeof *in);
    if (!in)
        return finish(d, diag_nomem(d, "writing the set"), EXIT_NOMEM);
    for (int i = 0; i < a->n_parts; i++)
        in[i] = (lcp_set_input){a->part_index[i], a->tokens + a->part_first[i], (uint32_t)a->part_n[i]};
    tfc_status st = lcp_set_write(a->out, in, (uint32_t)a->n_parts, a->raw, (uint32_t)a->token_bytes, !a->no_verify, d);
    free(in);
    if (st == TFC_OK && !a->quiet)
        printf("%s: a set of %d part%s\n", a->out, a->n_parts, a->n_parts == 1 ? "" : "s");
    return finish(d, st, exit_code(st));
}

static void print_number(void *ctx, uint64_t number) { fprintf(ctx, "%llu\n", (unsigned long long)number); }

/* query, dedup and order over a set. */
/* "a part index" or "a shard" when path is one of the set's files (by
 * device and inode), NULL when it is none. */
static const char *set_holds(const lcp_set *set, const char *path)
{
    struct stat o;
    if (stat(path, &o) != 0 || !S_ISREG(o.st_mode))
        return NULL;
    for (uint32_t p = 0; p < set->n_parts; p++) {
        const lcp_set_part *part = &set->parts[p];
        if (fio_same_file(part->index_path, &o))
            return "a part index";
        for (uint32_t k = 0; k < part->n_shards; k++)
            if (fio_same_file(part->shard_paths[k], &o))
                return "a shard";
    }
    return NULL;
}

static int run_set_query(const index_args *a, diag_list *d)
{
    lcp_set set;
    bool query = strcmp(a->verb, "query") == 0, dedup = strcmp(a->verb, "dedup") == 0;
    tfc_status st = lcp_set_open(a->index, !a->no_verify, query, &set, d);
    if (st != TFC_OK) {
        int code = finish(d, st, exit_code(st)); /* the messages name paths the set holds */
        lcp_set_close(&set);
        return code;
    }
    if (query) {
        lcp_shards qs = {0};
        const char *qp[1] = {a->queries};
        st = lcp_shards_open(qp, 1, set.raw, set.token_bytes, &qs, d);
        if (st == TFC_OK && qs.token_bytes != set.token_bytes) {
            diag_error(d, a->queries, 0, 0, "uint%u tokens, but the set's shards have uint%u", 8 * qs.token_bytes,
                       8 * set.token_bytes);
            st = TFC_INVALID;
        }
        set_topk t = {&set, {0}};
        if (st == TFC_OK)
            st = lcp_set_work_init(&t.w, a->k) ? answer_queries(a, &qs, set.seq_len, topk_set, &t, d)
                                               : diag_nomem(d, "answering the index command");
        lcp_set_work_free(&t.w);
        if (qs.s)
            lcp_shards_close(&qs);
    } else {
        fio_out o = {stdout, NULL, NULL};
        if (dedup && a->min_lcp > set.seq_len) {
            diag_error(d, a->index, 0, 0, "--min-lcp %llu is past the set's sequence length %u: give 1 to %u",
                       a->min_lcp, set.seq_len, set.seq_len);
            st = TFC_INVALID;
        } else if (a->out && set_holds(&set, a->out)) {
            diag_error(d, a->out, 0, 0, "is %s of the set %s; writing it would destroy what is read: give another "
                       "file", set_holds(&set, a->out), a->index);
            st = TFC_IO;
        } else if (a->out && !fio_out_open(&o, a->out, d)) {
            st = TFC_IO;
        } else {
            if (dedup && lcp_set_dedup(&set, (uint32_t)a->min_lcp, print_number, o.f, d) == UINT64_MAX)
                st = TFC_NOMEM;
            else if (!dedup)
                st = lcp_set_order(&set, o.f, a->out, d);
            if (a->out) { /* whole, or nothing at a->out */
                tfc_status cst = fio_out_close(&o, st == TFC_OK, d);
                st = st == TFC_OK ? cst : st;
            }
        }
    }
    int code = finish(d, st, exit_code(st));
    lcp_set_close(&set);
    return code;
}

/* The input named on the command line that -o is (the same file by device
 * and inode, however spelt), or NULL: writing it would destroy an input
 * (a shard, an index, the set being read) before or while it is read. */
static const char *output_is_input(const index_args *a)
{
    struct stat o;
    if (!a->out || stat(a->out, &o) != 0 || !S_ISREG(o.st_mode))
        return NULL;
    const char *named[2] = {a->index, a->queries};
    for (int k = 0; k < 2; k++)
        if (named[k] && fio_same_file(named[k], &o))
            return named[k];
    for (int k = 0; k < a->n_tokens; k++)
        if (fio_same_file(a->tokens[k], &o))
            return a->tokens[k];
    for (int k = 0; k < a->n_parts; k++)
        if (fio_same_file(a->part_index[k], &o))
            return a->part_index[k];
    return NULL;
}

int cli_index(int argc, char **argv)
{
    index_args a;
    int r = parse(argc, argv, &a);
    const char *both = r < 0 ? output_is_input(&a) : NULL;
    if (both) {
        fprintf(stderr, "tfc: error: index: -o %s is the input %s; writing it would destroy what is read: give "
                        "another file\n", a.out, both);
        r = 4;
    }
    if (r < 0) {
        diag_list d;
        diag_init(&d, DIAG_DEFAULT_MAX);
        r = strcmp(a.verb, "build") == 0 ? run_build(&a, &d)
            : strcmp(a.verb, "set") == 0 ? run_set_write(&a, &d)
            : a.is_set                   ? run_set_query(&a, &d)
                                         : run_query_like(&a, &d);
    }
    free(a.tokens);
    free(a.part_index);
    free(a.part_first);
    free(a.part_n);
    return r;
}
