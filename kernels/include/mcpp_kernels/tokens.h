/*
 * mcpp_kernels/tokens.h — the token file: a small, checked container for a
 * real token stream, so `mcpp-step --data FILE` measures real routing.
 *
 * Format (all integers little-endian), a 64-byte header then the tokens:
 *
 *   offset size  field
 *        0    8  magic "MCPPTOK1"
 *        8    4  version (1)
 *       12    4  vocab_size: every token is < vocab_size
 *       16    8  token_count
 *       24    8  checksum: FNV-1a 64 over the token payload bytes as stored
 *       32    4  token_width: bytes per token, 1, 2 or 4
 *       36    4  reserved, 0
 *       40   24  dataset name, UTF-8, NUL-padded (e.g. "mcpp-lib-c-bytes")
 *       64   ..  token_count tokens of token_width bytes each
 *
 * The reader refuses a wrong magic or version, a size that does not match
 * token_count, a checksum mismatch and any token >= vocab_size.
 */
#ifndef MCPP_KERNELS_TOKENS_H
#define MCPP_KERNELS_TOKENS_H

#include <stddef.h>
#include <stdint.h>

#define MCPP_KERNEL_TOKENS_MAGIC "MCPPTOK1"
#define MCPP_KERNEL_TOKENS_VERSION 1u
#define MCPP_KERNEL_TOKENS_HEADER_BYTES 64
#define MCPP_KERNEL_TOKENS_NAME_BYTES 24

typedef struct mcpp_kernel_token_file {
    uint32_t vocab_size;
    uint64_t count;
    uint64_t checksum;
    char name[MCPP_KERNEL_TOKENS_NAME_BYTES + 1];
    int32_t *tokens; /* [count] */
} mcpp_kernel_token_file;

/* FNV-1a 64 of a byte range. */
uint64_t mcpp_kernel_tokens_checksum(const unsigned char *bytes, size_t len);

/* Reads and checks a token file; on success the caller releases it with
 * mcpp_kernel_tokens_release. Errors (MCPP_EIO, MCPP_EINVALID) name the file. */
int mcpp_kernel_tokens_read(mcpp_kernel_token_file *out, const char *path);
void mcpp_kernel_tokens_release(mcpp_kernel_token_file *file); /* safe on a zeroed struct */

/* Writes tokens (each < vocab_size) with the narrowest width that holds the vocab. */
int mcpp_kernel_tokens_write(const char *path, const int32_t *tokens, size_t count, uint32_t vocab_size,
                      const char *name);

#endif /* MCPP_KERNELS_TOKENS_H */
