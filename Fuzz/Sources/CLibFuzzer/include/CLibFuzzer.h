#ifndef LOCUS_CLIBFUZZER_H
#define LOCUS_CLIBFUZZER_H
#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver for a program that has a main of its own (SwiftPM gives every executable
// one). Provided by the runtime that `-sanitize=fuzzer` links.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
