/*
 * compact.c — a packed receipt's struct with its present members only
 * (layout.h): made from the whole struct, and back.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/layout.h"
#include "receipt/schema.h"

const uint64_t mcpp_absent_member[2] = {0, 0};
/* a member takes one word, or two for the 16-byte ones, of which the struct has fewer than sizeof / 16 */
_Static_assert(MCPP_FIELD_COUNT + sizeof(mcpp_fields) / 16 < 255, "a member's word fits the table's byte");

/* 8-byte words a member takes in the compact form. */
static unsigned member_words(int id) { return (unsigned)((mcpp_member_size(id) + 7) / 8); }

mcpp_receipt *mcpp_receipt_compact(const mcpp_receipt *full)
{
    unsigned words = 0;
    for (int id = 0; id < MCPP_FIELD_COUNT; id++)
        if (mcpp_present(full, id))
            words += member_words(id);
    mcpp_receipt *r = calloc(1, offsetof(mcpp_receipt, f) + MCPP_SLOT_TABLE_BYTES + 8u * words);
    if (!r)
        return NULL;
    memcpy(r->present, full->present, sizeof r->present);
    mcpp_set_present(r, MCPP_COMPACT_BIT);
    r->arena = full->arena;
    uint8_t *table = (uint8_t *)&r->f;
    char *members = (char *)&r->f + MCPP_SLOT_TABLE_BYTES;
    unsigned at = 0;
    for (int id = 0; id < MCPP_FIELD_COUNT; id++) {
        if (!mcpp_present(full, id))
            continue;
        table[id] = (uint8_t)(at + 1);
        memcpy(members + 8u * at, mcpp_field_cptr(&full->f, id), mcpp_member_size(id));
        at += member_words(id);
    }
    return r;
}

void mcpp_receipt_expand(mcpp_receipt *full, const mcpp_receipt *r)
{
    if (!mcpp_is_compact(r)) {
        *full = *r;
        return;
    }
    memset(full, 0, sizeof *full);
    memcpy(full->present, r->present, sizeof full->present);
    full->present[MCPP_COMPACT_BIT >> 6] &= ~((uint64_t)1 << (MCPP_COMPACT_BIT & 63));
    full->arena = r->arena;
    for (int id = 0; id < MCPP_FIELD_COUNT; id++)
        if (mcpp_present(r, id))
            memcpy(mcpp_field_ptr(&full->f, id), mcpp_field_slot(r, id), mcpp_member_size(id));
}
