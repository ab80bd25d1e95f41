/*
 * sym_cache.c: the symbol cache on disk (sym_cache.h, docs/symbols.md).
 *
 * One file per build id, DIR/<build id>, all integers little-endian:
 *
 *   0   8 bytes  "PKSYMCA\0"
 *   8   u32      version (SYM_CACHE_VERSION: the layout and the lookups'
 *                rules; a profkit that looks addresses up differently
 *                bumps it, and older files are then ignored)
 *   12  u32      source (PK_SYM_SRC_*)
 *   16  u32      build id length L (hex digits, 2..128)
 *   20  u32      addresses N
 *   24  u32      frames F
 *   28  u32      string bytes S
 *   32  u32      context length C (the file's path, size and change time and
 *                the debug file search path: sym_binary.h)
 *   36  u32      debug file path length D (0: the DWARF is the file's own)
 *   40  u64      the debug file's size
 *   48  u64      the debug file's change time (ns)
 *   56  L + C + D bytes: the build id, the context, the debug file's path,
 *                then zeros to a multiple of 8
 *       N × 16   vaddr u64, first frame u32, frames u32 (vaddrs increasing,
 *                first + frames <= F, frames <= SYM_CACHE_CHAIN)
 *       F × 16   name u32, file u32 (0xffffffff: none), line u32,
 *                decl_line u32 (string offsets < S)
 *       S bytes  NUL-terminated strings (the last byte is a NUL)
 *       u64      FNV-1a of every byte before it
 *
 * The file's size must be exactly that, and the context must be this
 * run's, and the debug file must still be there with its size and time;
 * else the cache is empty. Only lookups from a file with DWARF are written
 * (the caller's choice), so a debug file installed later is seen by the
 * next run; a changed binary, debug file or search path makes the lookups
 * go to the files again.
 */
#include "symbols/sym_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "model/model.h"
#include "util/map64.h"
#include "util/util.h"

#define SYM_CACHE_VERSION 1u
#define SYM_CACHE_CHAIN 64u
#define SYM_CACHE_MAX_BYTES (256u << 20) /* a bigger file is not read */
#define SYM_CACHE_MAX_ADDRS (4u << 20)   /* nor written */
#define HDR 56u
#define MAX_CONTEXT (64u << 10)
#define MAX_DEBUG_PATH 4096u
#define NO_FILE 0xffffffffu
#define DAY 86400
#define KEEP_UNUSED_DAYS 30        /* an entry not used for this long goes */
#define KEEP_TOTAL (512ull << 20)  /* and the oldest go past this in all */
#define TMP_STALE 3600             /* a temporary file left by a killed run */

static const char magic[8] = { 'P', 'K', 'S', 'Y', 'M', 'C', 'A', 0 };

typedef struct added_frame {
    uint32_t name, file, line, decl_line; /* offsets into the added strings */
} added_frame;

typedef struct added_addr {
    uint64_t vaddr;
    uint32_t first, n;
} added_addr;

struct sym_cache {
    char *path; /* NULL: not saved */
    char *context;
    /* the file read, checked */
    uint8_t *data;
    int source;
    const uint8_t *addrs, *frames;
    const char *strs;
    uint32_t n_addrs, n_frames, n_strs;
    /* lookups added this run */
    added_addr *aa;
    size_t n_aa, cap_aa;
    added_frame *af;
    size_t n_af, cap_af;
    char *as;
    size_t n_as, cap_as;
    pk_map64 as_at; /* string pointer -> offset in as */
    int failed;
};

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}


/* A file's size and change time (ns); -1 when it is not a regular file. */
static int file_stamp(const char *path, uint64_t *size, uint64_t *mtime)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    *size = (uint64_t)st.st_size;
    *mtime = (uint64_t)st.st_mtim.tv_sec * 1000000000u + (uint64_t)st.st_mtim.tv_nsec;
    return 0;
}

static int is_hex_id(const char *id)
{
    size_t n = strlen(id);
    if (n < 2 || n > 128)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
            return 0;
    return 1;
}

char *pk_sym_cache_dir(void)
{
    const char *off = getenv("PROFKIT_SYMBOL_CACHE");
    if (off && (strcmp(off, "0") == 0 || strcmp(off, "off") == 0))
        return NULL;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    const char *base, *mid;
    if (xdg && xdg[0] == '/') {
        base = xdg;
        mid = "";
    } else if (home && home[0] == '/') {
        base = home;
        mid = "/.cache";
    } else {
        return NULL;
    }
    size_t n = strlen(base) + strlen(mid) + sizeof("/profkit/symbols");
    char *d = malloc(n);
    if (d)
        snprintf(d, n, "%s%s/profkit/symbols", base, mid);
    return d;
}

/* Creates dir and its missing parents (0700). Returns 0 when it exists. */
static int make_dirs(char *dir)
{
    struct stat st;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : -1;
    for (char *s = dir + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        int rc = mkdir(dir, 0700);
        *s = '/';
        if (rc != 0 && errno != EEXIST)
            return -1;
    }
    return mkdir(dir, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

/* Reads path whole (at most SYM_CACHE_MAX_BYTES); NULL when it cannot. */
static uint8_t *read_whole(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO must not block */
    if (fd < 0)
        return NULL;
    struct stat st;
    uint8_t *d = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)HDR ||
        (uint64_t)st.st_size > SYM_CACHE_MAX_BYTES || !(d = malloc((size_t)st.st_size + 1)))
        goto fail;
    size_t want = (size_t)st.st_size, got = 0;
    while (got < want) {
        ssize_t r = read(fd, d + got, want - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            goto fail; /* shorter than it said: changed under us */
        got += (size_t)r;
    }
    close(fd);
    *size = got;
    return d;
fail:
    free(d);
    close(fd);
    return NULL;
}

/* Checks the file's bytes; fills c's view of them. Returns 0 when usable. */
static int check(sym_cache *c, const uint8_t *d, size_t size, const char *build_id)
{
    if (size < HDR + 8 || memcmp(d, magic, 8) != 0 || le32(d + 8) != SYM_CACHE_VERSION)
        return -1;
    uint32_t source = le32(d + 12), idlen = le32(d + 16), clen = le32(d + 32), dlen = le32(d + 36);
    uint64_t na = le32(d + 20), nf = le32(d + 24), ns = le32(d + 28);
    size_t ctxlen = strlen(c->context);
    if (source > PK_SYM_SRC_DYNSYM || idlen != strlen(build_id) || clen != ctxlen ||
        dlen > MAX_DEBUG_PATH || na > SYM_CACHE_MAX_ADDRS ||
        (uint64_t)HDR + idlen + clen + dlen > size || memcmp(d + HDR, build_id, idlen) != 0 ||
        memcmp(d + HDR + idlen, c->context, clen) != 0)
        return -1;
    if (dlen > 0) { /* the debug file, as it was */
        char dpath[MAX_DEBUG_PATH + 1];
        uint64_t dsize, dtime;
        memcpy(dpath, d + HDR + idlen + clen, dlen);
        dpath[dlen] = '\0';
        if (strlen(dpath) != dlen || file_stamp(dpath, &dsize, &dtime) != 0 ||
            dsize != le64(d + 40) || dtime != le64(d + 48))
            return -1;
    }
    /* all below 2^34: no overflow */
    uint64_t at = HDR + (((uint64_t)idlen + clen + dlen + 7u) & ~(uint64_t)7u);
    uint64_t want = at + 16 * na + 16 * nf + ns + 8;
    if (want != size || ns == 0 || pk_fnv1a(PK_FNV_START, d, size - 8) != le64(d + size - 8))
        return -1;
    const uint8_t *addrs = d + at, *frames = addrs + 16 * na;
    const char *strs = (const char *)(frames + 16 * nf);
    if (strs[ns - 1] != '\0')
        return -1;
    for (uint64_t i = 0; i < na; i++) {
        const uint8_t *a = addrs + 16 * i;
        uint64_t first = le32(a + 8), n = le32(a + 12);
        if ((i > 0 && le64(a) <= le64(a - 16)) || n > SYM_CACHE_CHAIN || first + n > nf)
            return -1;
    }
    for (uint64_t i = 0; i < nf; i++) {
        const uint8_t *f = frames + 16 * i;
        uint32_t file = le32(f + 4);
        if (le32(f) >= ns || (file != NO_FILE && file >= ns))
            return -1;
    }
    c->source = (int)source;
    c->addrs = addrs;
    c->frames = frames;
    c->strs = strs;
    c->n_addrs = (uint32_t)na;
    c->n_frames = (uint32_t)nf;
    c->n_strs = (uint32_t)ns;
    return 0;
}

sym_cache *pk_sym_cache_open(const char *dir, const char *build_id, const char *context)
{
    sym_cache *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->source = -1;
    if (!dir || !context || !is_hex_id(build_id) || strlen(context) > MAX_CONTEXT ||
        !(c->context = strdup(context)))
        return c; /* empty, never saved */
    size_t n = strlen(dir) + strlen(build_id) + 2;
    if (!(c->path = malloc(n)))
        return c;
    snprintf(c->path, n, "%s/%s", dir, build_id);
    size_t size = 0;
    uint8_t *d = read_whole(c->path, &size);
    if (d && check(c, d, size, build_id) == 0) {
        c->data = d;
        /* Its time says when it was last used, for pruning; set at most
         * once a day, so most runs write nothing. */
        struct stat st;
        if (stat(c->path, &st) == 0 && st.st_mtime < time(NULL) - DAY)
            (void)utimensat(AT_FDCWD, c->path, NULL, 0);
    } else {
        free(d);
    }
    return c;
}

void pk_sym_cache_free(sym_cache *c)
{
    if (!c)
        return;
    free(c->path);
    free(c->context);
    free(c->data);
    free(c->aa);
    free(c->af);
    free(c->as);
    pk_map64_free(&c->as_at);
    free(c);
}

int pk_sym_cache_source(const sym_cache *c) { return c->data ? c->source : -1; }

int pk_sym_cache_get(const sym_cache *c, uint64_t vaddr, sym_frame *out, size_t max, size_t *n)
{
    if (!c->data)
        return 0;
    size_t lo = 0, hi = c->n_addrs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t v = le64(c->addrs + 16 * mid);
        if (v == vaddr) {
            const uint8_t *a = c->addrs + 16 * mid;
            uint32_t first = le32(a + 8), k = le32(a + 12);
            if (k > max)
                return 0; /* longer than the caller takes: look it up */
            for (uint32_t i = 0; i < k; i++) {
                const uint8_t *f = c->frames + 16 * ((size_t)first + i);
                uint32_t file = le32(f + 4);
                out[i].name = c->strs + le32(f);
                out[i].file = file == NO_FILE ? NULL : c->strs + file;
                out[i].line = le32(f + 8);
                out[i].decl_line = le32(f + 12);
            }
            *n = k;
            return 1;
        }
        if (v < vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* The offset of s in the added strings (copied on first sight), or -1. */
static int64_t add_string(sym_cache *c, const char *s)
{
    uint32_t at = pk_map64_get(&c->as_at, (uint64_t)(uintptr_t)s);
    if (at != PK_MAP64_EMPTY)
        return at;
    size_t len = strlen(s) + 1;
    if (c->n_as + len >= UINT32_MAX / 2 || PK_VEC_RESERVE(c->as, c->n_as, c->cap_as, len) != 0 ||
        pk_map64_put(&c->as_at, (uint64_t)(uintptr_t)s, (uint32_t)c->n_as) < 0)
        return -1;
    memcpy(c->as + c->n_as, s, len);
    c->n_as += len;
    return (int64_t)(c->n_as - len);
}

int pk_sym_cache_add(sym_cache *c, uint64_t vaddr, const sym_frame *f, size_t n)
{
    if (c->failed || !c->path)
        return 0;
    if (n > SYM_CACHE_CHAIN || c->n_aa >= SYM_CACHE_MAX_ADDRS ||
        (c->n_aa > 0 && vaddr <= c->aa[c->n_aa - 1].vaddr) ||
        PK_VEC_RESERVE(c->aa, c->n_aa, c->cap_aa, 1) != 0 ||
        PK_VEC_RESERVE(c->af, c->n_af, c->cap_af, n) != 0 || c->n_af + n >= UINT32_MAX / 2)
        goto fail;
    c->aa[c->n_aa++] = (added_addr){ vaddr, (uint32_t)c->n_af, (uint32_t)n };
    for (size_t i = 0; i < n; i++) {
        int64_t name = add_string(c, f[i].name ? f[i].name : "");
        int64_t file = f[i].file ? add_string(c, f[i].file) : (int64_t)NO_FILE;
        if (name < 0 || file < 0)
            goto fail;
        c->af[c->n_af++] = (added_frame){ (uint32_t)name, (uint32_t)file, f[i].line, f[i].decl_line };
    }
    return 0;
fail:
    c->failed = 1;
    return -1;
}

typedef struct {
    char *name;
    uint64_t size;
    time_t mtime;
} cache_entry;

static int older_first(const void *a, const void *b)
{
    const cache_entry *x = a, *y = b;
    if (x->mtime != y->mtime)
        return x->mtime < y->mtime ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void remove_entry(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p) {
        snprintf(p, n, "%s/%s", dir, name);
        (void)unlink(p);
    }
    free(p);
}

/* A temporary file of save(): BUILD_ID.XXXXXX. */
static int is_tmp_name(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (!dot || strlen(dot + 1) != 6)
        return 0;
    char id[256];
    size_t n = (size_t)(dot - name);
    if (n >= sizeof(id))
        return 0;
    memcpy(id, name, n);
    id[n] = '\0';
    return is_hex_id(id);
}

/*
 * Keeps the cache directory bounded: entries not used for
 * KEEP_UNUSED_DAYS go (a read sets an entry's time, once a day), then the
 * least recently used go until the rest hold at most the total's limit;
 * temporary files older than TMP_STALE (a run killed while saving) go too.
 * Only names the cache writes are touched; keep (the entry just written)
 * stays whatever its size. PROFKIT_SYMBOL_CACHE_MAX_MB sets the limit.
 */
static void prune(const char *dir, const char *keep)
{
    uint64_t limit = KEEP_TOTAL;
    const char *env = getenv("PROFKIT_SYMBOL_CACHE_MAX_MB");
    if (env && *env) {
        char *end;
        unsigned long long mb = strtoull(env, &end, 10);
        if (*end == '\0' && mb < (1ull << 40))
            limit = (uint64_t)mb << 20;
    }
    DIR *dh = opendir(dir);
    if (!dh)
        return;
    cache_entry *e = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    time_t now = time(NULL);
    struct dirent *de;
    while ((de = readdir(dh)) != NULL) {
        const char *name = de->d_name;
        int tmp = is_tmp_name(name);
        if (!tmp && !is_hex_id(name))
            continue;
        size_t pn = strlen(dir) + strlen(name) + 2;
        char *p = malloc(pn);
        struct stat st;
        int ok = p && (snprintf(p, pn, "%s/%s", dir, name), lstat(p, &st) == 0) && S_ISREG(st.st_mode);
        free(p);
        if (!ok)
            continue;
        if (tmp) {
            if (st.st_mtime < now - TMP_STALE)
                remove_entry(dir, name);
            continue;
        }
        if (strcmp(name, keep) == 0) {
            total += (uint64_t)st.st_size;
            continue;
        }
        if (st.st_mtime < now - (time_t)KEEP_UNUSED_DAYS * DAY) {
            remove_entry(dir, name);
            continue;
        }
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            cache_entry *ne = realloc(e, nc * sizeof(*e));
            if (!ne)
                break;
            e = ne;
            cap = nc;
        }
        if (!(e[n].name = strdup(name)))
            break;
        e[n].size = (uint64_t)st.st_size;
        e[n].mtime = st.st_mtime;
        total += e[n].size;
        n++;
    }
    closedir(dh);
    if (n > 1)
        qsort(e, n, sizeof(*e), older_first);
    for (size_t i = 0; i < n && total > limit; i++) {
        remove_entry(dir, e[i].name);
        total -= e[i].size;
    }
    for (size_t i = 0; i < n; i++)
        free(e[i].name);
    free(e);
}

void pk_sym_cache_save(sym_cache *c, int source, const char *debug_file)
{
    if (!c->path || c->failed || c->n_aa == 0 || source < 0 || source > PK_SYM_SRC_DYNSYM)
        return;
    uint64_t dsize = 0, dtime = 0;
    size_t dlen = debug_file ? strlen(debug_file) : 0, clen = strlen(c->context);
    if (dlen > MAX_DEBUG_PATH || (dlen > 0 && file_stamp(debug_file, &dsize, &dtime) != 0))
        return;
    uint64_t old_a = c->data ? c->n_addrs : 0, old_f = c->data ? c->n_frames : 0;
    uint64_t old_s = c->data ? c->n_strs : 0;
    uint64_t na = old_a + c->n_aa, nf = old_f + c->n_af, ns = old_s + c->n_as;
    if (na > SYM_CACHE_MAX_ADDRS || nf >= UINT32_MAX / 2 || ns >= UINT32_MAX / 2 || ns == 0)
        return;
    size_t idlen = strlen(c->path) - (strrchr(c->path, '/') - c->path) - 1;
    const char *id = strrchr(c->path, '/') + 1;
    size_t at = HDR + ((idlen + clen + dlen + 7u) & ~(size_t)7u);
    size_t size = at + 16 * na + 16 * nf + ns + 8;
    if (size > SYM_CACHE_MAX_BYTES)
        return;
    uint8_t *d = calloc(1, size);
    if (!d)
        return;
    memcpy(d, magic, 8);
    put32(d + 8, SYM_CACHE_VERSION);
    put32(d + 12, (uint32_t)source);
    put32(d + 16, (uint32_t)idlen);
    put32(d + 20, (uint32_t)na);
    put32(d + 24, (uint32_t)nf);
    put32(d + 28, (uint32_t)ns);
    put32(d + 32, (uint32_t)clen);
    put32(d + 36, (uint32_t)dlen);
    put64(d + 40, dsize);
    put64(d + 48, dtime);
    memcpy(d + HDR, id, idlen);
    memcpy(d + HDR + idlen, c->context, clen);
    if (dlen)
        memcpy(d + HDR + idlen + clen, debug_file, dlen);
    uint8_t *addrs = d + at, *frames = addrs + 16 * na, *strs = frames + 16 * nf;
    /* Frames and strings: the old ones as they were, the added ones after. */
    if (old_f)
        memcpy(frames, c->frames, 16 * old_f);
    for (size_t i = 0; i < c->n_af; i++) {
        uint8_t *f = frames + 16 * (old_f + i);
        const added_frame *x = &c->af[i];
        put32(f, (uint32_t)(x->name + old_s));
        put32(f + 4, x->file == NO_FILE ? NO_FILE : (uint32_t)(x->file + old_s));
        put32(f + 8, x->line);
        put32(f + 12, x->decl_line);
    }
    if (old_s)
        memcpy(strs, c->strs, old_s);
    if (c->n_as)
        memcpy(strs + old_s, c->as, c->n_as);
    /* Addresses: both lists are increasing and disjoint; merge them. */
    size_t i = 0, j = 0;
    for (uint64_t k = 0; k < na; k++) {
        uint8_t *a = addrs + 16 * k;
        if (j >= c->n_aa || (i < old_a && le64(c->addrs + 16 * i) < c->aa[j].vaddr)) {
            memcpy(a, c->addrs + 16 * i, 16);
            i++;
        } else {
            put64(a, c->aa[j].vaddr);
            put32(a + 8, (uint32_t)(c->aa[j].first + old_f));
            put32(a + 12, c->aa[j].n);
            j++;
        }
    }
    put64(d + size - 8, pk_fnv1a(PK_FNV_START, d, size - 8));
    /* Written beside the file and renamed over it: a reader at the same
     * time sees the old file or the new one, whole. */
    char *dir = strdup(c->path), *tmp = malloc(strlen(c->path) + 8);
    if (dir && tmp) {
        *strrchr(dir, '/') = '\0';
        snprintf(tmp, strlen(c->path) + 8, "%s.XXXXXX", c->path);
        int fd = make_dirs(dir) == 0 ? mkstemp(tmp) : -1;
        if (fd >= 0) {
            size_t put = 0;
            while (put < size) {
                ssize_t w = write(fd, d + put, size - put);
                if (w < 0 && errno == EINTR)
                    continue;
                if (w <= 0)
                    break;
                put += (size_t)w;
            }
            if (close(fd) != 0 || put != size || rename(tmp, c->path) != 0)
                unlink(tmp);
            else
                prune(dir, id);
        }
    }
    free(dir);
    free(tmp);
    free(d);
}
