/*
 * test_core_prescan.c — the vectorised JSON pre-scan (64-byte chunks, with a
 * prefix-XOR fast path) agrees with a byte-at-a-time reference of the same
 * rules on random inputs: same verdict, same error kind, same line:column.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/load_ctx.h"
#include "test_util.h"

/* ---- the reference: the rules one byte at a time ------------------------------------ */

static size_t ref_utf8(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0];
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        return (avail >= 2 && (s[1] & 0xC0) == 0x80) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
        if (avail < 3 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80)
            return 0;
        if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] >= 0xA0))
            return 0;
        return 3;
    }
    if (c >= 0xF0 && c <= 0xF4) {
        if (avail < 4 || (s[1] & 0xC0) != 0x80 || (s[2] & 0xC0) != 0x80 ||
            (s[3] & 0xC0) != 0x80)
            return 0;
        if ((c == 0xF0 && s[1] < 0x90) || (c == 0xF4 && s[1] >= 0x90))
            return 0;
        return 4;
    }
    return 0;
}

enum { REF_OK, REF_UTF8, REF_STRING, REF_NUL, REF_DEPTH };

static int reference(const unsigned char *s, size_t len, size_t max_depth, size_t max_string,
                     size_t *at)
{
    size_t depth = 0, skip = 0, start = 0;
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        if (i < skip)
            continue;
        unsigned char c = s[i];
        if (c >= 0x80) {
            size_t n = ref_utf8(s + i, len - i);
            if (!n) {
                *at = i;
                return REF_UTF8;
            }
            skip = i + n;
        } else if (c == '"') {
            if (!in_string) {
                in_string = 1;
                start = i;
            } else {
                in_string = 0;
                if (i - start - 1 > max_string) {
                    *at = start;
                    return REF_STRING;
                }
            }
        } else if (c == '\\') {
            if (i + 5 < len && memcmp(s + i + 1, "u0000", 5) == 0) {
                *at = i;
                return REF_NUL;
            }
            skip = i + 2;
        } else if (!in_string && (c == '{' || c == '[')) {
            if (++depth > max_depth) {
                *at = i;
                return REF_DEPTH;
            }
        } else if (!in_string && (c == '}' || c == ']') && depth) {
            depth--;
        }
    }
    if (in_string && len - start - 1 > max_string) {
        *at = start;
        return REF_STRING;
    }
    return REF_OK;
}

/* ---- random inputs --------------------------------------------------------------------- */

static unsigned long long rng = 0x2545F4914F6CDD1DULL;
static unsigned next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng >> 33);
}

TEST(vector_prescan_matches_the_byte_reference_on_random_inputs)
{
    static const unsigned char hostile[] = {'{', '[', '}', ']', '"', '"', '"', '\\', 'u', '0',
                                            'a', ' ', ' ', 'x', 0xC3, 0xA9, 0xFF, 0xE2, 0x82, 0xAC};
    static const char structural[] = "  \"ab\": [1, {}],\n{[]}\"\""; /* fast-path material */
    int mismatches = 0;
    for (int iter = 0; iter < 60000 && mismatches < 5; iter++) {
        unsigned char buf[400];
        size_t len = next_rand() % sizeof buf;
        unsigned mode = next_rand() % 4;
        for (size_t i = 0; i < len; i++) {
            if (mode == 0 || (mode != 3 && next_rand() % 5 == 0))
                buf[i] = hostile[next_rand() % sizeof hostile];
            else
                buf[i] = (unsigned char)structural[next_rand() % (sizeof structural - 1)];
        }
        mcpp_limits lim;
        mcpp_limits_default(&lim);
        lim.max_depth = 1 + next_rand() % 12;
        lim.max_string_bytes = next_rand() % 2 ? 64 + next_rand() % 100 : next_rand() % 100;
        size_t at = 0;
        int ref = reference(buf, len, lim.max_depth, lim.max_string_bytes, &at);
        int want = ref == REF_OK ? 0
                   : (ref == REF_STRING || ref == REF_DEPTH) ? MCPP_ELIMIT
                                                             : MCPP_EINVALID;
        mcpp_report *report = mcpp_report_new();
        int got = mcpp_json_prescan((const char *)buf, len, &lim, "f", report);
        int line = 0, column = 0, want_line = 0, want_column = 0;
        if (ref != REF_OK) {
            mcpp_text_position((const char *)buf, len, at, &want_line, &want_column);
            const mcpp_diagnostic *d = mcpp_report_at(report, 0);
            if (d) {
                line = d->line;
                column = d->column;
            }
        }
        if (got != want || line != want_line || column != want_column) {
            fprintf(stderr, "input %d: status %d at %d:%d, reference %d at %d:%d\n", iter, got,
                    line, column, want, want_line, want_column);
            mismatches++;
        }
        mcpp_report_free(report);
    }
    CHECK_INT_EQ(mismatches, 0);
}

TEST(fast_path_keeps_string_and_depth_state_across_chunks)
{
    mcpp_limits lim;
    mcpp_limits_default(&lim);
    /* a 200-byte string spans four 64-byte chunks; the brackets inside it do not count */
    char buf[512];
    memset(buf, '[', sizeof buf);
    buf[0] = '{';
    buf[1] = '"';
    buf[202] = '"';
    memcpy(buf + 203, ": 1}", 4);
    mcpp_report *report = mcpp_report_new();
    CHECK_INT_EQ(mcpp_json_prescan(buf, 207, &lim, "t", report), 0);
    mcpp_report_free(report);
    lim.max_string_bytes = 199;
    report = mcpp_report_new();
    CHECK_INT_EQ(mcpp_json_prescan(buf, 207, &lim, "t", report), MCPP_ELIMIT);
    CHECK_STR_EQ(mcpp_report_at(report, 0)->message,
                 "t:1:2: string longer than the limit of 199 bytes");
    mcpp_report_free(report);
}

int main(void)
{
    RUN(vector_prescan_matches_the_byte_reference_on_random_inputs);
    RUN(fast_path_keeps_string_and_depth_state_across_chunks);
    TEST_MAIN_END();
}
