/**
 * @file em_op_float_fully_connected.c
 * @brief FLOAT_FULLY_CONNECTED adapter: input [B, I] float32 (or [B, ...] read as [B, I]),
 *        weights [O, I], bias [O] -> output [B, O], FloatFullyConnectedOptions (output clamp).
 *        The output must not overlap the input.
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
    if (!em_op_is_float(input) || input->rank < 2 || !em_op_is_float(weights) || weights->rank != 2
        || !em_op_is_float(&a.in[EM_FFC_BIAS]) || a.in[EM_FFC_BIAS].rank != 1 || !em_op_is_float(&a.output)
        || a.output.rank != 2 || !em_op_float_activation_ok(&a.act)) {
        return EM_ERR_BAD_OPERATOR;
    }
    const int32_t batches = em_op_dim(input, 0), n_out = em_op_dim(weights, 0), n_in = em_op_dim(weights, 1);
    if (batches < 1 || (int64_t)em_tensor_elements(input) != (int64_t)batches * n_in
        || em_op_dim(&a.in[EM_FFC_BIAS], 0) != n_out || em_op_dim(&a.output, 0) != batches
        || em_op_dim(&a.output, 1) != n_out) {
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
    return em_float_fully_connected_f32(em_op_dim(&a.in[EM_FFC_INPUT], 0), em_op_dim(weights, 1),
                                        em_op_dim(weights, 0), (const float *)a.in[EM_FFC_INPUT].data,
                                        (const float *)weights->data, (const float *)a.in[EM_FFC_BIAS].data,
                                        a.act, (float *)a.output.data);
}

const em_op_registration em_op_float_fully_connected = {EM_OP_FLOAT_FULLY_CONNECTED, "float_fully_connected",
                                                        em_ffc_check, em_ffc_eval};
