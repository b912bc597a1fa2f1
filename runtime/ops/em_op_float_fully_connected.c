/**
 * @file em_op_float_fully_connected.c
 * @brief FLOAT_FULLY_CONNECTED adapter: input float32 read as rows of I (= weights' dim 1)
 *        elements: [B, I], [B, T, I] (a linear over the last axis) or [B, H, W, C] flattened;
 *        weights [O, I], bias [O] -> output of rows × O elements whose last dim is O,
 *        FloatFullyConnectedOptions (output clamp). The output must not overlap the input.
 *        check() requires I, O >= 1 and non-empty operands of at most INT32_MAX elements (rows × O
 *        compared in uint64), so every row offset the kernel forms in size_t fits.
 */
#include "em_op_float.h"

enum { EM_FFC_INPUT, EM_FFC_WEIGHTS, EM_FFC_BIAS, EM_FFC_N_INPUTS };

typedef struct {
    em_tensor in[EM_FFC_N_INPUTS];
    em_tensor output;
    em_float_activation act;
} em_ffc_args;

static em_status em_ffc_decode(const em_op_context *ctx, em_ffc_args *a)
{
    em_status s = em_op_operands(ctx, a->in, EM_FFC_N_INPUTS, &a->output, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_FLOAT_FULLY_CONNECTED);
    if (s == EM_OK) {
        s = em_op_float_activation(ctx, EM_FLOAT_FULLY_CONNECTED_OPTIONS_ACTIVATION_MIN,
                                   EM_FLOAT_FULLY_CONNECTED_OPTIONS_ACTIVATION_MAX, &a->act);
    }
    return s;
}

static em_status em_ffc_check(const em_op_context *ctx)
{
    em_ffc_args a;
    const em_status s = em_ffc_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *input = &a.in[EM_FFC_INPUT], *weights = &a.in[EM_FFC_WEIGHTS];
    if (!em_op_is_float(input) || !em_op_is_float(weights) || weights->rank != 2
        || !em_op_is_float(&a.in[EM_FFC_BIAS]) || a.in[EM_FFC_BIAS].rank != 1 || !em_op_is_float(&a.output)
        || !em_op_float_activation_ok(&a.act)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const int32_t n_out = em_op_dim(weights, 0), n_in = em_op_dim(weights, 1);
    const uint32_t elements = em_tensor_elements(input);
    if (n_in < 1 || n_out < 1 || elements % (uint32_t)n_in != 0u || em_op_dim(&a.in[EM_FFC_BIAS], 0) != n_out
        || em_op_last_dim(&a.output) != n_out
        || (uint64_t)em_tensor_elements(&a.output) != (uint64_t)(elements / (uint32_t)n_in) * (uint64_t)n_out) {
        return EM_ERR_BAD_OPERATOR;
    }
    return EM_OK;
}

static em_status em_ffc_eval(const em_op_context *ctx)
{
    em_ffc_args a;
    const em_status s = em_ffc_decode(ctx, &a);
    if (s != EM_OK) {
        return s;
    }
    const em_tensor *weights = &a.in[EM_FFC_WEIGHTS];
    const int32_t rows = (int32_t)(em_tensor_elements(&a.in[EM_FFC_INPUT]) / (uint32_t)em_op_dim(weights, 1));
    return em_op_status(em_float_fully_connected_f32(rows, em_op_dim(weights, 1), em_op_dim(weights, 0),
                                                     (const float *)a.in[EM_FFC_INPUT].data,
                                                     (const float *)weights->data,
                                                     (const float *)a.in[EM_FFC_BIAS].data, a.act,
                                                     (float *)a.output.data));
}

const em_op_registration em_op_float_fully_connected = {EM_OP_FLOAT_FULLY_CONNECTED, "float_fully_connected",
                                                        EM_OP_CHECK(em_ffc_check), EM_OP_EVAL(em_ffc_eval)};
