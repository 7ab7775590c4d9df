#!/usr/bin/env python3
"""Derives the folding constants of Sources/CCRC32/crc32.c from the CRC-32 polynomial.

Intel, "Fast CRC Computation for Generic Polynomials Using PCLMULQDQ Instruction" (Gopal et al.,
2009), bit-reflected form: k = reflect32(x^n mod P(x)) << 1, mu = reflect33(floor(x^64 / P(x))),
P' = reflect33(P(x)). Prints each value; crc32.c must hold exactly these.
"""
P = 0x104C11DB7  # x^32 + x^26 + ... + 1 (reflected: 0xEDB88320)


def reflect(value, bits):
    return int(format(value, f"0{bits}b")[::-1], 2)


def divide(n):
    """Quotient and remainder of x^n by P(x) over GF(2)."""
    remainder, quotient = 1 << n, 0
    for i in range(n, 31, -1):
        if remainder >> i & 1:
            remainder ^= P << (i - 32)
            quotient |= 1 << (i - 32)
    return quotient, remainder


def k(n):
    return reflect(divide(n)[1], 32) << 1


print(f"k1 = x^(4*128+32) mod P = {k(4 * 128 + 32):#011x}")
print(f"k2 = x^(4*128-32) mod P = {k(4 * 128 - 32):#011x}")
print(f"k3 = x^(128+32) mod P   = {k(128 + 32):#011x}")
print(f"k4 = x^(128-32) mod P   = {k(128 - 32):#011x}")
print(f"k5 = x^64 mod P         = {k(64):#011x}")
print(f"mu = x^64 / P           = {reflect(divide(64)[0], 33):#011x}")
print(f"P'                      = {reflect(P, 33):#011x}")
