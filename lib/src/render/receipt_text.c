/*
 * receipt_text.c — mcpp_receipt_render(): a receipt for people (TEXT), for
 * tools (JSON, the canonical writer) or for a pull request (MARKDOWN: the text
 * view in a fenced block). The text view has one section per part of the
 * receipt, aligned columns, requested and observed side by side with a "!"
 * where what ran is not what was asked for, and the step-time statistics with
 * their n on one line.
 *
 * It walks the schema (mcpp_schema_field_count/at) and reads each field with
 * mcpp_receipt_get, so a field added to the schema shows up here unchanged.
 * Free-form objects come from the same API as canonical JSON text, which is
 * parsed with cJSON to list their members.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "mcpp_receipts/receipt.h"
#include "receipt/canonical_json.h"
#include "receipt/fields.h"
#include "util/alloc.h"
#include "util/c_locale.h"
#include "util/escape.h"
#include "util/error_internal.h"

/* One printed line: "key  value" or, for requested/observed pairs,
 * "key  requested  observed  marker". Strings are owned by the row. */
typedef struct text_row {
    char *key;
    char *value;    /* the value, or the requested one for pairs */
    char *observed; /* pairs only; NULL when absent */
    int pair;
    int is_list; /* value holds items separated by '\n' */
} text_row;

typedef struct text_section {
    char *name; /* first path component; "" for top-level fields */
    text_row *rows;
    size_t count, cap;
    int has_pairs;
} text_section;

typedef struct text_doc {
    text_section *sections;
    size_t count, cap;
    /* metrics.step_time_s.* collected into one row */
    int step_row_section, step_row_index;
    int has_median, has_p10, has_p90;
    double median, p10, p90;
    size_t samples;
    int has_samples;
    int failed; /* allocation failed somewhere */
} text_doc;

/* The heap string a buffer holds ("" when nothing was written), or NULL when
 * it ran out of memory. */
static char *buffer_take(mcpp_strbuf *sb)
{
    if (sb->failed) {
        mcpp_sb_free(sb);
        return NULL;
    }
    if (!sb->data)
        return mcpp_strdup("", NULL);
    return sb->data;
}

/* ---- number formatting for people ---------------------------------------------- */

/* Digits grouped by thousands ("1,048,576"): counts and large rates are read
 * at a glance this way. */
static void format_grouped(char *buf, size_t cap, long long v)
{
    char digits[32];
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    int n = snprintf(digits, sizeof digits, "%llu", u);
    size_t out = 0;
    if (v < 0 && out + 1 < cap)
        buf[out++] = '-';
    for (int i = 0; i < n && out + 2 < cap; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            buf[out++] = ',';
        buf[out++] = digits[i];
    }
    buf[out] = '\0';
}

static void format_int(char *buf, size_t cap, int64_t v)
{
    if (v >= 10000 || v <= -10000)
        format_grouped(buf, cap, (long long)v);
    else
        snprintf(buf, cap, "%lld", (long long)v);
}

static void format_double(char *buf, size_t cap, double v)
{
    if (fabs(v) >= 1e5 && fabs(v) < 9e18)
        format_grouped(buf, cap, llround(v));
    else
        mcpp_snprintf_c(buf, cap, "%.6g", v);
}

/* The value of a field as text; lists become one item per line. */
static char *format_value(const mcpp_value *v)
{
    char num[64];
    switch (v->type) {
    case MCPP_TYPE_BOOL:
        return mcpp_strdup(v->boolean ? "true" : "false", NULL);
    case MCPP_TYPE_INT:
        format_int(num, sizeof num, v->integer);
        return mcpp_strdup(num, NULL);
    case MCPP_TYPE_DOUBLE:
        format_double(num, sizeof num, v->number);
        return mcpp_strdup(num, NULL);
    case MCPP_TYPE_STRING:
    case MCPP_TYPE_ENUM:
    case MCPP_TYPE_OBJECT:
        return mcpp_strdup(v->string ? v->string : "", NULL);
    case MCPP_TYPE_STRING_LIST:
    case MCPP_TYPE_DOUBLE_LIST: {
        mcpp_strbuf sb;
        mcpp_sb_init(&sb, NULL, 0);
        for (size_t i = 0; i < v->count; i++) {
            if (i)
                mcpp_sb_putc(&sb, '\n');
            if (v->type == MCPP_TYPE_STRING_LIST) {
                mcpp_sb_puts(&sb, "- ");
                mcpp_sb_puts(&sb, v->strings[i] ? v->strings[i] : "");
            } else {
                format_double(num, sizeof num, v->doubles[i]);
                mcpp_sb_printf(&sb, "- %s", num);
            }
        }
        return buffer_take(&sb);
    }
    case MCPP_TYPE_ABSENT:
    default:
        return mcpp_strdup("", NULL);
    }
}

/* ---- free-form objects (extra, launch.fixed_policy, artifacts) ----------------- */

/* A member as people read it: strings without quotes or escapes, anything else
 * as its canonical JSON text. */
static char *member_text(const cJSON *v)
{
    if (cJSON_IsString(v))
        return mcpp_strdup(v->valuestring ? v->valuestring : "", NULL);
    mcpp_strbuf sb;
    mcpp_sb_init(&sb, NULL, 0);
    mcpp_sb_cjson_compact(&sb, v);
    return buffer_take(&sb);
}

/* ---- building the document ----------------------------------------------------- */

static text_section *section_for(text_doc *doc, const char *name, size_t name_len)
{
    for (size_t i = 0; i < doc->count; i++)
        if (strlen(doc->sections[i].name) == name_len &&
            strncmp(doc->sections[i].name, name, name_len) == 0)
            return &doc->sections[i];
    text_section *s = MCPP_ARRAY_NEXT(doc->sections, doc->count, doc->cap, MCPP_ARRAY_MAX_ITEMS);
    if (!s || !(s->name = mcpp_strndup(name, name_len, NULL)))
        return NULL;
    doc->count++;
    return s;
}

static text_row *row_add(text_section *s, const char *key)
{
    text_row *r = MCPP_ARRAY_NEXT(s->rows, s->count, s->cap, MCPP_ARRAY_MAX_ITEMS);
    if (!r || !(r->key = mcpp_strdup(key, NULL)))
        return NULL;
    s->count++;
    return r;
}

static text_row *pair_row(text_section *s, const char *key)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->rows[i].pair && strcmp(s->rows[i].key, key) == 0)
            return &s->rows[i];
    text_row *r = row_add(s, key);
    if (r)
        r->pair = 1;
    s->has_pairs = 1;
    return r;
}

/* Collects metrics.step_time_s.* into one row placed where the first of them
 * appears; returns 1 when `rest` was one of them. */
static int take_step_time(text_doc *doc, text_section *s, const char *rest, const mcpp_value *v)
{
    static const char prefix[] = "step_time_s.";
    if (strncmp(rest, prefix, sizeof prefix - 1) != 0)
        return 0;
    const char *stat = rest + sizeof prefix - 1;
    if (doc->step_row_section < 0) {
        if (!row_add(s, "step_time_s")) {
            doc->failed = 1;
            return 1;
        }
        doc->step_row_section = (int)(s - doc->sections);
        doc->step_row_index = (int)s->count - 1;
    }
    if (strcmp(stat, "samples") == 0 && v->type == MCPP_TYPE_DOUBLE_LIST) {
        doc->has_samples = 1;
        doc->samples = v->count;
    } else if (v->type == MCPP_TYPE_DOUBLE || v->type == MCPP_TYPE_INT) {
        double x = v->type == MCPP_TYPE_DOUBLE ? v->number : (double)v->integer;
        if (strcmp(stat, "median") == 0)
            doc->has_median = 1, doc->median = x;
        else if (strcmp(stat, "p10") == 0)
            doc->has_p10 = 1, doc->p10 = x;
        else if (strcmp(stat, "p90") == 0)
            doc->has_p90 = 1, doc->p90 = x;
    }
    return 1;
}

static void finish_step_time(text_doc *doc)
{
    if (doc->step_row_section < 0)
        return;
    text_row *r = &doc->sections[doc->step_row_section].rows[doc->step_row_index];
    char num[64];
    mcpp_strbuf sb;
    mcpp_sb_init(&sb, NULL, 0);
    if (doc->has_median) {
        format_double(num, sizeof num, doc->median);
        mcpp_sb_printf(&sb, "median %s s", num);
    }
    if (doc->has_p10) {
        format_double(num, sizeof num, doc->p10);
        mcpp_sb_printf(&sb, "  p10 %s", num);
    }
    if (doc->has_p90) {
        format_double(num, sizeof num, doc->p90);
        mcpp_sb_printf(&sb, "  p90 %s", num);
    }
    if (doc->has_samples)
        mcpp_sb_printf(&sb, "  n=%zu", doc->samples);
    else
        mcpp_sb_puts(&sb, "  n=? (no samples kept)");
    if (doc->has_median && doc->has_p10 && doc->has_p90 && doc->median > 0)
        mcpp_sb_printf(&sb, "  (p10-p90 spread %.1f%%)", 100.0 * (doc->p90 - doc->p10) / doc->median);
    r->value = buffer_take(&sb);
    if (!r->value)
        doc->failed = 1;
}

/* Rows for a free-form object: one per member ("prefix.member  value"), or
 * for artifacts one per {kind, uri} element ("trace  s3://..."). */
typedef struct object_rows {
    text_doc *doc;
    text_section *section;
    const char *prefix;
} object_rows;

static void add_row_text(object_rows *o, const char *key, char *text)
{
    text_row *r = text ? row_add(o->section, key) : NULL;
    if (!r) {
        free(text);
        o->doc->failed = 1;
        return;
    }
    r->value = text;
}

/* An artifact ({kind, uri}) is one row "kind  uri"; anything else is shown as
 * it is under "-". */
static void add_artifact_row(object_rows *o, const cJSON *item)
{
    const cJSON *kind = cJSON_IsObject(item) ? cJSON_GetObjectItemCaseSensitive(item, "kind") : NULL;
    const cJSON *uri = cJSON_IsObject(item) ? cJSON_GetObjectItemCaseSensitive(item, "uri") : NULL;
    if (kind && uri) {
        char *kind_text = member_text(kind);
        if (!kind_text) {
            o->doc->failed = 1;
            return;
        }
        add_row_text(o, kind_text, member_text(uri));
        free(kind_text);
        return;
    }
    add_row_text(o, "-", member_text(item));
}

/* A nested object (launch.fixed_policy) is one row, "KEY = value" per line. */
static void append_nested_member(object_rows *o, const char *key, char *text)
{
    text_row *r = NULL;
    for (size_t i = 0; i < o->section->count; i++)
        if (strcmp(o->section->rows[i].key, o->prefix) == 0)
            r = &o->section->rows[i];
    if (!r) {
        add_row_text(o, o->prefix, mcpp_strdup("", NULL));
        if (o->doc->failed) {
            free(text);
            return;
        }
        r = &o->section->rows[o->section->count - 1];
        r->is_list = 1;
    }
    size_t old = strlen(r->value);
    char *joined = text ? malloc(old + strlen(key) + strlen(text) + 5) : NULL;
    if (!joined) {
        free(text);
        o->doc->failed = 1;
        return;
    }
    sprintf(joined, "%s%s%s = %s", r->value, old ? "\n" : "", key, text);
    free(text);
    free(r->value);
    r->value = joined;
}

/* Rows for a free-form object given as canonical JSON: one per member of a
 * top-level object (extra), one per element of artifacts, one joined row for
 * a nested object. Returns 0 when `json` is neither an object nor an array. */
static int add_object_rows(text_doc *doc, const char *path, const char *json)
{
    cJSON *root = cJSON_Parse(json);
    if (!root)
        return 0;
    if (!cJSON_IsObject(root) && !cJSON_IsArray(root)) {
        cJSON_Delete(root);
        return 0;
    }
    const char *dot = strchr(path, '.');
    object_rows o;
    memset(&o, 0, sizeof o);
    o.doc = doc;
    o.section = dot ? section_for(doc, path, (size_t)(dot - path)) : section_for(doc, path, strlen(path));
    o.prefix = dot ? dot + 1 : "";
    if (!o.section)
        doc->failed = 1;
    for (const cJSON *item = root->child; item && !doc->failed; item = item->next) {
        if (cJSON_IsArray(root))
            add_artifact_row(&o, item);
        else if (!*o.prefix)
            add_row_text(&o, item->string, member_text(item));
        else
            append_nested_member(&o, item->string, member_text(item));
    }
    cJSON_Delete(root);
    return 1;
}

/* Appends "name value" to the row of a group of short scalars
 * ("per_family_ms  A 414.1  M 690.3  E 1391.8  R 96"). */
static void add_to_group(text_doc *doc, text_section *s, const char *rest, const mcpp_value *v)
{
    const char *last = strrchr(rest, '.');
    char key[128];
    snprintf(key, sizeof key, "%.*s", (int)(last - rest), rest);
    text_row *r = NULL;
    for (size_t i = 0; i < s->count; i++)
        if (!s->rows[i].pair && strcmp(s->rows[i].key, key) == 0)
            r = &s->rows[i];
    if (!r && !(r = row_add(s, key))) {
        doc->failed = 1;
        return;
    }
    char *text = format_value(v);
    size_t old = r->value ? strlen(r->value) : 0;
    char *joined = text ? malloc(old + strlen(last + 1) + strlen(text) + 4) : NULL;
    if (!joined) {
        free(text);
        doc->failed = 1;
        return;
    }
    sprintf(joined, "%s%s%s %s", r->value ? r->value : "", old ? "  " : "", last + 1, text);
    free(text);
    free(r->value);
    r->value = joined;
}

static void add_field(text_doc *doc, const char *path, const mcpp_value *v, int grouped)
{
    if (v->type == MCPP_TYPE_OBJECT && v->string && add_object_rows(doc, path, v->string))
        return;
    const char *dot = strchr(path, '.');
    text_section *s = dot ? section_for(doc, path, (size_t)(dot - path)) : section_for(doc, "", 0);
    if (!s) {
        doc->failed = 1;
        return;
    }
    const char *rest = dot ? dot + 1 : path;
    if (strcmp(s->name, "metrics") == 0 && take_step_time(doc, s, rest, v))
        return;
    if (grouped) {
        add_to_group(doc, s, rest, v);
        return;
    }

    /* requested/observed pairs: SECTION.requested.KEY (hardware) and
     * SECTION.KEY.requested (backend families) */
    int side = 0; /* 1 requested, 2 observed */
    char key[128];
    const char *second = strchr(rest, '.');
    if (second && !strchr(second + 1, '.')) {
        size_t head = (size_t)(second - rest);
        const char *tail = second + 1;
        if ((head == 9 && strncmp(rest, "requested", 9) == 0) ||
            (head == 8 && strncmp(rest, "observed", 8) == 0)) {
            side = rest[0] == 'r' ? 1 : 2;
            snprintf(key, sizeof key, "%s", tail);
        } else if (strcmp(tail, "requested") == 0 || strcmp(tail, "observed") == 0) {
            side = tail[0] == 'r' ? 1 : 2;
            snprintf(key, sizeof key, "%.*s", (int)head, rest);
        }
    }
    char *text = format_value(v);
    if (!text) {
        doc->failed = 1;
        return;
    }
    text_row *r = side ? pair_row(s, key) : row_add(s, rest);
    if (!r) {
        free(text);
        doc->failed = 1;
        return;
    }
    if (side == 2) {
        free(r->observed);
        r->observed = text;
    } else {
        free(r->value);
        r->value = text;
    }
    r->is_list = v->type == MCPP_TYPE_STRING_LIST || v->type == MCPP_TYPE_DOUBLE_LIST;
}

static void doc_free(text_doc *doc)
{
    for (size_t i = 0; i < doc->count; i++) {
        text_section *s = &doc->sections[i];
        for (size_t j = 0; j < s->count; j++) {
            free(s->rows[j].key);
            free(s->rows[j].value);
            free(s->rows[j].observed);
        }
        free(s->rows);
        free(s->name);
    }
    free(doc->sections);
}

/* ---- printing ------------------------------------------------------------------ */

/* A section's heading: its name with a capital ("Receipt" for the top
 * level), so a new section of the schema needs no entry here. */
static const char *section_title(char buf[32], const char *name)
{
    if (!*name) return "Receipt";
    snprintf(buf, 32, "%s", name);
    if (buf[0] >= 'a' && buf[0] <= 'z') buf[0] = (char)(buf[0] - 'a' + 'A');
    return buf;
}

/* Width of the longest line of a possibly multi-line value. */
static size_t text_width(const char *s)
{
    size_t best = 0, cur = 0;
    for (; s && *s; s++) {
        if (*s == '\n') {
            cur = 0;
            continue;
        }
        /* count UTF-8 code points, not bytes, so columns line up */
        if (((unsigned char)*s & 0xC0) != 0x80)
            cur++;
        if (cur > best)
            best = cur;
    }
    return best;
}

static void pad(mcpp_strbuf *to, size_t n)
{
    while (n--)
        mcpp_sb_putc(to, ' ');
}

/* Prints a value whose items are on separate lines, continuation lines
 * indented to the value column. A receipt's strings can hold terminal
 * escapes: they are shown escaped (util/escape.h). */
static void print_value(mcpp_strbuf *to, const char *value, size_t indent)
{
    mcpp_strbuf shown;
    mcpp_sb_init(&shown, NULL, 0);
    mcpp_sb_terminal_lines(&shown, value);
    if (shown.failed)
        to->failed = 1;
    for (const char *p = shown.data ? shown.data : ""; *p; p++) {
        mcpp_sb_putc(to, *p);
        if (*p == '\n')
            pad(to, indent);
    }
    mcpp_sb_free(&shown);
}

static void print_section(mcpp_strbuf *to, const text_section *s, size_t key_w, size_t left_w)
{
    int arrow = strcmp(s->name, "backend") == 0;
    char buf[32];
    const char *title = section_title(buf, s->name);
    mcpp_sb_puts(to, title);
    if (s->has_pairs) {
        /* a column header says which side is which */
        pad(to, 2 + key_w + 2 - strlen(title));
        if (arrow) {
            mcpp_sb_puts(to, "requested");
            pad(to, left_w - 9);
            mcpp_sb_puts(to, " -> observed");
        } else {
            mcpp_sb_puts(to, "requested");
            pad(to, left_w - 9);
            mcpp_sb_puts(to, "    observed");
        }
    }
    mcpp_sb_putc(to, '\n');
    for (size_t i = 0; i < s->count; i++) {
        const text_row *r = &s->rows[i];
        mcpp_sb_puts(to, "  ");
        mcpp_sb_terminal(to, r->key);
        pad(to, key_w - text_width(r->key) + 2);
        if (!r->pair) {
            print_value(to, r->value ? r->value : "", 2 + key_w + 2);
            mcpp_sb_putc(to, '\n');
            continue;
        }
        const char *req = r->value ? r->value : "-";
        const char *obs = r->observed ? r->observed : "-";
        mcpp_sb_terminal(to, req);
        pad(to, left_w - text_width(req));
        mcpp_sb_puts(to, arrow ? " -> " : "    ");
        mcpp_sb_terminal(to, obs);
        if (r->value && !r->observed)
            mcpp_sb_puts(to, "   ! not observed");
        else if (r->value && r->observed && strcmp(r->value, r->observed) != 0)
            mcpp_sb_puts(to, "   ! differs");
        mcpp_sb_putc(to, '\n');
    }
}

static int is_short_scalar(const mcpp_value *v)
{
    return v->type == MCPP_TYPE_INT || v->type == MCPP_TYPE_DOUBLE || v->type == MCPP_TYPE_BOOL ||
           v->type == MCPP_TYPE_ENUM;
}

/* Length of the parent path ("metrics.goodput" of "metrics.goodput.useful_s"). */
static size_t parent_len(const char *path)
{
    const char *last = strrchr(path, '.');
    return last ? (size_t)(last - path) : 0;
}

/*
 * Fields below a sub-section (metrics.window.*, metrics.per_family_ms.*,
 * metrics.goodput.badput_s.*, backend.verification.*) read best on one line
 * when they are all short scalars; strings (workload.data.dataset,
 * hardware.host.cpu) keep a row each, and requested/observed pairs have their
 * own layout.
 */
static int is_grouped(const char *const *paths, const mcpp_value *values, int count, int index)
{
    const char *path = paths[index];
    size_t plen = parent_len(path);
    const char *first_dot = strchr(path, '.');
    if (!first_dot || (size_t)(first_dot - path) == plen)
        return 0; /* a direct member of its section */
    const char *last = path + plen + 1;
    if (strcmp(last, "requested") == 0 || strcmp(last, "observed") == 0 ||
        strstr(path, ".requested.") || strstr(path, ".observed."))
        return 0;
    int members = 0;
    for (int i = 0; i < count; i++) {
        if (parent_len(paths[i]) != plen || strncmp(paths[i], path, plen) != 0)
            continue;
        if (!is_short_scalar(&values[i]))
            return 0;
        members++;
    }
    return members >= 2; /* a lone member reads better as "data.path  real" */
}

/* Reads every present field in schema order into the document. */
static void collect_fields(text_doc *doc, const mcpp_receipt *receipt, int *saw_id)
{
    int n = mcpp_schema_field_count(), present = 0;
    mcpp_value *values = calloc((size_t)(n > 0 ? n : 1), sizeof *values);
    const char **paths = calloc((size_t)(n > 0 ? n : 1), sizeof *paths);
    if (!values || !paths)
        doc->failed = 1;
    for (int id = 0; id < n && !doc->failed; id++) {
        const mcpp_field_info *info = mcpp_schema_field_at(id);
        if (!info || mcpp_value_at_path(receipt, info->path, &values[present]) != MCPP_OK ||
            values[present].type == MCPP_TYPE_ABSENT)
            continue;
        if (strcmp(info->path, "id") == 0)
            *saw_id = 1;
        paths[present++] = info->path;
    }
    for (int i = 0; i < present && !doc->failed; i++)
        add_field(doc, paths[i], &values[i], is_grouped(paths, values, present, i));
    free(values);
    free(paths);
}

/* mcpp_receipt_id derives an id from the content when none is stated; it is
 * shown where a stated id would be: right after file and schema. */
static void add_derived_id(text_doc *doc, const mcpp_receipt *receipt)
{
    text_section *top = &doc->sections[0];
    text_row *r = row_add(top, "id");
    const char *id = mcpp_receipt_id(receipt);
    if (!r || !(r->value = malloc(strlen(id) + 16))) {
        doc->failed = 1;
        return;
    }
    sprintf(r->value, "%s (derived)", id);
    size_t at = 0;
    while (at + 1 < top->count &&
           (strcmp(top->rows[at].key, "file") == 0 || strcmp(top->rows[at].key, "schema") == 0))
        at++;
    text_row moved = top->rows[top->count - 1];
    memmove(&top->rows[at + 1], &top->rows[at], (top->count - 1 - at) * sizeof moved);
    top->rows[at] = moved;
}

/* Each section aligns its own columns: one long member name (a launcher
 * policy key) must not push every other section right. An empty section (an
 * empty extra: {}) says nothing to people and is left out. */
static void print_doc(mcpp_strbuf *to, const text_doc *doc)
{
    size_t printed = 0;
    for (size_t i = 0; i < doc->count; i++) {
        const text_section *sec = &doc->sections[i];
        if (sec->count == 0)
            continue;
        size_t key_w = 16, left_w = 9;
        for (size_t j = 0; j < sec->count; j++) {
            const text_row *row = &sec->rows[j];
            if (text_width(row->key) > key_w)
                key_w = text_width(row->key);
            if (row->pair && text_width(row->value ? row->value : "-") > left_w)
                left_w = text_width(row->value ? row->value : "-");
        }
        char buf[32];
        if (strlen(section_title(buf, sec->name)) > key_w + 2)
            key_w = strlen(section_title(buf, sec->name)) - 2;
        if (printed++)
            mcpp_sb_putc(to, '\n');
        print_section(to, sec, key_w, left_w);
    }
}

/* The text view; the header row names the input the receipt came from. */
static int render_text(mcpp_strbuf *to, const mcpp_receipt *receipt)
{
    text_doc doc;
    memset(&doc, 0, sizeof doc);
    doc.step_row_section = -1;
    const char *source = mcpp_receipt_source_name(receipt);
    text_section *head = section_for(&doc, "", 0);
    text_row *r = head ? row_add(head, "file") : NULL;
    if (!r || !(r->value = mcpp_strdup(source ? source : "-", NULL)))
        doc.failed = 1;
    int saw_id = 0;
    if (!doc.failed)
        collect_fields(&doc, receipt, &saw_id);
    if (!saw_id && !doc.failed)
        add_derived_id(&doc, receipt);
    finish_step_time(&doc);
    if (!doc.failed)
        print_doc(to, &doc);
    doc_free(&doc);
    return doc.failed ? mcpp_error_nomem() : MCPP_OK;
}

int mcpp_receipt_render(char **out, const mcpp_receipt *receipt, int format)
{
    if (out)
        *out = NULL;
    if (!out || !receipt)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "mcpp_receipt_render: out and receipt must not be NULL");
    if (format == MCPP_OUTPUT_JSON)
        return mcpp_receipt_write(out, NULL, receipt, MCPP_FORMAT_JSON);
    if (format != MCPP_OUTPUT_TEXT && format != MCPP_OUTPUT_MARKDOWN)
        return mcpp_error_at(MCPP_EARG, MCPP_ERROR_KIND_ARGUMENT, NULL, NULL, 0, 0,
                              "mcpp_receipt_render: unknown output format %d", format);
    mcpp_strbuf sb;
    mcpp_sb_init(&sb, NULL, 0);
    int status = render_text(&sb, receipt);
    if (status == MCPP_OK && format == MCPP_OUTPUT_MARKDOWN)
        status = mcpp_sb_fence_text(&sb);
    if (status != MCPP_OK) {
        mcpp_sb_free(&sb);
        return status;
    }
    *out = buffer_take(&sb);
    return *out ? MCPP_OK : mcpp_error_nomem();
}
