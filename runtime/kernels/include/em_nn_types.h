/**
 * @file em_nn_types.h
 * @brief Plain parameter structs of the Ember kernels. They know nothing of the program format.
 */
#ifndef EM_NN_TYPES_H
#define EM_NN_TYPES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Dimensions of a fully connected layer: input [batches, input_features],
 *  weights [output_features, input_features], output [batches, output_features]. */
typedef struct {
    int32_t batches;         /**< B >= 1 */
    int32_t input_features;  /**< I >= 1 */
    int32_t output_features; /**< O >= 1 */
} em_fc_dims;

/** Quantization parameters of a fully connected layer (besides the per-channel ones). */
typedef struct {
    int32_t output_offset;   /**< output zero point, -128..127 */
    int32_t activation_min;  /**< lower clamp, -128..activation_max */
    int32_t activation_max;  /**< upper clamp, activation_min..127 */
} em_fc_params;

/** Per output channel requantization: real ≈ multiplier[o] * 2^(shift[o] - 31). */
typedef struct {
    const int32_t *multiplier; /**< [O], Q31 in [2^30, 2^31) or 0 */
    const int32_t *shift;      /**< [O], -31..30; > 0 shifts left */
} em_per_channel_quant;

/** Shapes of a 2-D convolution (conv2d and depthwise_conv2d), NHWC:
 *  input [batches, input_h, input_w, input_c], output [batches, output_h, output_w, output_c].
 *  Weights: conv2d [output_c, kernel_h, kernel_w, input_c / groups];
 *  depthwise [kernel_h, kernel_w, output_c] with output_c = input_c * depth_multiplier. */
typedef struct {
    int32_t batches;   /**< N >= 1 */
    int32_t input_h;   /**< >= 1 */
    int32_t input_w;   /**< >= 1 */
    int32_t input_c;   /**< >= 1 */
    int32_t kernel_h;  /**< >= 1 */
    int32_t kernel_w;  /**< >= 1 */
    int32_t output_h;  /**< (input_h + pad_top + pad_bottom - dilation_h (kernel_h - 1) - 1) / stride_h + 1 */
    int32_t output_w;  /**< likewise along w */
    int32_t output_c;  /**< >= 1 */
} em_conv_dims;

/** Geometry and quantization of a 2-D convolution (the schema's Conv2DOptions). Padded cells
 *  hold input_zero_point (the int8 code of real 0), so that the folded bias stays exact. */
typedef struct {
    int32_t stride_h, stride_w;        /**< >= 1 */
    int32_t dilation_h, dilation_w;    /**< >= 1 */
    int32_t pad_top, pad_bottom;       /**< >= 0 */
    int32_t pad_left, pad_right;       /**< >= 0 */
    int32_t groups;            /**< conv2d: >= 1, divides input_c and output_c (depthwise ignores it) */
    int32_t depth_multiplier;  /**< depthwise: >= 1, output_c = input_c * depth_multiplier (conv2d ignores it) */
    int32_t input_zero_point;  /**< -128..127, value of the padded cells */
    int32_t output_offset;     /**< output zero point, -128..127 */
    int32_t activation_min;    /**< lower clamp, -128..activation_max */
    int32_t activation_max;    /**< upper clamp, activation_min..127 */
} em_conv_params;

/** The caller's scratch buffer for one kernel call (see the kernel's *_get_buffer_size()). */
typedef struct {
    void *buf;     /**< 4-byte aligned, or NULL */
    int32_t size;  /**< bytes at buf, >= 0 */
} em_nn_context;

#ifdef __cplusplus
}
#endif

#endif /* EM_NN_TYPES_H */
