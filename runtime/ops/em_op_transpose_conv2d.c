/**
 * @file em_op_transpose_conv2d.c
 * @brief TRANSPOSE_CONV_2D adapter: input [N, H, W, C_IN] int8, weights [C_OUT, KH, KW, C_IN]
 *        int8 or int4, bias [C_OUT] int32 -> output [N, OH, OW, C_OUT] int8, TransposeConv2DOptions
 *        (per-channel multiplier / shift [C_OUT]).
 *
 * check() verifies the shapes (OH = (H − 1)·stride_h + KH − pad_top − pad_bottom, likewise OW),
 * the option ranges and every shift, so eval() only decodes and calls the kernel. The output
 * must not overlap the input. Scratch: an optional second output, for int4 weights only: they
 * are unpacked into it at every invoke (em_op_int4.h); the kernel itself takes none.
 */
#include "em_nn_functions.h"
#include "em_op_int4.h"
#include "em_op_support.h"

enum { EM_TCONV_INPUT, EM_TCONV_WEIGHTS, EM_TCONV_BIAS, EM_TCONV_N_INPUTS };

typedef struct {
    em_tensor in[EM_TCONV_N_INPUTS];
    em_tensor out[2]; /**< output; scratch of int4 weights (em_op_int4.h) */
    em_transpose_conv_params params;
    em_fb_vector multiplier, shift;
} em_tconv_args;

static em_status em_tconv_decode(const em_op_context *ctx, em_tconv_args *a)
{
    em_transpose_conv_params *p = &a->params;
    em_status s = em_op_operands(ctx, a->in, EM_TCONV_N_INPUTS, a->out, ctx->outputs.len); /* em_op_int4.h */
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_TRANSPOSE_CONV_2D);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_TRANSPOSE_CONV_2D_OPTIONS_STRIDE_H, 1, &p->stride_h);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_TRANSPOSE_CONV_2D_OPTIONS_STRIDE_W, 1, &p->stride_w);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_TRANSPOSE_CONV_2D_OPTIONS_PAD_TOP, 0, &p->pad_top);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_TRANSPOSE_CONV_2D_OPTIONS_PAD_BOTTOM, 0, &p->pad_bottom);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_TRANSPOSE_CONV_2D_OPTIONS_PAD_LEFT, 0, &p->pad_left);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_TRANSPOSE_CONV_2D_OPTIONS_PAD_RIGHT, 0, &p->pad_right);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_TRANSPOSE_CONV_2D_OPTIONS_INPUT_OFFSET, 0, &p->input_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_TRANSPOSE_CONV_2D_OPTIONS_OUTPUT_OFFSET, 0, &p->output_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_TRANSPOSE_CONV_2D_OPTIONS_ACTIVATION_MIN, -128, &p->activation_min);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_TRANSPOSE_CONV_2D_OPTIONS_ACTIVATION_MAX, 127, &p->activation_max);
    if (s == EM_OK) s = em_op_option_vector(ctx, EM_TRANSPOSE_CONV_2D_OPTIONS_OUTPUT_MULTIPLIER, &a->multiplier);
    if (s == EM_OK) s = em_op_option_vector(ctx, EM_TRANSPOSE_CONV_2D_OPTIONS_OUTPUT_SHIFT, &a->shift);
    return s;
}

static em_conv_dims em_tconv_dims(const em_tconv_args *a)
{
    const em_tensor *x = &a->in[EM_TCONV_INPUT], *w = &a->in[EM_TCONV_WEIGHTS];
    const em_conv_dims d = {em_op_dim(x, 0), em_op_dim(x, 1), em_op_dim(x, 2), em_op_dim(x, 3),
                            em_op_dim(w, 1), em_op_dim(w, 2), em_op_dim(&a->out[0], 1),
                            em_op_dim(&a->out[0], 2), em_op_dim(w, 0)};
    return d;
}

/** True when @p out = (size − 1)·stride + kernel − before − after and >= 1 (64-bit), with the
 *  unpadded extent (size − 1)·stride + kernel within int32: every index the kernel forms
 *  (y·stride + ky − before) then fits int32. */
static bool em_tconv_size_ok(int32_t out, int32_t size, int32_t kernel, int32_t stride, int32_t before,
                             int32_t after)
{
    const int64_t extent = (int64_t)(size - 1) * stride + kernel;
    const int64_t want = extent - before - after;
    return want >= 1 && extent <= INT32_MAX && out == want;
}

static em_status em_tconv_check(const em_op_context *ctx)
{
    em_tconv_args a;
    /* the arity before the decode reads the outputs (em_op_int4.h), the scratch after it */
    em_status s = em_op_weights_outputs_ok(ctx) ? em_tconv_decode(ctx, &a) : EM_ERR_BAD_OPERATOR;
    if (s == EM_OK && !em_op_weights_scratch_ok(ctx, &a.out[1])) {
        s = EM_ERR_BAD_OPERATOR;
    }
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *x = &a.in[EM_TCONV_INPUT], *w = &a.in[EM_TCONV_WEIGHTS];
    uint32_t kernel_scratch; /* unused: the kernel takes none */
    if (!em_op_is(x, EM_DTYPE_INT8, 4) || !em_op_weights_fit(w, 4, &a.out[1], &kernel_scratch)
        || !em_op_is(&a.in[EM_TCONV_BIAS], EM_DTYPE_INT32, 1) || !em_op_is(&a.out[0], EM_DTYPE_INT8, 4)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_conv_dims d = em_tconv_dims(&a);
    const em_transpose_conv_params *p = &a.params;
    if (d.batches < 1 || d.input_h < 1 || d.input_w < 1 || d.input_c < 1 || d.kernel_h < 1 || d.kernel_w < 1
        || d.output_c < 1 || em_op_dim(w, 3) != d.input_c || em_op_dim(&a.out[0], 0) != d.batches
        || em_op_dim(&a.out[0], 3) != d.output_c || em_op_dim(&a.in[EM_TCONV_BIAS], 0) != d.output_c
        || p->stride_h < 1 || p->stride_w < 1 || p->pad_top < 0 || p->pad_left < 0
        || !em_tconv_size_ok(d.output_h, d.input_h, d.kernel_h, p->stride_h, p->pad_top, p->pad_bottom)
        || !em_tconv_size_ok(d.output_w, d.input_w, d.kernel_w, p->stride_w, p->pad_left, p->pad_right)
        || p->input_offset < -127 || p->input_offset > 128 || !em_op_in_s8(p->output_offset)
        || !em_op_in_s8(p->activation_min) || !em_op_in_s8(p->activation_max)
        || p->activation_min > p->activation_max
        || !em_op_per_channel_quant_ok(ctx, &a.multiplier, &a.shift, d.output_c)) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_tconv_eval(const em_op_context *ctx)
{
    em_tconv_args a;
    em_status s = em_tconv_decode(ctx, &a);
    if (s == EM_OK && a.in[EM_TCONV_WEIGHTS].dtype == EM_DTYPE_INT4) {
        s = em_op_unpack_weights(&a.in[EM_TCONV_WEIGHTS], &a.out[1]);
    }
    if (s != EM_OK) {
        return s;
    }
    const em_conv_dims dims = em_tconv_dims(&a);
    const em_per_channel_quant quant = {em_op_vector_i32(ctx, &a.multiplier), em_op_vector_i32(ctx, &a.shift)};
    return em_op_status(em_transpose_conv2d_s8(&a.params, &quant, &dims, (const int8_t *)a.in[EM_TCONV_INPUT].data,
                                               (const int8_t *)a.in[EM_TCONV_WEIGHTS].data,
                                               (const int32_t *)a.in[EM_TCONV_BIAS].data, (int8_t *)a.out[0].data));
}

const em_op_registration em_op_transpose_conv2d = {EM_OP_TRANSPOSE_CONV_2D, "transpose_conv2d",
                                                   EM_OP_CHECK(em_tconv_check), EM_OP_EVAL(em_tconv_eval)};
