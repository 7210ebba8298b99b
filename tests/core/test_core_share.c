/*
 * test_core_share.c — the receipts of one import share what repeats
 * (receipt/share.h): they point to one copy of the Google Benchmark context,
 * of the member names and of the tool's strings, and read exactly as
 * receipts that own everything do. A receipt may outlive its set and the
 * other receipts (it holds the share), its image stands alone, and receipts
 * freed from several threads at once free the share once (run under the
 * sanitizer build for the lifetime checks). Also the compact struct's slot
 * tables (compact.c): one per set of stated fields, up to a cap.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcpp_receipts.h"
#include "receipt/image.h"
#include "receipt/layout.h"
#include "receipt/schema.h"
#include "test_util.h"

#define ROWS 6

static char fixture[64]; /* the file every case imports */

/* A Google Benchmark file of ROWS benchmarks of one repetition, one context. */
static void write_gbench(char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/mcpp-share-%ld.json", (long)getpid());
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fputs("{\"context\": {\"date\": \"2026-11-20T10:00:00+00:00\", \"host_name\": \"bench-host\", "
          "\"executable\": \"./bench\", \"num_cpus\": 16, \"mhz_per_cpu\": 3000, \"cpu_scaling_enabled\": false, "
          "\"caches\": [{\"type\": \"Data\", \"level\": 1, \"size\": 32768, \"num_sharing\": 2}], "
          "\"load_avg\": [0.5, 0.4, 0.3], \"library_build_type\": \"release\"}, \"benchmarks\": [\n",
          f);
    for (int i = 0; i < ROWS; i++)
        fprintf(f,
                "%s{\"name\": \"BM_K/%d\", \"run_name\": \"BM_K/%d\", \"run_type\": \"iteration\", "
                "\"repetitions\": 1, \"repetition_index\": 0, \"threads\": 1, \"iterations\": 1000, "
                "\"real_time\": %d.5, \"cpu_time\": %d.25, \"time_unit\": \"ns\"}\n",
                i ? "," : "", i, i, 100 + i, 100 + i);
    fputs("]}\n", f);
    fclose(f);
}

static mcpp_receipt_set *import_fixture(void)
{
    mcpp_receipt_set *set = NULL;
    const char *paths[] = {fixture};
    CHECK_INT_EQ(mcpp_import_files(&set, MCPP_IMPORT_GOOGLE_BENCHMARK, paths, 1), MCPP_OK);
    return set;
}

/* The set's last receipt, held (a copy that shares its memory). */
static mcpp_receipt *hold_last(const mcpp_receipt_set *set)
{
    mcpp_receipt *held = NULL;
    CHECK_INT_EQ(mcpp_receipt_clone(&held, mcpp_receipt_set_at(set, ROWS - 1)), MCPP_OK);
    return held;
}

static char *json_of(const mcpp_receipt *r)
{
    char *text = NULL;
    size_t len = 0;
    CHECK_INT_EQ(mcpp_receipt_write(&text, &len, r, MCPP_FORMAT_JSON), MCPP_OK);
    return text;
}

/* The member `key` of a packed object node, or NULL. */
static const mcpp_xnode *member(const mcpp_xnode *obj, const char *key)
{
    for (uint32_t i = 0; obj && obj->kind == MCPP_X_OBJECT && i < obj->count; i++)
        if (strcmp(obj->children[i].key, key) == 0)
            return &obj->children[i];
    return NULL;
}

static const mcpp_xnode *context_of(const mcpp_receipt *r)
{
    return member(member(MCPP_FIELD(r, extra, mcpp_object_slot).node, "google_benchmark"), "context");
}

TEST(receipts_of_one_import_point_to_one_copy_of_what_repeats)
{
    mcpp_receipt_set *set = import_fixture();
    CHECK(set && mcpp_receipt_set_count(set) == ROWS);
    if (!set || mcpp_receipt_set_count(set) != ROWS)
        return;
    const mcpp_receipt *a = mcpp_receipt_set_at(set, ROWS - 2), *b = mcpp_receipt_set_at(set, ROWS - 1);
    /* met twice by then: the context's members, the tool's name and each
     * member name are the share's, not a copy in each arena */
    CHECK(context_of(a) && context_of(b) && context_of(a)->children == context_of(b)->children);
    CHECK(MCPP_FIELD(a, source_tool, char *) == MCPP_FIELD(b, source_tool, char *));
    CHECK(MCPP_FIELD(a, extra, mcpp_object_slot).node->children[0].key ==
          MCPP_FIELD(b, extra, mcpp_object_slot).node->children[0].key);
    CHECK(mcpp_receipt_hold_of(b->arena)->share != NULL);
    /* what differs is each receipt's own */
    CHECK(strcmp(MCPP_FIELD(a, benchmark_name, char *), MCPP_FIELD(b, benchmark_name, char *)) != 0);
    CHECK(MCPP_FIELD(a, id, char *) != MCPP_FIELD(b, id, char *));
    /* and every receipt reads as the same receipt loaded from its own text */
    for (size_t i = 0; i < ROWS; i++) {
        const mcpp_receipt *r = mcpp_receipt_set_at(set, i);
        char *text = json_of(r), *again = NULL;
        mcpp_receipt *loaded = NULL;
        CHECK_INT_EQ(mcpp_receipt_load_buffer(&loaded, NULL, text, strlen(text), MCPP_FORMAT_JSON, "r", NULL), MCPP_OK);
        CHECK(loaded && mcpp_receipt_hold_of(loaded->arena)->share == NULL);
        if (loaded)
            again = json_of(loaded);
        CHECK_STR_EQ(again, text);
        mcpp_value v = MCPP_VALUE_INIT, w = MCPP_VALUE_INIT;
        CHECK_INT_EQ(mcpp_receipt_get(r, "extra.google_benchmark.context", &v), MCPP_OK);
        CHECK_INT_EQ(mcpp_receipt_get(loaded, "extra.google_benchmark.context", &w), MCPP_OK);
        CHECK_STR_EQ(v.string, w.string);
        mcpp_free(again);
        mcpp_free(text);
        mcpp_receipt_free(loaded);
    }
    mcpp_receipt_set_free(set);
}

TEST(a_receipt_outlives_its_set_and_the_others)
{
    mcpp_receipt_set *set = import_fixture();
    if (!set)
        return;
    mcpp_receipt *kept = hold_last(set);
    char *before = json_of(kept);
    mcpp_receipt_set_free(set); /* the set and every other receipt go; the share stays */
    char *after = json_of(kept);
    CHECK_STR_EQ(after, before);
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK_INT_EQ(mcpp_receipt_get(kept, "extra.google_benchmark.context.caches", &v), MCPP_OK);
    CHECK(v.string && strstr(v.string, "\"Data\""));
    mcpp_free(before);
    mcpp_free(after);
    mcpp_receipt_free(kept);
}

TEST(a_receipt_freed_before_its_set_leaves_the_set_whole)
{
    mcpp_receipt_set *set = import_fixture();
    if (!set)
        return;
    mcpp_receipt_free(hold_last(set));
    for (size_t i = 0; i < ROWS; i++) {
        char *text = json_of(mcpp_receipt_set_at(set, i));
        CHECK(text && strstr(text, "\"bench-host\""));
        mcpp_free(text);
    }
    mcpp_receipt_set_free(set);
}

TEST(the_image_of_a_sharing_receipt_stands_alone)
{
    mcpp_receipt_set *set = import_fixture();
    if (!set)
        return;
    const mcpp_receipt *r = mcpp_receipt_set_at(set, ROWS - 1);
    CHECK(mcpp_receipt_hold_of(r->arena)->share != NULL);
    unsigned char *image = NULL, *image2 = NULL;
    size_t len = 0, len2 = 0;
    CHECK_INT_EQ(mcpp_receipt_image_write(&image, &len, r), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_image_write(&image2, &len2, r), MCPP_OK);
    CHECK(image && image2 && len == len2 && memcmp(image, image2, len) == 0); /* the same bytes each time */
    char *text = json_of(r);
    mcpp_receipt_set_free(set); /* the share goes with its last receipt */
    mcpp_receipt *back = NULL;
    char why[200] = "";
    CHECK_INT_EQ(mcpp_receipt_image_read(&back, image, len, NULL, why, sizeof why), MCPP_OK);
    char *again = back ? json_of(back) : NULL;
    CHECK_STR_EQ(again, text);
    CHECK(back && mcpp_receipt_hold_of(back->arena)->share == NULL);
    mcpp_free(again);
    mcpp_free(text);
    mcpp_receipt_free(back);
    free(image);
    free(image2);
}

/* Four threads each hold every receipt, read their texts and free them, while
 * the main thread frees the set: the share is freed once, by the last. */
typedef struct worker {
    mcpp_receipt *held[ROWS];
    int ok;
} worker;

static void *read_and_free(void *arg)
{
    worker *w = arg;
    w->ok = 1;
    for (int round = 0; round < 50; round++)
        for (size_t i = 0; i < ROWS; i++) {
            mcpp_value v = MCPP_VALUE_INIT;
            if (mcpp_receipt_get(w->held[i], "extra.google_benchmark.context", &v) != MCPP_OK || !v.string ||
                !strstr(v.string, "\"release\""))
                w->ok = 0;
        }
    for (size_t i = 0; i < ROWS; i++)
        mcpp_receipt_free(w->held[i]);
    return NULL;
}

TEST(receipts_freed_from_many_threads_free_their_share_once)
{
    for (int round = 0; round < 20; round++) {
        mcpp_receipt_set *set = import_fixture();
        if (!set)
            return;
        worker w[4];
        pthread_t t[4];
        for (int k = 0; k < 4; k++)
            for (size_t i = 0; i < ROWS; i++)
                CHECK_INT_EQ(mcpp_receipt_clone(&w[k].held[i], mcpp_receipt_set_at(set, i)), MCPP_OK);
        for (int k = 0; k < 4; k++)
            CHECK_INT_EQ(pthread_create(&t[k], NULL, read_and_free, &w[k]), 0);
        mcpp_receipt_set_free(set);
        for (int k = 0; k < 4; k++) {
            pthread_join(t[k], NULL);
            CHECK(w[k].ok);
        }
    }
}

TEST(receipts_stating_the_same_fields_share_one_slot_table)
{
    mcpp_receipt_set *set = import_fixture();
    if (!set)
        return;
    const mcpp_receipt *a = mcpp_receipt_set_at(set, 0), *b = mcpp_receipt_set_at(set, ROWS - 1);
    CHECK(mcpp_is_compact(a) && mcpp_is_compact(b));
    CHECK(*(const uint8_t *const *)&a->f == *(const uint8_t *const *)&b->f);
    mcpp_receipt_set_free(set);
}

/* Past the process's few thousand tables a receipt keeps its own, and reads
 * the same: 2^13 receipts, each stating another subset of 13 string fields. */
TEST(past_the_shared_tables_a_receipt_keeps_its_own_and_reads_the_same)
{
    static const char *const paths[] = {"source.command",          "source.host",        "benchmark.suite",
                                        "benchmark.suite_version", "benchmark.name",     "benchmark.submitter",
                                        "benchmark.system",        "benchmark.division", "software.framework",
                                        "software.version",        "software.image",     "workload.data.dataset",
                                        "hardware.host.cpu"};
    enum { N_PATHS = sizeof paths / sizeof paths[0] };
    int own = 0, shared = 0, wrong = 0;
    for (unsigned mask = 0; mask < (1u << N_PATHS); mask++) {
        mcpp_builder *b = NULL;
        if (mcpp_builder_new(&b) != MCPP_OK)
            break;
        CHECK_INT_EQ(mcpp_builder_set_string(b, "created_at", "2026-11-29T18:00:00Z"), MCPP_OK);
        for (int k = 0; k < N_PATHS; k++)
            if (mask >> k & 1u)
                CHECK_INT_EQ(mcpp_builder_set_string(b, paths[k], paths[k]), MCPP_OK);
        mcpp_receipt *r = NULL;
        CHECK_INT_EQ(mcpp_builder_finish(&r, NULL, b), MCPP_OK);
        mcpp_builder_free(b);
        if (!r)
            break;
        const char *table = *(const char *const *)&r->f;
        if (table > (const char *)r && table < (const char *)r + malloc_usable_size(r))
            own++;
        else
            shared++;
        for (int k = 0; k < N_PATHS; k++) {
            mcpp_value v = MCPP_VALUE_INIT;
            CHECK_INT_EQ(mcpp_receipt_get(r, paths[k], &v), MCPP_OK);
            wrong += (mask >> k & 1u) ? !(v.string && strcmp(v.string, paths[k]) == 0) : v.type != MCPP_TYPE_ABSENT;
        }
        mcpp_receipt_free(r);
    }
    CHECK_INT_EQ(wrong, 0);
    CHECK(shared >= 4000 && shared <= 4096); /* the first patterns (other cases may have made a few) */
    CHECK(own >= (1 << N_PATHS) - 4096);
}

/* The public calls: receipts loaded one by one (as load_dir does) packed
 * into a share point to one copy of what repeats, read the same, and outlive
 * the share's maker and each other. */
TEST(receipts_packed_into_a_public_share_point_to_one_copy_and_outlive_it)
{
    mcpp_receipt_set *set = import_fixture(); /* texts of receipts that repeat a context */
    if (!set)
        return;
    mcpp_receipt_share *share = NULL;
    CHECK_INT_EQ(mcpp_receipt_share_new(&share), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_share_new(NULL), MCPP_EARG);
    mcpp_receipt *mine[ROWS] = {NULL};
    char *texts[ROWS] = {NULL};
    for (size_t i = 0; i < ROWS; i++) {
        texts[i] = json_of(mcpp_receipt_set_at(set, i));
        mcpp_receipt *loaded = NULL;
        CHECK_INT_EQ(
            mcpp_receipt_load_buffer(&loaded, NULL, texts[i], strlen(texts[i]), MCPP_FORMAT_JSON, "loaded.json", NULL),
            MCPP_OK);
        if (loaded)
            CHECK_INT_EQ(mcpp_receipt_share_pack(&mine[i], loaded, share), MCPP_OK);
        CHECK_STR_EQ(mcpp_receipt_source_name(mine[i]), "loaded.json");
        mcpp_receipt_free(loaded);
    }
    mcpp_receipt *none = NULL;
    CHECK_INT_EQ(mcpp_receipt_share_pack(&none, NULL, share), MCPP_EARG);
    CHECK(none == NULL);
    mcpp_receipt_set_free(set);
    mcpp_receipt_share_free(share); /* the receipts keep what they share */
    CHECK(context_of(mine[ROWS - 2]) && context_of(mine[ROWS - 2])->children == context_of(mine[ROWS - 1])->children);
    for (size_t i = 0; i < ROWS; i++) {
        char *again = mine[i] ? json_of(mine[i]) : NULL;
        CHECK_STR_EQ(again, texts[i]);
        mcpp_free(again);
        mcpp_free(texts[i]);
        mcpp_receipt_free(mine[i]);
    }
}

int main(void)
{
    write_gbench(fixture, sizeof fixture);
    RUN(receipts_of_one_import_point_to_one_copy_of_what_repeats);
    RUN(a_receipt_outlives_its_set_and_the_others);
    RUN(a_receipt_freed_before_its_set_leaves_the_set_whole);
    RUN(the_image_of_a_sharing_receipt_stands_alone);
    RUN(receipts_freed_from_many_threads_free_their_share_once);
    RUN(receipts_stating_the_same_fields_share_one_slot_table);
    RUN(past_the_shared_tables_a_receipt_keeps_its_own_and_reads_the_same);
    RUN(receipts_packed_into_a_public_share_point_to_one_copy_and_outlive_it);
    unlink(fixture);
    TEST_MAIN_END();
}
