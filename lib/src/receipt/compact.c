/*
 * compact.c — a packed receipt's struct with its present members only
 * (layout.h): made from the whole struct, and back; and the slot tables that
 * receipts stating the same fields share.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/layout.h"
#include "receipt/schema.h"
#include "util/hash.h"

const uint64_t mcpp_absent_member[2] = {0, 0};
/* a member takes one word, or two for the 16-byte ones, of which the struct
 * has fewer than sizeof / 16; the word after the table pointer is the first */
_Static_assert(MCPP_FIELD_COUNT + sizeof(mcpp_fields) / 16 < 255, "a member's word fits the table's byte");

/* 8-byte words a member takes in the compact form. */
static unsigned member_words(int id) { return (unsigned)((mcpp_member_size(id) + 7) / 8); }

/* ---- the slot tables of the process, one per set of present fields ----------
 * Kept for the process (a few hundred bytes each, at most TABLES_MAX of
 * them, so varied or hostile inputs cannot grow it without bound), in static
 * storage rather than the heap: a module that is unloaded (Lua closes its C
 * modules with its state) would leave heap tables with no pointer to them,
 * which LeakSanitizer reports as leaks; untouched storage costs no memory.
 * An open-addressing table on the presence words, under a lock. A table
 * once published never changes, so readers need no lock. */
#define TABLES_MAX 4096
#define TABLES_SLOTS (2 * TABLES_MAX)

typedef struct slot_table {
    uint64_t present[MCPP_PRESENT_WORDS];
    uint8_t table[MCPP_SLOT_TABLE_BYTES];
} slot_table;

static slot_table storage[TABLES_MAX];
static slot_table *tables[TABLES_SLOTS];
static size_t n_tables;
static pthread_mutex_t tables_lock = PTHREAD_MUTEX_INITIALIZER;

/* The bits of presence word w that name fields: the last word's high bits
 * (the compact mark among them) do not. */
static inline uint64_t field_bits(int w)
{
    int fields = MCPP_FIELD_COUNT - 64 * w; /* > 0 below MCPP_PRESENT_WORDS */
    return fields >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << fields) - 1;
}

/* Each field id present in `present`, in order: a receipt states ~40 of the
 * schema's fields, and testing every id to compact a loaded receipt was a
 * tenth of a load's CPU (perf, bench_ingest). */
#define FOR_EACH_PRESENT(present, id)                                                                                  \
    for (int w_ = 0; w_ < MCPP_PRESENT_WORDS; w_++)                                                                    \
        for (uint64_t bits_ = (present)[w_] & field_bits(w_); bits_; bits_ &= bits_ - 1)                               \
            for (int id = w_ * 64 + __builtin_ctzll(bits_), once_ = 1; once_; once_ = 0)

/* Copies field id's member, its size known at compile time in each case
 * (memcpy of a size read at run time was a call per member). */
static void copy_member(void *to, const void *from, int id)
{
    switch (mcpp_schema_entries[id].storage) {
    case MCPP_ST_BOOL:
    case MCPP_ST_ENUM: memcpy(to, from, 1); break;
    case MCPP_ST_INT: memcpy(to, from, sizeof(int64_t)); break;
    case MCPP_ST_INT32: memcpy(to, from, sizeof(int32_t)); break;
    case MCPP_ST_DOUBLE: memcpy(to, from, sizeof(double)); break;
    case MCPP_ST_STRING: memcpy(to, from, sizeof(const char *)); break;
    case MCPP_ST_SLIST: memcpy(to, from, sizeof(mcpp_string_list)); break;
    case MCPP_ST_DLIST: memcpy(to, from, sizeof(mcpp_double_list)); break;
    case MCPP_ST_ARTIFACTS: memcpy(to, from, sizeof(mcpp_artifact_list)); break;
    default: memcpy(to, from, sizeof(mcpp_object_slot)); break;
    }
}

static void fill_table(uint8_t *table, const mcpp_receipt *full)
{
    memset(table, 0, MCPP_SLOT_TABLE_BYTES);
    unsigned at = 1; /* word 0 holds the table pointer */
    FOR_EACH_PRESENT (full->present, id) {
        table[id] = (uint8_t)at;
        at += member_words(id);
    }
}

/* The process's table for full's present fields, or NULL when there is no
 * room for another: the receipt then keeps its own. */
static const uint8_t *shared_table(const mcpp_receipt *full)
{
    uint64_t h = mcpp_fnv1a(full->present, sizeof full->present, MCPP_FNV_OFFSET);
    const uint8_t *found = NULL;
    pthread_mutex_lock(&tables_lock);
    for (size_t i = h & (TABLES_SLOTS - 1);; i = (i + 1) & (TABLES_SLOTS - 1)) {
        slot_table *t = tables[i];
        if (t && memcmp(t->present, full->present, sizeof t->present) == 0) {
            found = t->table;
            break;
        }
        if (!t) {
            if (n_tables < TABLES_MAX) {
                t = &storage[n_tables];
                memcpy(t->present, full->present, sizeof t->present);
                fill_table(t->table, full);
                tables[i] = t;
                n_tables++;
                found = t->table;
            }
            break;
        }
    }
    pthread_mutex_unlock(&tables_lock);
    return found;
}

mcpp_receipt *mcpp_receipt_compact(const mcpp_receipt *full)
{
    unsigned words = 1; /* the table pointer */
    FOR_EACH_PRESENT (full->present, id)
        words += member_words(id);
    const uint8_t *table = shared_table(full);
    size_t own_table = table ? 0 : MCPP_SLOT_TABLE_BYTES; /* after the members */
    mcpp_receipt *r = calloc(1, offsetof(mcpp_receipt, f) + 8u * words + own_table);
    if (!r)
        return NULL;
    memcpy(r->present, full->present, sizeof r->present);
    mcpp_set_present(r, MCPP_COMPACT_BIT);
    r->arena = full->arena;
    char *base = (char *)&r->f;
    if (!table) {
        uint8_t *mine = (uint8_t *)base + 8u * words;
        fill_table(mine, full);
        table = mine;
    }
    memcpy(base, &table, sizeof table);
    FOR_EACH_PRESENT (full->present, id)
        copy_member(base + 8u * table[id], mcpp_field_cptr(&full->f, id), id);
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
    FOR_EACH_PRESENT (full->present, id)
        copy_member(mcpp_field_ptr(&full->f, id), mcpp_field_slot(r, id), id);
}
