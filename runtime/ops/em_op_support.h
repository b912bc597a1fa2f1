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

/** True when the per-channel requantization vectors hold @p n entries each, every multiplier
 *  >= 0 and every shift in -31..30 (what em_nn_requantize() takes). check() only. */
static inline bool em_op_per_channel_quant_ok(const em_op_context *ctx, const em_fb_vector *multiplier,
                                              const em_fb_vector *shift, int32_t n)
{
    if (n < 1 || multiplier->len != (uint32_t)n || shift->len != (uint32_t)n) {
        return false;
    }
    for (uint32_t o = 0; o < shift->len; o++) {
        const int32_t s = em_fb_vector_i32(&ctx->buf, shift, o);
        if (s < -31 || s > 30 || em_fb_vector_i32(&ctx->buf, multiplier, o) < 0) {
            return false;
        }
    }
    return true;
}

#endif /* EM_OP_SUPPORT_H */
