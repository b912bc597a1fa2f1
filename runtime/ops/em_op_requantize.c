/**
 * @file em_op_requantize.c
 * @brief REQUANTIZE adapter: input int8 [any shape] -> output int8 [same element count] on
 *        another scale and zero point (RequantizeOptions), and A16W8's boundaries int8 -> int16,
 *        int16 -> int8, int16 -> int16 (output_type: the output tensor's dtype). check() bounds an
 *        int8 input's offset to -127..128 (compared as is: negating INT32_MIN would overflow), an
 *        int8 output's offset to int8, an int16 side's offset to 0 (A16W8's symmetric
 *        activations), the multiplier to >= 0 and the shift to -31..30, so every step of
 *        em_nn_requantize fits int32. An int16 side where the build left the int16 kernel out
 *        (EM_NN_S16_LINKED(REQUANTIZE) 0): EM_ERR_VARIANT_NOT_LINKED.
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
    uint8_t output_type = EM_DTYPE_INT8;
    em_status s = em_requantize_decode(ctx, &a);
    if (s == EM_OK) s = em_op_option_u8(ctx, EM_REQUANTIZE_OPTIONS_OUTPUT_TYPE, EM_DTYPE_INT8, &output_type);
    if (s != EM_OK) {
        return s;
    }
    const em_requantize_params *p = &a.params;
    const bool in16 = a.input.dtype == EM_DTYPE_INT16, out16 = a.output.dtype == EM_DTYPE_INT16;
    if ((a.input.dtype != EM_DTYPE_INT8 && !in16) || (a.output.dtype != EM_DTYPE_INT8 && !out16)
        || output_type != (uint8_t)a.output.dtype
        || em_tensor_elements(&a.input) != em_tensor_elements(&a.output)
        || em_tensor_elements(&a.output) > (uint32_t)INT32_MAX
        || (in16 ? p->input_offset != 0 : (p->input_offset < -127 || p->input_offset > 128))
        || (out16 ? p->output_offset != 0 : !em_op_in_s8(p->output_offset)) || p->output_multiplier < 0
        || p->output_shift < -31 || p->output_shift > 30) {
        return EM_ERR_BAD_OPERATOR;
    }
    return (in16 || out16) && !EM_NN_S16_LINKED(REQUANTIZE) ? EM_ERR_VARIANT_NOT_LINKED : EM_OK;
}

/** The A16W8 forms, out of line: an int8 build's eval() stays the one tail call. */
static em_status em_requantize_s16_eval(const em_requantize_args *a, int32_t count)
{
    const em_requantize_params *p = &a->params;
    if (a->input.dtype == EM_DTYPE_INT8) {
        return em_op_status(em_requantize_s8_s16((const int8_t *)a->input.data, count, p, (int16_t *)a->output.data));
    }
    if (a->output.dtype == EM_DTYPE_INT8) {
        return em_op_status(em_requantize_s16_s8((const int16_t *)a->input.data, count, p, (int8_t *)a->output.data));
    }
    return em_op_status(em_requantize_s16((const int16_t *)a->input.data, count, p, (int16_t *)a->output.data));
}

static em_status em_requantize_eval(const em_op_context *ctx)
{
    em_requantize_args a;
    const em_status s = em_requantize_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const int32_t count = (int32_t)em_tensor_elements(&a.output);
    if (a.input.dtype == EM_DTYPE_INT16 || a.output.dtype == EM_DTYPE_INT16) {
        if (!EM_NN_S16_LINKED(REQUANTIZE)) {
            return EM_ERR_VARIANT_NOT_LINKED; /* as check() says, where a sealed build compiled it out */
        }
        return em_requantize_s16_eval(&a, count);
    }
    return em_op_status(em_requantize_s8((const int8_t *)a.input.data, count, &a.params, (int8_t *)a.output.data));
}

const em_op_registration em_op_requantize = {EM_OP_REQUANTIZE, "requantize", EM_OP_CHECK(em_requantize_check),
                                             EM_OP_EVAL(em_requantize_eval)};
