// CRC-32 (ISO-HDLC: the zip and gzip checksum, reflected polynomial 0xEDB88320) with the CPU's
// carry-less multiply (x86-64 PCLMULQDQ) or CRC-32 instructions (ARMv8 CRC32).
#ifndef STEPKIT_CCRC32_H
#define STEPKIT_CCRC32_H

#include <stddef.h>
#include <stdint.h>

/// Whether this CPU has what `stepkit_crc32_hardware` needs: PCLMULQDQ and SSE4.1 on x86-64, the
/// CRC32 instructions on arm64. False everywhere else. Asks the CPU each call: cache the answer.
int stepkit_crc32_hardware_available(void);

/// The CRC-32 continued from `crc` (0 to start) over `count` bytes at `bytes`; the same value as
/// zlib's `crc32(crc, bytes, count)`. Only where `stepkit_crc32_hardware_available()` is true.
uint32_t stepkit_crc32_hardware(uint32_t crc, const void *bytes, size_t count);

#endif
