// CRC-32 (ISO-HDLC, reflected polynomial 0xEDB88320, inverted in and out; zlib's crc32) with the
// CPU's instructions for it. HealthExport uses this where stepkit_crc32_hardware_available() is
// true and its own slicing-by-16 (SlicingCRC32.swift) elsewhere.
//
// x86-64: folding with PCLMULQDQ after Intel's "Fast CRC Computation for Generic Polynomials Using
// PCLMULQDQ Instruction" (Gopal, Ozturk, Guilford, Wolrich, Feghali, Dixon, Karakoyunlu; 2009):
// four 128-bit lanes fold 64 bytes a step, are folded into one, then 128 -> 64 -> 32 bits and a
// Barrett reduction. The constants are derived from the polynomial by
// Scripts/crc32-fold-constants.py (the same values as the Linux kernel's crc32-pclmul_asm.S).
//
// arm64: the ARMv8 CRC32X/CRC32B instructions (<arm_acle.h>), which compute exactly this CRC;
// every Apple arm64 CPU has them, on Linux the kernel's HWCAP says.
#include "ccrc32.h"

#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__aarch64__)
#include <arm_acle.h>
#if defined(__linux__)
#include <sys/auxv.h>
#endif
#endif

#if !defined(__aarch64__)
// The tail after the hardware's blocks (fewer than 16 bytes): one bit at a time, from the
// definition. `value` is the inverted (running) CRC.
static uint32_t crc32_bitwise(uint32_t value, const uint8_t *p, size_t count) {
  while (count-- > 0) {
    value ^= *p++;
    for (int bit = 0; bit < 8; bit++) value = (value >> 1) ^ (0xEDB88320u & (0u - (value & 1u)));
  }
  return value;
}
#endif

#if defined(__x86_64__)

int stepkit_crc32_hardware_available(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
}

// Folds `count` bytes (a multiple of 16, at least 64) into the inverted CRC `value`.
__attribute__((target("pclmul,sse4.1"))) static uint32_t crc32_fold(uint32_t value, const uint8_t *p, size_t count) {
  // k1, k2: x^(4*128+32), x^(4*128-32) mod P; k3, k4: x^(128+32), x^(128-32) mod P; k5: x^64 mod
  // P; all bit-reflected and shifted left by one. mu: x^64 / P; poly: P itself (33 bits each).
  const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);
  const __m128i k3k4 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
  const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124);
  const __m128i poly = _mm_set_epi64x(0x1f7011641, 0x1db710641);
  const __m128i low32 = _mm_setr_epi32(~0, 0, ~0, 0);

  __m128i x1 = _mm_loadu_si128((const __m128i *)(p + 0x00));
  __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 0x10));
  __m128i x3 = _mm_loadu_si128((const __m128i *)(p + 0x20));
  __m128i x4 = _mm_loadu_si128((const __m128i *)(p + 0x30));
  x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)value));
  p += 64;
  count -= 64;

  // Four lanes: each 128-bit lane times x^(4*128) (as its two halves times k1 and k2) plus the
  // next 64 bytes.
  while (count >= 64) {
    __m128i x5 = _mm_clmulepi64_si128(x1, k1k2, 0x00);
    __m128i x6 = _mm_clmulepi64_si128(x2, k1k2, 0x00);
    __m128i x7 = _mm_clmulepi64_si128(x3, k1k2, 0x00);
    __m128i x8 = _mm_clmulepi64_si128(x4, k1k2, 0x00);
    x1 = _mm_clmulepi64_si128(x1, k1k2, 0x11);
    x2 = _mm_clmulepi64_si128(x2, k1k2, 0x11);
    x3 = _mm_clmulepi64_si128(x3, k1k2, 0x11);
    x4 = _mm_clmulepi64_si128(x4, k1k2, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), _mm_loadu_si128((const __m128i *)(p + 0x00)));
    x2 = _mm_xor_si128(_mm_xor_si128(x2, x6), _mm_loadu_si128((const __m128i *)(p + 0x10)));
    x3 = _mm_xor_si128(_mm_xor_si128(x3, x7), _mm_loadu_si128((const __m128i *)(p + 0x20)));
    x4 = _mm_xor_si128(_mm_xor_si128(x4, x8), _mm_loadu_si128((const __m128i *)(p + 0x30)));
    p += 64;
    count -= 64;
  }

  // The four lanes into one: each times x^128 (k3, k4) plus the next.
  __m128i x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
  x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), x2), x5);
  x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
  x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), x3), x5);
  x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
  x1 = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x1, k3k4, 0x11), x4), x5);

  // The remaining 16-byte blocks, one lane.
  while (count >= 16) {
    x5 = _mm_clmulepi64_si128(x1, k3k4, 0x00);
    x1 = _mm_clmulepi64_si128(x1, k3k4, 0x11);
    x1 = _mm_xor_si128(_mm_xor_si128(x1, x5), _mm_loadu_si128((const __m128i *)p));
    p += 16;
    count -= 16;
  }

  // 128 bits to 64: the low half times x^96 (k4) into the high half ...
  x2 = _mm_clmulepi64_si128(x1, k3k4, 0x10);
  x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
  // ... then the low 32 bits times x^64 (k5) into the rest.
  x2 = _mm_srli_si128(x1, 4);
  x1 = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), k5, 0x00);
  x1 = _mm_xor_si128(x1, x2);

  // Barrett reduction of the 64 bits left to the 32-bit remainder.
  x2 = _mm_clmulepi64_si128(_mm_and_si128(x1, low32), poly, 0x10);
  x2 = _mm_clmulepi64_si128(_mm_and_si128(x2, low32), poly, 0x00);
  x1 = _mm_xor_si128(x1, x2);
  return (uint32_t)_mm_extract_epi32(x1, 1);
}

uint32_t stepkit_crc32_hardware(uint32_t crc, const void *bytes, size_t count) {
  const uint8_t *p = bytes;
  uint32_t value = ~crc;
  if (count >= 64) {
    size_t blocks = count & ~(size_t)15;
    value = crc32_fold(value, p, blocks);
    p += blocks;
    count -= blocks;
  }
  return ~crc32_bitwise(value, p, count);
}

#elif defined(__aarch64__)

int stepkit_crc32_hardware_available(void) {
#if defined(__APPLE__)
  return 1;
#elif defined(__linux__)
  return (getauxval(AT_HWCAP) & (1ul << 7)) != 0;  // HWCAP_CRC32
#else
  return 0;
#endif
}

__attribute__((target("crc"))) uint32_t stepkit_crc32_hardware(uint32_t crc, const void *bytes, size_t count) {
  const uint8_t *p = bytes;
  uint32_t value = ~crc;
  while (count > 0 && ((uintptr_t)p & 7) != 0) {
    value = __crc32b(value, *p++);
    count--;
  }
  // Four words a step: the instruction's latency is three cycles, its throughput one a cycle,
  // but the chain through `value` serializes them; unrolling still saves the loop overhead.
  while (count >= 32) {
    const uint64_t *words = (const uint64_t *)(const void *)p;
    value = __crc32d(value, words[0]);
    value = __crc32d(value, words[1]);
    value = __crc32d(value, words[2]);
    value = __crc32d(value, words[3]);
    p += 32;
    count -= 32;
  }
  while (count >= 8) {
    value = __crc32d(value, *(const uint64_t *)(const void *)p);
    p += 8;
    count -= 8;
  }
  while (count > 0) {
    value = __crc32b(value, *p++);
    count--;
  }
  return ~value;
}

#else

int stepkit_crc32_hardware_available(void) { return 0; }

uint32_t stepkit_crc32_hardware(uint32_t crc, const void *bytes, size_t count) {
  return ~crc32_bitwise(~crc, bytes, count);
}

#endif
