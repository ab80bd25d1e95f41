/*
 * bsprof_decode.c: the bsprof reader's fast decoders for data entries
 * (memory operations, CPU, call counts): they decode a buffer of entries
 * into the reader's batch (bsprof_reader.h) until an entry is anything
 * else, which the checked decoder of bsprof_read.c then takes. One generic
 * decoder, and on x86-64 one using BMI2, picked at run time.
 */
#include "formats/bsprof/bsprof_reader.h"
#include "util/cursor.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* x86-64 with GCC or clang: a BMI2 decoder, picked at run time. */
#if defined(__x86_64__) && defined(__GNUC__)
#define PK_HAVE_BMI2 1
#define PK_TARGET_BMI2 __attribute__((target("bmi,bmi2")))
#define PK_TARGET_AVX2 __attribute__((target("bmi,bmi2,avx,avx2")))
#include <immintrin.h>
#else
#define PK_HAVE_BMI2 0
#endif


/* Bit i (i < 32) set when p[i] ends a varint (its high bit is clear); bits
 * 32..35 set as sentinels, so four lowest-bit searches never see 0. */
static inline uint64_t varint_ends(const uint8_t *p)
{
#if defined(__SSE2__)
    __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
    uint32_t cont = (uint32_t)_mm_movemask_epi8(lo) | ((uint32_t)_mm_movemask_epi8(hi) << 16);
#else
    uint32_t cont = 0;
    for (int k = 0; k < 4; k++) {
        /* the high bit of each byte, gathered into 8 bits by a multiply */
        uint64_t t = (pk_load_le64(p + 8 * k) & UINT64_C(0x8080808080808080)) >> 7;
        cont |= (uint32_t)((t * UINT64_C(0x0102040810204080)) >> 56) << (8 * k);
    }
#endif
    return (uint64_t)(uint32_t)~cont | (UINT64_C(0xf) << 32);
}

/* The value of the varint of len bytes (1..8) at p; garbage for other
 * lengths (the caller does not use it then). */
static inline uint64_t varint_value(const uint8_t *p, unsigned len)
{
    uint64_t x = pk_load_le64(p) & (~UINT64_C(0) >> ((64 - 8 * len) & 63));
    x &= UINT64_C(0x7f7f7f7f7f7f7f7f);
    x = (x & UINT64_C(0x007f007f007f007f)) | ((x & UINT64_C(0x7f007f007f007f00)) >> 1);
    x = (x & UINT64_C(0x00003fff00003fff)) | ((x & UINT64_C(0x3fff00003fff0000)) >> 2);
    x = (x & UINT64_C(0x000000000fffffff)) | ((x & UINT64_C(0x0fffffff00000000)) >> 4);
    return x;
}

/*
 * The layout of a data entry from the low five bits of its tag (the type,
 * and for a memory operation the operation), given the header's line-data
 * flag: the fast path reads it from a table instead of branching on the
 * type and operation, which follow no pattern.
 */
void pk_bsprof_build_shapes(entry_shape shapes[32], unsigned ld, unsigned lines)
{
    for (unsigned low = 0; low < 32; low++) {
        unsigned type = low & 7, op = low >> 3;
        entry_shape *sh = &shapes[low];
        memset(sh, 0, sizeof(*sh));
        sh->a = sh->b = sh->off = 3; /* field 3 reads as 0 */
        if (type == 3 && op != 3) { /* [line offset], address, [size] */
            sh->kind = op == 0 ? D_ALLOC : D_FREE;
            sh->shift = 5;
            sh->nf = (uint8_t)(ld + (op == 0 ? 2 : 1));
            sh->off = ld ? 0 : 3;
            sh->a = (uint8_t)ld;
            sh->b = op == 0 ? (uint8_t)(ld + 1) : 3;
        } else if (type == 4) { /* [line offset], cpu, wall */
            sh->kind = D_CPU;
            sh->shift = 3;
            sh->nf = (uint8_t)(ld + 2);
            sh->off = ld ? 0 : 3;
            sh->a = (uint8_t)ld;
            sh->b = (uint8_t)(ld + 1);
        } else if (type == 5) { /* count; a call count is the function's: its definition line */
            sh->kind = D_CALLS;
            sh->shift = 3;
            sh->nf = 1;
            sh->a = 0;
            sh->off_default = (uint8_t)ld;
        } else {
            continue;
        }
        sh->valid = 1;
        sh->keep_off = (uint8_t)lines;
    }
}

typedef uint64_t (*varint_value_fn)(const uint8_t *p, unsigned len);
typedef uint64_t (*varint_ends_fn)(const uint8_t *p);
typedef unsigned (*entry_end_fn)(uint64_t m0, const unsigned ends[4], unsigned nf);

/* Where the entry whose tag and varints end at ends[] (the bits of m0)
 * ends: after its varint nf. */
static inline unsigned entry_end(uint64_t m0, const unsigned ends[4], unsigned nf)
{
    (void)m0;
    return ends[nf];
}

/*
 * Decodes data entries from p (n bytes, of which at least FAST_MARGIN past
 * each entry's start) into the batch until it is full, the bytes run short,
 * or an entry is anything but a well-formed data entry naming a densely
 * numbered path element with varints of at most 8 bytes: that entry, and
 * every error, is left to read_entry(), which decodes it again from its
 * start. Returns the bytes consumed. `value` extracts a varint (inlined:
 * pk_bsprof_decode_generic() and decode_fast_bmi2() each pass their own).
 * in_order: every path element so far was defined as id 1, 2, 3, ... (the
 * reader's pe_in_order), so id N is index N - 1; a constant in each
 * instance (decode_fast()), so the loop carries neither the test nor the
 * id table.
 */
static PK_ALWAYS_INLINE size_t decode_fast_body(reader *r, const uint8_t *p, size_t n, uint64_t at,
                                                varint_value_fn value, varint_ends_fn ends_of,
                                                entry_end_fn end_of, const int in_order)
{
    const uint8_t *start = p, *limit = p + (n - FAST_MARGIN);
    const uint32_t *dense = r->pe_ids.dense;
    uint64_t n_dense = r->pe_ids.n_dense, n_pe = r->n_pe;
    const entry_shape *shapes = r->shapes;
    data_entry *d = r->batch + r->n_batch, *d_end = r->batch + BATCH;
    /* an entry at p is at offset p + at_p (modulo 2^64) */
    uint64_t at_p = at - (uint64_t)(uintptr_t)start;
    while (p < limit && d < d_end) {
        /* Where the tag and the next three varints end. */
        uint64_t m0 = ends_of(p), m1 = m0 & (m0 - 1), m2 = m1 & (m1 - 1), m3 = m2 & (m2 - 1);
        unsigned ends[4] = { pk_lowest_bit(m0), pk_lowest_bit(m1), pk_lowest_bit(m2),
                             pk_lowest_bit(m3) };
        /* The type and a memory operation's operation are in the first
         * byte; they, and nothing that needs a branch, give the layout. */
        const entry_shape *sh = &shapes[p[0] & 31];
        unsigned nf = sh->nf;
        unsigned lt = ends[0] + 1, l0 = ends[1] - ends[0], l1 = ends[2] - ends[1],
                 l2 = ends[3] - ends[2];
        /* Varints of 8 bytes at most (a sentinel's "length" is 9 or more):
         * all four, whether the entry has them or the next one begins
         * there (its varints too are short when it is a data entry; if not,
         * the checked path only takes one more entry). A length l of 9..36
         * is one whose l + 7 has a bit of 16 or 32. */
        unsigned too_long = ((lt + 7) | (l0 + 7) | (l1 + 7) | (l2 + 7)) & 48;
        if (PK_UNLIKELY((sh->valid == 0) | (too_long != 0)))
            break;
        uint64_t id = value(p, lt) >> sh->shift;
        uint32_t pe;
        if (in_order) {
            /* id 0 wraps around and fails the test too */
            if (PK_UNLIKELY(id - 1 >= n_pe))
                break;
            pe = (uint32_t)(id - 1);
        } else {
            if (PK_UNLIKELY(id > UINT32_MAX || id >= n_dense))
                break;
            pe = dense[id];
            if (PK_UNLIKELY(pe == EMPTY))
                break;
        }
        uint64_t f[4] = { value(p + ends[0] + 1, l0), value(p + ends[1] + 1, l1),
                          value(p + ends[2] + 1, l2), 0 };
        uint64_t off = f[sh->off] + sh->off_default;
        if (PK_UNLIKELY(off > UINT32_MAX))
            break;
        d->kind = sh->kind;
        d->pe = pe;
        d->off = (uint32_t)off & (0u - (uint32_t)sh->keep_off);
        d->a = f[sh->a];
        d->b = f[sh->b];
        d->at = at_p + (uint64_t)(uintptr_t)p;
        d++;
        p += end_of(m0, ends, nf) + 1;
    }
    size_t nb = (size_t)(d - r->batch);
    r->n_entries += nb - r->n_batch;
    r->n_batch = nb;
    return (size_t)(p - start);
}

/* The two instances of decode_fast_body() for a decoder: path elements in
 * order or not. */
#define DECODE_FAST(r, p, n, at, value, ends_of, end_of)                                 \
    ((r)->pe_in_order ? decode_fast_body(r, p, n, at, value, ends_of, end_of, 1)          \
                      : decode_fast_body(r, p, n, at, value, ends_of, end_of, 0))

size_t pk_bsprof_decode_generic(reader *r, const uint8_t *p, size_t n, uint64_t at)
{
    return DECODE_FAST(r, p, n, at, varint_value, varint_ends, entry_end);
}

#if PK_HAVE_BMI2
/*
 * With BMI2, one PEXT gathers a varint's seven-bit groups and one BZHI cuts
 * it to its length: the decoder's most frequent work in two instructions
 * instead of eight. Chosen at run time, and only where PEXT is fast (not on
 * AMD before Zen 3, where it is microcoded).
 */
static PK_ALWAYS_INLINE PK_TARGET_BMI2 uint64_t varint_value_bmi2(const uint8_t *p, unsigned len)
{
    return _bzhi_u64(_pext_u64(pk_load_le64(p), UINT64_C(0x7f7f7f7f7f7f7f7f)), 7 * len);
}

/* entry_end() from the bits themselves: PDEP puts a bit at the nf-th end,
 * so the next entry's start does not wait on a store and a load. */
static PK_ALWAYS_INLINE PK_TARGET_BMI2 unsigned entry_end_bmi2(uint64_t m0, const unsigned ends[4],
                                                               unsigned nf)
{
    (void)ends;
    return (unsigned)_tzcnt_u64(_pdep_u64(UINT64_C(1) << nf, m0));
}

static PK_TARGET_BMI2 size_t decode_fast_bmi2(reader *r, const uint8_t *p, size_t n, uint64_t at)
{
    return DECODE_FAST(r, p, n, at, varint_value_bmi2, varint_ends, entry_end_bmi2);
}

/* With AVX2 too (every CPU with a fast PEXT has it), varint_ends() in one
 * 32-byte load and one mask. */
static PK_ALWAYS_INLINE PK_TARGET_AVX2 uint64_t varint_ends_avx2(const uint8_t *p)
{
    uint32_t cont = (uint32_t)_mm256_movemask_epi8(_mm256_loadu_si256((const __m256i *)(const void *)p));
    return (uint64_t)(uint32_t)~cont | (UINT64_C(0xf) << 32);
}

static PK_TARGET_AVX2 size_t decode_fast_avx2(reader *r, const uint8_t *p, size_t n, uint64_t at)
{
    return DECODE_FAST(r, p, n, at, varint_value_bmi2, varint_ends_avx2, entry_end_bmi2);
}

static int fast_pext(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam15h") &&
           !__builtin_cpu_is("amdfam17h");
}
#endif

int pk_bsprof_decoder = PK_BSPROF_DECODE_FASTEST;

decode_fast_fn pk_bsprof_decode_pick(void)
{
#if PK_HAVE_BMI2
    if (pk_bsprof_decoder != PK_BSPROF_DECODE_GENERIC && fast_pext())
        return pk_bsprof_decoder == PK_BSPROF_DECODE_FASTEST && __builtin_cpu_supports("avx2")
                   ? decode_fast_avx2
                   : decode_fast_bmi2;
#endif
    return pk_bsprof_decode_generic;
}
