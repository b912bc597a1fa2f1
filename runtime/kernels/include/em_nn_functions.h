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

/**
 * int8 grouped 2-D convolution, NHWC, per-output-channel requantization (reference.conv2d_s8):
 * out[n, y, x, o] = clamp(requantize(Σ_{ky, kx, i} in_pad[n, y·sh + ky·dh, x·sw + kx·dw, g·Cg + i]
 *                                    · w[o, ky, kx, i] + bias[o], mult[o], shift[o]) + output_offset)
 * with Cg = input_c / groups, g = o / (output_c / groups), and in_pad the input padded by
 * (pad_top, pad_bottom, pad_left, pad_right) cells holding input_zero_point. The input zero
 * point is folded into @p bias ahead of time. The int32 accumulator wraps.
 *
 * @param ctx      scratch: with ctx->size >= em_conv2d_s8_get_buffer_size() the MVE path packs
 *                 patches (im2col); NULL, or a smaller buffer, selects a path without scratch
 *                 (same bytes, fewer MACs per instruction for small Cg)
 * @param params   strides, dilations, paddings, groups, zero points, clamps (ranges: em_conv_params)
 * @param quant    multiplier[output_c], shift[output_c] (-31..30)
 * @param dims     shapes; output_h / output_w must follow the output size formula
 * @param input    [N, H, W, C_IN] int8, -128..127
 * @param weights  [C_OUT, KH, KW, C_IN / groups] int8, -128..127 (same layout on every tier)
 * @param bias     [C_OUT] int32, or NULL for zero bias
 * @param output   [N, OH, OW, C_OUT] int8; must not overlap @p input
 * @return EM_OK, or EM_ERR_BAD_ARGUMENT for a NULL pointer or out-of-range dims / params.
 */
em_status em_conv2d_s8(const em_nn_context *ctx, const em_conv_params *params,
                       const em_per_channel_quant *quant, const em_conv_dims *dims,
                       const int8_t *input, const int8_t *weights, const int32_t *bias,
                       int8_t *output);

/**
 * Scratch bytes em_conv2d_s8() uses for its fastest path on this build's tier: MVE, one packed
 * patch of KH·KW·C_IN/groups bytes rounded up to 16, unless the patch is already contiguous in
 * the input (1x1 kernels, groups 1); 0 on the scalar and DSP tiers. Compiles on the host.
 */
int32_t em_conv2d_s8_get_buffer_size(const em_conv_params *params, const em_conv_dims *dims);

/**
 * int8 depthwise 2-D convolution, NHWC, per-output-channel requantization
 * (reference.depthwise_conv2d_s8): output channel o = c·M + m (M = depth_multiplier) reads input
 * channel c only:
 * out[n, y, x, o] = clamp(requantize(Σ_{ky, kx} in_pad[n, y·sh + ky·dh, x·sw + kx·dw, c]
 *                                    · w[ky, kx, o] + bias[o], mult[o], shift[o]) + output_offset)
 * with in_pad padded by input_zero_point as for em_conv2d_s8().
 *
 * @param ctx      unused today (no scratch on any tier); may be NULL
 * @param params   strides, dilations, paddings, depth_multiplier, zero points, clamps
 * @param quant    multiplier[output_c], shift[output_c] (-31..30)
 * @param dims     shapes; output_c == input_c · depth_multiplier
 * @param input    [N, H, W, C] int8, -128..127
 * @param weights  [KH, KW, C·M] int8, -128..127 (TFLite layout)
 * @param bias     [C·M] int32, or NULL for zero bias
 * @param output   [N, OH, OW, C·M] int8; must not overlap @p input
 * @return EM_OK, or EM_ERR_BAD_ARGUMENT for a NULL pointer or out-of-range dims / params.
 */
em_status em_depthwise_conv2d_s8(const em_nn_context *ctx, const em_conv_params *params,
                                 const em_per_channel_quant *quant, const em_conv_dims *dims,
                                 const int8_t *input, const int8_t *weights, const int32_t *bias,
                                 int8_t *output);

/** Scratch bytes em_depthwise_conv2d_s8() needs: 0 on every tier today. Compiles on the host. */
int32_t em_depthwise_conv2d_s8_get_buffer_size(const em_conv_params *params, const em_conv_dims *dims);

#ifdef __cplusplus
}
#endif

#endif /* EM_NN_FUNCTIONS_H */
