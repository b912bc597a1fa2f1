/**
 * @file em_op_min_max.h
 * @brief MINIMUM and MAXIMUM adapters' shared decode, check and eval: a, b int8 -> output int8,
 *        one quantization shared by all three (the compiler guarantees it; the codes are compared
 *        directly), MinMaxOptions (empty), broadcasting as em_op_broadcast.h allows. No arithmetic
 *        on the codes; the offsets are within the operands, which the loader bounds to int32.
 *        Header-only (static inline) so that either op links without the other.
 */
#ifndef EM_OP_MIN_MAX_H
#define EM_OP_MIN_MAX_H

#include "em_nn_functions.h"
#include "em_op_broadcast.h"
#include "em_op_support.h"

/** em_minimum_s8 or em_maximum_s8. */
typedef em_nn_status (*em_op_min_max_kernel)(const em_broadcast_dims *dims, const int8_t *a, const int8_t *b, int8_t *out);

/** Operands and the kernel's dims; EM_ERR_BAD_OPERATOR for other dtypes or shapes that do not broadcast. */
static inline em_status em_op_min_max_decode(const em_op_context *ctx, em_tensor *in, em_tensor *out,
                                             em_broadcast_dims *dims)
{
    em_status s = em_op_operands(ctx, in, 2u, out, 1u);
    if (s == EM_OK) s = em_op_options(ctx, EM_OPTIONS_MIN_MAX);
    if (s == EM_OK && (in[0].dtype != EM_DTYPE_INT8 || in[1].dtype != EM_DTYPE_INT8 || out->dtype != EM_DTYPE_INT8
                       || !em_op_broadcast_dims(&in[0], &in[1], out, dims))) {
        s = EM_ERR_BAD_OPERATOR;
    }
    return s;
}

static inline em_status em_op_min_max_check(const em_op_context *ctx)
{
    em_tensor in[2], out;
    em_broadcast_dims dims;
    return em_op_min_max_decode(ctx, in, &out, &dims);
}

static inline em_status em_op_min_max_eval(const em_op_context *ctx, em_op_min_max_kernel kernel)
{
    em_tensor in[2], out;
    em_broadcast_dims dims;
    const em_status s = em_op_min_max_decode(ctx, in, &out, &dims);
    if (s != EM_OK) {
        return s;
    }
    return em_op_status(kernel(&dims, (const int8_t *)in[0].data, (const int8_t *)in[1].data, (int8_t *)out.data));
}

#endif /* EM_OP_MIN_MAX_H */
