/*
 * site.h — the static history site (mcpp_site_write, html_report.h): what its
 * pages are rendered from, shared by the files that render them (site_pages.c:
 * the index and one page per lane; site_gate.c: the latest gate; site.c:
 * the frontier page, the digests and the writing).
 */
#ifndef MCPP_RENDER_SITE_H
#define MCPP_RENDER_SITE_H

#include <stdint.h>

#include "mcpp_receipts/html_report.h"
#include "store/history_internal.h"
#include "util/strbuf.h"

/* Lane pages live in this folder of the site, named after the short key. */
#define SITE_LANE_DIR "lanes"

typedef struct site_lane {
    const history_lane *history;
    size_t frontier_index; /* its lane in the frontier; SIZE_MAX when the frontier lacks it */
    char page[64];         /* "lanes/lane-0123456789ab.html" (a suffix when two short keys meet) */
} site_lane;

typedef struct site_model {
    const mcpp_site_options *options;
    const mcpp_history *history;
    const mcpp_frontier *frontier;
    site_lane *lanes; /* in the history's order */
    size_t n_lanes;
    size_t gated_lanes; /* lanes the latest gate compared (site_gate.c) */
} site_model;

/* The page frame every site page shares: a sealed head (html.h), the title and
 * the links between the pages; `up` is "" for pages at the top, "../" for
 * lane pages. */
void mcpp_site_page_begin(mcpp_strbuf *sb, const site_model *m, const char *title, const char *up, int inline_script);

/* A commit as text, or as a link when the options give a commit URL. */
void mcpp_site_commit(mcpp_strbuf *sb, const site_model *m, const char *commit);

/* site_pages.c */
void mcpp_site_index_page(mcpp_strbuf *sb, const site_model *m);
void mcpp_site_lane_page(mcpp_strbuf *sb, const site_model *m, size_t lane);

/* site_gate.c: the page of the latest gate: each lane's newest commit (its
 * runs) against the commit before it in that lane, with the lane's earlier
 * runs as history. Reads those receipts from the store. */
int mcpp_site_gate_page(char **out, site_model *m, mcpp_store *store);

/* site_gate.c: a digest of what the gate page is made from (the receipts it
 * reads, in their roles, the store's name and the library version): equal
 * digests, equal pages. */
uint64_t mcpp_site_gate_inputs(const site_model *m, const mcpp_store *store);

#endif /* MCPP_RENDER_SITE_H */
