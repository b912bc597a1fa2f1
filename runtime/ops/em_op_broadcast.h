/**
 * @file em_op_broadcast.h
 * @brief The broadcasting elementwise binary ops (ADD, MUL, MINIMUM, MAXIMUM) accept, shared by their adapters.
 *
 * The output's shape must be NumPy's broadcast of the operands' shapes (ranks <= EM_MAX_RANK,
 * aligned from the last axis), and each operand must be one of
 * - the output's own shape (any rank; size-1 axes added or kept),
 * - a scalar (one element: [1], [1, 1, 1, 1], rank 0),
 * - a row: size 1 on every axis but the last, which equals the output's last axis
 *   (e.g. [1, 1, 1, C] or [C] against [N, H, W, C]),
 * and not both broadcast. Anything else (e.g. [N, H, W, 1] against [1, 1, 1, C]) has no kernel
 * layout: em_op_broadcast_dims() returns false and check() reports EM_ERR_BAD_OPERATOR.
 * Header-only (static inline) so that either op links without the other.
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

/** How operand @p t maps onto @p out (whose broadcast with the other operand was verified),
 *  or -1 when the kernels have no such layout. */
static inline int32_t em_op_broadcast_of(const em_tensor *t, const em_tensor *out, uint32_t out_elements)
{
    const uint32_t n = em_tensor_elements(t);
    if (n == out_elements) {
        return EM_ADD_BROADCAST_NONE;
    }
    if (n == 1u) {
        return EM_ADD_BROADCAST_SCALAR;
    }
    /* A row: size 1 on every axis but the last, which equals the output's. Its dims (>= 0)
     * multiply to n, so with its last dim equal to the output's last dim L (>= 1, verified by the
     * caller), n == L holds exactly when every other dim is 1: no loop over the axes. */
    if (t->rank < 1 || out->rank < 1) {
        return -1;
    }
    const int32_t last = em_op_dim(out, out->rank - 1);
    return em_op_dim(t, t->rank - 1) == last && n == (uint32_t)last ? EM_ADD_BROADCAST_ROW : -1;
}

/** The kernels' [outer, inner] dims of @p out = @p a ⊕ @p b, or false when the shapes are not
 *  a layout the kernels support. */
static inline bool em_op_broadcast_dims(const em_tensor *a, const em_tensor *b, const em_tensor *out,
                                        em_add_dims *dims)
{
    const int32_t rank = out->rank;
    if (a->rank > rank || b->rank > rank) {
        return false;
    }
    for (int32_t axis = 0; axis < rank; axis++) { /* out == NumPy's broadcast of a and b */
        const int32_t da = em_op_aligned_dim(a, rank, axis);
        const int32_t db = em_op_aligned_dim(b, rank, axis);
        const int32_t want = da == 1 ? db : da;
        if ((da != db && da != 1 && db != 1) || em_op_dim(out, axis) != want) {
            return false;
        }
    }
    const uint32_t n = em_tensor_elements(out);
    const int32_t inner = rank >= 1 ? em_op_dim(out, rank - 1) : 1;
    if (n == 0u || inner < 1) {
        return false;
    }
    dims->inner = inner;
    dims->outer = (int32_t)(n / (uint32_t)inner);
    dims->a_broadcast = em_op_broadcast_of(a, out, n);
    dims->b_broadcast = em_op_broadcast_of(b, out, n);
    return dims->a_broadcast >= 0 && dims->b_broadcast >= 0
           && (dims->a_broadcast == EM_ADD_BROADCAST_NONE || dims->b_broadcast == EM_ADD_BROADCAST_NONE);
}

#endif /* EM_OP_BROADCAST_H */
