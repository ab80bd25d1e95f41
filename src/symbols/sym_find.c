/*
 * sym_find.c: finds the file for each mapping of a profile, in this order
 * (docs/symbols.md):
 *   1. --binary PATH whose file name is the mapping's;
 *   2. each --symbols DIR, then each PPROF_BINARY_PATH entry, in pprof's
 *      layouts: DIR/BUILDID/NAME, DIR/PATH/BUILDID (perf),
 *      DIR/AB/CDEF.debug, DIR/.build-id/AB/CDEF, then DIR/NAME, DIR/PATH;
 *   3. the path the mapping names;
 *   4. debuginfod (executable by build id) when DEBUGINFOD_URLS is set.
 * A candidate whose build id differs from the mapping's is skipped with
 * one warning naming both ids. The detached debug file of the file chosen
 * is libdwfl's to find: the --symbols DIRs, the file's own directory,
 * .debug/ beside it and /usr/lib/debug, by build id (.build-id/AB/CDEF.debug)
 * and by .gnu_debuglink (CRC checked); dwz's .gnu_debugaltlink; debuginfod.
 */
#include "symbols/sym_find.h"

#include "symbols/sym_debuginfod.h"
#include "util/map64.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define UNSEARCHED (PROFKIT_NONE - 1)

typedef struct sfile {
    char *path;
    sym_binary *bin; /* NULL after pk_sym_finder_release */
    int found_by;    /* PK_SYM_FOUND_*: how it was found */
    size_t named;
    int source;           /* kept by pk_sym_finder_release for the summary */
    int cached_source;    /* PK_SYM_SRC_* of the symbol cache that answered every
                             lookup (the DWARF is then never read), else -1 */
    char build_id[2 * 64 + 1];
} sfile;

struct sym_finder {
    const profkit_profile *p;
    const profkit_symbolize_options *o;
    uint32_t *map_file; /* per mapping; UNSEARCHED until asked */
    /* (path, build id) string ids -> the first mapping asked with them:
     * mappings of one file share its search (a profile may map one long
     * path many times; searching each would cost their number times the
     * path's length) */
    pk_map64 searched;
    uint32_t no_mapping_file;
    sfile *files;
    size_t n_files, cap_files;
    char **dirs; /* --symbols, then PPROF_BINARY_PATH */
    size_t n_dirs, n_user_dirs;
    char *debuginfo_path;
    char **failed; /* paths that did not open, or mismatched: tried once */
    size_t n_failed, cap_failed;
    pk_debuginfod *dbg;
    int dbg_missing; /* built without debuginfod: warned once */
};

static int add_dir(sym_finder *f, const char *d, size_t len)
{
    if (len == 0)
        return 0;
    char **nd = realloc(f->dirs, (f->n_dirs + 1) * sizeof(char *));
    if (!nd)
        return -1;
    f->dirs = nd;
    if (!(f->dirs[f->n_dirs] = strndup(d, len)))
        return -1;
    f->n_dirs++;
    return 0;
}

sym_finder *pk_sym_finder_new(const profkit_profile *p, const profkit_symbolize_options *o)
{
    sym_finder *f = calloc(1, sizeof(*f));
    if (!f)
        return NULL;
    f->p = p;
    f->o = o;
    f->no_mapping_file = UNSEARCHED;
    if (!(f->map_file = malloc((p->n_mappings + 1) * sizeof(uint32_t))))
        goto fail;
    for (size_t m = 0; m < p->n_mappings; m++)
        f->map_file[m] = UNSEARCHED;
    for (size_t i = 0; o && i < o->n_symbol_dirs; i++)
        if (add_dir(f, o->symbol_dirs[i], strlen(o->symbol_dirs[i])) != 0)
            goto fail;
    f->n_user_dirs = f->n_dirs;
    const char *env = o && o->use_environment ? getenv("PPROF_BINARY_PATH") : NULL;
    for (const char *s = env; s && *s;) {
        const char *c = strchr(s, ':');
        size_t len = c ? (size_t)(c - s) : strlen(s);
        if (add_dir(f, s, len) != 0)
            goto fail;
        s = c ? c + 1 : s + len;
    }
    /* elfutils' search path for debug files: the user's directories, then
     * its defaults (the file's directory, .debug/ beside it, /usr/lib/debug). */
    size_t need = 32;
    for (size_t i = 0; i < f->n_user_dirs; i++)
        need += strlen(f->dirs[i]) + 1;
    if (!(f->debuginfo_path = malloc(need)))
        goto fail;
    f->debuginfo_path[0] = '\0';
    for (size_t i = 0; i < f->n_user_dirs; i++) {
        if (f->dirs[i][0] != '/')
            continue; /* elfutils reads a relative entry as "beside the file" */
        strcat(f->debuginfo_path, f->dirs[i]);
        strcat(f->debuginfo_path, ":");
    }
    strcat(f->debuginfo_path, ":.debug:/usr/lib/debug");
    return f;
fail:
    pk_sym_finder_free(f);
    return NULL;
}

void pk_sym_finder_free(sym_finder *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n_files; i++) {
        pk_sym_binary_close(f->files[i].bin);
        free(f->files[i].path);
    }
    for (size_t i = 0; i < f->n_dirs; i++)
        free(f->dirs[i]);
    for (size_t i = 0; i < f->n_failed; i++)
        free(f->failed[i]);
    pk_debuginfod_end(f->dbg);
    free(f->failed);
    free(f->dirs);
    free(f->files);
    free(f->map_file);
    pk_map64_free(&f->searched);
    free(f->debuginfo_path);
    free(f);
}

sym_binary *pk_sym_finder_binary(sym_finder *f, uint32_t file) { return f->files[file].bin; }

void pk_sym_finder_release(sym_finder *f)
{
    for (size_t i = 0; i < f->n_files; i++) {
        sfile *sf = &f->files[i];
        if (!sf->bin)
            continue;
        sf->source = sf->cached_source >= 0 ? sf->cached_source : pk_sym_binary_source(sf->bin);
        snprintf(sf->build_id, sizeof(sf->build_id), "%s", pk_sym_binary_build_id(sf->bin));
        pk_sym_binary_close(sf->bin);
        sf->bin = NULL;
    }
}
const char *pk_sym_finder_path(sym_finder *f, uint32_t file) { return f->files[file].path; }
void pk_sym_finder_count(sym_finder *f, uint32_t file, size_t n) { f->files[file].named += n; }
void pk_sym_finder_set_source(sym_finder *f, uint32_t file, int source)
{
    f->files[file].cached_source = source;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s && s[1] ? s + 1 : path;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int pk_sym_build_id_matches(const char *pid, const char *fid)
{
    if (strcasecmp(pid, fid) == 0)
        return 1;
    /* Breakpad: 16 bytes as a GUID (first three fields byte-swapped),
     * then an age, uppercase: the Firefox Profiler's breakpadId. */
    size_t pl = strlen(pid), fl = strlen(fid);
    if (pl < 33 || fl < 2 || fl % 2)
        return 0;
    unsigned char b[16] = { 0 };
    for (size_t i = 0; i < 16 && 2 * i + 1 < fl; i++)
        b[i] = (unsigned char)(hexval(fid[2 * i]) << 4 | hexval(fid[2 * i + 1]));
    static const int order[16] = { 3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15 };
    for (int i = 0; i < 16; i++) {
        int hi = hexval(pid[2 * i]), lo = hexval(pid[2 * i + 1]);
        if (hi < 0 || lo < 0 || (unsigned)(hi << 4 | lo) != b[order[i]])
            return 0;
    }
    return 1;
}

static void warn(sym_finder *f, const char *file, const char *fmt, const char *a, const char *b,
                 const char *c)
{
    if (!f->o || !f->o->on_warning)
        return;
    profkit_error w;
    pk_error_set(&w, PROFKIT_EINVAL, file, -1, fmt, a, b, c);
    f->o->on_warning(&w, f->o->payload);
}

static int tried(sym_finder *f, const char *path)
{
    for (size_t i = 0; i < f->n_failed; i++)
        if (strcmp(f->failed[i], path) == 0)
            return 1;
    return 0;
}

static void remember_failed(sym_finder *f, const char *path)
{
    if (PK_VEC_RESERVE(f->failed, f->n_failed, f->cap_failed, 1) == 0 &&
        (f->failed[f->n_failed] = strdup(path)) != NULL)
        f->n_failed++;
}

/*
 * The file at path when it is usable for a mapping with build id `bid`
 * ("" = unknown): its index, or PROFKIT_NONE. Each path is opened once.
 */
static uint32_t try_path(sym_finder *f, const char *path, const char *bid, const char *mpath,
                         int found_by)
{
    for (size_t i = 0; i < f->n_files; i++) {
        if (strcmp(f->files[i].path, path) != 0)
            continue;
        const char *fid = pk_sym_binary_build_id(f->files[i].bin);
        return !bid[0] || !fid[0] || pk_sym_build_id_matches(bid, fid) ? (uint32_t)i : PROFKIT_NONE;
    }
    if (tried(f, path))
        return PROFKIT_NONE;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        remember_failed(f, path);
        return PROFKIT_NONE;
    }
    const char *why = "";
    sym_binary *b = pk_sym_binary_open(path, f->debuginfo_path, &why);
    if (!b) {
        warn(f, path, "cannot read it as ELF (%s): the frames of %s stay unnamed%s", why, mpath, "");
        remember_failed(f, path);
        return PROFKIT_NONE;
    }
    const char *fid = pk_sym_binary_build_id(b);
    if (bid[0] && fid[0] && !pk_sym_build_id_matches(bid, fid)) {
        warn(f, path, "build id %s, but the profile's mapping %s has build id %s: not used", fid, mpath,
             bid);
        pk_sym_binary_close(b);
        remember_failed(f, path);
        return PROFKIT_NONE;
    }
    if (f->n_files >= PROFKIT_NONE - 2 || PK_VEC_RESERVE(f->files, f->n_files, f->cap_files, 1) != 0) {
        pk_sym_binary_close(b);
        return PROFKIT_NONE;
    }
    sfile *sf = &f->files[f->n_files];
    if (!(sf->path = strdup(path))) {
        pk_sym_binary_close(b);
        return PROFKIT_NONE;
    }
    sf->bin = b;
    sf->found_by = found_by;
    sf->named = 0;
    sf->cached_source = -1;
    return (uint32_t)f->n_files++;
}

static uint32_t try_join(sym_finder *f, const char *bid, const char *mpath, int how,
                         const char *a, const char *b, const char *c, const char *d)
{
    char path[4096];
    int n = snprintf(path, sizeof(path), "%s%s%s%s", a, b, c, d);
    if (n < 0 || (size_t)n >= sizeof(path))
        return PROFKIT_NONE;
    return try_path(f, path, bid, mpath, how);
}

/* debuginfod: the executable with this build id, into its cache. */
static uint32_t try_debuginfod(sym_finder *f, const char *bid, const char *mpath)
{
    const char *urls = getenv("DEBUGINFOD_URLS");
    if (!f->o || !f->o->use_environment || !urls || !*urls || strlen(bid) < 2)
        return PROFKIT_NONE;
    for (const char *c = bid; *c; c++)
        if (!isxdigit((unsigned char)*c))
            return PROFKIT_NONE;
    char *path = NULL;
    profkit_error w;
    if (pk_debuginfod_find(&f->dbg, bid, &path, &w) != 0) {
        if (!f->dbg_missing++ && f->o->on_warning) {
            snprintf(w.file, sizeof(w.file), "DEBUGINFOD_URLS"); /* what goes unused */
            f->o->on_warning(&w, f->o->payload);
        }
        return PROFKIT_NONE;
    }
    uint32_t r = path ? try_path(f, path, bid, mpath, PK_SYM_FOUND_DEBUGINFOD) : PROFKIT_NONE;
    free(path);
    return r;
}

static uint32_t search(sym_finder *f, uint32_t m)
{
    const profkit_profile *p = f->p;
    const profkit_symbolize_options *o = f->o;
    if (!o)
        return PROFKIT_NONE;
    const char *mpath = m != PROFKIT_NONE ? pk_str(p, p->mappings[m].path) : "";
    const char *bid = m != PROFKIT_NONE ? pk_str(p, p->mappings[m].build_id) : "";
    /* No file has a path this long (PATH_MAX): nothing to open, and no
     * look at its bytes for each of the mappings that share it (a hostile
     * shape), unless --binary names files to match by base name. */
    if (m != PROFKIT_NONE && pk_strtab_len(&p->strings, p->mappings[m].path) >= 4096 &&
        !o->n_binaries)
        return PROFKIT_NONE;
    const char *name = base_name(mpath);
    uint32_t r;
    /* A mapping without a file name (a DCPI image without a `path` line)
     * takes the first --binary, as addresses outside any mapping do. */
    for (size_t i = 0; i < o->n_binaries; i++)
        if (m == PROFKIT_NONE || strcmp(base_name(o->binaries[i]), name) == 0 || (!mpath[0] && i == 0))
            if ((r = try_path(f, o->binaries[i], bid, mpath[0] ? mpath : o->binaries[i],
                              PK_SYM_FOUND_BINARIES)) != PROFKIT_NONE)
                return r;
    if (m == PROFKIT_NONE)
        return PROFKIT_NONE;
    for (size_t i = 0; i < f->n_dirs; i++) {
        const char *d = f->dirs[i];
        int how = i < f->n_user_dirs ? PK_SYM_FOUND_SYMBOL_DIRS : PK_SYM_FOUND_ENVIRONMENT;
        if (bid[0] && strlen(bid) > 2 && strlen(bid) < 200) {
            char slash_name[1024], rest[256];
            snprintf(slash_name, sizeof(slash_name), "/%s", name);
            snprintf(rest, sizeof(rest), "%c%c/%s", bid[0], bid[1], bid + 2);
            if ((name[0] && (r = try_join(f, bid, mpath, how, d, "/", bid, slash_name)) != PROFKIT_NONE) ||
                (mpath[0] == '/' && (r = try_join(f, bid, mpath, how, d, mpath, "/", bid)) != PROFKIT_NONE) ||
                (r = try_join(f, bid, mpath, how, d, "/", rest, ".debug")) != PROFKIT_NONE ||
                (r = try_join(f, bid, mpath, how, d, "/.build-id/", rest, "")) != PROFKIT_NONE)
                return r;
        }
        if (name[0] && (r = try_join(f, bid, mpath, how, d, "/", name, "")) != PROFKIT_NONE)
            return r;
        if (mpath[0] == '/' && (r = try_join(f, bid, mpath, how, d, mpath, "", "")) != PROFKIT_NONE)
            return r;
    }
    if (o->use_mapping_paths && mpath[0] == '/' &&
        (r = try_path(f, mpath, bid, mpath, PK_SYM_FOUND_MAPPED_PATH)) != PROFKIT_NONE)
        return r;
    if (bid[0])
        return try_debuginfod(f, bid, mpath);
    return PROFKIT_NONE;
}

uint32_t pk_sym_finder_file(sym_finder *f, uint32_t m)
{
    uint32_t *slot = m == PROFKIT_NONE ? &f->no_mapping_file
                   : m < f->p->n_mappings ? &f->map_file[m] : NULL;
    if (!slot)
        return PROFKIT_NONE;
    if (*slot == UNSEARCHED && m != PROFKIT_NONE) {
        /* the search depends only on the mapping's path and build id */
        const profkit_mapping *mp = &f->p->mappings[m];
        uint64_t key = ((uint64_t)mp->path << 32) | mp->build_id;
        uint32_t first = pk_map64_get(&f->searched, key);
        if (first != PK_MAP64_EMPTY && f->map_file[first] != UNSEARCHED)
            return *slot = f->map_file[first];
        if (first == PK_MAP64_EMPTY)
            (void)pk_map64_put(&f->searched, key, m); /* out of memory: searched again, the same */
    }
    if (*slot == UNSEARCHED)
        *slot = search(f, m);
    return *slot;
}

int pk_sym_finder_files(sym_finder *f, pk_sym_file **out, size_t *n)
{
    pk_sym_file *files = calloc(f->n_files ? f->n_files : 1, sizeof(*files));
    if (!files)
        return PROFKIT_ENOMEM;
    for (size_t i = 0; i < f->n_files; i++) {
        const sfile *sf = &f->files[i];
        pk_sym_file *d = &files[i];
        d->named = sf->named;
        d->source = !sf->bin ? sf->source
                    : sf->cached_source >= 0 ? sf->cached_source : pk_sym_binary_source(sf->bin);
        d->found_by = sf->found_by;
        snprintf(d->build_id, sizeof(d->build_id), "%s",
                 sf->bin ? pk_sym_binary_build_id(sf->bin) : sf->build_id);
        if (!(d->path = strdup(sf->path))) {
            for (size_t k = 0; k < i; k++)
                free(files[k].path);
            free(files);
            return PROFKIT_ENOMEM;
        }
    }
    *out = files;
    *n = f->n_files;
    return 0;
}
