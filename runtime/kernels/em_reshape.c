/**
 * @file em_reshape.c
 * @brief Reshape: the bytes stay in order, so at most one memmove (none when aliased).
 */
#include <stddef.h>

#include "em_nn_data_movement.h"

em_nn_status em_reshape(const void *input, int32_t bytes, void *output)
{
    if (input == NULL || output == NULL || bytes < 0) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    if (input != output) {
        __builtin_memmove(output, input, (size_t)bytes);
    }
    return EM_NN_OK;
}
