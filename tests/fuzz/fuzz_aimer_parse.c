/*
 * libFuzzer target: AIMer signature parsing alone (no verification): the
 * layout, the hidden parties and the proofs' field elements.  Input: set
 * byte, then signature.
 */
#include "fuzz_unpack_common.h"

static const fuzz_decoder decoders[] = {
#ifdef KPQC_HAVE_AIMER
    {"aimer128f", kpqc_aimer_parse_signature, 0},
    {"aimer128s", kpqc_aimer_parse_signature, 1},
    {"aimer192f", kpqc_aimer_parse_signature, 2},
    {"aimer192s", kpqc_aimer_parse_signature, 3},
    {"aimer256f", kpqc_aimer_parse_signature, 4},
    {"aimer256s", kpqc_aimer_parse_signature, 5},
#endif
    {NULL, NULL, 0}, /* end; the only row when the family is not built */
};
#define DECODERS (sizeof decoders / sizeof decoders[0] - 1)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    return fuzz_decoders(decoders, DECODERS, data, size);
}
