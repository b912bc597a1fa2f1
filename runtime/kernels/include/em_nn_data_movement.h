/**
 * @file em_nn_data_movement.h
 * @brief Kernels that move elements without computing on them (transpose, slice, pad, nearest
 *        upsampling, reshape), and int8 requantization, the one that rescales codes where
 *        tensors of different quantizations meet (compiler/reference.py).
 *
 * The data-movement kernels are dtype-generic: they copy elements of @p element_size bytes
 * (1, 2 or 4: int8 codes, int32, float32 alike), so the float fallback can share them. Shapes
 * are row-major (NHWC for 4-D maps). Contiguous runs go through memcpy (GCC inlines or calls
 * the library's, which is already word-wise); there is no ISA-specific path. Unless stated
 * otherwise, output buffers must not overlap input buffers.
 */
#ifndef EM_NN_DATA_MOVEMENT_H
#define EM_NN_DATA_MOVEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "em_nn_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Largest rank the data-movement kernels take (the runtime's EM_MAX_RANK). */
#define EM_NN_MAX_RANK 8

/** A row-major shape: dims[0..rank-1], each >= 1; the product must not exceed INT32_MAX. */
typedef struct {
    int32_t rank;                 /**< 0..EM_NN_MAX_RANK (0: one element) */
    int32_t dims[EM_NN_MAX_RANK];
} em_nn_shape;

/**
 * The engine under transpose and slice: output element i (row-major over @p out_shape) is
 * input element Σ_k i_k · @p in_strides[k] (strides in elements, >= 0). Dimensions of size 1
 * are dropped and mergeable ones merged first, so a contiguous innermost run is one memcpy.
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for NULL pointers, a rank or dimension out of range,
 *         negative strides or an element size other than 1, 2, 4.
 */
em_nn_status em_strided_copy(const void *input, const em_nn_shape *out_shape, const int32_t *in_strides,
                             int32_t element_size, void *output);

/**
 * Transpose (reference.transpose): output dimension k is input dimension @p perm[k].
 * @param perm  [in_shape->rank], a permutation of 0..rank-1
 */
em_nn_status em_transpose(const void *input, const em_nn_shape *in_shape, const int32_t *perm, int32_t element_size,
                          void *output);

/**
 * Strided slice (reference.slice_): out[i] = in[begin + i · step] along every dimension k, for
 * i < out_shape->dims[k]. Requires begin[k] >= 0, step[k] >= 1 and
 * begin[k] + (out dims[k] - 1) · step[k] < in dims[k] (the caller checks; EM_NN_ERR_BAD_ARGUMENT otherwise).
 */
em_nn_status em_slice(const void *input, const em_nn_shape *in_shape, const int32_t *begin, const int32_t *step,
                      const em_nn_shape *out_shape, int32_t element_size, void *output);

/**
 * Constant pad (reference.pad): the output, of dims before[k] + in dims[k] + after[k], holds
 * the input at offset before[k] along every dimension and @p value (element_size bytes)
 * everywhere else. @param before, after [in_shape->rank], >= 0
 */
em_nn_status em_pad(const void *input, const em_nn_shape *in_shape, const int32_t *before, const int32_t *after,
                    const void *value, int32_t element_size, void *output);

/**
 * Nearest-neighbour upsampling by integer factors (reference.upsample_nearest):
 * input [batches, h, w, c] -> output [batches, h · scale_h, w · scale_w, c],
 * out[n, y, x, :] = in[n, y / scale_h, x / scale_w, :]. All sizes >= 1.
 */
em_nn_status em_upsample_nearest(const void *input, int32_t batches, int32_t h, int32_t w, int32_t c,
                                 int32_t scale_h, int32_t scale_w, int32_t element_size, void *output);

/**
 * Reshape: @p bytes bytes of @p input to @p output (which may be @p input itself, when the
 * planner aliased them: then nothing moves; other overlaps are allowed too).
 */
em_nn_status em_reshape(const void *input, int32_t bytes, void *output);

/** Requantization of int8 or int16 codes (the schema's RequantizeOptions, reference.requantize_s8). */
typedef struct {
    int32_t input_offset;      /**< minus the input zero point, -127..128 (int16 input: -32767..32768; A16W8: 0) */
    int32_t output_offset;     /**< output zero point, -128..127 (int16 output: -32768..32767; A16W8: 0) */
    int32_t output_multiplier; /**< Q31, 0..INT32_MAX */
    int32_t output_shift;      /**< -31..30; > 0 shifts left */
} em_requantize_params;

/**
 * out[i] = clamp(requantize(in[i] + input_offset, multiplier, shift) + output_offset, -128, 127).
 * @param count  >= 0 elements; @p output may overlap @p input when it starts at or below it
 *               (elementwise, in increasing order: in place)
 */
em_nn_status em_requantize_s8(const int8_t *input, int32_t count, const em_requantize_params *params,
                              int8_t *output);

/**
 * The A16W8 boundaries, em_requantize_s8() with int16 on one side or both: int8 -> int16
 * (clamped to -32768..32767), int16 -> int8, int16 -> int16. Offsets in their side's range
 * (em_requantize_params). In place (output at or below the input) only where the widths are equal.
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer with count > 0, count < 0 or
 *         params out of range.
 */
em_nn_status em_requantize_s8_s16(const int8_t *input, int32_t count, const em_requantize_params *params,
                                  int16_t *output);
em_nn_status em_requantize_s16_s8(const int16_t *input, int32_t count, const em_requantize_params *params,
                                  int8_t *output);
em_nn_status em_requantize_s16(const int16_t *input, int32_t count, const em_requantize_params *params,
                               int16_t *output);

#ifdef __cplusplus
}
#endif

#endif /* EM_NN_DATA_MOVEMENT_H */
