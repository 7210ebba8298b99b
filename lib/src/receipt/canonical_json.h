/*
 * canonical_json.h — the canonical JSON of a receipt (write_json.c: its id
 * hashes these bytes, so the writer lives with the receipt) and of free-form
 * values (canonical_json.c). io/ writes files with them; render/ shows
 * free-form values with them. Where a writer puts each field is in
 * receipt/schema.h.
 */
#ifndef MCPP_RECEIPT_CANONICAL_JSON_H
#define MCPP_RECEIPT_CANONICAL_JSON_H

#include <stddef.h>

#include "mcpp_receipts/receipt.h"
#include "util/strbuf.h"

struct cJSON;

/* Compact canonical JSON of a cJSON value (keys sorted, numbers canonical). */
void mcpp_sb_cjson_compact(mcpp_strbuf *sb, const struct cJSON *v);
/* Sorts object members bytewise by key: the canonical order of free-form objects. */
void mcpp_cjson_sort_members(const struct cJSON **items, size_t n);

/* Canonical JSON of a receipt (staging or packed); `with_id` 0 leaves id out.
 * `v1` writes the layout of schema 1 (callers check first that the content
 * fits, with mcpp_schema1_check). */
int mcpp_write_json(mcpp_strbuf *sb, const mcpp_receipt *r, int with_id, int v1);
/* The same JSON (schema 2, with id) on one line: mcpp_write_json's text with
 * every line break and the indentation after it left out (the store's body). */
int mcpp_write_json_compact(mcpp_strbuf *sb, const mcpp_receipt *r);

#endif /* MCPP_RECEIPT_CANONICAL_JSON_H */
