/*
 * packed_text.c — a packed free-form value's compact canonical JSON, made
 * when first read and kept with the receipt (packed_text.h).
 *
 * The texts made for a receipt are a list in its hold block (layout.h),
 * pushed with compare-and-swap: receipts are shared between threads (the
 * frontier's and the gate's workers), and two threads asking for the same
 * text at once both write it; the second to push finds the first's in the
 * list, frees its own and returns the first, so each value has one text and
 * a pointer handed out is never freed before the receipt. A receipt has a
 * handful of free-form values, so the list is searched from its head.
 */
#include <stdlib.h>
#include <string.h>

#include "receipt/packed_text.h"

struct mcpp_packed_text {
    struct mcpp_packed_text *next;
    const void *of; /* the node or artifact list the text is of */
    char text[];
};

void mcpp_xnode_compact(mcpp_strbuf *sb, const mcpp_xnode *n)
{
    switch (n->kind) {
    case MCPP_X_NULL: mcpp_sb_puts(sb, "null"); break;
    case MCPP_X_TRUE: mcpp_sb_puts(sb, "true"); break;
    case MCPP_X_FALSE: mcpp_sb_puts(sb, "false"); break;
    case MCPP_X_NUMBER: mcpp_sb_double(sb, n->number); break;
    case MCPP_X_STRING: mcpp_sb_json_string(sb, n->str); break;
    case MCPP_X_ARRAY:
    case MCPP_X_OBJECT: {
        int object = n->kind == MCPP_X_OBJECT;
        mcpp_sb_putc(sb, object ? '{' : '[');
        for (uint32_t i = 0; i < n->count && !sb->failed; i++) {
            if (i)
                mcpp_sb_putc(sb, ',');
            if (object) { /* members are stored sorted: the canonical order */
                mcpp_sb_json_string(sb, n->children[i].key);
                mcpp_sb_putc(sb, ':');
            }
            mcpp_xnode_compact(sb, &n->children[i]);
        }
        mcpp_sb_putc(sb, object ? '}' : ']');
        break;
    }
    default: break;
    }
}

static void artifacts_compact(mcpp_strbuf *sb, const mcpp_artifact_list *l)
{
    mcpp_sb_putc(sb, '[');
    for (size_t i = 0; i < l->count; i++) {
        mcpp_sb_puts(sb, i ? ",{\"kind\":" : "{\"kind\":");
        mcpp_sb_json_string(sb, l->items[i].kind);
        mcpp_sb_puts(sb, ",\"uri\":");
        mcpp_sb_json_string(sb, l->items[i].uri);
        mcpp_sb_putc(sb, '}');
    }
    mcpp_sb_putc(sb, ']');
}

static const char *find(struct mcpp_packed_text *from, const struct mcpp_packed_text *to, const void *of)
{
    for (; from != to; from = from->next)
        if (from->of == of)
            return from->text;
    return NULL;
}

const char *mcpp_packed_text(const mcpp_receipt *r, const mcpp_xnode *n, const mcpp_artifact_list *l)
{
    mcpp_receipt_hold_block *hold = mcpp_receipt_hold_of(r->arena);
    const void *of = n ? (const void *)n : (const void *)l;
    struct mcpp_packed_text *head = atomic_load_explicit(&hold->texts, memory_order_acquire);
    const char *found = find(head, NULL, of);
    if (found)
        return found;
    char initial[512];
    mcpp_strbuf sb;
    mcpp_sb_init(&sb, initial, sizeof initial);
    if (n)
        mcpp_xnode_compact(&sb, n);
    else
        artifacts_compact(&sb, l);
    struct mcpp_packed_text *made = sb.failed ? NULL : malloc(sizeof *made + sb.len + 1);
    if (made) {
        made->of = of;
        memcpy(made->text, sb.data, sb.len + 1);
    }
    mcpp_sb_free(&sb);
    if (!made)
        return NULL;
    /* push; a failed swap reloads the head: look among what was pushed since */
    struct mcpp_packed_text *seen = head;
    for (;;) {
        made->next = head;
        if (atomic_compare_exchange_weak_explicit(&hold->texts, &head, made, memory_order_acq_rel,
                                                  memory_order_acquire))
            return made->text;
        if ((found = find(head, seen, of))) {
            free(made);
            return found;
        }
        seen = head;
    }
}

void mcpp_packed_texts_free(void *arena)
{
    mcpp_receipt_hold_block *hold = mcpp_receipt_hold_of(arena);
    struct mcpp_packed_text *t = atomic_load_explicit(&hold->texts, memory_order_acquire);
    while (t) {
        struct mcpp_packed_text *next = t->next;
        free(t);
        t = next;
    }
    atomic_store_explicit(&hold->texts, NULL, memory_order_relaxed);
}
