/*
 * write_yaml.c — the canonical YAML writer (by hand, block style): the same
 * order as the JSON writer, scalar lists in flow style, and any string that a
 * YAML reader could re-type (yes, 123, null, 1.5, ...) or misparse (": ",
 * "#", leading indicators) written double-quoted with JSON-compatible escapes.
 * Reading the output back gives the same receipt, so YAML -> YAML is stable.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/error_internal.h"
#include "receipt/canonical_json.h"
#include "io/io_internal.h"
#include "receipt/schema.h"

static void indent(mcpp_strbuf *sb, int level)
{
    for (int i = 0; i < level; i++)
        mcpp_sb_puts(sb, "  ");
}

static int needs_quotes(const char *s)
{
    static const char *const reserved[] = {"null", "true", "false", "yes", "no", "on", "off",
                                           "y", "n", "~", NULL};
    size_t n = strlen(s);
    if (n == 0 || s[n - 1] == ' ')
        return 1;
    unsigned char c0 = (unsigned char)s[0];
    if (!((c0 >= 'A' && c0 <= 'Z') || (c0 >= 'a' && c0 <= 'z') || c0 == '_' || c0 == '/'))
        return 1; /* digits, signs, dots and indicators could re-type or misparse */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 strchr("_./+=()@-", c) || (c == ' ' && s[i + 1] != ' ');
        if (!ok || c == '\0')
            return 1;
    }
    for (int i = 0; reserved[i]; i++)
        if (strcasecmp(s, reserved[i]) == 0)
            return 1;
    return 0;
}

/* Double-quoted YAML is a superset of JSON strings; DEL and C1 controls are
 * not printable in YAML, so they are escaped too. */
static void yaml_string(mcpp_strbuf *sb, const char *s)
{
    if (!needs_quotes(s)) {
        mcpp_sb_puts(sb, s);
        return;
    }
    mcpp_sb_putc(sb, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        unsigned char c = *p;
        if (c == '"')
            mcpp_sb_puts(sb, "\\\"");
        else if (c == '\\')
            mcpp_sb_puts(sb, "\\\\");
        else if (c == '\n')
            mcpp_sb_puts(sb, "\\n");
        else if (c == '\t')
            mcpp_sb_puts(sb, "\\t");
        else if (c == '\r')
            mcpp_sb_puts(sb, "\\r");
        else if (c < 0x20 || c == 0x7F)
            mcpp_sb_printf(sb, "\\u%04x", c);
        else if (c == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) {
            mcpp_sb_printf(sb, "\\u%04x", p[1]);
            p++;
        } else
            mcpp_sb_putc(sb, (char)c);
    }
    mcpp_sb_putc(sb, '"');
}

static int inline_node(const mcpp_xnode *n)
{
    if (mcpp_xnode_is_scalar(n) || n->count == 0)
        return 1;
    return n->kind == MCPP_X_ARRAY && mcpp_xnode_children_scalar(n);
}

static void xnode_inline(mcpp_strbuf *sb, const mcpp_xnode *n)
{
    switch (n->kind) {
    case MCPP_X_NULL: mcpp_sb_puts(sb, "null"); break;
    case MCPP_X_TRUE: mcpp_sb_puts(sb, "true"); break;
    case MCPP_X_FALSE: mcpp_sb_puts(sb, "false"); break;
    case MCPP_X_NUMBER: mcpp_sb_double(sb, n->number); break;
    case MCPP_X_STRING: yaml_string(sb, n->str); break;
    case MCPP_X_OBJECT: mcpp_sb_puts(sb, "{}"); break;
    case MCPP_X_ARRAY:
        mcpp_sb_putc(sb, '[');
        for (uint32_t i = 0; i < n->count; i++) {
            if (i)
                mcpp_sb_puts(sb, ", ");
            xnode_inline(sb, &n->children[i]);
        }
        mcpp_sb_putc(sb, ']');
        break;
    default: break;
    }
}

static void xnode_block(mcpp_strbuf *sb, const mcpp_xnode *n, int level, int first_inline);

/* A YAML reader takes a plain "key:" only within 1024 characters of the key's
 * start (libyaml refuses the document past that), so a longer key is written
 * in the explicit form "? key\n: value". The cut is libyaml's own emitter's
 * 128 bytes: even fully escaped (6 bytes a byte) such a key stays under 1024. */
#define YAML_SIMPLE_KEY_MAX 128

/* "key: value" or "key:\n  block" at `level`; the key's indent is already written
 * when first_inline is set (the first member after "- "). */
static void member(mcpp_strbuf *sb, const mcpp_xnode *c, int level, int first_inline)
{
    if (!first_inline)
        indent(sb, level);
    if (strlen(c->key) > YAML_SIMPLE_KEY_MAX) {
        mcpp_sb_puts(sb, "? ");
        yaml_string(sb, c->key);
        mcpp_sb_putc(sb, '\n');
        indent(sb, level);
    } else
        yaml_string(sb, c->key);
    if (inline_node(c)) {
        mcpp_sb_puts(sb, ": ");
        xnode_inline(sb, c);
        mcpp_sb_putc(sb, '\n');
    } else {
        mcpp_sb_puts(sb, ":\n");
        xnode_block(sb, c, level + 1, 0);
    }
}

static void xnode_block(mcpp_strbuf *sb, const mcpp_xnode *n, int level, int first_inline)
{
    if (n->kind == MCPP_X_OBJECT) {
        for (uint32_t i = 0; i < n->count; i++)
            member(sb, &n->children[i], level, first_inline && i == 0);
        return;
    }
    for (uint32_t i = 0; i < n->count; i++) {
        const mcpp_xnode *c = &n->children[i];
        if (!(first_inline && i == 0))
            indent(sb, level);
        if (inline_node(c)) {
            mcpp_sb_puts(sb, "- ");
            xnode_inline(sb, c);
            mcpp_sb_putc(sb, '\n');
        } else if (c->kind == MCPP_X_OBJECT) {
            mcpp_sb_puts(sb, "- ");
            xnode_block(sb, c, level + 1, 1);
        } else {
            mcpp_sb_puts(sb, "-\n");
            xnode_block(sb, c, level + 1, 0);
        }
    }
}

static void field_yaml(mcpp_strbuf *sb, const mcpp_receipt *r, int id, int level, int v1)
{
    const void *slot = mcpp_field_slot(r, id);
    const mcpp_schema_entry *e = &mcpp_schema_entries[id];
    char num[40];
    indent(sb, level);
    mcpp_sb_puts(sb, mcpp_write_name(id, v1));
    mcpp_sb_putc(sb, ':');
    if (v1 && id == MCPP_F_schema) {
        mcpp_sb_puts(sb, " " MCPP_SCHEMA_ID_V1 "\n");
        return;
    }
    switch (e->storage) {
    case MCPP_ST_BOOL: mcpp_sb_puts(sb, *(const uint8_t *)slot ? " true\n" : " false\n"); break;
    case MCPP_ST_INT:
    case MCPP_ST_INT32: mcpp_sb_printf(sb, " %lld\n", (long long)mcpp_int_slot_read(slot, e->storage)); break;
    case MCPP_ST_DOUBLE:
        mcpp_format_double(num, sizeof num, *(const double *)slot, 1);
        mcpp_sb_printf(sb, " %s\n", num);
        break;
    case MCPP_ST_STRING:
        mcpp_sb_putc(sb, ' ');
        yaml_string(sb, *(const char *const *)slot);
        mcpp_sb_putc(sb, '\n');
        break;
    case MCPP_ST_ENUM:
        mcpp_sb_putc(sb, ' ');
        yaml_string(sb, e->info.enum_names[*(const int8_t *)slot]);
        mcpp_sb_putc(sb, '\n');
        break;
    case MCPP_ST_SLIST:
        mcpp_sb_putc(sb, ' ');
        mcpp_write_string_list(sb, slot, yaml_string);
        mcpp_sb_putc(sb, '\n');
        break;
    case MCPP_ST_DLIST:
        mcpp_sb_putc(sb, ' ');
        mcpp_write_number_list(sb, slot);
        mcpp_sb_putc(sb, '\n');
        break;
    case MCPP_ST_OBJECT:
    case MCPP_ST_METRICS: {
        const mcpp_xnode *n = ((const mcpp_object_slot *)slot)->node;
        if (!n || n->count == 0) {
            mcpp_sb_puts(sb, e->storage == MCPP_ST_METRICS ? " []\n" : " {}\n");
        } else {
            mcpp_sb_putc(sb, '\n');
            xnode_block(sb, n, level + 1, 0);
        }
        break;
    }
    case MCPP_ST_ARTIFACTS: {
        const mcpp_artifact_list *l = slot;
        if (l->count == 0) {
            mcpp_sb_puts(sb, " []\n");
            break;
        }
        mcpp_sb_putc(sb, '\n');
        for (size_t i = 0; i < l->count; i++) {
            indent(sb, level + 1);
            mcpp_sb_puts(sb, "- kind: ");
            yaml_string(sb, l->items[i].kind);
            mcpp_sb_putc(sb, '\n');
            indent(sb, level + 2);
            mcpp_sb_puts(sb, "uri: ");
            yaml_string(sb, l->items[i].uri);
            mcpp_sb_putc(sb, '\n');
        }
        break;
    }
    default: mcpp_sb_putc(sb, '\n'); break;
    }
}

int mcpp_write_yaml(mcpp_strbuf *sb, const mcpp_receipt *r, int v1)
{
    int open[8], depth = 0, any = 0;
    for (int id = 0; id < MCPP_FIELD_COUNT; id++) {
        if (mcpp_write_skips(r, id, v1))
            continue;
        any = 1;
        int chain[8], n = 0, tmp[8];
        for (int s = mcpp_write_section(id, v1); s != MCPP_S_ROOT && n < 8;
             s = mcpp_schema_sections[s].parent)
            tmp[n++] = s;
        for (int i = 0; i < n; i++)
            chain[i] = tmp[n - 1 - i];
        int common = 0;
        while (common < depth && common < n && open[common] == chain[common])
            common++;
        depth = common;
        while (depth < n) {
            indent(sb, depth);
            mcpp_sb_puts(sb, mcpp_schema_sections[chain[depth]].name);
            mcpp_sb_puts(sb, ":\n");
            open[depth] = chain[depth];
            depth++;
        }
        field_yaml(sb, r, id, depth, v1);
    }
    if (!any)
        mcpp_sb_puts(sb, "{}\n");
    return sb->failed ? mcpp_error_nomem() : 0;
}
