/**
 * @file em_op_maximum.c
 * @brief MAXIMUM adapter: a, b int8 -> output int8, one quantization shared by all three (the
 *        compiler guarantees it; the codes are compared directly), MinMaxOptions (empty).
 *        Broadcasting as em_op_broadcast.h allows (shared with ADD and MUL).
 */
#include "em_nn_functions.h"
#include "em_op_broadcast.h"
#include "em_op_support.h"

enum { EM_MAXIMUM_A, EM_MAXIMUM_B, EM_MAXIMUM_N_INPUTS };

/** Operands and the kernel's dims; EM_ERR_BAD_OPERATOR when the kernel has no such layout. */
static em_status em_maximum_decode(const em_op_context *ctx, em_tensor *in, em_tensor *out, em_add_dims *dims)
{
    em_status s = em_op_operands(ctx, in, EM_MAXIMUM_N_INPUTS, out, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_MIN_MAX);
    if (s == EM_OK && (in[EM_MAXIMUM_A].dtype != EM_DTYPE_INT8 || in[EM_MAXIMUM_B].dtype != EM_DTYPE_INT8
                       || out->dtype != EM_DTYPE_INT8 || !em_op_broadcast_dims(&in[EM_MAXIMUM_A], &in[EM_MAXIMUM_B], out, dims))) {
        s = EM_ERR_BAD_OPERATOR;
    }
    return s;
}

static em_status em_maximum_check(const em_op_context *ctx)
{
    em_tensor in[EM_MAXIMUM_N_INPUTS], out;
    em_add_dims dims;
    return em_maximum_decode(ctx, in, &out, &dims);
}

static em_status em_maximum_eval(const em_op_context *ctx)
{
    em_tensor in[EM_MAXIMUM_N_INPUTS], out;
    em_add_dims dims;
    const em_status s = em_maximum_decode(ctx, in, &out, &dims);
    if (s != EM_OK) {
        return s;
    }
    return em_maximum_s8(&dims, (const int8_t *)in[EM_MAXIMUM_A].data, (const int8_t *)in[EM_MAXIMUM_B].data,
                       (int8_t *)out.data);
}

const em_op_registration em_op_maximum = {EM_OP_MAXIMUM, "maximum", em_maximum_check, em_maximum_eval};
