/**
 * @file em_op_pool_options.h
 * @brief Pool2DOptions as MAX_POOL_2D and AVG_POOL_2D read them, and the shape checks both make
 *        (ranks, dtypes, N and C, and the kernel's window contract through its own validator,
 *        em_pool_s8_validate() / em_avg_pool_s8_validate(): kernel and stride >= 1,
 *        0 <= padding < kernel, OH / OW by the output size formula, int8 zero point and clamps).
 *        Header-only (static inline) so that either op links without the other.
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
    if (em_op_trusted(ctx)) {
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
    /* Slots KERNEL_H (0) .. ACTIVATION_MAX (11) are em_pool_params' int32 fields in order: shared
     * loop over a table of defaults, not 12 inlined field reads (COUNT_INCLUDE_PAD a bool). */
    _Static_assert(sizeof(em_pool_params) == 12u * sizeof(int32_t) && EM_POOL_2D_OPTIONS_KERNEL_H == 0
                       && EM_POOL_2D_OPTIONS_COUNT_INCLUDE_PAD == 8 && EM_POOL_2D_OPTIONS_ACTIVATION_MAX == 11,
                   "em_pool_params must be the options' slots 0..11 in order");
    static const int8_t defaults[12] = {0, 0, 1, 1, 0, 0, 0, 0, 1, 0, -128, 127};
    int32_t *const field = (int32_t *)(void *)&a->params;
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_POOL_2D);
    if (s == EM_OK) s = em_op_option_i32s(ctx, 0u, defaults, 8u, field);
    if (s == EM_OK) s = em_pool_option_bool(ctx, EM_POOL_2D_OPTIONS_COUNT_INCLUDE_PAD, true, &field[8]);
    if (s == EM_OK) s = em_op_option_i32s(ctx, 9u, defaults + 9, 3u, field + 9);
    return s;
}

/** The kernel's dims from the operands (ranks verified by the caller). */
static inline em_pool_dims em_pool_dims_of(const em_pool_args *a)
{
    const em_pool_dims d = {em_op_dim(&a->input, 0), em_op_dim(&a->input, 1), em_op_dim(&a->input, 2),
                            em_op_dim(&a->input, 3), em_op_dim(&a->output, 1), em_op_dim(&a->output, 2)};
    return d;
}

/** Shapes and window of a decoded pool: the adapter's own conditions (ranks, both tensors of
 *  @p dtype, N and C of input and output agree), then the kernel's contract through @p validate,
 *  the kernel's own validator (em_pool_s8_validate() or em_avg_pool_s8_validate(), int16:
 *  em_pool_s16_validate() or em_avg_pool_s16_validate(): one copy serves load and invoke). */
static inline em_status em_pool_check_shapes(const em_pool_args *a, em_dtype dtype,
                                             em_nn_status (*validate)(const em_pool_params *, const em_pool_dims *))
{
    if (!em_op_is(&a->input, dtype, 4) || !em_op_is(&a->output, dtype, 4)
        || em_op_dim(&a->output, 0) != em_op_dim(&a->input, 0) || em_op_dim(&a->output, 3) != em_op_dim(&a->input, 3)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const em_pool_dims dims = em_pool_dims_of(a);
    return validate(&a->params, &dims) == EM_NN_OK ? EM_OK : EM_ERR_BAD_OPERATOR;
}

#endif /* EM_OP_POOL_OPTIONS_H */
