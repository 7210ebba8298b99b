/*
 * mlperf_internal.h — the MLPerf Training importer's parts: the mllog reader
 * (mlperf_log.c), the system description (mlperf_system.c) and the mapping
 * onto a receipt (mlperf_import.c).
 */
#ifndef MCPP_MLPERF_INTERNAL_H
#define MCPP_MLPERF_INTERNAL_H

#include "import/import_internal.h"

/* What one result log says, gathered in one pass over its lines. */
typedef struct mcpp_mllog {
    const char *path;
    char *text;
    size_t len;
    int lines;
    cJSON *hyperparameters; /* events before run_start: {key: value}              */
    cJSON *submission;      /* submission_* events: {benchmark, org, division...} */
    cJSON *eval;            /* eval_* results after run_start: [{key, value, epoch_num}] */
    cJSON *other_events;    /* other events after run_start: {key: count}         */
    cJSON *run_stop_meta;   /* run_stop's metadata without file/lineno             */
    int has_run_start, has_run_stop, has_seed;
    int64_t run_start_ms, run_stop_ms, seed;
    int run_start_line, run_stop_line;
    char quality_key[64]; /* the last eval_* result: quality.metric / achieved */
    double quality_value;
    int quality_line;
    double *throughput; /* tracked_stats throughput, one per block */
    size_t n_throughput, cap_throughput;
    const char *sysjson; /* an inline :::SYSJSON description (points into text) */
    size_t sysjson_len;
    int sysjson_line, sysjson_col;
} mcpp_mllog;

int mcpp_mllog_read(mcpp_mllog *log, const char *path);
void mcpp_mllog_free(mcpp_mllog *log);
/* Parses one event: the JSON after ":::MLLOG" at `line`, column `col` of
 * `path` (Training's and Inference's logs alike). A syntax error on the
 * last line when the file ends without a newline says the log is truncated. */
int mcpp_mllog_parse_event(cJSON **out, const char *path, const char *json, size_t len, int line, int col,
                           int last_unterminated);

/* Where a result file sits in the submission layout
 * ROOT/<submitter>/results/<system>/<benchmark>/result_N.txt. */
typedef struct mcpp_mlperf_layout {
    int standard;             /* 1 when the path has that shape              */
    char submitter[256];      /* directory names                              */
    char system[256];
    char benchmark[256];
    char system_file[4096];   /* ROOT/<submitter>/systems/<system>.json        */
    char relative[1024];      /* <submitter>/results/<system>/<benchmark>/result_N.txt */
    char suite_version[32];   /* from ROOT's name ending in vX.Y, else ""     */
    int64_t index;            /* N, -1 when the name is not result_N.txt      */
    int64_t runs;             /* result_*.txt files beside it                 */
} mcpp_mlperf_layout;

void mcpp_mlperf_layout_of(mcpp_mlperf_layout *out, const char *path);

/* Fills hardware, topology, software and benchmark.submitter from the system
 * description (unmapped keys into *extra); `division_from_log` wins over the
 * file's division when both exist. */
int mcpp_mlperf_map_system(mcpp_builder *b, cJSON *extra, const mcpp_import_json *sys,
                           int division_from_log);

#endif /* MCPP_MLPERF_INTERNAL_H */
