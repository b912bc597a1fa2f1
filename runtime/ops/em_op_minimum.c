/**
 * @file em_op_minimum.c
 * @brief MINIMUM adapter: a, b int8 sharing the output's quantization -> output int8
 *        (decode and checks: em_op_min_max.h).
 */
#include "em_op_min_max.h"

static em_status em_minimum_eval(const em_op_context *ctx)
{
    return em_op_min_max_eval(ctx, em_minimum_s8);
}

const em_op_registration em_op_minimum = {EM_OP_MINIMUM, "minimum", EM_OP_CHECK(em_op_min_max_check),
                                          EM_OP_EVAL(em_minimum_eval)};
