/*
 * html.h — the pieces every HTML output of the library shares: text escaped
 * for HTML (elements and quoted attributes alike) and one self-contained page
 * (inline CSS, light and dark colours, no scripts, no external resources).
 */
#ifndef MCPP_RENDER_HTML_H
#define MCPP_RENDER_HTML_H

#include "util/strbuf.h"

/* Appends `s` with & < > " ' escaped, so it is safe as element text and as a
 * quoted attribute value; control characters (C0 but tab and newline, DEL, C1)
 * are shown as "\xNN" / "\uNNNN" text; other bytes (UTF-8) are copied. NULL
 * appends nothing. */
void mcpp_sb_html(mcpp_strbuf *sb, const char *s);

/* Appends at most `max_chars` characters (code points) of `s`, escaped, with
 * "…" when it was cut; UTF-8 sequences are never split. */
void mcpp_sb_html_cut(mcpp_strbuf *sb, const char *s, size_t max_chars);

/* The page up to and including <body> (title escaped), and its end. */
void mcpp_html_page_begin(mcpp_strbuf *sb, const char *title);
void mcpp_html_page_end(mcpp_strbuf *sb);

/* As mcpp_html_page_begin, with a Content-Security-Policy that lets the page
 * load nothing (no network, no file): inline style only, and an inline
 * script when `inline_script` is set. The history site's pages use it, so a
 * browser refuses (and logs) any fetch one of them would make. */
void mcpp_html_page_begin_sealed(mcpp_strbuf *sb, const char *title, int inline_script);

/* The policy mcpp_html_page_begin_sealed puts in the page (for pages another
 * renderer made: insert it into their <head>). */
const char *mcpp_html_sealed_policy_meta(int inline_script);

#endif /* MCPP_RENDER_HTML_H */
