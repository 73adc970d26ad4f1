// CRC-32C by the processor's own instruction (SSE 4.2's crc32 on x86-64): eight bytes a
// step, a tenth of the instructions of the table-driven code in TripsPlatform's CRC32C.swift,
// which every journal record and snapshot record is checked with. Swift has no way to ask
// for that instruction, so it is here, in C.
#ifndef TRIPS_CRC32C_H
#define TRIPS_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Whether this processor has the instruction (checked once by the caller): 0 on any
/// processor without it, and on any architecture but x86-64.
int trips_crc32c_hardware_available(void);

/// Continues the register value `crc` (not inverted: the caller inverts before and after)
/// over `count` bytes. Only when `trips_crc32c_hardware_available()` said 1.
uint32_t trips_crc32c_hardware(uint32_t crc, const void *_Nullable bytes, size_t count);

#endif
