/*
 * sym_binary.c: one ELF file opened through elfutils' libdwfl, and the
 * lookups of addresses in it.
 *
 * libdwfl finds the DWARF (the file's own, or a detached debug file by
 * build id, .gnu_debuglink with its CRC, dwz's .gnu_debugaltlink,
 * MiniDebugInfo for the symbol table, debuginfod when DEBUGINFOD_URLS is
 * set). Inlines are NOT looked up with dwarf_getscopes per address, which
 * walks the compile unit again for every address (38 s for 20k addresses
 * on a large binary; docs/symbols.md): each compile unit is walked
 * once, the first time an address falls in it, into an index of its
 * subprograms and inlined calls (ranges, call file and line), nested as
 * the DIEs are; an address then descends that tree by binary searches, and
 * its line comes from the unit's line table (dwarf_getsrc_die, a binary
 * search too).
 *
 * Everything read from the file is untrusted: libdw checks its own reads;
 * here the walk's depth is bounded, ranges are checked (lo < hi), and a
 * unit that fails to index is left to the symbol table.
 */
#include "symbols/symbols.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/model.h"
#include "util/util.h"

#define MAX_DIE_DEPTH 128

typedef struct dnode {
    Dwarf_Die die;
    const char *call_file; /* where the parent calls this inlined function */
    uint32_t call_line;
    uint32_t first, n; /* children ranges: ranges[first, first + n) */
    int walked;        /* its children indexed (a top-level function: on first use) */
} dnode;

typedef struct drange {
    uint64_t lo, hi;
    uint32_t parent; /* node index + 1; 0 = the unit's top level */
    uint32_t node;
} drange;

typedef struct dcu {
    Dwarf_Die die;
    int state; /* 0 not indexed yet, 1 indexed, -1 failed */
    dnode *nodes;
    size_t n_nodes, cap_nodes;
    drange *ranges;
    size_t n_ranges, cap_ranges;
    uint32_t top_first, top_n;
    Dwarf_Files *files;
    size_t n_files;
} dcu;

typedef struct curange {
    uint64_t lo, hi;
    uint32_t cu;
} curange;

typedef struct ssym {
    uint64_t addr, size; /* module addresses */
    const char *name;
    uint32_t rank;
} ssym;

struct sym_binary {
    Dwfl *dwfl;
    Dwfl_Module *mod;
    GElf_Addr bias; /* module address = vaddr + bias */
    GElf_Phdr *loads;
    size_t n_loads;
    char build_id[2 * 64 + 1];
    /* DWARF, opened on the first lookup */
    int dwarf_tried;
    Dwarf *dw;
    Dwarf_Addr dbias;
    dcu *cus;
    size_t n_cus;
    curange *cu_ranges;
    size_t n_cu_ranges;
    /* symbol table, read on the first lookup DWARF does not answer */
    int syms_tried;
    int source;
    ssym *syms;
    size_t n_syms;
    /* the binary's own .dynsym: the exported names, one per address */
    int dyn_tried;
    ssym *dyn;
    size_t n_dyn;
};

static const Dwfl_Callbacks callbacks_template = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

/* libdwfl keeps a pointer to the callbacks and to the search path. */
typedef struct opened {
    Dwfl_Callbacks cb;
    char *debuginfo_path;
    sym_binary b;
} opened;

sym_binary *pk_sym_binary_open(const char *path, char *debuginfo_path, const char **why)
{
    opened *o = calloc(1, sizeof(*o));
    if (!o) {
        *why = "out of memory";
        return NULL;
    }
    o->cb = callbacks_template;
    o->debuginfo_path = debuginfo_path;
    o->cb.debuginfo_path = debuginfo_path && *debuginfo_path ? &o->debuginfo_path : NULL;
    sym_binary *b = &o->b;
    b->source = -1;
    b->dwfl = dwfl_begin(&o->cb);
    if (!b->dwfl) {
        *why = "cannot start libdwfl";
        goto fail;
    }
    dwfl_report_begin(b->dwfl);
    b->mod = dwfl_report_elf(b->dwfl, path, path, -1, 0, true);
    dwfl_report_end(b->dwfl, NULL, NULL);
    if (!b->mod) {
        int e = dwfl_errno();
        *why = e ? dwfl_errmsg(e) : "not an ELF file";
        goto fail;
    }
    Elf *elf = dwfl_module_getelf(b->mod, &b->bias);
    if (!elf) {
        *why = "not an ELF file";
        goto fail;
    }
    size_t nph;
    if (elf_getphdrnum(elf, &nph) == 0) {
        for (size_t i = 0; i < nph && i < 4096; i++) {
            GElf_Phdr ph;
            if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
                continue;
            GElf_Phdr *np = realloc(b->loads, (b->n_loads + 1) * sizeof(*np));
            if (!np) {
                *why = "out of memory";
                goto fail;
            }
            b->loads = np;
            b->loads[b->n_loads++] = ph;
        }
    }
    const unsigned char *bits;
    GElf_Addr id_vaddr;
    int len = dwfl_module_build_id(b->mod, &bits, &id_vaddr);
    if (len > 0 && len <= 64)
        for (int i = 0; i < len; i++)
            snprintf(b->build_id + 2 * i, 3, "%02x", bits[i]);
    return b;
fail:
    if (b->dwfl)
        dwfl_end(b->dwfl);
    free(b->loads);
    free(o);
    return NULL;
}

void pk_sym_binary_close(sym_binary *b)
{
    if (!b)
        return;
    opened *o = (opened *)((char *)b - offsetof(opened, b));
    for (size_t i = 0; i < b->n_cus; i++) {
        free(b->cus[i].nodes);
        free(b->cus[i].ranges);
    }
    free(b->cus);
    free(b->cu_ranges);
    free(b->syms);
    free(b->dyn);
    free(b->loads);
    dwfl_end(b->dwfl);
    free(o);
}

static void open_dwarf(sym_binary *b);

const char *pk_sym_binary_build_id(const sym_binary *b) { return b->build_id; }

/* The file's path, size and change time, and the debug file search path:
 * what makes another run's lookups of this build id the same as ours. */
char *pk_sym_binary_cache_context(const sym_binary *b)
{
    const opened *o = (const opened *)(const void *)((const char *)b - offsetof(opened, b));
    const char *main = NULL;
    dwfl_module_info(b->mod, NULL, NULL, NULL, NULL, NULL, &main, NULL);
    struct stat st;
    if (!main || stat(main, &st) != 0)
        return NULL;
    const char *urls = getenv("DEBUGINFOD_URLS");
    size_t n = strlen(main) + (o->debuginfo_path ? strlen(o->debuginfo_path) : 0) +
               (urls ? strlen(urls) : 0) + 3 * 24 + 8;
    char *c = malloc(n);
    if (c)
        snprintf(c, n, "%s\n%lld\n%lld.%09ld\n%s\n%s", main, (long long)st.st_size,
                 (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
                 o->debuginfo_path ? o->debuginfo_path : "", urls ? urls : "");
    return c;
}

const char *pk_sym_binary_debug_file(sym_binary *b)
{
    if (!b->dwarf_tried)
        open_dwarf(b);
    const char *debug = NULL;
    dwfl_module_info(b->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debug);
    return debug ? debug : "";
}

int pk_sym_binary_vaddr(const sym_binary *b, uint64_t off, uint64_t *vaddr)
{
    /* pprof's elfexec.GetBase: the loadable segment holding the offset. */
    for (size_t i = 0; i < b->n_loads; i++) {
        const GElf_Phdr *ph = &b->loads[i];
        if (off >= ph->p_offset && off - ph->p_offset < ph->p_memsz) {
            *vaddr = off - ph->p_offset + ph->p_vaddr;
            return 0;
        }
    }
    return -1;
}

/* ------------------------------------------------------------ DWARF */

/* By address, then unit: overlapping units (broken DWARF) keep the
 * order of the units, so lookups do not depend on where ranges came from. */
static int curange_cmp(const void *a, const void *b)
{
    const curange *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->cu < y->cu ? -1 : x->cu > y->cu;
}

typedef struct cuoff {
    Dwarf_Off off; /* the unit DIE's offset */
    uint32_t cu;
} cuoff;

static int cuoff_cmp(const void *a, const void *b)
{
    const cuoff *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

static int add_curange(sym_binary *b, size_t *cap, uint64_t lo, uint64_t hi, uint32_t cu)
{
    if (lo >= hi)
        return 0;
    if (PK_VEC_RESERVE(b->cu_ranges, b->n_cu_ranges, *cap, 1) != 0)
        return -1;
    b->cu_ranges[b->n_cu_ranges++] = (curange){ lo, hi, cu };
    return 0;
}

/*
 * The units' address ranges from .debug_aranges, one table, rather than
 * from each unit's DIE (its abbreviations and range list read, for every
 * unit, also those no address falls in). has[cu] is set for each
 * unit the table covers; the others are read from their DIEs. Returns 0,
 * or -1 (no table, or out of memory: every unit is read from its DIE).
 */
static int aranges_cus(sym_binary *b, size_t *cap, uint8_t *has)
{
    Dwarf_Aranges *ar = NULL;
    size_t n_ar = 0;
    if (dwarf_getaranges(b->dw, &ar, &n_ar) != 0 || n_ar == 0)
        return -1;
    cuoff *offs = malloc(b->n_cus * sizeof(*offs));
    if (!offs)
        return -1;
    for (size_t i = 0; i < b->n_cus; i++)
        offs[i] = (cuoff){ dwarf_dieoffset(&b->cus[i].die), (uint32_t)i };
    qsort(offs, b->n_cus, sizeof(*offs), cuoff_cmp);
    int rc = 0;
    for (size_t i = 0; i < n_ar && rc == 0; i++) {
        Dwarf_Addr start;
        Dwarf_Word len;
        Dwarf_Off off;
        Dwarf_Arange *r = dwarf_onearange(ar, i);
        if (!r || dwarf_getarangeinfo(r, &start, &len, &off) != 0)
            continue;
        size_t lo = 0, hi = b->n_cus;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (offs[mid].off < off)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == b->n_cus || offs[lo].off != off || len > UINT64_MAX - start)
            continue;
        has[offs[lo].cu] = 1;
        rc = add_curange(b, cap, start, start + len, offs[lo].cu);
    }
    free(offs);
    return rc;
}

/* Lists the compile units and their address ranges (not their DIEs). */
static void open_dwarf(sym_binary *b)
{
    b->dwarf_tried = 1;
    b->dw = dwfl_module_getdwarf(b->mod, &b->dbias);
    if (!b->dw)
        return;
    size_t cap_cus = 0, cap_r = 0;
    Dwarf_CU *cu = NULL;
    Dwarf_Die cudie;
    uint8_t unit_type;
    Dwarf_Half version;
    while (dwarf_get_units(b->dw, cu, &cu, &version, &unit_type, &cudie, NULL) == 0) {
        if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
            continue;
        if (b->n_cus >= UINT32_MAX - 1 || PK_VEC_RESERVE(b->cus, b->n_cus, cap_cus, 1) != 0)
            break;
        memset(&b->cus[b->n_cus], 0, sizeof(dcu));
        b->cus[b->n_cus++].die = cudie;
    }
    uint8_t *has = calloc(b->n_cus ? b->n_cus : 1, 1);
    if (!has)
        return;
    if (aranges_cus(b, &cap_r, has) != 0) {
        b->n_cu_ranges = 0;
        memset(has, 0, b->n_cus);
    }
    for (size_t idx = 0; idx < b->n_cus; idx++) {
        if (has[idx])
            continue;
        Dwarf_Addr base, lo, hi;
        ptrdiff_t off = 0;
        int guard = 0;
        while ((off = dwarf_ranges(&b->cus[idx].die, off, &base, &lo, &hi)) > 0 && guard++ < 1000000)
            if (add_curange(b, &cap_r, lo, hi, (uint32_t)idx) != 0)
                break;
    }
    free(has);
    if (b->n_cu_ranges)
        qsort(b->cu_ranges, b->n_cu_ranges, sizeof(curange), curange_cmp);
}

static int drange_cmp(const void *a, const void *b)
{
    const drange *x = a, *y = b;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->node < y->node ? -1 : x->node > y->node;
}

static int add_ranges(dcu *c, Dwarf_Die *die, uint32_t parent, uint32_t node)
{
    Dwarf_Addr base, lo, hi;
    ptrdiff_t off = 0;
    int any = 0, guard = 0;
    while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0 && guard++ < 100000) {
        if (lo >= hi)
            continue;
        if (c->n_ranges >= UINT32_MAX - 1 || PK_VEC_RESERVE(c->ranges, c->n_ranges, c->cap_ranges, 1) != 0)
            return -1;
        c->ranges[c->n_ranges++] = (drange){ lo, hi, parent, node };
        any = 1;
    }
    return any;
}

/* Scopes that can hold functions with code. Types are not among them:
 * GCC and Clang put a member function's definition at the unit's level
 * (DW_AT_specification), and walking every member of every struct of a
 * unit was a third of the indexing. */
static int walks_into(int tag)
{
    switch (tag) {
    case DW_TAG_lexical_block:
    case DW_TAG_namespace:
    case DW_TAG_module:
    case DW_TAG_try_block:
    case DW_TAG_catch_block:
    case DW_TAG_entry_point:
        return 1;
    default:
        return 0;
    }
}

/*
 * Walks the DIEs from `first` and its siblings, adding nodes and ranges
 * under parent (node index + 1, 0 = the unit's top level). At the top
 * level a subprogram is a node whose children are not walked yet (most
 * functions of a unit hold no sampled address); below a function, each
 * inlined call is a node walked at once, and a subprogram nested there
 * (GNU C nested functions) is left to the symbol table. Returns 0, or -1
 * (out of memory, or a walk too long). The new ranges are sorted and
 * given to their parents.
 */
static int walk_dies(dcu *c, Dwarf_Die *first, uint32_t parent0, int top)
{
    struct level {
        Dwarf_Die die;
        uint32_t parent; /* node index + 1 of the enclosing function, 0 = none */
    } stack[MAX_DIE_DEPTH];
    size_t r0 = c->n_ranges;
    stack[0].die = *first;
    stack[0].parent = parent0;
    int depth = 1;
    size_t visited = 0;
    while (depth > 0) {
        struct level *lv = &stack[depth - 1];
        Dwarf_Die *die = &lv->die;
        if (++visited > (size_t)1 << 28)
            return -1;
        int tag = dwarf_tag(die);
        uint32_t inner = UINT32_MAX;
        int skip = tag == DW_TAG_subprogram && !top;
        if (!skip && (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)) {
            if (c->n_nodes >= UINT32_MAX - 2 || PK_VEC_RESERVE(c->nodes, c->n_nodes, c->cap_nodes, 1) != 0)
                return -1;
            uint32_t node = (uint32_t)c->n_nodes;
            dnode *nd = &c->nodes[node];
            memset(nd, 0, sizeof(*nd));
            nd->die = *die;
            nd->walked = tag != DW_TAG_subprogram;
            Dwarf_Attribute a;
            Dwarf_Word w;
            if (tag == DW_TAG_inlined_subroutine) {
                if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &w) == 0)
                    nd->call_line = w > UINT32_MAX ? 0 : (uint32_t)w;
                if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &w) == 0 && c->files &&
                    w < c->n_files)
                    nd->call_file = dwarf_filesrc(c->files, w, NULL, NULL);
            }
            int r = add_ranges(c, die, tag == DW_TAG_subprogram ? 0 : lv->parent, node);
            if (r < 0)
                return -1;
            if (r > 0) {
                c->n_nodes++;
                inner = node + 1;
            }
        }
        /* Descend into inlined calls and into scopes that can hold them;
         * a top-level function's children wait for an address in it. */
        Dwarf_Die kid;
        int descend = !skip && ((inner != UINT32_MAX && tag != DW_TAG_subprogram) || walks_into(tag)) &&
                      dwarf_haschildren(die) > 0 && depth < MAX_DIE_DEPTH && dwarf_child(die, &kid) == 0;
        if (descend) {
            uint32_t parent = inner != UINT32_MAX ? inner : lv->parent;
            stack[depth].die = kid;
            stack[depth].parent = parent;
            depth++;
            continue;
        }
        /* Next sibling, climbing as levels run out. */
        while (depth > 0) {
            Dwarf_Die sib;
            if (dwarf_siblingof(&stack[depth - 1].die, &sib) == 0) {
                stack[depth - 1].die = sib;
                break;
            }
            depth--;
        }
    }
    drange *seg = c->ranges + r0;
    size_t n = c->n_ranges - r0;
    if (n)
        qsort(seg, n, sizeof(drange), drange_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && seg[j].parent == seg[i].parent)
            j++;
        uint32_t parent = seg[i].parent;
        if (parent == 0) {
            c->top_first = (uint32_t)(r0 + i);
            c->top_n = (uint32_t)(j - i);
        } else if (parent - 1 < c->n_nodes) {
            c->nodes[parent - 1].first = (uint32_t)(r0 + i);
            c->nodes[parent - 1].n = (uint32_t)(j - i);
        }
        i = j;
    }
    return 0;
}

/* Indexes the unit's top level: its functions and their ranges. */
static void index_cu(dcu *c)
{
    c->state = -1;
    size_t nfiles = 0;
    if (dwarf_getsrcfiles(&c->die, &c->files, &nfiles) != 0)
        c->files = NULL;
    c->n_files = c->files ? nfiles : 0;
    Dwarf_Die child;
    if (dwarf_child(&c->die, &child) == 0 && walk_dies(c, &child, 0, 1) != 0)
        return;
    c->state = 1;
}

/* Indexes the inlined calls of a top-level function, once. */
static void walk_function(dcu *c, uint32_t node)
{
    dnode *nd = &c->nodes[node];
    nd->walked = 1;
    Dwarf_Die die = nd->die, child;
    if (dwarf_haschildren(&die) > 0 && dwarf_child(&die, &child) == 0) {
        size_t r0 = c->n_ranges;
        if (walk_dies(c, &child, node + 1, 0) != 0) {
            c->n_ranges = r0; /* a half-walked function: its calls are not indexed */
            c->nodes[node].n = 0;
        }
    }
}

/* The range of ranges[first, first + n) holding a, or NULL. */
static const drange *find_range(const drange *r, uint32_t first, uint32_t n, uint64_t a)
{
    size_t lo = first, hi = (size_t)first + n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r[mid].lo <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Siblings do not overlap in sane DWARF; allow a few that do. */
    for (size_t k = lo, tries = 0; k > first && tries < 8; k--, tries++)
        if (a >= r[k - 1].lo && a < r[k - 1].hi)
            return &r[k - 1];
    return NULL;
}

static const char *die_name(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
    if (!s)
        s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
    if (!s)
        s = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
    return s;
}

static uint32_t die_decl_line(Dwarf_Die *die)
{
    Dwarf_Attribute a;
    Dwarf_Word w;
    if (dwarf_formudata(dwarf_attr_integrate(die, DW_AT_decl_line, &a), &w) == 0 && w <= UINT32_MAX)
        return (uint32_t)w;
    return 0;
}

static const char *exported_name(sym_binary *b, uint64_t maddr);

static size_t dwarf_lookup(sym_binary *b, uint64_t maddr, sym_frame *out, size_t max)
{
    if (!b->dwarf_tried)
        open_dwarf(b);
    if (!b->dw || b->n_cu_ranges == 0 || max == 0)
        return 0;
    uint64_t a = maddr - b->dbias;
    size_t lo = 0, hi = b->n_cu_ranges;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->cu_ranges[mid].lo <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || a >= b->cu_ranges[lo - 1].hi)
        return 0;
    dcu *c = &b->cus[b->cu_ranges[lo - 1].cu];
    if (c->state == 0)
        index_cu(c);
    if (c->state != 1)
        return 0;
    uint32_t chain[MAX_DIE_DEPTH];
    size_t n = 0;
    const drange *r = find_range(c->ranges, c->top_first, c->top_n, a);
    while (r && n < MAX_DIE_DEPTH && r->node < c->n_nodes) {
        uint32_t node = r->node;
        chain[n++] = node;
        if (!c->nodes[node].walked)
            walk_function(c, node); /* may move c->ranges */
        const dnode *nd = &c->nodes[node];
        r = find_range(c->ranges, nd->first, nd->n, a);
    }
    Dwarf_Line *line = dwarf_getsrc_die(&c->die, a);
    const char *leaf_file = NULL;
    int leaf_line = 0;
    if (line) {
        leaf_file = dwarf_linesrc(line, NULL, NULL);
        if (dwarf_lineno(line, &leaf_line) != 0 || leaf_line < 0)
            leaf_line = 0;
    }
    if (n == 0)
        return 0;
    int trimmed = n > max;
    if (trimmed) {
        /* Keep the innermost calls: they are what was running. */
        memmove(chain, chain + (n - max), max * sizeof(uint32_t));
        n = max;
    }
    for (size_t i = 0; i < n; i++) {
        dnode *nd = &c->nodes[chain[i]];
        out[i].name = die_name(&nd->die);
        out[i].decl_line = die_decl_line(&nd->die);
        if (i + 1 < n) {
            out[i].file = c->nodes[chain[i + 1]].call_file;
            out[i].line = c->nodes[chain[i + 1]].call_line;
        } else {
            out[i].file = leaf_file;
            out[i].line = (uint32_t)leaf_line;
        }
        if (!out[i].name)
            out[i].name = "";
    }
    /* The real function (not an inlined call) is named as the binary
     * exports it, when it does: glibc's DWARF gives internal aliases
     * (__GI___fstatat64) where the binary's .dynsym says fstatat64. */
    if (!trimmed) {
        const char *ex = exported_name(b, maddr);
        if (ex)
            out[0].name = ex;
    }
    return n;
}

/* ------------------------------------------------------ symbol table */

/*
 * Aliases share an address (__libc_start_main, __libc_start_main_impl...).
 * A name the binary exports (.dynsym, exported_name) wins; else global
 * before weak before local binding, then the shortest name; the order is
 * total.
 */
static uint32_t sym_rank(int bind, size_t len)
{
    uint32_t r = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
    return (r << 16) | (uint32_t)(len > 0xffff ? 0xffff : len);
}

static int ssym_cmp(const void *a, const void *b)
{
    const ssym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return strcmp(x->name, y->name);
}

/*
 * The binary's own .dynsym, one symbol per address: the name pprof's
 * symbolizer (llvm-symbolizer) gives a function the binary exports.
 * Among aliases at one address it keeps the largest size, then the last
 * in table order (glibc: fstatat64 over fstatat, both weak, same size).
 */
static int dyn_cmp(const void *a, const void *b)
{
    const ssym *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank; /* rank = table index */
}

static void read_dynsym(sym_binary *b)
{
    b->dyn_tried = 1;
    GElf_Addr bias;
    Elf *e = dwfl_module_getelf(b->mod, &bias);
    if (!e)
        return;
    Elf_Scn *scn = NULL;
    size_t cap = 0;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || sh.sh_entsize == 0)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d)
            continue;
        size_t count = d->d_size / sh.sh_entsize;
        for (size_t i = 1; i < count && i < UINT32_MAX; i++) {
            GElf_Sym s;
            if (!gelf_getsym(d, (int)i, &s))
                break;
            int t = GELF_ST_TYPE(s.st_info);
            if ((t != STT_FUNC && t != STT_GNU_IFUNC) || s.st_value == 0 || s.st_shndx == SHN_UNDEF ||
                GELF_ST_BIND(s.st_info) == STB_LOCAL)
                continue;
            const char *name = elf_strptr(e, sh.sh_link, s.st_name);
            if (!name || !*name)
                continue;
            if (PK_VEC_RESERVE(b->dyn, b->n_dyn, cap, 1) != 0)
                break;
            b->dyn[b->n_dyn++] = (ssym){ s.st_value + bias, s.st_size, name, (uint32_t)i };
        }
        break;
    }
    if (!b->n_dyn)
        return;
    qsort(b->dyn, b->n_dyn, sizeof(ssym), dyn_cmp);
    size_t k = 0;
    for (size_t i = 0; i < b->n_dyn; i++) {
        if (i + 1 < b->n_dyn && b->dyn[i + 1].addr == b->dyn[i].addr)
            continue; /* the last of each address wins */
        b->dyn[k++] = b->dyn[i];
    }
    b->n_dyn = k;
}

/* The exported name of the function holding maddr, or NULL. */
static const char *exported_name(sym_binary *b, uint64_t maddr)
{
    if (!b->dyn_tried)
        read_dynsym(b);
    size_t lo = 0, hi = b->n_dyn;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->dyn[mid].addr <= maddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    const ssym *s = &b->dyn[lo - 1];
    /* Sized symbols only: a sizeless one says nothing about its end. */
    return s->size && maddr - s->addr < s->size ? s->name : NULL;
}

static int has_section(Elf *e, unsigned type, const char *name)
{
    size_t shstrndx;
    if (!e || elf_getshdrstrndx(e, &shstrndx) != 0)
        return 0;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (name) {
            const char *n = elf_strptr(e, shstrndx, sh.sh_name);
            if (n && strcmp(n, name) == 0)
                return 1;
        } else if (sh.sh_type == type) {
            return 1;
        }
    }
    return 0;
}

static void read_syms(sym_binary *b)
{
    b->syms_tried = 1;
    int n = dwfl_module_getsymtab(b->mod);
    size_t cap = 0;
    for (int i = 1; i < n; i++) {
        GElf_Sym s;
        GElf_Addr addr;
        GElf_Word shndx;
        Elf *elf;
        Dwarf_Addr bias;
        const char *name = dwfl_module_getsym_info(b->mod, i, &s, &addr, &shndx, &elf, &bias);
        int t = GELF_ST_TYPE(s.st_info);
        if (!name || !*name || (t != STT_FUNC && t != STT_GNU_IFUNC) || s.st_value == 0 ||
            shndx == SHN_UNDEF)
            continue;
        if (PK_VEC_RESERVE(b->syms, b->n_syms, cap, 1) != 0)
            break;
        ssym *o = &b->syms[b->n_syms++];
        o->addr = addr;
        o->size = s.st_size;
        o->name = name;
        o->rank = sym_rank(GELF_ST_BIND(s.st_info), strlen(name));
    }
    if (b->n_syms)
        qsort(b->syms, b->n_syms, sizeof(ssym), ssym_cmp);
}

int pk_sym_binary_source(sym_binary *b)
{
    if (b->source >= 0)
        return b->source;
    if (!b->dwarf_tried)
        open_dwarf(b);
    if (b->dw && b->n_cu_ranges) {
        b->source = PK_SYM_SRC_DWARF;
        return b->source;
    }
    GElf_Addr bias;
    Elf *e = dwfl_module_getelf(b->mod, &bias);
    Elf *d = b->dw ? dwarf_getelf(b->dw) : NULL;
    if (!b->syms_tried)
        read_syms(b);
    if (b->n_syms == 0)
        b->source = PK_SYM_SRC_NONE;
    else if (has_section(e, SHT_SYMTAB, NULL) || has_section(d, SHT_SYMTAB, NULL) ||
             has_section(e, 0, ".gnu_debugdata"))
        b->source = PK_SYM_SRC_SYMTAB;
    else
        b->source = PK_SYM_SRC_DYNSYM;
    return b->source;
}

static const ssym *find_sym(const sym_binary *b, uint64_t a)
{
    size_t lo = 0, hi = b->n_syms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->syms[mid].addr <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    size_t i = lo - 1;
    while (i > 0 && b->syms[i - 1].addr == b->syms[i].addr)
        i--;
    /* A sized symbol covers its size; a sizeless one (.dynsym of some
     * hand-written assembly) only up to the next symbol. */
    for (size_t j = i; j < lo; j++) {
        const ssym *s = &b->syms[j];
        if (s->size ? a < s->addr + s->size : (lo == b->n_syms || a < b->syms[lo].addr))
            return s;
    }
    return NULL;
}

size_t pk_sym_binary_lookup(sym_binary *b, uint64_t vaddr, sym_frame *out, size_t max)
{
    uint64_t maddr = vaddr + b->bias;
    size_t n = dwarf_lookup(b, maddr, out, max);
    if (n)
        return n;
    if (!b->syms_tried)
        read_syms(b);
    const ssym *s = find_sym(b, maddr);
    if (!s || max == 0)
        return 0;
    const char *ex = exported_name(b, maddr);
    out[0].name = ex ? ex : s->name;
    out[0].file = NULL;
    out[0].line = 0;
    out[0].decl_line = 0;
    /* A unit without subprogram entries (assembly) may still have a line
     * table: the file and line come from it. */
    if (b->dw && b->n_cu_ranges) {
        uint64_t a = maddr - b->dbias;
        size_t lo = 0, hi = b->n_cu_ranges;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (b->cu_ranges[mid].lo <= a)
                lo = mid + 1;
            else
                hi = mid;
        }
        Dwarf_Line *line = lo > 0 && a < b->cu_ranges[lo - 1].hi
                               ? dwarf_getsrc_die(&b->cus[b->cu_ranges[lo - 1].cu].die, a) : NULL;
        int ln = 0;
        if (line && dwarf_lineno(line, &ln) == 0 && ln > 0) {
            out[0].file = dwarf_linesrc(line, NULL, NULL);
            out[0].line = out[0].file ? (uint32_t)ln : 0;
        }
    }
    return 1;
}

/* ------------------------------------------------ code, for --disasm */

#define MAX_FUNC_BYTES (1u << 20) /* a larger "function" is a corrupt size */

int pk_sym_binary_func_range(sym_binary *b, uint64_t vaddr, uint64_t *lo, uint64_t *hi)
{
    uint64_t maddr = vaddr + b->bias;
    if (!b->dwarf_tried)
        open_dwarf(b);
    /* DWARF: the top-level range (of the function's ranges) holding it */
    if (b->dw && b->n_cu_ranges) {
        uint64_t a = maddr - b->dbias;
        size_t l = 0, h = b->n_cu_ranges;
        while (l < h) {
            size_t mid = l + (h - l) / 2;
            if (b->cu_ranges[mid].lo <= a)
                l = mid + 1;
            else
                h = mid;
        }
        if (l > 0 && a < b->cu_ranges[l - 1].hi) {
            dcu *c = &b->cus[b->cu_ranges[l - 1].cu];
            if (c->state == 0)
                index_cu(c);
            const drange *r = c->state == 1 ? find_range(c->ranges, c->top_first, c->top_n, a) : NULL;
            if (r && r->hi - r->lo <= MAX_FUNC_BYTES) {
                *lo = r->lo + b->dbias - b->bias;
                *hi = r->hi + b->dbias - b->bias;
                return 0;
            }
        }
    }
    if (!b->syms_tried)
        read_syms(b);
    size_t l = 0, h = b->n_syms;
    while (l < h) {
        size_t mid = l + (h - l) / 2;
        if (b->syms[mid].addr <= maddr)
            l = mid + 1;
        else
            h = mid;
    }
    const ssym *s = find_sym(b, maddr);
    if (!s)
        return -1;
    uint64_t end = s->size ? s->addr + s->size : l < b->n_syms ? b->syms[l].addr : s->addr;
    if (end <= s->addr || end - s->addr > MAX_FUNC_BYTES)
        return -1;
    *lo = s->addr - b->bias;
    *hi = end - b->bias;
    return 0;
}

const unsigned char *pk_sym_binary_code(sym_binary *b, uint64_t vaddr, uint64_t len, size_t *avail)
{
    GElf_Addr bias;
    Elf *e = dwfl_module_getelf(b->mod, &bias);
    if (!e)
        return NULL;
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
            continue;
        if (vaddr < sh.sh_addr || vaddr - sh.sh_addr >= sh.sh_size)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        uint64_t at = vaddr - sh.sh_addr;
        if (!d || !d->d_buf || at >= d->d_size)
            return NULL;
        uint64_t n = d->d_size - at;
        *avail = (size_t)(n < len ? n : len);
        return (const unsigned char *)d->d_buf + at;
    }
    return NULL;
}

int pk_sym_binary_machine(sym_binary *b, int *big_endian)
{
    GElf_Addr bias;
    Elf *e = dwfl_module_getelf(b->mod, &bias);
    GElf_Ehdr eh;
    if (!e || !gelf_getehdr(e, &eh))
        return -1;
    *big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
    return eh.e_machine;
}
