/*
 * share.h — what the receipts of one import share (issue 50 item 5).
 *
 * Every row of a Google Benchmark file gives a receipt that repeats the same
 * member names, the same `context` subtree, the same tool and host strings.
 * A share is a pool those receipts point into instead of each keeping its
 * own copy: strings and the member arrays of free-form containers, copied
 * into the pool the second time they are met (the first time only their
 * hash is noted, so what a file holds once never enters the pool).
 *
 * Lifetime: a receipt that points into a share holds a reference to it (in
 * its hold block, layout.h), so it may outlive the set it was imported into,
 * and the share is freed with the last of its receipts. What a share holds
 * never changes once it is there, so receipts read it from any thread. Adding
 * (mcpp_share_string, mcpp_share_children) takes the share's lock; sealing
 * frees what finding repeats needed and ends the adding.
 */
#ifndef MCPP_RECEIPT_SHARE_H
#define MCPP_RECEIPT_SHARE_H

#include <stdint.h>

#include "mcpp_receipts/receipt.h"

typedef struct mcpp_share mcpp_share;
typedef struct mcpp_xnode mcpp_xnode; /* a packed free-form node (receipt/layout.h) */

/* A new, empty share with one reference (the caller's); NULL when out of memory. */
mcpp_share *mcpp_share_new(void);

/* One more reference. */
void mcpp_share_retain(mcpp_share *s);

/* Drops one reference; the last frees the share and all it holds. NULL does nothing. */
void mcpp_share_release(mcpp_share *s);

/* No more adding: frees the tables that found repeats. */
void mcpp_share_seal(mcpp_share *s);

/* The share's copy of `str` when it has met that string before (copying it
 * in the second time), else NULL: the caller keeps its own copy. */
const char *mcpp_share_string(mcpp_share *s, const char *str);

/* The same for a container's `count` members (count > 0): the share's copy
 * of the array, its strings and everything below it, equal member by member
 * (numbers bit for bit), or NULL. Containers of more than a few hundred
 * nodes are never shared (hashing them would cost more than it saves). */
const mcpp_xnode *mcpp_share_children(mcpp_share *s, const mcpp_xnode *children, uint32_t count);

/* Packs the packed receipt `src` again into *out, its repeated parts pointing
 * into `s` (receipt/pack.c). *out is a new receipt (free both); on failure
 * *out is NULL and the error is MCPP_ENOMEM. */
int mcpp_pack_shared(mcpp_receipt **out, const mcpp_receipt *src, mcpp_share *s);

#endif /* MCPP_RECEIPT_SHARE_H */
