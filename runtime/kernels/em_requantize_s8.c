/**
 * @file em_requantize_s8.c
 * @brief int8 requantization onto another scale and zero point, exactly
 *        compiler/reference.py:requantize_s8 (em_nn_requantize: single rounding).
 *
 * MVE: four lanes a step through em_nn_requantize_mve (bit-exact with the scalar helper), tail
 * predicated; 27 -> about 4 instructions per element on Cortex-M55 (tools/bench_data_movement.py).
 * Other tiers: scalar em_nn_requantize.
 */
#include "em_nn_data_movement.h"
#include "em_nn_support.h"

em_nn_status em_requantize_s8(const int8_t *input, int32_t count, const em_requantize_params *params,
                              int8_t *output)
{
    if (params == NULL || count < 0 || (count > 0 && (input == NULL || output == NULL))
        || params->output_multiplier < 0 || params->output_shift < -31 || params->output_shift > 30) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const em_requantize_params p = *params;
    int32_t i = 0;
#if EM_NN_TIER_MVE
    const int32x4_t multiplier = vdupq_n_s32(p.output_multiplier), shift = vdupq_n_s32(p.output_shift);
    const int32x4_t low = vdupq_n_s32(-128), high = vdupq_n_s32(127);
    for (; i < count; i += 4) {
        const mve_pred16_t lanes = vctp32q((uint32_t)(count - i));
        const int32x4_t x = vaddq_n_s32(vldrbq_z_s32(input + i, lanes), p.input_offset);
        const int32x4_t y = vaddq_n_s32(em_nn_requantize_mve(x, multiplier, shift), p.output_offset);
        vstrbq_p_s32(output + i, vmaxq_s32(vminq_s32(y, high), low), lanes);
    }
#endif
    for (; i < count; i++) {
        int32_t value = em_nn_requantize(input[i] + p.input_offset, p.output_multiplier, p.output_shift)
                        + p.output_offset;
        value = value < -128 ? -128 : (value > 127 ? 127 : value);
        output[i] = (int8_t)value;
    }
    return EM_NN_OK;
}
