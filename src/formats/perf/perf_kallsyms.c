/*
 * perf_kallsyms.c: kernel symbols for the kernel frames of a perf.data
 * file, as `perf script` finds them (docs/formats/perf_data.md, "Kernel
 * frames"):
 *   - the running kernel's /proc/kallsyms when the file's kernel build id is
 *     the running kernel's (/sys/kernel/notes), or when the file records
 *     none (pipe mode: perf takes the running kernel then too);
 *   - else the copy `perf record` keeps in the build-id cache,
 *     $PERF_BUILDID_DIR or $HOME/.debug, `[kernel.kallsyms]/ID/kallsyms`.
 * The symbols are the text, weak, data and bss ones (`T W D B`, either
 * case), as perf keeps them; a symbol ends where the next one starts (the
 * last one of the kernel or of a module at the page after it), and of
 * several at one address the one listed last is taken, as perf's choice of
 * the one that has a size comes to.
 */
#include "formats/perf/perf_kallsyms.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int cmp_sym(const void *a, const void *b)
{
    const pk_ksym *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int pk_kallsyms_parse(pk_kallsyms *k, char *buf, size_t n)
{
    memset(k, 0, sizeof(*k));
    k->buf = buf;
    size_t cap = 0, nonzero = 0, lines = 0;
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && buf[e] != '\n')
            e++;
        size_t j = i;
        uint64_t addr = 0;
        int digits = 0, h;
        while (j < e && (h = hexval((unsigned char)buf[j])) >= 0 && digits < 17) {
            addr = addr << 4 | (uint64_t)h;
            j++;
            digits++;
        }
        /* ADDRESS TYPE NAME[\t[MODULE]] */
        if (digits > 0 && digits <= 16 && j + 3 <= e && buf[j] == ' ' && buf[j + 2] == ' ') {
            char t = buf[j + 1];
            size_t ns = j + 3, ne = ns;
            while (ne < e && buf[ne] != '\t' && buf[ne] != ' ')
                ne++;
            lines++;
            int keep = strchr("TtWwDdBb", t) != NULL && t != '\0';
            if (keep && ne > ns && ne - ns < UINT32_MAX) {
                if (addr)
                    nonzero++;
                if (k->n == cap) {
                    size_t ncap = cap ? cap * 2 : 4096;
                    pk_ksym *ns2 = realloc(k->sym, ncap * sizeof(pk_ksym));
                    if (!ns2)
                        return -1;
                    k->sym = ns2;
                    cap = ncap;
                }
                pk_ksym *s = &k->sym[k->n];
                s->start = addr;
                s->name = (uint32_t)ns;
                s->len = (uint32_t)(ne - ns);
                s->seq = (uint32_t)k->n;
                s->module = ne < e && buf[ne] == '\t' && ne + 1 < e && buf[ne + 1] == '[';
                k->n++;
            }
        }
        i = e + 1;
        if (k->n >= UINT32_MAX - 1)
            break;
    }
    k->hidden = lines > 0 && nonzero == 0;
    if (k->hidden) {
        k->n = 0;
        return 0;
    }
    qsort(k->sym, k->n, sizeof(pk_ksym), cmp_sym);
    /* of several at one address, the last listed */
    size_t w = 0;
    for (size_t i = 0; i < k->n; i++) {
        if (w > 0 && k->sym[w - 1].start == k->sym[i].start)
            w--;
        k->sym[w++] = k->sym[i];
    }
    k->n = w;
    for (size_t i = 0; i < k->n; i++) {
        pk_ksym *s = &k->sym[i];
        uint64_t up = (s->start + 4095) / 4096 * 4096;
        if (i + 1 == k->n) /* the last one: to the page after it */
            s->end = up + 4096 < s->start ? UINT64_MAX : up + 4096;
        else if (s->module != k->sym[i + 1].module) /* the kernel's last, or a module's */
            s->end = s->start + 4096 < s->start ? UINT64_MAX : (s->start + 4096 + 4095) / 4096 * 4096;
        else
            s->end = k->sym[i + 1].start;
    }
    return 0;
}

const pk_ksym *pk_kallsyms_find(const pk_kallsyms *k, uint64_t addr)
{
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->sym[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const pk_ksym *s = &k->sym[lo - 1];
    return addr < s->end ? s : NULL;
}

void pk_kallsyms_free(pk_kallsyms *k)
{
    free(k->buf);
    free(k->sym);
    memset(k, 0, sizeof(*k));
}

/* The whole of a file /proc shows (no size known before reading). */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 20, len = 0;
    char *b = malloc(cap);
    while (b) {
        size_t got = fread(b + len, 1, cap - len, f);
        len += got;
        if (len < cap) {
            if (ferror(f)) {
                free(b);
                b = NULL;
            }
            break;
        }
        if (cap > ((size_t)1 << 30)) { /* no kallsyms is this large */
            free(b);
            b = NULL;
            break;
        }
        char *nb = realloc(b, cap * 2);
        if (!nb) {
            free(b);
            b = NULL;
            break;
        }
        b = nb;
        cap *= 2;
    }
    fclose(f);
    *n = len;
    return b;
}

int pk_kallsyms_running_build_id(char *out, size_t size)
{
    size_t n;
    char *b = slurp("/sys/kernel/notes", &n);
    if (!b)
        return -1;
    int rc = -1;
    /* ELF notes: namesz, descsz, type, the name and the desc, each padded
     * to 4 bytes; the build id is type 3 (NT_GNU_BUILD_ID) of "GNU". */
    for (size_t i = 0; i + 12 <= n;) {
        uint32_t nsz, dsz, type;
        memcpy(&nsz, b + i, 4);
        memcpy(&dsz, b + i + 4, 4);
        memcpy(&type, b + i + 8, 4);
        size_t name_at = i + 12, nsz4 = ((size_t)nsz + 3) / 4 * 4, dsz4 = ((size_t)dsz + 3) / 4 * 4;
        if (nsz4 > n - name_at || dsz4 > n - name_at - nsz4)
            break;
        size_t desc_at = name_at + nsz4;
        if (type == 3 && nsz == 4 && memcmp(b + name_at, "GNU", 4) == 0 && dsz > 0 &&
            2 * (size_t)dsz < size) {
            for (uint32_t j = 0; j < dsz; j++)
                snprintf(out + 2 * j, 3, "%02x", (unsigned char)b[desc_at + j]);
            rc = 0;
            break;
        }
        i = desc_at + dsz4;
    }
    free(b);
    return rc;
}

/* What was loaded from each path, kept for the process: a reader reading
 * many files (a test's thousands of cut copies, a server) parses the
 * kernel's 100,000 symbols once. Read-only once made. */
typedef struct kcache {
    char path[4096];
    int rc;
    pk_kallsyms k;
} kcache;
static kcache cache[4];
static size_t n_cache;
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

const pk_kallsyms *pk_kallsyms_load(const char *build_id, char *from, size_t from_size, int *rc)
{
    char running[2 * 64 + 1] = "";
    char path[4096];
    int host = !build_id || !build_id[0] ||
               (pk_kallsyms_running_build_id(running, sizeof(running)) == 0 &&
                strcmp(running, build_id) == 0);
    if (host) {
        snprintf(path, sizeof(path), "/proc/kallsyms");
    } else {
        const char *dir = getenv("PERF_BUILDID_DIR");
        const char *home = getenv("HOME");
        if (dir && dir[0])
            snprintf(path, sizeof(path), "%s/[kernel.kallsyms]/%s/kallsyms", dir, build_id);
        else if (home && home[0])
            snprintf(path, sizeof(path), "%s/.debug/[kernel.kallsyms]/%s/kallsyms", home, build_id);
        else
            path[0] = 0;
    }
    snprintf(from, from_size, "%s", path);
    if (!path[0]) {
        *rc = 1;
        return NULL;
    }
    pthread_mutex_lock(&cache_lock);
    kcache *c = NULL;
    for (size_t i = 0; i < n_cache && !c; i++)
        if (strcmp(cache[i].path, path) == 0)
            c = &cache[i];
    if (!c && n_cache < sizeof(cache) / sizeof(cache[0])) {
        c = &cache[n_cache];
        memset(c, 0, sizeof(*c));
        snprintf(c->path, sizeof(c->path), "%s", path);
        size_t n;
        char *b = slurp(path, &n);
        if (!b)
            c->rc = 1;
        else if (pk_kallsyms_parse(&c->k, b, n))
            c->rc = -1;
        else
            c->rc = c->k.hidden ? 2 : 0;
        if (c->rc < 0) /* out of memory: not kept, tried again next time */
            pk_kallsyms_free(&c->k);
        else
            n_cache++;
    }
    *rc = c ? c->rc : 1;
    const pk_kallsyms *k = c && c->rc == 0 ? &c->k : NULL;
    pthread_mutex_unlock(&cache_lock);
    return k;
}
