/*
 * fields.h — reading a receipt's fields by schema id without knowing how a
 * receipt is laid out: present / compare (equal) / hash / text / get.
 *
 * The comparison, policy, lane, frontier, claim and render code use only
 * this, never the receipt struct. So adding or moving a field touches the
 * schema list (receipt/schema_fields.h) and nothing in analysis. An id < 0
 * (a field the schema lacks) reads as absent everywhere.
 */
#ifndef MCPP_RECEIPT_FIELDS_H
#define MCPP_RECEIPT_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "mcpp_receipts/receipt.h"
#include "util/strbuf.h"

/* How one field of two receipts compares. */
typedef enum mcpp_field_cmp {
    MCPP_FIELD_ABSENT = 0, /* absent on both sides */
    MCPP_FIELD_EQUAL = 1,
    MCPP_FIELD_DIFFERS = 2,
    MCPP_FIELD_ONE_SIDED = 3 /* present on one side only */
} mcpp_field_cmp;

/* Paths inside free-form values ("extra.team", "benchmark.params.n") get ids
 * >= MCPP_FIELD_COUNT that every function below accepts (free_paths.c): a
 * policy dimension may name them. The id of `path` (interned once per
 * process), or MCPP_EINVALID when it is neither below a free-form root nor
 * valid; and the path of such an id (NULL for any other). */
int mcpp_free_path_id(const char *path);
const char *mcpp_free_path_at(int id);

/* 1 when field `id` is present in r. */
int mcpp_field_present(const mcpp_receipt *r, int id);

/* Compares field `id` of a and b without building values (the inner loop of
 * every comparison). */
mcpp_field_cmp mcpp_field_compare(const mcpp_receipt *a, const mcpp_receipt *b, int id);

/* mcpp_field_compare for n fields at once (out[i] for ids[i]): one call per
 * dimension instead of one per field on the comparison's hot path. */
void mcpp_field_compare_many(mcpp_field_cmp *out, const mcpp_receipt *a, const mcpp_receipt *b,
                             const int *ids, size_t n);

/* 1 when field `id` is equal in both receipts or absent from both. */
int mcpp_field_same(const mcpp_receipt *a, const mcpp_receipt *b, int id);

/* 1 when fields x and y of the same receipt are both present with the same
 * value (a requested/observed pair). */
int mcpp_field_pair_equal(const mcpp_receipt *r, int x, int y);

/* 1 when r states a request that its observation does not meet: `requested`
 * present and `observed` missing or different, or a requested count with no
 * or a different observed count. Any id may be < 0 (not in the schema). */
int mcpp_field_request_unmet(const mcpp_receipt *r, int requested, int observed, int requested_count,
                             int observed_count);

/* A precision recipe ("fp8+bf16") with its formats in sorted order
 * ("bf16+fp8") into out (cap bytes, always terminated); returns the length
 * it needed. A recipe is a set: every comparison reads it through this. */
size_t mcpp_precision_recipe_canonical(char *out, size_t cap, const char *raw);

/* The CUDA graph capture r's pinned launch policy states
 * (launch.fixed_policy.cuda_graphs), in launch.cuda_graphs' order: 0 off, 1
 * partial, 2 full, 3 on (true), 4 another value; -1 when it states none. */
int mcpp_cuda_graphs_pinned(const mcpp_receipt *r);

/* Mixes field `id` of r into h so that mcpp_field_same fields hash equal. */
uint64_t mcpp_field_hash(const mcpp_receipt *r, int id, uint64_t h);

/* The library's own readers behind mcpp_receipt_get_field / mcpp_receipt_get
 * (get.c), same results: they fill the whole mcpp_value, whatever its version
 * field holds (the public ones check the caller's layout first). */
int mcpp_value_at_field(const mcpp_receipt *r, int field_id, mcpp_value *out);
int mcpp_value_at_path(const mcpp_receipt *r, const char *path, mcpp_value *out);

/* The value of field `id` into *out (ABSENT when missing or id < 0);
 * returns 1 when present. Borrowed from r. */
int mcpp_field_get(const mcpp_receipt *r, int id, mcpp_value *out);

/* A STRING field's text, or NULL when absent or not a string field. */
const char *mcpp_field_string(const mcpp_receipt *r, int id);

/* What a builder holds so far, as a receipt to read fields of (builder.c;
 * borrowed, valid until the builder's next call): library code that must see
 * a field before finishing, such as an import told its commit. */
const mcpp_receipt *mcpp_builder_staged(const mcpp_builder *b);

/* How many items a string-list field holds (0 when absent or not a list). */
size_t mcpp_field_list_count(const mcpp_receipt *r, int id);

/* Appends the field's canonical text (mcpp_value_text; "-" when absent);
 * with `escape_key` the lane-key escapes apply. */
void mcpp_field_text(mcpp_strbuf *sb, const mcpp_receipt *r, int id, int escape_key);

/* Appends a value's canonical text: decimal ints, canonical doubles,
 * true/false, strings verbatim, lists as "[a, b]", objects as JSON. With
 * `escape_key` set, '\\', ';', '|', '=' and ',' are escaped (lane keys). */
void mcpp_value_text(mcpp_strbuf *sb, const mcpp_value *v, int escape_key);

/* 1 when two values are the same (ints and doubles compare by value). */
int mcpp_value_equal(const mcpp_value *a, const mcpp_value *b);

/* Keeps r alive until a matching mcpp_receipt_free (a comparison holds the
 * two receipts it explains); returns r. Receipts are immutable, so a holder
 * reads later exactly what it would read now. */
const mcpp_receipt *mcpp_receipt_retain(const mcpp_receipt *r);

/* FNV-1a of r's canonical JSON without its id: the hash a derived id
 * ("r-" + 16 hex digits) is made of. MCPP_ENOMEM when the text could not be
 * written. */
int mcpp_receipt_content_hash(uint64_t *out, const mcpp_receipt *r);

/* Writes `id` (non-empty) over r's own id, which must be at least as long:
 * an importer names a receipt after its content hash, known only once the
 * receipt is made, so it makes the receipt with a placeholder id as long as
 * any it writes. Only for a receipt nobody else holds yet (receipts are
 * immutable once shared); MCPP_EARG when r has no id or a shorter one. */
int mcpp_receipt_rename_unshared(mcpp_receipt *r, const char *id);

#endif /* MCPP_RECEIPT_FIELDS_H */
