/**
 * @file em_op_requantize.c
 * @brief REQUANTIZE adapter: input int8 [any shape] -> output int8 [same element count] on
 *        another scale and zero point (RequantizeOptions). check() bounds the input offset to
 *        -127..128 (compared as is: negating INT32_MIN would overflow), the output offset to int8, the
 *        multiplier to >= 0 and the shift to -31..30, so every step of em_nn_requantize fits int32.
 */
#include "em_nn_data_movement.h"
#include "em_op_support.h"

typedef struct {
    em_tensor input, output;
    em_requantize_params params;
} em_requantize_args;

static em_status em_requantize_decode(const em_op_context *ctx, em_requantize_args *a)
{
    em_requantize_params *p = &a->params;
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_REQUANTIZE);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_REQUANTIZE_OPTIONS_INPUT_OFFSET, 0, &p->input_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_REQUANTIZE_OPTIONS_OUTPUT_OFFSET, 0, &p->output_offset);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_REQUANTIZE_OPTIONS_OUTPUT_MULTIPLIER, 0, &p->output_multiplier);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_REQUANTIZE_OPTIONS_OUTPUT_SHIFT, 0, &p->output_shift);
    return s;
}

static em_status em_requantize_check(const em_op_context *ctx)
{
    em_requantize_args a;
    const em_status s = em_requantize_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_requantize_params *p = &a.params;
    if (a.input.dtype != EM_DTYPE_INT8 || a.output.dtype != EM_DTYPE_INT8
        || em_tensor_elements(&a.input) != em_tensor_elements(&a.output)
        || em_tensor_elements(&a.output) > (uint32_t)INT32_MAX || p->input_offset < -127 || p->input_offset > 128
        || !em_op_in_s8(p->output_offset) || p->output_multiplier < 0 || p->output_shift < -31
        || p->output_shift > 30) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_requantize_eval(const em_op_context *ctx)
{
    em_requantize_args a;
    const em_status s = em_requantize_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    return em_op_status(em_requantize_s8((const int8_t *)a.input.data, (int32_t)em_tensor_elements(&a.output),
                                         &a.params, (int8_t *)a.output.data));
}

const em_op_registration em_op_requantize = {EM_OP_REQUANTIZE, "requantize", EM_OP_CHECK(em_requantize_check),
                                             EM_OP_EVAL(em_requantize_eval)};
