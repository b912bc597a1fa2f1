/**
 * @file em_slice.c
 * @brief Strided slice of any rank and element size, exactly compiler/reference.py:slice_.
 */
#include <stddef.h>

#include "em_nn_data_movement.h"

em_nn_status em_slice(const void *input, const em_nn_shape *in_shape, const int32_t *begin, const int32_t *step,
                      const em_nn_shape *out_shape, int32_t element_size, void *output)
{
    if (input == NULL || in_shape == NULL || out_shape == NULL || begin == NULL || step == NULL
        || in_shape->rank != out_shape->rank || in_shape->rank < 0 || in_shape->rank > EM_NN_MAX_RANK) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const int32_t rank = in_shape->rank;
    int32_t strides[EM_NN_MAX_RANK];
    int64_t stride = 1, base = 0;
    for (int32_t k = rank - 1; k >= 0; k--) {
        const int64_t last = begin[k] + (int64_t)(out_shape->dims[k] - 1) * step[k];
        if (begin[k] < 0 || step[k] < 1 || out_shape->dims[k] < 1 || last >= in_shape->dims[k]
            || stride * step[k] > INT32_MAX) {
            return EM_NN_ERR_BAD_ARGUMENT;
        }
        strides[k] = (int32_t)(stride * step[k]);
        base += stride * begin[k];
        stride *= in_shape->dims[k];
    }
    return em_strided_copy((const uint8_t *)input + base * element_size, out_shape, strides, element_size, output);
}
