/*
 * The three HAETAE parameter sets.  Bounds are the specification's
 * B0, B1, B2 (squared and truncated as the reference code does), gamma the
 * key's singular-value bound; rANS frequency tables and the fixed-point
 * starting values of the inverse square root are those of the
 * specification's reference parameters.
 */
#include "haetae.h"

static const uint16_t freq_h_2[13] = {382, 246, 65, 7, 1, 1, 1, 1, 1, 1, 7, 65, 246};
static const uint16_t freq_hb_2[13] = {1, 1, 1, 5, 58, 246, 398, 247, 59, 5, 1, 1, 1};
static const uint16_t freq_h_3[17] = {266, 213, 113, 40, 9, 1, 1, 1, 1,
                                      1,   1,   1,   1,  9, 40, 113, 213};
static const uint16_t freq_hb_3[17] = {1, 1, 1, 1, 8, 37, 112, 216, 269,
                                       216, 112, 38, 8, 1, 1, 1, 1};
static const uint16_t freq_h_5[33] = {122, 117, 102, 81, 59, 39, 23, 13, 6, 3, 1,
                                      1,   1,   1,   1,  1,  1,  1,  1,  1, 1, 1,
                                      1,   1,   3,   6,  13, 24, 39, 59, 81, 102, 118};
static const uint16_t freq_hb_5[19] = {1, 1, 1, 1, 2, 13, 48, 118, 204, 245,
                                       204, 118, 48, 14, 2, 1, 1, 1, 1};

const struct haetae_params kpqc_haetae2_params = {
    .k = 2, .l = 4, .tau = 58,
    .sig_bytes = 1474,
    .polyq_bytes = 480, .s2_bytes = 96, .pk_in_ntt = 0, .alpha_hint_bits = 9,
    .b0sq = 96944109, .b1sq = 96805527, .b2sq = 163265017,
    .gamma_sq_n = 611098, .radius_scale = UINT64_C(2643021496320),
    .invsqrt_cube = {UINT64_C(0x770077e2e41a), UINT64_C(0x1162)},
    .invsqrt_three_halves = {UINT64_C(0x693861ad937b), UINT64_C(0x9caa56)},
    .base_enc_hb_z1 = 132, .base_enc_h = 7,
    .rans_hb_z1 = {13, freq_hb_2}, .rans_h = {13, freq_h_2},
    .offset_hb_z1 = 6, .offset_h = 239,
};

const struct haetae_params kpqc_haetae3_params = {
    .k = 3, .l = 6, .tau = 80,
    .sig_bytes = 2349,
    .polyq_bytes = 480, .s2_bytes = 96, .pk_in_ntt = 0, .alpha_hint_bits = 9,
    .b0sq = 335438492, .b1sq = 335171879, .b2sq = 479901314,
    .gamma_sq_n = 852505, .radius_scale = UINT64_C(4916390789120),
    .invsqrt_cube = {UINT64_C(0x1a2935cfae68), UINT64_C(0x978)},
    .invsqrt_three_halves = {UINT64_C(0x7ad215218533), UINT64_C(0x7ff1c9)},
    .base_enc_hb_z1 = 376, .base_enc_h = 127,
    .rans_hb_z1 = {17, freq_hb_3}, .rans_h = {17, freq_h_3},
    .offset_hb_z1 = 8, .offset_h = 235,
};

const struct haetae_params kpqc_haetae5_params = {
    .k = 4, .l = 7, .tau = 128,
    .sig_bytes = 2948,
    .polyq_bytes = 512, .s2_bytes = 64, .pk_in_ntt = 1, .alpha_hint_bits = 8,
    .b0sq = 499239142, .b1sq = 498849991, .b2sq = 597386433,
    .gamma_sq_n = 778065, .radius_scale = UINT64_C(5997831421952),
    .invsqrt_cube = {UINT64_C(0x700ff3e8890d), UINT64_C(0x702)},
    .invsqrt_three_halves = {UINT64_C(0x5768588eed31), UINT64_C(0x73bd40)},
    .base_enc_hb_z1 = 501, .base_enc_h = 358,
    .rans_hb_z1 = {19, freq_hb_5}, .rans_h = {33, freq_h_5},
    .offset_hb_z1 = 9, .offset_h = 471,
};
