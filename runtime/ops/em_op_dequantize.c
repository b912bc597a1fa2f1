/**
 * @file em_op_dequantize.c
 * @brief DEQUANTIZE adapter: int8 [any shape] -> float32 [same shape], or int16 (A16W8) ->
 *        float32, DequantizeOptions. check() bounds the count to int32 and the zero point to int8
 *        (code − zero point in int32; int16: 0, A16W8's symmetric activations). An int16 input
 *        where the build left the int16 kernel out (EM_NN_S16_LINKED(DEQUANTIZE) 0):
 *        EM_ERR_VARIANT_NOT_LINKED.
 */
#include "em_nn_functions.h"
#include "em_op_support.h"

typedef struct {
    em_tensor input, output;
    float scale;
    int32_t zero_point;
} em_dequantize_args;

static em_status em_dequantize_decode(const em_op_context *ctx, em_dequantize_args *a)
{
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_DEQUANTIZE);
    if (s == EM_OK) s = em_op_option_f32(ctx, EM_DEQUANTIZE_OPTIONS_SCALE, 0.0f, &a->scale);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_DEQUANTIZE_OPTIONS_ZERO_POINT, 0, &a->zero_point);
    return s;
}

static em_status em_dequantize_check(const em_op_context *ctx)
{
    em_dequantize_args a;
    const em_status s = em_dequantize_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const bool int16 = a.input.dtype == EM_DTYPE_INT16;
    if ((a.input.dtype != EM_DTYPE_INT8 && !int16) || a.output.dtype != EM_DTYPE_FLOAT32
        || em_tensor_elements(&a.input) != em_tensor_elements(&a.output)
        || em_tensor_elements(&a.output) > (uint32_t)INT32_MAX || (int16 ? a.zero_point != 0 : !em_op_in_s8(a.zero_point))) {
        return EM_ERR_BAD_OPERATOR;
    }
    return int16 && !EM_NN_S16_LINKED(DEQUANTIZE) ? EM_ERR_VARIANT_NOT_LINKED : EM_OK;
}

static em_status em_dequantize_eval(const em_op_context *ctx)
{
    em_dequantize_args a;
    const em_status s = em_dequantize_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const int32_t count = (int32_t)em_tensor_elements(&a.input);
    if (a.input.dtype == EM_DTYPE_INT16) {
        if (!EM_NN_S16_LINKED(DEQUANTIZE)) {
            return EM_ERR_VARIANT_NOT_LINKED; /* as check() says, where a sealed build compiled it out */
        }
        return em_op_status(em_dequantize_s16_f32((const int16_t *)a.input.data, count, a.scale, a.zero_point,
                                                  (float *)a.output.data));
    }
    return em_op_status(em_dequantize_s8_f32((const int8_t *)a.input.data, count, a.scale, a.zero_point,
                                             (float *)a.output.data));
}

const em_op_registration em_op_dequantize = {EM_OP_DEQUANTIZE, "dequantize", EM_OP_CHECK(em_dequantize_check),
                                             EM_OP_EVAL(em_dequantize_eval)};
