/*
 * write_json.c — the canonical JSON writer: 2-space indent, sections and
 * fields in schema order, absent fields omitted, integers as integers, doubles
 * in the shortest round-trip form (always with '.' or an exponent so the type
 * survives), scalar lists inline, free-form keys sorted bytewise, trailing
 * newline. Reading this output and writing again gives the same bytes.
 *
 * The compact form (the store's body) is the same text with every line
 * break and the indentation after it left out, written directly: no raw
 * line break can occur inside a JSON string, so it is exactly the indented
 * text folded, and hashes the same wherever it is compared.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/error_internal.h"
#include "receipt/canonical_json.h"
#include "receipt/packed_text.h"
#include "receipt/schema.h"

static void indent(mcpp_strbuf *sb, int level)
{
    static const char spaces[] = "                                                                ";
    size_t n = (size_t)level * 2;
    while (n > 0) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        mcpp_sb_put(sb, spaces, k);
        n -= k;
    }
}

/* A line break and the indentation of `level`; nothing in the compact form. */
static void line(mcpp_strbuf *sb, int pretty, int level)
{
    if (!pretty)
        return;
    mcpp_sb_putc(sb, '\n');
    indent(sb, level);
}

/* Before an item of a list or object written one item a line: the comma
 * after the item before (when it is not the first), then the item's line at
 * `level`. */
static void next_item(mcpp_strbuf *sb, int not_first, int pretty, int level)
{
    if (not_first)
        mcpp_sb_putc(sb, ',');
    line(sb, pretty, level);
}

void mcpp_write_string_list(mcpp_strbuf *sb, const mcpp_string_list *l, void (*put)(mcpp_strbuf *sb, const char *s))
{
    mcpp_sb_putc(sb, '[');
    for (size_t i = 0; i < l->count; i++) {
        if (i)
            mcpp_sb_puts(sb, ", ");
        put(sb, l->items[i]);
    }
    mcpp_sb_putc(sb, ']');
}

void mcpp_write_number_list(mcpp_strbuf *sb, const mcpp_double_list *l)
{
    char num[40];
    mcpp_sb_putc(sb, '[');
    for (size_t i = 0; i < l->count; i++) {
        if (i)
            mcpp_sb_puts(sb, ", ");
        mcpp_sb_put(sb, num, mcpp_format_double(num, sizeof num, l->items[i], 1));
    }
    mcpp_sb_putc(sb, ']');
}

static void xnode_json(mcpp_strbuf *sb, const mcpp_xnode *n, int level, int pretty)
{
    switch (n->kind) {
    case MCPP_X_ARRAY: {
        if (n->count == 0) {
            mcpp_sb_puts(sb, "[]");
        } else if (mcpp_xnode_children_scalar(n)) {
            mcpp_sb_putc(sb, '[');
            for (uint32_t i = 0; i < n->count; i++) {
                if (i)
                    mcpp_sb_puts(sb, ", ");
                xnode_json(sb, &n->children[i], level, pretty);
            }
            mcpp_sb_putc(sb, ']');
        } else {
            mcpp_sb_putc(sb, '[');
            for (uint32_t i = 0; i < n->count; i++) {
                next_item(sb, i > 0, pretty, level + 1);
                xnode_json(sb, &n->children[i], level + 1, pretty);
            }
            line(sb, pretty, level);
            mcpp_sb_putc(sb, ']');
        }
        break;
    }
    case MCPP_X_OBJECT:
        if (n->count == 0) {
            mcpp_sb_puts(sb, "{}");
            break;
        }
        mcpp_sb_putc(sb, '{');
        for (uint32_t i = 0; i < n->count; i++) {
            next_item(sb, i > 0, pretty, level + 1);
            mcpp_sb_json_string(sb, n->children[i].key);
            mcpp_sb_puts(sb, ": ");
            xnode_json(sb, &n->children[i], level + 1, pretty);
        }
        line(sb, pretty, level);
        mcpp_sb_putc(sb, '}');
        break;
    default: mcpp_xnode_compact(sb, n); break; /* a scalar reads the same in both */
    }
}

static void field_json(mcpp_strbuf *sb, const mcpp_receipt *r, int id, int level, int pretty)
{
    const void *slot = mcpp_field_slot(r, id);
    const mcpp_schema_entry *e = &mcpp_schema_entries[id];
    char num[40];
    switch (e->storage) {
    case MCPP_ST_BOOL: mcpp_sb_puts(sb, *(const uint8_t *)slot ? "true" : "false"); break;
    case MCPP_ST_INT:
    case MCPP_ST_INT32: mcpp_sb_int(sb, (int64_t)mcpp_int_slot_read(slot, e->storage)); break;
    case MCPP_ST_DOUBLE:
        mcpp_sb_put(sb, num, mcpp_format_double(num, sizeof num, *(const double *)slot, 1));
        break;
    case MCPP_ST_STRING: mcpp_sb_json_string(sb, *(const char *const *)slot); break;
    case MCPP_ST_ENUM: mcpp_sb_json_string(sb, e->info.enum_names[*(const int8_t *)slot]); break;
    case MCPP_ST_SLIST: mcpp_write_string_list(sb, slot, mcpp_sb_json_string); break;
    case MCPP_ST_DLIST: mcpp_write_number_list(sb, slot); break;
    case MCPP_ST_OBJECT:
    case MCPP_ST_METRICS: {
        const mcpp_object_slot *o = slot;
        if (o->node)
            xnode_json(sb, o->node, level, pretty);
        else
            mcpp_sb_puts(sb, "{}");
        break;
    }
    case MCPP_ST_ARTIFACTS: {
        const mcpp_artifact_list *l = slot;
        if (l->count == 0) {
            mcpp_sb_puts(sb, "[]");
            break;
        }
        mcpp_sb_putc(sb, '[');
        for (size_t i = 0; i < l->count; i++) {
            next_item(sb, i > 0, pretty, level + 1);
            mcpp_sb_putc(sb, '{');
            next_item(sb, 0, pretty, level + 2);
            mcpp_sb_puts(sb, "\"kind\": ");
            mcpp_sb_json_string(sb, l->items[i].kind);
            next_item(sb, 1, pretty, level + 2);
            mcpp_sb_puts(sb, "\"uri\": ");
            mcpp_sb_json_string(sb, l->items[i].uri);
            line(sb, pretty, level + 1);
            mcpp_sb_putc(sb, '}');
        }
        line(sb, pretty, level);
        mcpp_sb_putc(sb, ']');
        break;
    }
    default: break;
    }
}

/* Section chain of `section` from the top (ROOT excluded); returns its length. */
static int section_chain(int section, int chain[8])
{
    int tmp[8], n = 0;
    while (section != MCPP_S_ROOT && n < 8) {
        tmp[n++] = section;
        section = mcpp_schema_sections[section].parent;
    }
    for (int i = 0; i < n; i++)
        chain[i] = tmp[n - 1 - i];
    return n;
}

static int write_json(mcpp_strbuf *sb, const mcpp_receipt *r, int with_id, int v1, int pretty)
{
    int open[8], depth = 0, first[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, any = 0;
    mcpp_sb_putc(sb, '{');
    for (int id = 0; id < MCPP_FIELD_COUNT; id++) {
        if (mcpp_write_skips(r, id, v1) || (id == MCPP_F_id && !with_id))
            continue;
        any = 1;
        int chain[8];
        int n = section_chain(mcpp_write_section(id, v1), chain);
        int common = 0;
        while (common < depth && common < n && open[common] == chain[common])
            common++;
        while (depth > common) {
            line(sb, pretty, depth);
            mcpp_sb_putc(sb, '}');
            depth--;
        }
        while (depth < n) {
            next_item(sb, !first[depth], pretty, depth + 1);
            first[depth] = 0;
            mcpp_sb_json_string(sb, mcpp_schema_sections[chain[depth]].name);
            mcpp_sb_puts(sb, ": {");
            open[depth] = chain[depth];
            depth++;
            first[depth] = 1;
        }
        next_item(sb, !first[depth], pretty, depth + 1);
        first[depth] = 0;
        mcpp_sb_json_string(sb, mcpp_write_name(id, v1));
        mcpp_sb_puts(sb, ": ");
        if (v1 && id == MCPP_F_schema)
            mcpp_sb_json_string(sb, MCPP_SCHEMA_ID_V1);
        else
            field_json(sb, r, id, depth + 1, pretty);
    }
    while (depth > 0) {
        line(sb, pretty, depth);
        mcpp_sb_putc(sb, '}');
        depth--;
    }
    if (any)
        line(sb, pretty, 0);
    mcpp_sb_putc(sb, '}');
    if (pretty)
        mcpp_sb_putc(sb, '\n');
    return sb->failed ? mcpp_error_nomem() : 0;
}

int mcpp_write_json(mcpp_strbuf *sb, const mcpp_receipt *r, int with_id, int v1)
{
    return write_json(sb, r, with_id, v1, 1);
}

int mcpp_write_json_compact(mcpp_strbuf *sb, const mcpp_receipt *r)
{
    return write_json(sb, r, 1, 0, 0);
}
