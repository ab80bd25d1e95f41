/*
 * gen_br.c: writes a synthetic BR profiler stream (docs/formats/br.md) for
 * tests and benchmarks, and optionally the folded stacks it contains, one
 * line per group (not merged), so a test can compare profkit's reading with
 * what was written without trusting profkit's writer.
 *
 *   gen_br OUT BYTES SEED [--timed] [--distinct N] [--folded FILE]
 *
 * Groups are drawn from a pool of N distinct stacks (default 5000) of depth
 * 1..8 over 8 modules; frames are named (7), gosub (8, named by the caller's
 * line), main (9) or untagged.
 * Module 3 is remapped to another file name halfway through. --timed adds
 * one or two time records (4) per group; the folded value is then the
 * group's nanoseconds, else 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

typedef struct { uint16_t mod; uint32_t line; uint8_t clause, tag; int name; } frame;
typedef struct { int depth; frame f[8]; } stack;

static void be16(FILE *f, unsigned v) { fputc(v >> 8 & 0xff, f); fputc(v & 0xff, f); }
static void be32(FILE *f, uint32_t v) { be16(f, v >> 16); be16(f, v & 0xffff); }

static void map(FILE *o, unsigned mod, const char *name)
{
    fputc(1, o);
    be16(o, mod);
    be16(o, (unsigned)strlen(name));
    fputs(name, o);
}

/* Frame d's label: a gosub routine is named by its caller's line (the
 * next frame, innermost first), the GOSUB statement, as profkit names it. */
static void label(char *buf, size_t n, const stack *s, int d, int remapped)
{
    const frame *f = &s->f[d];
    if (f->tag == 7) snprintf(buf, n, "fn_%d", f->name);
    else if (f->tag == 8 && d + 1 < s->depth) {
        const frame *c = &s->f[d + 1];
        if (c->mod == 3 && remapped) snprintf(buf, n, "(gosub from lib3-new.br:%u)", (unsigned)c->line);
        else snprintf(buf, n, "(gosub from lib%u.br:%u)", (unsigned)c->mod, (unsigned)c->line);
    } else if (f->tag == 8) snprintf(buf, n, "(gosub)");
    else if (f->tag == 9) snprintf(buf, n, "(main)");
    else snprintf(buf, n, "(unknown)");
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: gen_br OUT BYTES SEED [--timed] [--distinct N] [--folded FILE]\n");
        return 2;
    }
    long long bytes = atoll(argv[2]);
    rng = (uint64_t)atoll(argv[3]) * 2654435761u + 88172645463325252ull;
    int timed = 0, distinct = 5000;
    const char *folded = NULL;
    for (int i = 4; i < argc; i++) {
        if (!strcmp(argv[i], "--timed")) timed = 1;
        else if (!strcmp(argv[i], "--distinct") && i + 1 < argc) distinct = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--folded") && i + 1 < argc) folded = argv[++i];
    }
    if (distinct < 1) distinct = 1;
    FILE *o = fopen(argv[1], "wb"), *fo = folded ? fopen(folded, "w") : NULL;
    if (!o || (folded && !fo)) { perror("gen_br"); return 1; }
    static char buf[1 << 16];
    setvbuf(o, buf, _IOFBF, sizeof(buf));
    stack *pool = calloc((size_t)distinct, sizeof(stack));
    for (int s = 0; s < distinct; s++) {
        pool[s].depth = 1 + (int)rnd(8);
        for (int d = 0; d < pool[s].depth; d++) {
            frame *f = &pool[s].f[d];
            f->mod = (uint16_t)(1 + rnd(8));
            f->line = 10 * (1 + rnd(5000));
            f->clause = rnd(4) == 0 ? (uint8_t)(1 + rnd(3)) : 0;
            uint32_t k = rnd(20);
            f->tag = k < 12 ? 7 : k < 15 ? 8 : k < 17 ? 9 : 0;
            f->name = (int)rnd(300);
        }
    }
    char name[64];
    for (unsigned m = 1; m <= 8; m++) {
        snprintf(name, sizeof(name), "lib%u.br", m);
        map(o, m, name);
    }
    int remapped = 0;
    long long n = 0;
    while (ftell(o) < bytes) {
        if (!remapped && ftell(o) >= bytes / 2) {
            map(o, 3, "lib3-new.br");
            remapped = 1;
        }
        const stack *s = &pool[rnd((uint32_t)distinct)];
        uint64_t ns = 0;
        for (int d = 0; d < s->depth; d++) {
            const frame *f = &s->f[d];
            fputc(d == 0 ? 3 : 5, o);
            be16(o, f->mod);
            be32(o, f->line);
            fputc(f->clause, o);
            if (f->tag == 7) {
                snprintf(name, sizeof(name), "fn_%d", f->name);
                fputc(7, o);
                fputc((int)strlen(name), o);
                fputs(name, o);
            } else if (f->tag) {
                fputc(f->tag, o);
            }
            if (timed && (d == 0 || rnd(8) == 0)) {
                uint64_t t = 1000 + rnd(1000000);
                ns += t;
                fputc(4, o);
                be32(o, (uint32_t)(t >> 32));
                be32(o, (uint32_t)t);
            }
        }
        fputc(6, o);
        n++;
        if (fo) {
            char l[64];
            for (int d = s->depth - 1; d >= 0; d--) {
                label(l, sizeof(l), s, d, remapped);
                fprintf(fo, "%s%s", l, d ? ";" : "");
            }
            fprintf(fo, " %llu\n", timed ? (unsigned long long)ns : 1ull);
        }
    }
    free(pool);
    if (fo && fclose(fo)) { perror("gen_br"); return 1; }
    if (fclose(o)) { perror("gen_br"); return 1; }
    fprintf(stderr, "gen_br: %lld groups\n", n);
    return 0;
}
