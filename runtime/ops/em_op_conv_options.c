/**
 * @file em_op_conv_options.c
 * @brief em_conv_decode(): the operand and Conv2DOptions reader CONV_2D and DEPTHWISE_CONV_2D
 *        share (em_op_conv_options.h).
 */
#include "em_op_conv_options.h"

em_status em_conv_decode(const em_op_context *ctx, em_conv_args *a)
{
    /* Slots STRIDE_H (0) .. ACTIVATION_MAX (13) are em_conv_params' int32 fields in order: one
     * shared loop over a table of defaults, not 14 inlined field reads (about 900 bytes per op). */
    _Static_assert(sizeof(em_conv_params) == 14u * sizeof(int32_t) && EM_CONV_2D_OPTIONS_STRIDE_H == 0
                       && EM_CONV_2D_OPTIONS_ACTIVATION_MAX == 13,
                   "em_conv_params must be the options' slots 0..13 in order");
    static const int8_t defaults[14] = {1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, -128, 127};
    em_status s = em_op_operands_scratch(ctx, a->in, EM_CONV_N_INPUTS, &a->output, &a->scratch);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_CONV_2D);
    if (s == EM_OK) s = em_op_option_i32s(ctx, 0u, defaults, 14u, (int32_t *)(void *)&a->params);
    if (s == EM_OK) s = em_op_option_vector(ctx, EM_CONV_2D_OPTIONS_OUTPUT_MULTIPLIER, &a->multiplier);
    if (s == EM_OK) s = em_op_option_vector(ctx, EM_CONV_2D_OPTIONS_OUTPUT_SHIFT, &a->shift);
    return s;
}
