/*
 * hash.c — the exported form of the core's one hash (util/hash.h), for file
 * formats built on the library (mcpp-step's token files).
 */
#include "mcpp_receipts/common.h"
#include "util/hash.h"

uint64_t mcpp_fnv1a64(const void *bytes, size_t len)
{
    return mcpp_fnv1a(bytes, len, MCPP_FNV_OFFSET);
}
