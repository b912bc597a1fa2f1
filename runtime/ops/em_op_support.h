/**
 * @file em_op_support.h
 * @brief Small checks shared by the operator adapters (runtime/ops/).
 */
#ifndef EM_OP_SUPPORT_H
#define EM_OP_SUPPORT_H

#include "em_registry.h"

/** True when @p t has dtype @p dtype and rank @p rank. */
static inline bool em_op_is(const em_tensor *t, em_dtype dtype, int32_t rank)
{
    return t->dtype == dtype && t->rank == rank;
}

/** Dimension @p axis of @p t (rank verified by the caller). */
static inline int32_t em_op_dim(const em_tensor *t, int32_t axis)
{
    int32_t dim;
    em_fb_memcpy(&dim, &t->shape[axis], sizeof dim);
    return dim;
}

/** True when @p v is a valid int8 value (zero points, offsets, clamps). */
static inline bool em_op_in_s8(int32_t v)
{
    return v >= -128 && v <= 127;
}

#endif /* EM_OP_SUPPORT_H */
