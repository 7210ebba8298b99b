/*
 * truncation_driver.c — loads every prefix of one receipt in a single process
 * (one CLI process per offset would take minutes) and checks that each cut is
 * refused cleanly: an error status, a category and a location, never a crash
 * (ASan/UBSan builds make "never" checkable).
 *
 * usage: cli_truncation_driver RECEIPT.json [RECEIPT.yaml]
 *
 * JSON: every prefix that cuts off the closing brace must be refused. YAML has
 * no closing delimiter, so a prefix ending at a line boundary can be a smaller
 * but well-formed receipt; there the check is that each prefix is either
 * refused with a categorised error or accepted and then writable.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../test_util.h"
#include "mcpp_receipts.h"

static char *json_bytes, *yaml_bytes;
static size_t json_len, yaml_len;

static char *read_all(const char *path, size_t *out_len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        buf = malloc((size_t)n);
        if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *out_len = (size_t)n;
    }
    fclose(f);
    return buf;
}

/* A refusal must say what kind of problem it is and where. */
static int refused_cleanly(int status, size_t offset)
{
    const mcpp_error *e = mcpp_error_last();
    if (status != MCPP_EINVALID && status != MCPP_ELIMIT) {
        fprintf(stderr, "offset %zu: status %d (%s)\n", offset, status, mcpp_status_name(status));
        return 0;
    }
    if (!e->kind || !*e->kind || !e->message || !*e->message) {
        fprintf(stderr, "offset %zu: refused without a category or message\n", offset);
        return 0;
    }
    return 1;
}

TEST(full_json_receipt_loads_so_the_cuts_below_are_meaningful)
{
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_buffer(&r, NULL, json_bytes, json_len, MCPP_FORMAT_JSON, "full.json",
                                          NULL),
                 MCPP_OK);
    CHECK(r != NULL);
    mcpp_receipt_free(r);
}

TEST(every_json_prefix_without_the_closing_brace_is_refused_with_kind_and_line)
{
    size_t last_brace = json_len;
    while (last_brace > 0 && json_bytes[last_brace - 1] != '}')
        last_brace--;
    CHECK(last_brace > 0);
    size_t bad = 0, unlocated = 0;
    for (size_t off = 0; off < last_brace; off++) {
        mcpp_receipt *r = NULL;
        mcpp_report *report = NULL;
        /* alternate explicit and sniffed format: both paths must hold */
        mcpp_format format = off % 2 ? MCPP_FORMAT_AUTO : MCPP_FORMAT_JSON;
        int status = mcpp_receipt_load_buffer(&r, &report, json_bytes, off, format, "cut.json", NULL);
        if (r != NULL || !refused_cleanly(status, off))
            bad++;
        else if (off > 0 && mcpp_error_last()->line <= 0)
            unlocated++;
        if (status != MCPP_OK && mcpp_report_error_count(report) == 0 && report != NULL)
            bad++; /* a refusal the report does not list */
        mcpp_receipt_free(r);
        mcpp_report_free(report);
    }
    printf("# %zu JSON prefixes tried, %zu bad, %zu without a line\n", last_brace, bad, unlocated);
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(unlocated, 0);
}

TEST(every_yaml_prefix_is_refused_cleanly_or_loads_a_writable_receipt)
{
    if (!yaml_bytes)
        return;
    size_t bad = 0, accepted = 0;
    for (size_t off = 0; off < yaml_len; off++) {
        mcpp_receipt *r = NULL;
        mcpp_format format = off % 2 ? MCPP_FORMAT_AUTO : MCPP_FORMAT_YAML;
        int status = mcpp_receipt_load_buffer(&r, NULL, yaml_bytes, off, format, "cut.yaml", NULL);
        if (status == MCPP_OK) {
            char *text = NULL;
            accepted++;
            if (mcpp_receipt_write(&text, NULL, r, MCPP_FORMAT_JSON) != MCPP_OK)
                bad++;
            mcpp_free(text);
        } else if (!refused_cleanly(status, off) || r != NULL) {
            bad++;
        }
        mcpp_receipt_free(r);
    }
    printf("# %zu YAML prefixes tried, %zu accepted as smaller receipts, %zu bad\n", yaml_len,
           accepted, bad);
    CHECK_INT_EQ(bad, 0);
    /* most cuts land inside a line or leave required structure dangling */
    CHECK(accepted < yaml_len / 2);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s RECEIPT.json [RECEIPT.yaml]\n", argv[0]);
        return 2;
    }
    json_bytes = read_all(argv[1], &json_len);
    if (!json_bytes) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    if (argc > 2 && !(yaml_bytes = read_all(argv[2], &yaml_len))) {
        fprintf(stderr, "cannot read %s\n", argv[2]);
        return 2;
    }
    RUN(full_json_receipt_loads_so_the_cuts_below_are_meaningful);
    RUN(every_json_prefix_without_the_closing_brace_is_refused_with_kind_and_line);
    RUN(every_yaml_prefix_is_refused_cleanly_or_loads_a_writable_receipt);
    free(json_bytes);
    free(yaml_bytes);
    TEST_MAIN_END();
}
