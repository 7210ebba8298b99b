/*
 * packed_text.h — the compact canonical JSON of a packed receipt's free-form
 * values (extra, metrics.named, features, ...) and artifact list, which
 * mcpp_receipt_get hands out as borrowed text. The packed tree keeps no text
 * (receipt/layout.h); a value's text is written from its tree when it is
 * first read, and kept with the receipt until the receipt is freed, so the
 * pointer stays valid as long as the receipt, as receipt.h promises.
 * Private to receipt/ and io/ (it names the layout).
 */
#ifndef MCPP_RECEIPT_PACKED_TEXT_H
#define MCPP_RECEIPT_PACKED_TEXT_H

#include "receipt/layout.h"
#include "util/strbuf.h"

/* Compact canonical JSON of a packed value: the bytes mcpp_sb_cjson_compact
 * writes for the tree it was packed from ({"a":1,"b":[true,"x"]}). */
void mcpp_xnode_compact(mcpp_strbuf *sb, const mcpp_xnode *n);

/* The text of container `n` (an ARRAY or OBJECT node of packed receipt `r`),
 * or of `r`'s artifact list `l` (n NULL): made on the first call, the same
 * pointer on every later one, from any thread; it lives until `r` is freed.
 * NULL when out of memory (no error is set: the caller says so). */
const char *mcpp_packed_text(const mcpp_receipt *r, const mcpp_xnode *n, const mcpp_artifact_list *l);

/* Frees the texts made for the receipt whose arena is `arena` (its last holder). */
void mcpp_packed_texts_free(void *arena);

#endif /* MCPP_RECEIPT_PACKED_TEXT_H */
