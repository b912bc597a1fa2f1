/**
 * @file em_float_max_pool_f32.c
 * @brief Float max pool, NHWC, portable float32 C: padded cells never win (em_nn_float.h).
 */
#include <stddef.h>

#include "em_nn_float_support.h"

em_nn_status em_float_max_pool_f32(const em_pool_dims *dims, const em_float_pool_params *params, const float *input,
                                   em_float_activation act, float *output)
{
    if (dims == NULL || params == NULL || input == NULL || output == NULL || params->stride_h < 1
        || params->stride_w < 1) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const size_t row = (size_t)dims->input_w * (size_t)dims->channels;
    float *out = output;
    for (int32_t n = 0; n < dims->batches; n++) {
        const float *image = input + (size_t)n * (size_t)dims->input_h * row;
        for (int32_t oy = 0; oy < dims->output_h; oy++) {
            const int32_t y0 = oy * params->stride_h - params->pad_top;
            for (int32_t ox = 0; ox < dims->output_w; ox++) {
                const int32_t x0 = ox * params->stride_w - params->pad_left;
                for (int32_t c = 0; c < dims->channels; c++) {
                    float m = -__builtin_inff();
                    for (int32_t y = y0; y < y0 + params->kernel_h; y++) {
                        for (int32_t x = x0; x < x0 + params->kernel_w; x++) {
                            if (y >= 0 && y < dims->input_h && x >= 0 && x < dims->input_w) {
                                const float v = image[(size_t)y * row + (size_t)x * (size_t)dims->channels + (size_t)c];
                                m = v > m ? v : m;
                            }
                        }
                    }
                    *out++ = em_nn_float_clamp(m, act.min, act.max);
                }
            }
        }
    }
    return EM_NN_OK;
}
