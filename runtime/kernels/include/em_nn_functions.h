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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "em_nn_types.h"
#include "em_nn_status.h"

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
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or dims < 1.
 */
em_nn_status em_fully_connected_s8(const em_fc_params *params, const em_per_channel_quant *quant,
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
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer with count > 0 or count < 0.
 */
em_nn_status em_quantize_f32_s8(const float *input, int32_t count, float inv_scale,
                                int32_t zero_point, int8_t *output);

/**
 * float32 -> int16 (A16W8, reference.quantize_f32_s16): em_quantize_f32_s8() onto int16,
 * q = clamp(nearbyintf(x * inv_scale) + zero_point, -32768, 32767); NaN gives zero_point.
 * May run in place (output == (int16_t *)input).
 * @param zero_point  -32768..32767 (A16W8: 0)
 * @param output      [count] int16
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer with count > 0, count < 0 or a
 *         zero point outside int16.
 */
em_nn_status em_quantize_f32_s16(const float *input, int32_t count, float inv_scale,
                                 int32_t zero_point, int16_t *output);

/**
 * int8 -> float32 (reference.dequantize_s8_f32): x = (float)(q - zero_point) * scale, float32.
 * @param input       [count] int8, -128..127
 * @param count       number of elements, >= 0
 * @param scale       float32
 * @param zero_point  -128..127
 * @param output      [count] float32; must not overlap @p input
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer with count > 0 or count < 0.
 */
em_nn_status em_dequantize_s8_f32(const int8_t *input, int32_t count, float scale,
                                  int32_t zero_point, float *output);

/**
 * int16 -> float32 (A16W8, reference.dequantize_s8_f32 on int16 codes):
 * x = (float)(q - zero_point) * scale, float32.
 * @param input       [count] int16, -32768..32767
 * @param zero_point  -32768..32767 (A16W8: 0)
 * @param output      [count] float32; must not overlap @p input
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer with count > 0, count < 0 or a
 *         zero point outside int16.
 */
em_nn_status em_dequantize_s16_f32(const int16_t *input, int32_t count, float scale,
                                   int32_t zero_point, float *output);

/**
 * int4 -> int8 (reference.unpack_s4): the weights of an A8W4 layer, stored two to a byte as
 * compiler/int4.py lays them out (the program's DType INT4), unpacked into int8 for the layer's
 * int8 kernel; its adapter runs it into its scratch at every invoke.
 * Row r of @p packed is bytes r·B .. r·B + B − 1, B = ceil(n / 2), n = @p row_elements; inside a
 * row, elements go in blocks of 32 (16 bytes): byte 16b + j holds element 32b + j in its low
 * nibble and element 32b + 16 + j in its high nibble (two's complement, -8..7); a last block of
 * t < 32 elements takes h = ceil(t / 2) bytes, byte j holding element j low and element h + j
 * high (an odd t leaves the last high nibble unused).
 * @param packed        [rows · ceil(row_elements / 2)] bytes, any alignment
 * @param rows          >= 0
 * @param row_elements  >= 0, with rows · row_elements <= INT32_MAX
 * @param output        [rows, row_elements] int8, -8..7, row-major, any alignment; must not
 *                      overlap @p packed (out of place only)
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a negative size, more than INT32_MAX elements
 *         or a NULL pointer with elements to unpack.
 */
em_nn_status em_unpack_s4(const uint8_t *packed, int32_t rows, int32_t row_elements, int8_t *output);

/**
 * The argument contract em_conv2d_s8() (@p depthwise false) and em_depthwise_conv2d_s8() (true)
 * check at every call, and their adapters at load: pointers set (quant's vectors too), every
 * dim >= 1, strides and dilations >= 1, paddings >= 0, output_h / output_w by the output size
 * formula (em_nn_output_size_ok), input_zero_point, output_offset and clamps int8 with
 * activation_min <= activation_max; groups >= 1 dividing input_c and output_c (convolution) or
 * depth_multiplier >= 1 with input_c · depth_multiplier = output_c (depthwise). Per-channel
 * values are not read. @return EM_NN_OK or EM_NN_ERR_BAD_ARGUMENT.
 */
em_nn_status em_conv_s8_validate(const em_conv_params *params, const em_per_channel_quant *quant,
                                 const em_conv_dims *dims, bool depthwise);

/**
 * int8 grouped 2-D convolution, NHWC, per-output-channel requantization (reference.conv2d_s8):
 * out[n, y, x, o] = clamp(requantize(Σ_{ky, kx, i} in_pad[n, y·sh + ky·dh, x·sw + kx·dw, g·Cg + i]
 *                                    · w[o, ky, kx, i] + bias[o], mult[o], shift[o]) + output_offset)
 * with Cg = input_c / groups, g = o / (output_c / groups), and in_pad the input padded by
 * (pad_top, pad_bottom, pad_left, pad_right) cells holding input_zero_point. The input zero
 * point is folded into @p bias ahead of time. The int32 accumulator wraps.
 *
 * @param ctx      scratch for packed patches (im2col): the kernel packs as many columns as
 *                 ctx->size holds (em_conv2d_s8_get_buffer_size() for its fastest path; one
 *                 column is enough for the column path); NULL, or less than one column, selects
 *                 taps read in place (same bytes, fewer MACs per instruction), as does a
 *                 scratch over the input on the DSP and scalar tiers (they memcpy the patches);
 *                 on Helium, ctx->paths as em_conv2d_s8_paths_ok() accepts them (packing only
 *                 with CONV_MVE_PACK; pixels the paths do not cover stay unwritten, never a read
 *                 or write out of bounds)
 * @param params   strides, dilations, paddings, groups, zero points, clamps (ranges: em_conv_params)
 * @param quant    multiplier[output_c], shift[output_c] (-31..30)
 * @param dims     shapes; output_h / output_w must follow the output size formula
 * @param input    [N, H, W, C_IN] int8, -128..127
 * @param weights  [C_OUT, KH, KW, C_IN / groups] int8, -128..127 (same layout on every tier)
 * @param bias     [C_OUT] int32, or NULL for zero bias
 * @param output   [N, OH, OW, C_OUT] int8; pixels are written in order (at most 4 pixels'
 *                 reads and writes interleaved), so it may overlap @p input only from the
 *                 margin below it that compiler/in_place.py computes (window_margin)
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or out-of-range dims / params.
 */
em_nn_status em_conv2d_s8(const em_nn_context *ctx, const em_conv_params *params,
                          const em_per_channel_quant *quant, const em_conv_dims *dims,
                          const int8_t *input, const int8_t *weights, const int32_t *bias,
                          int8_t *output);

/** em_conv2d_s8() without its own check, for arguments em_conv_s8_validate() and
 *  em_conv2d_s8_paths_ok() accepted (an operator's check() proved them when the program was
 *  verified): what eval() calls (em_kernel_entries_s8.c holds the checking entry). @return EM_NN_OK. */
em_nn_status em_conv2d_s8_trusted(const em_nn_context *ctx, const em_conv_params *params,
                                  const em_per_channel_quant *quant, const em_conv_dims *dims,
                                  const int8_t *input, const int8_t *weights, const int32_t *bias,
                                  int8_t *output);

/**
 * Whether ctx->paths (EM_NN_PATHS_CONV bits of em_nn_variants.h, the variants the compiler
 * chose) lets em_conv2d_s8() compute every output pixel of @p dims with ctx->size bytes of
 * scratch (ctx->buf is not read). Helium: where a pixel's column is not the input itself, CONV_MVE_PACK with scratch for
 * a column, or CONV_MVE_TAPS; below Helium, paths 0. Called by the adapter's check() at load;
 * em_conv2d_s8() trusts it. params and dims already passed em_conv_s8_validate().
 * @return EM_NN_OK, EM_NN_ERR_VARIANT_NOT_LINKED for a variant this build left out, or
 *         EM_NN_ERR_BAD_ARGUMENT for paths that do not cover the layer or name another kernel's.
 */
em_nn_status em_conv2d_s8_paths_ok(const em_nn_context *ctx, const em_conv_params *params, const em_conv_dims *dims);

/**
 * Scratch bytes em_conv2d_s8() uses for its fastest path on this build's tier, with
 * K = KH·KW·C_IN/groups: MVE, a block of 4 columns of K rounded up to 16; DSP, a pixel pair's two
 * columns and their word-interleaved copy, 4 × K rounded up to 4; scalar, one column of K rounded
 * up to 4. Columns already contiguous in the input (1x1 kernels, groups 1) are read in place,
 * except that the DSP pair path copies them too. Compiles on the host.
 */
int32_t em_conv2d_s8_get_buffer_size(const em_conv_params *params, const em_conv_dims *dims);

/** Bytes of one packed column (K = KH·KW·C_IN/groups int8) in the scratch of em_conv2d_s8():
 *  K rounded up to 16 on MVE (vector stores), to 4 otherwise. params->groups >= 1. */
int32_t em_nn_conv_col_bytes(const em_conv_params *params, const em_conv_dims *dims);

/**
 * int8 depthwise 2-D convolution, NHWC, per-output-channel requantization
 * (reference.depthwise_conv2d_s8): output channel o = c·M + m (M = depth_multiplier) reads input
 * channel c only:
 * out[n, y, x, o] = clamp(requantize(Σ_{ky, kx} in_pad[n, y·sh + ky·dh, x·sw + kx·dw, c]
 *                                    · w[ky, kx, o] + bias[o], mult[o], shift[o]) + output_offset)
 * with in_pad padded by input_zero_point as for em_conv2d_s8().
 *
 * @param ctx      Helium: scratch for the staged rows (em_depthwise_conv2d_s8_get_buffer_size()) and
 *                 the paths em_depthwise_conv2d_s8_paths_ok() accepts (channels they do not cover
 *                 stay unwritten; none at all: EM_NN_ERR_VARIANT_NOT_LINKED); may be NULL below
 * @param params   strides, dilations, paddings, depth_multiplier, zero points, clamps
 * @param quant    multiplier[output_c], shift[output_c] (-31..30)
 * @param dims     shapes; output_c == input_c · depth_multiplier
 * @param input    [N, H, W, C] int8, -128..127
 * @param weights  [KH, KW, C·M] int8, -128..127 (TFLite layout)
 * @param bias     [C·M] int32, or NULL for zero bias
 * @param output   [N, OH, OW, C·M] int8; must not overlap @p input, except on the pixel-order
 *                 fast path (em_depthwise_conv2d_m1_s8.c; compiler/in_place.py) from the
 *                 margin below it that compiler/in_place.py computes
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or out-of-range dims / params.
 */
em_nn_status em_depthwise_conv2d_s8(const em_nn_context *ctx, const em_conv_params *params,
                                    const em_per_channel_quant *quant, const em_conv_dims *dims,
                                    const int8_t *input, const int8_t *weights, const int32_t *bias,
                                    int8_t *output);

/** em_depthwise_conv2d_s8() without its own check, for arguments em_conv_s8_validate() and
 *  em_depthwise_conv2d_s8_paths_ok() accepted, as em_conv2d_s8_trusted().
 *  @return EM_NN_OK (EM_NN_ERR_VARIANT_NOT_LINKED on Helium when no path of the build covers it). */
em_nn_status em_depthwise_conv2d_s8_trusted(const em_nn_context *ctx, const em_conv_params *params,
                                            const em_per_channel_quant *quant, const em_conv_dims *dims,
                                            const int8_t *input, const int8_t *weights, const int32_t *bias,
                                            int8_t *output);

/**
 * As em_conv2d_s8_paths_ok(), for em_depthwise_conv2d_s8() (ctx->paths: EM_NN_PATHS_DEPTHWISE bits). Helium:
 * either the general path's 4-channel blocks that cover the layer (DW_MVE_STRIDED for M > 1,
 * DW_MVE_FULL or DW_MVE_FULL_KW3 for KW 3, DW_MVE_TAIL for C % 4 != 0), or the M = 1 fast path's
 * (EM_NN_PATHS_DWF): KH·KW <= EM_NN_DWF_MAX_TAPS, C <= EM_NN_DWF_MAX_CHANNELS, constant
 * @p weights [KH, KW, C] with none −128, one pixel form (DWF_MVE_PIXEL only where every shift
 * <= −2, else DWF_MVE_PIXEL_LEFT), DWF_MVE_BLOCK4 only where every shift <= −2 (the blocks run
 * where the shape has them: 3x3, stride_w and dilation_w 1, C % 4 == 0), and DWF_MVE_ROWS where em_nn_dwf_rows_bytes() fits
 * ctx->size, else DWF_MVE_TAPS. Reads every weight: a load-time check.
 * @param weights     NULL when they are not constants (then only the general path fits)
 * @param weights_s4  true when @p weights are int4, packed (em_unpack_s4()): -8..7, never −128,
 *                    so none is read
 */
em_nn_status em_depthwise_conv2d_s8_paths_ok(const em_nn_context *ctx, const em_conv_params *params,
                                             const em_per_channel_quant *quant, const em_conv_dims *dims,
                                             const int8_t *weights, bool weights_s4);

/**
 * Internal to em_depthwise_conv2d_s8(): its fast path for depth multiplier 1 (every tier), called
 * after the arguments were validated. Takes KH·KW <= 49 and C <= 512; on Helium only where
 * params->paths chose it (and em_depthwise_conv2d_s8_paths_ok() accepted them).
 * @return true when it computed the output, false when the general path must.
 */
bool em_nn_depthwise_m1_s8(const em_nn_context *ctx, const em_conv_params *params,
                           const em_per_channel_quant *quant, const em_conv_dims *dims, const int8_t *input,
                           const int8_t *weights, const int32_t *bias, int8_t *output);

/** Taps (KH·KW) and channels em_nn_depthwise_m1_s8() takes; larger layers take the general path. */
#define EM_NN_DWF_MAX_TAPS 49
#define EM_NN_DWF_MAX_CHANNELS 512

/**
 * Scratch bytes of em_nn_depthwise_m1_s8()'s Helium row path: KH padded input rows (input_zero_point
 * columns either side, as far as the last window reaches) of a layer the fast path takes (depth
 * multiplier 1, KH·KW <= EM_NN_DWF_MAX_TAPS, C <= EM_NN_DWF_MAX_CHANNELS, and C >= 16 or 3x3
 * stride-1 blocks with C % 4 == 0), at most EM_NN_DWF_ROWS_MAX bytes; 0 for any other layer or
 * tier. It cannot see the weights and shifts: where the fast path then declines (a weight of
 * −128; C < 16 with a shift > −2) the scratch goes unused. Compiles on the host.
 */
int32_t em_nn_dwf_rows_bytes(const em_conv_params *params, const em_conv_dims *dims);

/** The most scratch em_nn_dwf_rows_bytes() asks for: wider layers take the tap tables. 4096
 *  stages every depthwise layer of MobileNetV1-0.25 (the last, 3x3x256, needs 3,840), so its
 *  firmware links no tap-table walk (about 530 bytes at -Os). */
#define EM_NN_DWF_ROWS_MAX 4096

/** Scratch bytes em_depthwise_conv2d_s8() can use: em_nn_dwf_rows_bytes() (the Helium fast
 *  path's padded rows), else 0. Compiles on the host. */
int32_t em_depthwise_conv2d_s8_get_buffer_size(const em_conv_params *params, const em_conv_dims *dims);

/* ---- int16 activations, int8 weights (A16W8) ------------------------------------------------
 * Activations int16, symmetric (zero point 0: padded cells hold 0, params->input_zero_point and
 * output_offset must be 0), weights int8, bias int32, the accumulator int64, requantized by
 * compiler/fixedpoint.py requantize_s64 (TFLite's 16x8: the Q31 multiplier rounded to Q15,
 * rounding half up at 15 − shift bits; shifts -31..14) and clamped to activation_min ..
 * activation_max (-32768..32767). Each kernel is linked only where the build's switch
 * EM_NN_VARIANT_<KIND>_S16 is 1 (em_nn_variants.h); where it is 0 the kernel and its validate
 * return EM_NN_ERR_VARIANT_NOT_LINKED. */

/**
 * The argument contract of em_conv2d_s16() (@p depthwise false) and em_depthwise_conv2d_s16()
 * (true): em_conv_s8_validate()'s geometry, zero points 0, clamps int16 with activation_min <=
 * activation_max, and per channel multiplier >= 0 and shift -31..14 (reads quant's vectors).
 * @return EM_NN_OK, EM_NN_ERR_BAD_ARGUMENT, or EM_NN_ERR_VARIANT_NOT_LINKED where this build
 *         leaves the kernel out.
 */
em_nn_status em_conv_s16_validate(const em_conv_params *params, const em_per_channel_quant *quant,
                                  const em_conv_dims *dims, bool depthwise);

/**
 * int16 grouped 2-D convolution, NHWC (reference.conv2d_s16):
 * out[n, y, x, o] = clamp(requantize_s64(Σ_{ky, kx, i} in_pad[n, y·sh + ky·dh, x·sw + kx·dw, g·Cg + i]
 *                                        · w[o, ky, kx, i] + bias[o], mult[o], shift[o]))
 * with Cg = input_c / groups, g = o / (output_c / groups), in_pad padded with 0.
 * @param ctx      scratch for one packed column (em_conv2d_s16_get_buffer_size()); NULL or less
 *                 selects taps read in place (the same bytes, more instructions); paths unused (0)
 * @param params   geometry as em_conv2d_s8(); zero points 0; clamps -32768..32767
 * @param quant    multiplier[output_c] (>= 0), shift[output_c] (-31..14)
 * @param dims     shapes; output_h / output_w by the output size formula
 * @param input    [N, H, W, C_IN] int16, -32768..32767, 2-byte aligned
 * @param weights  [C_OUT, KH, KW, C_IN / groups] int8, -128..127
 * @param bias     [C_OUT] int32, or NULL for zero bias
 * @param output   [N, OH, OW, C_OUT] int16; must not overlap @p input
 * @return EM_NN_OK, EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or out-of-range dims / params, or
 *         EM_NN_ERR_VARIANT_NOT_LINKED (EM_NN_S16_LINKED(CONV2D) is 0).
 */
em_nn_status em_conv2d_s16(const em_nn_context *ctx, const em_conv_params *params, const em_per_channel_quant *quant,
                           const em_conv_dims *dims, const int16_t *input, const int8_t *weights, const int32_t *bias,
                           int16_t *output);

/** em_conv2d_s16() without its own check, for arguments em_conv_s16_validate() accepted (the
 *  adapter's check() at load). @return EM_NN_OK (EM_NN_ERR_VARIANT_NOT_LINKED where left out). */
em_nn_status em_conv2d_s16_trusted(const em_nn_context *ctx, const em_conv_params *params,
                                   const em_per_channel_quant *quant, const em_conv_dims *dims,
                                   const int16_t *input, const int8_t *weights, const int32_t *bias, int16_t *output);

/** Largest column em_conv2d_s16() packs (K = KH·KW·C_IN/groups elements): longer ones run tap by tap. */
#define EM_NN_CONV_S16_MAX_COLUMN 2048

/**
 * Scratch bytes em_conv2d_s16() packs a column into, on every tier: K int16 rounded up to 16
 * bytes; 0 where every column is the input itself (1x1 without padding) or K >
 * EM_NN_CONV_S16_MAX_COLUMN. Compiles on the host.
 */
int32_t em_conv2d_s16_get_buffer_size(const em_conv_params *params, const em_conv_dims *dims);

/**
 * int16 depthwise 2-D convolution, NHWC, TFLite weight layout (reference.depthwise_conv2d_s16):
 * output channel o = c·M + m reads input channel c only:
 * out[n, y, x, o] = clamp(requantize_s64(Σ_{ky, kx} in_pad[n, y·sh + ky·dh, x·sw + kx·dw, c]
 *                                        · w[ky, kx, o] + bias[o], mult[o], shift[o])).
 * @param ctx      unused (no scratch); may be NULL
 * @param params   geometry and depth_multiplier as em_depthwise_conv2d_s8(); zero points 0;
 *                 clamps -32768..32767
 * @param quant    multiplier[C·M] (>= 0), shift[C·M] (-31..14)
 * @param input    [N, H, W, C] int16, 2-byte aligned
 * @param weights  [KH, KW, C·M] int8
 * @param bias     [C·M] int32, or NULL
 * @param output   [N, OH, OW, C·M] int16; must not overlap @p input
 * @return as em_conv2d_s16()
 */
em_nn_status em_depthwise_conv2d_s16(const em_nn_context *ctx, const em_conv_params *params,
                                     const em_per_channel_quant *quant, const em_conv_dims *dims,
                                     const int16_t *input, const int8_t *weights, const int32_t *bias,
                                     int16_t *output);

/** em_depthwise_conv2d_s16() without its own check (the adapter's check() proved the arguments). */
em_nn_status em_depthwise_conv2d_s16_trusted(const em_nn_context *ctx, const em_conv_params *params,
                                             const em_per_channel_quant *quant, const em_conv_dims *dims,
                                             const int16_t *input, const int8_t *weights, const int32_t *bias,
                                             int16_t *output);

/**
 * The argument contract of em_fully_connected_s16(): pointers set, dims >= 1, output_offset 0,
 * paths 0, clamps int16 with activation_min <= activation_max, per channel multiplier >= 0 and
 * shift -31..14. @return EM_NN_OK, EM_NN_ERR_BAD_ARGUMENT or EM_NN_ERR_VARIANT_NOT_LINKED.
 */
em_nn_status em_fully_connected_s16_validate(const em_fc_params *params, const em_per_channel_quant *quant,
                                             const em_fc_dims *dims);

/**
 * int16 fully connected layer (reference.fully_connected_s16):
 * out[b, o] = clamp(requantize_s64(Σ_i in[b, i]·w[o, i] + bias[o], mult[o], shift[o])).
 * @param params   output_offset 0, clamps -32768..32767, paths 0
 * @param quant    multiplier[O] (>= 0), shift[O] (-31..14)
 * @param dims     B, I, O (each >= 1)
 * @param input    [B, I] int16, 2-byte aligned
 * @param weights  [O, I] int8
 * @param bias     [O] int32, or NULL
 * @param output   [B, O] int16; must not overlap @p input
 * @return EM_NN_OK, EM_NN_ERR_BAD_ARGUMENT or EM_NN_ERR_VARIANT_NOT_LINKED.
 */
em_nn_status em_fully_connected_s16(const em_fc_params *params, const em_per_channel_quant *quant,
                                    const em_fc_dims *dims, const int16_t *input, const int8_t *weights,
                                    const int32_t *bias, int16_t *output);

/** em_fully_connected_s16() without its own check (the adapter's check() proved the arguments). */
em_nn_status em_fully_connected_s16_trusted(const em_fc_params *params, const em_per_channel_quant *quant,
                                            const em_fc_dims *dims, const int16_t *input, const int8_t *weights,
                                            const int32_t *bias, int16_t *output);

/**
 * True when @p out is reference.output_size along one axis, (size + pads - dilation (kernel - 1)
 * - 1) / stride + 1, and >= 1; stride >= 1. The span is formed in 64 bits (no overflow) but
 * divided in 32, and an int64 division would link libgcc's __aeabi_ldivmod, about 800 bytes,
 * into every firmware. Inline: it costs no link dependency.
 * The padded extent size + pads must fit int32: then every index a kernel forms in int32 does,
 * out · stride (at most the span), out · stride − pad_before (at least −pad_before), and
 * + tap · dilation (at most size + pad_after − 1), with no signed overflow for any accepted program.
 */
static inline bool em_nn_output_size_ok(int32_t out, int32_t size, int32_t kernel, int32_t stride,
                                        int32_t dilation, int32_t pad_before, int32_t pad_after)
{
    const int64_t padded = (int64_t)size + pad_before + pad_after;
    const int64_t span = padded - (int64_t)dilation * (kernel - 1) - 1;
    return stride >= 1 && span >= 0 && padded <= INT32_MAX && out == (int32_t)span / stride + 1;
}

/**
 * The contract both pooling kernels check (and the adapters' check() rely on): pointers set,
 * every dim >= 1, kernel and stride >= 1, 0 <= padding < kernel, clamps and zero point int8 with
 * activation_min <= activation_max, padded extents and tensor sizes within int32, and
 * output_h / output_w equal to reference.output_size (PyTorch's and TFLite's formula). Under it
 * every window holds at least one real cell. A function of its own (em_pool_validate_s8.c), not
 * inline: the kernels and the adapters' load-time check() share one copy.
 * @return EM_NN_OK or EM_NN_ERR_BAD_ARGUMENT.
 */
em_nn_status em_pool_s8_validate(const em_pool_params *params, const em_pool_dims *dims);

/** em_pool_s8_validate() and, for the average pool, kernel_h·kernel_w <= EM_AVG_POOL_MAX_CELLS:
 *  the whole contract of em_avg_pool_s8()'s params and dims. @return EM_NN_OK or EM_NN_ERR_BAD_ARGUMENT. */
em_nn_status em_avg_pool_s8_validate(const em_pool_params *params, const em_pool_dims *dims);

/**
 * int8 2-D max pooling, NHWC (reference.max_pool_s8): out[n, y, x, c] = clamp(max over the real
 * (unpadded) cells of the window at (y·stride_h − pad_top, x·stride_w − pad_left), c),
 * activation_min, activation_max). Padding never wins. Input and output share their quantization.
 * @param params   kernel, strides, paddings, clamps (em_pool_s8_validate())
 * @param dims     N, H, W, C, OH, OW
 * @param input    [N, H, W, C] int8, -128..127
 * @param output   [N, OH, OW, C] int8; must not overlap @p input
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or dims / params out of contract.
 */
em_nn_status em_max_pool_s8(const em_pool_params *params, const em_pool_dims *dims, const int8_t *input,
                            int8_t *output);

/** em_max_pool_s8() for arguments em_pool_s8_validate() accepted, without its own check
 *  (eval(), as em_conv2d_s8_trusted()). @return EM_NN_OK. */
em_nn_status em_max_pool_s8_trusted(const em_pool_params *params, const em_pool_dims *dims, const int8_t *input,
                                    int8_t *output);

/**
 * int8 2-D average pooling, NHWC (reference.avg_pool_s8):
 * out = clamp(zp + round_half_even(Σ_real (x − zp) / count), activation_min, activation_max),
 * count = kernel_h·kernel_w when count_include_pad (padded cells hold real 0), else the window's
 * real cells. Input and output share scale and zero point. Exact integer division on every tier.
 * @param params   kernel (area <= EM_AVG_POOL_MAX_CELLS), strides, paddings, count_include_pad,
 *                 zero point, clamps (em_pool_s8_validate())
 * @param dims     N, H, W, C, OH, OW
 * @param input    [N, H, W, C] int8, -128..127
 * @param output   [N, OH, OW, C] int8; must not overlap @p input
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or dims / params out of contract.
 */
em_nn_status em_avg_pool_s8(const em_pool_params *params, const em_pool_dims *dims, const int8_t *input,
                            int8_t *output);

/** em_avg_pool_s8() for arguments em_avg_pool_s8_validate() accepted, without its own check
 *  (eval(), as em_conv2d_s8_trusted()). @return EM_NN_OK. */
em_nn_status em_avg_pool_s8_trusted(const em_pool_params *params, const em_pool_dims *dims, const int8_t *input,
                                    int8_t *output);

/** The contract of the int16 (A16W8) pools: em_pool_s8_validate()'s window and sizes, clamps in
 *  -32768..32767 and zero point 0 (symmetric int16 activations); the average pool's area also
 *  <= EM_AVG_POOL_S16_MAX_CELLS. @return EM_NN_OK or EM_NN_ERR_BAD_ARGUMENT. */
em_nn_status em_pool_s16_validate(const em_pool_params *params, const em_pool_dims *dims);
em_nn_status em_avg_pool_s16_validate(const em_pool_params *params, const em_pool_dims *dims);

/**
 * int16 (A16W8) 2-D max pooling, NHWC (reference.max_pool_s16): em_max_pool_s8() on int16 codes.
 * @param input    [N, H, W, C] int16
 * @param output   [N, OH, OW, C] int16; must not overlap @p input
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or dims / params out of
 *         em_pool_s16_validate().
 */
em_nn_status em_max_pool_s16(const em_pool_params *params, const em_pool_dims *dims, const int16_t *input,
                             int16_t *output);
/** em_max_pool_s16() without its own check, for arguments em_pool_s16_validate() accepted (an
 *  operator's check() proved them when the program was verified). @return EM_NN_OK. */
em_nn_status em_max_pool_s16_trusted(const em_pool_params *params, const em_pool_dims *dims, const int16_t *input,
                                     int16_t *output);

/**
 * int16 (A16W8) 2-D average pooling, NHWC (reference.avg_pool_s16): em_avg_pool_s8() on int16
 * codes with zero point 0, window sums in int32 (area <= EM_AVG_POOL_S16_MAX_CELLS).
 * @param input    [N, H, W, C] int16
 * @param output   [N, OH, OW, C] int16; must not overlap @p input
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or dims / params out of
 *         em_avg_pool_s16_validate().
 */
em_nn_status em_avg_pool_s16(const em_pool_params *params, const em_pool_dims *dims, const int16_t *input,
                             int16_t *output);
/** em_avg_pool_s16() without its own check, for arguments em_avg_pool_s16_validate() accepted
 *  (as em_max_pool_s16_trusted()). @return EM_NN_OK. */
em_nn_status em_avg_pool_s16_trusted(const em_pool_params *params, const em_pool_dims *dims, const int16_t *input,
                                     int16_t *output);

/** Scratch bytes em_avg_pool_s8() needs: 0 on every tier (sums stay in registers). Compiles on
 *  the host. (em_max_pool_s8() and em_add_s8() never need scratch.) */
int32_t em_avg_pool_s8_get_buffer_size(const em_pool_params *params, const em_pool_dims *dims);

/**
 * int8 elementwise add with per-tensor rescaling (reference.add_s8), per output element:
 * sa = requantize((a + a_offset) << EM_ADD_LEFT_SHIFT, a_multiplier, a_shift), sb likewise,
 * out = clamp(requantize(sa + sb, output_multiplier, output_shift) + output_offset).
 * NumPy broadcasting, any form (em_broadcast_dims: both operands broadcast, along any axes).
 * @param params   offsets, multipliers, shifts, clamps (ranges: em_add_params)
 * @param dims     the output's shape and each operand's (1 where it is broadcast), rank 0..8
 * @param a        int8, -128..127, row-major of dims->a_shape
 * @param b        likewise, of dims->b_shape
 * @param output   int8, row-major of dims->shape; may overlap an operand of the output's shape
 *                 when it starts at or below it (elements are read before they are written, in
 *                 increasing order); must not overlap a broadcast operand
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or dims / params out of range.
 */
em_nn_status em_add_s8(const em_add_params *params, const em_broadcast_dims *dims, const int8_t *a,
                       const int8_t *b, int8_t *output);

/** Whether @p params is within em_add_s8()'s ranges (em_add_params): the check em_add_s8() makes
 *  at every call, shared with the ADD adapter's load-time check(). @p params must not be NULL. */
bool em_add_s8_params_valid(const em_add_params *params);

/**
 * int16 (A16W8) elementwise add (reference.add_s16): em_add_s8() on int16 codes with zero points
 * 0 and the headroom shift EM_ADD_LEFT_SHIFT_S16; any NumPy broadcast (em_broadcast_dims).
 * @param params   offsets 0, multipliers and shifts as em_add_s8(), clamps in -32768..32767
 * @param a, b     int16, row-major of dims->a_shape / dims->b_shape
 * @param output   int16, row-major of dims->shape; in place as em_add_s8()
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or dims / params out of range.
 */
em_nn_status em_add_s16(const em_add_params *params, const em_broadcast_dims *dims, const int16_t *a,
                        const int16_t *b, int16_t *output);

/** Whether @p params is within em_add_s16()'s ranges (em_add_s8_params_valid() with offsets 0 and
 *  int16 clamps). @p params must not be NULL. */
bool em_add_s16_params_valid(const em_add_params *params);

/**
 * int8 → int8 through a table (reference.lut_s8): output[i] = table[input[i] + 128].
 * @param input   @p count int8 values, -128..127, any layout
 * @param count   0..INT32_MAX
 * @param table   256 int8 entries, entry k for input k - 128
 * @param output  @p count int8; may overlap @p input when it starts at or below it (in place)
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a negative count or a NULL pointer with count > 0.
 */
em_nn_status em_lut_s8(const int8_t *input, int32_t count, const int8_t *table, int8_t *output);

/** Most channels em_lut_channels_s8() takes: its table's bytes, channels · 256, fit an int32. */
#define EM_LUT_MAX_CHANNELS (INT32_MAX / 256)

/**
 * int8 → int8 through one table per channel (reference.lut_s8 with a [C, 256] table): the input
 * viewed as [outer, channels, inner], output[o, c, i] = table[c · 256 + input[o, c, i] + 128].
 * MVE: each [inner] run of one channel sixteen elements a gather when inner >= 16, the whole
 * input eight elements (channels) a gather when inner == 1 (the channel last); other shapes, and
 * the other tiers, take a scalar loop. The same bytes on every tier.
 * @param input     [outer, channels, inner] int8, -128..127, row-major
 * @param outer     >= 0: the product of the input's dimensions before the channel axis
 * @param channels  1..EM_LUT_MAX_CHANNELS: the input's size along the channel axis
 * @param inner     >= 0: the product of the dimensions after it;
 *                  outer · channels · inner <= INT32_MAX
 * @param table     [channels, 256] int8, row c the table of channel c (entry k for input k - 128)
 * @param output    [outer, channels, inner] int8; may overlap @p input when it starts at or below
 *                  it (in place); must not overlap @p table
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for sizes out of range or a NULL pointer with elements.
 */
em_nn_status em_lut_channels_s8(const int8_t *input, int32_t outer, int32_t channels, int32_t inner,
                                const int8_t *table, int8_t *output);

/** An int16 table's sampling steps (reference.lut_s16): every 2^k codes, k in this range, so a
 *  table has 2^(16 - k) + 1 entries (513 .. 8193). */
#define EM_LUT_S16_MIN_STEP_LOG2 3
#define EM_LUT_S16_MAX_STEP_LOG2 7

/**
 * int16 → int16 through an interpolated table per channel (A16W8, reference.lut_s16), the input
 * viewed as [outer, channels, inner] (one table: outer = channels = 1): with u = x + 32768,
 * i = u >> k, f = u & (2^k - 1), out = T[i] + (((T[i+1] - T[i]) · f + 2^(k-1)) >> k), T the row of
 * the element's channel, the shift arithmetic. Scalar on every tier, MVE four lanes a step (two
 * halfword gathers): the same bytes.
 * @param input      [outer, channels, inner] int16, -32768..32767, row-major
 * @param outer      >= 0; @p channels >= 1; @p inner >= 0; outer · channels · inner <= INT32_MAX
 * @param table      [channels, 2^(16 - step_log2) + 1] int16, row c the table of channel c
 * @param step_log2  EM_LUT_S16_MIN_STEP_LOG2..EM_LUT_S16_MAX_STEP_LOG2
 * @param output     [outer, channels, inner] int16; may overlap @p input when it starts at or
 *                   below it (in place); must not overlap @p table
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for sizes or a step out of range or a NULL pointer
 *         with elements.
 */
em_nn_status em_lut_s16(const int16_t *input, int32_t outer, int32_t channels, int32_t inner,
                        const int16_t *table, int32_t step_log2, int16_t *output);

/** Quantization of an elementwise multiply (the schema's MulOptions, reference.mul_s8); int16
 *  (em_mul_s16): offsets 0, clamps -32768..32767. */
typedef struct {
    int32_t a_offset;          /**< minus input a's zero point, -127..128 */
    int32_t b_offset;          /**< minus input b's zero point, -127..128 */
    int32_t output_offset;     /**< output zero point, -128..127 */
    int32_t output_multiplier; /**< Q31, 0..INT32_MAX: scale_a · scale_b / scale_out */
    int32_t output_shift;      /**< -31..30; > 0 shifts left */
    int32_t activation_min;    /**< -128..127 */
    int32_t activation_max;    /**< activation_min..127 */
} em_mul_params;

/** Whether @p p is in em_mul_params' ranges for int8 operands (@p wide false) or int16 ones
 *  (offsets 0, clamps -32768..32767): what em_mul_s8 / em_mul_s16 accept. */
bool em_mul_params_valid(const em_mul_params *p, bool wide);

/**
 * int8 elementwise multiply (reference.mul_s8), per output element:
 * out = clamp(requantize((a + a_offset)(b + b_offset), output_multiplier, output_shift) + output_offset).
 * NumPy broadcasting as em_add_s8 (em_broadcast_dims: any form).
 * @param a        int8, -128..127, row-major of dims->a_shape
 * @param b        likewise, of dims->b_shape
 * @param output   int8, row-major of dims->shape; may overlap an operand of the output's shape
 *                 when it starts at or below it (elements are read before they are written, in
 *                 increasing order); must not overlap a broadcast operand
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or dims / params out of range.
 */
em_nn_status em_mul_s8(const em_mul_params *params, const em_broadcast_dims *dims, const int8_t *a, const int8_t *b,
                       int8_t *output);

/**
 * int16 elementwise multiply (A16W8, reference.mul_s16): em_mul_s8's formula on int16 codes,
 * with @p params' offsets 0 (int16 is symmetric), clamps -32768..32767 and |a·b| <= 2^30.
 * @param a        int16, -32768..32767, row-major of dims->a_shape
 * @param b        likewise, of dims->b_shape
 * @param output   int16, row-major of dims->shape; may overlap an operand as em_mul_s8's
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or dims / params out of range.
 */
em_nn_status em_mul_s16(const em_mul_params *params, const em_broadcast_dims *dims, const int16_t *a,
                        const int16_t *b, int16_t *output);

/**
 * Copies one concatenation input into its slice of the output (reference.concat_s8): for each of
 * @p outer rows, @p inner int8 values go to output + row · @p output_inner + @p offset.
 * @param outer         >= 1: product of the dimensions before the axis
 * @param inner         >= 1: this input's elements per row (its axis size × the dims after it)
 * @param output_inner  >= inner + offset: the output's elements per row
 * @param offset        >= 0: where this input starts within an output row
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for NULL pointers or sizes out of range.
 */
em_nn_status em_concat_copy_s8(const int8_t *input, int32_t outer, int32_t inner, int32_t output_inner,
                               int32_t offset, int8_t *output);

/** Softmax parameters (reference.softmax_parameters): beta · input scale · 2^26 as a Q31
 *  multiplier (>= 0) and a left shift (0..31); differences below diff_min (<= 0) give -128. */
typedef struct {
    int32_t input_multiplier;
    int32_t input_left_shift;
    int32_t diff_min;
} em_softmax_params;

/** Longest softmax row: the Q12.19 sum of up to this many exponentials (each <= 2^19) fits int32. */
#define EM_SOFTMAX_MAX_ROW 4095

/** Whether @p params (not NULL, multiplier >= 0, left shift 0..31, diff_min <= 0) and @p row_size
 *  (1..EM_SOFTMAX_MAX_ROW) are within em_softmax_s8()'s ranges: the check it makes at every call,
 *  shared with the SOFTMAX adapter's load-time check(). */
bool em_softmax_s8_params_valid(const em_softmax_params *params, int32_t row_size);

/** Fewest values (rows × row_size) for which em_softmax_s8() takes a table of exponentials: each
 *  value's exponential is needed twice (the sum, the output), the table computes the 256 an int8
 *  difference can take once. */
#define EM_SOFTMAX_TABLE_MIN_VALUES 256

/** Bytes of scratch em_softmax_s8() / em_softmax_masked_s8() take for @p rows rows of
 *  @p row_size values: 256 int32 exponentials (1 KiB) from EM_SOFTMAX_TABLE_MIN_VALUES values on,
 *  else 0 (fewer exponentials computed directly). Any tier; compiles on the host. */
int32_t em_softmax_s8_get_buffer_size(int32_t rows, int32_t row_size);

/**
 * Softmax over each row (reference.softmax_s8, TFLite's int8 algorithm). A row whose sum of
 * exponentials reaches 512 (512 or more values at its maximum) is -128 everywhere: every
 * probability is under half an LSB, as the reference's 64-bit rounding shift says.
 * @param ctx       scratch: NULL, or em_softmax_s8_get_buffer_size() bytes, 4-byte aligned, sharing
 *                  no byte with input or output: the exponential of every difference 0..-255 is then
 *                  computed once per call, the same values (a smaller or absent buffer: each computed
 *                  where needed)
 * @param params    em_softmax_s8_params_valid()
 * @param rows      0..INT32_MAX rows
 * @param row_size  1..EM_SOFTMAX_MAX_ROW values per row (the Q12.19 sum of exponentials must not overflow)
 * @param input     [rows, row_size] int8, -128..127
 * @param output    [rows, row_size] int8, scale 1/256, zero point -128; must not overlap input
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for NULL pointers or parameters out of range.
 */
em_nn_status em_softmax_s8(const em_nn_context *ctx, const em_softmax_params *params, int32_t rows,
                           int32_t row_size, const int8_t *input, int8_t *output);

/** An attention mask for em_softmax_masked_s8() (reference.softmax_mask): row r of the input
 *  takes mask row r mod mask_rows. */
typedef struct {
    int32_t mask_rows;   /**< >= 1: the mask's period in rows (a causal mask: the query count Tq) */
    int32_t causal;      /**< 1: position j of row r is masked when j > r mod mask_rows; 0: @ref mask */
    const int8_t *mask;  /**< causal 0: [mask_rows, row_size], not 0 = masked; causal 1: unused */
} em_softmax_mask;

/**
 * em_softmax_s8() of each row with the masked positions left out (an attention mask's -inf): the
 * max and the sum of exponentials run over the other positions, each masked one gives -128
 * (probability 0), and a row masked whole gives -128 throughout (scaled_dot_product_attention's 0,
 * not NaN).
 * @param ctx       scratch, as em_softmax_s8()'s
 * @param params    em_softmax_s8_params_valid()
 * @param mask      not NULL: mask_rows >= 1, causal 0 or 1, mask not NULL when causal is 0
 * @param rows      0..INT32_MAX rows
 * @param row_size  1..EM_SOFTMAX_MAX_ROW values per row
 * @param input     [rows, row_size] int8, -128..127
 * @param output    [rows, row_size] int8, scale 1/256, zero point -128; must not overlap input
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for NULL pointers or parameters out of range.
 */
em_nn_status em_softmax_masked_s8(const em_nn_context *ctx, const em_softmax_params *params,
                                  const em_softmax_mask *mask, int32_t rows, int32_t row_size, const int8_t *input,
                                  int8_t *output);

/**
 * int8 elementwise minimum (reference.minimum_s8) / maximum (reference.maximum_s8) of two
 * operands that share one quantization with the output: min / max of the codes.
 * NumPy broadcasting as em_add_s8 (em_broadcast_dims: any form).
 * @param a        int8, -128..127, row-major of dims->a_shape
 * @param b        likewise, of dims->b_shape
 * @param output   int8, row-major of dims->shape; may be exactly an operand of the output's
 *                 shape (in place); must not overlap a broadcast operand
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or dims out of range.
 */
em_nn_status em_minimum_s8(const em_broadcast_dims *dims, const int8_t *a, const int8_t *b, int8_t *output);
em_nn_status em_maximum_s8(const em_broadcast_dims *dims, const int8_t *a, const int8_t *b, int8_t *output);

/** Parameters of a transposed 2-D convolution (the schema's TransposeConv2DOptions). */
typedef struct {
    int32_t stride_h;       /**< >= 1 */
    int32_t stride_w;       /**< >= 1 */
    int32_t pad_top;        /**< >= 0: full-output rows dropped at the top */
    int32_t pad_bottom;     /**< rows dropped at the bottom; < 0 adds rows no input reaches */
    int32_t pad_left;       /**< >= 0 */
    int32_t pad_right;      /**< any, as pad_bottom */
    int32_t input_offset;   /**< minus the input zero point, -127..128 */
    int32_t output_offset;  /**< output zero point, -128..127 */
    int32_t activation_min; /**< -128..127 */
    int32_t activation_max; /**< activation_min..127 */
} em_transpose_conv_params;

/**
 * int8 transposed 2-D convolution, NHWC, groups 1, dilation 1, per-output-channel
 * requantization (reference.transpose_conv2d_s8), computed in gather form without a
 * zero-stuffed input: output (oy, ox) takes tap (ky, kx) of input (iy, ix) exactly when
 * oy + pad_top = iy·stride_h + ky and ox + pad_left = ix·stride_w + kx, so
 * out[n, oy, ox, o] = clamp(requantize(bias[o] + Σ_{taps, i} (in[n, iy, ix, i] + input_offset)
 *                                      · w[o, ky, kx, i], mult[o], shift[o]) + output_offset).
 * The int32 accumulator wraps.
 * @param params   strides, crops, offsets, clamps (ranges: em_transpose_conv_params)
 * @param quant    multiplier[output_c], shift[output_c] (-31..30)
 * @param dims     shapes; output_h == (input_h − 1)·stride_h + kernel_h − pad_top − pad_bottom
 *                 (reference.transpose_output_size), likewise output_w; output_c >= 1
 * @param input    [N, H, W, C_IN] int8, -128..127
 * @param weights  [C_OUT, KH, KW, C_IN] int8, -128..127
 * @param bias     [C_OUT] int32 (input zero point NOT folded in), or NULL for zero bias
 * @param output   [N, OH, OW, C_OUT] int8; must not overlap @p input
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or out-of-range dims / params.
 */
em_nn_status em_transpose_conv2d_s8(const em_transpose_conv_params *params, const em_per_channel_quant *quant,
                                    const em_conv_dims *dims, const int8_t *input, const int8_t *weights,
                                    const int32_t *bias, int8_t *output);

/** Quantization of a batched matmul of two activations (the schema's BatchMatmulOptions). */
typedef struct {
    int32_t a_offset;          /**< minus input a's zero point, -127..128 */
    int32_t b_offset;          /**< minus input b's zero point, -127..128 */
    int32_t output_offset;     /**< output zero point, -128..127 */
    int32_t output_multiplier; /**< Q31, 0..INT32_MAX: scale_a · scale_b / scale_out */
    int32_t output_shift;      /**< -31..30; > 0 shifts left */
    int32_t activation_min;    /**< -128..127 */
    int32_t activation_max;    /**< activation_min..127 */
} em_batch_matmul_params;

/** Shapes of a batched matmul: a [batches, rows, depth] × b [batches, depth, columns]. */
typedef struct {
    int32_t batches; /**< B >= 1 */
    int32_t rows;    /**< M >= 1 */
    int32_t depth;   /**< K >= 1 */
    int32_t columns; /**< N >= 1 */
} em_batch_matmul_dims;

/**
 * int8 batched matmul of two activations (reference.batch_matmul_s8):
 * out[b, m, n] = clamp(requantize(Σ_k (a[b, m, k] + a_offset)(b[b, k, n] + b_offset),
 *                                 output_multiplier, output_shift) + output_offset).
 * Both zero points apply in the kernel (nothing is constant ahead of time); int32 accumulator,
 * wrapping; one requantization per output, as em_fully_connected_s8.
 * @param a       [B, M, K] int8, row-major
 * @param b       [B, K, N] int8, row-major
 * @param output  [B, M, N] int8; must not overlap @p a or @p b
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer or dims / params out of range.
 */
em_nn_status em_batch_matmul_s8(const em_batch_matmul_params *params, const em_batch_matmul_dims *dims,
                                const int8_t *a, const int8_t *b, int8_t *output);

/** Shape and options of an audio front end (the schema's MelFeaturesOptions and the operands). */
typedef struct {
    int32_t samples;      /**< T: samples per batch entry, >= frame_length */
    int32_t frame_length; /**< L: 1..fft_length */
    int32_t frame_step;   /**< >= 1; frames = (T - L) / frame_step + 1 */
    int32_t fft_length;   /**< N: a power of two, 8..4096 */
    int32_t n_mels;       /**< >= 1 */
    int32_t coefficients; /**< C: rows of tables.dct (MFCCs), or 0 for log-mel output */
    int32_t magnitude;    /**< 1: mel filters over |X|; 0: over |X|^2 */
    int32_t log_scale;    /**< Q24 factor log2 -> output units, when coefficients == 0 */
} em_mel_features_params;

/** The front end's constant tables (compiler/audio_features.py: FrontEnd.constants()). */
typedef struct {
    const int32_t *window;      /**< [L], Q30, 0..2^30 */
    const int32_t *twiddles;    /**< [N/2][2], Q30 cos, sin of 2πj/N */
    const int32_t *mel_bands;   /**< [n_mels][5]: start bin, count (start + count <= N/2 + 1),
                                     -log2(weight scale) Q24, eps mantissa (0..2^31-1), eps exponent */
    const int16_t *mel_weights; /**< [Σ counts], 0..32767, filter after filter */
    const int32_t *log2_table;  /**< [129], Q24 log2(1 + j/128), increasing */
    const int32_t *dct;         /**< [C][n_mels], Q24, or NULL when C == 0 */
} em_mel_features_tables;

/**
 * Audio front end (compiler/audio_features.py: features_int, bit-exact): int16 PCM
 * [batches][samples] -> float32 [batches][frames][C or n_mels], MFCCs (C > 0) or log-mel values.
 * Integer arithmetic only (block-scaled int32 FFT, int64 sums); the same bytes on every tier.
 * The caller guarantees the table ranges above (the adapter checks them at load time).
 * @param ctx   scratch: em_mel_features_s16_get_buffer_size() bytes, 4-byte aligned, sharing no
 *              byte with the audio or the output
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for NULL pointers, bad shapes, too small a scratch or one
 *         that overlaps the audio or the output.
 */
em_nn_status em_mel_features_s16(const em_nn_context *ctx, const em_mel_features_params *params,
                                 const em_mel_features_tables *tables, int32_t batches, const int16_t *audio,
                                 float *output);

/** Scratch bytes of em_mel_features_s16(): 4 · (fft_length + 2 + 2 · n_mels) (every tier). */
int32_t em_mel_features_s16_get_buffer_size(int32_t fft_length, int32_t n_mels);

/**
 * int8 arg max along one axis (compiler/ops/arg_max.py): input [outer][count][inner] ->
 * output [outer][inner], each the position 0..count-1 of the largest code along the middle axis,
 * the first of equal ones. The codes order as the real values do, so no quantization is needed.
 * @param input   int8, -128..127, row-major [outer][count][inner]
 * @param output  int32, row-major [outer][inner]; must not overlap the input
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer, outer or inner < 0, count < 1.
 */
em_nn_status em_arg_max_s8(const int8_t *input, int32_t outer, int32_t count, int32_t inner, int32_t *output);

/** Shapes of a recurrent layer (em_gru_s8, em_lstm_s8). */
typedef struct {
    int32_t batches; /**< B >= 1 */
    int32_t steps;   /**< T >= 1 */
    int32_t input;   /**< I >= 1 */
    int32_t hidden;  /**< H, 1..EM_NN_RNN_HIDDEN_MAX */
} em_rnn_dims;

/** The largest hidden size of em_gru_s8 / em_lstm_s8: the recurrent part's Σ of H int8 × int16 h
 *  products (each below 2^22 in magnitude) stays within int32 (reference.RNN_HIDDEN_MAX). */
#define EM_NN_RNN_HIDDEN_MAX 512

/** A recurrent layer's constants: G·H gate rows (G = 3 for GRU: r, z, n; 4 for LSTM: i, f, g, o). */
typedef struct {
    const int8_t *w_ih;                  /**< [G·H, I] int8, row-major */
    const int8_t *w_hh;                  /**< [G·H, H] int8, row-major */
    const int32_t *b_ih;                 /**< [G·H] int32, input zero point folded in */
    const int32_t *b_hh;                 /**< [G·H] int32 Q3.12 codes, added after requantization */
    const int32_t *input_multiplier;     /**< [G·H]: w_ih·x + b_ih -> Q3.12 (Q31, >= 0) */
    const int32_t *input_shift;          /**< [G·H], -31..30 */
    const int32_t *recurrent_multiplier; /**< [G·H]: w_hh·h (h Q0.15) -> Q3.12 */
    const int32_t *recurrent_shift;      /**< [G·H], -31..30 */
} em_rnn_weights;

/** A recurrent layer's scalars (the schema's RecurrentOptions; reference.gru_s8 / lstm_s8 name them).
 *  Offsets are int8 zero points, multipliers Q31 >= 0, shifts -31..30. */
typedef struct {
    int32_t batch_first;                                     /**< 1: x, y [B, T, ·]; 0: [T, B, ·] */
    int32_t hidden_offset, hidden_multiplier, hidden_shift;  /**< y's zero point; h -> y codes (GRU: h, LSTM: Q0.30 o·tanh(c)) */
    int32_t state_offset, state_multiplier, state_shift;     /**< h0's zero point; h0 codes -> h (2^-hidden_bits) */
    int32_t hn_offset, hn_multiplier, hn_shift;              /**< the last h (as for y) -> h_n */
    int32_t cell_bits;                                       /**< LSTM: cell scale 2^-cell_bits, 8..15 */
    int32_t cell_in_offset, cell_in_multiplier, cell_in_shift; /**< LSTM: c0 -> cell units */
    int32_t cn_offset, cn_multiplier, cn_shift;              /**< LSTM: cell units -> c_n */
    int32_t hidden_bits;                                     /**< h int16 at 2^-hidden_bits, 8..15 (15: Q0.15) */
} em_rnn_params;

/**
 * One GRU layer over T steps (reference.gru_s8): int8 input and outputs, an int16 hidden state
 * at 2^-hidden_bits (in scratch), Q3.12 int16 gate pre-activations, Q0.15 sigmoid / tanh (em_nn_sigmoid_s16,
 * em_nn_tanh_s16), h' = n + z·(h − n).
 * @param input   [B, T, I] (batch_first) or [T, B, I] int8
 * @param h0      [B, H] int8 at (state_offset, state_multiplier), or NULL for the zero state
 * @param output  y, as @p input with H last, int8 at (hidden_offset, hidden_multiplier)
 * @param h_n     [B, H] int8, the last step's h at (hn_offset, hn_multiplier)
 * @param ctx     scratch of em_gru_s8_get_buffer_size(H) bytes, 4-byte aligned
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for a NULL pointer, dims < 1, small scratch or a
 *         parameter out of range.
 */
em_nn_status em_gru_s8(const em_rnn_params *params, const em_rnn_weights *weights, const em_rnn_dims *dims,
                       const int8_t *input, const int8_t *h0, int8_t *output, int8_t *h_n,
                       const em_nn_context *ctx);

/** Scratch bytes of em_gru_s8 for @p hidden (the gates' int16 parts, the int16 hidden state):
 *  14·H rounded up to 4; 0 for hidden outside 1..EM_NN_RNN_HIDDEN_MAX. Compiles on the host. */
int32_t em_gru_s8_get_buffer_size(int32_t hidden);

/**
 * One LSTM layer over T steps (reference.lstm_s8): as em_gru_s8, with the int16 cell state at
 * scale 2^-cell_bits: c' = f·c + i·g, h' = o·tanh(c').
 * @param h0, c0  [B, H] int8 (both, or both NULL for the zero state)
 * @param c_n     [B, H] int8, the last cell state at (cn_offset, cn_multiplier)
 * @param ctx     scratch of em_lstm_s8_get_buffer_size(H) bytes, 4-byte aligned
 */
em_nn_status em_lstm_s8(const em_rnn_params *params, const em_rnn_weights *weights, const em_rnn_dims *dims,
                        const int8_t *input, const int8_t *h0, const int8_t *c0, int8_t *output, int8_t *h_n,
                        int8_t *c_n, const em_nn_context *ctx);

/** Scratch bytes of em_lstm_s8 for @p hidden (gates, cell state, int16 hidden state): 20·H
 *  rounded up to 4; 0 for hidden outside 1..EM_NN_RNN_HIDDEN_MAX. Compiles on the host. */
int32_t em_lstm_s8_get_buffer_size(int32_t hidden);

/** Norm parameters (compiler/ops/norm.py norm_parameters; the schema's NormOptions, slots in order). */
typedef struct {
    int32_t mode;             /**< 0 layer norm (centre: the row's mean), 1 RMS norm (centre: input_zero_point) */
    int32_t input_zero_point; /**< -128..127 */
    int32_t epsilon_high;     /**< E = epsilon_high·2^31 + epsilon_low = D²·eps / scale_in²·2^F: 0..2^30 − 1 */
    int32_t epsilon_low;      /**< 0..2^31 − 1 */
    int32_t epsilon_shift;    /**< F: even, >= 0, with bitlen(D²·2^16) + F <= 61 (V·2^F + E < 2^62) */
    int32_t norm_bits;        /**< N: fractional bits of the normalised value, 0..30, D·4^N <= 2^60 */
    int32_t output_shift;     /**< H: fractional bits of the per-channel accumulator, 1..24 */
} em_norm_params;

/** Longest norm row: Σq² < 2^31 and 255·D in 23 bits. */
#define EM_NORM_MAX_DEPTH 32767

/** Whether @p params (not NULL, each field within its range above) and @p depth (1..EM_NORM_MAX_DEPTH)
 *  are within em_norm_s8()'s ranges: its own check at every call, and the NORM adapter's at load. */
bool em_norm_s8_params_valid(const em_norm_params *params, int32_t depth);

/**
 * int8 layer norm or RMS norm of each row, then the per-channel affine (reference.norm_s8, bit for
 * bit on every tier). Per row: S = Σq and SS = Σq² (int32), the centre C (S, or D·zp), the exact
 * V = D·SS − 2·C·S + C², T = V·2^F + E, 1/sqrt(T) from a Newton iteration on Q29 (em_nn_rsqrt_q29);
 * per value: d = q·(D·2^A) − C·2^A, n = VRSHL(VRMULH(d, r), s) in Q(N),
 * out = clamp((sat32(VRMULH(n, multiplier[i]) + bias[i]) + 2^(H−1)) >> H).
 * MVE: Helium sums (VADDVA, VMLADAVA) and a 4-lane output loop, tails predicated; DSP: SMLAD sums
 * of squares; scalar: plain C. May run in place (input == output): a row is read whole before
 * any of it is written, and each value before its output.
 * @param rows        0..INT32_MAX rows
 * @param depth       D, 1..EM_NORM_MAX_DEPTH values per row
 * @param input       [rows, D] int8, -128..127
 * @param multiplier  [D] int32: gamma / scale_out · 2^(32 + H − N) (any int32)
 * @param bias        [D] int32: (beta / scale_out + zp_out) · 2^H (any int32: the sum saturates)
 * @param output      [rows, D] int8; the input itself or apart from it
 * @return EM_NN_OK, or EM_NN_ERR_BAD_ARGUMENT for NULL pointers or parameters out of range.
 */
em_nn_status em_norm_s8(const em_norm_params *params, int32_t rows, int32_t depth, const int8_t *input,
                        const int32_t *multiplier, const int32_t *bias, int8_t *output);

#ifdef __cplusplus
}
#endif

#endif /* EM_NN_FUNCTIONS_H */
