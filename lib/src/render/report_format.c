/*
 * report_format.c — numbers for people in the HTML report (report_format.h).
 */
#include <math.h>
#include <stdio.h>

#include "render/report_format.h"

void mcpp_report_format_number(char *buf, size_t cap, double value)
{
    if (!isfinite(value))
        snprintf(buf, cap, "%s", isnan(value) ? "n/a" : value > 0 ? "inf" : "-inf");
    else if (fabs(value) >= 1e4 && fabs(value) < 1e15)
        snprintf(buf, cap, "%.0f", value);
    else
        snprintf(buf, cap, "%.4g", value);
}

void mcpp_report_format_interval(char *buf, size_t cap, const mcpp_lane_headline *h)
{
    char median[48], low[48], high[48];
    mcpp_report_format_number(median, sizeof median, h->median);
    mcpp_report_format_number(low, sizeof low, h->interval_low);
    mcpp_report_format_number(high, sizeof high, h->interval_high);
    snprintf(buf, cap, "%s [%s, %s]", median, low, high);
}
