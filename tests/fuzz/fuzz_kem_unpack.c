/*
 * libFuzzer target: NTRU+ and SMAUG-T ciphertext unpacking alone (no
 * decapsulation), every parameter set.  Input: set byte, then ciphertext.
 */
#include "fuzz_unpack_common.h"

static const fuzz_decoder decoders[] = {
#ifdef KPQC_HAVE_NTRUPLUS
    {"ntruplus768", kpqc_ntruplus_unpack_ciphertext, 0},
    {"ntruplus864", kpqc_ntruplus_unpack_ciphertext, 1},
    {"ntruplus1152", kpqc_ntruplus_unpack_ciphertext, 2},
#endif
#ifdef KPQC_HAVE_SMAUGT
    {"smaugt1", kpqc_smaugt_unpack_ciphertext, 0},
    {"smaugt3", kpqc_smaugt_unpack_ciphertext, 1},
    {"smaugt5", kpqc_smaugt_unpack_ciphertext, 2},
    {"timer", kpqc_smaugt_unpack_ciphertext, 3},
#endif
    {NULL, NULL, 0}, /* end; the only row when the family is not built */
};
#define DECODERS (sizeof decoders / sizeof decoders[0] - 1)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return fuzz_decoders(decoders, DECODERS, data, size);
}
