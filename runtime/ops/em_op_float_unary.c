/**
 * @file em_op_float_unary.c
 * @brief FLOAT_UNARY adapter: input float32 -> output float32 of as many elements,
 *        FloatUnaryOptions (function, alpha, min, max). check() bounds the count to 1..INT32_MAX
 *        and the function to the kernel's table; the rest is float arithmetic.
 */
#include "em_op_float.h"

typedef struct {
    em_tensor input, output;
    int32_t function;
    em_float_unary_params params;
} em_funary_args;

static em_status em_funary_decode(const em_op_context *ctx, em_funary_args *a)
{
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_FLOAT_UNARY);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_UNARY_OPTIONS_FUNCTION, 0, &a->function);
    if (s == EM_OK) s = em_op_option_f32(ctx, EM_FLOAT_UNARY_OPTIONS_ALPHA, 0.0f, &a->params.alpha);
    if (s == EM_OK) s = em_op_option_f32(ctx, EM_FLOAT_UNARY_OPTIONS_MIN, -__builtin_inff(), &a->params.min);
    if (s == EM_OK) s = em_op_option_f32(ctx, EM_FLOAT_UNARY_OPTIONS_MAX, __builtin_inff(), &a->params.max);
    return s;
}

static em_status em_funary_check(const em_op_context *ctx)
{
    em_funary_args a;
    const em_status s = em_funary_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    if (!em_op_is_float(&a.input) || !em_op_is_float(&a.output)
        || em_tensor_elements(&a.input) != em_tensor_elements(&a.output) || a.function < 0
        || a.function >= EM_FLOAT_UNARY_COUNT || !(a.params.min <= a.params.max)) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_funary_eval(const em_op_context *ctx)
{
    em_funary_args a;
    const em_status s = em_funary_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    return em_op_status(em_float_unary_f32(a.function, &a.params, (const float *)a.input.data,
                                           (int32_t)em_tensor_elements(&a.output), (float *)a.output.data));
}

const em_op_registration em_op_float_unary = {EM_OP_FLOAT_UNARY, "float_unary", EM_OP_CHECK(em_funary_check),
                                              EM_OP_EVAL(em_funary_eval)};
