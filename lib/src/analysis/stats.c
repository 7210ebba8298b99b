/*
 * stats.c — deterministic statistics for comparisons and lane headlines (see
 * stats_internal.h for what each function promises).
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "analysis/stats_internal.h"
#include "util/quantile.h"

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

/* Evenly spaced order statistics of sorted values, at most `cap` of them, so
 * huge pooled inputs keep the pairwise work bounded. */
static size_t thin(const double *sorted, size_t n, size_t cap, double *out)
{
    if (n <= cap) {
        for (size_t i = 0; i < n; i++) out[i] = sorted[i];
        return n;
    }
    for (size_t i = 0; i < cap; i++) out[i] = sorted[(size_t)((double)i * (double)(n - 1) / (double)(cap - 1))];
    return cap;
}

/* The k-th smallest of v[0..n) (0-based), partially reordering v: Wirth's
 * selection (Hoare partitions around a median-of-three value of the range).
 * For values without NaN this is exactly what sorting and reading index k
 * gives, in linear expected time. */
static double select_kth(double *v, size_t n, size_t k)
{
    ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (l < m) {
        double a = v[l], b = v[l + (m - l) / 2], c = v[m];
        double x = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
        ptrdiff_t i = l, j = m;
        do {
            while (v[i] < x) i++;
            while (x < v[j]) j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < kk) l = i;
        if (kk < i) m = j;
    }
    return v[kk];
}

static int all_finite(const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(v[i])) return 0;
    return 1;
}

/* The differences d(i,j) = lc[j] - lb[i] of sorted logs grow with j and
 * shrink with i, so at least (j+1)(mb-i) of them are <= d(i,j): in the order
 * by value that puts those dominated ones first on ties, d(i,j) stands at
 * (j+1)(mb-i) - 1 or later. The k+1 first of that order all have
 * (j+1)(mb-i) <= k+1, so the k-th smallest of these "corner" differences is
 * the k-th smallest of all of them. corner_low writes them into out. */
static size_t corner_low(double *out, const double *lb, size_t mb, const double *lc, size_t mc, size_t k)
{
    size_t n = 0;
    for (size_t i = 0; i < mb; i++) {
        size_t w = (k + 1) / (mb - i);
        if (w > mc) w = mc;
        for (size_t j = 0; j < w; j++) out[n++] = lc[j] - lb[i];
    }
    return n;
}

/* Mirrored: at least (i+1)(mc-j) differences are >= d(i,j). */
static size_t corner_high(double *out, const double *lb, size_t mb, const double *lc, size_t mc, size_t k)
{
    size_t n = 0;
    for (size_t i = 0; i < mb; i++) {
        size_t w = (k + 1) / (i + 1);
        if (w > mc) w = mc;
        for (size_t j = mc - w; j < mc; j++) out[n++] = lc[j] - lb[i];
    }
    return n;
}

/* How many differences corner_low (and, by symmetry, corner_high) gives. */
static size_t corner_count(size_t mb, size_t mc, size_t k)
{
    size_t n = 0;
    for (size_t r = 1; r <= mb; r++) n += (k + 1) / r < mc ? (k + 1) / r : mc;
    return n;
}

/* The cut-th smallest and cut-th largest of all nd differences, into *lo
 * and *hi. `work` holds nd doubles. Finite logs: selected, from the corners
 * when they are the smaller set. Otherwise sorted and read, so NaN and
 * infinities order exactly as they always did. */
static void interval_ends(const double *lb, size_t mb, const double *lc, size_t mc, size_t cut, double *work,
                          double *lo, double *hi)
{
    size_t nd = mb * mc, nk = corner_count(mb, mc, cut);
    int finite = all_finite(lb, mb) && all_finite(lc, mc);
    if (finite && 2 * nk < nd) {
        size_t n = corner_low(work, lb, mb, lc, mc, cut);
        *lo = select_kth(work, n, cut);
        n = corner_high(work, lb, mb, lc, mc, cut);
        *hi = select_kth(work, n, n - 1 - cut);
        return;
    }
    size_t k = 0;
    for (size_t i = 0; i < mb; i++)
        for (size_t j = 0; j < mc; j++) work[k++] = lc[j] - lb[i];
    if (!finite) {
        mcpp_sort_doubles(work, nd);
        *lo = work[cut];
        *hi = work[nd - 1 - cut];
        return;
    }
    *lo = select_kth(work, nd, cut);
    /* work[cut+1..] now holds the values at or above *lo */
    *hi = nd - 1 - cut == cut ? *lo : select_kth(work + cut + 1, nd - cut - 1, nd - 2 - 2 * cut);
}

int mcpp_stats_hl_ratio_interval(const double *base_sorted, size_t nb, const double *cand_sorted,
                                 size_t nc, double confidence, double *low, double *high)
{
    const size_t cap = 2000; /* 2000 x 2000 = 4M differences at most */
    size_t mb = nb < cap ? nb : cap, mc = nc < cap ? nc : cap;
    double small[64 + 1024]; /* step windows are short: no allocation for them */
    int on_stack = mb + mc <= 64 && mb * mc <= 1024;
    double *lb = on_stack ? small : malloc((mb + mc) * sizeof *lb);
    if (!lb) return -1;
    double *lc = lb + mb;
    mb = thin(base_sorted, nb, cap, lb);
    mc = thin(cand_sorted, nc, cap, lc);
    for (size_t i = 0; i < mb; i++) lb[i] = log(lb[i]);
    for (size_t j = 0; j < mc; j++) lc[j] = log(lc[j]);
    size_t nd = mb * mc;
    double *work = on_stack ? small + 64 : malloc(nd * sizeof *work);
    if (!work) {
        free(lb);
        return -1;
    }
    double z = mcpp_stats_normal_quantile(1 - (1 - confidence) / 2);
    double sd = sqrt((double)mb * (double)mc * (double)(mb + mc + 1) / 12.0);
    double ca = floor((double)nd / 2.0 - z * sd);
    /* ca differences are cut from each end; never below zero, never past the middle. */
    size_t cut = ca > 0 ? (size_t)ca : 0;
    if (cut > (nd - 1) / 2) cut = (nd - 1) / 2;
    double dlo, dhi;
    interval_ends(lb, mb, lc, mc, cut, work, &dlo, &dhi);
    *low = exp(dlo) - 1;
    *high = exp(dhi) - 1;
    if (!on_stack) {
        free(work);
        free(lb);
    }
    return 0;
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
