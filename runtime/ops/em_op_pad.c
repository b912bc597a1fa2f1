/**
 * @file em_op_pad.c
 * @brief PAD adapter: input [any rank <= 8] -> output with before[k] + dims[k] + after[k]
 *        along every dimension (PadOptions); the border holds `value` (INT8: -128..127, INT16:
 *        -32768..32767, the code, 0 for A16W8's zero pad; INT32) or `float_value` (FLOAT32).
 *        Input and output of one dtype. An INT16 pad where the build left the int16 kernel out
 *        (EM_NN_S16_LINKED(PAD) 0): EM_ERR_VARIANT_NOT_LINKED. check() bounds before, after >= 0,
 *        before + dim + after (in int64) equal to the output dim and the output within em_pad's half
 *        int32 range in bytes, so its strides and run offsets fit int32.
 */
#include "em_op_data_movement.h"

typedef struct {
    em_tensor input, output;
    em_nn_shape shape; /**< the input's */
    const int32_t *before, *after;
    int32_t value;
    float float_value;
} em_pad_args;

static em_status em_pad_decode(const em_op_context *ctx, em_pad_args *a)
{
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_PAD);
    if (s == EM_OK && !em_op_shape_of(&a->input, &a->shape)) s = EM_ERR_BAD_OPERATOR;
    if (s == EM_OK) s = em_op_option_ints(ctx, EM_PAD_OPTIONS_BEFORE, a->input.rank, &a->before);
    if (s == EM_OK) s = em_op_option_ints(ctx, EM_PAD_OPTIONS_AFTER, a->input.rank, &a->after);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_PAD_OPTIONS_VALUE, 0, &a->value);
    if (s == EM_OK) s = em_op_option_f32(ctx, EM_PAD_OPTIONS_FLOAT_VALUE, 0.0f, &a->float_value);
    return s;
}

static em_status em_pad_check(const em_op_context *ctx)
{
    em_pad_args a;
    const em_status s = em_pad_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    if (!em_op_movable(&a.input, &a.output) || a.output.rank != a.input.rank
        || (a.input.dtype == EM_DTYPE_INT16 && !em_op_in_s16(a.value))
        || (a.input.dtype == EM_DTYPE_INT8 && !em_op_in_s8(a.value))
        || !em_op_span_ok(em_tensor_elements(&a.output), em_op_element_size(a.input.dtype))) {
        return EM_ERR_BAD_OPERATOR;
    }
    for (int32_t k = 0; k < a.input.rank; k++) {
        if (a.before[k] < 0 || a.after[k] < 0
            || (int64_t)a.before[k] + a.shape.dims[k] + a.after[k] != em_op_dim(&a.output, k)) {
            return EM_ERR_BAD_OPERATOR;
        }
    }
    return a.input.dtype == EM_DTYPE_INT16 && !EM_NN_S16_LINKED(PAD) ? EM_ERR_VARIANT_NOT_LINKED : EM_OK;
}

static em_status em_pad_eval(const em_op_context *ctx)
{
    em_pad_args a;
    const em_status s = em_pad_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const int8_t code = (int8_t)a.value;
    const int16_t code16 = (int16_t)a.value;
    const void *value = a.input.dtype == EM_DTYPE_INT8 ? (const void *)&code
                        : a.input.dtype == EM_DTYPE_FLOAT32 ? (const void *)&a.float_value : (const void *)&a.value;
    if (a.input.dtype == EM_DTYPE_INT16) {
        if (!EM_NN_S16_LINKED(PAD)) {
            return EM_ERR_VARIANT_NOT_LINKED; /* as check() says, where a sealed build compiled it out */
        }
        value = &code16;
    }
    return em_op_status(em_pad(a.input.data, &a.shape, a.before, a.after, value, em_op_element_size(a.input.dtype),
                               a.output.data));
}

const em_op_registration em_op_pad = {EM_OP_PAD, "pad", EM_OP_CHECK(em_pad_check), EM_OP_EVAL(em_pad_eval)};
