/**
 * @file em_kernel_entries_s8.c
 * @brief The checking entry points of the int8 convolution and pooling kernels: each validates
 *        its arguments with the check an operator's check() runs at load, then calls the tier's
 *        unchecked body (em_*_trusted).
 *
 * The operator adapters' eval() calls the _trusted bodies: the program was verified once (on the
 * device by em_program_load(), or on the host for sealed firmware), so a second check per invoke
 * would only cost code (892 bytes of a sealed DS-CNN image at -Os) and time. These
 * entries serve every other caller — tests, benchmarks, code that calls the kernels directly —
 * and, being their own archive member, are linked only where one is called.
 */
#include <stddef.h>

#include "em_nn_functions.h"

em_nn_status em_conv2d_s8(const em_nn_context *ctx, const em_conv_params *params,
                          const em_per_channel_quant *quant, const em_conv_dims *dims,
                          const int8_t *input, const int8_t *weights, const int32_t *bias,
                          int8_t *output)
{
    if (input == NULL || weights == NULL || output == NULL
        || em_conv_s8_validate(params, quant, dims, false) != EM_NN_OK) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return em_conv2d_s8_trusted(ctx, params, quant, dims, input, weights, bias, output);
}

em_nn_status em_depthwise_conv2d_s8(const em_nn_context *ctx, const em_conv_params *params,
                                    const em_per_channel_quant *quant, const em_conv_dims *dims,
                                    const int8_t *input, const int8_t *weights, const int32_t *bias,
                                    int8_t *output)
{
    if (input == NULL || weights == NULL || output == NULL
        || em_conv_s8_validate(params, quant, dims, true) != EM_NN_OK) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return em_depthwise_conv2d_s8_trusted(ctx, params, quant, dims, input, weights, bias, output);
}

em_nn_status em_max_pool_s8(const em_pool_params *params, const em_pool_dims *dims, const int8_t *input,
                            int8_t *output)
{
    if (em_pool_s8_validate(params, dims) != EM_NN_OK || input == NULL || output == NULL) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return em_max_pool_s8_trusted(params, dims, input, output);
}

em_nn_status em_avg_pool_s8(const em_pool_params *params, const em_pool_dims *dims, const int8_t *input,
                            int8_t *output)
{
    if (em_avg_pool_s8_validate(params, dims) != EM_NN_OK || input == NULL || output == NULL) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return em_avg_pool_s8_trusted(params, dims, input, output);
}

em_nn_status em_max_pool_s16(const em_pool_params *params, const em_pool_dims *dims, const int16_t *input,
                             int16_t *output)
{
    if (em_pool_s16_validate(params, dims) != EM_NN_OK || input == NULL || output == NULL) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return em_max_pool_s16_trusted(params, dims, input, output);
}

em_nn_status em_avg_pool_s16(const em_pool_params *params, const em_pool_dims *dims, const int16_t *input,
                             int16_t *output)
{
    if (em_avg_pool_s16_validate(params, dims) != EM_NN_OK || input == NULL || output == NULL) {
        return EM_NN_ERR_BAD_ARGUMENT;
    }
    return em_avg_pool_s16_trusted(params, dims, input, output);
}
