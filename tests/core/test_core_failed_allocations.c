/*
 * test_core_failed_allocations.c — a load that runs out of memory fails one
 * way: it returns an error, hands back no receipt and leaves no block behind
 * (docs/ARCHITECTURE.md, Rules: Errors; the done:/fail: labels of io/). This
 * binary defines malloc, calloc, realloc and free over glibc's own, so every
 * allocation of a load (the library's, cJSON's and libyaml's) is counted and
 * the Nth one can be made to fail; each case fails every allocation of one
 * load, or of one write over an existing file, in turn. Not built under the
 * sanitizers, which own malloc.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcpp_receipts.h"
#include "test_util.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);

/* countdown > 0: the allocation that brings it to 0 fails; live: blocks held. */
static long countdown = -1, live = 0, calls = 0;

static int this_one_fails(void)
{
    calls++;
    return countdown > 0 && --countdown == 0;
}

void *malloc(size_t n)
{
    void *p = this_one_fails() ? NULL : __libc_malloc(n);
    live += p != NULL;
    return p;
}

void *calloc(size_t count, size_t size)
{
    void *p = this_one_fails() ? NULL : __libc_calloc(count, size);
    live += p != NULL;
    return p;
}

void *realloc(void *old, size_t n)
{
    void *p = this_one_fails() ? NULL : __libc_realloc(old, n);
    if (p && !old)
        live++;
    if (!p && old && n == 0)
        live--; /* realloc(p, 0) freed it */
    return p;
}

void free(void *p)
{
    live -= p != NULL;
    __libc_free(p);
}

/* Loads `path` failing each of its allocations in turn; checks every load
 * and returns how many of them failed. */
static long load_failing_each_allocation(const char *path)
{
    mcpp_receipt *r = NULL;
    mcpp_report *report = NULL;
    int rc = mcpp_receipt_load_file(&r, &report, path, NULL); /* once-only allocations first */
    mcpp_receipt_free(r);
    mcpp_report_free(report);
    CHECK_INT_EQ(rc, MCPP_OK);
    live = calls = 0;
    rc = mcpp_receipt_load_file(&r, &report, path, NULL);
    mcpp_receipt_free(r);
    mcpp_report_free(report);
    long total = calls, failed = 0;
    CHECK_INT_EQ(rc, MCPP_OK);
    CHECK_INT_EQ(live, 0);
    for (long n = 1; n <= total; n++) {
        r = NULL;
        report = NULL;
        live = 0;
        countdown = n;
        rc = mcpp_receipt_load_file(&r, &report, path, NULL);
        countdown = -1;
        if (rc != MCPP_OK) {
            failed++;
            if (r != NULL || mcpp_error_last()->code != rc)
                fprintf(stderr, "allocation %ld of %ld failed: rc %d, receipt %p, last error %d\n", n, total, rc,
                        (void *)r, mcpp_error_last()->code);
            CHECK(r == NULL);
            CHECK_INT_EQ(mcpp_error_last()->code, rc);
        }
        mcpp_receipt_free(r);
        mcpp_report_free(report);
        if (live != 0)
            fprintf(stderr, "allocation %ld of %ld failed: %ld blocks left\n", n, total, live);
        CHECK_INT_EQ(live, 0);
    }
    printf("# %s: %ld allocations a load, %ld of the loads with one failed returned an error\n", path, total, failed);
    return failed;
}

TEST(a_yaml_load_fails_cleanly_at_each_allocation)
{
    /* libyaml's parser, the reader's frames and marks, cJSON's tree, the bind */
    CHECK(load_failing_each_allocation(MCPP_EXAMPLES_DIR "/receipts/nam52_dense.yaml") > 100);
}

TEST(a_json_load_fails_cleanly_at_each_allocation)
{
    /* the direct reader falls back to cJSON's tree on some failures, so not every one is an error */
    CHECK(load_failing_each_allocation(MCPP_EXAMPLES_DIR "/receipts/nam52_dense.json") > 0);
}

/* The bytes of `path` (NUL-terminated) into buf; their count, -1 when unreadable. */
static long read_file(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[n] = '\0';
    return (long)n;
}

/* Entries of `dir` other than . and .. */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    if (d)
        closedir(d);
    return n;
}

TEST(a_write_over_a_file_fails_cleanly_at_each_allocation)
{
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_file(&r, NULL, MCPP_EXAMPLES_DIR "/receipts/nam52_dense.json", NULL), MCPP_OK);
    char dir[] = "/tmp/mcpp-failed-allocations-XXXXXX", path[64], text[1 << 16];
    CHECK(r && mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/r.yaml", dir);
    CHECK_INT_EQ(mcpp_receipt_write_file(r, path, MCPP_FORMAT_YAML), MCPP_OK); /* once-only allocations */
    CHECK_INT_EQ(mcpp_text_write_file(path, "old\n", 4), MCPP_OK);
    live = calls = 0;
    CHECK_INT_EQ(mcpp_receipt_write_file(r, path, MCPP_FORMAT_YAML), MCPP_OK);
    long total = calls, failed = 0, whole = read_file(path, text, sizeof text);
    CHECK_INT_EQ(live, 0);
    CHECK(whole > 100);
    for (long n = 1; n <= total; n++) {
        CHECK_INT_EQ(mcpp_text_write_file(path, "old\n", 4), MCPP_OK);
        live = 0;
        countdown = n;
        int rc = mcpp_receipt_write_file(r, path, MCPP_FORMAT_YAML);
        countdown = -1;
        long got = read_file(path, text, sizeof text);
        if (rc != MCPP_OK) {
            failed++;
            CHECK_INT_EQ(mcpp_error_last()->code, rc);
            CHECK(got == 4 && strcmp(text, "old\n") == 0); /* the old file untouched */
        } else {
            CHECK_INT_EQ(got, whole);
        }
        if (live != 0 || entries(dir) != 1)
            fprintf(stderr, "allocation %ld of %ld failed: rc %d, %ld blocks and %d files left\n", n, total, rc, live,
                    entries(dir));
        CHECK_INT_EQ(live, 0);
        CHECK_INT_EQ(entries(dir), 1); /* no temporary left beside it */
    }
    printf("# a YAML write: %ld allocations, %ld of the writes with one failed returned an error\n", total, failed);
    CHECK(failed > 0);
    unlink(path);
    rmdir(dir);
    mcpp_receipt_free(r);
}

int main(void)
{
    RUN(a_yaml_load_fails_cleanly_at_each_allocation);
    RUN(a_json_load_fails_cleanly_at_each_allocation);
    RUN(a_write_over_a_file_fails_cleanly_at_each_allocation);
    TEST_MAIN_END();
}
