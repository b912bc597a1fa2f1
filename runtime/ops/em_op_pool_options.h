/**
 * @file em_op_pool_options.h
 * @brief Pool2DOptions as MAX_POOL_2D and AVG_POOL_2D read them, and the shape checks both make
 *        (ranks, dtypes, N and C, and the window contract of em_pool_s8_validate(): kernel and
 *        stride >= 1, 0 <= padding < kernel, OH / OW by the output size formula, int8 zero point
 *        and clamps). Header-only (static inline) so that either op links without the other.
 */
#ifndef EM_OP_POOL_OPTIONS_H
#define EM_OP_POOL_OPTIONS_H

#include <stdbool.h>

#include "em_nn_functions.h"
#include "em_op_support.h"

typedef struct {
    em_tensor input, output;
    em_pool_params params;
} em_pool_args;

/** A bool field of the options table, as em_op_option_i32() reads an int (checked in check(),
 *  trusted in eval()). */
static inline em_status em_pool_option_bool(const em_op_context *ctx, uint32_t slot, bool def, int32_t *out)
{
    uint8_t v = def ? 1u : 0u;
    if (ctx->verified) {
        v = em_fb_trusted_u8(&ctx->buf, &ctx->options, slot, v);
    } else {
        const em_status s = em_fb_field_u8(&ctx->buf, &ctx->options, slot, v, &v);
        if (s != EM_OK) {
            return s;
        }
    }
    *out = v != 0u;
    return EM_OK;
}

/** Operands and Pool2DOptions of the operator (checked in check(), trusted in eval()). */
static inline em_status em_pool_decode(const em_op_context *ctx, em_pool_args *a)
{
    em_pool_params *p = &a->params;
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_POOL_2D);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_POOL_2D_OPTIONS_KERNEL_H, 0, &p->kernel_h);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_POOL_2D_OPTIONS_KERNEL_W, 0, &p->kernel_w);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_POOL_2D_OPTIONS_STRIDE_H, 1, &p->stride_h);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_POOL_2D_OPTIONS_STRIDE_W, 1, &p->stride_w);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_POOL_2D_OPTIONS_PAD_TOP, 0, &p->pad_top);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_POOL_2D_OPTIONS_PAD_BOTTOM, 0, &p->pad_bottom);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_POOL_2D_OPTIONS_PAD_LEFT, 0, &p->pad_left);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_POOL_2D_OPTIONS_PAD_RIGHT, 0, &p->pad_right);
    if (s == EM_OK) s = em_pool_option_bool(ctx, EM_POOL_2D_OPTIONS_COUNT_INCLUDE_PAD, true, &p->count_include_pad);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_POOL_2D_OPTIONS_ZERO_POINT, 0, &p->zero_point);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_POOL_2D_OPTIONS_ACTIVATION_MIN, -128, &p->activation_min);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_POOL_2D_OPTIONS_ACTIVATION_MAX, 127, &p->activation_max);
    return s;
}

/** The kernel's dims from the operands (ranks verified by the caller). */
static inline em_pool_dims em_pool_dims_of(const em_pool_args *a)
{
    const em_pool_dims d = {em_op_dim(&a->input, 0), em_op_dim(&a->input, 1), em_op_dim(&a->input, 2),
                            em_op_dim(&a->input, 3), em_op_dim(&a->output, 1), em_op_dim(&a->output, 2)};
    return d;
}

/** Shapes and window of a decoded pool (ranks, dtypes, N and C, em_pool_s8_validate()). */
static inline em_status em_pool_check_shapes(const em_pool_args *a)
{
    if (!em_op_is(&a->input, EM_DTYPE_INT8, 4) || !em_op_is(&a->output, EM_DTYPE_INT8, 4)
        || em_op_dim(&a->output, 0) != em_op_dim(&a->input, 0) || em_op_dim(&a->output, 3) != em_op_dim(&a->input, 3)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_pool_dims dims = em_pool_dims_of(a);
    return em_pool_s8_validate(&a->params, &dims) == EM_OK ? EM_OK : EM_ERR_BAD_OPERATOR;
}

#endif /* EM_OP_POOL_OPTIONS_H */
