/* fuzz_yaml_load.c — libFuzzer target: receipts from YAML bytes (see fuzz_receipt_load.h). */
#include "fuzz_receipt_load.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return fuzz_receipt_load(data, size, MCPP_FORMAT_YAML);
}
