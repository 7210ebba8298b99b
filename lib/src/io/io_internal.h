/*
 * io_internal.h — what io/ offers the modules beside it: the YAML reader
 * (libyaml events into a cJSON tree, with a side table of line:column marks)
 * and the YAML writer. The JSON side lives in receipt/ (canonical_json.h,
 * load_ctx.h's text helpers); loading is io/load.c behind the public API.
 */
#ifndef MCPP_IO_INTERNAL_H
#define MCPP_IO_INTERNAL_H

#include <stddef.h>

#include "receipt/load_ctx.h"
#include "util/strbuf.h"

/* ---- YAML reader (yaml_read.c) ----------------------------------------------------- */

typedef struct mcpp_yaml_marks mcpp_yaml_marks;
/* Parses one YAML document into a cJSON tree with a side table of marks.
 * Refuses anchors, aliases, tags, multiple documents, non-scalar keys,
 * duplicate keys and depth/length beyond limits (added to report). */
int mcpp_yaml_read(struct cJSON **out, mcpp_yaml_marks **marks_out, const char *buf, size_t len,
                   const mcpp_limits *limits, const char *name, mcpp_report *report);
void mcpp_yaml_marks_free(mcpp_yaml_marks *marks);
/* Line/column of a node (or of its key), 0 when unknown. */
void mcpp_yaml_marks_find(const mcpp_yaml_marks *marks, const struct cJSON *node, int want_key, int *line,
                          int *column);

/* ---- YAML writer (write_yaml.c) ------------------------------------------------ */

/* The receipt as YAML, in the canonical JSON's order; `v1` as mcpp_write_json. */
int mcpp_write_yaml(mcpp_strbuf *sb, const mcpp_receipt *r, int v1);

#endif /* MCPP_IO_INTERNAL_H */
