/**
 * @file em_fully_connected_s8.c
 * @brief int8 fully connected layer, per-channel requantization. Scalar, DSP and Helium (MVE)
 *        paths behind em_nn_tier.h.
 *
 * Every path computes the int32 dot products exactly (wrapping like the reference) and
 * requantizes with em_nn_requantize_s8() (em_nn_dot_s8.h) or the bit-exact 4-lane
 * em_nn_requantize_mve(), so they match compiler/reference.py:fully_connected_s8 byte for byte.
 * MVE: four weight rows per pass share each 16-byte input load (the FC_MVE_ROWS4 variant, where
 * params->paths has it: the compiler chooses it where fully connected layers are a real share of
 * a program's MACs), then one row at a time; full 16-lane steps run unpredicated, the tail uses predicated zeroing
 * loads (vctp8q), never reading past a row.
 * DSP: four weight rows per pass share each input word and its two SXTB16 (em_nn_dot4_s8_dsp:
 * two SMLAD per four int8 pairs, 16 inputs per loop pass); a row tail of 1..3 int8 runs scalar,
 * so nothing past a row is read. Scalar: six, then four, weight rows per pass share each input byte
 * (em_nn_dot6_s8_scalar, em_nn_dot4_s8_scalar). DSP and scalar run em_nn_dot_rows_s8(), the
 * convolution's column loop too.
 */
#include <stddef.h>

#include "em_nn_dot_s8.h"
#include "em_nn_functions.h"
#include "em_nn_support.h"
#include "em_nn_tier.h"
#include "em_nn_variants.h"

#if EM_NN_TIER_MVE
#include <arm_mve.h>
#endif

/* em_fully_connected_s8_get_buffer_size(): em_nn_buffer_sizes.c */

#if EM_NN_TIER_MVE

/** One input row against weight rows 0..O-1: four rows per pass share each input load (where
 *  the op's paths take FC_MVE_ROWS4), then one row at a time. */
static void em_nn_fc_row_mve(const em_fc_params *params, const em_per_channel_quant *quant,
                             int32_t n_in, int32_t n_out, const int8_t *x, const int8_t *weights,
                             const int32_t *bias, int8_t *out)
{
    int32_t o = 0;
    const bool rows4 = EM_NN_TAKES(params->paths, FC_MVE_ROWS4); /* else every row below */
    for (; rows4 && o + 4 <= n_out; o += 4) {
        const int8_t *w0 = weights + (int32_t)o * n_in;
        const int8_t *w1 = w0 + n_in;
        const int8_t *w2 = w1 + n_in;
        const int8_t *w3 = w2 + n_in;
        int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        int32_t i = 0;
        for (; i + 16 <= n_in; i += 16) {
            const int8_t *xi = x + i;
            const int8x16_t xv = vld1q_s8(xi);
            a0 = vmladavaq_s8(a0, xv, vld1q_s8(w0 + i));
            a1 = vmladavaq_s8(a1, xv, vld1q_s8(w1 + i));
            a2 = vmladavaq_s8(a2, xv, vld1q_s8(w2 + i));
            a3 = vmladavaq_s8(a3, xv, vld1q_s8(w3 + i));
        }
        if (i < n_in) { /* tail: predicated loads read nothing past the rows */
            const mve_pred16_t p = vctp8q((uint32_t)(n_in - i));
            const int8x16_t xv = vldrbq_z_s8(x + i, p);
            a0 = vmladavaq_s8(a0, xv, vldrbq_z_s8(w0 + i, p));
            a1 = vmladavaq_s8(a1, xv, vldrbq_z_s8(w1 + i, p));
            a2 = vmladavaq_s8(a2, xv, vldrbq_z_s8(w2 + i, p));
            a3 = vmladavaq_s8(a3, xv, vldrbq_z_s8(w3 + i, p));
        }
        int32x4_t acc = vdupq_n_s32(a0);
        acc = vsetq_lane_s32(a1, acc, 1);
        acc = vsetq_lane_s32(a2, acc, 2);
        acc = vsetq_lane_s32(a3, acc, 3);
        if (bias != NULL) {
            acc = vaddq_s32(acc, vld1q_s32(bias + o)); /* wraps, as the reference's int32 */
        }
        int32x4_t v = em_nn_requantize_mve(acc, vld1q_s32(quant->multiplier + o),
                                           vld1q_s32(quant->shift + o));
        v = vqaddq_s32(v, vdupq_n_s32(params->output_offset)); /* saturates past the clamp */
        v = vmaxq_s32(v, vdupq_n_s32(params->activation_min));
        v = vminq_s32(v, vdupq_n_s32(params->activation_max));
        vstrbq_s32(out + o, v);
    }
    for (; o < n_out; o++) {
        const uint32_t b = bias != NULL ? (uint32_t)bias[o] : 0u;
        const int32_t dot = em_nn_dot_s8_mve(x, weights + (int32_t)o * n_in, n_in, 0);
        out[o] = em_nn_requantize_s8((int32_t)((uint32_t)dot + b), quant->multiplier[o], quant->shift[o],
                                     params->output_offset, params->activation_min, params->activation_max);
    }
}

#endif

em_nn_status em_fully_connected_s8(const em_fc_params *params, const em_per_channel_quant *quant,
                                   const em_fc_dims *dims, const int8_t *input, const int8_t *weights,
                                   const int32_t *bias, int8_t *output)
{
    if (params == NULL || quant == NULL || dims == NULL || input == NULL || weights == NULL
        || output == NULL || quant->multiplier == NULL || quant->shift == NULL
        || dims->batches < 1 || dims->input_features < 1 || dims->output_features < 1) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const int32_t n_in = dims->input_features;
    const int32_t n_out = dims->output_features;
    for (int32_t b = 0; b < dims->batches; b++) {
        const int8_t *x = input + (int32_t)b * n_in;
        int8_t *out = output + (int32_t)b * n_out;
#if EM_NN_TIER_MVE
        em_nn_fc_row_mve(params, quant, n_in, n_out, x, weights, bias, out);
#else
        em_nn_dot_rows_s8(x, weights, n_in, 0, n_out, bias, quant->multiplier, quant->shift,
                          params->output_offset, params->activation_min, params->activation_max, out);
#endif
    }
    return EM_NN_OK;
}
