/*
 * libFuzzer target: HAETAE signature unpacking alone (no verification):
 * the rANS streams of z1's high bits and of the hint, the zero padding.
 * Input: set byte, then signature.
 */
#include "fuzz_unpack_common.h"

static const fuzz_decoder decoders[] = {
#ifdef KPQC_HAVE_HAETAE
    {"haetae2", kpqc_haetae_unpack_signature, 0},
    {"haetae3", kpqc_haetae_unpack_signature, 1},
    {"haetae5", kpqc_haetae_unpack_signature, 2},
#endif
    {NULL, NULL, 0}, /* end; the only row when the family is not built */
};
#define DECODERS (sizeof decoders / sizeof decoders[0] - 1)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return fuzz_decoders(decoders, DECODERS, data, size);
}
