/**
 * @file em_op_float_pool.h
 * @brief FloatPool2DOptions as FLOAT_MAX_POOL_2D and FLOAT_AVG_POOL_2D read them, and the shape
 *        checks both make: input and output [N, H, W, C] float32, kernel and stride >= 1,
 *        0 <= padding < kernel (every window holds a cell of the input), OH / OW by the output
 *        size formula. Header-only (static inline) so that either op links without the other.
 */
#ifndef EM_OP_FLOAT_POOL_H
#define EM_OP_FLOAT_POOL_H

#include "em_op_float.h"
#include "em_op_pool_options.h"

typedef struct {
    em_tensor input, output;
    em_float_pool_params params;
    int32_t pad_bottom, pad_right;
    em_float_activation act;
} em_float_pool_args;

static inline em_status em_float_pool_decode(const em_op_context *ctx, em_float_pool_args *a)
{
    em_float_pool_params *p = &a->params;
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_FLOAT_POOL_2D);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_POOL_2D_OPTIONS_KERNEL_H, 0, &p->kernel_h);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_POOL_2D_OPTIONS_KERNEL_W, 0, &p->kernel_w);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_POOL_2D_OPTIONS_STRIDE_H, 1, &p->stride_h);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_POOL_2D_OPTIONS_STRIDE_W, 1, &p->stride_w);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_POOL_2D_OPTIONS_PAD_TOP, 0, &p->pad_top);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_POOL_2D_OPTIONS_PAD_BOTTOM, 0, &a->pad_bottom);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_POOL_2D_OPTIONS_PAD_LEFT, 0, &p->pad_left);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_POOL_2D_OPTIONS_PAD_RIGHT, 0, &a->pad_right);
    if (s == EM_OK) {
        s = em_pool_option_bool(ctx, EM_FLOAT_POOL_2D_OPTIONS_COUNT_INCLUDE_PAD, true, &p->count_include_pad);
    }
    if (s == EM_OK) {
        s = em_op_float_activation(ctx, EM_FLOAT_POOL_2D_OPTIONS_ACTIVATION_MIN, EM_FLOAT_POOL_2D_OPTIONS_ACTIVATION_MAX,
                                   &a->act);
    }
    return s;
}

static inline em_pool_dims em_float_pool_dims(const em_float_pool_args *a)
{
    return (em_pool_dims){em_op_dim(&a->input, 0), em_op_dim(&a->input, 1), em_op_dim(&a->input, 2),
                          em_op_dim(&a->input, 3), em_op_dim(&a->output, 1), em_op_dim(&a->output, 2)};
}

/** The window holds an input cell at every position: 0 <= pads < kernel, and @p out positions;
 *  size + pads within int32. */
static inline bool em_float_pool_axis_ok(int32_t size, int32_t kernel, int32_t stride, int32_t before,
                                         int32_t after, int32_t out)
{
    if (kernel < 1 || stride < 1 || before < 0 || after < 0 || before >= kernel || after >= kernel) {
        return false;
    }
    const int64_t padded = (int64_t)size + before + after; /* int32: the kernels' indices then fit (em_nn_output_size_ok) */
    const int64_t span = padded - kernel;
    return span >= 0 && padded <= INT32_MAX && out == span / stride + 1;
}

static inline em_status em_float_pool_check(const em_op_context *ctx)
{
    em_float_pool_args a;
    const em_status s = em_float_pool_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_float_pool_params *p = &a.params;
    if (!em_op_is_float(&a.input) || a.input.rank != 4 || !em_op_is_float(&a.output) || a.output.rank != 4
        || !em_op_float_activation_ok(&a.act)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_pool_dims d = em_float_pool_dims(&a);
    if (em_op_dim(&a.output, 0) != d.batches || em_op_dim(&a.output, 3) != d.channels
        || (int64_t)p->kernel_h * p->kernel_w > (1 << 24) /* kernel area exact in float */
        || !em_float_pool_axis_ok(d.input_h, p->kernel_h, p->stride_h, p->pad_top, a.pad_bottom, d.output_h)
        || !em_float_pool_axis_ok(d.input_w, p->kernel_w, p->stride_w, p->pad_left, a.pad_right, d.output_w)) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

#endif /* EM_OP_FLOAT_POOL_H */
