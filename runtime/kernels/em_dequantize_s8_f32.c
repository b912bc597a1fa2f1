/**
 * @file em_dequantize_s8_f32.c
 * @brief int8 -> float32 dequantization, exactly compiler/reference.py:dequantize_s8_f32.
 *
 * Float32 only; build with -ffp-contract=off. One scalar path on every tier.
 */
#include "em_nn_functions.h"

em_status em_dequantize_s8_f32(const int8_t *input, int32_t count, float scale,
                               int32_t zero_point, float *output)
{
    if (count < 0 || (count > 0 && (input == NULL || output == NULL))) {
        return EM_ERR_BAD_ARGUMENT;
    }
    for (int32_t i = 0; i < count; i++) {
        const float centred = (float)((int32_t)input[i] - zero_point);
        output[i] = centred * scale;
    }
    return EM_OK;
}
