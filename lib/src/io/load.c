/*
 * load.c — mcpp_receipt_load_buffer / _load_file: limits, format choice, the
 * parse (cJSON or the libyaml reader), binding, validation, packing, and the
 * report + last error on failure.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cjson/cJSON.h>

#include "util/error_internal.h"
#include "util/struct_version.h"
#include "io/json_bind_reader.h"
#include "io/io_internal.h"
#include "io/tool_output.h"

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static mcpp_format sniff(const char *buf, size_t len)
{
    size_t i = 0;
    if (len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && is_blank(buf[i]))
        i++;
    return i < len && (buf[i] == '{' || buf[i] == '[') ? MCPP_FORMAT_JSON : MCPP_FORMAT_YAML;
}

static int finish_failure(mcpp_report *report, mcpp_report **report_out, int code)
{
    const char *kind = mcpp_report_first_kind(report);
    if (code == MCPP_EINVALID && kind && strcmp(kind, "limit") == 0)
        code = MCPP_ELIMIT;
    mcpp_report_set_last_error(report, code);
    if (report_out)
        *report_out = report;
    else
        mcpp_report_free(report);
    return code;
}

static int json_syntax_error(const char *buf, size_t len, const char *at, const char *name,
                             mcpp_report *report)
{
    size_t off = at && at >= buf && at <= buf + len ? (size_t)(at - buf) : len;
    int line, column;
    char text[200];
    /* cJSON stops just after a bad token start; step back over blanks to name it */
    while (off < len && is_blank(buf[off]))
        off++;
    mcpp_text_position(buf, len, off, &line, &column);
    if (off >= len) {
        snprintf(text, sizeof text, "invalid JSON: unexpected end of input (truncated?)");
    } else if (strncmp(buf + off, "NaN", len - off < 3 ? len - off : 3) == 0 ||
               strncmp(buf + off, "Infinity", len - off < 8 ? len - off : 8) == 0 ||
               strncmp(buf + off, "-Infinity", len - off < 9 ? len - off : 9) == 0) {
        snprintf(text, sizeof text,
                 "invalid JSON: NaN and Infinity are not numbers in JSON (measurements must be "
                 "finite)");
    } else {
        unsigned char c = (unsigned char)buf[off];
        if (c >= 0x20 && c < 0x7F)
            snprintf(text, sizeof text, "invalid JSON: unexpected character '%c'", c);
        else
            snprintf(text, sizeof text, "invalid JSON: unexpected byte 0x%02X", c);
    }
    if (mcpp_report_add(report, MCPP_SEVERITY_ERROR, "syntax", name, NULL, line, column, text))
        return mcpp_error_nomem();
    return MCPP_EINVALID;
}

/* Refuses a raw control character inside a string (mcpp_json_raw_control). */
static int refuse_raw_control(const char *buf, size_t len, const char *name, mcpp_report *report)
{
    size_t at = mcpp_json_raw_control(buf, len);
    if (at == SIZE_MAX)
        return MCPP_OK;
    int line, column;
    char text[120];
    mcpp_text_position(buf, len, at, &line, &column);
    snprintf(text, sizeof text, "control character U+%04X inside a string: JSON needs it escaped (\\u%04x)",
             (unsigned char)buf[at], (unsigned char)buf[at]);
    mcpp_report_add(report, MCPP_SEVERITY_ERROR, "encoding", name, NULL, line, column, text);
    return MCPP_EINVALID;
}

/* Parses pre-scanned JSON text into a tree (*root_out); problems go to
 * report. Returns 0 or a status code. */
static int parse_json(cJSON **root_out, const char *buf, size_t len, const mcpp_limits *lim, const char *name,
                      mcpp_report *report)
{
    (void)lim; /* the pre-scan applied the limits */
    *root_out = NULL;
    if (refuse_raw_control(buf, len, name, report) != MCPP_OK)
        return MCPP_EINVALID;
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
    if (!root)
        return json_syntax_error(buf, len, end, name, report);
    size_t off = end ? (size_t)(end - buf) : len;
    while (off < len && is_blank(buf[off]))
        off++;
    if (off < len) {
        int line, column;
        mcpp_text_position(buf, len, off, &line, &column);
        mcpp_report_add(report, MCPP_SEVERITY_ERROR, "syntax", name, NULL, line, column,
                        "invalid JSON: trailing characters after the receipt");
        cJSON_Delete(root);
        return MCPP_EINVALID;
    }
    *root_out = root;
    return MCPP_OK;
}

static void init_ctx(mcpp_load_ctx *ctx, const char *buf, size_t len, mcpp_format format,
                     const char *name, const mcpp_limits *lim, mcpp_report *report)
{
    memset(ctx, 0, offsetof(mcpp_load_ctx, scratch)); /* the scratch area needs no zeroing */
    ctx->name = name;
    ctx->buf = buf;
    ctx->len = len;
    ctx->format = format;
    ctx->limits = lim;
    ctx->report = report;
}

/* Validates a bound staging receipt and packs it into *out. Returns 0 or a
 * status code (problems in the report). */
static int validate_pack(mcpp_receipt **out, mcpp_load_ctx *ctx, mcpp_receipt *staging, const char *name)
{
    if (!ctx->nomem)
        mcpp_validate(ctx, staging);
    if (ctx->schema_version == 1)
        mcpp_derive_block_counts(staging); /* schema 2 states them (after the check
                                              that a schema-1 file does not) */
    if (ctx->nomem)
        return mcpp_error_nomem();
    return ctx->errors ? MCPP_EINVALID : mcpp_pack(out, staging, name);
}

/* Binds the tree into a staging receipt, validates it and packs it into *out.
 * Returns 0 or a status code (problems in report). */
/* The binder's YAML locator (mcpp_load_ctx.yaml_position): io owns the marks. */
static void yaml_position(const void *marks, const cJSON *node, int want_key, int *line, int *column)
{
    mcpp_yaml_marks_find(marks, node, want_key, line, column);
}

static int bind_validate_pack(mcpp_receipt **out, cJSON *root, const mcpp_yaml_marks *marks,
                              const char *buf, size_t len, mcpp_format format, const char *name,
                              const mcpp_limits *lim, mcpp_report *report)
{
    mcpp_load_ctx ctx;
    init_ctx(&ctx, buf, len, format, name, lim, report);
    ctx.root = root;
    ctx.marks = marks;
    ctx.yaml_position = yaml_position;
    mcpp_receipt staging;
    memset(&staging, 0, sizeof staging);
    if (mcpp_schema1_upgrade(&ctx, root) != 0)
        ctx.nomem = 1;
    else
        mcpp_bind_tree(&ctx, &staging, root);
    int rc = validate_pack(out, &ctx, &staging, name);
    mcpp_ctx_release(&ctx); /* staging lists; strings belong to the tree */
    return rc;
}

#ifdef MCPP_TEST_HOOKS /* json_bind_reader.h */
_Thread_local int mcpp_json_reader_disabled;
_Thread_local unsigned long mcpp_json_reader_fallbacks;
#define READER_DISABLED() (mcpp_json_reader_disabled != 0)
#define COUNT_FALLBACK() (mcpp_json_reader_fallbacks++)
#else
#define READER_DISABLED() 0
#define COUNT_FALLBACK() ((void)0)
#endif

/* The direct path for JSON: read + bind (json_bind_reader.c),
 * validate, pack. Returns 0, a status code, or MCPP_JSON_READ_FALLBACK (with
 * nothing reported) when the tree path must load the text. */
static int read_validate_pack(mcpp_receipt **out, const char *buf, size_t len, const char *name,
                              const mcpp_limits *lim, mcpp_report *report)
{
    char stack_strings[4096]; /* decoded strings; a receipt's text is ~2 KB */
    char *strings = len < sizeof stack_strings ? stack_strings : malloc(len + 1);
    if (!strings)
        return MCPP_JSON_READ_FALLBACK;
    mcpp_load_ctx ctx;
    init_ctx(&ctx, buf, len, MCPP_FORMAT_JSON, name, lim, report);
    mcpp_receipt staging;
    memset(&staging, 0, sizeof staging);
    mcpp_json_subtrees subtrees;
    subtrees.count = 0;
    int rc = mcpp_json_bind_read(&ctx, &staging, &subtrees, strings);
    if (rc == MCPP_JSON_READ_BOUND)
        rc = validate_pack(out, &ctx, &staging, name);
    else
        COUNT_FALLBACK();
    mcpp_ctx_release(&ctx);
    for (size_t i = 0; i < subtrees.count; i++)
        cJSON_Delete(subtrees.trees[i]);
    if (strings != stack_strings)
        free(strings);
    return rc;
}

/* JSON: the direct reader, which checks the pre-scan's rules as it reads;
 * when it hands back, the pre-scan (which reports what the text breaks)
 * and cJSON. */
static int load_json(mcpp_receipt **out, const char *buf, size_t len, const char *name,
                     const mcpp_limits *lim, mcpp_report *report)
{
    int rc;
    if (!READER_DISABLED()) {
        rc = read_validate_pack(out, buf, len, name, lim, report);
        if (rc != MCPP_JSON_READ_FALLBACK)
            return rc;
    }
    rc = mcpp_json_prescan(buf, len, lim, name, report);
    if (rc != 0)
        return rc;
    cJSON *root = NULL;
    rc = parse_json(&root, buf, len, lim, name, report);
    if (rc == 0) {
        rc = bind_validate_pack(out, root, NULL, buf, len, MCPP_FORMAT_JSON, name, lim, report);
        cJSON_Delete(root);
    }
    return rc;
}

/* Hands the report over (or frees it) and turns rc into the call's result. */
static int finish(mcpp_report *report, mcpp_report **report_out, int rc)
{
    if (rc == MCPP_ENOMEM) {
        mcpp_report_free(report);
        return mcpp_error_nomem();
    }
    if (rc != 0)
        return finish_failure(report, report_out, rc);
    if (report_out)
        *report_out = report;
    else
        mcpp_report_free(report);
    return MCPP_OK;
}

/* A file that is not one receipt but what a user may well hand over instead:
 * another tool's results, or several receipts. Its report becomes one error
 * saying what the file is and what reads it, instead of that tool's keys
 * listed as unknown fields ("benchmarks: ... did you mean 'benchmark'?") or
 * "got a list". Only a load that failed is looked at. */
static void name_what_it_is(mcpp_report **report, const char *buf, size_t len, const char *name, int rc)
{
    const char *format = NULL, *tool = rc == MCPP_EINVALID ? mcpp_tool_output_of(buf, len, &format) : NULL;
    const char *many = rc == MCPP_EINVALID && !tool ? mcpp_several_receipts_of(buf, len) : NULL;
    mcpp_report *named = tool || many ? mcpp_report_new() : NULL;
    if (!named)
        return; /* a receipt with its own errors, or no memory: the report as it was */
    if (!mcpp_report_keeps(*report, MCPP_SEVERITY_WARNING))
        mcpp_report_errors_only(named);
    char text[400];
    if (tool)
        snprintf(text, sizeof text,
                 "not a receipt: this is %s output; import it first: `mcpp-receipts import %s %s --out DIR` "
                 "(Python: mcpp_receipts.import_results(\"%s\", path))",
                 tool, format, name ? name : "FILE", format);
    else
        snprintf(text, sizeof text,
                 "not a receipt but %s: a receipt file holds one; read them from a store (--store DB; "
                 "`mcpp-receipts store add DB -` takes receipts one a line) or write one file a receipt",
                 many);
    if (mcpp_report_add(named, MCPP_SEVERITY_ERROR, "type", name, NULL, 1, 1, text) != MCPP_OK) {
        mcpp_report_free(named);
        return;
    }
    mcpp_report_free(*report);
    *report = named;
}

/* The caller's limits (MCPP_EARG, error set, for a version this library does not know),
 * or the defaults when it passes none. */
static int limits_or_default(mcpp_limits *lim, const mcpp_limits *limits)
{
    if (limits && mcpp_struct_version_check(limits->version, MCPP_LIMITS_VERSION, "mcpp_limits") != MCPP_OK)
        return MCPP_EARG;
    if (limits)
        *lim = *limits;
    else
        mcpp_limits_default(lim);
    return MCPP_OK;
}

int mcpp_receipt_load_buffer(mcpp_receipt **out, mcpp_report **report_out, const char *buf,
                             size_t len, mcpp_format format, const char *name,
                             const mcpp_limits *limits)
{
    mcpp_limits lim;
    cJSON *root = NULL;
    mcpp_yaml_marks *marks = NULL;
    if (report_out)
        *report_out = NULL;
    if (!out)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, name, NULL, 0, 0, "out is NULL");
    *out = NULL;
    if (!buf && len)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, name, NULL, 0, 0, "buf is NULL");
    if (!buf)
        buf = ""; /* an empty input is refused below like any other, never dereferenced as NULL */
    if (limits_or_default(&lim, limits) != MCPP_OK)
        return MCPP_EARG;
    mcpp_report *report = mcpp_report_new();
    MCPP_CHECK_ALLOC(report);
    if (!report_out)
        mcpp_report_errors_only(report); /* only the first error is read (mcpp_error_last) */
    if (len > lim.max_input_bytes) {
        char text[160];
        snprintf(text, sizeof text, "input of %zu bytes is beyond the limit of %zu bytes", len,
                 lim.max_input_bytes);
        mcpp_report_add(report, MCPP_SEVERITY_ERROR, "limit", name, NULL, 0, 0, text);
        return finish_failure(report, report_out, MCPP_ELIMIT);
    }
    if (format == MCPP_FORMAT_AUTO)
        format = sniff(buf, len);
    int rc;
    if (format == MCPP_FORMAT_JSON) {
        rc = load_json(out, buf, len, name, &lim, report);
    } else if ((rc = mcpp_yaml_read(&root, &marks, buf, len, &lim, name, report)) == 0) {
        rc = bind_validate_pack(out, root, marks, buf, len, format, name, &lim, report);
        cJSON_Delete(root);
        mcpp_yaml_marks_free(marks);
    }
    name_what_it_is(&report, buf, len, name, rc);
    return finish(report, report_out, rc);
}

static mcpp_format format_from_extension(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (dot && strchr(dot, '/') == NULL) {
        if (strcmp(dot, ".json") == 0)
            return MCPP_FORMAT_JSON;
        if (strcmp(dot, ".yaml") == 0 || strcmp(dot, ".yml") == 0)
            return MCPP_FORMAT_YAML;
    }
    return MCPP_FORMAT_AUTO;
}

static int io_failure(mcpp_report **report_out, int code, const char *kind, const char *path,
                      const char *text)
{
    if (report_out) {
        *report_out = mcpp_report_new();
        if (*report_out)
            mcpp_report_add(*report_out, MCPP_SEVERITY_ERROR, kind, path, NULL, 0, 0, text);
    }
    return mcpp_error_set(code, kind, path, NULL, 0, 0, "%s", text);
}

int mcpp_receipt_load_file(mcpp_receipt **out, mcpp_report **report_out, const char *path,
                           const mcpp_limits *limits)
{
    mcpp_limits lim;
    struct stat st;
    char text[300];
    if (report_out)
        *report_out = NULL;
    if (!out || !path)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, path, NULL, 0, 0,
                              "out and path must not be NULL");
    *out = NULL;
    if (limits_or_default(&lim, limits) != MCPP_OK)
        return MCPP_EARG;
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(text, sizeof text, "cannot open: %s", strerror(errno));
        return io_failure(report_out, MCPP_EIO, "io", path, text);
    }
    /* The file and the bytes read from it are released at done: on every path; the file is
     * closed before the bytes are parsed, so a load holds no descriptor while it works. */
    char *buf = NULL;
    size_t size = 0, got = 0;
    int rc, read_error;
    /* size first: a huge file is refused without reading it */
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = io_failure(report_out, MCPP_EIO, "io", path, "not a regular file");
        goto done;
    }
    if ((unsigned long long)st.st_size > (unsigned long long)lim.max_input_bytes) {
        snprintf(text, sizeof text, "file of %lld bytes is beyond the limit of %zu bytes",
                 (long long)st.st_size, lim.max_input_bytes);
        rc = io_failure(report_out, MCPP_ELIMIT, "limit", path, text);
        goto done;
    }
    size = (size_t)st.st_size;
    buf = malloc(size ? size : 1);
    if (!buf) {
        rc = mcpp_error_nomem();
        goto done;
    }
    got = size ? fread(buf, 1, size, fp) : 0;
    read_error = ferror(fp);
    fclose(fp);
    fp = NULL;
    if (read_error || got != size) {
        rc = io_failure(report_out, MCPP_EIO, "io", path, "read failed or file changed size");
        goto done;
    }
    rc = mcpp_receipt_load_buffer(out, report_out, buf, size, format_from_extension(path), path, &lim);
done:
    if (fp)
        fclose(fp);
    free(buf);
    return rc;
}
