/**
 * @file em_transpose.c
 * @brief Transpose of any rank and element size, exactly compiler/reference.py:transpose.
 */
#include <stdbool.h>
#include <stddef.h>

#include "em_nn_data_movement.h"

em_nn_status em_transpose(const void *input, const em_nn_shape *in_shape, const int32_t *perm, int32_t element_size,
                          void *output)
{
    if (in_shape == NULL || perm == NULL || in_shape->rank < 0 || in_shape->rank > EM_NN_MAX_RANK) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const int32_t rank = in_shape->rank;
    int32_t in_strides[EM_NN_MAX_RANK];
    int32_t stride = 1;
    for (int32_t k = rank - 1; k >= 0; k--) {
        in_strides[k] = stride;
        stride *= in_shape->dims[k] > 0 ? in_shape->dims[k] : 1; /* em_strided_copy refuses dims < 1 */
    }
    em_nn_shape out_shape = {rank, {0}};
    int32_t strides[EM_NN_MAX_RANK];
    bool seen[EM_NN_MAX_RANK] = {false};
    for (int32_t k = 0; k < rank; k++) {
        if (perm[k] < 0 || perm[k] >= rank || seen[perm[k]]) {
            return EM_NN_ERR_BAD_ARGUMENT;
        }
        seen[perm[k]] = true;
        out_shape.dims[k] = in_shape->dims[perm[k]];
        strides[k] = in_strides[perm[k]];
    }
    return em_strided_copy(input, &out_shape, strides, element_size, output);
}
