/*
 * escape.c — the escapers for terminal text and markdown (see escape.h) and
 * mcpp_output_escape, which picks the escaper for an output format.
 */
#include <string.h>

#include "util/error_internal.h"
#include "util/escape.h"
#include "util/utf8.h"

/* Code points a terminal or a bidi-aware viewer acts on: the C1 controls
 * (U+009B alone starts a CSI sequence) and the bidirectional embeddings,
 * overrides and isolates, which reorder what is shown. */
static int is_hidden_control(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/* Appends the character at *p made inert for a terminal and returns its
 * length in bytes; keep_newline lets '\n' through. */
static size_t put_terminal_char(mcpp_strbuf *sb, const unsigned char *p, int keep_newline)
{
    uint32_t cp = 0;
    size_t n = mcpp_utf8_decode(p, &cp);
    if (n == 0) {
        mcpp_sb_printf(sb, "\\x%02X", *p);
        return 1;
    }
    if (cp < 0x20 || cp == 0x7F) {
        if (cp == '\n' && keep_newline)
            mcpp_sb_putc(sb, '\n');
        else
            mcpp_sb_printf(sb, "\\x%02X", (unsigned)cp);
    } else if (is_hidden_control(cp)) {
        mcpp_sb_printf(sb, "\\u%04X", (unsigned)cp);
    } else {
        mcpp_sb_put(sb, (const char *)p, n);
    }
    return n;
}

static void put_terminal(mcpp_strbuf *sb, const char *s, int keep_newlines)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    while (*p) {
        const unsigned char *run = p;
        while (*p >= 0x20 && *p < 0x7F) /* printable ASCII: copied in one piece */
            p++;
        mcpp_sb_put(sb, (const char *)run, (size_t)(p - run));
        if (*p)
            p += put_terminal_char(sb, p, keep_newlines);
    }
}

void mcpp_sb_terminal(mcpp_strbuf *sb, const char *s) { put_terminal(sb, s, 0); }

void mcpp_sb_terminal_lines(mcpp_strbuf *sb, const char *s) { put_terminal(sb, s, 1); }

const char *mcpp_terminal_scratch(mcpp_strbuf *scratch, const char *s, mcpp_strbuf *into)
{
    scratch->len = 0;
    if (scratch->data && scratch->cap)
        scratch->data[0] = '\0';
    mcpp_sb_terminal(scratch, s);
    if (scratch->failed) {
        into->failed = 1;
        return "";
    }
    return scratch->data ? scratch->data : ""; /* nothing appended yet */
}

static int is_alnum(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Appends the markdown form of the ASCII byte s[i] and returns 1, or returns 0
 * when the byte needs the terminal treatment (controls, non-ASCII). */
static int put_markdown_ascii(mcpp_strbuf *sb, const unsigned char *s, size_t i)
{
    unsigned char c = s[i];
    if (c == '\n' || c == '\r') {
        mcpp_sb_putc(sb, ' '); /* a line break would end the table row or paragraph */
        return 1;
    }
    if (c < 0x20 || c >= 0x7F)
        return 0;
    switch (c) {
    case '<': mcpp_sb_puts(sb, "&lt;"); return 1;
    case '>': mcpp_sb_puts(sb, "&gt;"); return 1;
    case '&': mcpp_sb_puts(sb, "&amp;"); return 1;
    case '_': /* inside a word an underscore cannot open or close emphasis */
        if (i > 0 && is_alnum(s[i - 1]) && is_alnum(s[i + 1]))
            break;
        /* fall through */
    case '\\': case '`': case '*': case '[': case ']': case '|': case '~':
        mcpp_sb_putc(sb, '\\');
        break;
    }
    mcpp_sb_putc(sb, (char)c);
    return 1;
}

/* Length of what would make the text a block (heading, list item, setext
 * underline) when it starts a line: "#", "-", "+", "=", or digits then "."
 * or ")". The last character of it is then escaped. (">" needs nothing: it
 * is written as an entity, which opens no quote.) */
static size_t block_marker_len(const unsigned char *p)
{
    if (*p && strchr("#-+=", *p))
        return 1;
    size_t n = 0;
    while (p[n] >= '0' && p[n] <= '9')
        n++;
    return n && (p[n] == '.' || p[n] == ')') ? n + 1 : 0;
}

void mcpp_sb_markdown(mcpp_strbuf *sb, const char *s)
{
    const unsigned char *p = (const unsigned char *)(s ? s : "");
    size_t marker = block_marker_len(p);
    if (marker) { /* the text may start a line: it must not open a block */
        mcpp_sb_put(sb, (const char *)p, marker - 1);
        mcpp_sb_putc(sb, '\\');
        p += marker - 1;
    }
    for (size_t i = 0; p[i];) {
        if (put_markdown_ascii(sb, p, i))
            i++;
        else
            i += put_terminal_char(sb, p + i, 0);
    }
}

static size_t longest_backtick_run(const char *s)
{
    size_t best = 0, run = 0;
    for (; s && *s; s++) {
        run = *s == '`' ? run + 1 : 0;
        if (run > best)
            best = run;
    }
    return best;
}

int mcpp_sb_fence_text(mcpp_strbuf *sb)
{
    size_t n = longest_backtick_run(sb->data);
    n = n < 3 ? 3 : n + 1;
    mcpp_strbuf fenced;
    mcpp_sb_init(&fenced, NULL, 0);
    for (size_t i = 0; i < n; i++)
        mcpp_sb_putc(&fenced, '`');
    mcpp_sb_puts(&fenced, "text\n");
    mcpp_sb_put(&fenced, sb->data ? sb->data : "", sb->len);
    for (size_t i = 0; i < n; i++)
        mcpp_sb_putc(&fenced, '`');
    mcpp_sb_putc(&fenced, '\n');
    if (sb->failed)
        fenced.failed = 1;
    mcpp_sb_free(sb);
    *sb = fenced;
    return fenced.failed ? mcpp_error_nomem() : MCPP_OK;
}

int mcpp_output_escape(char **out, const char *text, mcpp_output_format format)
{
    MCPP_CHECK_ARG(out, "mcpp_output_escape: NULL out");
    *out = NULL;
    MCPP_CHECK_ARG(text, "mcpp_output_escape: NULL text");
    mcpp_strbuf sb;
    mcpp_sb_init_heap(&sb, strlen(text) + 16);
    switch (format) {
    case MCPP_OUTPUT_TEXT: mcpp_sb_terminal(&sb, text); break;
    case MCPP_OUTPUT_JSON: mcpp_sb_json_string(&sb, text); break;
    case MCPP_OUTPUT_MARKDOWN: mcpp_sb_markdown(&sb, text); break;
    default:
        mcpp_sb_free(&sb);
        return MCPP_ERROR_ARG("mcpp_output_escape: unknown output format %d", (int)format);
    }
    return mcpp_sb_finish(&sb, out);
}
