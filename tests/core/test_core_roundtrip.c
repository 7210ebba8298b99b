/*
 * test_core_roundtrip.c — canonical writing: JSON -> receipt -> JSON is
 * byte-identical, YAML twins give the same JSON, YAML -> YAML is stable, the
 * shipped example receipts round-trip, ids derive deterministically, and
 * mcpp_receipt_write_file replaces files atomically.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core_test_helpers.h"
#include "test_util.h"

#define GOLDEN MCPP_CORE_GOLDEN_DIR

static int json_roundtrip_is_identical(const char *path)
{
    size_t len;
    char *text = read_whole_file(path, &len);
    if (!text)
        return 0;
    mcpp_receipt *r = must_load(text, len, MCPP_FORMAT_JSON);
    char *out = r ? write_text(r, MCPP_FORMAT_JSON) : NULL;
    int same = out && strcmp(out, text) == 0;
    if (!same)
        fprintf(stderr, "%s: canonical JSON differs after a round trip\n", path);
    mcpp_free(out);
    mcpp_receipt_free(r);
    free(text);
    return same;
}

/* YAML -> JSON equals the JSON twin; YAML -> YAML -> YAML is a fixed point. */
static int yaml_twin_matches(const char *yaml_path, const char *json_path)
{
    size_t ylen, jlen;
    char *yaml = read_whole_file(yaml_path, &ylen), *json = read_whole_file(json_path, &jlen);
    int ok = 0;
    mcpp_receipt *r = yaml && json ? must_load(yaml, ylen, MCPP_FORMAT_YAML) : NULL;
    char *as_json = r ? write_text(r, MCPP_FORMAT_JSON) : NULL;
    char *as_yaml = r ? write_text(r, MCPP_FORMAT_YAML) : NULL;
    mcpp_receipt *r2 = as_yaml ? must_load(as_yaml, strlen(as_yaml), MCPP_FORMAT_YAML) : NULL;
    char *as_yaml2 = r2 ? write_text(r2, MCPP_FORMAT_YAML) : NULL;
    if (as_json && strcmp(as_json, json) == 0 && as_yaml2 && strcmp(as_yaml, as_yaml2) == 0)
        ok = 1;
    else
        fprintf(stderr, "%s: YAML does not match its JSON twin %s or is unstable\n", yaml_path,
                json_path);
    mcpp_free(as_json);
    mcpp_free(as_yaml);
    mcpp_free(as_yaml2);
    mcpp_receipt_free(r);
    mcpp_receipt_free(r2);
    free(yaml);
    free(json);
    return ok;
}

TEST(golden_json_round_trips_byte_identical)
{
    CHECK(json_roundtrip_is_identical(GOLDEN "/nam56r_padded.json"));
    CHECK(json_roundtrip_is_identical(GOLDEN "/nam52_dense.json"));
}

TEST(golden_yaml_twins_write_the_json_twin_and_are_stable)
{
    CHECK(yaml_twin_matches(GOLDEN "/nam56r_padded.yaml", GOLDEN "/nam56r_padded.json"));
    /* hand-written YAML: comments, flow maps, quoted "yes", keys sorted on output */
    CHECK(yaml_twin_matches(GOLDEN "/nam52_dense.yaml", GOLDEN "/nam52_dense.json"));
}

TEST(every_example_receipt_round_trips)
{
    DIR *dir = opendir(MCPP_EXAMPLES_DIR "/receipts");
    int seen = 0;
    if (!dir) {
        printf("# no examples/receipts yet; skipped\n");
        return;
    }
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        char path[1024], twin[1024];
        size_t n = strlen(de->d_name);
        if (n > 5 && strcmp(de->d_name + n - 5, ".json") == 0) {
            snprintf(path, sizeof path, "%s/receipts/%s", MCPP_EXAMPLES_DIR, de->d_name);
            CHECK(json_roundtrip_is_identical(path));
            seen++;
        } else if (n > 5 && strcmp(de->d_name + n - 5, ".yaml") == 0) {
            snprintf(path, sizeof path, "%s/receipts/%s", MCPP_EXAMPLES_DIR, de->d_name);
            snprintf(twin, sizeof twin, "%s/receipts/%.*s.json", MCPP_EXAMPLES_DIR,
                     (int)(n - 5), de->d_name);
            if (access(twin, R_OK) == 0)
                CHECK(yaml_twin_matches(path, twin));
            seen++;
        }
    }
    closedir(dir);
    printf("# %d example receipts checked\n", seen);
}

TEST(doubles_keep_a_fraction_and_shortest_form)
{
    const char *in = "{\"schema\": \"mcpp.receipt/2\", \"metrics\": {\"tokens_per_s\": 2, "
                     "\"peak_memory_gib\": 0.1, \"step_time_s\": {\"samples\": [1e-7, "
                     "0.30000000000000004, 12345678.5]}}}";
    mcpp_receipt *r = must_load(in, strlen(in), MCPP_FORMAT_JSON);
    char *out = r ? write_text(r, MCPP_FORMAT_JSON) : NULL;
    CHECK_CONTAINS(out, "\"tokens_per_s\": 2.0,");
    CHECK_CONTAINS(out, "\"peak_memory_gib\": 0.1\n");
    CHECK_CONTAINS(out, "\"samples\": [1e-07, 0.30000000000000004, 12345678.5]");
    mcpp_free(out);
    mcpp_receipt_free(r);
}

/* The JSON writer escapes what RFC 8259 and the canonical form require (a
 * control byte, '"', '\\', U+007F, U+0080..U+009F, U+2028, U+2029) and keeps
 * the rest raw, wherever it stands in a string: each kind is put at every
 * place of strings of 0..24 bytes, so it falls on each byte of the writer's
 * 8-byte steps and in the bytes after them. */
TEST(strings_are_escaped_wherever_the_escaped_character_stands)
{
    static const struct {
        const char *in;  /* as the input JSON writes it */
        const char *out; /* as the canonical JSON must */
    } kinds[] = {
        {"\\u0001", "\\u0001"},
        {"\\n", "\\n"},
        {"\\u001f", "\\u001f"},
        {"\\\"", "\\\""},
        {"\\\\", "\\\\"},
        {"\\u007f", "\\u007f"},
        {"\\u0085", "\\u0085"},
        {"\\u2028", "\\u2028"},
        {"\\u00e9", "\xc3\xa9"},
        {"\\ud83d\\ude00", "\xf0\x9f\x98\x80"},
        {"~", "~"},
        {" ", " "},
    };
    int checked = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        for (int len = 0; len <= 24; len++) {
            for (int at = 0; at <= len; at++) {
                char name_in[128], name_out[128], in[512], want[160];
                snprintf(name_in, sizeof name_in, "%.*s%s%.*s", at, "abcdefghijklmnopqrstuvwxyz", kinds[k].in, len - at,
                         "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
                snprintf(name_out, sizeof name_out, "%.*s%s%.*s", at, "abcdefghijklmnopqrstuvwxyz", kinds[k].out,
                         len - at, "ABCDEFGHIJKLMNOPQRSTUVWXYZ");
                snprintf(in, sizeof in, "{\"schema\": \"mcpp.receipt/2\", \"lane\": {\"name\": \"%s\"}}", name_in);
                snprintf(want, sizeof want, "\"name\": \"%s\"\n", name_out);
                mcpp_receipt *r = must_load(in, strlen(in), MCPP_FORMAT_JSON);
                char *out = r ? write_text(r, MCPP_FORMAT_JSON) : NULL;
                CHECK(out && strstr(out, want));
                if (out && !strstr(out, want))
                    fprintf(stderr, "want %s in:\n%s\n", want, out);
                mcpp_free(out);
                mcpp_receipt_free(r);
                checked++;
            }
        }
    }
    CHECK_INT_EQ(checked, 12 * 325);
}

TEST(yaml_writer_quotes_strings_that_would_retype)
{
    const char *in = "{\"schema\": \"mcpp.receipt/2\", \"status\": {\"caveats\": [\"yes\", "
                     "\"123\", \"null\", \"1.5\", \"a: b\", \"#x\", \"\", \"0o17\", \"plain "
                     "words\"]}, \"extra\": {\"on\": \"off\", \"n\": 1}}";
    mcpp_receipt *r = must_load(in, strlen(in), MCPP_FORMAT_JSON);
    char *yaml = r ? write_text(r, MCPP_FORMAT_YAML) : NULL;
    CHECK_CONTAINS(yaml, "caveats: [\"yes\", \"123\", \"null\", \"1.5\", \"a: b\", \"#x\", \"\", "
                         "\"0o17\", plain words]");
    CHECK_CONTAINS(yaml, "  \"n\": 1\n  \"on\": \"off\"\n"); /* YAML 1.1 booleans quoted too */
    mcpp_receipt *back = yaml ? must_load(yaml, strlen(yaml), MCPP_FORMAT_YAML) : NULL;
    char *j1 = r ? write_text(r, MCPP_FORMAT_JSON) : NULL;
    char *j2 = back ? write_text(back, MCPP_FORMAT_JSON) : NULL;
    CHECK(j1 && j2 && strcmp(j1, j2) == 0);
    mcpp_free(yaml);
    mcpp_free(j1);
    mcpp_free(j2);
    mcpp_receipt_free(r);
    mcpp_receipt_free(back);
}

/* libyaml refuses a plain "key:" that ends 1024 characters past its start, so
 * keys past 128 bytes go out in the explicit "? key" form: as a member with a
 * scalar value, with a nested block, and as the first member of a sequence
 * item. Each key holds a control byte, which the YAML writer escapes to 6 bytes. */
TEST(yaml_writer_writes_long_keys_in_explicit_form)
{
    size_t sizes[] = {128, 129, 1100};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char key[2048] = "k\\u0001"; /* 2 bytes once loaded */
        memset(key + 7, 'x', sizes[i] - 2);
        key[sizes[i] + 5] = '\0';
        char in[8192];
        snprintf(in, sizeof in,
                 "{\"schema\": \"mcpp.receipt/2\", \"extra\": {\"%s\": 1, \"nested\": {\"%s\": "
                 "{\"inner\": 1}}, \"list\": [{\"%s\": 1, \"b\": 2}]}}",
                 key, key, key);
        mcpp_receipt *r = must_load(in, strlen(in), MCPP_FORMAT_JSON);
        char *json = r ? write_text(r, MCPP_FORMAT_JSON) : NULL;
        char *yaml = r ? write_text(r, MCPP_FORMAT_YAML) : NULL;
        CHECK(yaml && (strstr(yaml, "? \"k\\u0001") != NULL) == (sizes[i] > 128));
        mcpp_receipt *back = yaml ? must_load(yaml, strlen(yaml), MCPP_FORMAT_YAML) : NULL;
        char *json2 = back ? write_text(back, MCPP_FORMAT_JSON) : NULL;
        char *yaml2 = back ? write_text(back, MCPP_FORMAT_YAML) : NULL;
        CHECK(json && json2 && strcmp(json, json2) == 0);
        CHECK(yaml && yaml2 && strcmp(yaml, yaml2) == 0);
        mcpp_free(json);
        mcpp_free(json2);
        mcpp_free(yaml);
        mcpp_free(yaml2);
        mcpp_receipt_free(back);
        mcpp_receipt_free(r);
    }
}

TEST(absent_id_is_derived_from_content_and_deterministic)
{
    const char *a = "{\"schema\": \"mcpp.receipt/2\", \"lane\": {\"pattern\": \"AMAM\", "
                    "\"depth\": 8}}";
    const char *b = "{\"lane\": {\"depth\": 8, \"pattern\": \"AMAM\"}, \"schema\": "
                    "\"mcpp.receipt/2\"}"; /* same content, other key order */
    const char *c = "{\"schema\": \"mcpp.receipt/2\", \"lane\": {\"pattern\": \"AMAM\", "
                    "\"depth\": 9}}";
    mcpp_receipt *ra = must_load(a, strlen(a), MCPP_FORMAT_JSON);
    mcpp_receipt *rb = must_load(b, strlen(b), MCPP_FORMAT_JSON);
    mcpp_receipt *rc = must_load(c, strlen(c), MCPP_FORMAT_JSON);
    CHECK(ra && rb && rc);
    if (ra && rb && rc) {
        const char *id = mcpp_receipt_id(ra);
        CHECK_INT_EQ(strlen(id), 18);
        CHECK(strncmp(id, "r-", 2) == 0);
        CHECK_STR_EQ(id, mcpp_receipt_id(rb));
        CHECK(strcmp(id, mcpp_receipt_id(rc)) != 0);
        mcpp_value v = MCPP_VALUE_INIT;
        CHECK_INT_EQ(mcpp_receipt_get(ra, "id", &v), MCPP_OK);
        CHECK_INT_EQ(v.type, MCPP_TYPE_ABSENT); /* derived, not stated: not written */
        char *out = write_text(ra, MCPP_FORMAT_JSON);
        CHECK(out && strstr(out, "\"id\"") == NULL);
        mcpp_free(out);
    }
    mcpp_receipt_free(ra);
    mcpp_receipt_free(rb);
    mcpp_receipt_free(rc);
}

TEST(stated_id_is_kept)
{
    const char *a = "{\"schema\": \"mcpp.receipt/2\", \"id\": \"run-42\"}";
    mcpp_receipt *r = must_load(a, strlen(a), MCPP_FORMAT_JSON);
    CHECK(r && strcmp(mcpp_receipt_id(r), "run-42") == 0);
    CHECK(r && strcmp(mcpp_receipt_source_name(r), "t") == 0);
    mcpp_receipt_free(r);
}

TEST(clone_writes_the_same_bytes)
{
    size_t len;
    char *text = read_whole_file(GOLDEN "/nam56r_padded.json", &len);
    mcpp_receipt *r = text ? must_load(text, len, MCPP_FORMAT_JSON) : NULL, *copy = NULL;
    CHECK_INT_EQ(mcpp_receipt_clone(&copy, r), MCPP_OK);
    char *out = copy ? write_text(copy, MCPP_FORMAT_JSON) : NULL;
    CHECK(out && strcmp(out, text) == 0);
    CHECK(copy && strcmp(mcpp_receipt_id(copy), mcpp_receipt_id(r)) == 0);
    mcpp_receipt_free(r); /* the clone owns its own memory */
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK(copy && mcpp_receipt_get(copy, "extra.notes.reviewer", &v) == MCPP_OK &&
          v.type == MCPP_TYPE_STRING && strcmp(v.string, "perf-team") == 0);
    mcpp_free(out);
    mcpp_receipt_free(copy);
    free(text);
}

TEST(write_file_replaces_atomically_and_reads_back)
{
    char dir[] = "/tmp/mcpp_core_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256], yaml_path[256];
    snprintf(path, sizeof path, "%s/out.json", dir);
    snprintf(yaml_path, sizeof yaml_path, "%s/out.yaml", dir);
    size_t len;
    char *text = read_whole_file(GOLDEN "/nam56r_padded.json", &len);
    mcpp_receipt *r = text ? must_load(text, len, MCPP_FORMAT_JSON) : NULL;
    FILE *old = fopen(path, "w");
    if (old) {
        fputs("old contents", old);
        fclose(old);
    }
    CHECK_INT_EQ(mcpp_receipt_write_file(r, path, MCPP_FORMAT_AUTO), MCPP_OK);
    CHECK_INT_EQ(mcpp_receipt_write_file(r, yaml_path, MCPP_FORMAT_AUTO), MCPP_OK);
    size_t got_len;
    char *got = read_whole_file(path, &got_len);
    CHECK(got && strcmp(got, text) == 0);
    char *got_yaml = read_whole_file(yaml_path, NULL);
    CHECK(got_yaml && strncmp(got_yaml, "schema: mcpp.receipt/2\n", 23) == 0);
    /* no temporary files left behind */
    DIR *d = opendir(dir);
    int entries = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            entries++;
    if (d)
        closedir(d);
    CHECK_INT_EQ(entries, 2);
    /* a directory that does not exist: EIO, with the path in the message */
    CHECK_INT_EQ(mcpp_receipt_write_file(r, "/nonexistent-dir/x.json", MCPP_FORMAT_JSON),
                 MCPP_EIO);
    CHECK_CONTAINS(mcpp_error_last()->message, "/nonexistent-dir/x.json");
    unlink(path);
    unlink(yaml_path);
    rmdir(dir);
    free(got);
    free(got_yaml);
    free(text);
    mcpp_receipt_free(r);
}

TEST(load_file_picks_format_from_extension_and_sniffs_otherwise)
{
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_file(&r, NULL, GOLDEN "/nam52_dense.yaml", NULL), MCPP_OK);
    mcpp_receipt_free(r);
    const char *yaml = "schema: mcpp.receipt/2\nlane: {pattern: AMAM}\n";
    CHECK_INT_EQ(mcpp_receipt_load_buffer(&r, NULL, yaml, strlen(yaml), MCPP_FORMAT_AUTO, NULL,
                                          NULL),
                 MCPP_OK);
    mcpp_receipt_free(r);
    const char *json = "  \n{\"schema\": \"mcpp.receipt/2\"}";
    CHECK_INT_EQ(mcpp_receipt_load_buffer(&r, NULL, json, strlen(json), MCPP_FORMAT_AUTO, NULL,
                                          NULL),
                 MCPP_OK);
    mcpp_receipt_free(r);
    CHECK_INT_EQ(mcpp_receipt_load_file(&r, NULL, "/nonexistent/receipt.json", NULL), MCPP_EIO);
    CHECK(r == NULL);
    CHECK_STR_EQ(mcpp_error_last()->kind, "io");
}

int main(void)
{
    RUN(golden_json_round_trips_byte_identical);
    RUN(golden_yaml_twins_write_the_json_twin_and_are_stable);
    RUN(every_example_receipt_round_trips);
    RUN(doubles_keep_a_fraction_and_shortest_form);
    RUN(strings_are_escaped_wherever_the_escaped_character_stands);
    RUN(yaml_writer_quotes_strings_that_would_retype);
    RUN(yaml_writer_writes_long_keys_in_explicit_form);
    RUN(absent_id_is_derived_from_content_and_deterministic);
    RUN(stated_id_is_kept);
    RUN(clone_writes_the_same_bytes);
    RUN(write_file_replaces_atomically_and_reads_back);
    RUN(load_file_picks_format_from_extension_and_sniffs_otherwise);
    TEST_MAIN_END();
}
