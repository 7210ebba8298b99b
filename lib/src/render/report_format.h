/*
 * report_format.h — how the HTML report writes numbers for people: whole
 * numbers without an exponent up to 1e15, else four significant digits, and
 * a headline as "median [low, high]".
 */
#ifndef MCPP_RENDER_REPORT_FORMAT_H
#define MCPP_RENDER_REPORT_FORMAT_H

#include <stddef.h>

#include "mcpp_receipts/frontier.h"

void mcpp_report_format_number(char *buf, size_t cap, double value);
/* "median [low, high]" of a lane headline. */
void mcpp_report_format_interval(char *buf, size_t cap, const mcpp_lane_headline *headline);

#endif /* MCPP_RENDER_REPORT_FORMAT_H */
