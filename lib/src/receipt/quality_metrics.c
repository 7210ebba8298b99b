/*
 * quality_metrics.c — the quality metric registry: data/quality_metrics.tsv
 * (compiled in), parsed once under pthread_once.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "receipt/data_files.h"
#include "receipt/field_ids.h"
#include "receipt/fields.h"
#include "receipt/quality_metrics.h"

enum { MAX_METRICS = 256, NAME = 48 };

typedef struct quality_row {
    char name[NAME], benchmark[NAME]; /* benchmark "" for the general row */
    mcpp_direction direction;
} quality_row;

static quality_row registry[MAX_METRICS];
static size_t registry_count;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

/* One row: "metric" NAME DIRECTION [BENCHMARK], tab-separated; 0 when well formed. */
static int parse_row(quality_row *q, char *line)
{
    char *cols[4] = {NULL, NULL, NULL, NULL};
    int n = 0;
    for (char *p = line; p && n < 4; n++) {
        cols[n] = p;
        char *tab = strchr(p, '\t');
        if (tab)
            *tab = '\0';
        p = tab ? tab + 1 : NULL;
    }
    if (n < 3 || strcmp(cols[0], "metric") != 0 || strlen(cols[1]) >= NAME || (cols[3] && strlen(cols[3]) >= NAME))
        return -1;
    if (strcmp(cols[2], "lower") == 0)
        q->direction = MCPP_DIRECTION_LOWER;
    else if (strcmp(cols[2], "higher") == 0)
        q->direction = MCPP_DIRECTION_HIGHER;
    else
        return -1;
    snprintf(q->name, NAME, "%s", cols[1]);
    snprintf(q->benchmark, NAME, "%s", cols[3] ? cols[3] : "");
    return 0;
}

/* One row into the registry; stops the reading when it is full. */
static int add_row(char *line, void *unused)
{
    (void)unused;
    if (parse_row(&registry[registry_count], line) == 0)
        registry_count++;
    return registry_count == MAX_METRICS;
}

static void load_registry(void)
{
    mcpp_data_rows(mcpp_data_quality_metrics_tsv, mcpp_data_quality_metrics_tsv_len, add_row, NULL);
}

int mcpp_quality_direction(mcpp_direction *out, const char *metric, const char *benchmark)
{
    if (!metric)
        return 0;
    pthread_once(&registry_once, load_registry);
    const quality_row *general = NULL;
    for (size_t i = 0; i < registry_count; i++) {
        const quality_row *q = &registry[i];
        if (strcasecmp(q->name, metric) != 0)
            continue;
        if (!q->benchmark[0])
            general = q;
        else if (benchmark && strcmp(q->benchmark, benchmark) == 0) {
            *out = q->direction;
            return 1;
        }
    }
    if (general)
        *out = general->direction;
    return general != NULL;
}

int mcpp_quality_direction_of(mcpp_direction *out, const mcpp_receipt *r)
{
    return mcpp_quality_direction(out, mcpp_field_string(r, MCPP_F_quality_metric),
                                  mcpp_field_string(r, MCPP_F_benchmark_name));
}
