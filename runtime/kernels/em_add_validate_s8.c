/**
 * @file em_add_validate_s8.c
 * @brief em_add_s8_params_valid() and em_add_s16_params_valid(): the argument contracts of
 *        em_add_s8() and em_add_s16(), which both the kernels and the ADD adapter's check() test.
 *        Tier-neutral C: the host verifier of any tier builds it.
 */
#include <stdint.h>

#include "em_nn_functions.h"

bool em_add_s8_params_valid(const em_add_params *p)
{
    const bool offsets = p->a_offset >= -127 && p->a_offset <= 128 && p->b_offset >= -127
                         && p->b_offset <= 128 && p->output_offset >= -128 && p->output_offset <= 127;
    /* input multipliers of either sign (a negative one subtracts that input: SUB) */
    const bool multipliers = p->a_multiplier != INT32_MIN && p->b_multiplier != INT32_MIN
                             && p->output_multiplier >= 0;
    const bool shifts = p->a_shift >= -31 && p->a_shift <= 30 && p->b_shift >= -31 && p->b_shift <= 30
                        && p->output_shift >= -31 && p->output_shift <= 30;
    const bool clamps = p->activation_min >= -128 && p->activation_max <= 127
                        && p->activation_min <= p->activation_max;
    return offsets && multipliers && shifts && clamps;
}

bool em_add_s16_params_valid(const em_add_params *p)
{
    /* zero points 0 (A16W8's symmetric int16): |x| <= 2^15, so x << 13 and requantize's pre-shift
     * of up to 2 bits stay in int32 */
    const bool offsets = p->a_offset == 0 && p->b_offset == 0 && p->output_offset == 0;
    const bool multipliers = p->a_multiplier != INT32_MIN && p->b_multiplier != INT32_MIN
                             && p->output_multiplier >= 0;
    const bool shifts = p->a_shift >= -31 && p->a_shift <= 30 && p->b_shift >= -31 && p->b_shift <= 30
                        && p->output_shift >= -31 && p->output_shift <= 30;
    const bool clamps = p->activation_min >= -32768 && p->activation_max <= 32767
                        && p->activation_min <= p->activation_max;
    return offsets && multipliers && shifts && clamps;
}
