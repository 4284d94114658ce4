/*
 * Keccak-f[1600] on four states at once with AVX2: register i holds lane i
 * of the four instances (the s[lane][instance] layout of kpqc_keccakx4).
 * The eight-way backend of the AVX2 path is the same round on each half
 * of kpqc_keccakx8's state, in place.
 */
#include "common/x86_intrin.h"

#include "keccak.h"
#include "keccak_simd_round.h"

#define V __m256i
#define XOR(a, b) _mm256_xor_si256((a), (b))
#define XOR5(a, b, c, d, e) XOR(XOR(XOR((a), (b)), XOR((c), (d))), (e))
#define ROL(v, n) _mm256_or_si256(_mm256_slli_epi64((v), (n)), _mm256_srli_epi64((v), 64 - (n)))
/* theta's rotations by one with an add for the left shift (adds issue on
 * four pipes of Zen 4, shifts on two), rho's by 8 and 56 one byte shuffle
 * each instead of three instructions */
#define ROL1(v) _mm256_or_si256(_mm256_add_epi64((v), (v)), _mm256_srli_epi64((v), 63))
#define RHO(v, n) KECCAK_RHO_BY_BYTES(v, n, ROL, KECCAK_ROLB256)
#define CHI(a, b, c) XOR((a), _mm256_andnot_si256((b), (c)))
#define SET1(x) _mm256_set1_epi64x((long long)(x))
#define LOADV(p) _mm256_loadu_si256((const __m256i *)(p))
#define STOREV(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
/* with 16 registers, parities carried from chi spill less than XOR5s over
 * the state */
#define KECCAK_SIMD_CARRY_PARITIES 1

KECCAK_SIMD_PERMUTE(kpqc_keccakx4_f1600_avx2, 4)

const kpqc_keccakx4_backend kpqc_keccakx4_backend_avx2 = {{"avx2", KPQC_FEAT_AVX2}, kpqc_keccakx4_f1600_avx2,
                                                          kpqc_keccakx4_store_lanes_avx2, 1};

/* Instances 0-3, then 4-7, of eight lane-interleaved states, in place (the
 * portable fallback copies both halves out and back). */
KECCAK_SIMD_PERMUTE_AT(keccakx8_low_avx2, 8, 0)
KECCAK_SIMD_PERMUTE_AT(keccakx8_high_avx2, 8, 4)

static void f1600x8_avx2(uint64_t s[25][8]) {
    keccakx8_low_avx2(s);
    keccakx8_high_avx2(s);
}

/* The first n lanes of four instances whose lane i sits at s[i * stride]
 * (instance j at +j), instance j to out[j]: lanes i..i+3 are a 4x4 block
 * of words, 64-bit unpacks pair the rows, 128-bit halves finish the
 * transpose. */
static void store_lanes4(uint8_t *const out[4], const uint64_t *s, unsigned stride, unsigned n) {
    unsigned i = 0;
    for (; i + 4 <= n; i += 4) {
        const V r0 = LOADV(&s[i * stride]), r1 = LOADV(&s[(i + 1) * stride]);
        const V r2 = LOADV(&s[(i + 2) * stride]), r3 = LOADV(&s[(i + 3) * stride]);
        const V t0 = _mm256_unpacklo_epi64(r0, r1), t1 = _mm256_unpackhi_epi64(r0, r1);
        const V t2 = _mm256_unpacklo_epi64(r2, r3), t3 = _mm256_unpackhi_epi64(r2, r3);
        STOREV(out[0] + 8 * i, _mm256_permute2x128_si256(t0, t2, 0x20));
        STOREV(out[1] + 8 * i, _mm256_permute2x128_si256(t1, t3, 0x20));
        STOREV(out[2] + 8 * i, _mm256_permute2x128_si256(t0, t2, 0x31));
        STOREV(out[3] + 8 * i, _mm256_permute2x128_si256(t1, t3, 0x31));
    }
    for (; i < n; i++)
        for (unsigned j = 0; j < 4; j++) kpqc_store64_le(out[j] + 8 * i, s[i * stride + j]);
}

/* Also the AVX-512 level's (its 256-bit registers gain nothing here). */
void kpqc_keccakx4_store_lanes_avx2(uint8_t *const out[4], const uint64_t s[25][4], unsigned n) {
    store_lanes4(out, &s[0][0], 4, n);
}

static void store_lanes_avx2(uint8_t *const out[8], const uint64_t s[25][8], unsigned n) {
    store_lanes4(out, &s[0][0], 8, n);
    store_lanes4(out + 4, &s[0][4], 8, n);
}

const kpqc_keccakx8_backend kpqc_keccakx8_backend_avx2 = {{"avx2", KPQC_FEAT_AVX2}, f1600x8_avx2, store_lanes_avx2, 0};
