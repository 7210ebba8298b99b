/*
 * yaml_read.c — the libyaml adapter: YAML text -> the same cJSON tree the JSON
 * path produces, plus a side table of node -> line:column marks, so one binder
 * serves both formats.
 *
 * It reads events (yaml_parser_parse), never libyaml's document API, so that
 * hostile features are refused at the first event that shows them: anchors,
 * aliases (billion laughs stops at its first anchor), explicit tags, a second
 * document, non-scalar keys, duplicate keys, nesting beyond the limit.
 *
 * Scalars are typed by the YAML 1.2 core schema, strictly and only when plain:
 * null/~/empty, true/false, [-+]?[0-9]+, decimal floats. Everything else
 * (yes, no, on, 0o17, 0x1F, .inf, .nan) stays a string, and quoted scalars are
 * always strings, so `yes` where a boolean or enum is wanted fails loudly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>
#include <cjson/cJSON.h>

#include "util/alloc.h"
#include "util/error_internal.h"
#include "util/c_locale.h"
#include "io/io_internal.h"

typedef struct mark {
    const cJSON *node;
    int line, column;         /* the value */
    int key_line, key_column; /* its key, when it is a mapping member */
} mark;

struct mcpp_yaml_marks {
    mark *items;
    size_t count, cap;
};

void mcpp_yaml_marks_free(mcpp_yaml_marks *marks)
{
    if (!marks)
        return;
    free(marks->items);
    free(marks);
}

void mcpp_yaml_marks_find(const mcpp_yaml_marks *marks, const cJSON *node, int want_key, int *line,
                          int *column)
{
    *line = *column = 0;
    if (!marks)
        return;
    for (size_t i = 0; i < marks->count; i++) {
        if (marks->items[i].node == node) {
            *line = want_key && marks->items[i].key_line ? marks->items[i].key_line
                                                          : marks->items[i].line;
            *column = want_key && marks->items[i].key_line ? marks->items[i].key_column
                                                            : marks->items[i].column;
            return;
        }
    }
}

static int marks_add(mcpp_yaml_marks *m, const cJSON *node, const yaml_mark_t *at, int key_line,
                     int key_column)
{
    if (MCPP_ARRAY_RESERVE(m->items, m->cap, m->count + 1, MCPP_ARRAY_MAX_ITEMS) != 0)
        return -1;
    mark *k = &m->items[m->count++];
    k->node = node;
    k->line = (int)at->line + 1;
    k->column = (int)at->column + 1;
    k->key_line = key_line;
    k->key_column = key_column;
    return 0;
}

/* ---- YAML 1.2 core scalar typing (plain scalars only) ----------------------------- */

static int is_int_text(const char *s)
{
    if (*s == '-' || *s == '+')
        s++;
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static int is_float_text(const char *s)
{
    int digits = 0;
    if (*s == '-' || *s == '+')
        s++;
    while (*s >= '0' && *s <= '9') {
        s++;
        digits++;
    }
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9') {
            s++;
            digits++;
        }
    }
    if (!digits)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '-' || *s == '+')
            s++;
        if (*s < '0' || *s > '9')
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

static cJSON *typed_scalar(const char *s, int plain)
{
    if (!plain)
        return cJSON_CreateString(s);
    if (!*s || strcmp(s, "~") == 0 || strcmp(s, "null") == 0 || strcmp(s, "Null") == 0 ||
        strcmp(s, "NULL") == 0)
        return cJSON_CreateNull();
    if (strcmp(s, "true") == 0 || strcmp(s, "True") == 0 || strcmp(s, "TRUE") == 0)
        return cJSON_CreateTrue();
    if (strcmp(s, "false") == 0 || strcmp(s, "False") == 0 || strcmp(s, "FALSE") == 0)
        return cJSON_CreateFalse();
    if (is_int_text(s) || is_float_text(s)) {
        char *end;
        double value = mcpp_strtod_c(s, &end);
        /* is_*_text checked the whole text; reading less of it would be a silent
         * truncation (2.6045 -> 2 under a comma locale), so refuse to guess */
        return *end ? cJSON_CreateString(s) : cJSON_CreateNumber(value);
    }
    return cJSON_CreateString(s);
}

/* ---- the event loop ------------------------------------------------------------------ */

typedef struct frame {
    cJSON *node;
    int is_map;
    size_t members; /* mapping members so far: big mappings check duplicates at the end */
    char *key; /* pending key of a mapping (owned), NULL when a key is expected */
    int key_line, key_column;
} frame;

typedef struct reader {
    const char *name;
    mcpp_report *report;
    const mcpp_limits *limits;
    frame *stack;
    size_t depth;
    cJSON *root;
    mcpp_yaml_marks *marks;
} reader;

static int fail(reader *rd, int code, const char *kind, const yaml_mark_t *at, const char *text)
{
    int line = at ? (int)at->line + 1 : 0, column = at ? (int)at->column + 1 : 0;
    if (mcpp_report_add(rd->report, MCPP_SEVERITY_ERROR, kind, rd->name, NULL, line, column,
                        text) != 0)
        return mcpp_error_nomem();
    return code;
}

/* Attaches a new value to the current container (or makes it the root), which
 * owns it from then on (a value the container could not take is freed here),
 * and records its mark; a mapping's pending key is released on every path. */
static int attach(reader *rd, cJSON *value, const yaml_mark_t *at)
{
    if (!value)
        return mcpp_error_nomem();
    frame *top = rd->depth ? &rd->stack[rd->depth - 1] : NULL;
    char *key = NULL; /* cJSON copies it; released at done: */
    int rc = MCPP_OK, key_line = 0, key_column = 0;
    if (!top) {
        rd->root = value;
    } else {
        int taken;
        if (top->is_map) {
            key = top->key;
            top->key = NULL;
            key_line = top->key_line;
            key_column = top->key_column;
            taken = cJSON_AddItemToObject(top->node, key, value);
        } else {
            taken = cJSON_AddItemToArray(top->node, value);
        }
        if (!taken) {
            cJSON_Delete(value);
            rc = mcpp_error_nomem();
            goto done;
        }
    }
    if (marks_add(rd->marks, value, at, key_line, key_column))
        rc = mcpp_error_nomem();
done:
    free(key);
    return rc;
}

static int expecting_key(const reader *rd)
{
    return rd->depth > 0 && rd->stack[rd->depth - 1].is_map && !rd->stack[rd->depth - 1].key;
}

static int check_node_features(reader *rd, const yaml_char_t *anchor, const yaml_char_t *tag,
                               const yaml_mark_t *at)
{
    char text[200];
    if (anchor) {
        snprintf(text, sizeof text,
                 "anchors are not allowed (found &%.60s): a receipt is plain data, and anchors "
                 "with aliases can expand exponentially",
                 (const char *)anchor);
        return fail(rd, MCPP_EINVALID, "yaml_feature", at, text);
    }
    if (tag) {
        snprintf(text, sizeof text,
                 "explicit tags are not allowed (found %.60s): values are typed by the schema",
                 (const char *)tag);
        return fail(rd, MCPP_EINVALID, "yaml_feature", at, text);
    }
    return 0;
}

static int on_scalar(reader *rd, const yaml_event_t *ev)
{
    const char *value = (const char *)ev->data.scalar.value;
    size_t length = ev->data.scalar.length;
    char text[160];
    int rc = check_node_features(rd, ev->data.scalar.anchor, ev->data.scalar.tag, &ev->start_mark);
    if (rc)
        return rc;
    if (strlen(value) != length)
        return fail(rd, MCPP_EINVALID, "encoding", &ev->start_mark,
                    "NUL characters are not allowed inside strings");
    if (length > rd->limits->max_string_bytes) {
        snprintf(text, sizeof text, "string longer than the limit of %zu bytes",
                 rd->limits->max_string_bytes);
        return fail(rd, MCPP_ELIMIT, "limit", &ev->start_mark, text);
    }
    if (expecting_key(rd)) {
        frame *top = &rd->stack[rd->depth - 1];
        /* a linear look-up per key is fine for receipt-sized mappings; a hostile
         * mapping with 10^6 keys is checked once, sorted, when it ends */
        if (top->members++ < 64 && cJSON_GetObjectItemCaseSensitive(top->node, value)) {
            snprintf(text, sizeof text, "duplicate key \"%.80s\" (each key may appear once)",
                     value);
            return fail(rd, MCPP_EINVALID, "duplicate_key", &ev->start_mark, text);
        }
        int failed = 0;
        top->key = mcpp_strndup(value, length, &failed);
        if (failed)
            return mcpp_error_nomem();
        top->key_line = (int)ev->start_mark.line + 1;
        top->key_column = (int)ev->start_mark.column + 1;
        return 0;
    }
    int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    return attach(rd, typed_scalar(value, plain), &ev->start_mark);
}

static int on_container_start(reader *rd, const yaml_event_t *ev, int is_map)
{
    const yaml_char_t *anchor = is_map ? ev->data.mapping_start.anchor
                                       : ev->data.sequence_start.anchor;
    const yaml_char_t *tag = is_map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
    char text[160];
    int rc = check_node_features(rd, anchor, tag, &ev->start_mark);
    if (rc)
        return rc;
    if (expecting_key(rd))
        return fail(rd, MCPP_EINVALID, "yaml_feature", &ev->start_mark,
                    "complex keys are not allowed: keys must be plain strings");
    if (rd->depth + 1 > rd->limits->max_depth) {
        snprintf(text, sizeof text, "nesting deeper than the limit of %zu levels",
                 rd->limits->max_depth);
        return fail(rd, MCPP_ELIMIT, "limit", &ev->start_mark, text);
    }
    cJSON *node = is_map ? cJSON_CreateObject() : cJSON_CreateArray();
    rc = attach(rd, node, &ev->start_mark);
    if (rc)
        return rc;
    frame *f = &rd->stack[rd->depth++];
    f->node = node;
    f->is_map = is_map;
    f->members = 0;
    f->key = NULL;
    return 0;
}

static int key_ptr_cmp(const void *x, const void *y)
{
    const cJSON *a = *(const cJSON *const *)x, *b = *(const cJSON *const *)y;
    return strcmp(a->string, b->string);
}

/* Duplicate keys of a big mapping, found by sorting its members once. */
static int check_big_mapping(reader *rd, const frame *f)
{
    size_t n = 0, i = 0;
    for (const cJSON *c = f->node->child; c; c = c->next)
        n++;
    const cJSON **members = malloc(n * sizeof *members);
    if (!members)
        return mcpp_error_nomem();
    for (const cJSON *c = f->node->child; c; c = c->next)
        members[i++] = c;
    qsort(members, n, sizeof *members, key_ptr_cmp);
    int rc = 0;
    for (i = 1; i < n && rc == 0; i++) {
        if (strcmp(members[i - 1]->string, members[i]->string) != 0)
            continue;
        int line, column, line2, column2;
        mcpp_yaml_marks_find(rd->marks, members[i - 1], 1, &line, &column);
        mcpp_yaml_marks_find(rd->marks, members[i], 1, &line2, &column2);
        if (line2 > line || (line2 == line && column2 > column)) {
            line = line2; /* report the later occurrence */
            column = column2;
        }
        char text[160];
        snprintf(text, sizeof text, "duplicate key \"%.80s\" (each key may appear once)",
                 members[i]->string);
        yaml_mark_t at = {0, (size_t)(line > 0 ? line - 1 : 0), (size_t)(column > 0 ? column - 1 : 0)};
        rc = fail(rd, MCPP_EINVALID, "duplicate_key", &at, text);
    }
    free(members);
    return rc;
}

static int parser_failure(reader *rd, const yaml_parser_t *parser)
{
    char text[300];
    const yaml_mark_t *at = &parser->problem_mark;
    const char *kind = parser->error == YAML_READER_ERROR ? "encoding" : "syntax";
    if (parser->error == YAML_MEMORY_ERROR)
        return mcpp_error_nomem();
    if (parser->context)
        snprintf(text, sizeof text, "invalid YAML: %s %s", parser->problem ? parser->problem : "error",
                 parser->context);
    else
        snprintf(text, sizeof text, "invalid YAML: %s",
                 parser->problem ? parser->problem : "error");
    if (parser->error == YAML_READER_ERROR) {
        snprintf(text, sizeof text, "invalid UTF-8 or control character (%s at byte %zu)",
                 parser->problem ? parser->problem : "error", parser->problem_offset);
        return fail(rd, MCPP_EINVALID, kind, NULL, text);
    }
    return fail(rd, MCPP_EINVALID, kind, at, text);
}

int mcpp_yaml_read(cJSON **out, mcpp_yaml_marks **marks_out, const char *buf, size_t len,
                   const mcpp_limits *limits, const char *name, mcpp_report *report)
{
    yaml_parser_t parser;
    yaml_event_t ev;
    reader rd;
    int rc = 0, documents = 0, done = 0;
    *out = NULL;
    *marks_out = NULL;
    memset(&rd, 0, sizeof rd);
    rd.name = name;
    rd.report = report;
    rd.limits = limits;
    rd.marks = calloc(1, sizeof *rd.marks);
    rd.stack = calloc(limits->max_depth + 1, sizeof *rd.stack);
    if (!rd.marks || !rd.stack || !yaml_parser_initialize(&parser)) {
        free(rd.stack);
        free(rd.marks);
        return mcpp_error_nomem();
    }
    yaml_parser_set_input_string(&parser, (const unsigned char *)buf, len);
    yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
    while (!done && rc == 0) {
        if (!yaml_parser_parse(&parser, &ev)) {
            rc = parser_failure(&rd, &parser);
            break;
        }
        switch (ev.type) {
        case YAML_DOCUMENT_START_EVENT:
            if (++documents > 1)
                rc = fail(&rd, MCPP_EINVALID, "yaml_feature", &ev.start_mark,
                          "a second YAML document is not allowed: one receipt per file");
            else if (ev.data.document_start.tag_directives.start !=
                     ev.data.document_start.tag_directives.end)
                rc = fail(&rd, MCPP_EINVALID, "yaml_feature", &ev.start_mark,
                          "%TAG directives are not allowed");
            break;
        case YAML_ALIAS_EVENT: {
            char text[160];
            snprintf(text, sizeof text,
                     "aliases are not allowed (found *%.60s): a receipt is plain data",
                     (const char *)ev.data.alias.anchor);
            rc = fail(&rd, MCPP_EINVALID, "yaml_feature", &ev.start_mark, text);
            break;
        }
        case YAML_SCALAR_EVENT: rc = on_scalar(&rd, &ev); break;
        case YAML_SEQUENCE_START_EVENT: rc = on_container_start(&rd, &ev, 0); break;
        case YAML_MAPPING_START_EVENT: rc = on_container_start(&rd, &ev, 1); break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (rd.depth) {
                frame *f = &rd.stack[--rd.depth];
                if (f->is_map && f->members > 64)
                    rc = check_big_mapping(&rd, f);
            }
            break;
        case YAML_STREAM_END_EVENT: done = 1; break;
        default: break;
        }
        yaml_event_delete(&ev);
    }
    for (size_t i = 0; i < limits->max_depth + 1; i++)
        free(rd.stack[i].key);
    free(rd.stack);
    yaml_parser_delete(&parser);
    if (rc == 0 && !rd.root) {
        yaml_mark_t start = {0, 0, 0};
        rc = fail(&rd, MCPP_EINVALID, "syntax", &start, "empty document: expected a receipt");
    }
    if (rc != 0) {
        cJSON_Delete(rd.root);
        mcpp_yaml_marks_free(rd.marks);
        return rc;
    }
    *out = rd.root;
    *marks_out = rd.marks;
    return 0;
}
