/**
 * @file em_mul_validate_s16.c
 * @brief em_mul_params_valid(): the ranges em_mul_s8 / em_mul_s16 take (em_nn_functions.h), in a
 *        file of its own so that the host verifier (tools/em_verify), which links the adapters
 *        and the kernels' contracts but no kernel, checks a mul exactly as the device does.
 */
#include <stdbool.h>

#include "em_nn_functions.h"

bool em_mul_params_valid(const em_mul_params *p, bool wide)
{
    const bool offsets = wide ? p->a_offset == 0 && p->b_offset == 0 && p->output_offset == 0
                              : p->a_offset >= -127 && p->a_offset <= 128 && p->b_offset >= -127
                                    && p->b_offset <= 128 && p->output_offset >= INT8_MIN && p->output_offset <= INT8_MAX;
    const int32_t lo = wide ? INT16_MIN : INT8_MIN, hi = wide ? INT16_MAX : INT8_MAX;
    return offsets && p->output_multiplier >= 0 && p->output_shift >= -31 && p->output_shift <= 30
           && p->activation_min >= lo && p->activation_max <= hi && p->activation_min <= p->activation_max;
}
