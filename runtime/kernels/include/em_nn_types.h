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

#ifdef __cplusplus
}
#endif

#endif /* EM_NN_TYPES_H */
