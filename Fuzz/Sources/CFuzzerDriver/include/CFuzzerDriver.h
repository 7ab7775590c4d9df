#ifndef STEPKIT_CFUZZERDRIVER_H
#define STEPKIT_CFUZZERDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (in the runtime linked by -sanitize=fuzzer). SwiftPM gives
/// Linux executables their own `main`, so each fuzz target calls this from its
/// main.swift instead of relying on libFuzzer's `main`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
