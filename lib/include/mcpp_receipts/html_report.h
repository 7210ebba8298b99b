/*
 * mcpp_receipts/html_report.h — the frontier as one self-contained HTML page
 * (`mcpp-receipts report`), for reviewers who read it in a browser or attach
 * it to a CI run.
 *
 * The page holds: a summary line; the inputs that could not be read; an
 * optional gate section; a forest plot of each lane's headline median and
 * its interval as inline SVG; the lane table (stable lanes first) with
 * headline, interval, reasons, blocker and adjacent lanes; and per lane its key,
 * reasons, adjacency and receipts (id, file, outcome, stated stability, the
 * headline metric's value, caveats). It is one file: inline CSS, no
 * JavaScript, no external resource, light and dark colours
 * (prefers-color-scheme), and every string from a receipt or policy is
 * HTML-escaped. With a lane history (`report --store DB`), a history section
 * plots each lane's runs over time with its change points and the commits on
 * either side.
 *
 * API tier: stable (mcpp_receipts.h, "API tiers").
 */
#ifndef MCPP_RECEIPTS_HTML_REPORT_H
#define MCPP_RECEIPTS_HTML_REPORT_H

#include "compare.h"
#include "frontier.h"
#include "store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What goes on the page besides the frontier; start from
 * MCPP_HTML_REPORT_OPTIONS_INIT. Everything is borrowed for the call. */
#define MCPP_HTML_REPORT_OPTIONS_VERSION 2u
typedef struct mcpp_html_report_options {
    unsigned int version;                 /* MCPP_HTML_REPORT_OPTIONS_VERSION          */
    const char *title;                    /* NULL: "Receipts report"                   */
    const mcpp_receipt *const *receipts;  /* those the frontier was built from, for the
                                             per-lane receipt lists; NULL: ids only    */
    size_t n_receipts;
    const char *const *skipped;           /* inputs that could not be read (messages) */
    size_t n_skipped;
    const mcpp_gate_report *gate;         /* a gate section; NULL: none                */
    const mcpp_history *history;          /* version 2: a lane-history section (runs over
                                             time, change points); NULL: none          */
} mcpp_html_report_options;

#define MCPP_HTML_REPORT_OPTIONS_INIT {MCPP_HTML_REPORT_OPTIONS_VERSION, NULL, NULL, 0, NULL, 0, NULL, NULL}

/* Renders the page into *out (NUL-terminated; free with mcpp_free()).
 * `options` may be NULL (the defaults). MCPP_EARG for a NULL out/frontier or
 * an options struct of another version, MCPP_ENOMEM when out of memory. */
MCPP_API int mcpp_frontier_render_html(char **out, const mcpp_frontier *frontier,
                                       const mcpp_html_report_options *options);

/*
 * The history site of a store (`mcpp-receipts site`): a folder of static
 * pages that work from file:// and any static host — index.html (every lane,
 * grouped by label and told apart by what differs, with a filter box: the one
 * inline script), lanes/LANE.html (the lane's runs as an SVG plot with its
 * change points, each dot linked to its run's row: receipt id, date, commit),
 * frontier.html (the store's frontier: stable lanes and their unstable
 * neighbours) and gate.html (each lane's newest commit gated against the
 * commit before it, the lane's earlier runs as history). Every page forbids
 * itself any fetch (Content-Security-Policy) and escapes every string.
 *
 * Incremental: each page's digest is kept in DIR/site-digests.txt; a page
 * whose digest and file are unchanged is not written again, pages of lanes
 * gone from the store are removed (only pages that file lists). Pages are
 * written atomically. `options` NULL: the defaults; `out` may be NULL.
 */
#define MCPP_SITE_OPTIONS_VERSION 1u
typedef struct mcpp_site_options {
    unsigned int version;   /* MCPP_SITE_OPTIONS_VERSION                               */
    const char *title;      /* NULL: "Benchmark history"                               */
    const char *commit_url; /* each commit as a link: "{commit}" in it is replaced by the
                               commit (percent-encoded), e.g.
                               "https://github.com/ORG/REPO/commit/{commit}"; NULL: text */
} mcpp_site_options;
#define MCPP_SITE_OPTIONS_INIT                                                                                         \
    {                                                                                                                  \
        MCPP_SITE_OPTIONS_VERSION, NULL, NULL                                                                          \
    }

typedef struct mcpp_site_result {
    size_t pages;     /* pages the site has                        */
    size_t written;   /* of those, written by this call            */
    size_t unchanged; /* of those, left as they were               */
    size_t removed;   /* pages of an earlier call no longer needed */
} mcpp_site_result;

MCPP_API int mcpp_site_write(mcpp_site_result *out, mcpp_store *store, const char *dir,
                             const mcpp_site_options *options);

#ifdef __cplusplus
}
#endif

#endif /* MCPP_RECEIPTS_HTML_REPORT_H */
