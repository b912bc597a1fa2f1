/**
 * @file em_op_data_movement.h
 * @brief What the data-movement adapters (PAD, TRANSPOSE, SLICE, UPSAMPLE_NEAREST, RESHAPE)
 *        share: their dtypes (INT8, INT16, INT32, FLOAT32: the kernels move elements as bytes, so the
 *        float fallback runs the same ops, and a streamed front end slices its int16 audio history;
 *        PAD takes no INT16), shapes as kernel structs, and int vectors of options.
 *        Header-only (static inline) so that each op links alone.
 */
#ifndef EM_OP_DATA_MOVEMENT_H
#define EM_OP_DATA_MOVEMENT_H

#include <stdbool.h>

#include "em_nn_data_movement.h"
#include "em_op_support.h"

/** Bytes per element of the dtypes data movement takes, 0 for any other. */
static inline int32_t em_op_element_size(em_dtype dtype)
{
    static const int8_t sizes[] = {[EM_DTYPE_INT8] = 1, [EM_DTYPE_INT16] = 2, [EM_DTYPE_INT32] = 4,
                                   [EM_DTYPE_FLOAT32] = 4};
    return (uint32_t)dtype < sizeof sizes ? sizes[dtype] : 0;
}

/** True when @p in and @p out have one movable dtype and at most INT32_MAX elements. */
static inline bool em_op_movable(const em_tensor *in, const em_tensor *out)
{
    return in->dtype == out->dtype && em_op_element_size(in->dtype) > 0
           && em_tensor_elements(in) <= (uint32_t)INT32_MAX && em_tensor_elements(out) <= (uint32_t)INT32_MAX;
}

/** True when a strided walk (em_strided_copy, em_pad) whose farthest element is @p span elements
 *  stays within the kernels' bound: offsets reach twice the span, so half the int32 range in bytes. */
static inline bool em_op_span_ok(int64_t span, int32_t element_size)
{
    return span >= 0 && span <= INT32_MAX / 2 / element_size;
}

/** @p t's shape as the kernels take it; false when its rank exceeds EM_NN_MAX_RANK or a
 *  dimension is < 1. */
static inline bool em_op_shape_of(const em_tensor *t, em_nn_shape *shape)
{
    if (t->rank < 0 || t->rank > EM_NN_MAX_RANK) {
        return false;
    }
    shape->rank = t->rank;
    for (int32_t k = 0; k < t->rank; k++) {
        shape->dims[k] = em_op_dim(t, k);
        if (shape->dims[k] < 1) {
            return false;
        }
    }
    return true;
}

/** Int vector field @p slot of the options (after em_op_options()), which must hold exactly
 *  @p len elements; *@p out points at them in place. */
static inline em_status em_op_option_ints(const em_op_context *ctx, uint32_t slot, int32_t len,
                                          const int32_t **out)
{
    em_fb_vector v;
    const em_status s = em_op_option_vector(ctx, slot, &v);
    if (s != EM_OK) {
        return s;
    }
    if (!em_op_trusted(ctx) && v.len != (uint32_t)len) {
        return EM_ERR_BAD_OPERATOR;
    }
    *out = em_op_vector_i32(ctx, &v);
    return EM_OK;
}

#endif /* EM_OP_DATA_MOVEMENT_H */
