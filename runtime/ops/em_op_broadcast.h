/**
 * @file em_op_broadcast.h
 * @brief NumPy broadcasting of the elementwise binary ops (ADD, MUL, MINIMUM, MAXIMUM), shared by
 *        their adapters: the kernels' em_broadcast_dims from the tensors.
 *
 * The output's shape must be NumPy's broadcast of the operands' shapes (leading axes of size 1
 * beyond both operands' ranks allowed): ranks <= the output's (<= EM_MAX_RANK, which the loader
 * enforces), aligned from the last axis; along each axis an operand's size is the output's or 1,
 * and one of the two is the output's. Any such pair is
 * taken: the same shape, a scalar (one element, any rank, rank 0 included), a channel row
 * ([C] or [1, 1, 1, C] against [N, H, W, C]), either or both operands broadcast along any axes
 * ([N, H, W, 1] with [1, 1, 1, C], [1, 8, 1] with [1, 1, 8], [2, 1, 5] with [1, 3, 1]). Anything
 * else (sizes that differ and neither 1, an output of another shape, an operand of higher rank)
 * and an empty output: em_op_broadcast_dims() returns false and check() reports
 * EM_ERR_BAD_OPERATOR.
 *
 * Bounds: the loader keeps every int8 tensor within INT32_MAX bytes, so the output has at most
 * INT32_MAX elements and each operand, the output's shape with some axes 1, no more: every
 * offset the kernels form (< an operand's element count) is exact in int32.
 * In place: the output may be exactly an operand of the output's shape (and, per kernel, start
 * below it: em_nn_functions.h); never a broadcast operand, which is read again and again
 * (compiler/in_place.py plans it so).
 * Header-only (static inline) so that each op links without the others.
 */
#ifndef EM_OP_BROADCAST_H
#define EM_OP_BROADCAST_H

#include <stdbool.h>

#include "em_nn_types.h"
#include "em_op_support.h"

/** Size of @p t along output axis @p axis of an output of rank @p out_rank (1 where @p t,
 *  aligned from the last axis, has no such axis). */
static inline int32_t em_op_aligned_dim(const em_tensor *t, int32_t out_rank, int32_t axis)
{
    const int32_t own = axis - (out_rank - t->rank);
    return own >= 0 ? em_op_dim(t, own) : 1;
}

/** The kernels' dims of @p out = @p a ⊕ @p b (each operand's shape aligned to the output's rank),
 *  or false when @p out is not NumPy's broadcast of the operands or is empty. */
static inline bool em_op_broadcast_dims(const em_tensor *a, const em_tensor *b, const em_tensor *out,
                                        em_broadcast_dims *dims)
{
    const int32_t rank = out->rank;
    if (rank > EM_BROADCAST_MAX_RANK || a->rank > rank || b->rank > rank) {
        return false;
    }
    dims->rank = rank;
    bool empty = false;
    for (int32_t axis = 0; axis < rank; axis++) {
        const int32_t da = em_op_aligned_dim(a, rank, axis);
        const int32_t db = em_op_aligned_dim(b, rank, axis);
        const int32_t want = da == 1 ? db : da;
        if ((da != db && da != 1 && db != 1) || em_op_dim(out, axis) != want) {
            return false;
        }
        dims->shape[axis] = want;
        dims->a_shape[axis] = da;
        dims->b_shape[axis] = db;
        empty |= want == 0; /* dims >= 0 (the loader); 0 only where both are 0 or 0 meets 1 */
    }
    return !empty;
}

#endif /* EM_OP_BROADCAST_H */
