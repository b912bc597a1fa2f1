/**
 * @file em_nn_functions.h
 * @brief Public Ember kernels (CMSIS-NN style): pure functions over plain structs and pointers.
 *
 * Every kernel produces, on every tier, the same bytes as its specification in
 * compiler/reference.py. Kernels never allocate and never read beyond the extents given by
 * their dims. Unless stated otherwise, output buffers must not overlap input buffers.
 */
#ifndef EM_NN_FUNCTIONS_H
#define EM_NN_FUNCTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "em_nn_types.h"
#include "em_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * int8 fully connected layer with per-output-channel requantization (reference.fully_connected_s8):
 * out[b, o] = clamp(requantize(Σ_i in[b, i]·w[o, i] + bias[o], mult[o], shift[o]) + output_offset,
 *                   activation_min, activation_max).
 * The input zero point is folded into @p bias ahead of time. The int32 accumulator wraps.
 *
 * @param params   output offset and activation clamps (-128..127)
 * @param quant    multiplier[O], shift[O]
 * @param dims     B, I, O (each >= 1)
 * @param input    [B, I] int8, -128..127, row-major
 * @param weights  [O, I] int8, -128..127, row-major (same layout on every tier)
 * @param bias     [O] int32, or NULL for zero bias
 * @param output   [B, O] int8, -128..127, row-major
 * @return EM_OK, or EM_ERR_BAD_ARGUMENT for a NULL pointer or dims < 1.
 */
em_status em_fully_connected_s8(const em_fc_params *params, const em_per_channel_quant *quant,
                                const em_fc_dims *dims, const int8_t *input, const int8_t *weights,
                                const int32_t *bias, int8_t *output);

/**
 * Scratch bytes em_fully_connected_s8() needs on this build's tier for @p dims.
 * @return 0 today on every tier (no scratch). Compiles on the host.
 */
int32_t em_fully_connected_s8_get_buffer_size(const em_fc_dims *dims);

/**
 * float32 -> int8 (reference.quantize_f32_s8):
 * q = clamp(nearbyintf(x * inv_scale) + zero_point, -128, 127), in float32, clamped before the
 * conversion; NaN gives zero_point. Rounds half to even (default rounding mode).
 * May run in place (output == (int8_t *)input).
 * @param input       [count] float32, any value (NaN and ±inf included)
 * @param count       number of elements, >= 0
 * @param inv_scale   1 / scale, float32
 * @param zero_point  -128..127
 * @param output      [count] int8
 * @return EM_OK, or EM_ERR_BAD_ARGUMENT for a NULL pointer with count > 0 or count < 0.
 */
em_status em_quantize_f32_s8(const float *input, int32_t count, float inv_scale,
                             int32_t zero_point, int8_t *output);

/**
 * int8 -> float32 (reference.dequantize_s8_f32): x = (float)(q - zero_point) * scale, float32.
 * @param input       [count] int8, -128..127
 * @param count       number of elements, >= 0
 * @param scale       float32
 * @param zero_point  -128..127
 * @param output      [count] float32; must not overlap @p input
 * @return EM_OK, or EM_ERR_BAD_ARGUMENT for a NULL pointer with count > 0 or count < 0.
 */
em_status em_dequantize_s8_f32(const int8_t *input, int32_t count, float scale,
                               int32_t zero_point, float *output);

#ifdef __cplusplus
}
#endif

#endif /* EM_NN_FUNCTIONS_H */
