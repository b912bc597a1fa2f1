/**
 * @file em_op_float_avg_pool2d.c
 * @brief FLOAT_AVG_POOL_2D adapter: [N, H, W, C] float32 -> [N, OH, OW, C], FloatPool2DOptions
 *        (decode and checks: em_op_float_pool.h).
 */
#include "em_op_float_pool.h"

static em_status em_float_avg_pool_eval(const em_op_context *ctx)
{
    em_float_pool_args a;
    const em_status s = em_float_pool_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_pool_dims d = em_float_pool_dims(&a);
    return em_op_status(em_float_avg_pool_f32(&d, &a.params, (const float *)a.input.data, a.act,
                                              (float *)a.output.data));
}

const em_op_registration em_op_float_avg_pool2d = {EM_OP_FLOAT_AVG_POOL_2D, "float_avg_pool2d",
                                                   EM_OP_CHECK(em_float_pool_check),
                                                   EM_OP_EVAL(em_float_avg_pool_eval)};
