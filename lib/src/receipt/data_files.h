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

#endif /* MCPP_DATA_FILES_H */
