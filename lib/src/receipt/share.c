/*
 * share.c — the pool the receipts of one import point into (share.h).
 *
 * Finding repeats: a value's hash is noted in a direct-mapped table of
 * hashes the first time it is met; met again with the same hash, the value
 * is copied into the pool and entered in an open-addressing table of what
 * the pool holds, where later lookups find it (compared whole, so a hash
 * collision never shares a different value). The noting table is lossy on
 * purpose: it costs a fixed 256 KiB however many unique samples an import
 * makes, and a value repeated in every receipt is pooled by the second one.
 * Both tables go when the share is sealed; the pool stays until its last
 * receipt is freed.
 */
#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/layout.h"
#include "receipt/share.h"
#include "util/error_internal.h"
#include "util/hash.h"

#define SEEN_SLOTS (1u << 15)
#define MAX_SHARED_NODES 256 /* nodes below a container that may be shared */
#define CHUNK_BYTES (64u * 1024u)

enum { ENTRY_EMPTY, ENTRY_STRING, ENTRY_CHILDREN };

typedef struct entry {
    uint64_t hash;
    const void *p;
    uint32_t count; /* members of a children array */
    uint8_t kind;
} entry;

typedef struct chunk {
    struct chunk *next;
    size_t used, cap;
    alignas(16) char data[];
} chunk;

struct mcpp_share {
    atomic_uint refs;
    pthread_mutex_t lock;
    int sealed;
    chunk *chunks;
    uint64_t *seen; /* SEEN_SLOTS hashes met once (lossy) */
    entry *table;   /* what the pool holds, by hash */
    size_t cap, n;
};

mcpp_share *mcpp_share_new(void)
{
    mcpp_share *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->seen = calloc(SEEN_SLOTS, sizeof *s->seen); /* pages are touched as used */
    if (!s->seen) {
        free(s);
        return NULL;
    }
    atomic_init(&s->refs, 1);
    pthread_mutex_init(&s->lock, NULL);
    return s;
}

/* ---- the public calls (receipt.h) ------------------------------------------ */

int mcpp_receipt_share_new(mcpp_receipt_share **out)
{
    MCPP_CHECK_ARG(out, "mcpp_receipt_share_new: out is NULL");
    *out = mcpp_share_new();
    return *out ? MCPP_OK : mcpp_error_nomem();
}

int mcpp_receipt_share_pack(mcpp_receipt **out, const mcpp_receipt *receipt, mcpp_receipt_share *share)
{
    MCPP_CHECK_ARG(out, "mcpp_receipt_share_pack: out is NULL");
    *out = NULL;
    MCPP_CHECK_ARG(receipt && share && receipt->arena, "mcpp_receipt_share_pack: NULL argument");
    return mcpp_pack_shared(out, receipt, share);
}

void mcpp_receipt_share_free(mcpp_receipt_share *share)
{
    mcpp_share_seal(share);
    mcpp_share_release(share);
}

void mcpp_share_retain(mcpp_share *s) { atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed); }

void mcpp_share_seal(mcpp_share *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&s->lock);
    s->sealed = 1;
    free(s->seen);
    free(s->table);
    s->seen = NULL;
    s->table = NULL;
    s->cap = s->n = 0;
    pthread_mutex_unlock(&s->lock);
}

void mcpp_share_release(mcpp_share *s)
{
    /* acq_rel: every holder's reads happen before the last one frees */
    if (!s || atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
        return;
    mcpp_share_seal(s);
    for (chunk *c = s->chunks, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* ---- hashing and comparing packed values --------------------------------- */

/* Hashes a word at a time (FNV-1a's byte at a time was a third of the
 * sharing's cost), each step mcpp_hash_word. */
static uint64_t hash_u64(uint64_t v, uint64_t h) { return mcpp_hash_word(h, v); }

static uint64_t hash_str(const char *s, uint64_t h)
{
    if (!s)
        return hash_u64(UINT64_MAX, h); /* no key: no string's last word is all ones (NUL-padded) */
    size_t n = strlen(s);
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t w;
        memcpy(&w, s, sizeof w);
        h = hash_u64(w, h);
    }
    uint64_t tail = 0;
    memcpy(&tail, s, n);
    return hash_u64(tail ^ ((uint64_t)n << 59), h);
}

static int hash_children(const mcpp_xnode *c, uint32_t count, uint64_t *h, size_t *budget);

/* Mixes node n into *h; -1 when the budget of nodes runs out. */
static int hash_node(const mcpp_xnode *n, uint64_t *h, size_t *budget)
{
    if (*budget == 0)
        return -1;
    (*budget)--;
    *h = hash_str(n->key, hash_u64(n->kind, *h));
    switch (n->kind) {
    case MCPP_X_NUMBER: {
        uint64_t bits;
        memcpy(&bits, &n->number, sizeof bits);
        *h = hash_u64(bits, *h);
        break;
    }
    case MCPP_X_STRING: *h = hash_str(n->str, *h); break;
    case MCPP_X_ARRAY:
    case MCPP_X_OBJECT: return hash_children(n->children, n->count, h, budget);
    default: break;
    }
    return 0;
}

static int hash_children(const mcpp_xnode *c, uint32_t count, uint64_t *h, size_t *budget)
{
    *h = hash_u64(count, *h);
    for (uint32_t i = 0; i < count; i++)
        if (hash_node(&c[i], h, budget) != 0)
            return -1;
    return 0;
}

static int strings_equal(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

static int children_equal(const mcpp_xnode *a, const mcpp_xnode *b, uint32_t count);

static int node_equal(const mcpp_xnode *a, const mcpp_xnode *b)
{
    if (a->kind != b->kind || a->count != b->count || !strings_equal(a->key, b->key))
        return 0;
    switch (a->kind) {
    case MCPP_X_NUMBER: return memcmp(&a->number, &b->number, sizeof a->number) == 0; /* -0.0 is not 0.0 */
    case MCPP_X_STRING: return strings_equal(a->str, b->str);
    case MCPP_X_ARRAY:
    case MCPP_X_OBJECT: return children_equal(a->children, b->children, a->count);
    default: return 1;
    }
}

static int children_equal(const mcpp_xnode *a, const mcpp_xnode *b, uint32_t count)
{
    if (a == b)
        return 1;
    for (uint32_t i = 0; i < count; i++)
        if (!node_equal(&a[i], &b[i]))
            return 0;
    return 1;
}

/* ---- the pool and its table (the lock held) ------------------------------ */

static void *pool_take(mcpp_share *s, size_t n, size_t align)
{
    chunk *c = s->chunks;
    size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
    if (!c || at + n > c->cap) {
        size_t cap = n > CHUNK_BYTES ? n : CHUNK_BYTES;
        c = malloc(sizeof *c + cap);
        if (!c)
            return NULL;
        c->next = s->chunks;
        c->used = 0;
        c->cap = cap;
        s->chunks = c;
        at = 0;
    }
    c->used = at + n;
    return c->data + at;
}

/* The slot of `hash` for a value that `same` says is equal, or the empty
 * slot where it would go. */
static entry *table_find(mcpp_share *s, uint64_t hash, int kind, const void *p, uint32_t count)
{
    for (size_t i = hash & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        entry *e = &s->table[i];
        if (e->kind == ENTRY_EMPTY)
            return e;
        if (e->hash != hash || e->kind != kind)
            continue;
        if (kind == ENTRY_STRING ? strcmp(e->p, p) == 0 : e->count == count && children_equal(e->p, p, count))
            return e;
    }
}

static int table_grow(mcpp_share *s)
{
    if (s->table && (s->n + 1) * 2 <= s->cap)
        return 0;
    size_t cap = s->cap ? s->cap * 2 : 256;
    entry *old = s->table, *t = calloc(cap, sizeof *t);
    if (!t)
        return -1;
    size_t old_cap = s->cap;
    s->table = t;
    s->cap = cap;
    for (size_t i = 0; i < old_cap; i++) {
        if (old[i].kind == ENTRY_EMPTY)
            continue;
        size_t j = old[i].hash & (cap - 1);
        while (t[j].kind != ENTRY_EMPTY)
            j = (j + 1) & (cap - 1);
        t[j] = old[i];
    }
    free(old);
    return 0;
}

static const void *table_add(mcpp_share *s, entry *slot, uint64_t hash, int kind, const void *p, uint32_t count)
{
    slot->hash = hash;
    slot->kind = (uint8_t)kind;
    slot->p = p;
    slot->count = count;
    s->n++;
    return p;
}

static uint64_t string_hash(const char *str)
{
    return hash_str(str, MCPP_FNV_OFFSET) | 1; /* 0 marks an empty noting slot */
}

/* The pool's copy of str (made when missing); NULL when out of memory. */
static const char *pool_string(mcpp_share *s, const char *str, uint64_t hash)
{
    if (table_grow(s) != 0)
        return NULL;
    entry *e = table_find(s, hash, ENTRY_STRING, str, 0);
    if (e->kind != ENTRY_EMPTY)
        return e->p;
    size_t n = strlen(str) + 1;
    char *copy = pool_take(s, n, 1);
    if (!copy)
        return NULL;
    memcpy(copy, str, n);
    return table_add(s, e, hash, ENTRY_STRING, copy, 0);
}

static const mcpp_xnode *pool_children(mcpp_share *s, const mcpp_xnode *c, uint32_t count, uint64_t hash);

/* Copies node `from` into `to`, its strings and members from the pool. */
static int pool_node(mcpp_share *s, mcpp_xnode *to, const mcpp_xnode *from)
{
    *to = *from;
    if (from->key && !(to->key = pool_string(s, from->key, string_hash(from->key))))
        return -1;
    if (from->kind == MCPP_X_STRING && !(to->str = pool_string(s, from->str, string_hash(from->str))))
        return -1;
    if ((from->kind == MCPP_X_ARRAY || from->kind == MCPP_X_OBJECT) && from->count) {
        uint64_t h = MCPP_FNV_OFFSET;
        size_t budget = MAX_SHARED_NODES;
        (void)hash_children(from->children, from->count, &h, &budget); /* within the parent's budget */
        if (!(to->children = (mcpp_xnode *)pool_children(s, from->children, from->count, h | 1)))
            return -1;
    }
    return 0;
}

/* The pool's copy of a members array (made when missing); NULL when out of memory. */
static const mcpp_xnode *pool_children(mcpp_share *s, const mcpp_xnode *c, uint32_t count, uint64_t hash)
{
    if (table_grow(s) != 0)
        return NULL;
    entry *e = table_find(s, hash, ENTRY_CHILDREN, c, count);
    if (e->kind != ENTRY_EMPTY)
        return e->p;
    mcpp_xnode *copy = pool_take(s, count * sizeof *copy, alignof(mcpp_xnode));
    if (!copy)
        return NULL;
    for (uint32_t i = 0; i < count; i++)
        if (pool_node(s, &copy[i], &c[i]) != 0)
            return NULL;
    /* copying may have grown the table: find the slot again */
    return table_add(s, table_find(s, hash, ENTRY_CHILDREN, c, count), hash, ENTRY_CHILDREN, copy, count);
}

/* 1 when `hash` was met before (then pooled); notes it otherwise. */
static int met_before(mcpp_share *s, uint64_t hash)
{
    uint64_t *slot = &s->seen[hash & (SEEN_SLOTS - 1)];
    if (*slot == hash)
        return 1;
    *slot = hash;
    return 0;
}

const char *mcpp_share_string(mcpp_share *s, const char *str)
{
    uint64_t hash = string_hash(str);
    const char *found = NULL;
    pthread_mutex_lock(&s->lock);
    if (!s->sealed) {
        if (s->table) {
            entry *e = table_find(s, hash, ENTRY_STRING, str, 0);
            found = e->kind != ENTRY_EMPTY ? e->p : NULL;
        }
        if (!found && met_before(s, hash))
            found = pool_string(s, str, hash); /* NULL when out of memory: not shared */
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}

const mcpp_xnode *mcpp_share_children(mcpp_share *s, const mcpp_xnode *children, uint32_t count)
{
    uint64_t hash = MCPP_FNV_OFFSET;
    size_t budget = MAX_SHARED_NODES;
    if (count == 0 || hash_children(children, count, &hash, &budget) != 0)
        return NULL;
    hash |= 1;
    const mcpp_xnode *found = NULL;
    pthread_mutex_lock(&s->lock);
    if (!s->sealed) {
        if (s->table) {
            entry *e = table_find(s, hash, ENTRY_CHILDREN, children, count);
            found = e->kind != ENTRY_EMPTY ? e->p : NULL;
        }
        if (!found && met_before(s, hash))
            found = pool_children(s, children, count, hash);
    }
    pthread_mutex_unlock(&s->lock);
    return found;
}
