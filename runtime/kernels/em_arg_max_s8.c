/**
 * @file em_arg_max_s8.c
 * @brief int8 arg max along one axis -> int32 indices, the first of equal codes
 *        (compiler/ops/arg_max.py: NumPy's and torch.argmax's rule).
 *
 * One scalar loop on every tier: a classifier's arg max reads a few dozen codes per inference,
 * a segmentation map's a few per pixel.
 */
#include <stddef.h>

#include "em_nn_functions.h"

em_nn_status em_arg_max_s8(const int8_t *input, int32_t outer, int32_t count, int32_t inner, int32_t *output)
{
    if (input == NULL || output == NULL || outer < 0 || count < 1 || inner < 0) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const size_t stride = (size_t)inner; /* between consecutive positions along the axis */
    for (int32_t o = 0; o < outer; o++) {
        const int8_t *block = input + (size_t)o * (size_t)count * stride;
        int32_t *out = output + (size_t)o * stride;
        for (size_t i = 0; i < stride; i++) {
            int32_t best = 0;
            int8_t largest = block[i];
            for (int32_t r = 1; r < count; r++) {
                const int8_t v = block[(size_t)r * stride + i];
                if (v > largest) { /* strictly: the first of equal codes stays */
                    largest = v;
                    best = r;
                }
            }
            out[i] = best;
        }
    }
    return EM_NN_OK;
}
