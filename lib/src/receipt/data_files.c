/*
 * data_files.c — defines the compiled-in copies of data/accelerators.tsv,
 * data/families.tsv and data/quality_metrics.tsv (the bytes come from the
 * generated data_files_gen.h), and reads their rows.
 */
#include <string.h>

#include "receipt/data_files.h"
#include "receipt/data_files_gen.h"

const char *const mcpp_data_accelerators_tsv = mcpp_data_gen_accelerators;
const size_t mcpp_data_accelerators_tsv_len = MCPP_DATA_GEN_ACCELERATORS_LEN;
const char *const mcpp_data_families_tsv = mcpp_data_gen_families;
const size_t mcpp_data_families_tsv_len = MCPP_DATA_GEN_FAMILIES_LEN;
const char *const mcpp_data_quality_metrics_tsv = mcpp_data_gen_quality_metrics;
const size_t mcpp_data_quality_metrics_tsv_len = MCPP_DATA_GEN_QUALITY_METRICS_LEN;

void mcpp_data_rows(const char *text, size_t len, int (*row)(char *line, void *ctx), void *ctx)
{
    char line[256];
    for (size_t at = 0; at < len;) {
        size_t end = at;
        while (end < len && text[end] != '\n')
            end++;
        size_t n = end - at < sizeof line - 1 ? end - at : sizeof line - 1;
        memcpy(line, text + at, n);
        line[n] = '\0';
        at = end + 1;
        if (line[0] && line[0] != '#' && row(line, ctx))
            return;
    }
}
