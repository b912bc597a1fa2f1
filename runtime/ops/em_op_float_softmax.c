/**
 * @file em_op_float_softmax.c
 * @brief FLOAT_SOFTMAX adapter: input float32 [..., D] -> output of the same shape, softmax over
 *        the last axis, FloatSoftmaxOptions (empty). check() requires a non-empty input of at most
 *        INT32_MAX elements, so rows and row offsets (rows · D, formed in size_t) fit.
 */
#include "em_op_float.h"

typedef struct {
    em_tensor input, output;
} em_fsoftmax_args;

static em_status em_fsoftmax_decode(const em_op_context *ctx, em_fsoftmax_args *a)
{
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_FLOAT_SOFTMAX);
    return s;
}

static em_status em_fsoftmax_check(const em_op_context *ctx)
{
    em_fsoftmax_args a;
    const em_status s = em_fsoftmax_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    if (!em_op_is_float(&a.input) || !em_op_is_float(&a.output)
        || em_tensor_elements(&a.input) != em_tensor_elements(&a.output)
        || em_op_last_dim(&a.input) != em_op_last_dim(&a.output) || em_op_last_dim(&a.input) < 1) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_fsoftmax_eval(const em_op_context *ctx)
{
    em_fsoftmax_args a;
    const em_status s = em_fsoftmax_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const int32_t depth = em_op_last_dim(&a.input);
    return em_op_status(em_float_softmax_f32((int32_t)em_tensor_elements(&a.input) / depth, depth,
                                             (const float *)a.input.data, (float *)a.output.data));
}

const em_op_registration em_op_float_softmax = {EM_OP_FLOAT_SOFTMAX, "float_softmax", EM_OP_CHECK(em_fsoftmax_check),
                                                EM_OP_EVAL(em_fsoftmax_eval)};
