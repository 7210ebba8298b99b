/*
 * stats.c — deterministic statistics for comparisons, the gate and lane
 * headlines (see stats_internal.h for what each function promises).
 */
/* lgamma_r (glibc and the BSDs declare it under _DEFAULT_SOURCE): lgamma
 * writes the global signgam, a data race between threads that each run a
 * gate, which docs/thread-safety.md allows (ThreadSanitizer reported it). */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats_internal.h"
#include "util/quantile.h"

/* ln |Gamma(x)|, without touching signgam. */
static double log_gamma(double x)
{
    int sign;
    return lgamma_r(x, &sign);
}

double mcpp_stats_rel_spread_sorted(const double *sorted, size_t n)
{
    if (n < 2) return 0.0;
    double med = mcpp_quantile_sorted(sorted, n, 0.5);
    if (!(med > 0)) return 0.0;
    return (mcpp_quantile_sorted(sorted, n, 0.9) - mcpp_quantile_sorted(sorted, n, 0.1)) / med;
}

/* Acklam's rational approximation, relative error below 1.2e-9: plenty for
 * picking order statistics. */
double mcpp_stats_normal_quantile(double p)
{
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                               1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    if (p <= 0) return -INFINITY;
    if (p >= 1) return INFINITY;
    if (p < 0.02425) {
        double q = sqrt(-2 * log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    }
    if (p > 1 - 0.02425) return -mcpp_stats_normal_quantile(1 - p);
    double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

void mcpp_stats_median_interval(const double *sorted, size_t n, double confidence, double *low,
                                double *high, double *achieved)
{
    if (n == 0) {
        *low = *high = NAN;
        *achieved = 0;
        return;
    }
    size_t cut = 0;
    double coverage;
    if (n > 1000) {
        double z = mcpp_stats_normal_quantile(1 - (1 - confidence) / 2);
        double c = floor((double)n / 2.0 - z * sqrt((double)n) / 2.0);
        cut = c > 0 ? (size_t)c : 0;
        coverage = confidence;
    } else {
        /* cdf(k) = P(Bin(n, 1/2) <= k); coverage of [x_(k+1), x_(n-k)] is 1 - 2 cdf(k). */
        double pk = pow(0.5, (double)n), cdf = pk;
        coverage = 1 - 2 * cdf;
        for (size_t k = 0; k + 1 < (n + 1) / 2; k++) {
            pk = pk * (double)(n - k) / (double)(k + 1);
            double next = 1 - 2 * (cdf + pk);
            if (next < confidence) break;
            cdf += pk;
            cut = k + 1;
            coverage = next;
        }
    }
    if (cut > (n - 1) / 2) cut = (n - 1) / 2;
    *low = sorted[cut];
    *high = sorted[n - 1 - cut];
    *achieved = coverage < 0 ? 0 : coverage;
}

/* ---- Student's t and the false discovery rate ------------------------------------ */

/* The continued fraction of the regularized incomplete beta function
 * (modified Lentz), valid for x < (a+1)/(a+b+2); converges in a few dozen
 * steps for the degrees of freedom a gate meets. */
static double beta_fraction(double a, double b, double x)
{
    const double tiny = 1e-300, eps = 1e-15;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    d = 1 / (fabs(d) < tiny ? tiny : d);
    double f = d;
    for (int m = 1; m <= 400; m++) {
        for (int odd = 0; odd < 2; odd++) {
            double num = odd ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
                             : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
            d = 1 + num * d;
            d = 1 / (fabs(d) < tiny ? tiny : d);
            c = 1 + num / c;
            if (fabs(c) < tiny) c = tiny;
            f *= c * d;
            if (odd && fabs(c * d - 1) < eps) return f;
        }
    }
    return f;
}

/* I_x(a, b), the regularized incomplete beta function. */
static double incomplete_beta(double a, double b, double x)
{
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double front = exp(log_gamma(a + b) - log_gamma(a) - log_gamma(b) + a * log(x) + b * log1p(-x));
    if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(a, b, x) / a;
    return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double mcpp_stats_f_sf(double f, double df1, double df2)
{
    if (isnan(f) || !(df1 > 0) || !(df2 > 0)) return NAN;
    if (f <= 0) return 1;
    if (df2 > 1e6) df2 = 1e6; /* as good as infinite for any level a gate uses */
    return incomplete_beta(df2 / 2, df1 / 2, df2 / (df2 + df1 * f));
}

double mcpp_stats_t_cdf(double t, double df)
{
    if (isnan(t) || !(df > 0)) return NAN;
    if (isinf(df) || df > 1e7) return 0.5 * erfc(-t / sqrt(2.0));
    double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t)); /* P(T > |t|) */
    return t < 0 ? tail : 1 - tail;
}

/* The last quantiles this thread asked for: a gate's tests mostly share one
 * confidence and one df, and each bisection below costs ~45 CDFs (a quarter
 * of a 3,000-test gate went to the incomplete beta function). */
#define T_QUANTILE_MEMO 4
static _Thread_local struct {
    double p, df, q;
} t_quantile_memo[T_QUANTILE_MEMO];
static _Thread_local unsigned t_quantile_next;

static double t_quantile_bisect(double p, double df);

double mcpp_stats_t_quantile(double p, double df)
{
    if (!(p > 0 && p < 1) || !(df > 0)) return NAN;
    if (isinf(df) || df > 1e7) return mcpp_stats_normal_quantile(p);
    if (p < 0.5) return -mcpp_stats_t_quantile(1 - p, df);
    for (unsigned i = 0; i < T_QUANTILE_MEMO; i++)
        if (t_quantile_memo[i].p == p && t_quantile_memo[i].df == df) return t_quantile_memo[i].q;
    double q = t_quantile_bisect(p, df);
    unsigned at = t_quantile_next++ % T_QUANTILE_MEMO;
    t_quantile_memo[at].p = p;
    t_quantile_memo[at].df = df;
    t_quantile_memo[at].q = q;
    return q;
}

static double t_quantile_bisect(double p, double df)
{
    /* Bisection on the CDF: monotone, and the bracket doubles until it holds p. */
    double lo = 0, hi = 1;
    while (mcpp_stats_t_cdf(hi, df) < p && hi < 1e300) hi *= 2;
    for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; i++) {
        double mid = 0.5 * (lo + hi);
        if (mcpp_stats_t_cdf(mid, df) < p) lo = mid;
        else hi = mid;
    }
    return 0.5 * (lo + hi);
}

static int cmp_p(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double mcpp_stats_bh_cutoff(const double *p, size_t m, double q, double *scratch)
{
    size_t n = 0;
    for (size_t i = 0; i < m; i++)
        if (!isnan(p[i])) scratch[n++] = p[i];
    qsort(scratch, n, sizeof *scratch, cmp_p);
    double cutoff = -1;
    for (size_t k = 1; k <= n; k++)
        if (scratch[k - 1] <= q * (double)k / (double)n) cutoff = scratch[k - 1];
    return cutoff;
}

/* ---- the tail of a suite's changes ------------------------------------------------ */

static double t_log_density(double x, double df)
{
    if (df > 1e7) return -0.5 * log(2 * 3.141592653589793) - 0.5 * x * x; /* as mcpp_stats_t_cdf */
    return log_gamma((df + 1) / 2) - log_gamma(df / 2) - 0.5 * log(df * 3.141592653589793) -
           (df + 1) / 2 * log1p(x * x / df);
}

/* The maximum-likelihood scale of a centred Student t with `df` degrees of
 * freedom (EM: each point weighs (df + 1) / (df + x^2/s^2)), and its log
 * likelihood. */
static double t_scale_fit(const double *x, size_t n, double df, double *loglik)
{
    double s2 = 0;
    for (size_t i = 0; i < n; i++) s2 += x[i] * x[i];
    s2 /= (double)n;
    for (int it = 0; it < 100 && !isinf(df) && s2 > 0; it++) {
        double next = 0;
        for (size_t i = 0; i < n; i++) next += (df + 1) / (df + x[i] * x[i] / s2) * x[i] * x[i];
        next /= (double)n;
        if (fabs(next - s2) <= 1e-12 * s2) break;
        s2 = next;
    }
    double s = sqrt(s2), ll = 0;
    for (size_t i = 0; s > 0 && i < n; i++) ll += t_log_density(x[i] / s, df) - log(s);
    *loglik = ll;
    return s;
}

double mcpp_stats_t_density(double x, double df) { return exp(t_log_density(x, df)); }

double mcpp_stats_t_location_scale(const double *x, size_t n, double df, double *location)
{
    double mu = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) mu += x[i];
    mu /= n ? (double)n : 1;
    for (size_t i = 0; i < n; i++) s2 += (x[i] - mu) * (x[i] - mu);
    s2 /= n ? (double)n : 1;
    /* EM: each point weighs (df + 1) / (df + r^2), r its distance in scales;
     * the new location is their weighted mean, the new scale their weighted
     * mean square about it: sum w (x - mu)^2 - sum w (new mu - mu)^2 */
    for (int it = 0; it < 200 && !isinf(df) && s2 > 0; it++) {
        double sw = 0, swd = 0, swdd = 0;
        for (size_t i = 0; i < n; i++) {
            double d = x[i] - mu, w = (df + 1) / (df + d * d / s2);
            sw += w, swd += w * d, swdd += w * d * d;
        }
        double step = swd / sw, next = (swdd - sw * step * step) / (double)n;
        int done = fabs(next - s2) <= 1e-12 * s2 && fabs(step) <= 1e-9 * sqrt(s2);
        mu += step, s2 = next;
        if (done) break;
    }
    *location = mu;
    return sqrt(s2);
}

size_t mcpp_stats_loo_normal_scores(const double *x, size_t n, double *out)
{
    if (n < 4) return 0;
    double mean = 0, ss = 0;
    for (size_t j = 0; j < n; j++) mean += x[j];
    mean /= (double)n;
    for (size_t j = 0; j < n; j++) ss += (x[j] - mean) * (x[j] - mean);
    double k = (double)n / (double)(n - 1), df = (double)n - 2;
    for (size_t j = 0; j < n; j++) {
        /* x[j] against the other n - 1: their mean and standard deviation */
        double dev = k * (x[j] - mean), ss_rest = ss - k * (x[j] - mean) * (x[j] - mean);
        if (!(ss_rest > 1e-12 * ss)) return 0;
        double t = dev / sqrt(ss_rest / df * (1 + 1 / (double)(n - 1)));
        /* each tail from its own side, so that far-off values keep their precision */
        out[j] = t < 0 ? mcpp_stats_normal_quantile(mcpp_stats_t_cdf(t, df))
                       : -mcpp_stats_normal_quantile(mcpp_stats_t_cdf(-t, df));
    }
    return n;
}

double mcpp_stats_t_tail_fit(const double *x, size_t n, double *scale)
{
    static const double GRID[] = {2, 3, 4, 6, 10, 20, 50, INFINITY};
    enum { G = sizeof GRID / sizeof *GRID };
    double ll[G], s[G], best = -INFINITY;
    for (size_t g = 0; g < G; g++) {
        s[g] = n ? t_scale_fit(x, n, GRID[g], &ll[g]) : 0;
        if (s[g] > 0 && ll[g] > best) best = ll[g];
    }
    /* the heaviest tails within one log-likelihood unit of the best fit */
    for (size_t g = 0; g < G; g++)
        if (s[g] > 0 && ll[g] >= best - 1) {
            *scale = s[g];
            return GRID[g];
        }
    *scale = 0;
    return INFINITY;
}

/* ---- the spread of variances across a suite (Smyth 2004) ---------------------------- */

/* digamma and its first three derivatives: recurrence up to x >= 6, then
 * their asymptotic series (error far below what a prior's df needs). */
static double digamma(double x)
{
    double r = 0;
    for (; x < 6; x += 1) r -= 1 / x;
    double f = 1 / (x * x);
    return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f / 252));
}

static double trigamma(double x)
{
    double r = 0;
    for (; x < 6; x += 1) r += 1 / (x * x);
    double f = 1 / (x * x);
    return r + 1 / x + f / 2 + f / x * (1.0 / 6 - f * (1.0 / 30 - f / 42));
}

static double tetragamma(double x)
{
    double r = 0;
    for (; x < 6; x += 1) r -= 2 / (x * x * x);
    double f = 1 / (x * x);
    return r - f - f / x - f * f * (0.5 - f * (1.0 / 6 - f / 6));
}

static double pentagamma(double x)
{
    double r = 0;
    for (; x < 6; x += 1) r += 6 / (x * x * x * x);
    double f = 1 / (x * x);
    return r + f / x * (2 + f * (2 - f * (1 - f * 4.0 / 3))) + 3 * f * f;
}

/* The x with trigamma(x) = y, by Newton's method from 0.5 + 1/y (limma's). */
static double trigamma_inverse(double y)
{
    if (y > 1e7) return 1 / sqrt(y);
    if (y < 1e-6) return 1 / y;
    double x = 0.5 + 1 / y;
    for (int i = 0; i < 50; i++) {
        double tri = trigamma(x), dif = tri * (1 - tri / y) / tetragamma(x);
        x += dif;
        if (-dif / x < 1e-8) break;
    }
    return x;
}

double mcpp_stats_prior_df(const double *var, const double *df, size_t n, double *prior_var)
{
    double mean = 0, spread = 0, expected = 0, kappa4 = 0;
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        if (var[i] > 0 && df[i] > 0) mean += log(var[i]) - digamma(df[i] / 2) + log(df[i] / 2), used++;
    if (used < 2) {
        *prior_var = NAN;
        return 0;
    }
    mean /= (double)used;
    for (size_t i = 0; i < n; i++)
        if (var[i] > 0 && df[i] > 0) {
            double e = log(var[i]) - digamma(df[i] / 2) + log(df[i] / 2) - mean;
            spread += e * e;
            expected += trigamma(df[i] / 2);
            kappa4 += pentagamma(df[i] / 2);
        }
    /* The spread of the log variances beyond what their own df give, less
     * one standard error of that spread under equal variances (kappa4 / n +
     * 2 kappa2^2 / (n - 1): the cumulants of a log chi-square). Taken whole,
     * chance alone made the prior df 8-40 in half of the noise lab's Gaussian
     * merges (50 tests of 4 df: a spread of 0.64 known to about 0.14), and
     * those few df then ruled each test's t; counted beyond one standard
     * error, tests whose variances truly differ still keep their own. */
    double kappa2 = expected / (double)used;
    double excess = spread / (double)(used - 1) - kappa2 -
                    sqrt(kappa4 / ((double)used * (double)used) + 2 * kappa2 * kappa2 / (double)(used - 1));
    if (!(excess > 0)) {
        *prior_var = exp(mean);
        return INFINITY;
    }
    double d0 = 2 * trigamma_inverse(excess);
    *prior_var = exp(mean + digamma(d0 / 2) - log(d0 / 2));
    return d0;
}

double mcpp_stats_moderated_var(double prior_var, double prior_df, double ss, double df)
{
    return prior_df + df > 0 ? (prior_df * prior_var + ss) / (prior_df + df) : 0;
}

/* Rosner's critical value for the i-th most extreme of n runs (1-based):
 * the generalized ESD test at level HISTORY_FAR_LEVEL. */
static double esd_critical(size_t n, size_t i)
{
    double m = (double)(n - i + 1), p = 1 - MCPP_HISTORY_FAR_LEVEL / (2 * m);
    double t = mcpp_stats_t_quantile(p, m - 2);
    return (m - 1) * t / sqrt((m - 2 + t * t) * m);
}

size_t mcpp_stats_set_aside_far(double *x, size_t *n, double *scratch)
{
    size_t len = *n, most = len / 3 < 32 ? len / 3 : 32, aside = 0;
    if (len < 6)
        return 0;
    /* scratch[i] = 1 when run i is out; the most extreme of the rest, one at a time */
    for (size_t i = 0; i < len; i++)
        scratch[i] = 0;
    for (size_t step = 1; step <= most; step++) {
        double mean = 0, ss = 0, left = (double)(len - step + 1);
        for (size_t i = 0; i < len; i++)
            if (!scratch[i])
                mean += x[i];
        mean /= left;
        for (size_t i = 0; i < len; i++)
            if (!scratch[i])
                ss += (x[i] - mean) * (x[i] - mean);
        double sd = sqrt(ss / (left - 1)), far = -1;
        size_t at = 0;
        for (size_t i = 0; i < len; i++)
            if (!scratch[i] && fabs(x[i] - mean) > far)
                far = fabs(x[i] - mean), at = i;
        if (!(sd > 0))
            break;
        scratch[at] = (double)step; /* the order it went out in */
        if (far / sd > esd_critical(len, step))
            aside = step;
    }
    /* the first `aside` to go out are the outliers, set aside only when they
     * are one block of consecutive runs: a busy hour is, while a machine
     * with two states puts its rarer state's runs anywhere (noise lab,
     * bimodal, one run a side with a history: 29.5% of 10% slowdowns found
     * with the block rule, 3.0% setting its scattered runs aside) */
    size_t first = len, last = 0;
    for (size_t i = 0; i < len; i++)
        if (scratch[i] > 0 && scratch[i] <= (double)aside)
            first = i < first ? i : first, last = i;
    if (aside && last - first + 1 != aside)
        return 0;
    size_t kept = 0;
    for (size_t i = 0; i < len; i++)
        if (!(scratch[i] > 0 && scratch[i] <= (double)aside))
            x[kept++] = x[i];
    *n = kept;
    return aside;
}
