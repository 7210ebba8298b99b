/*
 * test_core_hostile.c — hostile input at the library level: every class is
 * refused with a clear, categorised error (never a crash, never a partial
 * success), nesting 10^5 deep and billion laughs stop at once, limits apply
 * before reading, and loading is safe from several threads at a time.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core_test_helpers.h"
#include "test_util.h"

#define GOLDEN MCPP_CORE_GOLDEN_DIR

static void expect_refused(load_result r, int status, const char *kind)
{
    CHECK_INT_EQ(r.status, status);
    CHECK_STR_EQ(r.kind, kind);
    CHECK(r.errors >= 1);
}

static char *repeat_nested(size_t depth, const char *open, const char *close, const char *prefix)
{
    size_t plen = strlen(prefix), ol = strlen(open), cl = strlen(close);
    char *s = malloc(plen + depth * (ol + cl) + 2);
    char *p = s;
    memcpy(p, prefix, plen);
    p += plen;
    for (size_t i = 0; i < depth; i++, p += ol)
        memcpy(p, open, ol);
    for (size_t i = 0; i < depth; i++, p += cl)
        memcpy(p, close, cl);
    *p = '\0';
    return s;
}

TEST(json_nesting_100000_deep_is_a_limit_error)
{
    char *s = repeat_nested(100000, "[", "]", "");
    load_result r = load_json(s);
    expect_refused(r, MCPP_ELIMIT, "limit");
    CHECK_CONTAINS(r.message, "t.json:1:65: nesting deeper than the limit of 64 levels");
    free(s);
    /* inside extra too */
    s = repeat_nested(100000, "{\"a\":", "}", "{\"schema\":\"mcpp.receipt/2\",\"extra\":");
    expect_refused(load_json(s), MCPP_ELIMIT, "limit");
    free(s);
}

TEST(yaml_nesting_100000_deep_is_a_limit_error)
{
    char *s = repeat_nested(100000, "[", "]", "schema: mcpp.receipt/2\nextra: ");
    load_result r = load_yaml(s);
    expect_refused(r, MCPP_ELIMIT, "limit");
    CHECK_CONTAINS(r.message, "nesting deeper than the limit of 64 levels");
    free(s);
}

TEST(duplicate_keys_are_refused_where_the_second_one_sits)
{
    load_result r = load_json("{\"schema\": \"mcpp.receipt/2\",\n \"schema\": \"mcpp.receipt/2\"}");
    expect_refused(r, MCPP_EINVALID, "duplicate_key");
    CHECK_STR_EQ(r.message, "t.json:2:2: schema: duplicate key \"schema\" (each key may appear once)");
    r = load_json("{\"schema\": \"mcpp.receipt/2\", \"lane\": {\"depth\": 1,\n \"depth\": 2}}");
    expect_refused(r, MCPP_EINVALID, "duplicate_key");
    CHECK_STR_EQ(r.message, "t.json:2:2: lane.depth: duplicate key \"depth\" (each key may appear once)");
    r = load_json("{\"schema\": \"mcpp.receipt/2\", \"lane\": {}, \"lane\": {}}");
    expect_refused(r, MCPP_EINVALID, "duplicate_key");
    r = load_json("{\"schema\": \"mcpp.receipt/2\", \"extra\": {\"a\": {\"x\": 1, \"x\": 2}}}");
    expect_refused(r, MCPP_EINVALID, "duplicate_key");
    CHECK_CONTAINS(r.message, "extra.a.x: duplicate key \"x\"");
    r = load_yaml("schema: mcpp.receipt/2\nextra:\n  k: 1\n  k: 2\n");
    expect_refused(r, MCPP_EINVALID, "duplicate_key");
    CHECK_STR_EQ(r.message, "t.yaml:4:3: duplicate key \"k\" (each key may appear once)");
}

TEST(nan_and_infinity_tokens_are_syntax_errors)
{
    load_result r = load_json("{\"schema\": \"mcpp.receipt/2\", \"metrics\": {\"tokens_per_s\": NaN}}");
    expect_refused(r, MCPP_EINVALID, "syntax");
    CHECK_CONTAINS(r.message, "NaN and Infinity are not numbers in JSON");
    expect_refused(load_json("{\"schema\": \"mcpp.receipt/2\", \"extra\": {\"x\": -Infinity}}"),
                   MCPP_EINVALID, "syntax");
    /* YAML's .nan / .inf are plain strings under the strict core schema */
    r = load_yaml("schema: mcpp.receipt/2\nmetrics:\n  tokens_per_s: .nan\n");
    expect_refused(r, MCPP_EINVALID, "type");
    CHECK_CONTAINS(r.message, "expected number, got string \".nan\"");
}

TEST(huge_numbers_are_refused_not_rounded)
{
    expect_refused(load_json("{\"schema\": \"mcpp.receipt/2\", \"extra\": {\"x\": 1e400}}"),
                   MCPP_EINVALID, "range");
    expect_refused(load_json("{\"schema\": \"mcpp.receipt/2\", \"metrics\": {\"step_time_s\": "
                             "{\"samples\": [1e400]}}}"),
                   MCPP_EINVALID, "range");
    load_result r = load_json("{\"schema\": \"mcpp.receipt/2\", \"topology\": {\"dp\": "
                              "1180591620717411303424}}");
    expect_refused(r, MCPP_EINVALID, "range");
    CHECK_CONTAINS(r.message, "overflows the exact integer range");
    r = load_yaml("schema: mcpp.receipt/2\ntopology:\n  dp: 1180591620717411303424\n");
    expect_refused(r, MCPP_EINVALID, "range");
    CHECK_CONTAINS(r.message, "t.yaml:3:7: topology.dp: expected integer");
    expect_refused(load_yaml("schema: mcpp.receipt/2\nmetrics:\n  tokens_per_s: 1e400\n"),
                   MCPP_EINVALID, "range");
}

TEST(invalid_utf8_is_an_encoding_error)
{
    load_result r = load_json("{\"schema\": \"mcpp.receipt/2\", \"lane\": {\"name\": \"a\xff\"}}");
    expect_refused(r, MCPP_EINVALID, "encoding");
    CHECK_STR_EQ(r.message, "t.json:1:49: invalid UTF-8 (byte 0xFF)");
    /* overlong encoding of '/', and a UTF-16 surrogate */
    expect_refused(load_json("{\"schema\": \"mcpp.receipt/2\", \"extra\": {\"a\": \"\xc0\xaf\"}}"),
                   MCPP_EINVALID, "encoding");
    expect_refused(load_json("{\"schema\": \"mcpp.receipt/2\", \"extra\": {\"a\": \"\xed\xa0\x80\"}}"),
                   MCPP_EINVALID, "encoding");
    expect_refused(load_yaml("schema: mcpp.receipt/2\nlane:\n  name: a\xff\n"), MCPP_EINVALID,
                   "encoding");
    /* valid multi-byte text passes and columns count characters */
    r = load_json("{\"schema\": \"mcpp.receipt/2\", \"lane\": {\"name\": \"\xc3\xa9t\xc3\xa9\", \"x\": 1}}");
    CHECK_STR_EQ(r.message, "t.json:1:54: lane.x: unknown field (free-form data goes in 'extra')");
}

TEST(escaped_nul_is_refused_but_an_escaped_backslash_is_not)
{
    load_result r = load_json("{\"schema\": \"mcpp.receipt/2\", \"lane\": {\"name\": \"a\\u0000b\"}}");
    expect_refused(r, MCPP_EINVALID, "encoding");
    CHECK_STR_EQ(r.message, "t.json:1:49: \\u0000 (NUL) is not allowed inside strings");
    /* "\\u0000" is a backslash followed by the text u0000: allowed */
    CHECK_INT_EQ(load_json("{\"schema\": \"mcpp.receipt/2\", \"lane\": {\"name\": \"a\\\\u0000b\"}}").status,
                 MCPP_OK);
    expect_refused(load_yaml("schema: mcpp.receipt/2\nlane:\n  name: \"a\\0b\"\n"), MCPP_EINVALID,
                   "encoding");
}

TEST(a_raw_control_character_in_a_string_is_refused)
{
    /* RFC 8259: control characters inside strings are escaped. Raw, one
     * written back as \u001d is six bytes, and a receipt at the string
     * limit would not load again (found by fuzz_json_load). */
    load_result r = load_json("{\"schema\": \"mcpp.receipt/2\", \"extra\": {\"k\x1d\": 1}}");
    expect_refused(r, MCPP_EINVALID, "encoding");
    CHECK_STR_EQ(r.message, "t.json:1:42: control character U+001D inside a string: JSON needs it escaped (\\u001d)");
    CHECK_INT_EQ(load_json("{\"schema\": \"mcpp.receipt/2\", \"extra\": {\"k\\u001d\": 1}}").status, MCPP_OK);
    CHECK_INT_EQ(load_json("{\"schema\": \"mcpp.receipt/2\", \"lane\": {\"name\": \"a\tb\"}}").status,
                 MCPP_EINVALID); /* a raw tab too */
}

TEST(trailing_garbage_is_refused)
{
    load_result r = load_json("{\"schema\": \"mcpp.receipt/2\"} {}");
    expect_refused(r, MCPP_EINVALID, "syntax");
    CHECK_STR_EQ(r.message, "t.json:1:30: invalid JSON: trailing characters after the receipt");
    CHECK_INT_EQ(load_json("{\"schema\": \"mcpp.receipt/2\"}\n\n  ").status, MCPP_OK);
}

TEST(empty_and_non_object_inputs_are_refused)
{
    expect_refused(load_json(""), MCPP_EINVALID, "syntax");
    mcpp_receipt *none = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_buffer(&none, NULL, NULL, 0, MCPP_FORMAT_AUTO, NULL, NULL),
                 MCPP_EINVALID); /* NULL with length 0: an empty input, not a crash */
    CHECK(none == NULL);
    expect_refused(load_json("[1, 2]"), MCPP_EINVALID, "type");
    expect_refused(load_yaml(""), MCPP_EINVALID, "syntax");
    expect_refused(load_yaml("just a string\n"), MCPP_EINVALID, "type");
    expect_refused(load_yaml("a: [1, 2\n"), MCPP_EINVALID, "syntax");
}

/* Truncating a receipt anywhere must never crash and never succeed with a
 * partial receipt (for JSON a prefix is never a complete object). */
static void truncate_everywhere(const char *path, mcpp_format format)
{
    size_t len;
    char *text = read_whole_file(path, &len);
    CHECK(text != NULL);
    if (!text)
        return;
    size_t ok = 0, refused_with_location = 0;
    for (size_t cut = 0; cut < len; cut++) {
        char *piece = malloc(cut ? cut : 1); /* exact size: ASan sees any over-read */
        memcpy(piece, text, cut);
        mcpp_receipt *r = NULL;
        mcpp_report *report = NULL;
        int rc = mcpp_receipt_load_buffer(&r, &report, piece, cut, format, "cut", NULL);
        if (rc == MCPP_OK) {
            ok++;
            CHECK(r != NULL);
        } else {
            CHECK(r == NULL);
            CHECK(mcpp_report_error_count(report) >= 1);
            const mcpp_diagnostic *d = mcpp_report_at(report, 0);
            if (d && d->line > 0)
                refused_with_location++;
        }
        mcpp_receipt_free(r);
        mcpp_report_free(report);
        free(piece);
    }
    if (format == MCPP_FORMAT_JSON) {
        /* only the cut that drops the final newline leaves the whole object */
        CHECK_INT_EQ(ok, 1);
        CHECK(refused_with_location + 1 >= len - 1);
    }
    printf("# %s: %zu cuts, %zu loaded, %zu refused with a location\n", path, len, ok,
           refused_with_location);
    free(text);
}

TEST(truncation_at_every_byte_offset_never_crashes_or_half_loads)
{
    truncate_everywhere(GOLDEN "/nam56r_padded.json", MCPP_FORMAT_JSON);
    /* YAML has no end marker: a cut at a line boundary can be a valid, shorter
     * receipt; what must hold is no crash, no leak, a diagnosis when refused. */
    truncate_everywhere(GOLDEN "/nam52_dense.yaml", MCPP_FORMAT_YAML);
}

TEST(yaml_anchors_and_aliases_are_refused)
{
    load_result r = load_yaml("schema: mcpp.receipt/2\nextra:\n  a: &x 1\n  b: *x\n");
    expect_refused(r, MCPP_EINVALID, "yaml_feature");
    CHECK_STR_EQ(r.message, "t.yaml:3:6: anchors are not allowed (found &x): a receipt is plain "
                            "data, and anchors with aliases can expand exponentially");
    r = load_yaml("schema: mcpp.receipt/2\nextra:\n  b: *x\n");
    expect_refused(r, MCPP_EINVALID, "yaml_feature"); /* refused at the alias itself */
    CHECK_CONTAINS(r.message, "t.yaml:3:6: aliases are not allowed (found *x)");
}

TEST(yaml_billion_laughs_stops_at_the_first_anchor)
{
    char doc[4096];
    size_t n = (size_t)snprintf(doc, sizeof doc, "schema: mcpp.receipt/2\nextra:\n  l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for (int i = 1; i < 10; i++)
        n += (size_t)snprintf(doc + n, sizeof doc - n,
                              "  l%d: &l%d [*l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d, *l%d]\n", i,
                              i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
    load_result r = load_yaml(doc);
    expect_refused(r, MCPP_EINVALID, "yaml_feature");
    CHECK_CONTAINS(r.message, "t.yaml:3:7: anchors are not allowed (found &l0)");
}

TEST(yaml_tags_are_refused)
{
    load_result r = load_yaml("schema: mcpp.receipt/2\nextra:\n  x: !!python/object:os.system ls\n");
    expect_refused(r, MCPP_EINVALID, "yaml_feature");
    CHECK_CONTAINS(r.message, "explicit tags are not allowed (found tag:yaml.org,2002:python/object:os.system)");
    expect_refused(load_yaml("schema: !!str mcpp.receipt/2\n"), MCPP_EINVALID, "yaml_feature");
    expect_refused(load_yaml("schema: mcpp.receipt/2\nlane: !custom {a: 1}\n"), MCPP_EINVALID,
                   "yaml_feature");
}

TEST(yaml_second_document_is_refused)
{
    load_result r = load_yaml("schema: mcpp.receipt/2\n---\nschema: mcpp.receipt/2\n");
    expect_refused(r, MCPP_EINVALID, "yaml_feature");
    CHECK_STR_EQ(r.message, "t.yaml:2:1: a second YAML document is not allowed: one receipt per file");
}

TEST(yaml_complex_keys_are_refused)
{
    expect_refused(load_yaml("schema: mcpp.receipt/2\nextra:\n  ? [a, b]\n  : 1\n"), MCPP_EINVALID,
                   "yaml_feature");
}

TEST(input_size_limit_is_checked_before_reading)
{
    mcpp_limits lim;
    mcpp_limits_default(&lim);
    CHECK_INT_EQ(lim.max_input_bytes, (size_t)16 << 20);
    lim.max_input_bytes = 10;
    load_result r = load_text_fmt("{\"schema\": \"mcpp.receipt/2\"}", 28, MCPP_FORMAT_JSON, "t.json", &lim);
    expect_refused(r, MCPP_ELIMIT, "limit");
    CHECK_STR_EQ(r.message, "t.json: input of 28 bytes is beyond the limit of 10 bytes");

    /* a sparse 64 MiB file: refused from its size, without reading 64 MiB */
    char path[] = "/tmp/mcpp_core_big_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd >= 0) {
        CHECK_INT_EQ(ftruncate(fd, (off_t)64 << 20), 0);
        close(fd);
        mcpp_receipt *rec = NULL;
        mcpp_report *report = NULL;
        CHECK_INT_EQ(mcpp_receipt_load_file(&rec, &report, path, NULL), MCPP_ELIMIT);
        CHECK(rec == NULL);
        CHECK_STR_EQ(mcpp_error_last()->kind, "limit");
        CHECK_CONTAINS(mcpp_error_last()->message, "file of 67108864 bytes is beyond the limit of 16777216 bytes");
        CHECK_INT_EQ(mcpp_report_error_count(report), 1);
        mcpp_report_free(report);
        unlink(path);
    }
}

TEST(string_length_and_depth_limits_are_configurable)
{
    mcpp_limits lim;
    mcpp_limits_default(&lim);
    lim.max_string_bytes = 4;
    load_result r = load_text_fmt("{\"schema\": \"mcpp.receipt/2\"}", 28, MCPP_FORMAT_JSON, "t.json", &lim);
    expect_refused(r, MCPP_ELIMIT, "limit");
    CHECK_STR_EQ(r.message, "t.json:1:2: string longer than the limit of 4 bytes");
    r = load_text_fmt("schema: mcpp.receipt/2\n", 23, MCPP_FORMAT_YAML, "t.yaml", &lim);
    expect_refused(r, MCPP_ELIMIT, "limit");
    mcpp_limits_default(&lim);
    lim.max_depth = 2;
    r = load_text_fmt("{\"schema\": \"mcpp.receipt/2\", \"lane\": {\"a\": []}}", 46, MCPP_FORMAT_JSON,
                      "t.json", &lim);
    expect_refused(r, MCPP_ELIMIT, "limit");
    lim.max_array_items = 2;
    lim.max_depth = 64;
    r = load_json("{\"schema\": \"mcpp.receipt/2\"}");
    CHECK_INT_EQ(r.status, MCPP_OK);
    r = load_text_fmt("{\"schema\": \"mcpp.receipt/2\", \"status\": {\"caveats\": [\"a\", \"b\", \"c\"]}}",
                      68, MCPP_FORMAT_JSON, "t.json", &lim);
    expect_refused(r, MCPP_ELIMIT, "limit");
    const char *extra_list = "{\"schema\": \"mcpp.receipt/2\", \"extra\": {\"l\": [1, 2, 3]}}";
    r = load_text_fmt(extra_list, strlen(extra_list), MCPP_FORMAT_JSON, "t.json", &lim);
    expect_refused(r, MCPP_ELIMIT, "limit");
    CHECK_CONTAINS(r.message, "extra.l: list of 3 items is beyond the limit of 2");
}

/* A text of `n` members "kNNN": 1 (JSON object body or YAML mapping lines). */
static char *many_members(size_t n, int yaml, const char *head, const char *dup,
                          const char *tail)
{
    size_t cap = strlen(head) + n * 32 + 64;
    char *s = malloc(cap), *p = s;
    p += sprintf(p, "%s", head);
    for (size_t i = 0; i < n; i++)
        p += yaml ? sprintf(p, "  k%zu: 1\n", i) : sprintf(p, "%s\"k%zu\": 1", i ? ", " : "", i);
    if (dup)
        p += sprintf(p, "%s", dup);
    p += sprintf(p, "%s", tail);
    return s;
}

TEST(a_million_problems_are_counted_but_only_32_are_located)
{
    /* 200k unknown top-level keys: linear time, a bounded report */
    char *s = many_members(200000, 0, "{\"schema\": \"mcpp.receipt/2\", ", NULL, "}");
    mcpp_receipt *r = NULL;
    mcpp_report *report = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_buffer(&r, &report, s, strlen(s), MCPP_FORMAT_JSON, "t.json", NULL),
                 MCPP_EINVALID);
    CHECK_INT_EQ(mcpp_report_error_count(report), 32);
    CHECK_INT_EQ(mcpp_report_count(report), 33);
    CHECK_CONTAINS(mcpp_report_at(report, 32)->message, "too many problems");
    CHECK_CONTAINS(mcpp_report_at(report, 0)->message, "t.json:1:30: k0: unknown top-level field");
    mcpp_report_free(report);
    free(s);
}

TEST(duplicates_in_huge_objects_are_found_in_n_log_n)
{
    char *s = many_members(200000, 0, "{\"schema\": \"mcpp.receipt/2\", \"extra\": {", ", \"k7\": 2",
                           "}}");
    load_result r = load_json(s);
    expect_refused(r, MCPP_EINVALID, "duplicate_key");
    CHECK_CONTAINS(r.message, "extra.k7: duplicate key \"k7\"");
    free(s);
    s = many_members(100000, 1, "schema: mcpp.receipt/2\nextra:\n", "  k7: 2\n", "");
    r = load_yaml(s);
    expect_refused(r, MCPP_EINVALID, "duplicate_key");
    CHECK_STR_EQ(r.message, "t.yaml:100003:3: duplicate key \"k7\" (each key may appear once)");
    free(s);
    /* and without a duplicate, the same sizes load */
    s = many_members(100000, 1, "schema: mcpp.receipt/2\nextra:\n", NULL, "");
    CHECK_INT_EQ(load_yaml(s).status, MCPP_OK);
    free(s);
}

/* The text of free-form value `path` of r: its length, and the same pointer on a second read. */
static size_t free_form_text_length(const mcpp_receipt *r, const char *path, const char *starts)
{
    mcpp_value v = MCPP_VALUE_INIT, again = MCPP_VALUE_INIT;
    CHECK_INT_EQ(mcpp_receipt_get(r, path, &v), MCPP_OK);
    CHECK_INT_EQ(v.type, MCPP_TYPE_OBJECT);
    if (!v.string)
        return 0;
    CHECK(strncmp(v.string, starts, strlen(starts)) == 0);
    CHECK_INT_EQ(mcpp_receipt_get(r, path, &again), MCPP_OK);
    CHECK(again.string == v.string); /* made once, kept with the receipt */
    return strlen(v.string);
}

TEST(deeply_nested_big_free_form_data_loads_and_each_level_s_text_is_made_when_read)
{
    /* 40 levels of {"a": ...} around a list of 10^6 numbers. Each level's
     * JSON text kept beside the tree would take ~80 MiB (refused as a limit
     * when receipts kept them); the receipt keeps only the tree, and a
     * level's text is written when it is read, exactly as cJSON's tree of the
     * same value would be written compact */
    size_t items = 1000000, levels = 40;
    char *s = malloc(64 + levels * 8 + items * 2 + levels + 8), *p = s;
    p += sprintf(p, "{\"schema\": \"mcpp.receipt/2\", \"extra\": ");
    for (size_t i = 0; i < levels; i++)
        p += sprintf(p, "{\"a\": ");
    *p++ = '[';
    for (size_t i = 0; i < items; i++) {
        *p++ = '1';
        *p++ = i + 1 < items ? ',' : ']';
    }
    for (size_t i = 0; i < levels; i++)
        *p++ = '}';
    *p++ = '}';
    *p = '\0';
    mcpp_receipt *r = must_load(s, strlen(s), MCPP_FORMAT_JSON);
    CHECK(r != NULL);
    if (r) {
        size_t list = 2 * items + 1; /* [1,1,...,1] */
        CHECK_INT_EQ(free_form_text_length(r, "extra", "{\"a\":{\"a\":"), list + levels * 6);
        char path[16 + 2 * 40] = "extra";
        for (size_t i = 0; i < 20; i++)
            strcat(path, ".a");
        CHECK_INT_EQ(free_form_text_length(r, path, "{\"a\":"), list + 20 * 6);
        for (size_t i = 20; i < levels; i++)
            strcat(path, ".a");
        CHECK_INT_EQ(free_form_text_length(r, path, "[1,1,1,"), list);
        mcpp_value v = MCPP_VALUE_INIT;
        CHECK_INT_EQ(mcpp_receipt_get(r, path, &v), MCPP_OK);
        CHECK_INT_EQ(v.count, items);
    }
    mcpp_receipt_free(r);
    free(s);
}

/* ---- threads: no shared state besides the thread-local error ------------------------- */

typedef struct thread_job {
    const char *text;
    size_t len;
    const char *expected;
    int failures;
} thread_job;

static void *load_many(void *arg)
{
    thread_job *job = arg;
    for (int i = 0; i < 200; i++) {
        mcpp_receipt *r = NULL;
        if (mcpp_receipt_load_buffer(&r, NULL, job->text, job->len, MCPP_FORMAT_AUTO, "t", NULL) != 0) {
            job->failures++;
            continue;
        }
        char *out = NULL;
        mcpp_receipt_write(&out, NULL, r, MCPP_FORMAT_JSON);
        if (!out || strcmp(out, job->expected) != 0)
            job->failures++;
        /* an error on this thread must not leak into another thread's last error */
        mcpp_receipt *bad = NULL;
        if (mcpp_receipt_load_buffer(&bad, NULL, "{", 1, MCPP_FORMAT_JSON, "bad", NULL) == 0 ||
            strcmp(mcpp_error_last()->kind, "syntax") != 0)
            job->failures++;
        mcpp_free(out);
        mcpp_receipt_free(r);
    }
    return NULL;
}

TEST(loading_from_four_threads_at_once_gives_identical_results)
{
    size_t jlen, ylen;
    char *json = read_whole_file(GOLDEN "/nam56r_padded.json", &jlen);
    char *yaml = read_whole_file(GOLDEN "/nam56r_padded.yaml", &ylen);
    pthread_t threads[4];
    thread_job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i].text = i % 2 ? yaml : json;
        jobs[i].len = i % 2 ? ylen : jlen;
        jobs[i].expected = json;
        jobs[i].failures = 0;
        pthread_create(&threads[i], NULL, load_many, &jobs[i]);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        CHECK_INT_EQ(jobs[i].failures, 0);
    }
    free(json);
    free(yaml);
}

/* One receipt read from four threads at once: a free-form value's text is
 * written on its first read, and threads that race to write it must all get
 * the one text kept with the receipt (a fresh receipt each round, so the
 * first reads race again; the sanitizer build runs this too). */
static const char *const TEXT_PATHS[] = {"extra", "extra.a", "extra.b", "extra.b.2", "artifacts"};
#define N_TEXT_PATHS (sizeof TEXT_PATHS / sizeof TEXT_PATHS[0])

typedef struct text_job {
    const mcpp_receipt *r;
    pthread_barrier_t *start;
    const char *got[N_TEXT_PATHS];
} text_job;

static void *read_texts(void *arg)
{
    text_job *job = arg;
    pthread_barrier_wait(job->start);
    for (size_t k = 0; k < N_TEXT_PATHS; k++) {
        mcpp_value v = MCPP_VALUE_INIT;
        job->got[k] = mcpp_receipt_get(job->r, TEXT_PATHS[k], &v) == MCPP_OK ? v.string : NULL;
    }
    return NULL;
}

TEST(threads_reading_one_receipt_s_free_form_text_at_once_get_the_same_text)
{
    static const char json[] =
        "{\"schema\": \"mcpp.receipt/2\", \"artifacts\": [{\"kind\": \"trace\", \"uri\": \"t.json\"}], "
        "\"extra\": {\"b\": [1, 2.5, {\"z\": null, \"a\": true}], \"a\": {\"y\": \"x\"}}}";
    static const char *const want[N_TEXT_PATHS] = {
        "{\"a\":{\"y\":\"x\"},\"b\":[1,2.5,{\"a\":true,\"z\":null}]}", "{\"y\":\"x\"}",
        "[1,2.5,{\"a\":true,\"z\":null}]", "{\"a\":true,\"z\":null}", "[{\"kind\":\"trace\",\"uri\":\"t.json\"}]"};
    int wrong = 0;
    for (int round = 0; round < 100; round++) {
        mcpp_receipt *r = must_load(json, strlen(json), MCPP_FORMAT_JSON);
        CHECK(r != NULL);
        if (!r)
            return;
        pthread_barrier_t start;
        pthread_barrier_init(&start, NULL, 4);
        pthread_t threads[4];
        text_job jobs[4];
        for (int i = 0; i < 4; i++) {
            jobs[i] = (text_job){.r = r, .start = &start};
            pthread_create(&threads[i], NULL, read_texts, &jobs[i]);
        }
        for (int i = 0; i < 4; i++)
            pthread_join(threads[i], NULL);
        for (size_t k = 0; k < N_TEXT_PATHS; k++)
            for (int i = 0; i < 4; i++)
                wrong += !jobs[i].got[k] || jobs[i].got[k] != jobs[0].got[k] || strcmp(jobs[i].got[k], want[k]) != 0;
        if (round == 0)
            for (size_t k = 0; k < N_TEXT_PATHS; k++)
                CHECK_STR_EQ(jobs[0].got[k] ? jobs[0].got[k] : "(none)", want[k]);
        pthread_barrier_destroy(&start);
        mcpp_receipt_free(r);
    }
    CHECK_INT_EQ(wrong, 0);
}

int main(void)
{
    RUN(json_nesting_100000_deep_is_a_limit_error);
    RUN(yaml_nesting_100000_deep_is_a_limit_error);
    RUN(duplicate_keys_are_refused_where_the_second_one_sits);
    RUN(nan_and_infinity_tokens_are_syntax_errors);
    RUN(huge_numbers_are_refused_not_rounded);
    RUN(invalid_utf8_is_an_encoding_error);
    RUN(escaped_nul_is_refused_but_an_escaped_backslash_is_not);
    RUN(a_raw_control_character_in_a_string_is_refused);
    RUN(trailing_garbage_is_refused);
    RUN(empty_and_non_object_inputs_are_refused);
    RUN(truncation_at_every_byte_offset_never_crashes_or_half_loads);
    RUN(yaml_anchors_and_aliases_are_refused);
    RUN(yaml_billion_laughs_stops_at_the_first_anchor);
    RUN(yaml_tags_are_refused);
    RUN(yaml_second_document_is_refused);
    RUN(yaml_complex_keys_are_refused);
    RUN(input_size_limit_is_checked_before_reading);
    RUN(string_length_and_depth_limits_are_configurable);
    RUN(a_million_problems_are_counted_but_only_32_are_located);
    RUN(duplicates_in_huge_objects_are_found_in_n_log_n);
    RUN(deeply_nested_big_free_form_data_loads_and_each_level_s_text_is_made_when_read);
    RUN(loading_from_four_threads_at_once_gives_identical_results);
    RUN(threads_reading_one_receipt_s_free_form_text_at_once_get_the_same_text);
    TEST_MAIN_END();
}
