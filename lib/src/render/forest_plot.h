/*
 * forest_plot.h — the headline forest plot of the HTML report: one row per
 * lane, its median as a dot and its interval as a bar, on one shared axis.
 */
#ifndef MCPP_RENDER_FOREST_PLOT_H
#define MCPP_RENDER_FOREST_PLOT_H

#include "mcpp_receipts/frontier.h"
#include "util/strbuf.h"

/* Appends <svg class="plot" id="forest-plot"> with a row for each lane of
 * order[0..n) that has a finite headline (lanes without one are named in a
 * line under the plot), or a paragraph saying no lane has a headline. */
void mcpp_html_forest_plot(mcpp_strbuf *sb, const mcpp_frontier *frontier, const size_t *order, size_t n);

/* A step of 1, 2 or 5 times a power of ten giving at most six intervals
 * over `range`, so that tick labels of up to seven digits never touch (the
 * axes of the forest plot and of the history plots). */
double mcpp_plot_nice_step(double range);

#endif /* MCPP_RENDER_FOREST_PLOT_H */
