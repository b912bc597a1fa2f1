/**
 * @file em_float_softmax_f32.c
 * @brief Float softmax over the last axis: max, expf of the differences, sum in index order,
 *        one division per element (em_nn_float.h).
 */
#include <stddef.h>

#include "em_nn_float_support.h"

em_nn_status em_float_softmax_f32(int32_t rows, int32_t depth, const float *input, float *output)
{
    if (rows < 1 || depth < 1 || input == NULL || output == NULL) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    for (int32_t r = 0; r < rows; r++) {
        const float *x = input + (size_t)r * (size_t)depth;
        float *y = output + (size_t)r * (size_t)depth;
        float max = x[0];
        for (int32_t i = 1; i < depth; i++) {
            max = x[i] > max ? x[i] : max;
        }
        float sum = 0.0f;
        for (int32_t i = 0; i < depth; i++) {
            y[i] = __builtin_expf(x[i] - max); /* in place is fine: x[i] is read before y[i] is written */
            sum += y[i];
        }
        for (int32_t i = 0; i < depth; i++) {
            y[i] = y[i] / sum;
        }
    }
    return EM_NN_OK;
}
