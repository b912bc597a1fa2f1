/**
 * @file em_op_conv_options.h
 * @brief Conv2DOptions as CONV_2D and DEPTHWISE_CONV_2D read them (both check output sizes
 *        with em_nn_output_size_ok). Header-only (static inline) so that either op links
 *        without the other.
 */
#ifndef EM_OP_CONV_OPTIONS_H
#define EM_OP_CONV_OPTIONS_H

#include <stdbool.h>

#include "em_nn_types.h"
#include "em_op_support.h"

/**
 * Reads the operator's Conv2DOptions (checked in check(), trusted in eval()) into @p p and the
 * per-channel @p multiplier / @p shift vectors. @return EM_OK, EM_ERR_BAD_OPERATOR or (check()
 * only) a reader status.
 */
static inline em_status em_conv_options_decode(const em_op_context *ctx, em_conv_params *p, em_fb_vector *multiplier,
                                               em_fb_vector *shift)
{
    /* Slots STRIDE_H (0) .. ACTIVATION_MAX (13) are em_conv_params' int32 fields in order: one
     * shared loop over a table of defaults, not 14 inlined field reads (about 900 bytes per op). */
    _Static_assert(sizeof(em_conv_params) == 14u * sizeof(int32_t) && EM_CONV_2D_OPTIONS_STRIDE_H == 0
                       && EM_CONV_2D_OPTIONS_ACTIVATION_MAX == 13,
                   "em_conv_params must be the options' slots 0..13 in order");
    static const int8_t defaults[14] = {1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, -128, 127};
    int32_t *const field = (int32_t *)(void *)p;
    em_status s = em_op_options(ctx, EM_OPTIONS_CONV_2D);
    if (s == EM_OK) s = em_op_option_i32s(ctx, 0u, defaults, 14u, field);
    if (s == EM_OK) s = em_op_option_vector(ctx, EM_CONV_2D_OPTIONS_OUTPUT_MULTIPLIER, multiplier);
    if (s == EM_OK) s = em_op_option_vector(ctx, EM_CONV_2D_OPTIONS_OUTPUT_SHIFT, shift);
    return s;
}

#endif /* EM_OP_CONV_OPTIONS_H */
