/**
 * @file em_op_depthwise_conv2d.c
 * @brief DEPTHWISE_CONV_2D adapter: input [N, H, W, C] int8, weights [KH, KW, C·M] int8,
 *        bias [C·M] int32 -> output [N, OH, OW, C·M] int8; Conv2DOptions (strides, dilations,
 *        paddings, depth_multiplier M, zero points, clamps, per-channel multiplier/shift [C·M]).
 *
 * check() verifies everything em_depthwise_conv2d_s8() relies on, so that a malformed operator
 * is EM_ERR_BAD_OPERATOR at load and eval() calls the kernel without further checks. groups
 * must be absent or 1. The output may overlap the input only as em_depthwise_conv2d_s8() allows
 * (its pixel-order fast path, from the planner's margin: compiler/in_place.py). Scratch: an
 * optional second output (em_op_operands_scratch), the Helium fast path's padded input rows.
 * Operands and options are read by em_conv_decode(), shared with CONV_2D (em_op_conv_options.c).
 */
#include "em_nn_functions.h"
#include "em_op_conv_options.h"
#include "em_op_support.h"

/** Kernel dims from the verified shapes. */
static em_conv_dims em_dw_dims(const em_conv_args *a)
{
    const em_tensor *x = &a->in[EM_CONV_INPUT], *w = &a->in[EM_CONV_WEIGHTS];
    const em_conv_dims d = {em_op_dim(x, 0), em_op_dim(x, 1), em_op_dim(x, 2), em_op_dim(x, 3),
                            em_op_dim(w, 0), em_op_dim(w, 1), em_op_dim(&a->output, 1),
                            em_op_dim(&a->output, 2), em_op_dim(w, 2)};
    return d;
}

static em_status em_dw_check(const em_op_context *ctx)
{
    em_conv_args a;
    const em_status s = em_conv_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    if (!em_op_is(&a.in[EM_CONV_INPUT], EM_DTYPE_INT8, 4) || !em_op_is(&a.in[EM_CONV_WEIGHTS], EM_DTYPE_INT8, 3)
        || !em_op_is(&a.in[EM_CONV_BIAS], EM_DTYPE_INT32, 1) || !em_op_is(&a.output, EM_DTYPE_INT8, 4)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_conv_dims d = em_dw_dims(&a);
    const em_conv_params *p = &a.params;
    /* The kernel's contract first (em_conv_s8_validate), then what only the operands tell. */
    if (!em_op_per_channel_quant_ok(ctx, &a.multiplier, &a.shift, d.output_c)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_per_channel_quant quant = {em_op_vector_i32(ctx, &a.multiplier), em_op_vector_i32(ctx, &a.shift)};
    if (em_conv_s8_validate(p, &quant, &d, true) != EM_OK || p->groups != 1
        || em_op_dim(&a.in[EM_CONV_BIAS], 0) != d.output_c || em_op_dim(&a.output, 0) != d.batches
        || em_op_dim(&a.output, 3) != d.output_c) {
        return EM_ERR_BAD_OPERATOR;
    }
    /* The kernels index with int32: every tensor below 2 GiB. */
    if (a.in[EM_CONV_INPUT].size > INT32_MAX || a.in[EM_CONV_WEIGHTS].size > INT32_MAX || a.output.size > INT32_MAX) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_dw_eval(const em_op_context *ctx)
{
    em_conv_args a;
    const em_status s = em_conv_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_conv_dims dims = em_dw_dims(&a);
    const em_per_channel_quant quant = {em_op_vector_i32(ctx, &a.multiplier),
                                        em_op_vector_i32(ctx, &a.shift)};
    const em_nn_context nn = {a.scratch.data, (int32_t)a.scratch.size}; /* arena: 16-byte aligned */
    return em_depthwise_conv2d_s8(&nn, &a.params, &quant, &dims,
                                  (const int8_t *)a.in[EM_CONV_INPUT].data,
                                  (const int8_t *)a.in[EM_CONV_WEIGHTS].data,
                                  (const int32_t *)a.in[EM_CONV_BIAS].data, (int8_t *)a.output.data);
}

const em_op_registration em_op_depthwise_conv2d = {EM_OP_DEPTHWISE_CONV_2D, "depthwise_conv2d",
                                                   em_dw_check, em_dw_eval};
