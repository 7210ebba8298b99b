/*
 * window_check.c — the measured window's capture (issue 47 item 11):
 * metrics.window.profiled_steps (measured steps under a profiler capture) are
 * at most the measured steps; metrics.window.began and .ended are RFC 3339
 * times, the window ends no
 * earlier than it began, lasts at least as long as the measured steps it
 * holds, and ends before the run finished (created_at). A window shorter
 * than its own steps, or one that ends after the run, is a receipt that
 * contradicts itself: a warning, as the per-family timings against the step.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "receipt/layout.h"
#include "receipt/load_ctx.h"
#include "receipt/schema.h"
#include "util/rfc3339.h"

#define P(name) mcpp_present(r, MCPP_F_##name)

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian; Howard Hinnant's days_from_civil). */
static long days_from_civil(long y, unsigned m, unsigned d)
{
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (long)doe - 719468;
}

/* Seconds since 1970 in UTC of an RFC 3339 time (checked with mcpp_is_rfc3339 first);
 * *digits: the digits of its fraction of a second (its resolution). */
static double rfc3339_seconds(const char *s, int *digits)
{
    int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
    sscanf(s, "%4d-%2d-%2d%*c%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &sec);
    double t = (double)days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
    const char *p = s + 19;
    *digits = 0;
    if (*p == '.') {
        double scale = 0.1;
        for (p++; *p >= '0' && *p <= '9'; p++, scale /= 10, ++*digits)
            t += (*p - '0') * scale;
    }
    if (*p == '+' || *p == '-') {
        int oh = (p[1] - '0') * 10 + (p[2] - '0'), om = (p[4] - '0') * 10 + (p[5] - '0');
        t -= (*p == '+' ? 1 : -1) * (oh * 3600.0 + om * 60.0);
    }
    return t;
}

static int time_ok(mcpp_load_ctx *ctx, int id, const char *s)
{
    if (mcpp_is_rfc3339(s))
        return 1;
    mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "type", mcpp_schema_entries[id].info.path, 0,
                     "expected an RFC 3339 time such as \"2026-11-22T01:02:03.250Z\", got \"%s\"", s);
    return 0;
}

void mcpp_validate_window(mcpp_load_ctx *ctx, const mcpp_receipt *r)
{
    const mcpp_fields *f = &r->f;
    if (P(metrics_window_profiled_steps) && P(metrics_window_measured_steps) &&
        f->metrics_window_profiled_steps > f->metrics_window_measured_steps)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", "metrics.window.profiled_steps", 0,
                         "expected at most metrics.window.measured_steps (%lld), got %lld",
                         (long long)f->metrics_window_measured_steps, (long long)f->metrics_window_profiled_steps);
    int began = P(metrics_window_began) && time_ok(ctx, MCPP_F_metrics_window_began, f->metrics_window_began);
    int ended = P(metrics_window_ended) && time_ok(ctx, MCPP_F_metrics_window_ended, f->metrics_window_ended);
    int db = 0, de = 0, dc = 0;
    double t0 = began ? rfc3339_seconds(f->metrics_window_began, &db) : 0;
    double t1 = ended ? rfc3339_seconds(f->metrics_window_ended, &de) : 0;
    if (ended && P(created_at) && mcpp_is_rfc3339(f->created_at)) {
        double done = rfc3339_seconds(f->created_at, &dc);
        /* created_at may be written to the second: allow its resolution */
        if (t1 > done + (dc ? 0.0 : 1.0) + 1e-6)
            mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "consistency", "metrics.window.ended", 0,
                             "the measured window ended at %s, after the run finished (created_at %s)",
                             f->metrics_window_ended, f->created_at);
    }
    if (!began || !ended)
        return;
    if (t1 < t0) {
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_ERROR, "consistency", "metrics.window.ended", 0,
                         "expected a time no earlier than metrics.window.began (%s), got %s", f->metrics_window_began,
                         f->metrics_window_ended);
        return;
    }
    const mcpp_double_list *s = &f->metrics_step_time_s_samples;
    if (!P(metrics_step_time_s_samples) || !s->count)
        return;
    double steps = 0;
    for (size_t i = 0; i < s->count; i++)
        steps += s->items[i];
    /* the times' resolution (whole seconds without a fraction) and 1% of the steps */
    int digits = db < de ? db : de;
    double slack = 1.0;
    for (int i = 0; i < digits; i++)
        slack /= 10;
    if (t1 - t0 + slack < 0.99 * steps)
        mcpp_ctx_problem(ctx, MCPP_SEVERITY_WARNING, "consistency", "metrics.window.ended", 0,
                         "the measured window lasted %.3f s (began %s), less than its %zu measured steps (%.3f s)",
                         t1 - t0, f->metrics_window_began, s->count, steps);
}
