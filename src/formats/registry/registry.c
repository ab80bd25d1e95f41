/*
 * registry.c: the list of formats, detection by content, and the public
 * read/write entry points that wire a source, a format and a sink together.
 * It only lists, detects and dispatches: readers report through the reading
 * context (io/read_ctx.c), not through this file.
 */
#include "formats/registry/format.h"

#include <stdio.h>
#include <stdlib.h>

static const pk_format *const formats[] = {
#define PROFKIT_FORMAT(name) &pk_format_##name,
#include "formats/registry/formats.def"
#undef PROFKIT_FORMAT
};
#define N_FORMATS (sizeof(formats) / sizeof(formats[0]))

size_t profkit_format_count(void) { return N_FORMATS; }

const profkit_format_info *profkit_format_get(size_t i)
{
    return i < N_FORMATS ? &formats[i]->info : NULL;
}

const pk_format *pk_format_lookup(const char *name)
{
    for (size_t i = 0; i < N_FORMATS; i++)
        if (strcmp(formats[i]->info.name, name) == 0)
            return formats[i];
    return NULL;
}

const profkit_format_info *profkit_format_find(const char *name)
{
    const pk_format *f = pk_format_lookup(name);
    return f ? &f->info : NULL;
}

int pk_format_detect(pk_source *src, const pk_format **fmt, profkit_error *err)
{
    const uint8_t *head;
    size_t n;
    *fmt = NULL;
    int rc = pk_source_peek(src, &head, &n, err);
    if (rc)
        return rc;
    if (n == 0)
        return 0;
    int scores[N_FORMATS];
    for (size_t i = 0; i < N_FORMATS; i++)
        scores[i] = formats[i]->sniff && formats[i]->read
                        ? formats[i]->sniff(head, n, n < 64 * 1024)
                        : 0;
    /* A format that needs more of the input to tell is asked again on a
     * head four times longer, up to PK_SNIFF_MAX, unless another is sure. */
    for (;;) {
        int more = 0, sure = 0;
        for (size_t i = 0; i < N_FORMATS; i++) {
            more |= scores[i] == PK_SNIFF_MORE;
            sure |= scores[i] >= 90;
        }
        if (!more || sure)
            break;
        size_t had = n;
        if (had >= PK_SNIFF_MAX) {
            for (size_t i = 0; i < N_FORMATS; i++)
                if (scores[i] == PK_SNIFF_MORE)
                    scores[i] = PK_SNIFF_MAYBE;
            break;
        }
        size_t want = had * 4 < PK_SNIFF_MAX ? had * 4 : PK_SNIFF_MAX;
        if ((rc = pk_source_peek_more(src, want, &head, &n, err)) != 0)
            return rc;
        for (size_t i = 0; i < N_FORMATS; i++)
            if (scores[i] == PK_SNIFF_MORE)
                scores[i] = n > had ? formats[i]->sniff(head, n, n < want) : 0;
    }
    int best_score = 0;
    for (size_t i = 0; i < N_FORMATS; i++) {
        if (scores[i] > best_score) {
            best_score = scores[i];
            *fmt = formats[i];
        }
    }
    return 0;
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

const char *profkit_format_for_path(const char *path)
{
    if (!path)
        return NULL;
    size_t n = strlen(path);
    if (ends_with(path, n, ".gz"))
        n -= 3;
    else if (ends_with(path, n, ".zst"))
        n -= 4;
    for (size_t i = 0; i < N_FORMATS; i++) {
        const char *ext = formats[i]->info.extensions;
        if (!formats[i]->write || !ext)
            continue;
        while (*ext) {
            const char *end = strchr(ext, ' ');
            size_t k = end ? (size_t)(end - ext) : strlen(ext);
            if (k > 0 && n >= k && strncmp(path + n - k, ext, k) == 0)
                return formats[i]->info.name;
            ext += k;
            while (*ext == ' ')
                ext++;
        }
    }
    return NULL;
}

/* ---- reading ---- */

static void list_formats(char *buf, size_t n, int writers)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < N_FORMATS && used < n; i++) {
        if (writers ? !formats[i]->write : !formats[i]->read)
            continue;
        used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "",
                                 formats[i]->info.name);
    }
}

/*
 * The limits on absurd sizes a profile in the model can reach
 * (docs/formats/README.md, "Limits"): the model refuses a stack past the
 * depth limit and a thread past the thread limit as they are made
 * (pk_profile_limit), so memory stays bounded while reading, and every
 * reader stops there as when out of memory; its error (with the position
 * it gave) is then replaced by the limit's.
 */
#define LIMIT_DEPTH (1u << 20)
#define LIMIT_THREADS (1u << 20)
static int limit_error(profkit_profile *p, pk_read_ctx *ctx, int rc, uint32_t max_depth,
                       uint32_t max_threads)
{
    const profkit_error *e = ctx->err;
    int64_t offset = rc && e->has_offset ? (int64_t)e->offset : -1;
    uint32_t line = rc ? e->line : 0, column = e->column;
    if (p->limit_hit == PROFKIT_LIMIT_DEPTH) {
        if (line)
            return pk_read_fail_pos(ctx, PROFKIT_EUNSUPPORTED, line, column,
                                         "a stack deeper than the limit of %u frames "
                                         "(profkit_read_options.max_depth raises it)", max_depth);
        return pk_read_fail(ctx, PROFKIT_EUNSUPPORTED, offset,
                                 "a stack deeper than the limit of %u frames "
                                 "(profkit_read_options.max_depth raises it)", max_depth);
    }
    if (line)
        return pk_read_fail_pos(ctx, PROFKIT_EUNSUPPORTED, line, column,
                                     "more than the limit of %u threads (profkit_read_options.max_threads "
                                     "raises it)",
                                     max_threads);
    return pk_read_fail(ctx, PROFKIT_EUNSUPPORTED, offset,
                             "more than the limit of %u threads (profkit_read_options.max_threads "
                                     "raises it)",
                             max_threads);
}

/* A compressed input cut short: a warning (an error under --strict); the
 * reader then reads what was decoded before the cut as a cut file. */
static int on_cut(void *payload, const char *comp, uint64_t raw, uint64_t decoded)
{
    return pk_read_warn((pk_read_ctx *)payload, PROFKIT_ETRUNCATED, (int64_t)raw,
                             "%s stream ends before its end marker (truncated file); the %llu "
                             "bytes it decoded to before the cut are read",
                             comp, (unsigned long long)decoded);
}

static int read_source(profkit_profile **out, pk_source *src,
                       const profkit_read_options *opts, profkit_error *err)
{
    static const profkit_read_options defaults;
    profkit_error scratch;
    if (!err)
        err = &scratch;
    if (!opts)
        opts = &defaults;
    *out = NULL;
    pk_source_set_max_ratio(src, opts->max_inflate);
    const char *name = pk_source_name(src);
    pk_read_ctx ctx = { name, src, opts, err, 0 };
    pk_source_set_on_cut(src, on_cut, &ctx);
    const pk_format *fmt = NULL;
    char list[256];
    if (opts->format) {
        fmt = pk_format_lookup(opts->format);
        if (!fmt || !fmt->read) {
            list_formats(list, sizeof(list), 0);
            return pk_error_set(err, PROFKIT_EINVAL, name, -1,
                                     "unknown input format '%s' (readable formats: %s)",
                                     opts->format, list);
        }
    } else {
        const uint8_t *head;
        size_t n;
        int rc = pk_source_peek(src, &head, &n, err);
        if (rc)
            return rc;
        if (n == 0)
            return pk_error_set(err, PROFKIT_EFORMAT, name, 0, "empty input");
        if ((rc = pk_format_detect(src, &fmt, err)) != 0)
            return rc;
        if (!fmt) {
            list_formats(list, sizeof(list), 0);
            return pk_error_set(err, PROFKIT_EFORMAT, name, 0,
                                     "unrecognized profile format (tried: %s); use "
                                     "profkit_read_options.format to name it",
                                     list);
        }
    }
    profkit_profile *p = profkit_profile_new();
    if (!p)
        return pk_error_set(err, PROFKIT_ENOMEM, name, -1, "out of memory");
    pk_profile_set_format(p, fmt->info.name);
    if (opts->on_progress)
        pk_source_set_progress(src, opts->on_progress, opts->payload);
    uint32_t max_depth = opts->max_depth ? opts->max_depth : LIMIT_DEPTH;
    uint32_t max_threads = opts->max_threads ? opts->max_threads : LIMIT_THREADS;
    int rc = pk_profile_limit(p, max_depth, max_threads);
    if (rc == 0) {
        rc = fmt->read(p, &ctx);
        if (p->limit_hit)
            rc = limit_error(p, &ctx, rc, max_depth, max_threads);
        pk_profile_limit(p, 0, 0);
    } else {
        rc = pk_error_set(err, rc, name, -1, "out of memory");
    }
    if (rc) {
        profkit_profile_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

int profkit_profile_read_file(profkit_profile **out, const char *path,
                              const profkit_read_options *opts, profkit_error *err)
{
    pk_source *src;
    *out = NULL;
    int rc = pk_source_open_file(&src, path, err);
    if (rc)
        return rc;
    rc = read_source(out, src, opts, err);
    pk_source_close(src);
    return rc;
}

int profkit_profile_read_memory(profkit_profile **out, const void *data, size_t size,
                                const char *name, const profkit_read_options *opts,
                                profkit_error *err)
{
    pk_source *src;
    *out = NULL;
    int rc = pk_source_open_memory(&src, data, size, name, err);
    if (rc)
        return rc;
    rc = read_source(out, src, opts, err);
    pk_source_close(src);
    return rc;
}

/* ---- writing ---- */

/* The writer `name` names (path: for messages), or NULL with err set. */
static const pk_format *writer_for(const char *name, const char *path, profkit_error *err)
{
    char list[256];
    if (!name) {
        list_formats(list, sizeof(list), 1);
        pk_error_set(err, PROFKIT_EINVAL, path, -1,
                     "cannot tell the output format from the file name; use "
                     "profkit_write_options.format (one of: %s)",
                     list);
        return NULL;
    }
    const pk_format *fmt = pk_format_lookup(name);
    if (!fmt || !fmt->write) {
        list_formats(list, sizeof(list), 1);
        pk_error_set(err, PROFKIT_EINVAL, path, -1,
                     "cannot write format '%s' (writable formats: %s)", name, list);
        return NULL;
    }
    return fmt;
}

/* A writer's warnings name the output file (or standard output). */
struct write_warn {
    const char *path;
    profkit_warning_fn fn;
    void *payload;
};

static void on_write_warning(const profkit_error *w, void *payload)
{
    const struct write_warn *ww = payload;
    profkit_error named = *w;
    snprintf(named.file, sizeof(named.file), "%s",
             ww->path && strcmp(ww->path, "-") != 0 ? ww->path : "<stdout>");
    ww->fn(&named, ww->payload);
}

/* A writer whose format has no sample labels says once that it leaves
 * them out (the pprof writer keeps them). */
static void warn_labels(const pk_format *fmt, const profkit_profile *p,
                        const profkit_write_options *o)
{
    if (!p->sample_labels || !o->on_warning || strcmp(fmt->info.name, "pprof") == 0)
        return;
    size_t rows = 0;
    for (size_t r = 0; r < p->n_samples; r++)
        rows += p->sample_labels[r] != 0;
    if (!rows)
        return;
    char keys[256] = "";
    size_t used = 0;
    for (size_t i = 0; i < p->n_labels && used + 1 < sizeof(keys); i++) {
        const char *k = pk_str(p, p->labels[i].key);
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = p->labels[j].key == p->labels[i].key;
        if (!seen)
            used += (size_t)snprintf(keys + used, sizeof(keys) - used, "%s%s", used ? ", " : "", k);
    }
    profkit_error w;
    pk_error_set(&w, PROFKIT_EUNSUPPORTED, NULL, -1,
                      "%s has no sample labels: the labels of %zu sample rows (keys: %s) are left out",
                      fmt->info.name, rows, keys);
    o->on_warning(&w, o->payload);
}

int profkit_profile_write_file(const profkit_profile *p, const char *path,
                               const profkit_write_options *opts, profkit_error *err)
{
    static const profkit_write_options defaults;
    profkit_error scratch;
    if (!err)
        err = &scratch;
    if (!opts)
        opts = &defaults;
    const pk_format *fmt = writer_for(opts->format ? opts->format : profkit_format_for_path(path),
                                      path, err);
    if (!fmt)
        return PROFKIT_EINVAL;
    pk_sink *sink;
    int rc = pk_sink_open(&sink, path, pk_sink_compression(path), err);
    if (rc)
        return rc;
    profkit_write_options o = *opts;
    struct write_warn ww = { path, opts->on_warning, opts->payload };
    if (o.on_warning) {
        o.on_warning = on_write_warning;
        o.payload = &ww;
    }
    warn_labels(fmt, p, &o);
    rc = fmt->write(p, sink, &o, err);
    int rc2 = pk_sink_close(sink, rc == 0, rc == 0 ? err : NULL);
    return rc ? rc : rc2;
}

int profkit_profile_write_memory(char **out, size_t *len, const profkit_profile *p,
                                 const profkit_write_options *opts, profkit_error *err)
{
    static const profkit_write_options defaults;
    profkit_error scratch;
    if (!err)
        err = &scratch;
    if (!opts)
        opts = &defaults;
    *out = NULL;
    if (len)
        *len = 0;
    if (!opts->format) {
        char list[256];
        list_formats(list, sizeof(list), 1);
        return pk_error_set(err, PROFKIT_EINVAL, NULL, -1,
                            "writing to memory needs a format name (writable formats: %s)", list);
    }
    const pk_format *fmt = writer_for(opts->format, NULL, err);
    if (!fmt)
        return PROFKIT_EINVAL;
    pk_buf mem = PK_BUF_INIT;
    pk_sink *sink;
    int rc = pk_sink_open_memory(&sink, &mem, PROFKIT_SINK_PLAIN, err);
    if (rc)
        return rc;
    warn_labels(fmt, p, opts);
    rc = fmt->write(p, sink, opts, err);
    int rc2 = pk_sink_close(sink, rc == 0, rc == 0 ? err : NULL);
    if (!rc)
        rc = rc2;
    if (!rc && pk_buf_take(&mem, out, len) != 0)
        rc = pk_error_set(err, PROFKIT_ENOMEM, NULL, -1, "out of memory");
    pk_buf_free(&mem);
    return rc;
}
