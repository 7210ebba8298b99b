/*
 * tokens.c — reading and writing token files (format in mcpp_kernels/tokens.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_error.h"
#include "mcpp_receipts/common.h"
#include "mcpp_kernels/tokens.h"

#define TOKENS_MAX_COUNT (1ull << 28)

uint64_t mcpp_kernel_tokens_checksum(const unsigned char *bytes, size_t len)
{
    return mcpp_fnv1a64(bytes, len); /* the core's one FNV-1a */
}

static uint64_t tokens_get_le(const unsigned char *p, size_t width)
{
    uint64_t v = 0;
    for (size_t i = 0; i < width; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void tokens_put_le(unsigned char *p, uint64_t v, size_t width)
{
    for (size_t i = 0; i < width; i++) p[i] = (unsigned char)(v >> (8 * i));
}

void mcpp_kernel_tokens_release(mcpp_kernel_token_file *file)
{
    if (!file) return;
    free(file->tokens);
    file->tokens = NULL;
    file->count = 0;
}

static int tokens_bad(const char *path, const char *field, const char *what)
{
    return mcpp_kernel_error(MCPP_EINVALID, MCPP_ERROR_KIND_CONSISTENCY, path, field, 0, "%s", what);
}

int mcpp_kernel_tokens_read(mcpp_kernel_token_file *out, const char *path)
{
    memset(out, 0, sizeof *out);
    unsigned char header[MCPP_KERNEL_TOKENS_HEADER_BYTES];
    unsigned char *payload = NULL;
    int rc = MCPP_OK;
    FILE *f = fopen(path, "rb");
    if (!f) return mcpp_kernel_error(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, "cannot open token file");
    if (fread(header, 1, sizeof header, f) != sizeof header) {
        rc = tokens_bad(path, "header", "shorter than the 64-byte header");
        goto cleanup;
    }
    if (memcmp(header, MCPP_KERNEL_TOKENS_MAGIC, 8) != 0) {
        rc = tokens_bad(path, "magic", "not a token file (magic is not MCPPTOK1)");
        goto cleanup;
    }
    if (tokens_get_le(header + 8, 4) != MCPP_KERNEL_TOKENS_VERSION) {
        rc = tokens_bad(path, "version", "unsupported token file version");
        goto cleanup;
    }
    out->vocab_size = (uint32_t)tokens_get_le(header + 12, 4);
    uint64_t count = tokens_get_le(header + 16, 8);
    out->checksum = tokens_get_le(header + 24, 8);
    size_t width = (size_t)tokens_get_le(header + 32, 4);
    memcpy(out->name, header + 40, MCPP_KERNEL_TOKENS_NAME_BYTES);
    out->name[MCPP_KERNEL_TOKENS_NAME_BYTES] = '\0';
    if (width != 1 && width != 2 && width != 4) {
        rc = tokens_bad(path, "token_width", "token width must be 1, 2 or 4");
        goto cleanup;
    }
    if (out->vocab_size < 2) {
        rc = tokens_bad(path, "vocab_size", "vocab size must be at least 2");
        goto cleanup;
    }
    if (count == 0 || count > TOKENS_MAX_COUNT) {
        rc = tokens_bad(path, "token_count", "token count must be in 1..2^28");
        goto cleanup;
    }
    size_t bytes = (size_t)count * width;
    payload = malloc(bytes + 1);
    out->tokens = malloc((size_t)count * sizeof(int32_t));
    if (!payload || !out->tokens) {
        rc = mcpp_kernel_error_nomem();
        goto cleanup;
    }
    /* Reading one byte more than announced detects trailing data. */
    size_t got = fread(payload, 1, bytes + 1, f);
    if (got != bytes) {
        rc = tokens_bad(path, "token_count",
                        got < bytes ? "file is shorter than token_count announces"
                                    : "file has bytes after the announced tokens");
        goto cleanup;
    }
    if (mcpp_kernel_tokens_checksum(payload, bytes) != out->checksum) {
        rc = tokens_bad(path, "checksum", "checksum mismatch: the token payload is corrupt");
        goto cleanup;
    }
    for (uint64_t i = 0; i < count; i++) {
        uint64_t t = tokens_get_le(payload + i * width, width);
        if (t >= out->vocab_size) {
            rc = mcpp_kernel_error(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, path, "tokens", 0,
                                "token %llu at index %llu is >= vocab size %u",
                                (unsigned long long)t, (unsigned long long)i, out->vocab_size);
            goto cleanup;
        }
        out->tokens[i] = (int32_t)t;
    }
    out->count = count;
cleanup:
    fclose(f);
    free(payload);
    if (rc != MCPP_OK) mcpp_kernel_tokens_release(out);
    return rc;
}

int mcpp_kernel_tokens_write(const char *path, const int32_t *tokens, size_t count, uint32_t vocab_size,
                      const char *name)
{
    size_t width = vocab_size <= 256 ? 1 : vocab_size <= 65536 ? 2 : 4;
    unsigned char header[MCPP_KERNEL_TOKENS_HEADER_BYTES] = {0};
    unsigned char *payload = malloc(count * width + 1);
    int rc = MCPP_OK;
    FILE *f = NULL;
    if (!payload) return mcpp_kernel_error_nomem();
    for (size_t i = 0; i < count; i++) {
        if (tokens[i] < 0 || (uint32_t)tokens[i] >= vocab_size) {
            rc = mcpp_kernel_error(MCPP_EINVALID, MCPP_ERROR_KIND_RANGE, path, "tokens", 0,
                                "token at index %zu is outside the vocab", i);
            goto cleanup;
        }
        tokens_put_le(payload + i * width, (uint64_t)tokens[i], width);
    }
    memcpy(header, MCPP_KERNEL_TOKENS_MAGIC, 8);
    tokens_put_le(header + 8, MCPP_KERNEL_TOKENS_VERSION, 4);
    tokens_put_le(header + 12, vocab_size, 4);
    tokens_put_le(header + 16, count, 8);
    tokens_put_le(header + 24, mcpp_kernel_tokens_checksum(payload, count * width), 8);
    tokens_put_le(header + 32, width, 4);
    if (name) {
        size_t n = strlen(name);
        memcpy(header + 40, name, n < MCPP_KERNEL_TOKENS_NAME_BYTES ? n : MCPP_KERNEL_TOKENS_NAME_BYTES);
    }
    f = fopen(path, "wb");
    if (!f) {
        rc = mcpp_kernel_error(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, "cannot create token file");
        goto cleanup;
    }
    if (fwrite(header, 1, sizeof header, f) != sizeof header ||
        fwrite(payload, 1, count * width, f) != count * width)
        rc = mcpp_kernel_error(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, "short write");
    if (fclose(f) != 0 && rc == MCPP_OK)
        rc = mcpp_kernel_error(MCPP_EIO, MCPP_ERROR_KIND_IO, path, NULL, 0, "close failed");
cleanup:
    free(payload);
    return rc;
}
