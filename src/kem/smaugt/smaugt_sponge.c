/*
 * Many independent sponges on the four-way permutation, as a queue: each
 * of the four lanes runs one job (absorb its input, squeeze its output)
 * and takes the next waiting job as soon as it is done, so a long hash
 * (SHA3-256 of a public key) and short ones (the rows of A) share the
 * permutations instead of one lane idling while the others finish.
 *
 * The order of the work depends on the jobs' lengths only, never on their
 * contents; the state is wiped at the end (the inputs may be secret seeds).
 */
#include <string.h>

#include "common/ct.h"
#include "common/keccak.h"
#include "smaugt.h"

enum { LANE_IDLE, LANE_ABSORB, LANE_SQUEEZE };

/* Whole little-endian words in and out of lane j: a plain copy on a
 * little-endian host (the byte-wise helpers of keccak.h are not merged
 * into word moves here, and these copies are most of the queue's own
 * work). */
static inline uint64_t load_word(const uint8_t *in) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, in, 8);
    return v;
#else
    return kpqc_load64_le(in);
#endif
}

static inline void store_word(uint8_t *out, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    memcpy(out, &v, 8);
#else
    kpqc_store64_le(out, v);
#endif
}

/* Four words a step: the loop's own bookkeeping was as much as the moves. */
static inline void xor_words(uint64_t s[25][4], unsigned j, const uint8_t *in, size_t words) {
    size_t i = 0;
    for (; i + 4 <= words; i += 4) {
        s[i][j] ^= load_word(in + 8 * i);
        s[i + 1][j] ^= load_word(in + 8 * i + 8);
        s[i + 2][j] ^= load_word(in + 8 * i + 16);
        s[i + 3][j] ^= load_word(in + 8 * i + 24);
    }
    for (; i < words; i++) s[i][j] ^= load_word(in + 8 * i);
}

static inline void store_words(uint8_t *out, const uint64_t s[25][4], unsigned j, size_t words) {
    size_t i = 0;
    for (; i + 4 <= words; i += 4) {
        store_word(out + 8 * i, s[i][j]);
        store_word(out + 8 * i + 8, s[i + 1][j]);
        store_word(out + 8 * i + 16, s[i + 2][j]);
        store_word(out + 8 * i + 24, s[i + 3][j]);
    }
    for (; i < words; i++) store_word(out + 8 * i, s[i][j]);
}

void kpqc_smaugt_sponges(const smaugt_sponge_job *jobs, unsigned n) {
    uint64_t s[25][4];
    /* Where four-way means four permutations one after the other (the
     * portable level), only the busy lanes are permuted, one at a time. */
    const kpqc_keccakx4_backend *x4 = kpqc_keccakx4_select_backend();
    void (*f1600)(uint64_t s[25]) = x4->info.needs == 0 ? kpqc_keccak_select_backend()->f1600 : NULL;
    unsigned state[4] = {LANE_IDLE, LANE_IDLE, LANE_IDLE, LANE_IDLE}, job[4] = {0}, used[4] = {0};
    size_t off[4] = {0}; /* input bytes absorbed, then output bytes squeezed */
    unsigned next = 0;
    memset(s, 0, sizeof s); /* whole rows at once; a lane is cleared alone only when it takes a second job */
    for (;;) {
        unsigned active = 0;
        for (unsigned j = 0; j < 4; j++) {
            if (state[j] == LANE_IDLE && next < n) {
                if (used[j])
                    for (unsigned i = 0; i < 25; i++) s[i][j] = 0;
                used[j] = 1;
                job[j] = next++;
                state[j] = LANE_ABSORB;
                off[j] = 0;
            }
            if (state[j] == LANE_IDLE) continue;
            active++;
            const smaugt_sponge_job *t = &jobs[job[j]];
            if (state[j] == LANE_ABSORB) {
                if (t->inlen - off[j] >= t->rate) { /* a full block (rates are whole words) */
                    xor_words(s, j, t->in + off[j], t->rate / 8);
                    off[j] += t->rate;
                } else { /* the last, padded block */
                    const size_t rest = t->inlen - off[j];
                    xor_words(s, j, t->in + off[j], rest / 8);
                    kpqc_keccak_xor_instance(&s[rest / 8][0], 4, j, t->in + off[j] + (rest & ~(size_t)7), rest % 8);
                    kpqc_keccak_pad_instance(&s[0][0], 4, j, t->inlen - off[j], t->rate, t->dsep);
                    state[j] = LANE_SQUEEZE;
                    off[j] = 0;
                }
            }
        }
        if (active == 0) break;
        if (f1600 == NULL) {
            x4->f1600x4(s);
        } else {
            for (unsigned j = 0; j < 4; j++) {
                if (state[j] == LANE_IDLE) continue;
                uint64_t one[25];
                for (unsigned i = 0; i < 25; i++) one[i] = s[i][j];
                f1600(one);
                for (unsigned i = 0; i < 25; i++) s[i][j] = one[i];
                kpqc_wipe(one, sizeof one);
            }
        }
        for (unsigned j = 0; j < 4; j++) {
            if (state[j] != LANE_SQUEEZE) continue;
            const smaugt_sponge_job *t = &jobs[job[j]];
            size_t len = t->outlen - off[j] < t->rate ? t->outlen - off[j] : t->rate;
            uint8_t *o = t->out + off[j];
            store_words(o, s, j, len / 8);
            for (size_t i = len & ~(size_t)7; i < len; i++) o[i] = (uint8_t)(s[i / 8][j] >> (8 * (i % 8)));
            off[j] += len;
            if (off[j] == t->outlen) state[j] = LANE_IDLE;
        }
    }
    kpqc_wipe(s, sizeof s);
}
