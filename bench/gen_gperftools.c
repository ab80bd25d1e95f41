/*
 * gen_gperftools.c: writes a large synthetic gperftools CPU profile for
 * bench/gperftools.sh: 64-bit little-endian, period 10000 µs, N records
 * (default 1,000,000) drawn from S distinct stacks (default 200,000) of
 * depth 5 to 40 over P distinct PCs (default 5,000), then the trailer and
 * one executable mapping covering every PC. Deterministic (fixed seed).
 * Shape "tree" (default) shares prefixes like real stacks; "random" shares
 * almost none (the worst case for the prefix tree of the profile model).
 * Usage: gen_gperftools OUT [records [stacks [pcs [tree|random [PCFILE MAPFILE]]]]]
 * With PCFILE (one hex PC a line, at most 65,535) and MAPFILE (the
 * /proc/PID/maps lines to write), the PCs are those (pcs is ignored) and
 * the mappings MAPFILE's: bench/symbols.sh uses real functions' addresses.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x853c49e6748fea9bULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void put(FILE *f, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    fwrite(b, 1, 8, f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s OUT [records [stacks [pcs [tree|random]]]]\n", argv[0]);
        return 2;
    }
    long records = argc > 2 ? atol(argv[2]) : 1000000;
    long stacks = argc > 3 ? atol(argv[3]) : 200000;
    long pcs = argc > 4 ? atol(argv[4]) : 5000;
    int tree = !(argc > 5 && strcmp(argv[5], "random") == 0);
    const char *pcfile = argc > 7 ? argv[6] : NULL, *mapfile = argc > 7 ? argv[7] : NULL;
    uint64_t *given = NULL;
    if (pcfile) {
        FILE *pf = fopen(pcfile, "r");
        if (!pf)
            return 1;
        given = malloc(65535 * sizeof(uint64_t));
        unsigned long long v;
        pcs = 0;
        while (given && pcs < 65535 && fscanf(pf, "%llx", &v) == 1)
            given[pcs++] = v;
        fclose(pf);
    }
    if (records < 1 || stacks < 1 || pcs < 1)
        return 2;
    uint64_t *pc = malloc((size_t)pcs * sizeof(uint64_t));
    uint8_t *depth = malloc((size_t)stacks);
    uint16_t *frames = malloc((size_t)stacks * 40 * sizeof(uint16_t));
    if (!pc || !depth || !frames)
        return 1;
    for (long i = 0; i < pcs; i++) /* code-like spacing inside one mapping */
        pc[i] = given ? given[i] : 0x400000 + (uint64_t)i * 0x40 + next() % 0x30;
    if (!tree) {
        /* Worst case for a prefix tree: after three shared levels every frame
         * is drawn from all PCs, so stacks share almost no prefixes. */
        for (long s = 0; s < stacks; s++) {
            depth[s] = (uint8_t)(5 + next() % 36);
            for (int d = 0; d < depth[s]; d++) {
                long range = d < 3 ? 16 + d * 64 : pcs;
                frames[s * 40 + d] = (uint16_t)(next() % (uint64_t)(range < pcs ? range : pcs));
            }
        }
    } else {
        /* Real stacks are paths down one call tree: each new stack keeps an
         * earlier stack's frames except the last one to three, then grows new
         * frames to its own depth. That gives about 7.5 prefix-tree nodes per
         * distinct stack (the random shape: 20; the real profiles in
         * ../shared/fixtures: 1.2 to 2.9, so this is still conservative). */
        for (long s = 0; s < stacks; s++) {
            int want = (int)(5 + next() % 36), keep = 0;
            if (s > 0) {
                long from = (long)(next() % (uint64_t)s);
                keep = depth[from] - (int)(1 + next() % 3);
                if (keep > want - 1)
                    keep = want - 1;
                if (keep < 0)
                    keep = 0;
                for (int d = 0; d < keep; d++)
                    frames[s * 40 + d] = frames[from * 40 + d];
            }
            depth[s] = (uint8_t)want;
            for (int d = keep; d < want; d++)
                frames[s * 40 + d] = (uint16_t)(next() % (uint64_t)pcs);
        }
    }
    FILE *f = fopen(argv[1], "wb");
    if (!f)
        return 1;
    put(f, 0);
    put(f, 3);
    put(f, 0);
    put(f, 10000);
    put(f, 0);
    for (long r = 0; r < records; r++) {
        /* Every stack at least once, then skewed towards low ids. */
        long s = r < stacks ? r : (long)((next() % (uint64_t)stacks) * (next() % 1024) / 1024);
        put(f, 1 + next() % 3);
        put(f, depth[s]);
        for (int d = depth[s] - 1; d >= 0; d--) /* leaf first */
            put(f, pc[frames[s * 40 + d]]);
    }
    put(f, 0);
    put(f, 1);
    put(f, 0);
    if (mapfile) {
        FILE *mf = fopen(mapfile, "r");
        if (!mf)
            return 1;
        char line[4096];
        while (fgets(line, sizeof(line), mf))
            fputs(line, f);
        fclose(mf);
    } else {
        fprintf(f, "00400000-%08llx r-xp 00000000 08:01 4242 /usr/bin/bench-app\n",
                (unsigned long long)(0x400000 + (uint64_t)pcs * 0x40 + 0x40));
    }
    if (fclose(f) != 0)
        return 1;
    free(given);
    free(pc);
    free(depth);
    free(frames);
    return 0;
}
