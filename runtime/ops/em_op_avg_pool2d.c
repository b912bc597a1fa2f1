/**
 * @file em_op_avg_pool2d.c
 * @brief AVG_POOL_2D adapter: input [N, H, W, C] int8 -> output [N, OH, OW, C] int8, or int16 ->
 *        int16 (A16W8), Pool2DOptions (kernel, stride, paddings, count_include_pad, zero point,
 *        clamps; int16: zero point 0 and clamps int16).
 *
 * check() verifies what em_op_pool_options.h's em_pool_check_shapes() does with the kernel's
 * em_avg_pool_s8_validate() (which also bounds kernel_h·kernel_w by EM_AVG_POOL_MAX_CELLS; int16:
 * em_avg_pool_s16_validate(), EM_AVG_POOL_S16_MAX_CELLS), so eval() only decodes and calls the
 * kernel's unchecked body (em_avg_pool_s8_trusted / em_avg_pool_s16_trusted). An int16 pool where
 * the build left the int16 kernel out (EM_NN_S16_LINKED(AVG_POOL2D) 0): EM_ERR_VARIANT_NOT_LINKED.
 * The output must not overlap the input.
 */
#include "em_op_pool_options.h"

static em_status em_avg_pool_check(const em_op_context *ctx)
{
    em_pool_args a;
    em_status s = em_pool_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    if (a.input.dtype == EM_DTYPE_INT16) {
        s = em_pool_check_shapes(&a, EM_DTYPE_INT16, em_avg_pool_s16_validate);
        return s == EM_OK && !EM_NN_S16_LINKED(AVG_POOL2D) ? EM_ERR_VARIANT_NOT_LINKED : s;
    }
    return em_pool_check_shapes(&a, EM_DTYPE_INT8, em_avg_pool_s8_validate);
}

static em_status em_avg_pool_eval(const em_op_context *ctx)
{
    em_pool_args a;
    const em_status s = em_pool_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_pool_dims dims = em_pool_dims_of(&a);
    if (a.input.dtype == EM_DTYPE_INT16) {
        if (!EM_NN_S16_LINKED(AVG_POOL2D)) {
            return EM_ERR_VARIANT_NOT_LINKED; /* as check() says, where a sealed build compiled it out */
        }
        return em_op_status(em_avg_pool_s16_trusted(&a.params, &dims, (const int16_t *)a.input.data,
                                                    (int16_t *)a.output.data));
    }
    return em_op_status(em_avg_pool_s8_trusted(&a.params, &dims, (const int8_t *)a.input.data, (int8_t *)a.output.data));
}

const em_op_registration em_op_avg_pool2d = {EM_OP_AVG_POOL_2D, "avg_pool2d", EM_OP_CHECK(em_avg_pool_check),
                                             EM_OP_EVAL(em_avg_pool_eval)};
