/**
 * @file em_op_minimum.c
 * @brief MINIMUM adapter: a, b int8 -> output int8, one quantization shared by all three (the
 *        compiler guarantees it; the codes are compared directly), MinMaxOptions (empty).
 *        Broadcasting as em_op_broadcast.h allows (shared with ADD and MUL).
 */
#include "em_nn_functions.h"
#include "em_op_broadcast.h"
#include "em_op_support.h"

enum { EM_MINIMUM_A, EM_MINIMUM_B, EM_MINIMUM_N_INPUTS };

/** Operands and the kernel's dims; EM_ERR_BAD_OPERATOR when the kernel has no such layout. */
static em_status em_minimum_decode(const em_op_context *ctx, em_tensor *in, em_tensor *out, em_add_dims *dims)
{
    em_status s = em_op_operands(ctx, in, EM_MINIMUM_N_INPUTS, out, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_MIN_MAX);
    if (s == EM_OK && (in[EM_MINIMUM_A].dtype != EM_DTYPE_INT8 || in[EM_MINIMUM_B].dtype != EM_DTYPE_INT8
                       || out->dtype != EM_DTYPE_INT8 || !em_op_broadcast_dims(&in[EM_MINIMUM_A], &in[EM_MINIMUM_B], out, dims))) {
        s = EM_ERR_BAD_OPERATOR;
    }
    return s;
}

static em_status em_minimum_check(const em_op_context *ctx)
{
    em_tensor in[EM_MINIMUM_N_INPUTS], out;
    em_add_dims dims;
    return em_minimum_decode(ctx, in, &out, &dims);
}

static em_status em_minimum_eval(const em_op_context *ctx)
{
    em_tensor in[EM_MINIMUM_N_INPUTS], out;
    em_add_dims dims;
    const em_status s = em_minimum_decode(ctx, in, &out, &dims);
    if (s != EM_OK) {
        return s;
    }
    return em_minimum_s8(&dims, (const int8_t *)in[EM_MINIMUM_A].data, (const int8_t *)in[EM_MINIMUM_B].data,
                       (int8_t *)out.data);
}

const em_op_registration em_op_minimum = {EM_OP_MINIMUM, "minimum", em_minimum_check, em_minimum_eval};
