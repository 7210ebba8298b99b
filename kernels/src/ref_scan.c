/*
 * ref_scan.c — reference selective scan with a per-channel state (block family M).
 * The recurrence is sequential in time by nature; channels are independent.
 */
#include <math.h>

#include "mcpp_kernels/reference.h"

void mcpp_kernel_ref_selective_scan(float *y, const float *proj, const float *a_log, const float *dt_bias,
                             const float *d_skip, size_t batch, size_t seq, size_t d, size_t state)
{
    size_t row = 2 * d + 2 * state;
    if (state > MCPP_KERNEL_SCAN_MAX_STATE) state = MCPP_KERNEL_SCAN_MAX_STATE;
    for (size_t b = 0; b < batch; b++)
        for (size_t c = 0; c < d; c++) {
            float h[MCPP_KERNEL_SCAN_MAX_STATE] = {0}, a[MCPP_KERNEL_SCAN_MAX_STATE];
            for (size_t n = 0; n < state; n++) a[n] = -expf(a_log[c * state + n]);
            for (size_t t = 0; t < seq; t++) {
                const float *p = proj + (b * seq + t) * row;
                float u = p[c];
                float delta = mcpp_kernel_softplus(p[d + c] + dt_bias[c]);
                const float *bv = p + 2 * d, *cv = p + 2 * d + state;
                float acc = 0.0f;
                for (size_t n = 0; n < state; n++) {
                    h[n] = expf(delta * a[n]) * h[n] + delta * bv[n] * u;
                    acc += cv[n] * h[n];
                }
                y[(b * seq + t) * d + c] = acc + d_skip[c] * u;
            }
        }
}
