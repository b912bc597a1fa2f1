/**
 * @file em_op_quantize.c
 * @brief QUANTIZE adapter: float32 [any shape] -> int8 [same shape], or int16 (A16W8:
 *        QuantizeOptions.output_type INT16, the output tensor's dtype), QuantizeOptions.
 *        check() bounds the count to int32, the zero point to int8 (int16: 0, A16W8's symmetric
 *        activations) and asks output_type to be the output's dtype; the kernel clamps in float
 *        before any conversion, so no scale makes it overflow. An int16 output where the build
 *        left the int16 kernel out (EM_NN_S16_LINKED(QUANTIZE) 0): EM_ERR_VARIANT_NOT_LINKED.
 */
#include "em_nn_functions.h"
#include "em_op_support.h"

typedef struct {
    em_tensor input, output;
    float inv_scale;
    int32_t zero_point;
    uint8_t output_type;
} em_quantize_args;

static em_status em_quantize_decode(const em_op_context *ctx, em_quantize_args *a)
{
    em_status s = em_op_operands(ctx, &a->input, 1u, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_QUANTIZE);
    if (s == EM_OK) s = em_op_option_f32(ctx, EM_QUANTIZE_OPTIONS_INV_SCALE, 0.0f, &a->inv_scale);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_QUANTIZE_OPTIONS_ZERO_POINT, 0, &a->zero_point);
    return s;
}

static em_status em_quantize_check(const em_op_context *ctx)
{
    em_quantize_args a;
    em_status s = em_quantize_decode(ctx, &a);
    if (s == EM_OK) s = em_op_option_u8(ctx, EM_QUANTIZE_OPTIONS_OUTPUT_TYPE, EM_DTYPE_INT8, &a.output_type);
    if (s != EM_OK) {
        return s;
    }
    const bool int16 = a.output.dtype == EM_DTYPE_INT16;
    if (a.input.dtype != EM_DTYPE_FLOAT32 || (a.output.dtype != EM_DTYPE_INT8 && !int16)
        || a.output_type != (uint8_t)a.output.dtype
        || em_tensor_elements(&a.input) != em_tensor_elements(&a.output)
        || em_tensor_elements(&a.output) > (uint32_t)INT32_MAX || (int16 ? a.zero_point != 0 : !em_op_in_s8(a.zero_point))) {
        return EM_ERR_BAD_OPERATOR;
    }
    return int16 && !EM_NN_S16_LINKED(QUANTIZE) ? EM_ERR_VARIANT_NOT_LINKED : EM_OK;
}

static em_status em_quantize_eval(const em_op_context *ctx)
{
    em_quantize_args a;
    const em_status s = em_quantize_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const int32_t count = (int32_t)em_tensor_elements(&a.output);
    if (a.output.dtype == EM_DTYPE_INT16) {
        if (!EM_NN_S16_LINKED(QUANTIZE)) {
            return EM_ERR_VARIANT_NOT_LINKED; /* as check() says, where a sealed build compiled it out */
        }
        return em_op_status(em_quantize_f32_s16((const float *)a.input.data, count, a.inv_scale, a.zero_point,
                                                (int16_t *)a.output.data));
    }
    return em_op_status(em_quantize_f32_s8((const float *)a.input.data, count, a.inv_scale, a.zero_point,
                                           (int8_t *)a.output.data));
}

const em_op_registration em_op_quantize = {EM_OP_QUANTIZE, "quantize", EM_OP_CHECK(em_quantize_check),
                                           EM_OP_EVAL(em_quantize_eval)};
