/*
 * Byte-wise rANS with 10-bit frequencies and a 32-bit state kept in
 * [2^23, 2^31), as used by HAETAE for the high bits of z1 and the hint.
 * The encoder runs over the symbols backwards and writes bytes backwards,
 * then the final state (little-endian); the decoder reads forwards.  The
 * code is over signature data only.
 */
#include <string.h>

#include "haetae.h"

#define SCALE_BITS 10
#define STATE_LOW (UINT32_C(1) << 23)
#define ENC_MAX 2048

static void starts(uint16_t start[64], const struct haetae_rans_table *t) {
    uint16_t acc = 0;
    for (unsigned s = 0; s < t->nsym; s++) {
        start[s] = acc;
        acc = (uint16_t)(acc + t->freq[s]);
    }
}

size_t kpqc_haetae_rans_encode(uint8_t *out, size_t cap, const struct haetae_rans_table *t,
                          const uint8_t *sym, size_t n) {
    uint8_t buf[ENC_MAX];
    uint16_t start[64];
    size_t pos = sizeof buf;
    uint32_t x = STATE_LOW;
    if (cap > sizeof buf) cap = sizeof buf;
    starts(start, t);
    for (size_t i = n; i-- > 0;) {
        unsigned s = sym[i];
        if (s >= t->nsym) return 0;
        uint32_t f = t->freq[s];
        /* renormalise so that the new state stays below 2^31 */
        uint32_t x_max = ((STATE_LOW >> SCALE_BITS) << 8) * f;
        while (x >= x_max) {
            if (pos == sizeof buf - cap) return 0;
            buf[--pos] = (uint8_t)x;
            x >>= 8;
        }
        x = ((x / f) << SCALE_BITS) + (x % f) + start[s];
    }
    if (pos < sizeof buf - cap + 4) return 0;
    pos -= 4;
    for (unsigned i = 0; i < 4; i++) buf[pos + i] = (uint8_t)(x >> (8 * i));
    memcpy(out, buf + pos, sizeof buf - pos);
    return sizeof buf - pos;
}

/* Decoding looks up one word per state: the slot's symbol, its frequency
 * and the slot's offset in the symbol's range, so that each step waits on
 * a single load before its multiplication. */
#define DEC_FREQ(e) ((e) & 0x7ff)
#define DEC_BIAS(e) (((e) >> 11) & 0x3ff)
#define DEC_SYM(e) ((e) >> 21)

int kpqc_haetae_rans_decode(uint8_t *sym, size_t n, const struct haetae_rans_table *t,
                       const uint8_t *in, size_t len) {
    uint32_t slot_entry[1u << SCALE_BITS];
    uint16_t start[64];
    const uint8_t *end = in + len;
    if (len < 4) return -1;
    starts(start, t);
    for (unsigned s = 0; s < t->nsym; s++)
        for (unsigned k = 0; k < t->freq[s]; k++) slot_entry[start[s] + k] = t->freq[s] | k << 11 | s << 21;
    uint32_t x = in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 | (uint32_t)in[3] << 24;
    in += 4;
    if (x < STATE_LOW || x >= (STATE_LOW << 8)) return -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t e = slot_entry[x & ((1u << SCALE_BITS) - 1)];
        sym[i] = (uint8_t)DEC_SYM(e);
        x = DEC_FREQ(e) * (x >> SCALE_BITS) + DEC_BIAS(e);
        while (x < STATE_LOW && in < end) x = (x << 8) | *in++;
    }
    /* the decoder must end in the encoder's initial state, all bytes used */
    return (x == STATE_LOW && in == end) ? 0 : -1;
}
