/**
 * @file em_op_maximum.c
 * @brief MAXIMUM adapter: a, b int8 sharing the output's quantization -> output int8
 *        (decode and checks: em_op_min_max.h).
 */
#include "em_op_min_max.h"

static em_status em_maximum_eval(const em_op_context *ctx)
{
    return em_op_min_max_eval(ctx, em_maximum_s8);
}

const em_op_registration em_op_maximum = {EM_OP_MAXIMUM, "maximum", EM_OP_CHECK(em_op_min_max_check),
                                          EM_OP_EVAL(em_maximum_eval)};
