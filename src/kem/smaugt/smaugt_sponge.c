/*
 * Many independent sponges on the four-way permutation, as a queue: each
 * of the four lanes runs one job (absorb its input, squeeze its output)
 * and takes the next ready job as soon as it is done, so a long hash
 * (SHA3-256 of a public key) and short ones (the rows of A) share the
 * permutations instead of one lane idling while the others finish.  A job
 * may wait for an earlier one whose output is its input (the seeds of an
 * encryption wait for the hash of the public key, the sampling of r for
 * the seeds), so a whole operation's hashes run in one queue.  On AVX2
 * a lane busy alone takes the one-state permutation, which is faster there
 * than four lanes.
 *
 * The order of the work depends on the jobs' lengths only, never on their
 * contents; the state is wiped at the end (the inputs may be secret seeds).
 */
#include <string.h>

#include "common/ct.h"
#include "common/keccak.h"
#include "smaugt.h"

/* Whole little-endian words in and out of lane j (kpqc_load64_le and
 * kpqc_store64_le are one move each on a little-endian host; these copies
 * are most of the queue's own work), four words a step: the loop's own
 * bookkeeping was as much as the moves. */
static inline void xor_words(uint64_t s[25][4], unsigned j, const uint8_t *in, size_t words) {
    size_t i = 0;
    for (; i + 4 <= words; i += 4) {
        s[i][j] ^= kpqc_load64_le(in + 8 * i);
        s[i + 1][j] ^= kpqc_load64_le(in + 8 * i + 8);
        s[i + 2][j] ^= kpqc_load64_le(in + 8 * i + 16);
        s[i + 3][j] ^= kpqc_load64_le(in + 8 * i + 24);
    }
    for (; i < words; i++) s[i][j] ^= kpqc_load64_le(in + 8 * i);
}

static inline void store_words(uint8_t *out, const uint64_t s[25][4], unsigned j, size_t words) {
    size_t i = 0;
    for (; i + 4 <= words; i += 4) {
        kpqc_store64_le(out + 8 * i, s[i][j]);
        kpqc_store64_le(out + 8 * i + 8, s[i + 1][j]);
        kpqc_store64_le(out + 8 * i + 16, s[i + 2][j]);
        kpqc_store64_le(out + 8 * i + 24, s[i + 3][j]);
    }
    for (; i < words; i++) kpqc_store64_le(out + 8 * i, s[i][j]);
}

/* A lane taking a new job starts from the zero state (the rows of the
 * other lanes are left alone). */
static inline void clear_lane(uint64_t s[25][4], unsigned j) {
#if defined(__GNUC__)
#pragma GCC unroll 25
#endif
    for (unsigned i = 0; i < 25; i++) s[i][j] = 0;
}

/* Where each lane's job stands: input still to absorb, output still to
 * squeeze (whether it is still absorbing is a bit of the queue's). */
typedef struct {
    const smaugt_sponge_job *job;
    const uint8_t *in;
    size_t in_left;
    uint8_t *out;
    size_t out_left;
} lane_job;

static inline void take_job(lane_job *l, const smaugt_sponge_job *t) {
    l->job = t;
    l->in = t->in;
    l->in_left = t->inlen;
    l->out = t->out;
    l->out_left = t->outlen;
}

/* A whole block of lane j: XORed in from `in` (absorb = 1) or stored
 * out to `out` (absorb = 0, `in` unused).  The two rates the scheme uses
 * get word counts the compiler knows, so their moves run without loop
 * branches (the lanes' blocks alternate between lengths, which the
 * loops' exits mispredict). */
static inline void move_words(uint64_t s[25][4], unsigned j, int absorb, const uint8_t *in, uint8_t *out, size_t words) {
    if (absorb)
        xor_words(s, j, in, words);
    else
        store_words(out, s, j, words);
}

static inline void move_block(uint64_t s[25][4], unsigned j, int absorb, const uint8_t *in, uint8_t *out, size_t rate) {
    if (rate == KPQC_SHAKE128_RATE)
        move_words(s, j, absorb, in, out, KPQC_SHAKE128_RATE / 8);
    else if (rate == KPQC_SHAKE256_RATE)
        move_words(s, j, absorb, in, out, KPQC_SHAKE256_RATE / 8);
    else
        move_words(s, j, absorb, in, out, rate / 8);
}

/* One block of lane j's input: a full one, or the last with the job's tag
 * bytes and the padding; 1 after the last (the lane squeezes after the
 * next permutation). */
static inline int absorb_block(uint64_t s[25][4], unsigned j, lane_job *l) {
    const smaugt_sponge_job *t = l->job;
    if (l->in_left >= t->rate) { /* rates are whole words */
        move_block(s, j, 1, l->in, NULL, t->rate);
        l->in += t->rate;
        l->in_left -= t->rate;
        return 0;
    }
    const size_t rest = l->in_left;
    xor_words(s, j, l->in, rest / 8);
    if (rest % 8 == 0) { /* every input of the scheme: tag and domain byte in one word */
        const uint64_t tag = ((uint64_t)t->tag[0] | (uint64_t)t->tag[1] << 8) & ((1u << (8 * t->taglen)) - 1);
        s[rest / 8][j] ^= tag | (uint64_t)t->dsep << (8 * t->taglen);
        s[(t->rate - 1) / 8][j] ^= (uint64_t)0x80 << (8 * ((t->rate - 1) % 8));
    } else {
        kpqc_keccak_xor_instance(&s[rest / 8][0], 4, j, l->in + (rest & ~(size_t)7), rest % 8);
        for (unsigned i = 0; i < t->taglen; i++) s[(rest + i) / 8][j] ^= (uint64_t)t->tag[i] << (8 * ((rest + i) % 8));
        kpqc_keccak_pad_instance(&s[0][0], 4, j, rest + t->taglen, t->rate, t->dsep);
    }
    return 1;
}

/* One block (or what is left) of lane j's output; 1 once the job is done. */
static inline int squeeze_block(uint64_t s[25][4], unsigned j, lane_job *l) {
    const size_t rate = l->job->rate;
    if (l->out_left > rate) {
        move_block(s, j, 0, NULL, l->out, rate);
        l->out += rate;
        l->out_left -= rate;
        return 0;
    }
    const size_t len = l->out_left;
    store_words(l->out, s, j, len / 8);
    for (size_t i = len & ~(size_t)7; i < len; i++) l->out[i] = (uint8_t)(s[i / 8][j] >> (8 * (i % 8)));
    l->out_left = 0;
    return 1;
}

/* The first job from `from` on not yet started whose prerequisite is
 * done, or n. */
static unsigned ready_job(const smaugt_sponge_job *jobs, unsigned from, unsigned n, uint32_t started, uint32_t done) {
    for (unsigned i = from; i < n; i++)
        if (!(started >> i & 1) && (jobs[i].after == 0 || (done >> (jobs[i].after - 1) & 1))) return i;
    return n;
}

void kpqc_smaugt_sponges(const smaugt_sponge_job *jobs, unsigned n) {
    uint64_t s[25][4], one[25]; /* one: a lane permuted alone */
    const kpqc_keccakx4_backend *x4 = kpqc_keccakx4_select_backend();
    /* Lanes permuted one at a time: every busy one on the portable level
     * (its four-way permutation is four one-state ones in turn), a lone
     * one on AVX2 (one state 250 ns, four lanes 377); on AVX-512 four
     * lanes cost hardly more than one (225 against 208 ns, and measured
     * in the queue no more at all), so there always the four-way one and
     * no one-state kernel is looked up. */
    const unsigned min_x4 = !x4->single_kernel ? 5 : x4->info.needs == KPQC_FEAT_AVX2 ? 2 : 1;
    void (*const f1600)(uint64_t s[25]) = min_x4 > 1 ? kpqc_keccak_select_backend()->f1600 : NULL;
    lane_job lane[4];
    unsigned busy = 0, absorbing = 0; /* bit j: lane j has a job; it is still absorbing */
    uint32_t started = 0, done = 0;
    unsigned first = 0; /* every job before it has started */
    memset(s, 0, sizeof s); /* a lane is cleared alone only when it takes a job after being permuted */
    unsigned dirty = 0; /* bit j: lane j's state is no longer zero */
    uint32_t seen = ~(uint32_t)0; /* done when the idle lanes last looked for work */
    for (;;) {
        /* Idle lanes take the ready jobs, in the list's order; they look
         * again only once another job is done, and within one look each
         * goes on after the job the previous lane took (none before it was
         * ready). */
        if (seen != done) {
            while (first < n && (started >> first & 1)) first++;
            for (unsigned j = 0, from = first; j < 4; j++) {
                if (busy >> j & 1) continue;
                const unsigned i = ready_job(jobs, from, n, started, done);
                if (i == n) break;
                from = i + 1;
                if (dirty >> j & 1) clear_lane(s, j);
                take_job(&lane[j], &jobs[i]);
                started |= (uint32_t)1 << i;
                busy |= 1u << j;
                absorbing |= 1u << j;
            }
            seen = done;
        }
        if (busy == 0) break;
        /* One test a lane and step (the lanes' states change from step to
         * step, so each test is a branch the predictor may miss). */
        for (unsigned j = 0; j < 4; j++)
            if (absorbing >> j & 1) absorbing &= ~((unsigned)absorb_block(s, j, &lane[j]) << j);
        if ((busy & 1) + (busy >> 1 & 1) + (busy >> 2 & 1) + (busy >> 3) >= min_x4) {
            x4->f1600x4(s);
            dirty = 0xF; /* the idle lanes were permuted too */
        } else {
            dirty |= busy;
            for (unsigned j = 0; j < 4; j++) {
                if (!(busy >> j & 1)) continue;
                for (unsigned i = 0; i < 25; i++) one[i] = s[i][j];
                f1600(one);
                for (unsigned i = 0; i < 25; i++) s[i][j] = one[i];
            }
        }
        const unsigned squeezing = busy & ~absorbing;
        for (unsigned j = 0; j < 4; j++) {
            if (!(squeezing >> j & 1) || !squeeze_block(s, j, &lane[j])) continue;
            done |= (uint32_t)1 << (unsigned)(lane[j].job - jobs);
            busy &= ~(1u << j);
        }
    }
    kpqc_wipe(s, sizeof s);
    if (min_x4 > 1) kpqc_wipe(one, sizeof one); /* never written where every permutation is four-way */
}
