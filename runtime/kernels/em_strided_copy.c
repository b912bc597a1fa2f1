/**
 * @file em_strided_copy.c
 * @brief Strided gather of elements of any size: the engine of em_transpose and em_slice.
 *
 * The walk is row-major over the output, so writes are sequential; the innermost dimension
 * is either a contiguous run of the input (one memcpy) or a strided run (a typed loop).
 */
#include <stdbool.h>
#include <stddef.h>

#include "em_nn_copy.h"
#include "em_nn_data_movement.h"

/** Copies @p n elements, input stride @p stride (elements), to a contiguous output. */
static void em_nn_copy_run(uint8_t *out, const uint8_t *in, int32_t n, int32_t stride, int32_t element_size)
{
    if (stride == 1) {
        em_nn_copy_bytes(out, in, n * element_size);
    } else if (element_size == 1) {
        em_nn_gather_bytes(out, in, n, stride);
    } else {
        for (int32_t i = 0; i < n; i++) {
            em_nn_copy_bytes(out + (ptrdiff_t)i * element_size, in + (ptrdiff_t)i * stride * element_size,
                             element_size);
        }
    }
}

em_nn_status em_strided_copy(const void *input, const em_nn_shape *out_shape, const int32_t *in_strides,
                             int32_t element_size, void *output)
{
    if (input == NULL || out_shape == NULL || output == NULL || (in_strides == NULL && out_shape->rank > 0)
        || out_shape->rank < 0 || out_shape->rank > EM_NN_MAX_RANK
        || !(element_size == 1 || element_size == 2 || element_size == 4)) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    /* Drop size-1 dimensions; merge a dimension into the previous one where their strides
     * chain (stride[k-1] == stride[k] · dims[k]), so contiguous runs get as long as they can. */
    int32_t dims[EM_NN_MAX_RANK], strides[EM_NN_MAX_RANK];
    int32_t rank = 0;
    int64_t total = 1;
    for (int32_t k = 0; k < out_shape->rank; k++) {
        const int32_t d = out_shape->dims[k];
        if (d < 1 || in_strides[k] < 0) {
            return EM_NN_ERR_BAD_ARGUMENT;
        }
        total *= d;
        if (d == 1) {
            continue;
        }
        if (rank > 0 && (int64_t)strides[rank - 1] == (int64_t)in_strides[k] * d) {
            dims[rank - 1] *= d;
            strides[rank - 1] = in_strides[k];
        } else {
            dims[rank] = d;
            strides[rank] = in_strides[k];
            rank++;
        }
    }
    int64_t span = 0; /* the farthest input element read */
    for (int32_t k = 0; k < rank; k++) {
        span += (int64_t)(dims[k] - 1) * strides[k];
    }
    /* offsets stay below 2 · span elements (a counter's carry adds a stride before it
     * subtracts the dimension): half the int32 range in bytes keeps them exact */
    if (total > INT32_MAX || span > INT32_MAX / 2 / element_size) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    const uint8_t *in = (const uint8_t *)input;
    uint8_t *out = (uint8_t *)output;
    if (rank == 0) {
        em_nn_copy_bytes(out, in, element_size);
        return EM_NN_OK;
    }
    const int32_t run = dims[rank - 1];
    const int32_t run_stride = strides[rank - 1];
    const int32_t outer = rank - 1;
    int32_t index[EM_NN_MAX_RANK] = {0};
    int32_t offset = 0; /* in elements */
    const int32_t rows = (int32_t)(total / run);
    for (int32_t row = 0; row < rows; row++) {
        em_nn_copy_run(out, in + offset * element_size, run, run_stride, element_size);
        out += run * element_size;
        for (int32_t d = outer - 1; d >= 0; d--) {
            offset += strides[d];
            if (++index[d] < dims[d]) {
                break;
            }
            offset -= strides[d] * dims[d];
            index[d] = 0;
        }
    }
    return EM_NN_OK;
}
