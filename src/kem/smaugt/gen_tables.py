#!/usr/bin/env python3
"""Writes smaugt_ntt_tables.c: the constants of the exact product by NTT.

SMAUG-T's rings are modulo powers of two, which have no NTT.  But a product
of a public polynomial (centred, |a| <= 2^10) with ternary secrets, summed
over at most four pairs, has integer coefficients below 2^20 in absolute
value; so it is computed exactly modulo two NTT-friendly primes whose
product exceeds 2^21 and recombined by the Chinese remainder theorem.
7681 and 10753 are both 1 mod 512: Z_q has the 512th roots of unity a full
negacyclic transform of length 256 needs.

The transform is the usual Cooley-Tukey one (twiddle k = psi^brv8(k), for
the blocks of the layers of length 128, 64, ..., 1 in turn), with the
coefficients held as a 16 x 16 matrix: vector v, lane l is coefficient
16 v + l.  The four layers of length >= 16 pair whole vectors and take one
twiddle per pair; then the matrix is transposed (vector c, lane r holds
coefficient 16 r + c) and the four layers of length <= 8 pair whole
vectors again, now with a twiddle per lane.  This script lays the twiddles
out that way, in Montgomery form (times 2^16 mod q) with their products by
q^-1 mod 2^16, as vectors of 16 lanes per prime (AVX2: one prime per
register) and of 32 lanes, the first prime's 16 then the second's (AVX-512:
both primes in one register), checks the transform it describes against a
schoolbook product, and writes the tables.

    python3 gen_tables.py > smaugt_ntt_tables.c
"""
import random

PRIMES = (7681, 10753)
N = 256
R = 1 << 16


def brv8(k):
    return int(format(k, "08b")[::-1], 2)


def centred(x, m):
    x %= m
    return x - m if x > m // 2 else x


def s16(x):
    x &= 0xFFFF
    return x - 0x10000 if x >= 0x8000 else x


def root512(q):
    for g in range(2, q):
        psi = pow(g, (q - 1) // 512, q)
        if pow(psi, 256, q) == q - 1:
            return psi
    raise ValueError(q)


def layout(tw):
    """tw[k] for k in 1..255 -> 15 scalars and 15 lane vectors."""
    hi = [tw[k] for k in range(1, 16)]
    lo = [[tw[16 + r] for r in range(16)]]
    for log_cb in (1, 2, 3):  # layers of length 4, 2, 1
        nb = 1 << log_cb
        base = 16 << log_cb
        for cb in range(nb):
            lo.append([tw[base + nb * r + cb] for r in range(16)])
    return hi, lo


def ntt(a, q, zeta):
    a = list(a)
    k, length = 1, 128
    while length >= 1:
        for start in range(0, N, 2 * length):
            z = zeta[k]
            k += 1
            for j in range(start, start + length):
                t = z * a[j + length] % q
                a[j + length] = (a[j] - t) % q
                a[j] = (a[j] + t) % q
        length //= 2
    return a


def intt(a, q, zinv):
    a = list(a)
    length = 1
    while length <= 128:
        k = N // (2 * length)  # the first twiddle index of this layer
        for start in range(0, N, 2 * length):
            z = zinv[k]
            k += 1
            for j in range(start, start + length):
                u, v = a[j], a[j + length]
                a[j] = (u + v) % q
                a[j + length] = (u - v) * z % q
        length *= 2
    n_inv = pow(N, -1, q)
    return [x * n_inv % q for x in a]


def check(q, zeta, zinv):
    rnd = random.Random(q)
    a = [rnd.randrange(-1024, 1025) for _ in range(N)]
    s = [rnd.randrange(-1, 2) for _ in range(N)]
    want = [0] * N
    for i in range(N):
        for j in range(N):
            if i + j < N:
                want[i + j] += a[i] * s[j]
            else:
                want[i + j - N] -= a[i] * s[j]
    fa, fs = ntt(a, q, zeta), ntt(s, q, zeta)
    got = intt([x * y % q for x, y in zip(fa, fs)], q, zinv)
    assert got == [w % q for w in want], q


def barrett_ok(q, v):
    """x - round(x v / 2^26) q, computed as the vector code does, stays in
    [-q/2, q/2] for every 16-bit x."""
    return all(abs(x - ((((x * v) >> 16) + 512) >> 10) * q) <= q // 2 for x in range(-32768, 32768))


def fold_bound(q, b):
    """The largest |x - round(x f / 2^15) q|, f = round(2^15 / q), as
    fold() computes it (vpmulhrsw rounds half up), over |x| <= b."""
    f = round((1 << 15) / q)
    return max(abs(x - q * ((x * f + (1 << 14)) >> 15)) for x in range(-b, b + 1))


def ranges_ok(q):
    """The bounds smaugt_ntt_core.h relies on: a layer adds at most
    |x| q / 2^17 + q/2 + 1; four forward layers from 2^10, then the fold at
    the transpose and four more, the inverse's passes from a folded
    pointwise sum and a pointwise sum of four products (one factor below
    2^15, the other at most q/2) stay below 2^15."""
    grow = lambda b: b + b * (q // 2) // (1 << 16) + q // 2 + 1
    b = 1 << 10
    for _ in range(4):
        b = grow(b)
    assert b < 1 << 15, (q, b)
    b = fold_bound(q, b)
    for _ in range(4):
        b = grow(b)
    assert b < 1 << 15, (q, b)
    mm = lambda b: b * (q // 2) // (1 << 16) + q // 2 + 1  # a Montgomery product of b
    assert 4 * mm((1 << 15) - 1) < 1 << 15, q  # a pointwise sum of four terms, unreduced
    b = fold_bound(q, (1 << 15) - 1)  # the pointwise sums, folded
    for _ in range(4):  # two layers per pass, on any mix of the last pass's outputs
        top = max(4 * b, 2 * mm(2 * b))
        assert top < 1 << 15, (q, top)
        b = max(fold_bound(q, top), mm(top))
    return True


def crt_consts():
    """The recombination's constants, c = q1^-1 mod q2 (centred) and
    c15 = round(2^15 c / q2), checked for every difference d = x2 - x1 of
    the inverse transforms' outputs (x1 in (-q1, q1), x2 in (-q2, q2)):
    d c - q2 round(d c15 / 2^15), as the vector code computes it with
    16-bit products, is congruent to d c modulo q2 and so small that it
    can only be the true quotient t = (X - x1) / q1 of a product X below
    2^21, whichever representative x1 is: no centring needed."""
    q1, q2 = PRIMES
    c = centred(pow(q1, -1, q2), q2)
    c15 = round((1 << 15) * c / q2)
    t_max = ((1 << 21) + q1 - 1) // q1  # |t| for |X| < 2^21, |x1| < q1
    for d in range(-(q1 + q2 - 2), q1 + q2 - 1):
        r = d * c - q2 * ((d * c15 + (1 << 14)) >> 15)
        assert (r - d * c) % q2 == 0 and abs(r) + t_max < q2 and abs(r) < 1 << 15, d
    return c, c15


def consts(q):
    """Per prime: the scalars and the 30 twiddle vectors of each direction
    (0-14 one value per pair of vectors, 15-29 one per lane), with their
    products by q^-1 mod 2^16."""
    psi = root512(q)
    zeta = [pow(psi, brv8(k), q) for k in range(N)]
    zinv = [pow(z, -1, q) for z in zeta]
    check(q, zeta, zinv)
    qinv = pow(q, -1, R)
    v = round((1 << 26) / q)
    assert barrett_ok(q, v), q
    assert ranges_ok(q)
    scale = centred(R * R * pow(N, -1, q), q)  # montmul by it: x * 2^16 / 256
    tw = []
    for table in (zeta, zinv):
        hi, lo = layout([centred(t * R, q) for t in table])
        vecs = [[h] * 16 for h in hi] + lo
        tw.append((vecs, [[s16(x * qinv) for x in vec] for vec in vecs]))
    last = centred(zinv[1] * R * R * pow(N, -1, q), q)  # montmul by it: x / z_1 * 2^16 / 256
    return {"q": q, "qinv": s16(qinv), "barrett": v, "fold": round((1 << 15) / q), "scale": scale, "scale_qinv": s16(scale * qinv), "tw": tw,
            "last": last, "last_qinv": s16(last * qinv)}


def emit(out, name, lanes_of):
    """lanes_of(field) -> list of lanes for a scalar; twiddles likewise."""
    out.append(f"const {name} = {{")
    for f in ("q", "qinv", "barrett", "fold", "scale", "scale_qinv"):
        out.append(f"    .{f} = {{{', '.join(str(x) for x in lanes_of(lambda c: [c[f]] * 16))}}},")
    out.append("    .tw = {")
    for d in range(2):
        out.append("        {")
        for w in range(2):
            out.append("            {")
            for k in range(30):
                vals = lanes_of(lambda c: c["tw"][d][w][k])
                out.append("                {" + ", ".join(str(x) for x in vals) + "},")
            out.append("            },")
        out.append("        },")
    out.append("    },")
    for f in ("last", "last_qinv"):
        out.append(f"    .{f} = {{{', '.join(str(x) for x in lanes_of(lambda c: [c[f]] * 16))}}},")
    out.append("};")


def main():
    cs = [consts(q) for q in PRIMES]
    out = ["/* Generated by gen_tables.py: do not edit. */", '#include "smaugt_ntt.h"', ""]
    for p in range(2):
        emit(out, f"smaugt_ntt_consts16 kpqc_smaugt_ntt16_q{PRIMES[p]}", lambda f, p=p: f(cs[p]))
        out.append("")
    emit(out, "smaugt_ntt_consts32 kpqc_smaugt_ntt32", lambda f: f(cs[0]) + f(cs[1]))
    c, c15 = crt_consts()
    out.append("")
    out.append("/* q1^-1 mod q2, centred, and round(2^15 c / q2). */")
    out.append(f"const int16_t kpqc_smaugt_ntt_crt[2] = {{{c}, {c15}}};")
    print("\n".join(out))


if __name__ == "__main__":
    main()
