/* SPDX-License-Identifier: BSD-3-Clause */
/* acf.c -- the autocorrelation cross-check of the DFT period (§7).
 *
 * spectrum.c computes the ACF by FFT (zero-padded to 2N, O(N log N)); here
 * its peaks above 0.15 give candidate periods (distance between consecutive
 * peaks), outliers (weighted z-score > 1) are dropped, and the period is the
 * weighted mean with confidence 1 - std/mean.  The reference weighs each
 * distance by the difference of the two peak heights, which can be zero or
 * negative and then breaks the weighted mean; we weigh by their mean height.
 */
#include <math.h>
#include <string.h>

#include "analysis.h"
#include "analysis/analysis_internal.h"

#define ACF_PEAK_MIN 0.15
#define ACF_OUTLIER_Z 1.0

static void weighted_stats(const double *c, const double *w, size_t n,
                           double *mean, double *sd)
{
    double sw = 0, sm = 0, sv = 0;
    for (size_t i = 0; i < n; i++) {
        sw += w[i];
        sm += w[i] * c[i];
    }
    *mean = sw > 0 ? sm / sw : NAN;
    for (size_t i = 0; i < n; i++)
        sv += w[i] * (c[i] - *mean) * (c[i] - *mean);
    *sd = sw > 0 ? sqrt(fabs(sv / sw)) : NAN;
}

void ftio_acf_period(const double *acf, size_t n, double fs, double *scratch,
                     struct ftio_acf *out)
{
    memset(out, 0, sizeof *out);
    /* Candidates go to the first half of scratch, weights to the second:
     * there are fewer than n/2 peaks. */
    double *cand = scratch, *weight = scratch + n / 2;
    size_t nc = 0;
    double prev_lag = -1, prev_height = 0;

    /* Local maxima like scipy.signal.find_peaks: a rise, an optional flat
     * top (peak in its middle), then a fall; endpoints never count. */
    size_t i = 1;
    while (i + 1 < n) {
        if (acf[i] > acf[i - 1]) {
            size_t j = i;
            while (j + 1 < n && acf[j + 1] == acf[i])
                j++;
            if (j + 1 < n && acf[j + 1] < acf[i] && acf[i] >= ACF_PEAK_MIN) {
                double lag = (double)((i + j) / 2);
                if (prev_lag >= 0 && nc < n / 2) {
                    double c = (lag - prev_lag) / fs;
                    if (c > 1 / fs) {     /* as the reference: > one sample */
                        cand[nc] = c;
                        weight[nc] = (acf[i] + prev_height) / 2;
                        nc++;
                    }
                }
                prev_lag = lag;
                prev_height = acf[i];
            }
            i = j + 1;
            continue;
        }
        i++;
    }
    if (nc == 0)
        return;

    double mean, sd;
    weighted_stats(cand, weight, nc, &mean, &sd);
    if (sd > 0) {
        size_t kept = 0;
        for (size_t k = 0; k < nc; k++) {
            if (fabs(cand[k] - mean) / sd > ACF_OUTLIER_Z)
                continue;
            cand[kept] = cand[k];
            weight[kept] = weight[k];
            kept++;
        }
        nc = kept;
        if (nc == 0)
            return;
        weighted_stats(cand, weight, nc, &mean, &sd);
    }
    if (!(mean > 0))
        return;
    out->valid = true;
    out->period = mean;
    out->confidence = 1 - fabs(sd / mean);
}
