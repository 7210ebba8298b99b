/*
 * mcpp_tokenize.c — writes a byte-level token file (vocab 256) from text files.
 *
 *   mcpp-tokenize --name NAME --out FILE INPUT...
 *
 * The build uses it to make BUILD/kernels/data/mcpp_sources.tok, the small
 * real corpus (the project's own C sources; kernels/CMakeLists.txt), so the
 * step runner has a real data path that works offline. Inputs are concatenated in the
 * order given, each followed by a newline byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_kernels/tokens.h"
#include "mcpp_receipts.h"

#define TOKENIZE_MAX_BYTES (1u << 20) /* the shipped corpus stays <= 1 MiB */

int main(int argc, char **argv)
{
    const char *name = "bytes", *out = NULL;
    int first = 1;
    while (first < argc && strncmp(argv[first], "--", 2) == 0) {
        if (strcmp(argv[first], "--name") == 0 && first + 1 < argc) {
            name = argv[first + 1];
            first += 2;
        } else if (strcmp(argv[first], "--out") == 0 && first + 1 < argc) {
            out = argv[first + 1];
            first += 2;
        } else {
            break;
        }
    }
    if (!out || first >= argc) {
        fprintf(stderr, "usage: mcpp-tokenize --name NAME --out FILE INPUT...\n");
        return 3;
    }
    int32_t *tokens = malloc(TOKENIZE_MAX_BYTES * sizeof(int32_t));
    if (!tokens) return 4;
    size_t count = 0;
    for (int i = first; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "mcpp-tokenize: cannot open %s\n", argv[i]);
            free(tokens);
            return 3;
        }
        int c;
        while ((c = fgetc(f)) != EOF && count < TOKENIZE_MAX_BYTES - 1) tokens[count++] = c;
        fclose(f);
        if (count < TOKENIZE_MAX_BYTES) tokens[count++] = '\n';
        if (count >= TOKENIZE_MAX_BYTES - 1) {
            fprintf(stderr, "mcpp-tokenize: stopped at the 1 MiB cap after %s\n", argv[i]);
            break;
        }
    }
    int rc = mcpp_kernel_tokens_write(out, tokens, count, 256, name);
    free(tokens);
    if (rc != 0) {
        fprintf(stderr, "mcpp-tokenize: %s\n", mcpp_error_last()->message);
        return 4;
    }
    fprintf(stderr, "mcpp-tokenize: wrote %zu tokens to %s\n", count, out);
    return 0;
}
