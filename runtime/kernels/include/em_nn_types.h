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
    uint32_t paths;          /**< the variants to run, EM_NN_PATHS_FC bits (em_nn_variants.h); 0 below MVE */
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

/** What the caller gives one kernel call beside its operands: the scratch buffer (see the kernel's
 *  *_get_buffer_size()) and the variants the compiler chose for the layer (em_nn_variants.h). */
typedef struct {
    void *buf;       /**< 4-byte aligned, or NULL */
    int32_t size;    /**< bytes at buf, >= 0 */
    uint32_t paths;  /**< EM_NN_PATH_* bits of the kernel's variants to run (0: none; below MVE always 0) */
} em_nn_context;

/** Shapes of a 2-D pooling layer (max_pool2d, avg_pool2d), NHWC:
 *  input [batches, input_h, input_w, channels] -> output [batches, output_h, output_w, channels]. */
typedef struct {
    int32_t batches;   /**< N >= 1 */
    int32_t input_h;   /**< >= 1 */
    int32_t input_w;   /**< >= 1 */
    int32_t channels;  /**< C >= 1 */
    int32_t output_h;  /**< (input_h + pad_top + pad_bottom - kernel_h) / stride_h + 1, >= 1 */
    int32_t output_w;  /**< likewise along w */
} em_pool_dims;

/** Window and quantization of a 2-D pooling layer (the schema's Pool2DOptions). Input and output
 *  share their quantization. Padded cells never win a max and hold real 0 for an average. */
typedef struct {
    int32_t kernel_h, kernel_w;   /**< >= 1 (avg pool: kernel_h * kernel_w <= EM_AVG_POOL_MAX_CELLS) */
    int32_t stride_h, stride_w;   /**< >= 1 */
    int32_t pad_top, pad_bottom;  /**< 0..kernel_h - 1 */
    int32_t pad_left, pad_right;  /**< 0..kernel_w - 1 */
    int32_t count_include_pad;    /**< avg pool: non-zero divides by the kernel area, 0 by the real cells */
    int32_t zero_point;           /**< avg pool: input and output zero point, -128..127 (max pool: ignored, -128..127) */
    int32_t activation_min;       /**< lower clamp, -128..activation_max */
    int32_t activation_max;       /**< upper clamp, activation_min..127 */
} em_pool_params;

/** Largest kernel area of an average pool: keeps its exact integer division in 31 bits. */
#define EM_AVG_POOL_MAX_CELLS (1 << 22)
/** ... of an int16 (A16W8) average pool: 2^15 cells of |x| <= 2^15 keep its sums in 31 bits. */
#define EM_AVG_POOL_S16_MAX_CELLS (1 << 15)

/** Headroom bits of the elementwise add (reference.ADD_LEFT_SHIFT). */
#define EM_ADD_LEFT_SHIFT 20
/** ... of the int16 (A16W8) add (reference.ADD_LEFT_SHIFT_S16): 2^15 · 2^13 · 4 (requantize's
 *  pre-shift of up to 2 bits) stays inside int32. */
#define EM_ADD_LEFT_SHIFT_S16 13

/** Largest rank of an elementwise broadcast (em_broadcast_dims): the runtime's EM_MAX_RANK. */
#define EM_BROADCAST_MAX_RANK 8

/** Shapes of an elementwise binary op with NumPy broadcasting (add, mul, minimum, maximum), every
 *  one aligned from the last axis to the output's rank (missing leading axes are 1). Each
 *  operand is a dense row-major array of its own dims; along axis k its dim is the output's
 *  (it varies there) or 1 (it is broadcast: its one value repeats), and at least one of the two
 *  is the output's. Any mix: both operands broadcast, on any axes ([N, H, W, 1] with
 *  [1, 1, 1, C], [2, 1, 5] with [1, 3, 1]). The kernels merge adjacent axes that broadcast alike
 *  and run their inner loops over the contiguous runs that remain (em_nn_broadcast.h). */
typedef struct {
    int32_t rank;                           /**< 0..EM_BROADCAST_MAX_RANK (0: one element) */
    int32_t shape[EM_BROADCAST_MAX_RANK];   /**< output dims, >= 1; their product <= INT32_MAX */
    int32_t a_shape[EM_BROADCAST_MAX_RANK]; /**< input a's dims: 1 or shape[k] */
    int32_t b_shape[EM_BROADCAST_MAX_RANK]; /**< input b's dims: 1 or shape[k]; a's or b's is shape[k] */
} em_broadcast_dims;

/** Quantization of an elementwise add (the schema's AddOptions, reference.add_s8's keywords):
 *  each input onto a common scale, then the sum onto the output scale. */
typedef struct {
    int32_t a_offset;          /**< minus input a's zero point, -127..128 */
    int32_t a_multiplier;      /**< Q31, -INT32_MAX..INT32_MAX (negative: the input is subtracted) */
    int32_t a_shift;           /**< -31..30; > 0 shifts left */
    int32_t b_offset;          /**< minus input b's zero point, -127..128 */
    int32_t b_multiplier;      /**< Q31, -INT32_MAX..INT32_MAX (negative: SUB lowers to it) */
    int32_t b_shift;           /**< -31..30 */
    int32_t output_offset;     /**< output zero point, -128..127 */
    int32_t output_multiplier; /**< Q31, 0..INT32_MAX */
    int32_t output_shift;      /**< -31..30 */
    int32_t activation_min;    /**< lower clamp, -128..activation_max */
    int32_t activation_max;    /**< upper clamp, activation_min..127 */
} em_add_params;

#ifdef __cplusplus
}
#endif

#endif /* EM_NN_TYPES_H */
