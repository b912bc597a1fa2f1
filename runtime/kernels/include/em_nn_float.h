/**
 * @file em_nn_float.h
 * @brief Float fallback kernels: portable float32 C for the ops a program keeps in float (left
 *        unquantized by the user, or with no int8 lowering). One path on every tier, no ISA
 *        intrinsics: they build with an FPU (M4, M33, M55: hardware single precision) and without
 *        one (M3: soft-float through libgcc), and give the same bits wherever the C operations
 *        are IEEE 754 (+ - * /, sqrtf are correctly rounded everywhere).
 *
 * Each kernel is specified by compiler/reference.py (float_*_f32), which computes in float32 in
 * the same order as the C: sums run in index order from the first term, never reassociated
 * (build with -ffp-contract=off -fno-fast-math, as the build does). Functions that call libm
 * (expf, logf, tanhf, erff: sigmoid, tanh, exp, log, GELU, SiLU, softmax) may differ from the
 * reference by a few units in the last place, because newlib's and glibc's libm, and NumPy,
 * round those differently; everything else is bit-exact.
 *
 * 4-D feature maps are NHWC. Kernels never allocate; outputs must not overlap inputs unless
 * stated. Every kernel returns EM_NN_ERR_BAD_ARGUMENT for NULL pointers or sizes out of range.
 */
#ifndef EM_NN_FLOAT_H
#define EM_NN_FLOAT_H

#include <stdint.h>

#include "em_nn_types.h"
#include "em_nn_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Highest rank the broadcasting binary kernel takes (the runtime's EM_MAX_RANK is larger;
 *  the adapter refuses more). */
#define EM_FLOAT_MAX_RANK 6

/** Output clamp of the float ops: v < min ? min : v, then v > max ? max : v (NaN passes). */
typedef struct {
    float min; /**< -inf: no lower clamp */
    float max; /**< +inf: no upper clamp */
} em_float_activation;

/** The schema's FloatBinaryFunction. */
typedef enum {
    EM_FLOAT_BINARY_ADD = 0,
    EM_FLOAT_BINARY_SUB = 1,
    EM_FLOAT_BINARY_MUL = 2,
    EM_FLOAT_BINARY_DIV = 3,
    EM_FLOAT_BINARY_MINIMUM = 4, /**< (a < b || a is NaN) ? a : b */
    EM_FLOAT_BINARY_MAXIMUM = 5, /**< (a > b || a is NaN) ? a : b */
    EM_FLOAT_BINARY_COUNT = 6
} em_float_binary_function;

/** The schema's FloatUnaryFunction. */
typedef enum {
    EM_FLOAT_UNARY_CLAMP = 0,       /**< to [min, max] (ReLU: [0, inf], ReLU6: [0, 6]) */
    EM_FLOAT_UNARY_SIGMOID = 1,     /**< 1 / (1 + expf(-x)) */
    EM_FLOAT_UNARY_TANH = 2,        /**< tanhf(x) */
    EM_FLOAT_UNARY_EXP = 3,         /**< expf(x) */
    EM_FLOAT_UNARY_LOG = 4,         /**< logf(x) */
    EM_FLOAT_UNARY_SQRT = 5,        /**< sqrtf(x) */
    EM_FLOAT_UNARY_RSQRT = 6,       /**< 1 / sqrtf(x) */
    EM_FLOAT_UNARY_ABS = 7,         /**< fabsf(x) */
    EM_FLOAT_UNARY_NEG = 8,         /**< -x */
    EM_FLOAT_UNARY_GELU = 9,        /**< x * 0.5 * (1 + erff(x * (1/sqrt 2))) */
    EM_FLOAT_UNARY_GELU_TANH = 10,  /**< x * 0.5 * (1 + tanhf(sqrt(2/pi) * (x + 0.044715 x^3))) */
    EM_FLOAT_UNARY_SILU = 11,       /**< x / (1 + expf(-x)) */
    EM_FLOAT_UNARY_HARDSWISH = 12,  /**< x * clamp(x + 3, 0, 6) / 6 */
    EM_FLOAT_UNARY_HARDSIGMOID = 13,/**< clamp(x + 3, 0, 6) / 6 */
    EM_FLOAT_UNARY_LEAKY_RELU = 14, /**< x > 0 ? x : x * alpha */
    EM_FLOAT_UNARY_COUNT = 15
} em_float_unary_function;

/** Parameters of the unary functions that have any. */
typedef struct {
    float alpha; /**< LEAKY_RELU's negative slope */
    float min;   /**< CLAMP's bounds, min <= max */
    float max;
} em_float_unary_params;

/** Shapes of a broadcasting binary op: the output's shape and each operand's element strides
 *  along the output's axes (0 where the operand is broadcast along that axis). */
typedef struct {
    int32_t rank;                         /**< 1..EM_FLOAT_MAX_RANK */
    int32_t shape[EM_FLOAT_MAX_RANK];     /**< output dims, each >= 1 */
    int32_t a_stride[EM_FLOAT_MAX_RANK];  /**< elements, >= 0 */
    int32_t b_stride[EM_FLOAT_MAX_RANK];
} em_float_broadcast_dims;

/** Geometry of a float 2-D convolution (the schema's FloatConv2DOptions). */
typedef struct {
    int32_t stride_h, stride_w;      /**< >= 1 */
    int32_t dilation_h, dilation_w;  /**< >= 1 */
    int32_t pad_top, pad_left;       /**< >= 0 (bottom / right padding is implied by the output size) */
    int32_t groups;                  /**< >= 1, divides input_c and output_c */
} em_float_conv_params;

/** Window of a float 2-D pooling layer (the schema's FloatPool2DOptions); dims: em_pool_dims. */
typedef struct {
    int32_t kernel_h, kernel_w;   /**< >= 1 */
    int32_t stride_h, stride_w;   /**< >= 1 */
    int32_t pad_top, pad_left;    /**< >= 0 */
    int32_t count_include_pad;    /**< average: non-zero divides by kernel_h * kernel_w, 0 by the cells inside */
} em_float_pool_params;

/**
 * Float fully connected (reference.float_fully_connected_f32):
 * out[b, o] = clamp(bias[o] + in[b, 0]·w[o, 0] + in[b, 1]·w[o, 1] + …), summed in that order.
 * @param batches, input_features, output_features  B (rows), I, O >= 1
 * @param input    [B, I] float32
 * @param weights  [O, I] float32
 * @param bias     [O] float32
 * @param output   [B, O] float32
 */
em_nn_status em_float_fully_connected_f32(int32_t batches, int32_t input_features, int32_t output_features,
                                          const float *input, const float *weights, const float *bias,
                                          em_float_activation act, float *output);

/**
 * Float grouped 2-D convolution, NHWC (reference.float_conv2d_f32); depthwise is groups = C_IN.
 * out[n, y, x, o] = clamp(bias[o] + Σ over ky, kx, i (in that order, taps inside the input only)
 *                   in[n, y·sh − pt + ky·dh, x·sw − pl + kx·dw, g·Cg + i] · w[o, ky, kx, i]),
 * Cg = C_IN / groups, g = o / (C_OUT / groups).
 * @param dims    shapes (em_nn_types.h's em_conv_dims: N, H, W, C_IN, KH, KW, OH, OW, C_OUT)
 * @param input   [N, H, W, C_IN]; weights [C_OUT, KH, KW, Cg]; bias [C_OUT]; output [N, OH, OW, C_OUT]
 */
em_nn_status em_float_conv2d_f32(const em_conv_dims *dims, const em_float_conv_params *params, const float *input,
                                 const float *weights, const float *bias, em_float_activation act, float *output);

/**
 * Float elementwise binary op with NumPy broadcasting (reference.float_binary_f32):
 * out = clamp(function(a, b)) over the output's shape.
 * @param function  EM_FLOAT_BINARY_*
 * @param dims      output shape and operand strides
 */
em_nn_status em_float_binary_f32(int32_t function, const em_float_broadcast_dims *dims, const float *a,
                                 const float *b, em_float_activation act, float *output);

/**
 * Float elementwise unary function (reference.float_unary_f32). May run in place.
 * @param function  EM_FLOAT_UNARY_*
 * @param count     elements, >= 0
 */
em_nn_status em_float_unary_f32(int32_t function, const em_float_unary_params *params, const float *input,
                                int32_t count, float *output);

/**
 * Float softmax over the last axis (reference.float_softmax_f32): per row,
 * m = max, e[i] = expf(x[i] − m), s = e[0] + e[1] + …, out[i] = e[i] / s.
 * @param rows, depth  [rows, depth], each >= 1. May run in place.
 */
em_nn_status em_float_softmax_f32(int32_t rows, int32_t depth, const float *input, float *output);

/**
 * Float layer norm over the last axis (reference.float_layer_norm_f32): per row,
 * mean = (Σ x) / D, var = (Σ (x − mean)²) / D, inv = 1 / sqrtf(var + epsilon),
 * out[i] = (x[i] − mean) · inv · weight[i] + bias[i]. Sums in index order. May run in place.
 * RMS norm (@p rms nonzero): mean = 0, so var = (Σ x²) / D.
 * @param rows, depth  [rows, D], each >= 1; weight, bias [D]
 */
em_nn_status em_float_layer_norm_f32(int32_t rows, int32_t depth, const float *input, const float *weight,
                                     const float *bias, float epsilon, int32_t rms, float *output);

/**
 * Float max pool, NHWC (reference.float_max_pool_f32): per output, m = -inf, then for each cell
 * of the window inside the input, in (ky, kx) order, m = x > m ? x : m; out = clamp(m).
 * @param input [N, H, W, C]; output [N, OH, OW, C] (dims from em_pool_dims)
 */
em_nn_status em_float_max_pool_f32(const em_pool_dims *dims, const em_float_pool_params *params, const float *input,
                                   em_float_activation act, float *output);

/**
 * Float average pool, NHWC (reference.float_avg_pool_f32): per output, the sum (from 0, in (ky, kx)
 * order) of the window's cells inside the input, divided by (float)(kernel_h * kernel_w) when
 * count_include_pad, else by the number of those cells (>= 1: padding < kernel); out = clamp.
 */
em_nn_status em_float_avg_pool_f32(const em_pool_dims *dims, const em_float_pool_params *params, const float *input,
                                   em_float_activation act, float *output);

#ifdef __cplusplus
}
#endif

#endif /* EM_NN_FLOAT_H */
