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

/* An encoder writes its bytes backwards from the end of buf, down to
 * floor (cap bytes at most); the last four are its final state.  The
 * state x and the position are the callers' locals, so that the byte
 * stores (which may alias anything in memory) keep neither from a
 * register. */
struct encoder {
    uint8_t buf[ENC_MAX];
    size_t floor;
    const struct haetae_rans_table *t;
    uint16_t start[64];
    struct haetae_rans_divisor div[64];
};

static void encoder_init(struct encoder *e, const struct haetae_rans_table *t, size_t cap, uint32_t *x,
                         size_t *pos) {
    *pos = sizeof e->buf;
    e->floor = sizeof e->buf - (cap < sizeof e->buf ? cap : sizeof e->buf);
    e->t = t;
    starts(e->start, t);
    for (unsigned s = 0; s < t->nsym; s++) e->div[s] = kpqc_haetae_rans_divisor(t->freq[s]);
    *x = STATE_LOW;
}

/* One symbol in front of the code; -1 when it has none or the code is
 * full. */
static inline int encode_step(struct encoder *e, uint32_t *state, size_t *pos, unsigned s) {
    if (s >= e->t->nsym) return -1;
    const uint32_t f = e->t->freq[s];
    uint32_t x = *state;
    /* renormalise so that the new state stays below 2^31 */
    const uint32_t x_max = ((STATE_LOW >> SCALE_BITS) << 8) * f;
    while (x >= x_max) {
        if (*pos == e->floor) return -1;
        e->buf[--*pos] = (uint8_t)x;
        x >>= 8;
    }
    /* x < 2^31 here */
    const uint32_t q = kpqc_haetae_rans_div(x, e->div[s]);
    *state = (q << SCALE_BITS) + (x - q * f) + e->start[s];
    return 0;
}

/* The final state in front; the code's size, 0 when it does not fit. */
static size_t encoder_finish(struct encoder *e, uint32_t x, size_t pos, uint8_t *out) {
    if (pos < e->floor + 4) return 0;
    pos -= 4;
    for (unsigned i = 0; i < 4; i++) e->buf[pos + i] = (uint8_t)(x >> (8 * i));
    memcpy(out, e->buf + pos, sizeof e->buf - pos);
    return sizeof e->buf - pos;
}

size_t kpqc_haetae_rans_encode(uint8_t *out, size_t cap, const struct haetae_rans_table *t,
                          const uint8_t *sym, size_t n) {
    struct encoder e;
    uint32_t x;
    size_t pos;
    encoder_init(&e, t, cap, &x, &pos);
    for (size_t i = n; i-- > 0;)
        if (encode_step(&e, &x, &pos, sym[i]) != 0) return 0;
    return encoder_finish(&e, x, pos, out);
}

/* Two independent codes side by side, like decoding: the two states'
 * chains of multiplications overlap.  Each runs over its own symbols
 * backwards, the longer one's tail first. */
int kpqc_haetae_rans_encode_two(struct haetae_rans_text *a, struct haetae_rans_text *b) {
    struct encoder ea, eb;
    uint32_t xa, xb;
    size_t pa, pb;
    encoder_init(&ea, a->t, a->cap, &xa, &pa);
    encoder_init(&eb, b->t, b->cap, &xb, &pb);
    a->len = b->len = 0;
    size_t i = a->n, j = b->n;
    for (; i > j; i--)
        if (encode_step(&ea, &xa, &pa, a->sym[i - 1]) != 0) return -1;
    for (; j > i; j--)
        if (encode_step(&eb, &xb, &pb, b->sym[j - 1]) != 0) return -1;
    for (; i > 0; i--)
        if ((encode_step(&ea, &xa, &pa, a->sym[i - 1]) | encode_step(&eb, &xb, &pb, b->sym[i - 1])) != 0) return -1;
    a->len = encoder_finish(&ea, xa, pa, a->out);
    b->len = encoder_finish(&eb, xb, pb, b->out);
    return a->len != 0 && b->len != 0 ? 0 : -1;
}

/* Decoding looks up one word per state: the slot's symbol, its frequency
 * and the slot's offset in the symbol's range, so that each step waits on
 * a single load before its multiplication. */
struct decoder {
    uint32_t slot_entry[1u << SCALE_BITS];
    uint32_t x;
    const uint8_t *in, *end;
};

static int decoder_init(struct decoder *d, const struct haetae_rans_table *t, const uint8_t *in, size_t len) {
    uint16_t start[64];
    if (len < 4) return -1;
    starts(start, t);
    for (unsigned s = 0; s < t->nsym; s++)
        for (unsigned k = 0; k < t->freq[s]; k++) d->slot_entry[start[s] + k] = t->freq[s] | k << 11 | s << 21;
    d->x = in[0] | (uint32_t)in[1] << 8 | (uint32_t)in[2] << 16 | (uint32_t)in[3] << 24;
    d->in = in + 4;
    d->end = in + len;
    return (d->x < STATE_LOW || d->x >= (STATE_LOW << 8)) ? -1 : 0;
}

static inline uint8_t decode_step(struct decoder *d) {
    uint32_t e = d->slot_entry[d->x & ((1u << SCALE_BITS) - 1)];
    uint32_t x = (e & 0x7ff) * (d->x >> SCALE_BITS) + ((e >> 11) & 0x3ff);
    while (x < STATE_LOW && d->in < d->end) x = (x << 8) | *d->in++;
    d->x = x;
    return (uint8_t)(e >> 21);
}

/* the decoder must end in the encoder's initial state, all bytes used */
static int decoder_done(const struct decoder *d) { return (d->x == STATE_LOW && d->in == d->end) ? 0 : -1; }

int kpqc_haetae_rans_decode(uint8_t *sym, size_t n, const struct haetae_rans_table *t,
                       const uint8_t *in, size_t len) {
    struct decoder d;
    if (decoder_init(&d, t, in, len) != 0) return -1;
    for (size_t i = 0; i < n; i++) sym[i] = decode_step(&d);
    return decoder_done(&d);
}

/* Two independent codes side by side: two chains of dependent loads and
 * multiplications overlap instead of running one after the other. */
int kpqc_haetae_rans_decode_two(const struct haetae_rans_code *a, const struct haetae_rans_code *b) {
    struct decoder da, db;
    if (decoder_init(&da, a->t, a->in, a->len) != 0 || decoder_init(&db, b->t, b->in, b->len) != 0) return -1;
    size_t i = 0;
    for (; i < a->n && i < b->n; i++) {
        a->sym[i] = decode_step(&da);
        b->sym[i] = decode_step(&db);
    }
    for (size_t j = i; j < a->n; j++) a->sym[j] = decode_step(&da);
    for (size_t j = i; j < b->n; j++) b->sym[j] = decode_step(&db);
    return decoder_done(&da) | decoder_done(&db);
}
