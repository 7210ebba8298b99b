/*
 * io_internal.h — what io/ offers the modules beside it: the YAML reader
 * (libyaml events into a cJSON tree, with a side table of line:column marks)
 * the YAML writer, and the batch of atomic file writes that import/ uses to
 * write a directory of receipts with one sync. The JSON side lives in receipt/ (canonical_json.h,
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

/* ---- atomic, durable writes of many files (write_batch.c) ------------------------ */

/* Files written to temporary siblings as they come and put in place together:
 * commit syncs them all at once (one syncfs per filesystem on Linux), renames
 * each over its target and syncs each directory. A crash leaves every target
 * as it was or whole; until commit no target is touched. A target keeps its
 * permission bits; a symbolic link is written through. */
typedef struct mcpp_write_batch mcpp_write_batch;
int mcpp_write_batch_new(mcpp_write_batch **out);
/* Writes `text` to a temporary sibling of `path` (not yet synced nor in place). */
int mcpp_write_batch_add(mcpp_write_batch *b, const char *path, const char *text, size_t len);
/* The same with the text handed over piece by piece by `produce` (see
 * mcpp_text_write_file_from). */
int mcpp_write_batch_add_from(mcpp_write_batch *b, const char *path, mcpp_produce_fn produce, void *ctx);
/* Syncs, renames, syncs the directories. On failure the temporaries not yet
 * renamed are removed (the targets renamed before the failure stay, whole). */
int mcpp_write_batch_commit(mcpp_write_batch *b);
/* Frees the batch, removing the temporaries of files not committed. */
void mcpp_write_batch_free(mcpp_write_batch *b);

#endif /* MCPP_IO_INTERNAL_H */
