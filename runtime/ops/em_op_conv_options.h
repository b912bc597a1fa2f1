/**
 * @file em_op_conv_options.h
 * @brief Conv2DOptions as CONV_2D and DEPTHWISE_CONV_2D read them, and the output-size rule both
 *        check. Header-only (static inline) so that either op links without the other.
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
    em_status s = em_op_options(ctx, EM_OPTIONS_CONV_2D);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_STRIDE_H, 1, &p->stride_h);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_STRIDE_W, 1, &p->stride_w);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_DILATION_H, 1, &p->dilation_h);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_DILATION_W, 1, &p->dilation_w);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_PAD_TOP, 0, &p->pad_top);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_PAD_BOTTOM, 0, &p->pad_bottom);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_PAD_LEFT, 0, &p->pad_left);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_PAD_RIGHT, 0, &p->pad_right);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_GROUPS, 1, &p->groups);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_DEPTH_MULTIPLIER, 1, &p->depth_multiplier);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_INPUT_ZERO_POINT, 0, &p->input_zero_point);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_OUTPUT_OFFSET, 0, &p->output_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_ACTIVATION_MIN, -128, &p->activation_min);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_CONV_2D_OPTIONS_ACTIVATION_MAX, 127, &p->activation_max);
    if (s == EM_OK) s = em_op_option_vector(ctx, EM_CONV_2D_OPTIONS_OUTPUT_MULTIPLIER, multiplier);
    if (s == EM_OK) s = em_op_option_vector(ctx, EM_CONV_2D_OPTIONS_OUTPUT_SHIFT, shift);
    return s;
}

/** True when @p out is reference.output_size(...) and >= 1 (64-bit: no overflow). */
static inline bool em_conv_output_size_ok(int32_t out, int32_t size, int32_t kernel, int32_t stride, int32_t dilation,
                                          int32_t pad_before, int32_t pad_after)
{
    const int64_t span = (int64_t)size + pad_before + pad_after - (int64_t)dilation * (kernel - 1) - 1;
    return span >= 0 && out == span / stride + 1;
}

#endif /* EM_OP_CONV_OPTIONS_H */
