/*
 * test_tokens.c — the token file format: round trips at every token width,
 * and refusal of corrupt, truncated, padded or mislabelled files. Also checks
 * that the shipped corpus reads and is real text.
 */
#include <stdio.h>
#include <string.h>

#include "../test_util.h"
#include "mcpp_kernels/tokens.h"
#include "mcpp_receipts.h"

static char path_buf[1024];

static const char *tmp_path(const char *name)
{
    snprintf(path_buf, sizeof path_buf, "%s/%s", MCPP_TEST_OUT_DIR, name);
    return path_buf;
}

static void round_trip(uint32_t vocab, size_t expect_width)
{
    int32_t tokens[300];
    for (int i = 0; i < 300; i++) tokens[i] = (int32_t)(((uint32_t)i * 2654435761u) % vocab);
    const char *p = tmp_path("roundtrip.tok");
    CHECK_INT_EQ(mcpp_kernel_tokens_write(p, tokens, 300, vocab, "unit-test"), 0);
    FILE *f = fopen(p, "rb");
    fseek(f, 0, SEEK_END);
    CHECK_INT_EQ(ftell(f), 64 + 300 * (long)expect_width);
    fclose(f);
    mcpp_kernel_token_file tf;
    CHECK_INT_EQ(mcpp_kernel_tokens_read(&tf, p), 0);
    CHECK_INT_EQ(tf.count, 300);
    CHECK_INT_EQ(tf.vocab_size, vocab);
    CHECK_STR_EQ(tf.name, "unit-test");
    int diff = 0;
    for (int i = 0; i < 300 && tf.tokens; i++) diff += tf.tokens[i] != tokens[i];
    CHECK_INT_EQ(diff, 0);
    mcpp_kernel_tokens_release(&tf);
}

TEST(tokens_round_trip_at_one_two_and_four_byte_widths)
{
    round_trip(256, 1);
    round_trip(50000, 2);
    round_trip(200000, 4);
}

/* Writes a valid file, then lets `mutate` damage its bytes. */
static int damaged(void (*mutate)(unsigned char *buf, size_t *len))
{
    int32_t tokens[100];
    for (int i = 0; i < 100; i++) tokens[i] = i + 1;
    const char *p = tmp_path("damaged.tok");
    mcpp_kernel_tokens_write(p, tokens, 100, 256, "x");
    unsigned char buf[512];
    FILE *f = fopen(p, "rb");
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    mutate(buf, &len);
    f = fopen(p, "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
    mcpp_kernel_token_file tf;
    int rc = mcpp_kernel_tokens_read(&tf, p);
    CHECK(tf.tokens == NULL);
    return rc;
}

static void flip_payload(unsigned char *b, size_t *len) { (void)len; b[64 + 10] ^= 1; }
static void truncate_it(unsigned char *b, size_t *len) { (void)b; *len -= 3; }
static void append_byte(unsigned char *b, size_t *len) { b[(*len)++] = 7; }
static void bad_magic(unsigned char *b, size_t *len) { (void)len; b[0] = 'X'; }
static void shrink_vocab(unsigned char *b, size_t *len) { (void)len; b[12] = 50; b[13] = 0; }

TEST(a_flipped_payload_byte_fails_the_checksum)
{
    CHECK_INT_EQ(damaged(flip_payload), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->field, "checksum");
}

TEST(truncated_and_padded_files_are_refused)
{
    CHECK_INT_EQ(damaged(truncate_it), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "shorter");
    CHECK_INT_EQ(damaged(append_byte), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, "after");
}

TEST(wrong_magic_and_tokens_past_the_vocab_are_refused)
{
    CHECK_INT_EQ(damaged(bad_magic), MCPP_EINVALID);
    CHECK_STR_EQ(mcpp_error_last()->field, "magic");
    CHECK_INT_EQ(damaged(shrink_vocab), MCPP_EINVALID);
    CHECK_CONTAINS(mcpp_error_last()->message, ">= vocab size 50");
}

TEST(a_missing_file_is_an_io_error)
{
    mcpp_kernel_token_file tf;
    CHECK_INT_EQ(mcpp_kernel_tokens_read(&tf, tmp_path("does-not-exist.tok")), MCPP_EIO);
}

TEST(the_shipped_corpus_is_real_c_source_bytes)
{
    mcpp_kernel_token_file tf;
    CHECK_INT_EQ(mcpp_kernel_tokens_read(&tf, MCPP_KERNELS_DATA_DIR "/mcpp_sources.tok"), 0);
    CHECK_INT_EQ(tf.vocab_size, 256);
    CHECK(tf.count > 20000);
    CHECK(tf.count <= 1024 * 1024);
    /* Real C text: mostly printable ASCII, and it contains "#include". */
    size_t printable = 0;
    int found = 0;
    for (size_t i = 0; tf.tokens && i < tf.count; i++) {
        printable += (tf.tokens[i] >= 32 && tf.tokens[i] < 127) || tf.tokens[i] == '\n';
        if (i + 8 <= tf.count && tf.tokens[i] == '#' && tf.tokens[i + 1] == 'i' && tf.tokens[i + 2] == 'n')
            found = 1;
    }
    CHECK(printable > tf.count * 9 / 10);
    CHECK(found);
    mcpp_kernel_tokens_release(&tf);
}

int main(void)
{
    RUN(tokens_round_trip_at_one_two_and_four_byte_widths);
    RUN(a_flipped_payload_byte_fails_the_checksum);
    RUN(truncated_and_padded_files_are_refused);
    RUN(wrong_magic_and_tokens_past_the_vocab_are_refused);
    RUN(a_missing_file_is_an_io_error);
    RUN(the_shipped_corpus_is_real_c_source_bytes);
    TEST_MAIN_END();
}
