/**
 * @file em_requantize_s8.c
 * @brief int8 requantization onto another scale and zero point, exactly
 *        compiler/reference.py:requantize_s8 (em_nn_requantize: single rounding).
 *
 * Scalar on every tier: it runs only where a concatenation's inputs were quantized apart,
 * once per element, next to convolutions that do hundreds of MACs per element.
 */
#include "em_nn_data_movement.h"
#include "em_nn_support.h"

em_status em_requantize_s8(const int8_t *input, int32_t count, const em_requantize_params *params,
                           int8_t *output)
{
    if (params == NULL || count < 0 || (count > 0 && (input == NULL || output == NULL))
        || params->output_multiplier < 0 || params->output_shift < -31 || params->output_shift > 30) {
        return EM_ERR_BAD_ARGUMENT;
    }
    const em_requantize_params p = *params;
    for (int32_t i = 0; i < count; i++) {
        int32_t value = em_nn_requantize(input[i] + p.input_offset, p.output_multiplier, p.output_shift)
                        + p.output_offset;
        value = value < -128 ? -128 : (value > 127 ? 127 : value);
        output[i] = (int8_t)value;
    }
    return EM_OK;
}
