/*
 * data_files.c — defines the compiled-in copies of data/accelerators.tsv and
 * data/families.tsv (the bytes come from the generated data_files_gen.h).
 */
#include "receipt/data_files.h"
#include "receipt/data_files_gen.h"

const char *const mcpp_data_accelerators_tsv = mcpp_data_gen_accelerators;
const size_t mcpp_data_accelerators_tsv_len = MCPP_DATA_GEN_ACCELERATORS_LEN;
const char *const mcpp_data_families_tsv = mcpp_data_gen_families;
const size_t mcpp_data_families_tsv_len = MCPP_DATA_GEN_FAMILIES_LEN;
const char *const mcpp_data_quality_metrics_tsv = mcpp_data_gen_quality_metrics;
const size_t mcpp_data_quality_metrics_tsv_len = MCPP_DATA_GEN_QUALITY_METRICS_LEN;
