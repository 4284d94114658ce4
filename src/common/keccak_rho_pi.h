/*
 * Theta's D and the rho/pi step of Keccak-f[1600], written once for every
 * vector round: lane (x,y) is A##(x + 5y), pi sends (x,y) to (y, 2x+3y),
 * so output row y' takes the lanes (3y'+x mod 5, x), each rotated by its
 * rho offset.
 *
 * The including file defines the vector type V, XOR(a, b), ROL(v, n), and
 * passes the rotation it wants as RHO(v, n) (n constant): ROL itself, or
 * one that turns some offsets into other instructions.  The rows set
 * b0..b4 from A and d0..d4.
 */
#ifndef KPQC_KECCAK_RHO_PI_H
#define KPQC_KECCAK_RHO_PI_H

/* A rho rotation (n constant) with the two offsets that are whole bytes,
 * 8 (lane (4,3)) and 56 (lane (3,4)), done by BYTES(v, k), which rotates
 * each lane left by k bytes: a byte shuffle where that is cheaper than
 * the shifts. */
#define KECCAK_RHO_BY_BYTES(v, n, ROL, BYTES) \
    ((n) == 8 ? BYTES((v), 1) : (n) == 56 ? BYTES((v), 7) : ROL((v), (n)))

/* D from the column parities c0..c4, with ROL1(v) a rotation by one */
#define KECCAK_THETA_D(ROL1)                                                                    \
    V d0 = XOR(c4, ROL1(c1)), d1 = XOR(c0, ROL1(c2)), d2 = XOR(c1, ROL1(c3));                  \
    V d3 = XOR(c2, ROL1(c4)), d4 = XOR(c3, ROL1(c0))

/* y'=0: lanes (0,0),(1,1),(2,2),(3,3),(4,4) */
#define KECCAK_RHO_PI_ROW0(A, RHO)                                                              \
    do {                                                                                        \
        b0 = XOR(A##00, d0);                                                                    \
        b1 = RHO(XOR(A##06, d1), 44);                                                           \
        b2 = RHO(XOR(A##12, d2), 43);                                                           \
        b3 = RHO(XOR(A##18, d3), 21);                                                           \
        b4 = RHO(XOR(A##24, d4), 14);                                                           \
    } while (0)
/* y'=1: lanes (3,0),(4,1),(0,2),(1,3),(2,4) */
#define KECCAK_RHO_PI_ROW1(A, RHO)                                                              \
    do {                                                                                        \
        b0 = RHO(XOR(A##03, d3), 28);                                                           \
        b1 = RHO(XOR(A##09, d4), 20);                                                           \
        b2 = RHO(XOR(A##10, d0), 3);                                                            \
        b3 = RHO(XOR(A##16, d1), 45);                                                           \
        b4 = RHO(XOR(A##22, d2), 61);                                                           \
    } while (0)
/* y'=2: lanes (1,0),(2,1),(3,2),(4,3),(0,4) */
#define KECCAK_RHO_PI_ROW2(A, RHO)                                                              \
    do {                                                                                        \
        b0 = RHO(XOR(A##01, d1), 1);                                                            \
        b1 = RHO(XOR(A##07, d2), 6);                                                            \
        b2 = RHO(XOR(A##13, d3), 25);                                                           \
        b3 = RHO(XOR(A##19, d4), 8);                                                            \
        b4 = RHO(XOR(A##20, d0), 18);                                                           \
    } while (0)
/* y'=3: lanes (4,0),(0,1),(1,2),(2,3),(3,4) */
#define KECCAK_RHO_PI_ROW3(A, RHO)                                                              \
    do {                                                                                        \
        b0 = RHO(XOR(A##04, d4), 27);                                                           \
        b1 = RHO(XOR(A##05, d0), 36);                                                           \
        b2 = RHO(XOR(A##11, d1), 10);                                                           \
        b3 = RHO(XOR(A##17, d2), 15);                                                           \
        b4 = RHO(XOR(A##23, d3), 56);                                                           \
    } while (0)
/* y'=4: lanes (2,0),(3,1),(4,2),(0,3),(1,4) */
#define KECCAK_RHO_PI_ROW4(A, RHO)                                                              \
    do {                                                                                        \
        b0 = RHO(XOR(A##02, d2), 62);                                                           \
        b1 = RHO(XOR(A##08, d3), 55);                                                           \
        b2 = RHO(XOR(A##14, d4), 39);                                                           \
        b3 = RHO(XOR(A##15, d0), 41);                                                           \
        b4 = RHO(XOR(A##21, d1), 2);                                                            \
    } while (0)

#endif
