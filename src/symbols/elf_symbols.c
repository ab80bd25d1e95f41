/*
 * elf_symbols.c: names frames that carry only an address, from the ELF
 * symbol tables (.symtab, else .dynsym) of the binaries they were mapped
 * from, through libelf (Debian libelf-dev).
 *
 * A frame's address is translated to the binary's virtual address space
 * through its mapping: file offset = pc - start + offset, then the PT_LOAD
 * segment holding that offset gives vaddr = off - p_offset + p_vaddr. So
 * position-independent executables and shared libraries both work.
 * Callers' addresses are return addresses: a frame that is only ever a
 * caller is looked up at pc - 1 (docs/formats/gperftools.md), so a call that is the last
 * instruction of a function is not charged to the next one.
 *
 * A binary stripped of .symtab (system libraries) is looked up in its
 * detached debug file, found by build id under /usr/lib/debug/.build-id/
 * (Debian's -dbg/-dbgsym packages), before falling back to .dynsym.
 *
 * A frame counts as unsymbolized when its function name is empty or is the
 * frame's own address as 0x + hex (the label readers give such frames).
 */
#include "model/model.h"

#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int profkit_demangle(const char *mangled, char *buf, size_t n); /* demangle.cc */

typedef struct sym {
    uint64_t value, size;
    uint32_t name; /* string id in the profile */
    uint32_t rank; /* among aliases at one address, lower wins */
} sym;

typedef struct image {
    char *path;
    int loaded;
    sym *syms;
    size_t n_syms;
    GElf_Phdr *loads;
    size_t n_loads;
} image;

/*
 * Aliases share an address (__libc_start_main, __libc_start_main_impl, ...).
 * The name shown is the one other tools show: global before weak before
 * local binding, then the shortest name; the order is total, so the choice
 * never depends on the symbol table's order.
 */
static uint32_t sym_rank(int bind, size_t len)
{
    uint32_t b = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
    return (b << 16) | (uint32_t)(len > 0xffff ? 0xffff : len);
}

static int sym_cmp(const void *a, const void *b)
{
    const sym *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

/* Appends the function symbols of the first section of type `type`. */
static int read_symbols(profkit_profile *p, image *im, Elf *e, unsigned type, size_t *cap)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || sh.sh_entsize == 0)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d)
            continue;
        size_t n = sh.sh_size / sh.sh_entsize;
        for (size_t i = 0; i < n; i++) {
            GElf_Sym s;
            if (!gelf_getsym(d, (int)i, &s))
                break;
            int t = GELF_ST_TYPE(s.st_info);
            if ((t != STT_FUNC && t != STT_GNU_IFUNC) || s.st_value == 0 || s.st_shndx == SHN_UNDEF)
                continue;
            const char *name = elf_strptr(e, sh.sh_link, s.st_name);
            if (!name || !*name)
                continue;
            if (PK_VEC_RESERVE(im->syms, im->n_syms, *cap, 1) != 0)
                return -1;
            sym *out = &im->syms[im->n_syms++];
            out->value = s.st_value;
            out->size = s.st_size;
            /* "memcpy@@GLIBC_2.14": the version is not part of the name. */
            const char *at = strchr(name, '@');
            size_t len = at && at != name ? (size_t)(at - name) : strlen(name);
            char plain[1024];
            if (len < sizeof(plain) && name[len] == '@') {
                memcpy(plain, name, len);
                plain[len] = '\0';
                name = plain;
            }
            char demangled[1024];
            if (profkit_demangle(name, demangled, sizeof(demangled))) {
                name = demangled;
                len = strlen(demangled);
            }
            out->name = profkit_string_intern(p, name, len);
            out->rank = sym_rank(GELF_ST_BIND(s.st_info), len);
            if (out->name == PROFKIT_NONE)
                return -1;
        }
    }
    return 0;
}

/* The .symtab of the detached debug file named by e's build id, if any. */
static int read_debug_symbols(profkit_profile *p, image *im, Elf *e, size_t *cap)
{
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn)) != NULL) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        if (!d)
            continue;
        size_t off = 0, name_off, desc_off;
        GElf_Nhdr nh;
        while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
            if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz < 2 || nh.n_descsz > 64 ||
                nh.n_namesz != 4 || memcmp((const char *)d->d_buf + name_off, "GNU", 4) != 0)
                continue;
            const uint8_t *id = (const uint8_t *)d->d_buf + desc_off;
            char path[256];
            size_t k = (size_t)snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%02x/", id[0]);
            for (size_t i = 1; i < nh.n_descsz; i++)
                k += (size_t)snprintf(path + k, sizeof(path) - k, "%02x", id[i]);
            snprintf(path + k, sizeof(path) - k, ".debug");
            int fd = open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0)
                return 0;
            Elf *de = elf_begin(fd, ELF_C_READ, NULL);
            int rc = de && elf_kind(de) == ELF_K_ELF ? read_symbols(p, im, de, SHT_SYMTAB, cap) : 0;
            if (de)
                elf_end(de);
            close(fd);
            return rc;
        }
    }
    return 0;
}

/* Reads the function symbols and PT_LOAD headers of path. 0 or -1. */
static int load_image(profkit_profile *p, image *im)
{
    im->loaded = 1;
    int fd = open(im->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    int rc = -1;
    size_t cap = 0;
    if (!e || elf_kind(e) != ELF_K_ELF)
        goto done;
    size_t nph;
    if (elf_getphdrnum(e, &nph) == 0) {
        for (size_t i = 0; i < nph; i++) {
            GElf_Phdr ph;
            if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
                GElf_Phdr *np = realloc(im->loads, (im->n_loads + 1) * sizeof(*np));
                if (!np)
                    goto done;
                im->loads = np;
                im->loads[im->n_loads++] = ph;
            }
        }
    }
    if (read_symbols(p, im, e, SHT_SYMTAB, &cap) != 0 ||
        (im->n_syms == 0 && read_debug_symbols(p, im, e, &cap) != 0) ||
        (im->n_syms == 0 && read_symbols(p, im, e, SHT_DYNSYM, &cap) != 0))
        goto done;
    qsort(im->syms, im->n_syms, sizeof(sym), sym_cmp);
    rc = 0;
done:
    if (e)
        elf_end(e);
    close(fd);
    return rc;
}

/* The symbol containing vaddr, or NULL. */
static const sym *find_sym(const image *im, uint64_t vaddr)
{
    size_t lo = 0, hi = im->n_syms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (im->syms[mid].value <= vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return NULL;
    /* Several symbols may share an address (aliases): take the first sized one. */
    size_t i = lo - 1;
    while (i > 0 && im->syms[i - 1].value == im->syms[i].value)
        i--;
    for (size_t j = i; j < lo; j++) {
        const sym *s = &im->syms[j];
        if (s->size ? vaddr < s->value + s->size : (lo == im->n_syms || vaddr < im->syms[lo].value))
            return s;
    }
    return NULL;
}

/* File offset → virtual address through the PT_LOAD segments. */
static int to_vaddr(const image *im, uint64_t off, uint64_t *vaddr)
{
    for (size_t i = 0; i < im->n_loads; i++) {
        const GElf_Phdr *ph = &im->loads[i];
        if (off >= ph->p_offset && off - ph->p_offset < ph->p_filesz) {
            *vaddr = off - ph->p_offset + ph->p_vaddr;
            return 0;
        }
    }
    return -1;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static int is_unsymbolized(const profkit_profile *p, const profkit_frame *f)
{
    const char *name = profkit_str(p, p->functions[f->function].name);
    if (!name[0])
        return 1;
    if (name[0] != '0' || name[1] != 'x')
        return 0;
    char *end;
    unsigned long long v = strtoull(name + 2, &end, 16);
    return *end == '\0' && v == f->address;
}

int profkit_profile_symbolize(profkit_profile *p, const profkit_symbolize_options *o,
                              profkit_error *err)
{
    int named = 0, rc = PROFKIT_ENOMEM;
    image *images = NULL;
    size_t n_images = p->n_mappings ? p->n_mappings : 1;
    uint8_t *role = NULL; /* bit 1: leaf of a sample, bit 2: caller */
    elf_version(EV_CURRENT);
    if (!(images = calloc(n_images, sizeof(image))) || !(role = calloc(p->n_frames + 1, 1)))
        goto done;
    for (size_t s = 1; s < p->n_stacks; s++)
        if (p->stacks[s].parent != 0)
            role[p->stacks[p->stacks[s].parent].frame] |= 2;
    for (size_t r = 0; r < p->n_samples; r++)
        if (p->sample_stack[r] != 0)
            role[p->stacks[p->sample_stack[r]].frame] |= 1;
    /* Which file each mapping (or, without mappings, the whole space) reads. */
    for (size_t m = 0; m < n_images; m++) {
        const char *mpath = p->n_mappings ? profkit_str(p, p->mappings[m].path) : "";
        const char *file = NULL;
        for (size_t b = 0; o && b < o->n_binaries && !file; b++)
            if (!p->n_mappings || strcmp(base_name(o->binaries[b]), base_name(mpath)) == 0)
                file = o->binaries[b];
        if (!file && o && o->use_mapping_paths && mpath[0] == '/')
            file = mpath;
        if (file && !(images[m].path = strdup(file)))
            goto done;
    }
    for (size_t f = 0; f < p->n_frames; f++) {
        profkit_frame *fr = &p->frames[f];
        if (!fr->address || !is_unsymbolized(p, fr))
            continue;
        size_t m = 0;
        uint64_t off = fr->address;
        if (p->n_mappings) {
            m = fr->mapping;
            if (m >= p->n_mappings) {
                for (m = 0; m < p->n_mappings; m++)
                    if (fr->address >= p->mappings[m].start && fr->address < p->mappings[m].end)
                        break;
                if (m == p->n_mappings)
                    continue;
            }
            off = fr->address - p->mappings[m].start + p->mappings[m].offset;
        }
        image *im = &images[m];
        if (!im->path)
            continue;
        if (!im->loaded && load_image(p, im) != 0)
            continue;
        if (role[f] == 2 && off > 0)
            off--; /* a return address: look up the call instruction */
        uint64_t vaddr = off;
        if (p->n_mappings && to_vaddr(im, off, &vaddr) != 0)
            continue;
        const sym *s = find_sym(im, vaddr);
        if (!s)
            continue;
        profkit_function fn = p->functions[fr->function];
        fn.name = fn.system_name = s->name;
        fn.module = profkit_string_intern_cstr(p, im->path);
        if (fn.module == PROFKIT_NONE)
            goto done;
        uint32_t id = profkit_function_add(p, &fn);
        if (id == PROFKIT_NONE)
            goto done;
        p->frames[f].function = id;
        named++;
    }
    if (named && profkit_profile_reindex_frames(p) != 0)
        goto done;
    rc = 0;
done:
    for (size_t m = 0; images && m < n_images; m++) {
        free(images[m].path);
        free(images[m].syms);
        free(images[m].loads);
    }
    free(images);
    free(role);
    if (rc)
        return profkit_error_set(err, rc, NULL, -1, "out of memory while symbolizing");
    return named;
}
