/*
 * data_files.h — the shipped data files (data/accelerators.tsv, data/families.tsv, data/quality_metrics.tsv), compiled
 * into the library by tools/embed_data.py (private).
 */
#ifndef MCPP_DATA_FILES_H
#define MCPP_DATA_FILES_H

#include <stddef.h>

extern const char *const mcpp_data_accelerators_tsv;
extern const size_t mcpp_data_accelerators_tsv_len;
extern const char *const mcpp_data_families_tsv;
extern const size_t mcpp_data_families_tsv_len;
extern const char *const mcpp_data_quality_metrics_tsv;
extern const size_t mcpp_data_quality_metrics_tsv_len;

/* Calls `row` on each line of a data file (`text`, `len` bytes) that is not empty
 * and not a '#' comment, copied NUL-terminated (cut at 255 bytes) so that `row`
 * may split it in place, until `row` returns nonzero: the one reader of the
 * registries' rows (families.c, quality_metrics.c). */
void mcpp_data_rows(const char *text, size_t len, int (*row)(char *line, void *ctx), void *ctx);

#endif /* MCPP_DATA_FILES_H */
