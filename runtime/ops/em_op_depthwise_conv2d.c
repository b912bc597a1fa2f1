/**
 * @file em_op_depthwise_conv2d.c
 * @brief DEPTHWISE_CONV_2D adapter: input [N, H, W, C] int8, weights [KH, KW, C·M] int8 or int4,
 *        bias [C·M] int32 -> output [N, OH, OW, C·M] int8; Conv2DOptions (strides, dilations,
 *        paddings, depth_multiplier M, zero points, clamps, per-channel multiplier/shift [C·M]).
 *        A16W8: input and output int16 (zero points 0), weights int8 -> em_depthwise_conv2d_s16().
 *
 * check() verifies everything em_depthwise_conv2d_s8() relies on, so that a malformed operator
 * is EM_ERR_BAD_OPERATOR at load and eval() calls its unchecked body (em_depthwise_conv2d_s8_trusted). groups
 * must be absent or 1. The output may overlap the input only as em_depthwise_conv2d_s8() allows
 * (its pixel-order fast path, from the planner's margin: compiler/in_place.py). Scratch: an
 * optional second output (em_op_operands_scratch), the Helium fast path's padded input rows,
 * after int4 weights, which are unpacked into its start at every invoke (em_op_int4.h).
 * Operands and options are read by em_conv_decode(), shared with CONV_2D (em_op_conv_options.c).
 */
#include "em_nn_functions.h"
#include "em_op_conv_options.h"
#include "em_op_int4.h"
#include "em_op_support.h"

/* check(): em_conv_check (em_op_conv_options.c), shared with the CONV_2D adapter. */
static em_status em_dw_check(const em_op_context *ctx)
{
    return em_conv_check(ctx, true);
}

static em_status em_dw_eval(const em_op_context *ctx)
{
    em_conv_args a;
    em_status s = em_conv_decode(ctx, &a);
    if (s == EM_OK && a.in[EM_CONV_WEIGHTS].dtype == EM_DTYPE_INT4) {
        s = em_op_unpack_weights(&a.in[EM_CONV_WEIGHTS], &a.scratch); /* into the scratch's start */
    }
    if (s != EM_OK) {
        return s;
    }
    const em_conv_dims dims = em_conv_dims_of(&a, true);
    const em_per_channel_quant quant = {em_op_vector_i32(ctx, &a.multiplier),
                                        em_op_vector_i32(ctx, &a.shift)};
    const em_nn_context nn = {a.scratch.data, (int32_t)a.scratch.size, a.paths}; /* arena: 16-byte aligned */
    if (a.in[EM_CONV_INPUT].dtype == EM_DTYPE_INT16) { /* A16W8 (check(): int8 weights, EM_NN_S16_LINKED) */
        return em_op_status(em_depthwise_conv2d_s16_trusted(&nn, &a.params, &quant, &dims,
                                                            (const int16_t *)a.in[EM_CONV_INPUT].data,
                                                            (const int8_t *)a.in[EM_CONV_WEIGHTS].data,
                                                            (const int32_t *)a.in[EM_CONV_BIAS].data,
                                                            (int16_t *)a.output.data));
    }
    return em_op_status(em_depthwise_conv2d_s8_trusted(&nn, &a.params, &quant, &dims,
                                                       (const int8_t *)a.in[EM_CONV_INPUT].data,
                                                       (const int8_t *)a.in[EM_CONV_WEIGHTS].data,
                                                       (const int32_t *)a.in[EM_CONV_BIAS].data, (int8_t *)a.output.data));
}

const em_op_registration em_op_depthwise_conv2d = {EM_OP_DEPTHWISE_CONV_2D, "depthwise_conv2d",
                                                   EM_OP_CHECK(em_dw_check), EM_OP_EVAL(em_dw_eval)};
