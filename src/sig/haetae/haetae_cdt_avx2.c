/*
 * AVX2 build of the hyperball's CDT samples (see haetae_sampler.c), eight
 * candidates in the eight 32-bit lanes of a register.  An 83-bit value is
 * three 28-bit limbs, so one comparison e < r is a borrow chain of three
 * signed 32-bit compares (AVX2 has only four 64-bit lanes a register).
 * The count has three levels, since the table is sorted: here in 8 blocks
 * of 21 entries (166 padded to 168 with 2^83 - 1, never below an input),
 * so that a block index fits one dword permutation, and each block in
 * thirds of 7.  The first entries of the blocks below a lane's value r
 * give its block B (the last block whose first entry is below r, or 0);
 * every entry before block B is below r and none after it.  Entries 7
 * and 14 of block B give its third S the same way, so the count is
 * 21 B + 7 S plus the entries of that third below r: 2 + 6 three-limb
 * comparisons after the blocks' 8 instead of 21.  Entry 21 B + 7 S + j is
 * taken from rows j, 7 + j and 14 + j (one register a limb) by
 * permutations on B and blends on S, never from a secret address.
 */
#include "common/x86_intrin.h"
#include "haetae.h"
#include "haetae_cdt_avx2.h"

#define LIMB_BITS HAETAE_CDT_LIMB_BITS
#define LIMB_MASK ((1u << LIMB_BITS) - 1)
#define CDT_BLOCKS 8
#define CDT_ROWS 21

/* cdt_limbs[j][t][b]: limb t (bits 28 t up) of entry 21 b + j of the
 * portable table (entry 16 b' + j' is kpqc_haetae_cdt_hi[11 j' + b'] 2^42 +
 * kpqc_haetae_cdt_lo[11 j' + b']). */
static const int32_t cdt_limbs[CDT_ROWS][3][CDT_BLOCKS] = {
    {
        {0x8db1e28, 0xa25fef3, 0xbe53700, 0x8497c0a, 0x7fc83f6, 0x38ad2fa, 0xb6664c0, 0xffbbb6f},
        {0xa572bc8, 0x45ceb02, 0x1e741aa, 0x333ecab, 0x46d4f89, 0xfe929a5, 0xfffffa3, 0xfffffff},
        {0x063a50a, 0x69a68be, 0x7f03b4c, 0x7ffdb24, 0x7ffffef, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x064b2ee, 0x08dbaa1, 0x0f9a967, 0xbf2b7d9, 0x63ec049, 0x2119732, 0x3e13d66, 0xffd9f49},
        {0x3820e69, 0x1a8ccd2, 0xb94c56e, 0xe06eb33, 0x227e466, 0xff10b1c, 0xfffffc8, 0xfffffff},
        {0x0c7184f, 0x6c1207d, 0x7f2ec72, 0x7ffe3b2, 0x7fffff4, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x1418704, 0x085e7db, 0x9e4539c, 0x0dfe7e2, 0xb5aff07, 0x795a2c9, 0x713ef71, 0xffeae2c},
        {0x8dc44dd, 0x2c002b9, 0xe5a80a7, 0xa5f6c55, 0x9d091c1, 0xff63df8, 0xfffffde, 0xfffffff},
        {0x129f6d6, 0x6e49645, 0x7f531e7, 0x7ffea59, 0x7fffff7, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0xb97b1dd, 0x551378d, 0xfeb4d12, 0x27f906e, 0xc3890a6, 0x0a9f2af, 0xe18936f, 0xfff453d},
        {0x87a04d9, 0xef361c5, 0x41c5d11, 0x0548f39, 0x183c533, 0xff9a87a, 0xfffffeb, 0xfffffff},
        {0x18bdf65, 0x704efd7, 0x7f71a96, 0x7ffef80, 0x7fffffa, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x65d0050, 0x9e5a8bb, 0xb73dde0, 0x573bc40, 0x066b0f2, 0x6f0f4a9, 0xfbfc997, 0xfff9928},
        {0x843ce0a, 0xb4ff49d, 0x8b71598, 0xcac146b, 0xdb8a602, 0xffbe4df, 0xffffff3, 0xfffffff},
        {0x1ec739b, 0x7225596, 0x7f8b3b1, 0x7fff378, 0x7fffffb, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x9003e7d, 0xe732d83, 0x7904d7e, 0x4b6aff1, 0x3db86b7, 0xf204910, 0xd9fa29a, 0xfffc797},
        {0xb62cb86, 0x37c94ed, 0x112fb5a, 0xe6dadec, 0x1af06df, 0xffd5a10, 0xffffff8, 0xfffffff},
        {0x24b5902, 0x73cf1d3, 0x7fa08d9, 0x7fff685, 0x7fffffd, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x8bf43c6, 0xfe83c38, 0xfabc820, 0x7def8ec, 0x587e2aa, 0x1668b32, 0xc372590, 0xfffe12f},
        {0x44f194f, 0xc75b8d3, 0x4f57cbe, 0xa17dfa1, 0xfc1a818, 0xffe4c6f, 0xffffffb, 0xfffffff},
        {0x2a83a0d, 0x754f028, 0x7fb243a, 0x7fff8db, 0x7fffffd, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x211b4db, 0x0fe20e0, 0x5022976, 0xce20a93, 0x8ac2a93, 0x680bfaf, 0x7fb7dfd, 0xfffef3c},
        {0xa0c7acb, 0x5d7bd13, 0x14025fd, 0x3f84d06, 0x9a37a34, 0xffee939, 0xffffffd, 0xfffffff},
        {0x302c6fa, 0x76a7ce0, 0x7fc0eb3, 0x7fffaa3, 0x7fffffe, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x524be80, 0x6d85108, 0xab1981b, 0x5186746, 0x970dbfe, 0x16290db, 0x87747f9, 0xffff6eb},
        {0x1387f7f, 0x70e60b7, 0xa2b228a, 0x2fe967c, 0x08d0797, 0xfff4e42, 0xffffffe, 0xfffffff},
        {0x35ab6a1, 0x77dc461, 0x7fccff2, 0x7fffbfd, 0x7ffffff, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x2ceb77f, 0x14901ff, 0x378cd98, 0xe9b180f, 0xd7a00bc, 0x044613e, 0x2368b89, 0xffffb1b},
        {0x526ca6f, 0xe598924, 0x6ce1e60, 0xd37ecd7, 0x55df73f, 0xfff8f1c, 0xfffffff, 0xfffffff},
        {0x3afc718, 0x78ef2b0, 0x7fd6e99, 0x7fffd02, 0x7ffffff, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0xb7dad17, 0x911f3de, 0x8e3ca90, 0xd33f0bb, 0x3bca5ce, 0xdc2b174, 0x7f44d88, 0xffffd60},
        {0xa01a906, 0x05cf70b, 0x0ec64b3, 0xefafa8b, 0x8b5aa57, 0xfffb892, 0xfffffff, 0xfffffff},
        {0x401be42, 0x79e32ff, 0x7fdf057, 0x7fffdc7, 0x7ffffff, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x966b9a7, 0xfd508c9, 0x5dcd7c6, 0x1e791cc, 0x9f51681, 0x4188608, 0xb52a49b, 0xffffe9a},
        {0xe5337a1, 0x01460fd, 0x5726961, 0xda82634, 0xb053c10, 0xfffd2fb, 0xfffffff, 0xfffffff},
        {0x4506a32, 0x7abaf45, 0x7fe5a06, 0x7fffe5b, 0x7ffffff, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x735f58a, 0x2a54906, 0xdc85312, 0x045599f, 0x9a036ec, 0x0a56eba, 0xd4a9ffb, 0xfffff43},
        {0x00f7ac9, 0x0b1303a, 0x360038b, 0x6c1c6ce, 0xc9c9bd3, 0xfffe3bc, 0xfffffff, 0xfffffff},
        {0x49ba16f, 0x7b78ff2, 0x7feafc7, 0x7fffeca, 0x7ffffff, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x642ba60, 0xb04b20c, 0x7a8ae1a, 0xa9a526e, 0xee1f846, 0x3b218c6, 0xe700579, 0xfffff9e},
        {0x6c48f40, 0xd3badbe, 0x7fa02a5, 0xc02c0fa, 0xdb40bd4, 0xfffee52, 0xfffffff, 0xfffffff},
        {0x4e3430e, 0x7c1fba7, 0x7fef516, 0x7ffff1c, 0x7ffffff, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0xfb5e4ec, 0x41b666d, 0xa9b2bef, 0xa4a4e52, 0x9b20a4a, 0x31097e3, 0xf1a287f, 0xfffffce},
        {0x192fa1a, 0xce666b7, 0x80fab2e, 0xd002901, 0xe72fa85, 0xffff4fc, 0xfffffff, 0xfffffff},
        {0x52736b6, 0x7cb1705, 0x7ff2ce3, 0x7ffff59, 0x7ffffff, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0xfc2fcf5, 0xed20430, 0x509b5a2, 0xce07540, 0x93d266d, 0xd76dbeb, 0xf7c6f06, 0xfffffe7},
        {0x39dba8f, 0x6e689fd, 0x6e6abd6, 0xecbd139, 0xef4edda, 0xffff929, 0xfffffff, 0xfffffff},
        {0x5676c73, 0x7d30482, 0x7ff59a3, 0x7ffff86, 0x7ffffff, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0xc90c9eb, 0xfcf6ff6, 0xba81c37, 0xfb47f4c, 0xfb0d4e0, 0xe7c0350, 0xfb4fa99, 0xffffff4},
        {0x46cbe1a, 0x55d1354, 0xbfcf1d6, 0x1f9f15f, 0xf4d07a9, 0xffffbc5, 0xfffffff, 0xfffffff},
        {0x5a3dc77, 0x7d9e451, 0x7ff7d62, 0x7ffffa8, 0x7ffffff, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0xd78466f, 0x1d318f6, 0x96caa93, 0x1687af0, 0xf31b1cc, 0x86c6684, 0xfd56300, 0xffffffb},
        {0x3004341, 0x469226a, 0x946e8bf, 0x75b1748, 0xf88868e, 0xffffd65, 0xfffffff, 0xfffffff},
        {0x5dc86b8, 0x7dfd455, 0x7ff99d4, 0x7ffffc0, 0x7ffffff, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x2bb3d8a, 0xfa9cabc, 0xa8cda2d, 0x8301c65, 0xa3f5f0c, 0x16865f7, 0xfe7e364, 0xffffffe},
        {0x1dcca57, 0x8d3820c, 0x3e6262e, 0x3ad13e6, 0xfb08c16, 0xffffe67, 0xfffffff, 0xfffffff},
        {0x6117278, 0x7e4f01c, 0x7ffb060, 0x7ffffd2, 0x7ffffff, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x82a5384, 0x700fc40, 0x3ae9203, 0xe1c84cb, 0xbe5cabf, 0x13c76e2, 0xff268d7, 0xfffffff},
        {0x80376cc, 0x8d83bbf, 0x18c8b33, 0x27955fa, 0xfcb5d30, 0xfffff06, 0xfffffff, 0xfffffff},
        {0x642adb8, 0x7e950e6, 0x7ffc22d, 0x7ffffdf, 0x7ffffff, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
    {
        {0x7dfecb9, 0x4042803, 0x7718d61, 0x368c266, 0x5d95fe6, 0xd62ab64, 0xff85e8e, 0xfffffff},
        {0x68a5c47, 0x152d894, 0xcdedb5a, 0x84cdb07, 0xfdd4346, 0xfffff67, 0xfffffff, 0xfffffff},
        {0x6704c9c, 0x7ed0db1, 0x7ffd02c, 0x7ffffe8, 0x7ffffff, 0x7ffffff, 0x7ffffff, 0x7ffffff},
    },
};

/* All-ones in the lanes where e < r: e - r borrows through the limbs. */
static inline __m256i below(__m256i e0, __m256i e1, __m256i e2, const __m256i r[3]) {
    const __m256i b0 = _mm256_cmpgt_epi32(r[0], e0);
    const __m256i b1 = _mm256_cmpgt_epi32(r[1], _mm256_add_epi32(e1, b0));
    return _mm256_cmpgt_epi32(r[2], _mm256_add_epi32(e2, b1));
}

static inline __m256i pick(const int32_t *limb, __m256i block) {
    return _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)limb), block);
}

/* Entry 21 B + 7 S + j (S = 0, 1, 2) from rows j, 7 + j and 14 + j: each
 * limb picked by B from the three rows, then chosen by S (s1: S >= 1,
 * s2: S = 2, all-ones lanes). */
static inline __m256i below_sub(unsigned j, __m256i block, __m256i s1, __m256i s2, const __m256i r[3]) {
    __m256i e[3];
    for (unsigned t = 0; t < 3; t++)
        e[t] = _mm256_blendv_epi8(_mm256_blendv_epi8(pick(cdt_limbs[j][t], block), pick(cdt_limbs[7 + j][t], block), s1),
                                  pick(cdt_limbs[14 + j][t], block), s2);
    return below(e[0], e[1], e[2], r);
}

__m256i kpqc_haetae_cdt8_avx2(__m256i r0, __m256i r1, __m256i r2) {
    const __m256i r[3] = {r0, r1, r2};
    /* blocks whose first entry is below r, minus one unless none (the
     * entries broadcast from memory: loads, not shuffles) */
    __m256i blocks = _mm256_setzero_si256();
    for (unsigned b = 0; b < CDT_BLOCKS; b++) {
        const __m256i e0 = _mm256_broadcastd_epi32(_mm_loadu_si32(&cdt_limbs[0][0][b]));
        const __m256i e1 = _mm256_broadcastd_epi32(_mm_loadu_si32(&cdt_limbs[0][1][b]));
        const __m256i e2 = _mm256_broadcastd_epi32(_mm_loadu_si32(&cdt_limbs[0][2][b]));
        blocks = _mm256_sub_epi32(blocks, below(e0, e1, e2, r));
    }
    const __m256i any = _mm256_cmpgt_epi32(blocks, _mm256_setzero_si256());
    const __m256i block = _mm256_add_epi32(blocks, any);
    /* the block's thirds: S of its entries 7 and 14 are below r */
    const __m256i s1 = below(pick(cdt_limbs[7][0], block), pick(cdt_limbs[7][1], block), pick(cdt_limbs[7][2], block), r);
    const __m256i s2 = below(pick(cdt_limbs[14][0], block), pick(cdt_limbs[14][1], block), pick(cdt_limbs[14][2], block), r);
    const __m256i third = _mm256_sub_epi32(_mm256_setzero_si256(), _mm256_add_epi32(s1, s2));
    /* 21 B + 7 S, and entry 21 B + 7 S itself: below r when S > 0, and
     * for S = 0 exactly when some block's first entry is */
    __m256i acc = _mm256_add_epi32(_mm256_mullo_epi32(block, _mm256_set1_epi32(CDT_ROWS)),
                                   _mm256_mullo_epi32(third, _mm256_set1_epi32(CDT_ROWS / 3)));
    acc = _mm256_sub_epi32(acc, _mm256_or_si256(s1, any));
    for (unsigned j = 1; j < CDT_ROWS / 3; j++) acc = _mm256_sub_epi32(acc, below_sub(j, block, s1, s2, r));
    return acc;
}

/* One sample, for comparison with the portable count: the value goes to
 * lane lo mod 8 and the other lanes hold its complement, so a count that
 * mixed lanes would show. */
uint64_t kpqc_haetae_cdt_sample_avx2(uint64_t lo, uint32_t hi) {
    int32_t limbs[2][3];
    for (unsigned v = 0; v < 2; v++) {
        const uint64_t l = v ? ~lo : lo;
        const uint32_t h = (v ? ~hi : hi) & 0x7ffff;
        limbs[v][0] = (int32_t)(l & LIMB_MASK);
        limbs[v][1] = (int32_t)((l >> LIMB_BITS) & LIMB_MASK);
        limbs[v][2] = (int32_t)((l >> (2 * LIMB_BITS)) | (uint64_t)h << (64 - 2 * LIMB_BITS));
    }
    const __m256i here = _mm256_cmpeq_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32((int32_t)(lo & 7)));
    __m256i r[3];
    for (unsigned t = 0; t < 3; t++)
        r[t] = _mm256_blendv_epi8(_mm256_set1_epi32(limbs[1][t]), _mm256_set1_epi32(limbs[0][t]), here);
    uint32_t x[8];
    _mm256_storeu_si256((__m256i *)x, kpqc_haetae_cdt8_avx2(r[0], r[1], r[2]));
    return x[lo & 7];
}
