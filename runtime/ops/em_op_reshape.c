/**
 * @file em_op_reshape.c
 * @brief RESHAPE adapter: input [any shape] -> output of as many elements, same bytes in the
 *        same order (ReshapeOptions, empty), INT8 / INT32 / FLOAT32, one dtype for both. When the
 *        planner gave both one offset (compiler/planner.py), eval moves nothing. The byte count eval
 *        passes is the output's size, which the loader bounds to int32.
 */
#include "em_op_data_movement.h"

typedef struct {
    em_tensor input, output;
} em_reshape_args;

static em_status em_reshape_decode(const em_op_context *ctx, em_reshape_args *a)
{
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_RESHAPE);
    return s;
}

static em_status em_reshape_check(const em_op_context *ctx)
{
    em_reshape_args a;
    const em_status s = em_reshape_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    if (!em_op_movable(&a.input, &a.output) || em_tensor_elements(&a.input) != em_tensor_elements(&a.output)) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_reshape_eval(const em_op_context *ctx)
{
    em_reshape_args a;
    const em_status s = em_reshape_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const int32_t bytes = (int32_t)em_tensor_elements(&a.output) * em_op_element_size(a.output.dtype);
    return em_op_status(em_reshape(a.input.data, bytes, a.output.data));
}

const em_op_registration em_op_reshape = {EM_OP_RESHAPE, "reshape", EM_OP_CHECK(em_reshape_check),
                                          EM_OP_EVAL(em_reshape_eval)};
