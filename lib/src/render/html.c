/*
 * html.c — HTML escaping and the one page frame (see html.h). The style sheet
 * sets every text colour explicitly, for both colour schemes, so the page
 * never depends on a browser default that could be unreadable on its
 * background.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "render/html.h"
#include "util/utf8.h"

void mcpp_sb_html(mcpp_strbuf *sb, const char *s)
{
    if (!s)
        return;
    const char *run = s;
    for (const char *c = s; *c; c++) {
        unsigned char u = (unsigned char)*c;
        const char *entity = NULL;
        char shown[8];
        size_t width = 1;
        switch (*c) {
        case '&': entity = "&amp;"; break;
        case '<': entity = "&lt;"; break;
        case '>': entity = "&gt;"; break;
        case '"': entity = "&quot;"; break;
        case '\'': entity = "&#39;"; break;
        default:
            /* control characters (C0 but tab and newline, DEL, C1) are shown
             * as text, as the terminal escaper shows them: never passed raw */
            if ((u < 0x20 && u != '\t' && u != '\n') || u == 0x7F) {
                snprintf(shown, sizeof shown, "\\x%02X", u);
            } else if (u < 0x80) {
                continue;
            } else {
                /* beyond ASCII: C1 controls and the noncharacters XML 1.0
                 * forbids (U+FFFE, U+FFFF) shown as \uXXXX, a byte that
                 * starts no UTF-8 character as \xNN (the JUnit report is
                 * XML: any of them makes the document not well formed) */
                uint32_t cp = 0;
                size_t n = mcpp_utf8_decode((const unsigned char *)c, &cp);
                if (n == 0) {
                    snprintf(shown, sizeof shown, "\\x%02X", u);
                } else if ((cp >= 0x80 && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF) {
                    snprintf(shown, sizeof shown, "\\u%04X", (unsigned)cp);
                    width = n;
                } else {
                    c += n - 1;
                    continue;
                }
            }
            entity = shown;
        }
        mcpp_sb_put(sb, run, (size_t)(c - run));
        mcpp_sb_puts(sb, entity);
        c += width - 1;
        run = c + 1;
    }
    mcpp_sb_puts(sb, run);
}

void mcpp_sb_html_cut(mcpp_strbuf *sb, const char *s, size_t max_chars)
{
    if (!s)
        return;
    size_t chars = 0, end = 0;
    for (; s[end]; end++) {
        if (((unsigned char)s[end] & 0xC0) == 0x80)
            continue; /* a continuation byte belongs to the character before */
        if (chars == max_chars)
            break;
        chars++;
    }
    if (!s[end]) {
        mcpp_sb_html(sb, s);
        return;
    }
    mcpp_strbuf head;
    mcpp_sb_init_heap(&head, end + 1);
    mcpp_sb_put(&head, s, end);
    if (head.failed)
        sb->failed = 1;
    else
        mcpp_sb_html(sb, head.data);
    mcpp_sb_free(&head);
    mcpp_sb_puts(sb, "\xE2\x80\xA6");
}

static const char STYLE[] =
    ":root{color-scheme:light dark;--bg:#ffffff;--fg:#1b1f24;--muted:#57606a;--line:#d0d7de;"
    "--band:#f3f5f7;--stable:#1a7f37;--unstable:#b54708;--accent:#0b5cad;--code:#eef1f4}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#0f1318;--fg:#e6edf3;--muted:#9aa6b2;"
    "--line:#3a434d;--band:#171d24;--stable:#4ac26b;--unstable:#f0883e;--accent:#6cb6ff;--code:#1f262e}}\n"
    "html,body{background:var(--bg);color:var(--fg)}\n"
    "body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1280px;"
    "padding:16px 20px 40px}\n"
    "h1,h2,h3,p,li,td,th,summary,figcaption{color:var(--fg)}\n"
    "h1{font-size:1.5em;margin:0 0 4px}h2{font-size:1.2em;margin:28px 0 8px;border-bottom:1px solid var(--line)}\n"
    "h3{font-size:1.05em;margin:0}\n"
    "a{color:var(--accent)}code{background:var(--code);color:var(--fg);padding:0 3px;border-radius:3px;"
    "font-size:.92em;overflow-wrap:anywhere}\n"
    ".muted,.muted td{color:var(--muted)}\n"
    ".scroll{overflow-x:auto;max-width:100%}\n"
    ".scroll>table{min-width:1080px}\n" /* narrow screens scroll a table rather than crush it */
    "table{border-collapse:collapse;width:100%;margin:6px 0}\n"
    "th,td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}\n"
    "th{color:var(--muted);font-weight:600;white-space:nowrap}\n"
    "tbody tr:nth-child(even){background:var(--band)}\n"
    "td.num{font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    ".badge{display:inline-block;border:1px solid currentColor;border-radius:9px;padding:0 7px;"
    "font-size:.85em;font-weight:600;white-space:nowrap}\n"
    ".stable{color:var(--stable)}.unstable{color:var(--unstable)}\n"
    ".error{color:var(--unstable);font-weight:600}\n"
    "ul{margin:2px 0;padding-left:20px}\n"
    "details.lane{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:6px 10px}\n"
    "details.lane>summary{cursor:pointer}\n"
    "svg.plot{display:block;min-width:640px;width:100%;height:auto}\n"
    "svg.plot text{fill:var(--fg);font:12px system-ui,sans-serif}\n"
    "svg.plot .axis{fill:var(--muted)}\n"
    "svg.plot .grid{stroke:var(--line);stroke-width:1}\n"
    "svg.plot .band{fill:var(--band)}\n"
    "svg.plot g.stable line.ci{stroke:var(--stable)}svg.plot g.unstable line.ci{stroke:var(--unstable)}\n"
    "svg.plot g.stable circle{fill:var(--stable)}svg.plot g.unstable circle{fill:var(--bg);"
    "stroke:var(--unstable);stroke-width:2}\n"
    "svg.plot line.ci{stroke-width:3;stroke-linecap:round}\n"
    "svg.plot polyline.hline{fill:none;stroke:var(--accent);stroke-width:1.5}\n"
    "svg.plot circle.run{fill:var(--accent)}\n"
    "svg.plot line.seg{stroke:var(--muted);stroke-width:1.5;stroke-dasharray:5 4}\n"
    "svg.plot line.change{stroke:var(--unstable);stroke-width:2}svg.plot text.change{fill:var(--unstable);"
    "font-weight:600}\n"
    ".history-lane{margin:12px 0 20px}\n"
    "nav.site{margin:0 0 10px}nav.site a{margin-right:14px}\n" /* the history site's pages */
    "input.search{font:inherit;color:var(--fg);background:var(--bg);border:1px solid var(--line);"
    "border-radius:4px;padding:4px 8px;width:min(36em,100%)}\n"
    "tr.change-start td{border-top:2px solid var(--unstable)}\n";

const char *mcpp_html_sealed_policy_meta(int inline_script)
{
    return inline_script ? "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                           "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
                         : "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                           "style-src 'unsafe-inline'\">\n";
}

static void page_begin(mcpp_strbuf *sb, const char *title, const char *head_extra)
{
    mcpp_sb_puts(sb, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    mcpp_sb_puts(sb, head_extra);
    mcpp_sb_puts(sb, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                     "<meta name=\"color-scheme\" content=\"light dark\">\n<title>");
    mcpp_sb_html(sb, title);
    mcpp_sb_puts(sb, "</title>\n<style>\n");
    mcpp_sb_puts(sb, STYLE);
    mcpp_sb_puts(sb, "</style>\n</head>\n<body>\n");
}

void mcpp_html_page_begin(mcpp_strbuf *sb, const char *title) { page_begin(sb, title, ""); }

void mcpp_html_page_begin_sealed(mcpp_strbuf *sb, const char *title, int inline_script)
{
    page_begin(sb, title, mcpp_html_sealed_policy_meta(inline_script));
}

void mcpp_html_page_end(mcpp_strbuf *sb)
{
    mcpp_sb_puts(sb, "</body>\n</html>\n");
}
