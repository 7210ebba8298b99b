/*
 * render.c — picks the writer for an output format (see render.h).
 */
#include "render/render.h"
#include "util/error_internal.h"

static mcpp_render_fn writer_for(const mcpp_renderer *renderer, mcpp_output_format format)
{
    switch (format) {
    case MCPP_OUTPUT_TEXT: return renderer->text;
    case MCPP_OUTPUT_JSON: return renderer->json;
    case MCPP_OUTPUT_MARKDOWN: return renderer->markdown;
    }
    return NULL;
}

int mcpp_render(char **out, const void *object, mcpp_output_format format,
                const mcpp_renderer *renderer)
{
    MCPP_CHECK_ARG(out, "%s: NULL argument", renderer->call);
    *out = NULL; /* whatever fails below */
    MCPP_CHECK_ARG(object, "%s: NULL argument", renderer->call);
    mcpp_render_fn write = writer_for(renderer, format);
    if (!write)
        return MCPP_ERROR_ARG("unknown output format %d", (int)format);
    mcpp_strbuf sb;
    mcpp_sb_init_heap(&sb, renderer->initial_size);
    write(&sb, object);
    return mcpp_sb_finish(&sb, out);
}

int mcpp_render_stream(const void *object, mcpp_output_format format, const mcpp_renderer *renderer,
                       mcpp_write_fn write, void *ctx)
{
    MCPP_CHECK_ARG(object && write, "%s_stream: NULL argument", renderer->call);
    mcpp_render_fn writer = writer_for(renderer, format);
    if (!writer)
        return MCPP_ERROR_ARG("unknown output format %d", (int)format);
    mcpp_strbuf sb;
    if (format == MCPP_OUTPUT_MARKDOWN)
        mcpp_sb_init_heap(&sb, renderer->initial_size);
    else
        mcpp_sb_init_sink(&sb, 64 * 1024, write, ctx);
    writer(&sb, object);
    int rc = MCPP_OK;
    if (format == MCPP_OUTPUT_MARKDOWN && !sb.failed && write(ctx, sb.data, sb.len) != 0)
        sb.sink_failed = 1;
    else if (format != MCPP_OUTPUT_MARKDOWN)
        mcpp_sb_flush(&sb);
    if (sb.sink_failed)
        rc = mcpp_error_raise(MCPP_EIO, MCPP_ERROR_KIND_IO, "%s_stream: the writer refused the report's text",
                              renderer->call);
    else if (sb.failed)
        rc = mcpp_error_nomem();
    mcpp_sb_free(&sb);
    return rc;
}

int mcpp_render_item(char **out, const void *object, size_t index, size_t count, mcpp_render_item_fn write,
                     const char *what)
{
    MCPP_CHECK_ARG(out, "%s: NULL argument", what);
    *out = NULL;
    MCPP_CHECK_ARG(object && index < count, "%s: NULL report or item %zu out of range", what, index);
    mcpp_strbuf sb;
    mcpp_sb_init_heap(&sb, 2048);
    write(&sb, object, index);
    return mcpp_sb_finish(&sb, out);
}
