/* fuzz_json_diff.c — libFuzzer target: the direct JSON reader and the cJSON
 * tree path load any bytes to the same result (json_diff_check.h); the first
 * byte picks default or small limits so the limit paths are compared too. */
#include "json_diff_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char why[8192];
    mcpp_limits small;
    mcpp_limits_default(&small);
    small.max_depth = 8;
    small.max_array_items = 4;
    small.max_string_bytes = 70;
    const mcpp_limits *limits = size && data[0] == ' ' ? &small : NULL;
    if (json_diff_check(data, size, limits, NULL, why, sizeof why) != 0) {
        fprintf(stderr, "the direct JSON reader and the tree path disagree: %s\n", why);
        abort();
    }
    return 0;
}
