/**
 * @file em_float_layer_norm_f32.c
 * @brief Float layer norm over the last axis: mean and biased variance summed in index order,
 *        1 / sqrtf(var + epsilon), then the affine weight and bias (em_nn_float.h); RMS norm
 *        takes mean 0.
 */
#include <stddef.h>

#include "em_nn_float_support.h"

em_nn_status em_float_layer_norm_f32(int32_t rows, int32_t depth, const float *input, const float *weight,
                                     const float *bias, float epsilon, int32_t rms, float *output)
{
    if (rows < 1 || depth < 1 || input == NULL || weight == NULL || bias == NULL || output == NULL) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const float n = (float)depth;
    for (int32_t r = 0; r < rows; r++) {
        const float *x = input + (size_t)r * (size_t)depth;
        float *y = output + (size_t)r * (size_t)depth;
        float sum = 0.0f;
        for (int32_t i = 0; i < depth && !rms; i++) {
            sum += x[i];
        }
        const float mean = rms ? 0.0f : sum / n;
        float squares = 0.0f;
        for (int32_t i = 0; i < depth; i++) {
            const float d = x[i] - mean;
            squares += d * d;
        }
        const float inv = 1.0f / __builtin_sqrtf(squares / n + epsilon);
        for (int32_t i = 0; i < depth; i++) {
            y[i] = (x[i] - mean) * inv * weight[i] + bias[i];
        }
    }
    return EM_NN_OK;
}
