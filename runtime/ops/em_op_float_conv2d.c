/**
 * @file em_op_float_conv2d.c
 * @brief FLOAT_CONV_2D adapter: input [N, H, W, C_IN] float32, weights [C_OUT, KH, KW, C_IN / groups],
 *        bias [C_OUT] -> output [N, OH, OW, C_OUT], FloatConv2DOptions. check() verifies the
 *        geometry (OH, OW by the output size formula, each input extent plus its pads within
 *        int32) so eval() never reads out of bounds and forms every index in int32 without overflow.
 */
#include "em_nn_functions.h" /* em_nn_output_size_ok */
#include "em_op_float.h"

enum { EM_FCONV_INPUT, EM_FCONV_WEIGHTS, EM_FCONV_BIAS, EM_FCONV_N_INPUTS };

typedef struct {
    em_tensor in[EM_FCONV_N_INPUTS];
    em_tensor output;
    em_float_conv_params params;
    int32_t pad_bottom, pad_right;
    em_float_activation act;
} em_fconv_args;

static em_status em_fconv_decode(const em_op_context *ctx, em_fconv_args *a)
{
    em_float_conv_params *p = &a->params;
    em_status s = em_op_operands(ctx, a->in, EM_FCONV_N_INPUTS, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_FLOAT_CONV_2D);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_CONV_2D_OPTIONS_STRIDE_H, 1, &p->stride_h);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_CONV_2D_OPTIONS_STRIDE_W, 1, &p->stride_w);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_CONV_2D_OPTIONS_DILATION_H, 1, &p->dilation_h);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_CONV_2D_OPTIONS_DILATION_W, 1, &p->dilation_w);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_CONV_2D_OPTIONS_PAD_TOP, 0, &p->pad_top);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_CONV_2D_OPTIONS_PAD_BOTTOM, 0, &a->pad_bottom);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_CONV_2D_OPTIONS_PAD_LEFT, 0, &p->pad_left);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_CONV_2D_OPTIONS_PAD_RIGHT, 0, &a->pad_right);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_CONV_2D_OPTIONS_GROUPS, 1, &p->groups);
    if (s == EM_OK) {
        s = em_op_float_activation(ctx, EM_FLOAT_CONV_2D_OPTIONS_ACTIVATION_MIN,
                                   EM_FLOAT_CONV_2D_OPTIONS_ACTIVATION_MAX, &a->act);
    }
    return s;
}

static em_conv_dims em_fconv_dims(const em_fconv_args *a)
{
    const em_tensor *x = &a->in[EM_FCONV_INPUT], *w = &a->in[EM_FCONV_WEIGHTS];
    return (em_conv_dims){em_op_dim(x, 0), em_op_dim(x, 1), em_op_dim(x, 2), em_op_dim(x, 3), em_op_dim(w, 1),
                          em_op_dim(w, 2), em_op_dim(&a->output, 1), em_op_dim(&a->output, 2), em_op_dim(w, 0)};
}

static em_status em_fconv_check(const em_op_context *ctx)
{
    em_fconv_args a;
    const em_status s = em_fconv_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_float_conv_params *p = &a.params;
    if (!em_op_is_float(&a.in[EM_FCONV_INPUT]) || a.in[EM_FCONV_INPUT].rank != 4
        || !em_op_is_float(&a.in[EM_FCONV_WEIGHTS]) || a.in[EM_FCONV_WEIGHTS].rank != 4
        || !em_op_is_float(&a.in[EM_FCONV_BIAS]) || a.in[EM_FCONV_BIAS].rank != 1 || !em_op_is_float(&a.output)
        || a.output.rank != 4 || !em_op_float_activation_ok(&a.act)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_conv_dims d = em_fconv_dims(&a);
    if (p->stride_h < 1 || p->stride_w < 1 || p->dilation_h < 1 || p->dilation_w < 1 || p->pad_top < 0
        || a.pad_bottom < 0 || p->pad_left < 0 || a.pad_right < 0 || p->groups < 1 || d.output_c % p->groups != 0
        || (int64_t)em_op_dim(&a.in[EM_FCONV_WEIGHTS], 3) * p->groups != d.input_c
        || em_op_dim(&a.in[EM_FCONV_BIAS], 0) != d.output_c || em_op_dim(&a.output, 0) != d.batches
        || em_op_dim(&a.output, 3) != d.output_c
        /* the int8 convolutions' bound: every index the kernel forms fits int32 */
        || !em_nn_output_size_ok(d.output_h, d.input_h, d.kernel_h, p->stride_h, p->dilation_h, p->pad_top,
                                 a.pad_bottom)
        || !em_nn_output_size_ok(d.output_w, d.input_w, d.kernel_w, p->stride_w, p->dilation_w, p->pad_left,
                                 a.pad_right)) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_fconv_eval(const em_op_context *ctx)
{
    em_fconv_args a;
    const em_status s = em_fconv_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_conv_dims d = em_fconv_dims(&a);
    return em_op_status(em_float_conv2d_f32(&d, &a.params, (const float *)a.in[EM_FCONV_INPUT].data,
                                            (const float *)a.in[EM_FCONV_WEIGHTS].data,
                                            (const float *)a.in[EM_FCONV_BIAS].data, a.act,
                                            (float *)a.output.data));
}

const em_op_registration em_op_float_conv2d = {EM_OP_FLOAT_CONV_2D, "float_conv2d", EM_OP_CHECK(em_fconv_check),
                                               EM_OP_EVAL(em_fconv_eval)};
