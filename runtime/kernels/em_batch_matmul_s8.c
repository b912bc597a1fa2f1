/**
 * @file em_batch_matmul_s8.c
 * @brief int8 × int8 batched matmul of two activations, exactly
 *        compiler/reference.py:batch_matmul_s8: both zero points apply here (neither operand is
 *        constant, so no offset term folds ahead of time), int32 accumulation, one
 *        requantization per output (em_nn_requantize, as fully connected).
 *
 * Σ_k (a + ao)(b + bo) = Σ_k a·b + bo·Σ_k a + ao·Σ_k b + K·ao·bo, all modulo 2^32 (as the
 * reference wraps its sum): the row sum of a once per row, the column sum of b alongside the dot
 * product (no scratch). Scalar path on every tier for now.
 */
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_support.h"

static int em_nn_bmm_valid(const em_batch_matmul_params *p, const em_batch_matmul_dims *d)
{
    if (p->a_offset < -127 || p->a_offset > 128 || p->b_offset < -127 || p->b_offset > 128
        || p->output_offset < -128 || p->output_offset > 127 || p->output_multiplier < 0 || p->output_shift < -31
        || p->output_shift > 30 || p->activation_min < -128 || p->activation_max > 127
        || p->activation_min > p->activation_max || d->batches < 1 || d->rows < 1 || d->depth < 1
        || d->columns < 1) {
        return 0;
    }
    const int64_t a = (int64_t)d->batches * d->rows * d->depth;
    const int64_t b = (int64_t)d->batches * d->depth * d->columns;
    const int64_t out = (int64_t)d->batches * d->rows * d->columns;
    return a <= EM_NN_INT32_MAX && b <= EM_NN_INT32_MAX && out <= EM_NN_INT32_MAX;
}

em_status em_batch_matmul_s8(const em_batch_matmul_params *params, const em_batch_matmul_dims *dims,
                             const int8_t *a, const int8_t *b, int8_t *output)
{
    if (params == NULL || dims == NULL || a == NULL || b == NULL || output == NULL
        || !em_nn_bmm_valid(params, dims)) {
        return EM_ERR_BAD_ARGUMENT;
    }
    const em_batch_matmul_params p = *params; /* not re-read after each int8 store */
    const int32_t rows = dims->rows, depth = dims->depth, columns = dims->columns;
    /* The int32 terms wrap like the reference's sum (uint32 arithmetic: no signed overflow). */
    const uint32_t constant = (uint32_t)depth * (uint32_t)(p.a_offset * p.b_offset);
    for (int32_t batch = 0; batch < dims->batches; batch++) {
        const int8_t *a_batch = a + (size_t)batch * rows * depth;
        const int8_t *b_batch = b + (size_t)batch * depth * columns;
        int8_t *out = output + (size_t)batch * rows * columns;
        for (int32_t m = 0; m < rows; m++) {
            const int8_t *a_row = a_batch + (size_t)m * depth;
            uint32_t a_sum = 0u;
            for (int32_t k = 0; k < depth; k++) {
                a_sum += (uint32_t)a_row[k];
            }
            const uint32_t row_term = constant + (uint32_t)p.b_offset * a_sum;
            for (int32_t n = 0; n < columns; n++) {
                uint32_t dot = 0u, b_sum = 0u;
                for (int32_t k = 0; k < depth; k++) {
                    const int32_t y = b_batch[(size_t)k * columns + n];
                    dot += (uint32_t)(a_row[k] * y);
                    b_sum += (uint32_t)y;
                }
                const uint32_t acc = dot + row_term + (uint32_t)p.a_offset * b_sum;
                int32_t v = em_nn_requantize((int32_t)acc, p.output_multiplier, p.output_shift) + p.output_offset;
                v = v < p.activation_min ? p.activation_min : (v > p.activation_max ? p.activation_max : v);
                out[(size_t)m * columns + n] = (int8_t)v;
            }
        }
    }
    return EM_OK;
}
