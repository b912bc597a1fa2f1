/**
 * @file em_concat_copy_s8.c
 * @brief One input's rows into a concatenation's output, exactly compiler/reference.py:concat_s8
 *        (the inputs share the output's quantization, so this is a strided copy).
 */
#include <string.h>

#include "em_nn_functions.h"

em_nn_status em_concat_copy_s8(const int8_t *input, int32_t outer, int32_t inner, int32_t output_inner,
                               int32_t offset, int8_t *output)
{
    if (input == NULL || output == NULL || outer < 1 || inner < 1 || offset < 0
        || (int64_t)inner + offset > output_inner || (int64_t)outer * output_inner > INT32_MAX) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    for (int32_t row = 0; row < outer; row++) {
        /* memmove: a malformed program may place the output over the input (the planner never
         * does); memcpy would then be undefined. __builtin_: -ffreestanding firmware. */
        __builtin_memmove(output + (int64_t)row * output_inner + offset, input + (int64_t)row * inner, (size_t)inner);
    }
    return EM_NN_OK;
}
