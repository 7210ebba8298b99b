/*
 * image.c — the relocatable image of a packed receipt (image.h).
 *
 * Layout: a 40-byte header (magic, fingerprint, checksum, sizes), the struct
 * mcpp_receipt with its arena pointer zeroed, then the arena. Every pointer in
 * the struct and the arena (strings, list items, free-form trees, artifacts)
 * is stored as its offset in the arena plus one (0 is NULL). What a receipt
 * points to outside its arena (the strings and subtrees it shares with the
 * other receipts of its import: share.h) is copied into the image after the
 * arena's own bytes, so an image stands alone. The texts a
 * receipt made on demand (packed_text.h) live outside its arena and are not
 * part of its image. The arena's head
 * (flag, source name, derived id: receipt/layout.h) is replaced on reading
 * by one naming the new source; the rest moves by a multiple of 16 bytes, so
 * every member keeps its alignment.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "receipt/image.h"
#include "receipt/schema.h"
#include "util/error_internal.h"
#include "util/hash.h"

#define IMAGE_MAGIC "MCPPIMG1"
#define MAX_DEPTH 256

typedef struct image_header {
    char magic[8];
    uint64_t fingerprint; /* library version and receipt layout */
    uint64_t checksum;    /* mcpp_checksum_blob of everything after the header */
    uint32_t arena_size;
    uint32_t head_size; /* bytes of the arena's head */
    uint32_t struct_size;
    uint32_t reserved;
} image_header;

static uint64_t fingerprint_value;
static pthread_once_t fingerprint_once = PTHREAD_ONCE_INIT;

static uint64_t hash_text(const char *s, uint64_t h)
{
    return mcpp_fnv1a(s ? s : "", s ? strlen(s) + 1 : 1, h);
}

/* The image format itself (header, checksum); bump when either changes, so
 * images of an earlier build of the same version are refused, not misread. */
#define IMAGE_FORMAT "mcpp-image/4 free-form trees without their texts"

/* Changes whenever the image format, the library version or any part of the
 * packed layout does. */
static void fingerprint_init(void)
{
    uint64_t h = hash_text(IMAGE_FORMAT, hash_text(mcpp_version_string(), MCPP_FNV_OFFSET));
    size_t sizes[] = {sizeof(mcpp_receipt), sizeof(mcpp_fields), sizeof(mcpp_xnode), sizeof(mcpp_artifact),
                      sizeof(mcpp_string_list), sizeof(mcpp_double_list), MCPP_FIELD_COUNT};
    h = mcpp_fnv1a(sizes, sizeof sizes, h);
    for (int id = 0; id < MCPP_FIELD_COUNT; id++) {
        const mcpp_schema_entry *e = &mcpp_schema_entries[id];
        size_t layout[] = {(size_t)e->storage, e->offset, (size_t)e->info.type};
        h = mcpp_fnv1a(layout, sizeof layout, hash_text(e->info.path, h));
        for (const char *const *name = e->info.enum_names; name && *name; name++) h = hash_text(*name, h);
    }
    fingerprint_value = h;
}

static uint64_t fingerprint(void)
{
    pthread_once(&fingerprint_once, fingerprint_init);
    return fingerprint_value;
}

/* One pass over every pointer slot: writing turns pointers into offsets,
 * reading turns checked offsets into pointers into the new arena. */
enum reloc_mode { MEASURE, WRITE, READ };

typedef struct reloc {
    int mode;
    const char *old_base; /* measuring, writing: the receipt's own arena */
    size_t end;           /* measuring: the end of the last thing in the arena */
    char *base;           /* the arena being rewritten */
    size_t size;          /* its bytes */
    size_t head_old, head_new;
    size_t budget; /* reading: tree nodes still allowed (a loop cannot hang) */
    int bad;
    size_t tail; /* measuring: bytes copied in from outside the arena; writing: where the next goes */
} reloc;

static size_t round8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Rewrites the pointer at `slot`; returns where it points in x->base (NULL
 * for NULL). `need` bytes must lie in the arena there; a string must end in it. */
static void *reloc_slot(reloc *x, void *slot, size_t need, int is_string)
{
    uintptr_t v;
    memcpy(&v, slot, sizeof v);
    if (x->bad || v == 0) return NULL;
    size_t off;
    if (x->mode != READ) {
        const char *p = (const char *)v;
        if (p < x->old_base || p >= x->old_base + x->size) { /* shared: copied in after the arena */
            size_t n = is_string ? strlen(p) + 1 : need;
            off = x->tail;
            x->tail += round8(n);
            if (x->mode == MEASURE)
                return (char *)p;
            memcpy(x->base + off, p, n);
            uintptr_t stored = (uintptr_t)off + 1;
            memcpy(slot, &stored, sizeof stored);
            return x->base + off;
        }
        int inside = p >= x->old_base + x->head_old;
        off = (size_t)(p - x->old_base);
        if (!inside || need > x->size - off) {
            x->bad = 1;
            return NULL;
        }
        if (x->mode == MEASURE) {
            size_t end = off + (is_string ? strlen(p) + 1 : need);
            if (end > x->end) x->end = end;
            return (char *)p;
        }
        uintptr_t stored = (uintptr_t)off + 1;
        memcpy(slot, &stored, sizeof stored);
        return x->base + off;
    }
    off = (size_t)(v - 1);
    if (off < x->head_old || off - x->head_old >= x->size - x->head_new) {
        x->bad = 1;
        return NULL;
    }
    off = off - x->head_old + x->head_new;
    /* a string ends by the NUL after the arena at the latest; arrays of
     * pointers, doubles and nodes must sit where their type may (a forged
     * offset that is not is refused, never read) */
    if (need > x->size - off || (!is_string && (uintptr_t)(x->base + off) % sizeof(void *) != 0)) {
        x->bad = 1;
        return NULL;
    }
    char *p = x->base + off;
    memcpy(slot, &p, sizeof p);
    return p;
}

/* Bytes of `count` items of `size`, or SIZE_MAX when that overflows. */
static size_t items_bytes(size_t count, size_t size)
{
    return count > SIZE_MAX / size ? SIZE_MAX : count * size;
}

static void reloc_xnode(reloc *x, mcpp_xnode *node, int depth)
{
    if (!node || x->bad) return;
    if (x->mode == READ && (depth > MAX_DEPTH || x->budget-- == 0 || node->kind > MCPP_X_OBJECT)) {
        x->bad = 1;
        return;
    }
    uint32_t count = node->count;
    reloc_slot(x, &node->key, 0, 1);
    if (node->kind == MCPP_X_STRING) {
        reloc_slot(x, &node->str, 0, 1);
    } else if (node->kind == MCPP_X_ARRAY || node->kind == MCPP_X_OBJECT) {
        mcpp_xnode *children = reloc_slot(x, &node->children, items_bytes(count, sizeof *children), 0);
        for (uint32_t i = 0; children && i < count; i++)
            reloc_xnode(x, &children[i], depth + 1);
    }
}

static void reloc_field(reloc *x, mcpp_receipt *r, int id)
{
    void *f = mcpp_field_ptr(&r->f, id);
    switch (mcpp_schema_entries[id].storage) {
    case MCPP_ST_STRING: reloc_slot(x, f, 0, 1); break;
    case MCPP_ST_SLIST: {
        mcpp_string_list *l = f;
        const char **items = reloc_slot(x, &l->items, items_bytes(l->count, sizeof *items), 0);
        for (size_t i = 0; items && i < l->count; i++) reloc_slot(x, &items[i], 0, 1);
        break;
    }
    case MCPP_ST_DLIST: {
        mcpp_double_list *l = f;
        reloc_slot(x, &l->items, items_bytes(l->count, sizeof(double)), 0);
        break;
    }
    case MCPP_ST_OBJECT:
    case MCPP_ST_METRICS: {
        mcpp_object_slot *o = f;
        reloc_xnode(x, reloc_slot(x, &o->node, sizeof(mcpp_xnode), 0), 0);
        break;
    }
    case MCPP_ST_ARTIFACTS: {
        mcpp_artifact_list *l = f;
        mcpp_artifact *items = reloc_slot(x, &l->items, items_bytes(l->count, sizeof *items), 0);
        for (size_t i = 0; items && i < l->count; i++) {
            reloc_slot(x, &items[i].kind, 0, 1);
            reloc_slot(x, &items[i].uri, 0, 1);
        }
        break;
    }
    default: break;
    }
}

static void reloc_receipt(reloc *x, mcpp_receipt *r)
{
    for (int id = 0; id < MCPP_FIELD_COUNT && !x->bad; id++)
        if (mcpp_present(r, id)) reloc_field(x, r, id);
}

/* Bytes of the arena's head (flag, source name, derived id), or SIZE_MAX
 * when it does not fit in `arena_size`. */
static size_t head_size(const char *head, size_t arena_size, int has_id)
{
    if (arena_size == 0) return SIZE_MAX;
    size_t n = 1;
    if (head[0]) {
        const char *end = memchr(head + 1, '\0', arena_size - 1);
        if (!end) return SIZE_MAX;
        n = (size_t)(end - head) + 1;
    }
    n += has_id ? 0 : 19;
    return n <= arena_size ? n : SIZE_MAX;
}

int mcpp_receipt_image_write(unsigned char **out, size_t *out_len, const mcpp_receipt *r)
{
    *out = NULL;
    *out_len = 0;
    /* the arena's size is not kept: it ends where the last thing in it ends */
    size_t bound = malloc_usable_size((char *)r->arena - MCPP_RECEIPT_HOLD_BYTES) - MCPP_RECEIPT_HOLD_BYTES;
    size_t head = head_size(r->arena, bound, mcpp_present(r, MCPP_F_id));
    if (head == SIZE_MAX) return MCPP_EUNSUPPORTED;
    mcpp_receipt copy; /* the image holds the whole struct (a receipt keeps it compact: layout.h) */
    mcpp_receipt_expand(&copy, r);
    reloc x = {MEASURE, r->arena, head, NULL, bound, head, head, 0, 0, 0};
    reloc_receipt(&x, &copy);
    /* the arena, then what it shares (nothing: the image is the arena's bytes alone) */
    size_t own = x.tail ? round8(x.end) : x.end, arena_size = own + x.tail;
    if (x.bad || arena_size > UINT32_MAX)
        return MCPP_EUNSUPPORTED;
    size_t total = sizeof(image_header) + sizeof copy + arena_size;
    if (total > mcpp_receipt_image_max_bytes())
        return MCPP_EUNSUPPORTED;
    unsigned char *img = calloc(1, total); /* padding is zero: the same receipt, the same bytes */
    if (!img) return mcpp_error_nomem();
    char *arena = (char *)img + sizeof(image_header) + sizeof copy;
    memcpy(arena, r->arena, x.end);
    x = (reloc){WRITE, r->arena, x.end, arena, x.end, head, head, 0, 0, own};
    reloc_receipt(&x, &copy);
    if (x.bad) {
        free(img);
        return MCPP_EUNSUPPORTED;
    }
    copy.arena = NULL;
    memcpy(img + sizeof(image_header), &copy, sizeof copy);
    image_header h = {IMAGE_MAGIC, fingerprint(), 0, (uint32_t)arena_size, (uint32_t)head, (uint32_t)sizeof copy, 0};
    h.checksum = mcpp_checksum_blob(img + sizeof h, total - sizeof h, MCPP_FNV_OFFSET);
    memcpy(img, &h, sizeof h);
    *out = img;
    *out_len = total;
    return MCPP_OK;
}

/* The new arena's head naming `source_name`, padded so the rest moves by a
 * multiple of 16; the derived id is taken from the old head. A NUL follows
 * the arena, so every string that starts in it ends in the allocation
 * without searching each one for its end. */
static char *new_arena(size_t *head_new, size_t *size_new, const char *old, const image_header *h, int has_id,
                       const char *source_name)
{
    size_t name = source_name ? strlen(source_name) + 1 : 0;
    size_t min = 1 + name + (has_id ? 0 : 19);
    size_t head = min + ((h->head_size + 16 - min % 16) % 16);
    size_t size = head + (h->arena_size - h->head_size);
    char *arena = mcpp_receipt_arena_alloc(size + 1);
    if (!arena) return NULL;
    arena[size] = '\0';
    memset(arena, 0, head);
    arena[0] = source_name != NULL;
    if (source_name) memcpy(arena + 1, source_name, name);
    if (!has_id) memcpy(arena + 1 + name, old + h->head_size - 19, 19);
    memcpy(arena + head, old + h->head_size, h->arena_size - h->head_size);
    *head_new = head;
    *size_new = size;
    return arena;
}

/* Writes why an image was refused into why[0..why_len) (may be NULL); returns `rc`. */
static int refused(int rc, char *why, size_t why_len, const char *text)
{
    if (why && why_len) snprintf(why, why_len, "%s", text);
    return rc;
}

size_t mcpp_receipt_image_max_bytes(void)
{
    mcpp_limits limits = MCPP_LIMITS_INIT;
    return limits.max_input_bytes;
}

/* The sizes of header `h` add up to an image of at most the largest allowed;
 * the image's length then, else 0. */
static size_t declared_total(const image_header *h)
{
    if (h->struct_size != sizeof(mcpp_receipt) || h->head_size == 0 || h->head_size > h->arena_size)
        return 0;
    size_t total = sizeof *h + sizeof(mcpp_receipt) + (size_t)h->arena_size;
    return total <= mcpp_receipt_image_max_bytes() ? total : 0;
}

int mcpp_receipt_image_declared_size(size_t *total, const void *head, size_t head_len, char *why,
                                     size_t why_len)
{
    _Static_assert(sizeof(image_header) == MCPP_IMAGE_HEADER_BYTES,
                   "the header's size is part of image.h");
    image_header h;
    *total = 0;
    if (!head || head_len < sizeof h)
        return refused(MCPP_EINVALID, why, why_len, "truncated");
    memcpy(&h, head, sizeof h);
    if (memcmp(h.magic, IMAGE_MAGIC, sizeof h.magic) != 0)
        return refused(MCPP_EINVALID, why, why_len, "not an image");
    if (h.fingerprint != fingerprint())
        return refused(MCPP_EUNSUPPORTED, why, why_len, "written by another build of the library");
    if (!(*total = declared_total(&h)))
        return refused(MCPP_EINVALID, why, why_len,
                       "its header claims sizes that do not add up or are too large");
    return MCPP_OK;
}

int mcpp_receipt_image_read(mcpp_receipt **out, const void *blob, size_t len, const char *source_name, char *why,
                            size_t why_len)
{
    *out = NULL;
    image_header h;
    if (!blob || len < sizeof h + sizeof(mcpp_receipt)) return refused(MCPP_EINVALID, why, why_len, "truncated");
    memcpy(&h, blob, sizeof h);
    const unsigned char *bytes = blob;
    if (memcmp(h.magic, IMAGE_MAGIC, sizeof h.magic) != 0) return refused(MCPP_EINVALID, why, why_len, "not an image");
    if (h.fingerprint != fingerprint())
        return refused(MCPP_EUNSUPPORTED, why, why_len, "written by another build of the library");
    if (declared_total(&h) != len)
        return refused(MCPP_EINVALID, why, why_len, "its sizes do not add up");
    if (h.checksum != mcpp_checksum_blob(bytes + sizeof h, len - sizeof h, MCPP_FNV_OFFSET))
        return refused(MCPP_EINVALID, why, why_len, "its checksum does not match");
    mcpp_receipt whole, *r = &whole; /* checked whole, then kept compact (layout.h) */
    memcpy(r, bytes + sizeof h, sizeof *r);
    const char *old = (const char *)bytes + sizeof h + sizeof *r;
    int has_id = mcpp_present(r, MCPP_F_id);
    if (head_size(old, h.head_size, has_id) != h.head_size)
        return refused(MCPP_EINVALID, why, why_len, "its head is malformed");
    size_t head = 0, size = 0;
    char *arena = new_arena(&head, &size, old, &h, has_id, source_name);
    if (!arena)
        return mcpp_error_nomem();
    reloc x = {READ, NULL, 0, arena, size, h.head_size, head, size / sizeof(mcpp_xnode) + 1, 0, 0};
    reloc_receipt(&x, r);
    r->arena = arena;
    int rc = x.bad ? refused(MCPP_EINVALID, why, why_len, "an offset points outside its arena")
                   : mcpp_receipt_image_check_values(r, why, why_len);
    if (!rc && !(*out = mcpp_receipt_compact(r)))
        rc = mcpp_error_nomem();
    if (rc)
        mcpp_receipt_arena_free(arena);
    return rc;
}
