/*
 * test_output_safety.c — output does not depend on the process locale, and
 * strings from receipts are escaped for the output kind they land in
 * (docs/output-safety.md).
 *
 * The locale cases switch the whole process to de_DE.UTF-8 (a comma decimal
 * point) the way a host program does with setlocale, then check that loading,
 * writing, rendering and Lua rules give the same bytes as in the "C" locale.
 * Where that locale is not installed (scripts/install-deps.sh generates it)
 * they print why and count as skipped, never as passed.
 *
 * usage: test_output_safety EXAMPLES_DIR WORK_DIR   (MCPP_TEST_CASE picks one case)
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcpp_receipts.h"
#include "mcpp_receipts/compare.h"
#include "mcpp_receipts/frontier.h"
#include "mcpp_receipts/policy_lua.h"
#include "test_util.h"

static const char *examples, *work;
static const char *const COMMA_LOCALE = "de_DE.UTF-8";

static char *escape(const char *text, mcpp_output_format format)
{
    char *out = NULL;
    CHECK_INT_EQ(mcpp_output_escape(&out, text, format), MCPP_OK);
    return out;
}

TEST(text_escaping_shows_every_terminal_control_and_keeps_utf8)
{
    char *got = escape("id\x1b]0;pwned\x07 \x1b[2J\ttab\nline \xc2\x9b" "31m \xe2\x80\xae" "rtl \xff \xce\xbcs", MCPP_OUTPUT_TEXT);
    CHECK_STR_EQ(got, "id\\x1B]0;pwned\\x07 \\x1B[2J\\x09tab\\x0Aline \\u009B31m \\u202Ertl \\xFF \xce\xbcs");
    mcpp_free(got);
}

TEST(markdown_escaping_opens_no_html_link_code_span_or_cell)
{
    char *got = escape("a`b` | <script>x</script> [c](javascript:1) *d* _e_ f_g\nh & \x1b[31m", MCPP_OUTPUT_MARKDOWN);
    CHECK_STR_EQ(got, "a\\`b\\` \\| &lt;script&gt;x&lt;/script&gt; \\[c\\](javascript:1) \\*d\\* \\_e\\_ f_g h &amp; "
                      "\\x1B\\[31m");
    mcpp_free(got);
}

TEST(markdown_escaping_opens_no_block_at_the_start_of_a_line)
{
    const char *in[] = {"# heading", "> quote", "- item", "12. item", "3) item", "=", "12 ok", "plain"};
    const char *want[] = {"\\# heading", "&gt; quote", "\\- item", "12\\. item", "3\\) item", "\\=", "12 ok", "plain"};
    for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
        char *got = escape(in[i], MCPP_OUTPUT_MARKDOWN);
        CHECK_STR_EQ(got, want[i]);
        mcpp_free(got);
    }
}

TEST(json_escaping_gives_a_literal_without_raw_controls)
{
    char *got = escape("q\"b\\ \x1b \x7f \xc2\x9b \xe2\x80\xa8 \xff \xce\xbc", MCPP_OUTPUT_JSON);
    CHECK_STR_EQ(got, "\"q\\\"b\\\\ \\u001b \\u007f \\u009b \\u2028 \\ufffd \xce\xbc\"");
    mcpp_free(got);
}

TEST(escaping_refuses_null_and_an_unknown_format)
{
    char *out = (char *)"untouched";
    CHECK_INT_EQ(mcpp_output_escape(&out, NULL, MCPP_OUTPUT_TEXT), MCPP_EARG);
    CHECK(out == NULL);
    CHECK_INT_EQ(mcpp_output_escape(&out, "x", (mcpp_output_format)42), MCPP_EARG);
    CHECK(out == NULL);
    CHECK_INT_EQ(mcpp_output_escape(NULL, "x", MCPP_OUTPUT_TEXT), MCPP_EARG);
}

/* ---- locale ------------------------------------------------------------------ */

/* Switches the process to the comma locale; 0 (with the reason printed) when
 * it is not installed or does not use a comma, so the case cannot prove
 * anything. */
static int enter_comma_locale(void)
{
    if (!setlocale(LC_ALL, COMMA_LOCALE)) {
        printf("skip: locale %s is not installed (scripts/install-deps.sh generates it)\n", COMMA_LOCALE);
        return 0;
    }
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 1.5);
    if (strcmp(probe, "1,5") != 0) {
        printf("skip: %s formats 1.5 as '%s', not with a decimal comma\n", COMMA_LOCALE, probe);
        setlocale(LC_ALL, "C");
        return 0;
    }
    return 1;
}

static void append(char **all, const char *part)
{
    size_t a = *all ? strlen(*all) : 0, b = part ? strlen(part) : 0;
    char *grown = realloc(*all, a + b + 2);
    if (!grown) abort();
    memcpy(grown + a, part ? part : "", b);
    grown[a + b] = '\n';
    grown[a + b + 1] = '\0';
    *all = grown;
}

static mcpp_receipt *load_example(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", examples, name);
    mcpp_receipt *r = NULL;
    CHECK_INT_EQ(mcpp_receipt_load_file(&r, NULL, path, NULL), MCPP_OK);
    return r;
}

/* Everything the library writes about two example receipts (one read from
 * YAML): canonical JSON and YAML, the text view, a comparison and a frontier
 * in every format. */
static char *everything_written(void)
{
    char *all = NULL, *text = NULL;
    mcpp_receipt *a = load_example("nam56r_padded.yaml"), *b = load_example("nam56r_padded_run2.json");
    mcpp_policy *policy = NULL;
    CHECK_INT_EQ(mcpp_policy_default(&policy), MCPP_OK);
    mcpp_comparison *c = NULL;
    mcpp_frontier *f = NULL;
    if (!a || !b || !policy) goto done;
    const mcpp_receipt *both[2] = {a, b};
    CHECK_INT_EQ(mcpp_compare(&c, policy, a, b), MCPP_OK);
    CHECK_INT_EQ(mcpp_frontier_build(&f, policy, both, 2), MCPP_OK);
    for (int i = 0; i < 2; i++) {
        for (int fmt = MCPP_FORMAT_JSON; fmt <= MCPP_FORMAT_YAML; fmt++) {
            CHECK_INT_EQ(mcpp_receipt_write(&text, NULL, both[i], (mcpp_format)fmt), MCPP_OK);
            append(&all, text);
            mcpp_free(text);
        }
        CHECK_INT_EQ(mcpp_receipt_render(&text, both[i], MCPP_OUTPUT_TEXT), MCPP_OK);
        append(&all, text);
        mcpp_free(text);
    }
    for (int fmt = MCPP_OUTPUT_TEXT; c && f && fmt <= MCPP_OUTPUT_MARKDOWN; fmt++) {
        CHECK_INT_EQ(mcpp_comparison_render(&text, c, (mcpp_output_format)fmt), MCPP_OK);
        append(&all, text);
        mcpp_free(text);
        CHECK_INT_EQ(mcpp_frontier_render(&text, f, (mcpp_output_format)fmt), MCPP_OK);
        append(&all, text);
        mcpp_free(text);
    }
done:
    mcpp_frontier_free(f);
    mcpp_comparison_free(c);
    mcpp_policy_free(policy);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    return all;
}

TEST(under_a_comma_locale_yaml_numbers_read_exactly)
{
    if (!enter_comma_locale()) return;
    mcpp_receipt *r = load_example("nam56r_padded.yaml");
    mcpp_value v = MCPP_VALUE_INIT;
    CHECK_INT_EQ(mcpp_receipt_get(r, "routing.capacity_factor", &v), MCPP_OK);
    CHECK(v.number == 1.25); /* read as 1.0 when strtod stops at the '.' */
    CHECK_INT_EQ(mcpp_receipt_get(r, "hardware.observed.memory_gib", &v), MCPP_OK);
    CHECK(v.number == 79.65);
    mcpp_receipt_free(r);
    setlocale(LC_ALL, "C");
}

TEST(under_a_comma_locale_every_written_byte_is_as_in_the_c_locale)
{
    setlocale(LC_ALL, "C");
    char *in_c = everything_written();
    if (!enter_comma_locale()) {
        free(in_c);
        return;
    }
    char *in_comma = everything_written();
    CHECK(in_c && in_comma);
    CHECK_CONTAINS(in_c, "\"capacity_factor\": 1.25");
    CHECK_CONTAINS(in_c, "memory_gib: 79.65");
    if (in_c && in_comma && strcmp(in_c, in_comma) != 0) {
        size_t i = 0;
        while (in_c[i] == in_comma[i]) i++;
        fprintf(stderr, "first difference at byte %zu: C '%.40s' vs %s '%.40s'\n", i, in_c + i, COMMA_LOCALE,
                in_comma + i);
        CHECK(!"the output depends on the locale");
    }
    free(in_c);
    free(in_comma);
    setlocale(LC_ALL, "C");
}

TEST(under_a_comma_locale_lua_rules_write_numbers_with_a_point_and_the_host_locale_stays)
{
#ifndef MCPP_HAVE_LUA
    printf("skip: built without the Lua policy engine (MCPP_LUA=OFF)\n");
    return;
#endif
    if (!enter_comma_locale()) return;
    char path[1024];
    snprintf(path, sizeof path, "%s/locale_rule.lua", work);
    FILE *fp = fopen(path, "w");
    CHECK(fp != NULL);
    if (!fp) return;
    fputs("return { name = \"locale\", rules = { { name = \"numbers\", fn = function(base, cand)\n"
          "  return \"qualify\", \"n=\" .. tostring(2.5) .. \" f=\" .. string.format(\"%.2f\", 0.25)"
          " .. \" x=\" .. (1 + 0.5) .. \" t=\" .. tostring(tonumber(\"0.75\"))\n"
          "end } } }\n",
          fp);
    fclose(fp);
    mcpp_policy *policy = NULL;
    CHECK_INT_EQ(mcpp_policy_load_lua_file(&policy, path, NULL), MCPP_OK);
    mcpp_receipt *a = load_example("nam56r_padded.json"), *b = load_example("nam56r_padded_run2.json");
    mcpp_comparison *c = NULL;
    if (policy && a && b) CHECK_INT_EQ(mcpp_compare(&c, policy, a, b), MCPP_OK);
    const char *reason = NULL;
    for (size_t i = 0; c && i < mcpp_comparison_row_count(c); i++)
        if (strstr(mcpp_comparison_row_reason(c, i), "n="))
            reason = mcpp_comparison_row_reason(c, i);
    CHECK_STR_EQ(reason, "n=2.5 f=0.25 x=1.5 t=0.75");
    CHECK_STR_EQ(localeconv()->decimal_point, ","); /* the host's locale is back */
    mcpp_comparison_free(c);
    mcpp_receipt_free(a);
    mcpp_receipt_free(b);
    mcpp_policy_free(policy);
    setlocale(LC_ALL, "C");
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s EXAMPLES_DIR WORK_DIR\n", argv[0]);
        return 2;
    }
    examples = argv[1];
    work = argv[2];
    RUN(text_escaping_shows_every_terminal_control_and_keeps_utf8);
    RUN(markdown_escaping_opens_no_html_link_code_span_or_cell);
    RUN(markdown_escaping_opens_no_block_at_the_start_of_a_line);
    RUN(json_escaping_gives_a_literal_without_raw_controls);
    RUN(escaping_refuses_null_and_an_unknown_format);
    RUN(under_a_comma_locale_yaml_numbers_read_exactly);
    RUN(under_a_comma_locale_every_written_byte_is_as_in_the_c_locale);
    RUN(under_a_comma_locale_lua_rules_write_numbers_with_a_point_and_the_host_locale_stays);
    TEST_MAIN_END();
}
