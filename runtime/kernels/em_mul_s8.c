/**
 * @file em_mul_s8.c
 * @brief int8 elementwise multiply with broadcasting, exactly compiler/reference.py:mul_s8.
 *
 * Scalar on every tier for now (squeeze-and-excitation gates are small next to the
 * convolutions around them); the requantization is em_nn_requantize, single rounding.
 */
#include "em_nn_functions.h"
#include "em_nn_support.h"

/** Index of operand element for output element (row, column) under broadcast kind @p how. */
static inline int32_t em_mul_index(int32_t how, int32_t row, int32_t column, int32_t inner)
{
    return how == EM_ADD_BROADCAST_SCALAR ? 0 : (how == EM_ADD_BROADCAST_ROW ? column : row * inner + column);
}

em_status em_mul_s8(const em_mul_params *params, const em_add_dims *dims, const int8_t *a, const int8_t *b,
                    int8_t *output)
{
    if (params == NULL || dims == NULL || a == NULL || b == NULL || output == NULL || dims->outer < 1
        || dims->inner < 1 || (int64_t)dims->outer * dims->inner > INT32_MAX || params->output_multiplier < 0
        || params->output_shift < -31 || params->output_shift > 30) {
        return EM_ERR_BAD_ARGUMENT;
    }
    const em_mul_params p = *params;
    for (int32_t row = 0; row < dims->outer; row++) {
        for (int32_t column = 0; column < dims->inner; column++) {
            const int32_t x = a[em_mul_index(dims->a_broadcast, row, column, dims->inner)] + p.a_offset;
            const int32_t y = b[em_mul_index(dims->b_broadcast, row, column, dims->inner)] + p.b_offset;
            int32_t value = em_nn_requantize(x * y, p.output_multiplier, p.output_shift) + p.output_offset;
            value = value < p.activation_min ? p.activation_min : (value > p.activation_max ? p.activation_max : value);
            output[row * dims->inner + column] = (int8_t)value;
        }
    }
    return EM_OK;
}
