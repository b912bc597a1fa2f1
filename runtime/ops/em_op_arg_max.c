/**
 * @file em_op_arg_max.c
 * @brief ARG_MAX adapter: input int8 [rank >= 1, no empty dimension] -> output int32 with the
 *        input's elements less ArgMaxOptions.axis (0..rank-1): the input read as
 *        [outer][count][inner] around the axis, the output as [outer][inner] (em_arg_max_s8).
 *        check() requires a non-empty input of at most INT32_MAX elements, so outer, count and inner
 *        and every index the kernel forms are at most that count.
 */
#include "em_nn_functions.h"
#include "em_op_support.h"

typedef struct {
    em_tensor input, output;
    int32_t outer, count, inner; /**< the input's dimensions before, at and after the axis */
} em_arg_max_args;

static em_status em_arg_max_decode(const em_op_context *ctx, em_arg_max_args *a)
{
    int32_t axis = 0;
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_ARG_MAX);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_ARG_MAX_OPTIONS_AXIS, 0, &axis);
    if (s != EM_OK) {
        return s;
    }
    const uint32_t elements = em_tensor_elements(&a->input);
    if (a->input.dtype != EM_DTYPE_INT8 || a->output.dtype != EM_DTYPE_INT32 || axis < 0 || axis >= a->input.rank
        || elements == 0u || elements > (uint32_t)INT32_MAX) {
        return EM_ERR_BAD_OPERATOR;
    }
    /* every dimension >= 1 (no empty one), so each product is at most the element count */
    a->outer = 1;
    a->inner = 1;
    for (int32_t i = 0; i < a->input.rank; i++) {
        if (i < axis) a->outer *= em_op_dim(&a->input, i);
        if (i > axis) a->inner *= em_op_dim(&a->input, i);
    }
    a->count = em_op_dim(&a->input, axis);
    if ((uint32_t)a->outer * (uint32_t)a->inner != em_tensor_elements(&a->output)) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_arg_max_check(const em_op_context *ctx)
{
    em_arg_max_args a;
    return em_arg_max_decode(ctx, &a);
}

static em_status em_arg_max_eval(const em_op_context *ctx)
{
    em_arg_max_args a;
    const em_status s = em_arg_max_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    return em_op_status(em_arg_max_s8((const int8_t *)a.input.data, a.outer, a.count, a.inner, (int32_t *)a.output.data));
}

const em_op_registration em_op_arg_max = {EM_OP_ARG_MAX, "arg_max", EM_OP_CHECK(em_arg_max_check),
                                          EM_OP_EVAL(em_arg_max_eval)};
