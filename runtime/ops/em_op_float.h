/**
 * @file em_op_float.h
 * @brief What the float fallback adapters share: the output clamp options and the float32
 *        operand check. Header-only (static inline) so that each float op links alone.
 */
#ifndef EM_OP_FLOAT_H
#define EM_OP_FLOAT_H

#include <stdbool.h>

#include "em_nn_float.h"
#include "em_op_support.h"

/** The float activation_min / activation_max fields at @p min_slot / @p max_slot (default: no clamp). */
static inline em_status em_op_float_activation(const em_op_context *ctx, uint32_t min_slot, uint32_t max_slot,
                                               em_float_activation *act)
{
    em_status s = em_op_option_f32(ctx, min_slot, -__builtin_inff(), &act->min);
    if (s == EM_OK) s = em_op_option_f32(ctx, max_slot, __builtin_inff(), &act->max);
    return s;
}

/** A clamp the kernels accept: min <= max (false for NaN bounds). */
static inline bool em_op_float_activation_ok(const em_float_activation *act)
{
    return act->min <= act->max;
}

/** True when @p t is float32 with at least one element. */
static inline bool em_op_is_float(const em_tensor *t)
{
    return t->dtype == EM_DTYPE_FLOAT32 && em_tensor_elements(t) >= 1u
           && em_tensor_elements(t) <= (uint32_t)INT32_MAX;
}

/** The last dimension of @p t (1 for rank 0). */
static inline int32_t em_op_last_dim(const em_tensor *t)
{
    return t->rank >= 1 ? em_op_dim(t, t->rank - 1) : 1;
}

#endif /* EM_OP_FLOAT_H */
