/*
 * render.h — the one output-format dispatcher: every `mcpp_*_render` call
 * checks its arguments, names its three writers here, and this picks one,
 * runs it into a fresh buffer and hands the text over.
 */
#ifndef MCPP_RENDER_H
#define MCPP_RENDER_H

#include "mcpp_receipts/compare.h"
#include "util/strbuf.h"

/* Writes `object` in one format into sb. */
typedef void (*mcpp_render_fn)(mcpp_strbuf *sb, const void *object);

typedef struct mcpp_renderer {
    mcpp_render_fn text, json, markdown;
    size_t initial_size; /* first buffer size: about what a typical report takes */
} mcpp_renderer;

/* Renders `object` with the writer for `format` into a heap string *out
 * (caller frees with mcpp_free). MCPP_EARG for an unknown format,
 * MCPP_ENOMEM when out of memory; *out is NULL on failure. */
int mcpp_render(char **out, const void *object, mcpp_output_format format,
                const mcpp_renderer *renderer);

#endif /* MCPP_RENDER_H */
