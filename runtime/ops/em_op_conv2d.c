/**
 * @file em_op_conv2d.c
 * @brief CONV_2D adapter: input [N, H, W, C_IN] int8, weights [C_OUT, KH, KW, C_IN / groups]
 *        int8 or int4, bias [C_OUT] int32 -> output [N, OH, OW, C_OUT] int8; Conv2DOptions (strides,
 *        dilations, paddings, groups, zero points, clamps, per-channel multiplier/shift [C_OUT]).
 *        A16W8: input and output int16 (zero points 0), weights int8 -> em_conv2d_s16().
 *
 * check() verifies everything em_conv2d_s8() relies on, so that a malformed operator is
 * EM_ERR_BAD_OPERATOR at load and eval() calls the kernel's unchecked body, em_conv2d_s8_trusted(). depth_multiplier
 * must be absent or 1. The output may overlap the input only as em_conv2d_s8() allows (the
 * planner's in-place margin, compiler/in_place.py).
 *
 * Scratch: an optional second output, a 1-D int8 arena tensor the planner sized with the tier's
 * em_conv2d_s8_get_buffer_size() (compiler/scratch.py), into which the kernels pack patches
 * (im2col): as many columns as fit (MVE: up to 4, DSP: a pixel pair and its interleaved copy,
 * scalar: one). Without it they read taps in place (same bytes, more instructions). No stack.
 * int4 weights (A8W4) are unpacked into the scratch's start at every invoke, and the kernel gets
 * the rest of it (em_op_int4.h; none left: as without scratch).
 */
#include "em_nn_functions.h"
#include "em_op_conv_options.h"
#include "em_op_int4.h"
#include "em_op_support.h"

/* check(): em_conv_check (em_op_conv_options.c), shared with the DEPTHWISE_CONV_2D adapter. */
static em_status em_conv2d_check(const em_op_context *ctx)
{
    return em_conv_check(ctx, false);
}

static em_status em_conv2d_eval(const em_op_context *ctx)
{
    em_conv_args a;
    em_status s = em_conv_decode(ctx, &a);
    if (s == EM_OK && a.in[EM_CONV_WEIGHTS].dtype == EM_DTYPE_INT4) {
        s = em_op_unpack_weights(&a.in[EM_CONV_WEIGHTS], &a.scratch); /* into the scratch's start */
    }
    if (s != EM_OK) {
        return s;
    }
    const em_conv_dims dims = em_conv_dims_of(&a, false);
    const em_per_channel_quant quant = {em_op_vector_i32(ctx, &a.multiplier),
                                        em_op_vector_i32(ctx, &a.shift)};
    const em_nn_context nn = {a.scratch.data, (int32_t)a.scratch.size, a.paths}; /* arena: 16-byte aligned */
    if (a.in[EM_CONV_INPUT].dtype == EM_DTYPE_INT16) { /* A16W8 (check(): int8 weights, EM_NN_S16_LINKED) */
        return em_op_status(em_conv2d_s16_trusted(&nn, &a.params, &quant, &dims,
                                                  (const int16_t *)a.in[EM_CONV_INPUT].data,
                                                  (const int8_t *)a.in[EM_CONV_WEIGHTS].data,
                                                  (const int32_t *)a.in[EM_CONV_BIAS].data, (int16_t *)a.output.data));
    }
    return em_op_status(em_conv2d_s8_trusted(&nn, &a.params, &quant, &dims, (const int8_t *)a.in[EM_CONV_INPUT].data,
                                             (const int8_t *)a.in[EM_CONV_WEIGHTS].data,
                                             (const int32_t *)a.in[EM_CONV_BIAS].data, (int8_t *)a.output.data));
}

const em_op_registration em_op_conv2d = {EM_OP_CONV_2D, "conv2d", EM_OP_CHECK(em_conv2d_check),
                                         EM_OP_EVAL(em_conv2d_eval)};
