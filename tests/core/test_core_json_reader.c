/*
 * test_core_json_reader.c — the direct JSON reader (lib/src/io/json_bind_reader.c)
 * loads every input exactly as the cJSON tree path does: the example receipts,
 * the hostile inputs, the fuzz seeds, deterministic mutations of all of them,
 * and cJSON's lenient corners. Normal receipts must take the direct path. The
 * property itself is tests/fuzz/json_diff_check.h, which the libFuzzer target
 * fuzz_json_diff checks on random inputs (scripts/fuzz.sh diff).
 */
#include <dirent.h>
#include <sys/stat.h>

#include "test_util.h"
#include "json_diff_check.h"

typedef struct seed {
    char *data;
    size_t len;
    char name[300];
} seed;

static seed seeds[400];
static size_t n_seeds;

static void add_seed(const char *path, const char *name)
{
    FILE *f = fopen(path, "rb");
    if (!f || n_seeds == sizeof seeds / sizeof seeds[0]) {
        if (f)
            fclose(f);
        return;
    }
    seed *s = &seeds[n_seeds];
    s->data = malloc(1 << 20);
    s->len = fread(s->data, 1, 1 << 20, f);
    fclose(f);
    snprintf(s->name, sizeof s->name, "%s", name);
    n_seeds++;
}

/* Every .json file of dir (and, with any_name, every file). */
static void add_dir(const char *dir, int any_name)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "seed folder %s is missing\n", dir);
        test_failures_current++;
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (e->d_name[0] == '.' || (!any_name && (n < 5 || strcmp(e->d_name + n - 5, ".json") != 0)))
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            add_seed(path, e->d_name);
    }
    closedir(d);
}

static void load_seeds(void)
{
    if (n_seeds)
        return;
    add_dir(MCPP_EXAMPLES_DIR "/receipts", 0);
    add_dir(MCPP_EXAMPLES_DIR "/receipts/gpu", 0);
    add_dir(MCPP_EXAMPLES_DIR "/receipts/schema2", 0);
    add_dir(MCPP_HOSTILE_DIR, 0);
    add_dir(MCPP_FUZZ_SEEDS_DIR, 1);
}

static int divergences_shown;

/* Checks one input with default and with small limits; counts a divergence. */
static int agree(const char *data, size_t len, const char *what)
{
    char why[16384];
    mcpp_limits small;
    mcpp_limits_default(&small);
    small.max_depth = 8;
    small.max_array_items = 4;
    small.max_string_bytes = 70;
    for (int k = 0; k < 2; k++) {
        if (json_diff_check((const uint8_t *)data, len, k ? &small : NULL, NULL, why,
                            sizeof why) != 0) {
            if (divergences_shown++ < 5)
                fprintf(stderr, "%s (%s limits): %s\n--- input\n%.*s\n", what,
                        k ? "small" : "default", why, (int)(len < 3000 ? len : 3000), data);
            return 0;
        }
    }
    return 1;
}

TEST(seed_files_load_the_same_through_both_paths)
{
    load_seeds();
    CHECK(n_seeds >= 40);
    for (size_t i = 0; i < n_seeds; i++)
        CHECK(agree(seeds[i].data, seeds[i].len, seeds[i].name));
}

/* Byte-level edits of every seed: truncations, replacements by bytes that
 * matter to a JSON reader, insertions of tricky tokens. */
static const char *const tokens[] = {
    "\"", "\\", "0", "-", "e", "E", ".", ",", ":", "}", "]", "{", "[", " ", "\t", "\x01", "\x0c",
    "\xC3\xA9", "\xC3", "u", "n", "+", "01", "-0", "1e400", "1e-400", "0.1e1", "1.", "\\u00e9",
    "\\ud83d\\ude00", "\\ud83d", "\\udc00", "\\u0041", "\\n", "\\/", "\xEF\xBB\xBF", "true", "null",
    "\"x\":1,", "123456789012345678901234567890", "0.30000000000000004", "9007199254740993",
    "1E+2", "[]", "{}", "\"\\u0000\""};

TEST(mutated_seeds_load_the_same_through_both_paths)
{
    load_seeds();
    char *buf = malloc(1 << 20);
    size_t checks = 0, bad = 0;
    for (size_t i = 0; i < n_seeds; i++) {
        const seed *s = &seeds[i];
        if (s->len > 16384)
            continue;
        size_t step = s->len / 12 + 1;
        for (size_t at = 0; at < s->len; at += step) {
            checks++;
            bad += !agree(s->data, at, "truncated seed");
            for (size_t t = 0; t < sizeof tokens / sizeof tokens[0]; t++) {
                size_t n = strlen(tokens[t]);
                /* replace the byte at `at` */
                memcpy(buf, s->data, at);
                memcpy(buf + at, tokens[t], n);
                memcpy(buf + at + n, s->data + at + 1, s->len - at - 1);
                checks++;
                bad += !agree(buf, s->len - 1 + n, "edited seed");
                /* insert before the byte at `at` */
                memcpy(buf + at + n, s->data + at, s->len - at);
                checks++;
                bad += !agree(buf, s->len + n, "edited seed");
            }
        }
    }
    printf("# %zu mutated inputs checked, %zu divergences\n", checks, bad);
    CHECK(checks > 10000);
    CHECK(bad == 0);
    free(buf);
}

TEST(example_receipts_take_the_direct_path)
{
    load_seeds();
    size_t direct = 0;
    for (size_t i = 0; i < n_seeds; i++) {
        int fell_back = 0;
        char why[4096];
        mcpp_receipt *r = NULL;
        if (strncmp(seeds[i].data, "{", 1) != 0 ||
            mcpp_receipt_load_buffer(&r, NULL, seeds[i].data, seeds[i].len, MCPP_FORMAT_JSON,
                                     NULL, NULL) != MCPP_OK)
            continue; /* refused inputs may fall back: the tree path reports them */
        mcpp_receipt_free(r);
        CHECK(json_diff_check((const uint8_t *)seeds[i].data, seeds[i].len, NULL, &fell_back, why,
                              sizeof why) == 0);
        if (fell_back)
            fprintf(stderr, "%s loads but not through the direct reader\n", seeds[i].name);
        CHECK(!fell_back);
        direct++;
    }
    printf("# %zu loadable example receipts, all through the direct reader\n", direct);
    CHECK(direct >= 15);
}

/* A receipt around `members` (schema 2): both paths agree, and the reader
 * took the direct path or handed back as expected. */
static void check_receipt(const char *members, int expect_fallback)
{
    static char text[65536];
    int fell_back = -1;
    char why[8192];
    snprintf(text, sizeof text,
             "{\"schema\": \"mcpp.receipt/2\", \"created_at\": \"2026-11-22T01:02:03Z\", %s}",
             members);
    int bad = json_diff_check((const uint8_t *)text, strlen(text), NULL, &fell_back, why,
                              sizeof why);
    if (bad)
        fprintf(stderr, "%s\n%s\n", text, why);
    CHECK(!bad);
    if (fell_back != expect_fallback)
        fprintf(stderr, "expected %s: %s\n", expect_fallback ? "a fallback" : "the direct path",
                text);
    CHECK(fell_back == expect_fallback);
}

TEST(escapes_and_number_forms_are_read_like_cjson)
{
    check_receipt("\"source\": {\"command\": \"a \\\"b\\\" \\\\ \\/ \\b\\f\\n\\r\\t \\u00e9 "
                  "\\u20AC \\ud83d\\ude00 caf\xC3\xA9\"}",
                  0);
    check_receipt("\"extra\": {\"z\": [1, -0, 1e3, 1E-3, 0.1, 123456789.123456789, 1e400]}", 1);
    check_receipt("\"extra\": {\"z\": [1, -0, 1e3, 1E-3, 0.1, 123456789.123456789]}", 0);
    check_receipt("\"metrics\": {\"tokens_per_s\": 0.30000000000000004, \"peak_memory_gib\": "
                  "9007199254740993, \"step_time_s\": {\"samples\": [0.5, 5e-1, 50E-2], "
                  "\"median\": 0.5}}",
                  0);
    check_receipt("\"run\": {\"seed\": 1234567890123456}", 0); /* 16 digits: strtod */
    check_receipt("\"run\": {\"seed\": 012}", 1);               /* cJSON reads "012" */
    check_receipt("\"run\": {\"seed\": 1.}", 1);
    check_receipt("\"run\": {\"seed\": 1.5}", 1); /* not an integer: the binder reports */
    check_receipt("\"source\": {\"host\": \"tab\there\"}", 1);     /* raw control byte */
    check_receipt("\"source\": {\"h\\u006fst\": \"x\"}", 1);        /* escaped key */
    check_receipt("\"source\": {\"host\": \"x\"},\x0c\"id\": \"y\"", 1); /* cJSON's blank */
    check_receipt("\"source\": {\"host\": \"a\", \"host\": \"b\"}", 1);  /* duplicate */
    check_receipt("\"source\": {\"host\": \"\\ud83d\"}", 1);           /* lone surrogate */
    check_receipt("\"sorce\": {}", 1);                                   /* unknown */
    /* enum names are matched in the text; an escaped one is decoded first */
    check_receipt("\"status\": {\"outcome\": \"partial\", \"stability\": \"blocked\"}", 0);
    check_receipt("\"status\": {\"outcome\": \"o\\u006b\"}", 0);
    check_receipt("\"status\": {\"outcome\": \"okay\"}", 1);
    check_receipt("\"status\": {\"outcome\": \"o\"}", 1);
    check_receipt("\"status\": {\"outcome\": \"\"}", 1);
    check_receipt("\"status\": {\"outcome\": \"ok\\\"\"}", 1);
}

/* The reader scans strings eight bytes at a time: every kind of byte that
 * ends a plain run (the closing quote, an escape, UTF-8, DEL as a plain byte,
 * a raw control byte) at every offset of the first words of a string, in a
 * schema field and in a free-form value. */
TEST(each_kind_of_string_byte_at_every_offset_of_a_word_is_read_like_cjson)
{
    static const struct {
        const char *text;
        int fallback;
    } ends[] = {{"", 0},         {"\\\"", 0},         {"\\\\", 0},
                {"\\n", 0},      {"\\u00e9", 0},      {"\\ud83d\\ude00", 0},
                {"\xC3\xA9", 0}, {"\xE2\x82\xAC", 0}, {"\xF0\x9F\x98\x80", 0},
                {"\x7F", 0},     {" ~", 0},           {"\x1F", 1}};
    char plain[40], members[200];
    for (size_t e = 0; e < sizeof ends / sizeof ends[0]; e++)
        for (int k = 0; k <= 17; k++) {
            memset(plain, 'x', (size_t)k);
            plain[k] = '\0';
            snprintf(members, sizeof members, "\"source\": {\"host\": \"%s%s%s\"}", plain, ends[e].text, plain + k / 2);
            check_receipt(members, ends[e].fallback);
            snprintf(members, sizeof members, "\"extra\": {\"%s%s\": \"%s%s\"}", plain, ends[e].text, plain,
                     ends[e].text);
            check_receipt(members, ends[e].fallback);
        }
}

TEST(schema_1_is_upgraded_on_the_direct_path_when_its_schema_comes_first)
{
    const char *v1 = "{\"schema\": \"mcpp.receipt/1\", \"created_at\": \"2026-11-22T01:02:03Z\", "
                     "\"backend\": {\"precision\": \"bf16\"}}";
    const char *v1_late = "{\"backend\": {\"precision\": \"bf16\"}, \"schema\": "
                          "\"mcpp.receipt/1\", \"created_at\": \"2026-11-22T01:02:03Z\"}";
    int fell_back = -1;
    char why[8192];
    CHECK(json_diff_check((const uint8_t *)v1, strlen(v1), NULL, &fell_back, why, sizeof why) == 0);
    CHECK(fell_back == 0);
    CHECK(json_diff_check((const uint8_t *)v1_late, strlen(v1_late), NULL, &fell_back, why,
                          sizeof why) == 0);
    CHECK(fell_back == 1);
    mcpp_report *report = NULL;
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_buffer(&r, &report, v1, strlen(v1), MCPP_FORMAT_JSON, "v1.json",
                                          NULL),
                 MCPP_OK);
    CHECK(mcpp_report_count(report) == 1);
    CHECK_STR_EQ(mcpp_report_at(report, 0)->kind, "schema");
    mcpp_report_free(report);
    mcpp_receipt_free(r);
}

/* Lists longer than the reader's stack buffer (64 items) and a text longer
 * than its stack string area (4 KiB) take their heap paths. */
TEST(long_lists_and_long_texts_take_the_direct_path)
{
    static char members[40000];
    char *p = members, *end = members + sizeof members;
    p += snprintf(p, (size_t)(end - p), "\"metrics\": {\"step_time_s\": {\"samples\": [");
    for (int i = 0; i < 300; i++)
        p += snprintf(p, (size_t)(end - p), "%s%d.%03d", i ? ", " : "", 1 + i % 3, i);
    p += snprintf(p, (size_t)(end - p), "]}}, \"status\": {\"caveats\": [");
    for (int i = 0; i < 150; i++)
        p += snprintf(p, (size_t)(end - p), "%s\"caveat number %d with some words\"", i ? ", " : "",
                      i);
    p += snprintf(p, (size_t)(end - p), "]}");
    CHECK(p - members > 6000 && p < end); /* beyond the 4 KiB stack string area */
    check_receipt(members, 0);
}

/* The reader runs before the pre-scan and must refuse (hand back) whatever
 * the pre-scan refuses, so the pre-scan's message still comes out: invalid
 * UTF-8, "\u0000", a string over the limit and nesting beyond the limit, in a
 * schema field and in a free-form value, at every depth limit around the
 * text's own depth. Both paths must agree on each, the reader's side falling
 * back; and one byte under each limit, the reader binds. */
static void check_limited(const char *members, size_t max_depth, size_t max_string, int expect_fallback)
{
    static char text[4096];
    snprintf(text, sizeof text, "{\"schema\": \"mcpp.receipt/2\", \"created_at\": \"2026-11-22T01:02:03Z\", %s}",
             members);
    mcpp_limits lim;
    mcpp_limits_default(&lim);
    lim.max_depth = max_depth;
    lim.max_string_bytes = max_string;
    int fell_back = -1;
    char why[8192];
    int bad = json_diff_check((const uint8_t *)text, strlen(text), &lim, &fell_back, why, sizeof why);
    if (bad || fell_back != expect_fallback)
        fprintf(stderr, "depth %zu, strings %zu, expected %s: %s\n%s\n", max_depth, max_string,
                expect_fallback ? "a fallback" : "the direct path", text, bad ? why : "");
    CHECK(!bad);
    CHECK(fell_back == expect_fallback);
}

TEST(what_the_pre_scan_refuses_the_reader_hands_back)
{
    check_limited("\"source\": {\"host\": \"caf\xC3\"}", 64, 65536, 1);      /* cut UTF-8 */
    check_limited("\"source\": {\"host\": \"\xED\xA0\x80\"}", 64, 65536, 1); /* a surrogate */
    check_limited("\"source\": {\"host\": \"caf\xC3\xA9\"}", 64, 65536, 0);
    check_limited("\"extra\": {\"a\": \"caf\xC3\"}", 64, 65536, 1);
    check_limited("\"extra\": {\"a\": \"\\u0000\"}", 64, 65536, 1);
    char members[400], long_value[201];
    memset(long_value, 'x', 200);
    long_value[200] = '\0';
    snprintf(members, sizeof members, "\"source\": {\"host\": \"%s\"}", long_value);
    check_limited(members, 64, 199, 1);
    check_limited(members, 64, 200, 0);
    snprintf(members, sizeof members, "\"extra\": {\"a\": [\"%s\"]}", long_value);
    check_limited(members, 64, 199, 1);
    check_limited(members, 64, 200, 0);
    /* depth: the root, metrics, step_time_s, the samples' list: 4 */
    const char *list = "\"metrics\": {\"step_time_s\": {\"samples\": [0.5, 0.5], \"median\": 0.5}}";
    check_limited(list, 3, 65536, 1);
    check_limited(list, 4, 65536, 0);
    const char *section = "\"backend\": {\"attention\": {\"requested\": \"flash\"}}"; /* 3 */
    check_limited(section, 2, 65536, 1);
    check_limited(section, 3, 65536, 0);
    const char *nested = "\"extra\": {\"a\": {\"b\": [{\"c\": 1}]}}"; /* 5 */
    check_limited(nested, 4, 65536, 1);
    check_limited(nested, 5, 65536, 0);
}

int main(void)
{
    RUN(seed_files_load_the_same_through_both_paths);
    RUN(mutated_seeds_load_the_same_through_both_paths);
    RUN(example_receipts_take_the_direct_path);
    RUN(escapes_and_number_forms_are_read_like_cjson);
    RUN(each_kind_of_string_byte_at_every_offset_of_a_word_is_read_like_cjson);
    RUN(schema_1_is_upgraded_on_the_direct_path_when_its_schema_comes_first);
    RUN(long_lists_and_long_texts_take_the_direct_path);
    RUN(what_the_pre_scan_refuses_the_reader_hands_back);
    TEST_MAIN_END();
}
