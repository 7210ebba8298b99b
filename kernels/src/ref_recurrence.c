/*
 * ref_recurrence.c — reference gated recurrent tail (block family R): a
 * diagonal gated linear recurrence with an output gate.
 */
#include "mcpp_kernels/reference.h"

void mcpp_kernel_ref_gated_recurrence(float *y, const float *proj, size_t batch, size_t seq, size_t d)
{
    size_t row = 3 * d;
    for (size_t b = 0; b < batch; b++)
        for (size_t c = 0; c < d; c++) {
            float h = 0.0f;
            for (size_t t = 0; t < seq; t++) {
                const float *p = proj + (b * seq + t) * row;
                float r = mcpp_kernel_sigmoid(p[c]);
                h = r * h + (1.0f - r) * p[d + c];
                y[(b * seq + t) * d + c] = h * mcpp_kernel_silu(p[2 * d + c]);
            }
        }
}
