/**
 * @file em_norm_validate_s8.c
 * @brief em_norm_s8_params_valid(): the argument contract of em_norm_s8(), which both the kernel
 *        and the NORM adapter's check() test. Tier-neutral C: the host verifier of any tier builds it.
 */
#include "em_nn_functions.h"

/** Bits of @p x (0 for 0). */
static int32_t em_nn_bit_length(uint64_t x)
{
    return x == 0u ? 0 : 64 - __builtin_clzll(x);
}

bool em_norm_s8_params_valid(const em_norm_params *params, int32_t depth)
{
    if (params == NULL || depth < 1 || depth > EM_NORM_MAX_DEPTH) {
        return false;
    }
    const em_norm_params *p = params;
    const uint64_t d = (uint64_t)depth;
    /* V < D²·2^16 (|q − centre| <= 255): V·2^F + E < 2^62, so T and every shift of it fit */
    return (p->mode == 0 || p->mode == 1) && p->input_zero_point >= -128 && p->input_zero_point <= 127
           && p->epsilon_high >= 0 && p->epsilon_high < (1 << 30) && p->epsilon_low >= 0
           && p->epsilon_shift >= 0 && (p->epsilon_shift & 1) == 0
           && em_nn_bit_length((d * d) << 16) + p->epsilon_shift <= 61
           && p->norm_bits >= 0 && p->norm_bits <= 30 && d <= ((uint64_t)1 << (60 - 2 * p->norm_bits))
           && p->output_shift >= 1 && p->output_shift <= 24;
}
