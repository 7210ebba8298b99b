/*
 * mcpp_receipts/accelerator.h — accelerator identity: raw names as runtimes
 * and submitters write them ("NVIDIA H100 80GB HBM3", "H100-SXM5-80GB") to one
 * canonical id with vendor, model, form factor and memory.
 *
 * The shipped table (data/accelerators.tsv, built into the library and
 * installed under share/mcpp_receipts/) is parsed once, on first use, and is
 * safe to use from any thread. A caller (a policy) may build its own table on
 * top of it and add rows; such a table is owned by its creator.
 *
 * API tier: stable, except the calls declared MCPP_EXPERIMENTAL (opt in with
 * MCPP_RECEIPTS_EXPERIMENTAL; mcpp_receipts.h, "API tiers").
 */
#ifndef MCPP_RECEIPTS_ACCELERATOR_H
#define MCPP_RECEIPTS_ACCELERATOR_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Thread safety: the shipped table is safe from any thread. A table of your own
 * may be read from several threads once its rows are added; adding must not
 * overlap with any other call on it. */
typedef struct mcpp_accel_table mcpp_accel_table;

/* What a raw name means. Strings are copied in (the view owns no memory). */
typedef struct mcpp_accelerator {
    char id[96];          /* "nvidia-h100-sxm5-80gb"; unknown names: the normalised name */
    char vendor[32];      /* "NVIDIA"; "" when unknown                                 */
    char model[48];       /* "H100"                                                     */
    char form_factor[32]; /* "SXM5", "PCIe", "cpu"                                      */
    double memory_gb;     /* 80; 0 when unknown                                        */
    char memory_type[16]; /* "HBM3"                                                     */
    int matched;          /* 1: found in the table (or the "cpu: MODEL" form); 0: fell
                             back to the normalised name (callers should warn)          */
    int model_only;       /* 1: the name names only the model ("H100"), so any form
                             factor of it satisfies a request for it                    */
} mcpp_accelerator;

/* ==== EXPERIMENTAL API: may change or go in any release (mcpp_receipts.h, "API tiers") ==== */
/* The shipped table (static; never freed). NULL only when out of memory. */
MCPP_EXPERIMENTAL const mcpp_accel_table *mcpp_accel_table_default(void);
/* A new table holding the shipped rows, to add to (caller frees). */
MCPP_EXPERIMENTAL int mcpp_accel_table_new(mcpp_accel_table **out);
MCPP_EXPERIMENTAL void mcpp_accel_table_free(mcpp_accel_table *table); /* NULL-safe */
/* Adds an accelerator (MCPP_EINVALID when the id exists). */
MCPP_EXPERIMENTAL int mcpp_accel_table_add(mcpp_accel_table *table, const char *id, const char *vendor,
                                           const char *model, const char *form_factor, double memory_gb,
                                           const char *memory_type);
/* Adds a raw name for an accelerator of the table; `model_only` as above.
 * MCPP_ENOTFOUND when no accelerator has that id. A later alias wins. */
MCPP_EXPERIMENTAL int mcpp_accel_table_add_alias(mcpp_accel_table *table, const char *raw_name, const char *id,
                                                 int model_only);
/* Adds the rows of a table in the format of data/accelerators.tsv; errors name
 * the line ("NAME:LINE: ..."). */
MCPP_EXPERIMENTAL int mcpp_accel_table_add_tsv(mcpp_accel_table *table, const char *text, size_t len, const char *name);

/*
 * Canonicalises a raw accelerator name. A name of the form "cpu: MODEL" is a
 * CPU (id "cpu:" + normalised model). Unknown names fall back to their
 * normalised form (lower case, runs of blanks, '-' and '_' as one space) with
 * matched = 0. `table` NULL means the shipped table.
 */
MCPP_EXPERIMENTAL int mcpp_accelerator_canonicalize(mcpp_accelerator *out, const mcpp_accel_table *table,
                                                    const char *raw_name);
/* ==== end of EXPERIMENTAL API ==== */

/*
 * Whether what ran (`observed`) satisfies what was asked for (`requested`):
 * the same canonical id, or, when the request names only a model, any form
 * factor of that model. `why` (may be NULL) receives one line saying which,
 * e.g. "request names only the model H100; NVIDIA H100 PCIe (nvidia-h100-
 * pcie-80gb) is one". *out is 1 or 0.
 */
MCPP_API int mcpp_accelerator_satisfies(int *out, char *why, size_t why_cap,
                                        const mcpp_accel_table *table, const char *requested,
                                        const char *observed);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_RECEIPTS_ACCELERATOR_H */
