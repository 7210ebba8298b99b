/*
 * test_core_alloc.c — the library's one string copy and one growable array
 * (lib/src/util/alloc.h), the text a string buffer hands over, and the sorted directory listing the importers and
 * receipt sets walk with (lib/src/util/dir_list.h).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <malloc.h>
#include <unistd.h>

#include "mcpp_receipts.h"
#include "test_util.h"
#include "util/alloc.h"
#include "util/dir_list.h"
#include "util/strbuf.h"

/* GCC names the sanitizers with macros, clang with __has_feature. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define SANITIZER_ALLOCATOR 1
#endif
#endif
#ifndef SANITIZER_ALLOCATOR
#define SANITIZER_ALLOCATOR 0
#endif

TEST(strdup_copies_and_passes_null_through)
{
    int failed = 0;
    char *a = mcpp_strdup("lane", &failed);
    CHECK_STR_EQ(a, "lane");
    CHECK(mcpp_strdup(NULL, &failed) == NULL);
    CHECK_INT_EQ(failed, 0); /* NULL in is not a failure */
    char *b = mcpp_strndup("abcdef", 3, NULL);
    CHECK_STR_EQ(b, "abc");
    free(a);
    free(b);
}

TEST(array_grows_by_doubling_and_keeps_items)
{
    int *items = NULL;
    size_t cap = 0, n = 0;
    for (int i = 0; i < 1000; i++) {
        CHECK_INT_EQ(MCPP_ARRAY_RESERVE(items, cap, n + 1, MCPP_ARRAY_MAX_ITEMS), 0);
        items[n++] = i;
    }
    CHECK(cap >= 1000 && cap < 2048);
    CHECK(cap % 8 == 0); /* 8, 16, ... 1024 */
    int ok = 1;
    for (int i = 0; i < 1000; i++) ok &= items[i] == i;
    CHECK(ok);
    free(items);
}

TEST(array_refuses_to_grow_past_its_cap)
{
    double *items = NULL;
    size_t cap = 0;
    CHECK_INT_EQ(MCPP_ARRAY_RESERVE(items, cap, 10, 10), 0);
    CHECK_INT_EQ(cap, 10); /* doubling stops at the cap */
    double *before = items;
    CHECK_INT_EQ(MCPP_ARRAY_RESERVE(items, cap, 11, 10), MCPP_ELIMIT);
    CHECK(items == before && cap == 10); /* unchanged: the caller still owns it */
    CHECK_CONTAINS(mcpp_error_last()->message, "more than 10 items");
    CHECK_INT_EQ(MCPP_ARRAY_RESERVE(items, cap, SIZE_MAX / 2, SIZE_MAX), MCPP_ELIMIT); /* bytes overflow */
    free(items);
}

static int grow_in_a_function(char ***list, size_t *cap, size_t need, size_t max)
{
    MCPP_CHECK_ARRAY(*list, *cap, need, max);
    return 7;
}

TEST(check_array_returns_the_error_from_the_caller)
{
    char **list = NULL;
    size_t cap = 0;
    CHECK_INT_EQ(grow_in_a_function(&list, &cap, 4, 16), 7);
    CHECK_INT_EQ(grow_in_a_function(&list, &cap, 17, 16), MCPP_ELIMIT);
    free(list);
}

/* MCPP_ARRAY_NEXT: room for one more, zeroed, not yet counted; past the cap,
 * NULL with the limit as the last error and the array as it was. */
TEST(array_next_gives_a_zeroed_item_the_caller_counts)
{
    struct item {
        int a;
        char *s;
    } *items = NULL;
    size_t n = 0, cap = 0;
    for (int k = 0; k < 3; k++) {
        if (n < cap) /* room left from the last growth: make it dirty, the macro clears it */
            items[n].a = 99, items[n].s = (char *)items;
        struct item *it = MCPP_ARRAY_NEXT(items, n, cap, 3);
        CHECK(it == &items[n]);
        CHECK(it && it->a == 0 && it->s == NULL);
        CHECK_INT_EQ(n, (size_t)k); /* not counted by the macro */
        if (!it)
            break;
        it->a = k + 1;
        n++;
    }
    CHECK_INT_EQ(n, 3);
    CHECK(MCPP_ARRAY_NEXT(items, n, cap, 3) == NULL);
    CHECK_INT_EQ(mcpp_error_last()->code, MCPP_ELIMIT);
    CHECK_INT_EQ(n, 3);
    for (size_t i = 0; i < n; i++)
        CHECK_INT_EQ(items[i].a, (int)i + 1);
    free(items);
}

TEST(dir_list_is_sorted_and_skips_hidden_names)
{
    char dir[] = "/tmp/mcpp_dir_list_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    const char *names[] = {"b.json", "a.json", ".hidden", "C", "a.yaml"};
    char path[256];
    for (size_t i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) fclose(f);
    }
    mcpp_dir_list list;
    CHECK_INT_EQ(mcpp_dir_list_read(&list, dir), 0);
    CHECK_INT_EQ(list.count, 4);
    const char *want[] = {"C", "a.json", "a.yaml", "b.json"};
    for (size_t i = 0; i < list.count && i < 4; i++) {
        CHECK_STR_EQ(list.paths[i] + list.name_offset, want[i]);
        snprintf(path, sizeof path, "%s/%s", dir, want[i]);
        CHECK_STR_EQ(list.paths[i], path);
    }
    mcpp_dir_list_free(&list);
    for (size_t i = 0; i < 5; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
    CHECK_INT_EQ(mcpp_dir_list_read(&list, dir), MCPP_EIO);
    CHECK_CONTAINS(mcpp_error_last()->message, "cannot open the directory");
    CHECK_INT_EQ(list.count, 0);
}

/* A kept array gives back the slack of doubling (a report keeps such arrays
 * for each of its lanes): malloc_usable_size is glibc's own measure of the
 * block. */
TEST(array_fit_cuts_the_block_to_its_items_and_frees_an_empty_one)
{
    int *items = NULL;
    size_t cap = 0;
    for (size_t n = 0; n < 1025; n++) {
        CHECK_INT_EQ(MCPP_ARRAY_RESERVE(items, cap, n + 1, MCPP_ARRAY_MAX_ITEMS), 0);
        items[n] = (int)n;
    }
    CHECK_INT_EQ(cap, 2048);
    MCPP_ARRAY_FIT(items, cap, 1025);
    CHECK_INT_EQ(cap, 1025);
    CHECK(malloc_usable_size(items) < 1025 * sizeof *items + 32);
    CHECK_INT_EQ(items[0], 0);
    CHECK_INT_EQ(items[1024], 1024);
    MCPP_ARRAY_FIT(items, cap, 2000); /* never grows */
    CHECK_INT_EQ(cap, 1025);
    MCPP_ARRAY_FIT(items, cap, 0);
    CHECK(items == NULL);
    CHECK_INT_EQ(cap, 0);
    CHECK_INT_EQ(MCPP_ARRAY_RESERVE(items, cap, 1, MCPP_ARRAY_MAX_ITEMS), 0); /* and grows again */
    items[0] = 7;
    CHECK_INT_EQ(items[0], 7);
    free(items);
}

/* The text mcpp_sb_finish hands over is kept (keys, labels, reasons): its
 * block is the text's, not the doubled capacity it was written in. */
TEST(finished_text_keeps_a_block_of_its_length)
{
    mcpp_strbuf b;
    mcpp_sb_init_heap(&b, 512);
    mcpp_sb_puts(&b, "benchmark=google-benchmark|BM_Kernel/0");
    char *text = NULL;
    CHECK_INT_EQ(mcpp_sb_finish(&b, &text), MCPP_OK);
    CHECK_STR_EQ(text, "benchmark=google-benchmark|BM_Kernel/0");
    CHECK(malloc_usable_size(text) < 64); /* 512 before */
    free(text);
    char stack[16]; /* text still in the caller's memory is copied out, as before */
    mcpp_sb_init(&b, stack, sizeof stack);
    mcpp_sb_puts(&b, "abc");
    CHECK_INT_EQ(mcpp_sb_finish(&b, &text), MCPP_OK);
    CHECK_STR_EQ(text, "abc");
    CHECK(text != stack);
    CHECK(malloc_usable_size(text) < 32); /* its length, not twice the caller's buffer */
    free(text);
}

/* A small kept array is moved into a block of its size and its old block
 * freed whole, so the next array grown the same way gets it back; shrunk in
 * place, it left a tail that no such request fits, a gap between the blocks
 * made after it (a gate of 10^4 candidates left 16,000 gaps of 224 bytes). */
TEST(array_fit_gives_a_small_arrays_old_block_back_whole)
{
#if SANITIZER_ALLOCATOR
    printf("skipped: a sanitizer's allocator holds freed blocks back (quarantine), glibc's does not\n");
#else
    char *items = NULL;
    size_t cap = 0;
    CHECK_INT_EQ(MCPP_ARRAY_RESERVE(items, cap, 256, MCPP_ARRAY_MAX_ITEMS), 0);
    memset(items, 'x', 256);
    char *old = items;
    char *kept_after = malloc(40); /* made after it, as a report's next text */
    MCPP_ARRAY_FIT(items, cap, 32);
    CHECK(items != old && items[31] == 'x');
    char *next = malloc(256); /* the next array of the same growth */
    CHECK(next == old);
    free(next);
    free(kept_after);
    free(items);
#endif
}

/* What a streaming buffer's sink was handed, in order, and after how many
 * bytes it refuses (0: never). */
typedef struct sink_log {
    char text[256];
    size_t len, pieces, refuse_after;
} sink_log;

static int log_piece(void *ctx, const char *data, size_t len)
{
    sink_log *log = ctx;
    if (log->refuse_after && log->len + len > log->refuse_after)
        return -1;
    if (log->len + len >= sizeof log->text)
        return -1;
    memcpy(log->text + log->len, data, len);
    log->len += len;
    log->text[log->len] = '\0';
    log->pieces++;
    return 0;
}

/* A streaming buffer holds at most its block: each append that does not fit
 * first hands what it holds to the sink, one longer than the block grows it
 * once, and the flush hands the rest; the sink's refusal latches. */
TEST(streaming_text_reaches_its_sink_whole_and_in_order)
{
    sink_log log = {{0}, 0, 0, 0};
    mcpp_strbuf b;
    mcpp_sb_init_sink(&b, 8, log_piece, &log);
    mcpp_sb_puts(&b, "abc");
    mcpp_sb_puts(&b, "defg"); /* 7 bytes and the NUL: fits */
    CHECK_INT_EQ((int)log.pieces, 0);
    mcpp_sb_putc(&b, 'h'); /* does not: "abcdefg" goes first */
    CHECK_INT_EQ((int)log.pieces, 1);
    mcpp_sb_printf(&b, "%s-%d", "a longer piece than the block", 42);
    mcpp_sb_puts(&b, "!");
    CHECK_INT_EQ(mcpp_sb_flush(&b), 0);
    CHECK_STR_EQ(log.text, "abcdefgha longer piece than the block-42!");
    CHECK(b.len == 0 && !b.failed);
    mcpp_sb_free(&b);

    sink_log refusing = {{0}, 0, 0, 4};
    mcpp_sb_init_sink(&b, 8, log_piece, &refusing);
    mcpp_sb_puts(&b, "abcdefg");
    mcpp_sb_puts(&b, "hij"); /* the sink refuses "abcdefg" */
    CHECK(b.failed && b.sink_failed);
    CHECK_INT_EQ(mcpp_sb_flush(&b), -1);
    CHECK_INT_EQ((int)refusing.len, 0);
    mcpp_sb_free(&b);
}

int main(void)
{
    RUN(strdup_copies_and_passes_null_through);
    RUN(array_grows_by_doubling_and_keeps_items);
    RUN(array_refuses_to_grow_past_its_cap);
    RUN(check_array_returns_the_error_from_the_caller);
    RUN(array_next_gives_a_zeroed_item_the_caller_counts);
    RUN(array_fit_cuts_the_block_to_its_items_and_frees_an_empty_one);
    RUN(finished_text_keeps_a_block_of_its_length);
    RUN(streaming_text_reaches_its_sink_whole_and_in_order);
    RUN(array_fit_gives_a_small_arrays_old_block_back_whole);
    RUN(dir_list_is_sorted_and_skips_hidden_names);
    TEST_MAIN_END();
}
