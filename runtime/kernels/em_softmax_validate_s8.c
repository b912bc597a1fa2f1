/**
 * @file em_softmax_validate_s8.c
 * @brief em_softmax_s8_params_valid(): the argument contract of em_softmax_s8(), which both the
 *        kernel and the SOFTMAX adapter's check() test. Tier-neutral C: the host verifier of any
 *        tier builds it.
 */
#include "em_nn_functions.h"

bool em_softmax_s8_params_valid(const em_softmax_params *params, int32_t row_size)
{
    return params != NULL && row_size >= 1 && row_size <= EM_SOFTMAX_MAX_ROW && params->input_multiplier >= 0
           && params->input_left_shift >= 0 && params->input_left_shift <= 31 && params->diff_min <= 0;
}
