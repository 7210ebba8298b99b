/*
 * image.h — a relocatable image of a packed receipt: its fixed struct and its
 * arena with every pointer written as an offset, so that loading it back is two
 * memcpy calls and a pointer fix-up instead of parsing and validating JSON.
 * The receipt store keeps one next to each canonical JSON body (which stays the
 * source of truth).
 *
 * An image is only ever read by the build that could have written it: its
 * header carries a fingerprint of the library version and the receipt layout,
 * and a checksum of the bytes. Anything else — another version, a damaged or
 * truncated blob, an offset outside the arena, a value the binder would have
 * refused — is refused (the caller then parses the JSON); reading never
 * trusts an offset or a value it has not checked.
 */
#ifndef MCPP_RECEIPT_IMAGE_H
#define MCPP_RECEIPT_IMAGE_H

#include <stddef.h>

#include "mcpp_receipts/receipt.h"

/* Bytes of an image's header, which says how long the image is. */
#define MCPP_IMAGE_HEADER_BYTES 40

/* The most bytes an image may have: the default receipt limit on an input
 * (MCPP_LIMITS_INIT, 16 MiB). An image is a cache of its receipt's body,
 * which a reader may always parse instead, so a receipt whose image would be
 * larger gets none, and a reader refuses an image that claims more before it
 * decompresses one (a forged 8 KB frame can claim hundreds of MiB). */
size_t mcpp_receipt_image_max_bytes(void);

/* The length an image's header (its first MCPP_IMAGE_HEADER_BYTES bytes, in
 * `head`) says the image has, in *total, checked without the rest: the magic,
 * this build's fingerprint (MCPP_EUNSUPPORTED when another build wrote it),
 * sizes that add up and a total within mcpp_receipt_image_max_bytes
 * (MCPP_EINVALID otherwise, `why` filled; no error is set). */
int mcpp_receipt_image_declared_size(size_t *total, const void *head, size_t head_len, char *why,
                                     size_t why_len);

/* The image of `r` in *out (malloc'ed; free()): what r shares with other
 * receipts (receipt/share.h) is copied in, so the image stands alone.
 * MCPP_EUNSUPPORTED when the receipt points into its arena's head or its
 * image would be larger than mcpp_receipt_image_max_bytes (then store no
 * image), MCPP_ENOMEM. */
int mcpp_receipt_image_write(unsigned char **out, size_t *out_len, const mcpp_receipt *r);

/* The receipt an image holds, named `source_name` (may be NULL), as if it had
 * just been loaded. Every value is checked as the binder would have checked
 * it (enum indexes, UTF-8, integer and number ranges, list lengths: see
 * image_check.c) before it is handed out. MCPP_EUNSUPPORTED when another
 * build wrote it, MCPP_EINVALID when it is damaged or forged (no message is
 * set in either case: the caller falls back to the body); `why` (may be
 * NULL) then gets a line saying what was refused. MCPP_ENOMEM. */
int mcpp_receipt_image_read(mcpp_receipt **out, const void *blob, size_t len, const char *source_name, char *why,
                            size_t why_len);

/* Checks the values of a relocated image in place (absent fields are zeroed);
 * MCPP_EINVALID with the first broken rule in `why` (may be NULL). */
int mcpp_receipt_image_check_values(mcpp_receipt *r, char *why, size_t why_len);

#endif /* MCPP_RECEIPT_IMAGE_H */
