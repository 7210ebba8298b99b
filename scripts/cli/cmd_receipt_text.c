/*
 * cmd_receipt_text.c — `mcpp-receipts show` for people: one section per part
 * of the receipt, aligned columns, requested and observed side by side with a
 * "!" where what ran is not what was asked for, and the step-time statistics
 * with their n on one line.
 *
 * It walks the schema (mcpp_schema_field_count/at) and reads each field with
 * mcpp_receipt_get, so a field added to the schema shows up here unchanged.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_receipt_io.h"

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

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *copy = malloc(n);
    if (copy)
        memcpy(copy, s, n);
    return copy;
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
        snprintf(buf, cap, "%.6g", v);
}

/* The value of a field as text; lists become one item per line. */
static char *format_value(const mcpp_value *v)
{
    char num[64];
    switch (v->type) {
    case MCPP_TYPE_BOOL:
        return dup_string(v->boolean ? "true" : "false");
    case MCPP_TYPE_INT:
        format_int(num, sizeof num, v->integer);
        return dup_string(num);
    case MCPP_TYPE_DOUBLE:
        format_double(num, sizeof num, v->number);
        return dup_string(num);
    case MCPP_TYPE_STRING:
    case MCPP_TYPE_ENUM:
    case MCPP_TYPE_OBJECT:
        return dup_string(v->string ? v->string : "");
    case MCPP_TYPE_STRING_LIST:
    case MCPP_TYPE_DOUBLE_LIST: {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f)
            return NULL;
        for (size_t i = 0; i < v->count; i++) {
            if (i)
                fputc('\n', f);
            if (v->type == MCPP_TYPE_STRING_LIST) {
                fprintf(f, "- %s", v->strings[i] ? v->strings[i] : "");
            } else {
                format_double(num, sizeof num, v->doubles[i]);
                fprintf(f, "- %s", num);
            }
        }
        if (fclose(f) != 0) {
            free(text);
            return NULL;
        }
        return text;
    }
    case MCPP_TYPE_ABSENT:
    default:
        return dup_string("");
    }
}

/* ---- free-form objects (extra, launch.fixed_policy, artifacts) --------------------- */

/* The library hands free-form values over as canonical JSON text. For people
 * they read better as one row per member, so this walks the top level of
 * that text (it is always well-formed: the library wrote it). */
typedef void (*member_fn)(void *ctx, const char *key, size_t key_len, const char *value,
                          size_t value_len);

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
        p++;
    return p;
}

/* Returns the end of the JSON value starting at p (one past it). */
static const char *value_end(const char *p)
{
    int depth = 0;
    for (; *p; p++) {
        if (*p == '"') {
            for (p++; *p && *p != '"'; p++)
                if (*p == '\\' && p[1])
                    p++;
            if (!*p)
                return p;
            if (depth == 0)
                return p + 1;
        } else if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            if (depth == 0)
                return p;
            if (--depth == 0)
                return p + 1;
        } else if (depth == 0 && (*p == ',' || *p == ' ' || *p == '\n')) {
            return p;
        }
    }
    return p;
}

/* Calls fn for each member of an object (key = its name) or each element of
 * an array (key = NULL). Returns 0 when `json` is neither. */
static int for_each_member(const char *json, member_fn fn, void *ctx)
{
    const char *p = skip_space(json);
    int is_object = *p == '{';
    if (*p != '{' && *p != '[')
        return 0;
    p = skip_space(p + 1);
    while (*p && *p != '}' && *p != ']') {
        const char *key = NULL;
        size_t key_len = 0;
        if (is_object) {
            const char *k_end = value_end(p);
            key = p + 1;
            key_len = k_end > key ? (size_t)(k_end - key - 1) : 0;
            p = skip_space(k_end);
            if (*p != ':')
                return 1;
            p = skip_space(p + 1);
        }
        const char *v_end = value_end(p);
        fn(ctx, key, key_len, p, (size_t)(v_end - p));
        p = skip_space(v_end);
        if (*p == ',')
            p = skip_space(p + 1);
        else
            break;
    }
    return 1;
}

/* A JSON scalar as people read it: strings without quotes or escapes. */
static char *json_scalar_text(const char *v, size_t len)
{
    char *out = malloc(len + 1);
    size_t n = 0;
    if (!out)
        return NULL;
    if (len >= 2 && v[0] == '"' && v[len - 1] == '"') {
        for (size_t i = 1; i + 1 < len; i++) {
            if (v[i] == '\\' && i + 2 < len) {
                i++;
                out[n++] = v[i] == 'n' ? '\n' : v[i] == 't' ? '\t' : v[i];
            } else {
                out[n++] = v[i];
            }
        }
    } else {
        memcpy(out, v, len);
        n = len;
    }
    out[n] = '\0';
    return out;
}

/* ---- building the document ----------------------------------------------------- */

static text_section *section_for(text_doc *doc, const char *name, size_t name_len)
{
    for (size_t i = 0; i < doc->count; i++)
        if (strlen(doc->sections[i].name) == name_len &&
            strncmp(doc->sections[i].name, name, name_len) == 0)
            return &doc->sections[i];
    if (doc->count == doc->cap) {
        size_t cap = doc->cap ? doc->cap * 2 : 16;
        text_section *grown = realloc(doc->sections, cap * sizeof *grown);
        if (!grown)
            return NULL;
        doc->sections = grown;
        doc->cap = cap;
    }
    text_section *s = &doc->sections[doc->count];
    memset(s, 0, sizeof *s);
    s->name = malloc(name_len + 1);
    if (!s->name)
        return NULL;
    memcpy(s->name, name, name_len);
    s->name[name_len] = '\0';
    doc->count++;
    return s;
}

static text_row *row_add(text_section *s, const char *key)
{
    if (s->count == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        text_row *grown = realloc(s->rows, cap * sizeof *grown);
        if (!grown)
            return NULL;
        s->rows = grown;
        s->cap = cap;
    }
    text_row *r = &s->rows[s->count];
    memset(r, 0, sizeof *r);
    r->key = dup_string(key);
    if (!r->key)
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
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        doc->failed = 1;
        return;
    }
    if (doc->has_median) {
        format_double(num, sizeof num, doc->median);
        fprintf(f, "median %s s", num);
    }
    if (doc->has_p10) {
        format_double(num, sizeof num, doc->p10);
        fprintf(f, "  p10 %s", num);
    }
    if (doc->has_p90) {
        format_double(num, sizeof num, doc->p90);
        fprintf(f, "  p90 %s", num);
    }
    if (doc->has_samples)
        fprintf(f, "  n=%zu", doc->samples);
    else
        fputs("  n=? (no samples kept)", f);
    if (doc->has_median && doc->has_p10 && doc->has_p90 && doc->median > 0)
        fprintf(f, "  (p10-p90 spread %.1f%%)", 100.0 * (doc->p90 - doc->p10) / doc->median);
    if (fclose(f) != 0) {
        free(text);
        doc->failed = 1;
        return;
    }
    r->value = text;
}

/* Rows for a free-form object: one per member ("prefix.member  value"), or
 * for artifacts one per {kind, uri} element ("trace  s3://..."). */
typedef struct object_rows {
    text_doc *doc;
    text_section *section;
    const char *prefix;
    char *kind, *uri; /* while reading one artifact */
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

static void artifact_member(void *ctx, const char *key, size_t key_len, const char *value,
                            size_t value_len)
{
    object_rows *o = ctx;
    char **slot = key_len == 4 && strncmp(key, "kind", 4) == 0  ? &o->kind
                  : key_len == 3 && strncmp(key, "uri", 3) == 0 ? &o->uri
                                                                 : NULL;
    if (slot && !*slot)
        *slot = json_scalar_text(value, value_len);
}

static void object_member(void *ctx, const char *key, size_t key_len, const char *value,
                          size_t value_len)
{
    object_rows *o = ctx;
    char name[160];
    if (!key) { /* an array element: artifacts */
        char *raw = json_scalar_text(value, value_len);
        o->kind = o->uri = NULL;
        if (raw && for_each_member(raw, artifact_member, o) && o->kind && o->uri) {
            add_row_text(o, o->kind, o->uri);
            o->uri = NULL;
        } else {
            add_row_text(o, "-", raw ? dup_string(raw) : NULL);
        }
        free(o->kind);
        free(o->uri);
        free(raw);
        return;
    }
    char *text = json_scalar_text(value, value_len);
    if (!*o->prefix) { /* a top-level object (extra): one row per member */
        snprintf(name, sizeof name, "%.*s", (int)key_len, key);
        add_row_text(o, name, text);
        return;
    }
    /* a nested object (launch.fixed_policy): one row, "KEY = value" per line */
    text_row *r = NULL;
    for (size_t i = 0; i < o->section->count; i++)
        if (strcmp(o->section->rows[i].key, o->prefix) == 0)
            r = &o->section->rows[i];
    if (!r) {
        add_row_text(o, o->prefix, dup_string(""));
        if (o->doc->failed) {
            free(text);
            return;
        }
        r = &o->section->rows[o->section->count - 1];
        r->is_list = 1;
    }
    size_t old = strlen(r->value);
    char *joined = text ? malloc(old + key_len + strlen(text) + 5) : NULL;
    if (!joined) {
        free(text);
        o->doc->failed = 1;
        return;
    }
    sprintf(joined, "%s%s%.*s = %s", r->value, old ? "\n" : "", (int)key_len, key, text);
    free(text);
    free(r->value);
    r->value = joined;
}

static int add_object_rows(text_doc *doc, const char *path, const char *json)
{
    const char *dot = strchr(path, '.');
    object_rows o;
    memset(&o, 0, sizeof o);
    o.doc = doc;
    o.section = dot ? section_for(doc, path, (size_t)(dot - path)) : section_for(doc, path, strlen(path));
    o.prefix = dot ? dot + 1 : "";
    if (!o.section) {
        doc->failed = 1;
        return 1;
    }
    return for_each_member(json, object_member, &o);
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

static const char *section_title(const char *name)
{
    static const struct {
        const char *name, *title;
    } titles[] = {
        {"", "Receipt"},         {"source", "Source"},     {"lane", "Lane"},
        {"workload", "Workload"}, {"routing", "Routing"},   {"compile", "Compile"},
        {"backend", "Backend"},   {"hardware", "Hardware"}, {"topology", "Topology"},
        {"launch", "Launch"},     {"startup", "Startup"},   {"metrics", "Metrics"},
        {"status", "Status"},     {"artifacts", "Artifacts"}, {"extra", "Extra"},
    };
    for (size_t i = 0; i < sizeof titles / sizeof titles[0]; i++)
        if (strcmp(titles[i].name, name) == 0)
            return titles[i].title;
    return name;
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

static void pad(FILE *to, size_t n)
{
    while (n--)
        fputc(' ', to);
}

/* Prints a value whose items are on separate lines, continuation lines
 * indented to the value column. */
static void print_value(FILE *to, const char *value, size_t indent)
{
    char one[2] = {0, 0};
    for (const char *p = value; *p; p++) {
        one[0] = *p;
        cli_fputs_safe(to, one, 1);
        if (*p == '\n')
            pad(to, indent);
    }
}

static void print_section(FILE *to, const text_section *s, size_t key_w, size_t left_w)
{
    int arrow = strcmp(s->name, "backend") == 0;
    const char *title = section_title(s->name);
    fputs(title, to);
    if (s->has_pairs) {
        /* a column header says which side is which */
        pad(to, 2 + key_w + 2 - strlen(title));
        if (arrow) {
            fputs("requested", to);
            pad(to, left_w - 9);
            fputs(" -> observed", to);
        } else {
            fputs("requested", to);
            pad(to, left_w - 9);
            fputs("    observed", to);
        }
    }
    fputc('\n', to);
    for (size_t i = 0; i < s->count; i++) {
        const text_row *r = &s->rows[i];
        fputs("  ", to);
        cli_fputs_safe(to, r->key, 0);
        pad(to, key_w - text_width(r->key) + 2);
        if (!r->pair) {
            print_value(to, r->value ? r->value : "", 2 + key_w + 2);
            fputc('\n', to);
            continue;
        }
        const char *req = r->value ? r->value : "-";
        const char *obs = r->observed ? r->observed : "-";
        cli_fputs_safe(to, req, 0);
        pad(to, left_w - text_width(req));
        fputs(arrow ? " -> " : "    ", to);
        cli_fputs_safe(to, obs, 0);
        if (r->value && !r->observed)
            fputs("   ! not observed", to);
        else if (r->value && r->observed && strcmp(r->value, r->observed) != 0)
            fputs("   ! differs", to);
        fputc('\n', to);
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

int cli_render_text(FILE *to, const mcpp_receipt *receipt, const char *display_name)
{
    text_doc doc;
    memset(&doc, 0, sizeof doc);
    doc.step_row_section = -1;

    /* The header names what is being shown before any section. */
    text_section *head = section_for(&doc, "", 0);
    text_row *r = head ? row_add(head, "file") : NULL;
    if (!r || !(r->value = dup_string(display_name ? display_name : "-")))
        doc.failed = 1;

    int n = mcpp_schema_field_count(), present = 0;
    int saw_id = 0;
    mcpp_value *values = calloc((size_t)(n > 0 ? n : 1), sizeof *values);
    const char **paths = calloc((size_t)(n > 0 ? n : 1), sizeof *paths);
    if (!values || !paths)
        doc.failed = 1;
    for (int id = 0; id < n && !doc.failed; id++) {
        const mcpp_field_info *info = mcpp_schema_field_at(id);
        if (!info || mcpp_receipt_get(receipt, info->path, &values[present]) != MCPP_OK ||
            values[present].type == MCPP_TYPE_ABSENT)
            continue;
        if (strcmp(info->path, "id") == 0)
            saw_id = 1;
        paths[present++] = info->path;
    }
    for (int i = 0; i < present && !doc.failed; i++)
        add_field(&doc, paths[i], &values[i], is_grouped(paths, values, present, i));
    free(values);
    free(paths);
    if (!saw_id && !doc.failed && head) {
        /* mcpp_receipt_id derives one from the content when none is stated */
        text_section *top = &doc.sections[0];
        r = row_add(top, "id");
        if (!r || !(r->value = malloc(strlen(mcpp_receipt_id(receipt)) + 16))) {
            doc.failed = 1;
        } else {
            sprintf(r->value, "%s (derived)", mcpp_receipt_id(receipt));
            /* where a stated id would be: right after file and schema */
            size_t at = 0;
            while (at + 1 < top->count && (strcmp(top->rows[at].key, "file") == 0 ||
                                           strcmp(top->rows[at].key, "schema") == 0))
                at++;
            text_row moved = top->rows[top->count - 1];
            memmove(&top->rows[at + 1], &top->rows[at], (top->count - 1 - at) * sizeof moved);
            top->rows[at] = moved;
        }
    }
    finish_step_time(&doc);
    if (doc.failed) {
        doc_free(&doc);
        fprintf(stderr, "mcpp-receipts show: out of memory\n");
        return CLI_EXIT_INTERNAL;
    }

    size_t printed = 0;
    for (size_t i = 0; i < doc.count; i++) {
        if (doc.sections[i].count == 0)
            continue; /* an empty object (extra: {}) says nothing to people */
        /* each section aligns its own columns: one long member name (a
         * launcher policy key) must not push every other section right */
        const text_section *sec = &doc.sections[i];
        size_t key_w = 16, left_w = 9;
        for (size_t j = 0; j < sec->count; j++) {
            const text_row *row = &sec->rows[j];
            if (text_width(row->key) > key_w)
                key_w = text_width(row->key);
            if (row->pair && text_width(row->value ? row->value : "-") > left_w)
                left_w = text_width(row->value ? row->value : "-");
        }
        if (strlen(section_title(sec->name)) > key_w + 2)
            key_w = strlen(section_title(sec->name)) - 2;
        if (printed++)
            fputc('\n', to);
        print_section(to, sec, key_w, left_w);
    }
    doc_free(&doc);
    return CLI_EXIT_OK;
}
