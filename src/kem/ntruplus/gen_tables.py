#!/usr/bin/env python3
"""Writes ntruplus_tables.c: the NTT twiddle factors of NTRU+768/864/1152.

The forward twiddles are those of the NTRU+ specification, listed below as
plain residues mod q in the order the forward transform consumes them:
index 1 is the primitive sixth root of unity of the first split, then one
(w, w^2) pair per block of each radix-3 layer, then one twiddle per block of
each radix-2 layer (the last layer's twiddles also define the base rings
X^d - z and X^d + z).  Everything else is derived here: Montgomery forms,
the inverses the inverse transform uses (same indices), and the scaling
constants.  The script checks that the transform it describes multiplies
correctly before it writes anything.

    python3 gen_tables.py > ntruplus_tables.c
"""
import random
import sys

Q = 3457
R = (1 << 16) % Q
OMEGA = 2734  # the primitive cube root of unity of the radix-3 layers
# n: (radix-3 layers, first radix-2 stride, base degree d)
SHAPE = {768: (1, 64, 4), 864: (2, 24, 3), 1152: (2, 32, 4)}

FORWARD_TEXT = {
768: """
1 2735 1886 3200 2333 1571 2775 1510 2192 2424 2571 147 1742 813 109 2339 624
704 1262 1867 1611 222 1484 256 2637 3241 3336 2700 3109 937 893 387 2854 1713
2352 1058 2663 2118 3011 1181 2260 511 2863 2255 3320 200 3441 957 484 3028
864 177 874 11 2903 1591 470 2569 1039 729 963 2682 62 1045 3342 1909 3166
2065 978 2433 1603 2429 3077 2851 1293 661 1428 1877 2892 2465 2888 1840 1927
1199 901 1637 837 2008 176 3301 1257 1950 2832 4 2627 3407 22 1709 3182 1108
354 1729 2489 858 1221 3239 294 2725 2362 892 1588 2678 1022 2394 1053 1188
417 2066 3430 1831 1409 1501 1401 251 673 582 230 3096 1907 1531 2090 3333
1458 1379 2517 1776 400 274 1914 32 1408 2209 3142 1772 2702 2162 795 631 108
3047 2107 1668 1310 2453 910 2179 2537 1444 1129 2692 2011 496 790 714 303
3267 1398 2375 2715 3329 2361 1600 1260 3283 1535 2175 2281 2928 872 1427 562
3116 3346 2534 415 25 3455 1416 78 88 2482 2357""",
864: """
1 2735 1937 1124 867 1520 450 1994 1078 532 1722 2635 909 58 1901 1236 298
2379 157 727 570 3350 1200 1307 161 1296 1135 1928 1155 2684 976 556 3037 2990
1845 2312 3104 2437 2338 2858 2505 99 2805 1622 783 1244 592 839 725 1664 36
1289 2014 1628 172 781 1172 96 268 3066 445 473 3193 3223 211 737 1292 2088
2372 2731 566 3173 81 2036 1251 716 1859 2512 287 2690 2803 206 2575 1261 1542
2781 1921 1467 1332 2752 3287 635 2146 1745 2799 831 1315 1087 1488 2576 6 791
1245 3382 1162 3387 2582 2760 2346 1608 2815 1788 1475 286 118 576 1032 1229
3263 928 104 1035 838 2157 1704 3396 966 2899 1593 862 404 2558 2492 1266 1997
3420 942 3192 1873 2053 2670 2838 905 1195 9 2915 139 1616 3061 3106 798 1493
3092 855 2045 2834 2232 407 3359 3213 1743 3352 416 683 2819 1163 2438 1061
1938 3132 1123 3431 1153 472 2443 1144 3219 889 2470 2975 101 2368 1944 466
1970 1589 849 3031 3202 2681 671 1459 2476 309 2134 163 1680 232 2900 3199
1758 144 1800 2224 2159 578 311 2397 148 1074 3054 1607 402 1142 447 1889 280
1191 2788 3414 1508 2908 1780 1892 936 2401 628 2128 300 1523 24 3164 67 2495
1803 891 509 844 179 2280 372 644 1136 2264 917 2777 1871 637 1046 770 2711
753 2374 690 1711 1438 2904 2574 1062 1727 133 825 1670 66 593 1547 324 1230
1564 1072 3029 1192 1686 1023 688 3124 1870 3386 841 824 3068 1148 522 3134
3288 1343 1231 384""",
1152: """
1 2735 1937 1124 867 1520 450 1994 1078 532 1722 2635 909 58 1901 1236 298
2379 157 727 570 3350 1200 1307 161 1296 1135 1928 1155 2684 976 556 3037 2990
1845 2312 3104 2437 2338 2858 2505 99 2805 1622 783 1244 592 839 725 1664 36
1289 2014 1628 172 781 1172 96 268 3066 445 473 3193 3223 211 737 1292 2088
2372 2731 566 3173 81 2036 1251 716 1859 2512 287 2690 2803 206 2575 1261 1542
2781 1921 1467 1332 2752 3287 635 2146 1745 2799 831 1315 1087 1488 2576 6 791
1245 3382 1162 3387 2582 2760 2346 1608 2815 1788 1475 286 118 576 1032 1229
3263 928 104 1035 838 2157 1704 3396 966 2899 1593 862 404 2558 2492 1266 1997
3420 942 3192 1873 2053 2670 2838 905 1195 9 2915 139 1616 3061 3106 798 1493
3092 855 2045 2834 2232 407 3359 3213 1743 3352 416 683 2819 1163 2438 1061
1938 3132 1123 3431 1153 472 2443 1144 3219 889 2470 2975 101 2368 1944 466
1970 1589 849 3031 3202 2681 671 1459 2476 309 2134 163 1680 232 2900 3199
1758 144 1800 2224 2159 578 311 2397 148 1074 3054 1607 402 1142 447 1889 280
1191 2788 3414 1508 2908 1780 1892 936 2401 628 2128 300 1523 24 3164 67 2495
1803 891 509 844 179 2280 372 644 1136 2264 917 2777 1871 637 1046 770 2711
753 2374 690 1711 1438 2904 2574 1062 1727 133 825 1670 66 593 1547 324 1230
1564 1072 3029 1192 1686 1023 688 3124 1870 3386 841 824 3068 1148 522 3134
3288 1343 1231 384""",
}
FORWARD = {n: [int(x) for x in t.split()] for n, t in FORWARD_TEXT.items()}


def centred(x):
    x %= Q
    return x - Q if x > Q // 2 else x


def mont(x):
    return centred(x * R)


def radix3_strides(n):
    return [n // 6 // 3**j for j in range(SHAPE[n][0])]


def radix2_strides(n):
    _, s, d = SHAPE[n]
    out = []
    while s >= d:
        out.append(s)
        s //= 2
    return out


def ntt(a, n):
    z = FORWARD[n]
    a = a[:]
    h = n // 2
    for i in range(h):
        t = z[1] * a[i + h]
        a[i], a[i + h] = (a[i] + t) % Q, (a[i] + a[i + h] - t) % Q
    k = 2
    for s in radix3_strides(n):
        for st in range(0, n, 3 * s):
            w1, w2 = z[k], z[k + 1]
            k += 2
            for i in range(st, st + s):
                t1, t2 = w1 * a[i + s], w2 * a[i + 2 * s]
                t3 = OMEGA * (t1 - t2)
                x = a[i]
                a[i], a[i + s], a[i + 2 * s] = (x + t1 + t2) % Q, (x - t2 + t3) % Q, (x - t1 - t3) % Q
    for s in radix2_strides(n):
        for st in range(0, n, 2 * s):
            w = z[k]
            k += 1
            for i in range(st, st + s):
                t = w * a[i + s]
                a[i], a[i + s] = (a[i] + t) % Q, (a[i] - t) % Q
    if k != len(z):
        fail("twiddle count mismatch for %d" % n)
    return a


def base_zetas(n):
    d = SHAPE[n][2]
    nb = n // (2 * d)
    return FORWARD[n][len(FORWARD[n]) - nb:]


def basemul(a, b, n):
    d = SHAPE[n][2]
    r = [0] * n
    for i, w in enumerate(base_zetas(n)):
        for half, zz in ((0, w), (1, -w)):
            o = 2 * d * i + d * half
            for x in range(d):
                for y in range(d):
                    v = a[o + x] * b[o + y]
                    if x + y >= d:
                        r[o + x + y - d] += v * zz
                    else:
                        r[o + x + y] += v
    return [x % Q for x in r]


def schoolbook(a, b, n):
    c = [0] * (2 * n)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            c[i + j] += x * y
    for k in range(2 * n - 1, n - 1, -1):  # X^n = X^(n/2) - 1
        v, c[k] = c[k], 0
        c[k - n // 2] += v
        c[k - n] -= v
    return [x % Q for x in c[:n]]


def scale(n):
    return pow(2 ** len(radix2_strides(n)) * 3 ** len(radix3_strides(n)), -1, Q)


def self_check():
    rnd = random.Random(1)
    for n in FORWARD:
        z = FORWARD[n]
        if pow(z[1], 6, Q) != 1 or pow(z[1], 3, Q) == 1 or pow(z[1], 2, Q) == 1:
            fail("first twiddle is not a primitive sixth root")
        a = [rnd.randrange(Q) for _ in range(n)]
        b = [rnd.randrange(-1, 2) % Q for _ in range(n)]
        if basemul(ntt(a, n), ntt(b, n), n) != ntt(schoolbook(a, b, n), n):
            fail("transform does not multiply for n=%d" % n)
    if pow(OMEGA, 3, Q) != 1 or OMEGA == 1:
        fail("omega")


def emit_array(name, values):
    out = ["const int16_t %s[%d] = {" % (name, len(values))]
    for i in range(0, len(values), 10):
        out.append("    " + ", ".join("%d" % v for v in values[i:i + 10]) + ",")
    out.append("};")
    return "\n".join(out)


def layer_start(n, stride):
    """Index of the first twiddle of the radix-2 layer with this stride."""
    k = 2 + sum(2 * (n // (3 * s)) for s in radix3_strides(n))
    for s in radix2_strides(n):
        if s == stride:
            return k
        k += n // (2 * s)
    fail("no layer of stride %d" % stride)


def times_qinv(values):
    """Each twiddle times q^-1 mod 2^16 (signed), the vector code's second
    factor of a Montgomery product by it."""
    qinv = pow(Q, -1, 1 << 16)
    return [((v * qinv + (1 << 15)) % (1 << 16)) - (1 << 15) for v in values]


def emit_tail(name, t):
    print(emit_array(name, t))
    print(emit_array(name + "_qinv", times_qinv(t)))


def emit_avx2(n):
    """Twiddles laid out for the AVX2 code (see ntruplus_avx2.c)."""
    z = FORWARD[n]
    d = SHAPE[n][2]
    print("#ifdef KPQC_ISA_AVX2")
    for name, f in (("fwd", lambda x: x), ("inv", lambda x: pow(x, -1, Q))):
        if d == 4:
            # Strides 8 and 4, two 16-coefficient blocks per step.
            k8, k4 = layer_start(n, 8), layer_start(n, 4)
            t = []
            for pair in range(n // 32):
                t += [z[k8 + 2 * pair]] * 8 + [z[k8 + 2 * pair + 1]] * 8
                for j in range(4):
                    t += [z[k4 + 4 * pair + j]] * 4
            emit_tail("kpqc_ntruplus_avx_tail_%s%d" % (name, n), [mont(f(x)) for x in t])
        else:
            # Strides 24, 12, 6, 3 (ring strides 8, 4, 2, 1 inside blocks of
            # 48), two blocks per step: before layer L lane l of the first
            # vector holds the lower ring of a pair, ring rings[L][l % 8] of
            # block 2 * pair + l // 8.
            rings = ([0, 1, 2, 3, 4, 5, 6, 7], [0, 1, 2, 3, 8, 9, 10, 11],
                     [0, 1, 4, 5, 8, 9, 12, 13], [0, 2, 4, 6, 8, 10, 12, 14])
            t = []
            for pair in range(n // 96):
                for L, stride in enumerate((24, 12, 6, 3)):
                    k = layer_start(n, stride)
                    for lane in range(16):
                        blk = 2 * pair + lane // 8
                        ring = rings[L][lane % 8]
                        t.append(z[k + 2 ** L * blk + ring // (2 * (8 >> L))])
            emit_tail("kpqc_ntruplus_avx_tail_%s%d" % (name, n), [mont(f(x)) for x in t])
        print()
    # Base-ring twiddles, 16 blocks per vector, in the lane order the
    # basemul transposition produces (natural order for d = 3).
    bz = base_zetas(n)
    order = [0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15] if d == 4 else list(range(16))
    t = []
    for g in range(n // d // 16):
        for lb in order:
            blk = 16 * g + lb
            w = bz[blk // 2]
            t.append(mont(w if blk % 2 == 0 else -w))
    print(emit_array("kpqc_ntruplus_avx_base%d" % n, t))
    print("#endif")
    print()


def main():
    self_check()
    print("/* Generated by gen_tables.py: do not edit. */")
    print('#include "ntruplus.h"')
    print()
    for n in sorted(FORWARD):
        z = FORWARD[n]
        r3, s2, d = SHAPE[n]
        print(emit_array("kpqc_ntruplus_zetas%d" % n, [mont(x) for x in z]))
        print()
        print(emit_array("kpqc_ntruplus_zinv%d" % n, [mont(pow(x, -1, Q)) for x in z]))
        print()
        emit_avx2(n)
        S = scale(n)
        c0 = pow(2 * z[1] - 1, -1, Q)
        print("const kpqc_ntruplus_params kpqc_ntruplus_params%d = {" % n)
        print("    .n = %d, .d = %d, .polybytes = %d, .msgbytes = %d," % (n, d, 3 * n // 2, n // 8))
        print("    .nzetas = %d, .r3_layers = %d, .r2_first = %d," % (len(z), r3, s2))
        print("    .zeta1 = %d, .c0 = %d, .s_half = %d, .s = %d," %
              (mont(z[1]), mont(c0), mont(S * pow(2, -1, Q)), mont(S)))
        print("    .zetas = kpqc_ntruplus_zetas%d, .zinv = kpqc_ntruplus_zinv%d," % (n, n))
        print("};")
        print()


if __name__ == "__main__":
    main()
