/**
 * @file em_batch_matmul_s8.c
 * @brief int8 × int8 batched matmul of two activations, exactly
 *        compiler/reference.py:batch_matmul_s8: both zero points apply here (neither operand is
 *        constant, so no offset term folds ahead of time), int32 accumulation, one
 *        requantization per output (em_nn_requantize, as fully connected).
 *
 * Σ_k (a + ao)(b + bo) = Σ_k a·b + bo·Σ_k a + ao·Σ_k b + K·ao·bo, all modulo 2^32 (as the
 * reference wraps its sum): the row sum of a once per row, the column sum of b alongside the dot
 * product (no scratch). MVE instead takes Σ_k (a + ao)·b + bo·Σ_k (a + ao): 16 columns of b at a
 * time (four widening VLDRB.S32 and four VMLA by the scalar a + ao per k), one per-tensor
 * requantization on 4 lanes (em_nn_requantize_mve), predicated column tails. DSP runs the scalar
 * path (b is read down its columns: no word of it pairs with a word of a).
 */
#include <stddef.h>

#include "em_nn_functions.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"

#if EM_NN_TIER_MVE
/** Four outputs of one row from their centred sums: requantize, offset, clamp, store (predicated). */
static inline __attribute__((always_inline)) void em_nn_bmm_store_mve(int32x4_t acc, int32x4_t multiplier,
                                                                     int32x4_t shift, int32_t output_offset,
                                                                     int32x4_t lo, int32x4_t hi, int8_t *out,
                                                                     int32_t remaining)
{
    const mve_pred16_t pred = vctp32q((uint32_t)(remaining > 0 ? remaining : 0));
    int32x4_t v = vaddq_n_s32(em_nn_requantize_mve(acc, multiplier, shift), output_offset);
    vstrbq_p_s32(out, vminq_s32(vmaxq_s32(v, lo), hi), pred);
}

/** One row m of one batch: out[n] for every column n. */
static void em_nn_bmm_row(const em_batch_matmul_params *params, const int8_t *a_row, const int8_t *b_batch,
                          int32_t depth, int32_t columns, int8_t *out)
{
    const em_batch_matmul_params p = *params;
    uint32_t a_sum = 0u; /* Σ_k (a + ao), modulo 2^32 */
    for (int32_t k = 0; k < depth; k++) {
        a_sum += (uint32_t)(a_row[k] + p.a_offset);
    }
    const int32x4_t row_term = vdupq_n_s32((int32_t)((uint32_t)p.b_offset * a_sum));
    const int32x4_t multiplier = vdupq_n_s32(p.output_multiplier), shift = vdupq_n_s32(p.output_shift);
    const int32x4_t lo = vdupq_n_s32(p.activation_min), hi = vdupq_n_s32(p.activation_max);
    for (int32_t n = 0; n < columns; n += 16) {
        const int32_t left = columns - n;
        const mve_pred16_t p0 = vctp32q((uint32_t)left), p1 = vctp32q((uint32_t)(left > 4 ? left - 4 : 0));
        const mve_pred16_t p2 = vctp32q((uint32_t)(left > 8 ? left - 8 : 0));
        const mve_pred16_t p3 = vctp32q((uint32_t)(left > 12 ? left - 12 : 0));
        int32x4_t acc0 = row_term, acc1 = row_term, acc2 = row_term, acc3 = row_term;
        const int8_t *b = b_batch + n;
        for (int32_t k = 0; k < depth; k++, b += columns) {
            const int32_t x = a_row[k] + p.a_offset; /* VMLA wraps like the scalar sum */
            acc0 = vmlaq_n_s32(acc0, vldrbq_z_s32(b, p0), x);
            acc1 = vmlaq_n_s32(acc1, vldrbq_z_s32(b + 4, p1), x);
            acc2 = vmlaq_n_s32(acc2, vldrbq_z_s32(b + 8, p2), x);
            acc3 = vmlaq_n_s32(acc3, vldrbq_z_s32(b + 12, p3), x);
        }
        em_nn_bmm_store_mve(acc0, multiplier, shift, p.output_offset, lo, hi, out + n, left);
        if (left > 4) {
            em_nn_bmm_store_mve(acc1, multiplier, shift, p.output_offset, lo, hi, out + n + 4, left - 4);
        }
        if (left > 8) {
            em_nn_bmm_store_mve(acc2, multiplier, shift, p.output_offset, lo, hi, out + n + 8, left - 8);
        }
        if (left > 12) {
            em_nn_bmm_store_mve(acc3, multiplier, shift, p.output_offset, lo, hi, out + n + 12, left - 12);
        }
    }
}
#else
/** One row m of one batch: out[n] for every column n. */
static void em_nn_bmm_row(const em_batch_matmul_params *params, const int8_t *a_row, const int8_t *b_batch,
                          int32_t depth, int32_t columns, int8_t *out)
{
    const em_batch_matmul_params p = *params; /* not re-read after each int8 store */
    /* The int32 terms wrap like the reference's sum (uint32 arithmetic: no signed overflow). */
    uint32_t a_sum = 0u;
    for (int32_t k = 0; k < depth; k++) {
        a_sum += (uint32_t)a_row[k];
    }
    const uint32_t row_term = (uint32_t)depth * (uint32_t)(p.a_offset * p.b_offset) + (uint32_t)p.b_offset * a_sum;
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
        out[n] = (int8_t)v;
    }
}
#endif

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

em_nn_status em_batch_matmul_s8(const em_batch_matmul_params *params, const em_batch_matmul_dims *dims,
                                const int8_t *a, const int8_t *b, int8_t *output)
{
    if (params == NULL || dims == NULL || a == NULL || b == NULL || output == NULL
        || !em_nn_bmm_valid(params, dims)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const int32_t rows = dims->rows, depth = dims->depth, columns = dims->columns;
    for (int32_t batch = 0; batch < dims->batches; batch++) {
        const int8_t *a_batch = a + (size_t)batch * rows * depth;
        const int8_t *b_batch = b + (size_t)batch * depth * columns;
        int8_t *out = output + (size_t)batch * rows * columns;
        for (int32_t m = 0; m < rows; m++) {
            em_nn_bmm_row(params, a_batch + (size_t)m * depth, b_batch, depth, columns, out + (size_t)m * columns);
        }
    }
    return EM_NN_OK;
}
