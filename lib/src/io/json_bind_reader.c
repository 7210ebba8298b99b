/*
 * json_bind_reader.c — reads a JSON receipt straight into the staging struct,
 * without building a cJSON tree first: the sections and fields of the schema
 * are walked as the text is read, scalars and lists are bound as they are met,
 * and free-form values (extra, features, benchmark.params, ..., metrics.named,
 * artifacts) become cJSON trees for the binder: small ones read here into a
 * pool of nodes, larger ones parsed by cJSON from just their bytes.
 *
 * The reader is a fast path, not a second parser with its own diagnostics. It
 * either binds the receipt exactly as the tree path (cJSON + bind.c) would,
 * with nothing reported, or gives up (MCPP_JSON_READ_FALLBACK) on anything it
 * does not take on: a syntax error, a value the binder would refuse, an
 * unknown or duplicate key, an escaped key, a BOM, cJSON's lenient corners
 * (leading zeros, control bytes as blanks). The loader then loads the file
 * through the tree path, which reports every problem as before, so messages
 * and their FILE:LINE:COL never depend on this file. tests/fuzz/fuzz_json_diff.c
 * checks that both paths agree on any input.
 *
 * It checks the pre-scan's rules (json_scan.c) as it reads, so that a text it
 * binds would have passed the pre-scan and the loader runs that separate pass
 * only when the reader gives up (it was a fifth of a load): every string
 * valid UTF-8 and within the length limit, no "\u0000", nesting within the
 * depth limit. Keys are ASCII schema names (anything else gives up), and the
 * free-form values handed to cJSON are pre-scanned over their own bytes.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/cjson_inline.h"
#include "receipt/load_ctx.h"
#include "util/c_locale.h"
#include "util/double_text.h"
#include "io/json_bind_reader.h"
#include "receipt/schema.h"

typedef struct jreader {
    const char *p, *end;
    mcpp_load_ctx *ctx;
    mcpp_receipt *out;
    char *strings; /* decoded strings: never more bytes than the text they come from */
    size_t strings_used;
    mcpp_json_subtrees *subtrees;
    uint64_t seen; /* sections met (a second one is a duplicate) */
    size_t depth;  /* containers open around r->p, as the pre-scan counts them */
    int schema_seen, v1;
} jreader;

#define GIVE_UP (-1)

static inline void skip_blanks(jreader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
        r->p++;
}

static inline int peek(const jreader *r) { return r->p < r->end ? (unsigned char)*r->p : -1; }

static inline uint64_t load_word(const char *p)
{
    uint64_t w;
    memcpy(&w, p, sizeof w);
    return w;
}

static int hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (unsigned)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* A \uXXXX escape (and its low surrogate) at r->p (just past the 'u') into dst,
 * as cJSON decodes it; returns the bytes written or GIVE_UP. */
static int read_unicode_escape(jreader *r, char *dst)
{
    unsigned code, low;
    if (r->end - r->p < 4 || hex4(r->p, &code) != 0)
        return GIVE_UP;
    r->p += 4;
    if (code == 0 || (code >= 0xDC00 && code <= 0xDFFF))
        return GIVE_UP;
    if (code >= 0xD800 && code <= 0xDBFF) {
        if (r->end - r->p < 6 || r->p[0] != '\\' || r->p[1] != 'u' || hex4(r->p + 2, &low) != 0 ||
            low < 0xDC00 || low > 0xDFFF)
            return GIVE_UP;
        r->p += 6;
        code = 0x10000 + (((code & 0x3FF) << 10) | (low & 0x3FF));
    }
    unsigned char *u = (unsigned char *)dst;
    if (code < 0x80) {
        u[0] = (unsigned char)code;
        return 1;
    }
    if (code < 0x800) {
        u[0] = (unsigned char)(0xC0 | (code >> 6));
        u[1] = (unsigned char)(0x80 | (code & 0x3F));
        return 2;
    }
    if (code < 0x10000) {
        u[0] = (unsigned char)(0xE0 | (code >> 12));
        u[1] = (unsigned char)(0x80 | ((code >> 6) & 0x3F));
        u[2] = (unsigned char)(0x80 | (code & 0x3F));
        return 3;
    }
    u[0] = (unsigned char)(0xF0 | (code >> 18));
    u[1] = (unsigned char)(0x80 | ((code >> 12) & 0x3F));
    u[2] = (unsigned char)(0x80 | ((code >> 6) & 0x3F));
    u[3] = (unsigned char)(0x80 | (code & 0x3F));
    return 4;
}

/* The string at r->p (its opening quote) decoded into the string area. */
static int read_string(jreader *r, const char **out)
{
    char *dst = r->strings + r->strings_used, *start = dst;
    const char *open = r->p, *p = r->p + 1, *end = r->end;
    for (;;) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* printable ASCII but quote and backslash, eight bytes at a time (a
         * scan, then a memcpy call, per run was ~4% of a load). Storing all
         * eight is safe: a decoded string is never longer than its text, so
         * dst stays behind p's offset in a buffer as long as the text. */
        while (end - p >= 8) {
            const uint64_t ones = 0x0101010101010101u, high = 0x80 * ones;
            uint64_t w = load_word(p), quote = w ^ ('"' * ones), backslash = w ^ ('\\' * ones);
            /* the lowest flagged byte is the first that is no plain one (a
             * borrow starts only at a byte flagged itself) */
            uint64_t special =
                (w | ((w - 0x20 * ones) & ~w) | ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash)) & high;
            memcpy(dst, &w, sizeof w);
            size_t n = special ? (size_t)__builtin_ctzll(special) / 8 : 8;
            p += n;
            dst += n;
            if (n < 8)
                break;
        }
#endif
        while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p - 0x20u < 0x60u)
            *dst++ = *p++; /* printable ASCII */
        if (p >= end || (unsigned char)*p < 0x20)
            return GIVE_UP; /* unterminated, or a raw control byte (cJSON keeps it; rare) */
        if ((unsigned char)*p >= 0x80) { /* the pre-scan's rule: valid UTF-8 */
            size_t n = mcpp_utf8_sequence((const unsigned char *)p, (size_t)(end - p));
            if (!n)
                return GIVE_UP;
            memcpy(dst, p, n);
            dst += n;
            p += n;
            continue;
        }
        if (*p == '"')
            break;
        if (end - p < 2)
            return GIVE_UP;
        char e = p[1];
        p += 2;
        switch (e) {
        case '"': *dst++ = '"'; break;
        case '\\': *dst++ = '\\'; break;
        case '/': *dst++ = '/'; break;
        case 'b': *dst++ = '\b'; break;
        case 'f': *dst++ = '\f'; break;
        case 'n': *dst++ = '\n'; break;
        case 'r': *dst++ = '\r'; break;
        case 't': *dst++ = '\t'; break;
        case 'u': {
            r->p = p;
            int n = read_unicode_escape(r, dst);
            if (n < 0)
                return GIVE_UP;
            p = r->p;
            dst += n;
            break;
        }
        default: return GIVE_UP;
        }
    }
    if ((size_t)(p - open - 1) > r->ctx->limits->max_string_bytes)
        return GIVE_UP; /* the pre-scan's limit, on the bytes as written */
    *dst++ = '\0';
    r->strings_used += (size_t)(dst - start);
    r->p = p + 1;
    *out = start;
    return 0;
}

/* Moves past a key's closing quote (at `quote`) and the ':' after it: 0, or
 * GIVE_UP when no ':' follows. */
static int after_key(jreader *r, const char *quote)
{
    r->p = quote + 1;
    skip_blanks(r);
    if (peek(r) != ':')
        return GIVE_UP;
    r->p++;
    skip_blanks(r);
    return 0;
}

/* An object key: plain (no escapes) and short, copied with its NUL into key. */
static int read_key(jreader *r, char *key, size_t cap)
{
    const char *p = r->p + 1, *end = r->end;
    size_t n = 0;
    while (p < end && *p != '"') {
        if (*p == '\\' || (unsigned char)*p < 0x20 || n + 1 >= cap)
            return GIVE_UP; /* an escaped or long key: the tree path decides */
        key[n++] = *p++;
    }
    if (p >= end)
        return GIVE_UP;
    key[n] = '\0';
    return after_key(r, p);
}

static const double exact_powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static inline int is_digit(char c) { return (unsigned char)(c - '0') < 10; }
/* The bytes cJSON's number reader takes before it calls strtod. */
static inline int cjson_number_byte(char c)
{
    return is_digit(c) || c == '+' || c == '-' || c == 'e' || c == 'E' || c == '.';
}

/* A number in strict JSON grammar, whose bytes cJSON reads whole (at most 63,
 * followed by none it would take too): then strtod's correctly rounded value
 * is what cJSON stores. Small mantissas and exponents are exact in doubles
 * (m * 10^e or m / 10^e rounds once, like strtod); up to 19 digits (a
 * writer's %.17g) util/double_text.c rounds m * 10^e once with 128-bit
 * integers; the rest goes to strtod. */
static int read_number(jreader *r, double *out)
{
    const char *s = r->p, *p = s, *end = r->end;
    uint64_t mantissa = 0;
    int digits = 0, frac_digits = 0, exp = 0, neg = 0;
    if (p < end && *p == '-') {
        neg = 1;
        p++;
    }
    if (p >= end || !is_digit(*p) || (*p == '0' && p + 1 < end && is_digit(p[1])))
        return GIVE_UP; /* no digit, or a leading zero (cJSON reads "01"; the tree path does) */
    for (; p < end && is_digit(*p); p++, digits++)
        mantissa = mantissa * 10 + (uint64_t)(*p - '0');
    if (p < end && *p == '.') {
        p++;
        if (p >= end || !is_digit(*p))
            return GIVE_UP;
        for (; p < end && is_digit(*p); p++, digits++, frac_digits++)
            mantissa = mantissa * 10 + (uint64_t)(*p - '0');
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        int eneg = 0, edigits = 0;
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            eneg = *p++ == '-';
        for (; p < end && is_digit(*p); p++, edigits++)
            if (exp < 100000)
                exp = exp * 10 + (*p - '0');
        if (!edigits)
            return GIVE_UP;
        if (eneg)
            exp = -exp;
    }
    if (p - s > 63 || (p < end && cjson_number_byte(*p)))
        return GIVE_UP;
    int e10 = exp - frac_digits;
    if (digits <= 15 && e10 >= -22 && e10 <= 22) { /* mantissa < 10^15 < 2^53: exact */
        double d = (double)mantissa;
        d = e10 < 0 ? d / exact_powers[-e10] : d * exact_powers[e10];
        *out = neg ? -d : d;
    } else if (digits <= 19 && mcpp_decimal_to_double_exact(out, mantissa, e10)) { /* mantissa < 10^19 < 2^64 */
        if (neg)
            *out = -*out;
    } else {
        char text[64];
        memcpy(text, s, (size_t)(p - s));
        text[p - s] = '\0';
        *out = mcpp_strtod_c(text, NULL);
    }
    r->p = p;
    return 0;
}

/* One scalar (string, number, true, false, null) as a stack cJSON value. */
static int read_scalar(jreader *r, cJSON *v)
{
    memset(v, 0, sizeof *v);
    int c = peek(r);
    size_t left = (size_t)(r->end - r->p);
    if (c == '"') {
        v->type = cJSON_String;
        return read_string(r, (const char **)&v->valuestring);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        v->type = cJSON_Number;
        return read_number(r, &v->valuedouble);
    }
    if (left >= 4 && memcmp(r->p, "true", 4) == 0) {
        v->type = cJSON_True;
        r->p += 4;
    } else if (left >= 5 && memcmp(r->p, "false", 5) == 0) {
        v->type = cJSON_False;
        r->p += 5;
    } else if (left >= 4 && memcmp(r->p, "null", 4) == 0) {
        v->type = cJSON_NULL;
        r->p += 4;
    } else {
        return GIVE_UP;
    }
    return 0;
}

/* The items of a list, read by read_item into a growing buffer, then copied
 * into staging memory: what bind_string_list / bind_double_list would bind. */
typedef int (*item_reader)(jreader *r, void *item, int range);

static int read_string_item(jreader *r, void *item, int range)
{
    (void)range;
    return peek(r) == '"' ? read_string(r, (const char **)item) : GIVE_UP;
}

static int read_double_item(jreader *r, void *item, int range)
{
    int c = peek(r);
    double *d = item;
    if (c != '-' && !(c >= '0' && c <= '9'))
        return GIVE_UP;
    if (read_number(r, d) != 0 || !isfinite(*d) || mcpp_range_problem(range, *d))
        return GIVE_UP;
    return 0;
}

static int read_list(jreader *r, void *slot, size_t item_size, item_reader read_item, int range)
{
    _Alignas(16) char stack[64 * sizeof(double)];
    char *items = stack, *heap = NULL;
    size_t n = 0, cap = sizeof stack / item_size;
    int rc = GIVE_UP;
    if (r->depth >= r->ctx->limits->max_depth)
        return GIVE_UP; /* the list would nest beyond the limit */
    r->p++; /* '[' */
    skip_blanks(r);
    if (peek(r) == ']') {
        r->p++;
    } else {
        for (;;) {
            if (n == cap) {
                char *grown = realloc(heap, 2 * cap * item_size);
                if (!grown)
                    goto done;
                if (!heap)
                    memcpy(grown, stack, n * item_size);
                items = heap = grown;
                cap *= 2;
            }
            if (read_item(r, items + n * item_size, range) != 0)
                goto done;
            n++;
            skip_blanks(r);
            int c = peek(r);
            r->p++;
            if (c == ']')
                break;
            if (c != ',')
                goto done;
            skip_blanks(r);
        }
    }
    if (n > r->ctx->limits->max_array_items)
        goto done;
    void *copy = n ? mcpp_ctx_alloc(r->ctx, n * item_size) : NULL;
    if (n && !copy)
        goto done;
    if (n)
        memcpy(copy, items, n * item_size);
    /* mcpp_string_list and mcpp_double_list are {items, count} */
    mcpp_string_list *list = slot;
    list->items = copy;
    list->count = n;
    rc = 0;
done:
    free(heap);
    return rc;
}

size_t mcpp_json_raw_control(const char *s, size_t len)
{
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!in_string)
            in_string = c == '"';
        else if (c == '\\')
            i++; /* the escaped byte is no delimiter */
        else if (c == '"')
            in_string = 0;
        else if (c < 0x20)
            return i;
    }
    return SIZE_MAX;
}

static int read_free_value(jreader *r, cJSON **out);

/* The members or items of the object or array at r->p into node `v`. */
static int read_free_container(jreader *r, cJSON *v, int object)
{
    if (++r->depth > r->ctx->limits->max_depth)
        return GIVE_UP;
    v->type = object ? cJSON_Object : cJSON_Array;
    r->p++; /* '{' or '[' */
    skip_blanks(r);
    if (peek(r) == (object ? '}' : ']')) {
        r->p++;
        r->depth--;
        return 0;
    }
    cJSON *last = NULL;
    for (;;) {
        const char *key = NULL;
        cJSON *item;
        if (object && (peek(r) != '"' || read_string(r, &key) != 0 || after_key(r, r->p - 1) != 0))
            return GIVE_UP;
        if (read_free_value(r, &item) != 0)
            return GIVE_UP;
        item->string = (char *)key;
        if (last) { /* linked as cJSON links them: the first item's prev is the last */
            last->next = item;
            item->prev = last;
        } else {
            v->child = item;
        }
        v->child->prev = last = item;
        skip_blanks(r);
        int c = peek(r);
        r->p++;
        if (c == (object ? '}' : ']'))
            break;
        if (c != ',')
            return GIVE_UP;
        skip_blanks(r);
    }
    r->depth--;
    return 0;
}

/* One value of a free-form tree into a node of the pool: the tree cJSON
 * would parse from the same bytes (strict JSON only; the strings decoded
 * and checked by read_string, so the text passes the pre-scan's rules);
 * GIVE_UP on anything else, or when the pool runs out. */
static int read_free_value(jreader *r, cJSON **out)
{
    mcpp_json_subtrees *t = r->subtrees;
    if (t->pool_used == MCPP_JSON_POOL_NODES)
        return GIVE_UP;
    cJSON *v = &t->pool[t->pool_used++];
    memset(v, 0, sizeof *v);
    *out = v;
    int c = peek(r);
    if (c == '{' || c == '[')
        return read_free_container(r, v, c == '{');
    if (read_scalar(r, v) != 0)
        return GIVE_UP;
    if (!mcpp_cj_is_number(v))
        return 0;
    if (v->valuedouble >= INT_MAX) /* cJSON's saturated copy */
        v->valueint = INT_MAX;
    else if (v->valuedouble <= (double)INT_MIN)
        v->valueint = INT_MIN;
    else
        v->valueint = (int)v->valuedouble;
    return 0;
}

/* A free-form value (or metrics.named, artifacts). A small one is read
 * straight into the pool (parsing it with cJSON, pre-scanning its bytes and
 * freeing the tree was ~8% of a load); on anything that read does not take
 * on, cJSON parses just its bytes, which must pass the pre-scan as the rest
 * of the text would (nested within what the limit leaves below r->depth),
 * and one with a raw control character goes to the tree path, which refuses
 * it. */
static int read_subtree(jreader *r, int id, int opening)
{
    if (peek(r) != opening || r->subtrees->count == MCPP_JSON_MAX_SUBTREES || r->depth >= r->ctx->limits->max_depth)
        return GIVE_UP;
    const char *start = r->p;
    size_t depth = r->depth, pool_used = r->subtrees->pool_used, strings_used = r->strings_used;
    cJSON *small = NULL;
    if (read_free_value(r, &small) == 0)
        return mcpp_bind_value_quiet(r->ctx, r->out, id, small) == 0 ? 0 : GIVE_UP;
    r->p = start; /* as it was: cJSON reads it */
    r->depth = depth;
    r->subtrees->pool_used = pool_used;
    r->strings_used = strings_used;
    const char *after = NULL;
    cJSON *tree = cJSON_ParseWithLengthOpts(r->p, (size_t)(r->end - r->p), &after, 0);
    if (!tree)
        return GIVE_UP;
    mcpp_limits below = *r->ctx->limits;
    below.max_depth -= r->depth;
    if (mcpp_json_prescan(r->p, (size_t)(after - r->p), &below, NULL, NULL) != 0 ||
        mcpp_json_raw_control(r->p, (size_t)(after - r->p)) != SIZE_MAX) {
        cJSON_Delete(tree);
        return GIVE_UP;
    }
    r->subtrees->trees[r->subtrees->count++] = tree;
    r->p = after;
    return mcpp_bind_value_quiet(r->ctx, r->out, id, tree) == 0 ? 0 : GIVE_UP;
}

/* An enum field's value when it is one of the names as written (no escapes):
 * matched in the text, with no copy of the string and no strcmp call (~5% of
 * a load); 0 when bound, else 1 with r->p unmoved (the general path decides). */
static int read_enum_in_place(jreader *r, int id, const mcpp_schema_entry *e)
{
    const char *text = r->p + 1, *end = r->end;
    for (int i = 0; e->info.enum_names[i]; i++) {
        const char *name = e->info.enum_names[i], *p = text;
        while (*name && p < end && *p == *name) {
            p++;
            name++;
        }
        if (!*name && p < end && *p == '"') {
            *(int8_t *)mcpp_field_ptr(&r->out->f, id) = (int8_t)i;
            mcpp_set_present(r->out, id);
            r->p = p + 1;
            return 0;
        }
    }
    return 1;
}

static int read_field_value(jreader *r, int id)
{
    const mcpp_schema_entry *e = &mcpp_schema_entries[id];
    void *slot = mcpp_field_ptr(&r->out->f, id);
    switch (e->storage) {
    case MCPP_ST_SLIST:
    case MCPP_ST_DLIST: {
        int strings = e->storage == MCPP_ST_SLIST;
        if (peek(r) != '[' ||
            read_list(r, slot, strings ? sizeof(const char *) : sizeof(double),
                      strings ? read_string_item : read_double_item, e->range) != 0)
            return GIVE_UP;
        mcpp_set_present(r->out, id);
        return 0;
    }
    case MCPP_ST_OBJECT: return read_subtree(r, id, '{');
    case MCPP_ST_METRICS:
    case MCPP_ST_ARTIFACTS: return read_subtree(r, id, '[');
    default: {
        int c = peek(r);
        double d;
        if (e->storage == MCPP_ST_ENUM && c == '"' && read_enum_in_place(r, id, e) == 0)
            return 0;
        if ((mcpp_storage_is_int(e->storage) || e->storage == MCPP_ST_DOUBLE) && (c == '-' || (c >= '0' && c <= '9')))
            return read_number(r, &d) == 0 && mcpp_bind_number_quiet(r->ctx, r->out, id, d) == 0 ? 0 : GIVE_UP;
        cJSON v;
        if (read_scalar(r, &v) != 0 || mcpp_bind_value_quiet(r->ctx, r->out, id, &v) != 0)
            return GIVE_UP;
        if (id == MCPP_F_schema) {
            r->schema_seen = 1;
            if (strcmp(v.valuestring, MCPP_SCHEMA_ID_V1) == 0) {
                r->v1 = 1; /* upgraded like mcpp_schema1_upgrade does the tree */
                r->out->f.schema = MCPP_SCHEMA_ID;
            }
        }
        return 0;
    }
    }
}

/* Schema 1's backend.precision string: the upgrade makes it
 * backend.precision.observed before the tree is bound. */
static int read_v1_precision(jreader *r)
{
    const int id = MCPP_F_backend_precision_observed;
    if (!r->schema_seen || !r->v1)
        return GIVE_UP; /* the schema comes later (or is not 1): the tree path decides */
    r->seen |= (uint64_t)1 << MCPP_S_BACKEND_PRECISION;
    r->ctx->tried[id >> 6] |= (uint64_t)1 << (id & 63);
    return read_field_value(r, id);
}

static int read_section(jreader *r, int section);

/* Every schema name followed by its closing quote, zero-padded to 32 bytes,
 * so that a key is compared with it a word at a time: the key's bytes then
 * the quote, no loop over bytes and no call (a byte loop was ~5% of a load). */
typedef struct key_pattern {
    char text[32];
    unsigned char len; /* of the name and its quote */
} key_pattern;

#define X_FIELD_KEY(id, sec, name_, ...) {name_ "\"", sizeof(name_)},
#define X_SECTION_KEY(id, parent, name_, ...) {name_ "\"", sizeof(name_)},
static const key_pattern field_keys[MCPP_FIELD_COUNT] = {MCPP_SCHEMA_FIELDS(X_FIELD_KEY)};
static const key_pattern section_keys[MCPP_SECTION_COUNT] = {MCPP_SCHEMA_SECTIONS(X_SECTION_KEY)};
#undef X_FIELD_KEY
#undef X_SECTION_KEY
/* a longer name would not fit its pattern (with room for its quote) */
#define X_FIELD_FITS(id, sec, name_, ...) _Static_assert(sizeof(name_) < 32, "schema name too long: " name_);
#define X_SECTION_FITS(id, parent, name_, ...) _Static_assert(sizeof(name_) < 32, "section name too long: " name_);
MCPP_SCHEMA_FIELDS(X_FIELD_FITS)
MCPP_SCHEMA_SECTIONS(X_SECTION_FITS)
#undef X_FIELD_FITS
#undef X_SECTION_FITS

/* The bits of a loaded word that hold its first `count` (1..7) bytes. */
static inline uint64_t first_bytes(size_t count)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return ~(uint64_t)0 << (8 * (8 - count));
#else
    return ((uint64_t)1 << (8 * count)) - 1;
#endif
}

/* Whether the bytes at p (past a key's opening quote) are the pattern's name
 * and closing quote. Schema names hold no quote or backslash, so an escaped
 * key never matches. Needs 32 readable bytes at p. */
static inline int key_is(const char *p, const key_pattern *k)
{
    size_t n = k->len, i = 0;
    for (; i + 8 <= n; i += 8)
        if (load_word(p + i) != load_word(k->text + i))
            return 0;
    return i == n || ((load_word(p + i) ^ load_word(k->text + i)) & first_bytes(n - i)) == 0;
}

/* The key at r->p (its opening quote) when it is exactly the pattern's name:
 * skips it and its ':' and returns 1; returns 0 with r->p unmoved when the key
 * is another, GIVE_UP when no ':' follows (read_key gives up there too). This
 * is the common case (keys in schema order, see mcpp_schema_predict_name). */
static inline int match_key(jreader *r, const key_pattern *k)
{
    const char *p = r->p + 1;
    if (r->end - p >= (ptrdiff_t)sizeof k->text) {
        if (!key_is(p, k))
            return 0;
        return after_key(r, p + k->len - 1) == GIVE_UP ? GIVE_UP : 1;
    }
    /* near the end of the text: byte by byte */
    const char *name = k->text, *stop = k->text + k->len - 1, *end = r->end;
    while (name < stop && p < end && *p == *name) {
        p++;
        name++;
    }
    if (name < stop || p >= end || *p != '"')
        return 0;
    return after_key(r, p) == GIVE_UP ? GIVE_UP : 1;
}

/* Members tried in schema order after the previous one before the hash lookup. */
enum { PREDICT_AHEAD = 4 };

static int read_member(jreader *r, int field, int sub, int *guess)
{
    if (sub >= 0) {
        uint64_t bit = (uint64_t)1 << sub;
        if (r->seen & bit)
            return GIVE_UP;
        if (sub == MCPP_S_BACKEND_PRECISION && peek(r) == '"')
            return read_v1_precision(r);
        r->seen |= bit;
        *guess = mcpp_schema_sections[sub].last_field + 1;
        return peek(r) == '{' ? read_section(r, sub) : GIVE_UP;
    }
    uint64_t bit = (uint64_t)1 << (field & 63), *tried = &r->ctx->tried[field >> 6];
    if (*tried & bit)
        return GIVE_UP;
    *tried |= bit;
    *guess = field + 1;
    return read_field_value(r, field);
}

/* The object at r->p ('{') as section `section`. */
static int read_section(jreader *r, int section)
{
    char key[64];
    int guess = mcpp_schema_sections[section].first_field;
    if (++r->depth > r->ctx->limits->max_depth)
        return GIVE_UP;
    r->p++;
    skip_blanks(r);
    if (peek(r) == '}') {
        r->p++;
        r->depth--;
        return 0;
    }
    for (;;) {
        int field = -1, sub = -1;
        if (peek(r) != '"')
            return GIVE_UP;
        /* the predicted key, or one of the next few (optional fields a
         * writer left out); a mismatch fails on its first bytes */
        int matched = 0;
        for (int ahead = 0, next = guess; ahead < PREDICT_AHEAD; ahead++) {
            if (!mcpp_schema_predict_name(section, next, &field, &sub))
                break;
            if ((matched = match_key(r, field >= 0 ? &field_keys[field] : &section_keys[sub])) != 0)
                break;
            /* the member after this one: past a subsection's fields, each tried once */
            next = field >= 0 ? field + 1 : mcpp_schema_sections[sub].last_field + 1;
        }
        if (matched < 0)
            return GIVE_UP;
        if (!matched) {
            /* not the predicted key: read it and look it up (unknown: give up) */
            if (read_key(r, key, sizeof key) != 0 ||
                mcpp_schema_lookup(section, key, &field, &sub) != 0)
                return GIVE_UP;
        }
        if (read_member(r, field, sub, &guess) != 0)
            return GIVE_UP;
        skip_blanks(r);
        int c = peek(r);
        r->p++;
        if (c == '}') {
            r->depth--;
            return 0;
        }
        if (c != ',')
            return GIVE_UP;
        skip_blanks(r);
    }
}

int mcpp_json_bind_read(mcpp_load_ctx *ctx, mcpp_receipt *out, mcpp_json_subtrees *subtrees,
                        char *strings)
{
    jreader r;
    memset(&r, 0, sizeof r);
    r.p = ctx->buf;
    r.end = ctx->buf + ctx->len;
    r.ctx = ctx;
    r.out = out;
    r.strings = strings;
    r.subtrees = subtrees;
    subtrees->pool_used = 0;
    /* cJSON refuses nesting beyond 1000 counted from the document, the
     * subtree parses from their own start: only equal below that */
    if (ctx->limits->max_depth >= 990)
        return MCPP_JSON_READ_FALLBACK;
    /* keys are checked against the string limit only through this: the
     * reader's keys are shorter than 64 bytes (read_key, the schema names) */
    if (ctx->limits->max_string_bytes < 64)
        return MCPP_JSON_READ_FALLBACK;
    skip_blanks(&r);
    if (peek(&r) != '{' || read_section(&r, MCPP_S_ROOT) != 0)
        return MCPP_JSON_READ_FALLBACK;
    skip_blanks(&r);
    if (r.p != r.end || ctx->nomem)
        return MCPP_JSON_READ_FALLBACK;
    if (r.v1) {
        ctx->schema_version = 1;
        mcpp_schema1_upgrade_warning(ctx);
    }
    return MCPP_JSON_READ_BOUND;
}
