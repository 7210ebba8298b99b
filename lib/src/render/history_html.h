/*
 * history_html.h — the lane-history section of the HTML report: per lane its
 * runs over time as an inline SVG plot with the segment medians and the change
 * points marked, and a table of the commits on either side of each change.
 */
#ifndef MCPP_RENDER_HISTORY_HTML_H
#define MCPP_RENDER_HISTORY_HTML_H

#include "mcpp_receipts/store.h"
#include "util/strbuf.h"

/* Appends <section id="history"> for every lane of `history` (the first
 * HISTORY_LANES_SHOWN, then a line naming how many more). Every string from a
 * receipt is HTML-escaped; no script. */
void mcpp_history_html_section(mcpp_strbuf *sb, const mcpp_history *history);

/* One lane's plot and change table as in that section; with `link_runs` each
 * dot links to "#run-N", the row of run N on the page (the history site's
 * lane pages). */
void mcpp_history_html_lane(mcpp_strbuf *sb, const mcpp_history *history, size_t lane, int link_runs);

#endif /* MCPP_RENDER_HISTORY_HTML_H */
