/**
 * @file em_op_float_layer_norm.c
 * @brief FLOAT_LAYER_NORM adapter: x float32 [..., D], weight [D], bias [D] -> output of x's
 *        shape, normalized over the last axis, FloatLayerNormOptions (epsilon, rms: no mean). check() requires
 *        non-empty operands of at most INT32_MAX elements, so rows and row offsets fit.
 */
#include "em_op_float.h"

enum { EM_FLN_INPUT, EM_FLN_WEIGHT, EM_FLN_BIAS, EM_FLN_N_INPUTS };

typedef struct {
    em_tensor in[EM_FLN_N_INPUTS];
    em_tensor output;
    float epsilon;
    int32_t rms; /**< 0 or 1 */
} em_fln_args;

static em_status em_fln_decode(const em_op_context *ctx, em_fln_args *a)
{
    em_status s = em_op_operands(ctx, a->in, EM_FLN_N_INPUTS, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_FLOAT_LAYER_NORM);
    if (s == EM_OK) s = em_op_option_f32(ctx, EM_FLOAT_LAYER_NORM_OPTIONS_EPSILON, 0.0f, &a->epsilon);
    if (s == EM_OK) s = em_op_option_i32(ctx, EM_FLOAT_LAYER_NORM_OPTIONS_RMS, 0, &a->rms);
    return s;
}

static em_status em_fln_check(const em_op_context *ctx)
{
    em_fln_args a;
    const em_status s = em_fln_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *x = &a.in[EM_FLN_INPUT];
    const int32_t depth = em_op_last_dim(x);
    if (!em_op_is_float(x) || !em_op_is_float(&a.in[EM_FLN_WEIGHT]) || !em_op_is_float(&a.in[EM_FLN_BIAS])
        || !em_op_is_float(&a.output) || depth < 1 || em_tensor_elements(&a.output) != em_tensor_elements(x)
        || em_tensor_elements(&a.in[EM_FLN_WEIGHT]) != (uint32_t)depth
        || em_tensor_elements(&a.in[EM_FLN_BIAS]) != (uint32_t)depth || !(a.epsilon >= 0.0f) || (a.rms != 0 && a.rms != 1)) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_fln_eval(const em_op_context *ctx)
{
    em_fln_args a;
    const em_status s = em_fln_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const int32_t depth = em_op_last_dim(&a.in[EM_FLN_INPUT]);
    return em_op_status(em_float_layer_norm_f32((int32_t)em_tensor_elements(&a.output) / depth, depth,
                                                (const float *)a.in[EM_FLN_INPUT].data,
                                                (const float *)a.in[EM_FLN_WEIGHT].data,
                                                (const float *)a.in[EM_FLN_BIAS].data, a.epsilon, a.rms,
                                                (float *)a.output.data));
}

const em_op_registration em_op_float_layer_norm = {EM_OP_FLOAT_LAYER_NORM, "float_layer_norm",
                                                   EM_OP_CHECK(em_fln_check), EM_OP_EVAL(em_fln_eval)};
