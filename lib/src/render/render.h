/*
 * render.h — the one output-format dispatcher: every `mcpp_*_render` call
 * names its three writers here, and this checks the call's arguments, picks
 * one, runs it into a fresh buffer and hands the text over.
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
    const char *call;    /* the public call, named in the error for a NULL argument */
} mcpp_renderer;

/* Renders `object` with the writer for `format` into a heap string *out
 * (caller frees with mcpp_free). MCPP_EARG for a NULL `out` or `object`
 * ("CALL: NULL argument") or an unknown format, MCPP_ENOMEM when out of
 * memory; *out is NULL on failure. */
int mcpp_render(char **out, const void *object, mcpp_output_format format,
                const mcpp_renderer *renderer);

/* Renders `object` as mcpp_render does, handing the text to `write` in
 * pieces as it is written (64 KiB at most are held) instead of returning it:
 * the TEXT and JSON writers only append. MARKDOWN writers may cut what they
 * wrote (to keep under a comment's size), so that text is made whole first.
 * MCPP_EIO when `write` refuses a piece, MCPP_EARG and MCPP_ENOMEM as for
 * mcpp_render. */
int mcpp_render_stream(const void *object, mcpp_output_format format, const mcpp_renderer *renderer,
                       mcpp_write_fn write, void *ctx);

/* Writes item `index` of `object` (a frontier's lane, a gate's candidate) into sb. */
typedef void (*mcpp_render_item_fn)(mcpp_strbuf *sb, const void *object, size_t index);

/* Renders item `index` of `object`, of which there are `count`, with `write`
 * into a heap string *out (caller frees with mcpp_free); `what` names the
 * caller in the error. MCPP_EARG for a NULL argument or an index out of
 * range, MCPP_ENOMEM; *out is NULL on failure. */
int mcpp_render_item(char **out, const void *object, size_t index, size_t count, mcpp_render_item_fn write,
                     const char *what);

#endif /* MCPP_RENDER_H */
