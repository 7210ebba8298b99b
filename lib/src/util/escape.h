/*
 * escape.h — the one escaper per output kind for strings that come from a
 * receipt, a policy or a Lua error (ids, values, names, reasons): whatever
 * they hold, they land in the output as inert text. JSON string literals are
 * mcpp_sb_json_string (util/strbuf.h); YAML strings are quoted by
 * io/write_yaml.c. The rules are in docs/output-safety.md.
 */
#ifndef MCPP_UTIL_ESCAPE_H
#define MCPP_UTIL_ESCAPE_H

#include "util/strbuf.h"

/* Terminal text on one line: every control character (newline and tab too),
 * DEL and a byte that is not UTF-8 is shown as \xNN; the C1 controls
 * (U+0080..U+009F) and the bidirectional overrides (U+202A..U+202E,
 * U+2066..U+2069) as \uXXXX. Other UTF-8 passes as is. NULL appends nothing. */
void mcpp_sb_terminal(mcpp_strbuf *sb, const char *s);

/* The same, but '\n' passes through: a multi-line message or value. */
void mcpp_sb_terminal_lines(mcpp_strbuf *sb, const char *s);

/* Markdown inline text, safe in a table cell: the terminal escaping, with
 * newlines as spaces; `\` `` ` `` `*` `[` `]` `|` `~` (and `_` where it could
 * start or end emphasis) backslash-escaped; `<` `>` `&` as entities; a
 * leading block marker ("#", "-", "1.", ...) escaped. So no HTML, link,
 * image, code span, table cell, heading or list can be opened by the text. */
void mcpp_sb_markdown(mcpp_strbuf *sb, const char *s);

/* Escapes `s` with mcpp_sb_terminal into `scratch` (emptied first) and
 * returns the text, for code that measures the escaped text (column widths)
 * before placing it. When out of memory it returns "" and latches the failure
 * into `into`, the buffer the text was meant for. */
const char *mcpp_terminal_scratch(mcpp_strbuf *scratch, const char *s, mcpp_strbuf *into);

/* Wraps what `sb` holds (terminal-escaped text) in a markdown ```text block
 * whose fence is longer than any run of backticks in it, so that no line of
 * the text can close the block early. MCPP_OK or MCPP_ENOMEM. */
int mcpp_sb_fence_text(mcpp_strbuf *sb);

#endif /* MCPP_UTIL_ESCAPE_H */
