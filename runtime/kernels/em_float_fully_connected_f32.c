/**
 * @file em_float_fully_connected_f32.c
 * @brief Float fully connected: portable float32 C, sums in index order (em_nn_float.h).
 */
#include <stddef.h>

#include "em_nn_float_support.h"

em_nn_status em_float_fully_connected_f32(int32_t batches, int32_t input_features, int32_t output_features,
                                          const float *input, const float *weights, const float *bias,
                                          em_float_activation act, float *output)
{
    if (batches < 1 || input_features < 1 || output_features < 1 || input == NULL || weights == NULL
        || bias == NULL || output == NULL) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    for (int32_t b = 0; b < batches; b++) {
        const float *row = input + (size_t)b * (size_t)input_features;
        for (int32_t o = 0; o < output_features; o++) {
            const float *w = weights + (size_t)o * (size_t)input_features;
            float acc = bias[o];
            for (int32_t i = 0; i < input_features; i++) {
                acc += row[i] * w[i];
            }
            output[(size_t)b * (size_t)output_features + (size_t)o] = em_nn_float_clamp(acc, act.min, act.max);
        }
    }
    return EM_NN_OK;
}
