/*
 * pooled_words.c — "pools N runs: ...; sets aside M: ..." (pooled_words.h).
 */
#include "render/pooled_words.h"

void mcpp_sb_json_id_list(mcpp_strbuf *b, char *const *ids, size_t n)
{
    mcpp_sb_putc(b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            mcpp_sb_puts(b, ", ");
        mcpp_sb_json_string(b, ids[i]);
    }
    mcpp_sb_putc(b, ']');
}

void mcpp_sb_pooled_aside_json(mcpp_strbuf *b, const mcpp_pooled_words *w)
{
    mcpp_sb_putc(b, '[');
    for (size_t i = 0; i < w->aside_listed; i++) {
        mcpp_sb_puts(b, i ? ", {\"id\": " : "{\"id\": ");
        mcpp_sb_json_string(b, w->aside_id(w->ctx, i));
        if (w->aside_path) {
            mcpp_sb_json_key_string(b, ", \"path\": ", w->aside_path(w->ctx, i));
        }
        mcpp_sb_json_key_string(b, ", \"reason\": ", w->aside_reason ? w->aside_reason(w->ctx, i) : NULL);
        mcpp_sb_putc(b, '}');
    }
    mcpp_sb_putc(b, ']');
}

void mcpp_sb_pooled_words(mcpp_strbuf *b, const mcpp_pooled_words *w, void (*escape)(mcpp_strbuf *, const char *),
                          size_t shown)
{
    mcpp_sb_printf(b, "pools %zu run%s", w->n_pooled, w->n_pooled == 1 ? "" : "s");
    size_t named = 0;
    for (; named < w->pooled_listed && named < shown; named++) {
        mcpp_sb_puts(b, named ? ", " : ": ");
        escape(b, w->pooled_id(w->ctx, named));
    }
    if (w->n_pooled > named && named)
        mcpp_sb_printf(b, ", and %zu more", w->n_pooled - named);
    mcpp_sb_printf(b, "; sets aside %zu", w->n_aside);
    named = 0;
    for (; named < w->aside_listed && named < shown; named++) {
        mcpp_sb_puts(b, named ? "; " : ": ");
        escape(b, w->aside_id(w->ctx, named));
        const char *why = w->aside_reason ? w->aside_reason(w->ctx, named) : NULL;
        if (why && *why) {
            mcpp_sb_puts(b, " (");
            escape(b, why);
            mcpp_sb_putc(b, ')');
        }
    }
    if (w->n_aside > named && named)
        mcpp_sb_printf(b, "; and %zu more", w->n_aside - named);
}
